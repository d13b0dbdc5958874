package io.github.rocketmqrebalance.consumer;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.rocketmqrebalance.NativeAllocateMessageQueueAveragely;
import io.github.rocketmqrebalance.NativeStrategy;
import io.github.rocketmqrebalance.engine.RebalanceConfig;

import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.hook.ConsumeMessageHook;
import org.apache.rocketmq.common.UtilAll;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.remoting.protocol.NamespaceUtil;

/**
 * Every setting of a {@link SafeOrderlyConsumer}, each checked when it is given (a bad value is
 * refused at the setter that names it, never at start), with {@code DefaultMQPushConsumer}'s names
 * and defaults where the behaviour is the same. The consumer's setters write here until
 * {@code start()}; what runs reads it then and never again, so a setter called later changes
 * nothing that runs (as the push consumer's, most of whose settings are read at start).
 */
final class ConsumerSettings {
    final String group;
    /** The subscribed topics, in order, each with its filter. */
    final Map<String, MessageSelector> topics = new LinkedHashMap<>();
    NativeStrategy strategy = new NativeAllocateMessageQueueAveragely();
    RebalanceConfig.Semantics semantics = RebalanceConfig.Semantics.SAFE;
    RebalanceConfig.ConsumeFrom consumeFrom = RebalanceConfig.ConsumeFrom.LAST_OFFSET;
    /** As the push consumer's default: half an hour before the consumer was built. */
    String consumeTimestamp = UtilAll.timeMillisToHumanString3(System.currentTimeMillis() - 30 * 60 * 1000);
    /** The engine's timing constants overridden (docs/engine-json.md). */
    final Map<String, Long> timing = new LinkedHashMap<>();
    long rebalanceIntervalMs = 20_000;
    long persistIntervalMs = 1_000;
    long brokerWatchIntervalMs = 1_000;
    int consumeMessageBatchMaxSize = 1;
    int maxReconsumeTimes = -1;
    int consumeThreadMin = 20;
    int consumeThreadMax = 20;
    int pullThresholdForQueue = 1000;
    int pullThresholdSizeForQueueMiB = 100;
    int pullBatchSize = 32;
    /** -1: none; else the per-queue thresholds are these divided among the queues held. */
    int pullThresholdForTopic = -1;
    int pullThresholdSizeForTopicMiB = -1;
    long pullIntervalMs = 0;
    long suspendCurrentQueueTimeMillis = 1_000;

    /** Signs every request (ACL), or null. */
    final RPCHook rpcHook;
    /** Message tracing: on, and the topic (null: the client's default). */
    final boolean enableMsgTrace;
    final String traceTopic;
    /**
     * The namespace the group and topics carry on the wire ({@code ClientConfig.getNamespace()}
     * when the consumer starts: set by {@code setNamespace}, or read from an instance endpoint
     * name-server address), or null for none.
     */
    String namespace;
    /** Registered consume hooks, in order. */
    final List<ConsumeMessageHook> hooks = new CopyOnWriteArrayList<>();

    ConsumerSettings(String group) {
        this(group, null, false, null);
    }

    ConsumerSettings(String group, RPCHook rpcHook, boolean enableMsgTrace, String traceTopic) {
        if (group == null || group.isEmpty()) {
            throw new IllegalArgumentException("a consumer needs a group");
        }
        this.group = group;
        this.rpcHook = rpcHook;
        this.enableMsgTrace = enableMsgTrace;
        this.traceTopic = traceTopic == null || traceTopic.isEmpty() ? null : traceTopic;
    }

    /** The group as the broker knows it: {@code <namespace>%<group>} within a namespace, as the push consumer's after its start. */
    String wireGroup() {
        return NamespaceUtil.wrapNamespace(namespace, group);
    }

    /** The subscribed topics as the broker knows them, in order, each with its filter. */
    Map<String, MessageSelector> wireTopics() {
        Map<String, MessageSelector> wired = new LinkedHashMap<>();
        topics.forEach((topic, selector) -> wired.put(NamespaceUtil.wrapNamespace(namespace, topic), selector));
        return wired;
    }

    void hook(ConsumeMessageHook hook) {
        hooks.add(notNull(hook, "a consume hook"));
    }

    void strategy(NativeStrategy s) {
        strategy = notNull(s, "strategy");
    }

    void semantics(RebalanceConfig.Semantics s) {
        semantics = notNull(s, "semantics");
    }

    void consumeFrom(RebalanceConfig.ConsumeFrom from) {
        consumeFrom = notNull(from, "consumeFrom");
    }

    void consumeTimestamp(String yyyyMMddHHmmss) {
        if (yyyyMMddHHmmss == null || UtilAll.parseDate(yyyyMMddHHmmss, UtilAll.YYYYMMDDHHMMSS) == null) {
            throw new IllegalArgumentException("consumeTimestamp must be yyyyMMddHHmmss, not " + yyyyMMddHHmmss);
        }
        consumeTimestamp = yyyyMMddHHmmss;
    }

    /** Where {@code TIMESTAMP} starts, in milliseconds since the epoch (the JVM's time zone). */
    long consumeTimestampMs() {
        return UtilAll.parseDate(consumeTimestamp, UtilAll.YYYYMMDDHHMMSS).getTime();
    }

    void timing(String key, long ms) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("a timing needs a key (docs/engine-json.md)");
        }
        timing.put(key, ms);
    }

    void rebalanceIntervalMs(long ms) {
        rebalanceIntervalMs = range("rebalanceIntervalMillis", ms, 1, Long.MAX_VALUE);
    }

    void persistIntervalMs(long ms) {
        persistIntervalMs = range("persistIntervalMillis", ms, 1, Long.MAX_VALUE);
    }

    /** 0 turns the broker watch off. */
    void brokerWatchIntervalMs(long ms) {
        brokerWatchIntervalMs = range("brokerWatchIntervalMillis", ms, 0, Long.MAX_VALUE);
    }

    void consumeMessageBatchMaxSize(int size) {
        consumeMessageBatchMaxSize = (int) range("consumeMessageBatchMaxSize", size, 1, 1024);
    }

    void maxReconsumeTimes(int times) {
        if (times < -1) {
            throw new IllegalArgumentException("maxReconsumeTimes must be -1 (no limit) or more, not " + times);
        }
        maxReconsumeTimes = times;
    }

    /** The count the listener's side works with: Java's -1 is no limit. */
    int reconsumeLimit() {
        return maxReconsumeTimes < 0 ? Integer.MAX_VALUE : maxReconsumeTimes;
    }

    void consumeThreadMin(int threads) {
        consumeThreadMin = (int) range("consumeThreadMin", threads, 1, 1000);
    }

    void consumeThreadMax(int threads) {
        consumeThreadMax = (int) range("consumeThreadMax", threads, 1, 1000);
    }

    void pullThresholdForQueue(int messages) {
        pullThresholdForQueue = (int) range("pullThresholdForQueue", messages, 1, 65535);
    }

    void pullThresholdSizeForQueueMiB(int mib) {
        if (mib < 1 || mib > 1024) {
            throw new IllegalArgumentException("pullThresholdSizeForQueue must be 1 to 1024 (MiB), not " + mib);
        }
        pullThresholdSizeForQueueMiB = mib;
    }

    long pullThresholdSizeForQueueBytes() {
        return pullThresholdSizeForQueueMiB * 1024L * 1024L;
    }

    void pullBatchSize(int messages) {
        pullBatchSize = (int) range("pullBatchSize", messages, 1, 1024);
    }

    void pullThresholdForTopic(int messages) {
        pullThresholdForTopic = (int) noneOrRange("pullThresholdForTopic", messages, 1, 6_553_500);
    }

    void pullThresholdSizeForTopicMiB(int mib) {
        pullThresholdSizeForTopicMiB = (int) noneOrRange("pullThresholdSizeForTopic", mib, 1, 102_400);
    }

    void pullIntervalMs(long ms) {
        pullIntervalMs = range("pullInterval", ms, 0, 65_535);
    }

    void suspendCurrentQueueTimeMillis(long ms) {
        suspendCurrentQueueTimeMillis = range("suspendCurrentQueueTimeMillis", ms, 0, Long.MAX_VALUE);
    }

    /**
     * How long a queue waits after a failed call: the context's {@code suspendCurrentQueueTimeMillis}
     * if the listener set it (it starts at -1), else this consumer's, within 10 ms to 30 s, as
     * Java's orderly consumer.
     */
    long suspendAfterFailure(long fromContext) {
        long ms = fromContext == -1 ? suspendCurrentQueueTimeMillis : fromContext;
        return Math.max(10, Math.min(30_000, ms));
    }

    void subscribe(String topic, MessageSelector selector) {
        if (topic == null || topic.isEmpty() || selector == null) {
            throw new IllegalArgumentException("subscribe needs a topic and a selector");
        }
        topics.put(topic, selector);
    }

    Map<String, MessageSelector> subscriptions() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(topics));
    }

    /** What admin tools read in the running info, under {@code DefaultMQPushConsumer}'s property names. */
    java.util.Properties inForce() {
        return RunningInfo.properties("consumerGroup", group, "messageModel", "CLUSTERING", "consumeFromWhere", "CONSUME_FROM_" + consumeFrom.name(),
            "consumeTimestamp", consumeTimestamp, "consumeThreadMin", consumeThreadMin, "consumeThreadMax", consumeThreadMax,
            RunningInfo.THREAD_POOL_CORE_SIZE, consumeThreadMin, "pullBatchSize", pullBatchSize, "pullThresholdForQueue", pullThresholdForQueue,
            "pullThresholdSizeForQueue", pullThresholdSizeForQueueMiB, "consumeMessageBatchMaxSize", consumeMessageBatchMaxSize,
            "maxReconsumeTimes", maxReconsumeTimes, "pullThresholdForTopic", pullThresholdForTopic,
            "pullThresholdSizeForTopic", pullThresholdSizeForTopicMiB, "pullInterval", pullIntervalMs,
            "suspendCurrentQueueTimeMillis", suspendCurrentQueueTimeMillis, "enableMsgTrace", enableMsgTrace);
    }

    private static long range(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be " + min + (max == Long.MAX_VALUE ? " or more" : " to " + max) + ", not " + value);
        }
        return value;
    }

    private static long noneOrRange(String name, long value, long min, long max) {
        if (value != -1 && (value < min || value > max)) {
            throw new IllegalArgumentException(name + " must be -1 (none) or " + min + " to " + max + ", not " + value);
        }
        return value;
    }

    private static <T> T notNull(T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return value;
    }
}
