package io.github.rocketmqrebalance.consumer;

import java.util.Map;

import io.github.rocketmqrebalance.NativeStrategy;
import io.github.rocketmqrebalance.engine.RebalanceConfig;

import org.apache.rocketmq.client.AccessChannel;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.hook.ConsumeMessageHook;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.remoting.protocol.heartbeat.SubscriptionData;

/**
 * An orderly consumer whose rebalancing is this project's engine: subscribe, register a
 * {@link MessageListenerOrderly}, start, shutdown, as with {@code DefaultMQPushConsumer}. With the
 * default safe semantics a queue is never in two consumers' listeners at once (it is unlocked at
 * the broker only after its listener call returned and its offset was committed), a lost lock
 * stops consumption at once, and a queue starts from {@code consumeFrom} once per group.
 * {@link RebalanceConfig.Semantics#JAVA} makes Java's decisions instead, for comparison.
 *
 * <p>Rounds run every 20 s, at once when the broker notifies that the group's ids changed, and 1 s after
 * a round that was unbalanced or skipped;
 * broker locks are renewed every 20 s; listener offsets are committed every second (synchronously,
 * those that moved) and whenever a queue is released. A pool of {@link #setConsumeThreadMin} threads
 * calls the listener, queues in parallel and each queue one call after another,
 * {@link #setConsumeMessageBatchMaxSize} messages a call; a message that keeps failing goes to the
 * dead-letter queue after {@link #setMaxReconsumeTimes} attempts.
 * Every second each broker of the held queues is polled, and asked for its start time when it
 * answers on a new connection ({@link BrokerWatch}): a
 * broker out of reach has its queues' consumption paused, and a restarted one (its lock table is
 * gone) is told to the engine before any call begins on it. Admin tools asking for its running info
 * get the engine's held queues, locks and strategy ({@link RunningInfo}). Needs rocketmq-client 5.1.0
 * to 5.5.0. The settings ({@link ConsumerSettings}) are read at {@link #start()}; what runs is a
 * {@link RunningConsumer}.
 */
public class SafeOrderlyConsumer {
    private final ConsumerSettings settings;
    /** The client instance's consumer of the group, built with the consumer so that its client settings can be given. */
    private final DefaultLitePullConsumer puller;
    private MessageListenerOrderly listener;
    /** Set by start(), once. */
    private volatile RunningConsumer running;
    private volatile boolean stopped;
    private volatile boolean suspended;

    public SafeOrderlyConsumer(String group) {
        this(group, null, false, null);
    }

    /** Every request signed by {@code rpcHook} (ACL: {@code new AclClientRPCHook(new SessionCredentials(accessKey, secretKey))}). */
    public SafeOrderlyConsumer(String group, RPCHook rpcHook) {
        this(group, rpcHook, false, null);
    }

    /** With message tracing when {@code enableMsgTrace}, to {@code customizedTraceTopic} (null: {@code RMQ_SYS_TRACE_TOPIC}). */
    public SafeOrderlyConsumer(String group, boolean enableMsgTrace, String customizedTraceTopic) {
        this(group, null, enableMsgTrace, customizedTraceTopic);
    }

    /**
     * As {@code DefaultMQPushConsumer(group, rpcHook, strategy, enableMsgTrace, customizedTraceTopic)}
     * (the strategy: {@link #setStrategy}): requests signed by {@code rpcHook} (may be null), and
     * each listener call traced (its {@code SubBefore} and {@code SubAfter} records, through the
     * client's own trace hook and dispatcher) when {@code enableMsgTrace}.
     */
    public SafeOrderlyConsumer(String group, RPCHook rpcHook, boolean enableMsgTrace, String customizedTraceTopic) {
        this.settings = new ConsumerSettings(group, rpcHook, enableMsgTrace, customizedTraceTopic);
        // The client instance's consumer of the group: it heartbeats with the group's subscriptions
        // (GroupSubscriptions), and is assigned no queue (QueuePuller fetches them), so it never
        // pulls and, with its silent store, commits nothing. Its client configuration (name
        // server, TLS, channels) and RPC hook are the client instance's, so every request is.
        this.puller = new DefaultLitePullConsumer(group, rpcHook);
        puller.setAutoCommit(false);
        puller.setOffsetStore(SilentOffsetStore.create());
    }

    /**
     * TLS to the name server and brokers, as {@code ClientConfig.setUseTLS} (the trace producer's
     * too). Like every client setting, it belongs to the client instance, which consumers and
     * producers of one JVM with the same instance name share.
     */
    public void setUseTLS(boolean useTLS) {
        puller.setUseTLS(useTLS);
    }

    public boolean isUseTLS() {
        return puller.isUseTLS();
    }

    /** {@code LOCAL} (default) or {@code CLOUD}, as {@code ClientConfig.setAccessChannel}: what the trace records say. */
    public void setAccessChannel(AccessChannel accessChannel) {
        puller.setAccessChannel(accessChannel);
    }

    public AccessChannel getAccessChannel() {
        return puller.getAccessChannel();
    }

    /** The broker's VIP channel (port - 2), as {@code ClientConfig.setVipChannelEnabled} (off by default in 5.x). */
    public void setVipChannelEnabled(boolean enabled) {
        puller.setVipChannelEnabled(enabled);
    }

    public boolean isVipChannelEnabled() {
        return puller.isVipChannelEnabled();
    }

    /**
     * The namespace, as {@code ClientConfig.setNamespace} (deprecated there since 5.2 for
     * {@link #setNamespaceV2}, as here): the group and every subscribed topic carry it on the wire
     * ({@code <namespace>%<name>}, the retry topic {@code %RETRY%<namespace>%<group>}), and the
     * listener and hooks see the topics without it, as the push consumer's do. Read once, at
     * {@link #start()}; subscribe with the plain topic names. Without one, a name server address
     * of an instance endpoint gives it, as in Java.
     */
    @Deprecated
    @SuppressWarnings("deprecation")
    public void setNamespace(String namespace) {
        puller.setNamespace(namespace);
    }

    @Deprecated
    @SuppressWarnings("deprecation")
    public String getNamespace() {
        return puller.getNamespace();
    }

    /**
     * The namespace as rocketmq-client 5.2+ sends it: every request of the client instance carries
     * it in its {@code ns} header field (the client's own {@code NamespaceRpcHook}), for the servers
     * that read it; names are not wrapped. On an older client, refused.
     */
    public void setNamespaceV2(String namespaceV2) {
        NamespaceV2.set(puller, namespaceV2);
    }

    public String getNamespaceV2() {
        return NamespaceV2.get(puller);
    }

    /** The hook signing every request, as given to the constructor (null: none). */
    public RPCHook getRpcHook() {
        return settings.rpcHook;
    }

    /** Whether each listener call is traced, as given to the constructor. */
    public boolean isEnableMsgTrace() {
        return settings.enableMsgTrace;
    }

    /** The trace topic given to the constructor (null: the client's default, {@code RMQ_SYS_TRACE_TOPIC}). */
    public String getCustomizedTraceTopic() {
        return settings.traceTopic;
    }

    /**
     * A hook called before and after every listener call, as
     * {@code DefaultMQPushConsumer.registerConsumeMessageHook} ({@link ConsumeHooks} says what the
     * context holds); register before {@link #start()}.
     */
    public void registerConsumeMessageHook(ConsumeMessageHook hook) {
        settings.hook(hook);
    }

    public void setNamesrvAddr(String namesrvAddr) {
        puller.setNamesrvAddr(namesrvAddr);
    }

    public void setInstanceName(String instanceName) {
        puller.setInstanceName(instanceName);
    }

    /** The allocation strategy (default {@code NativeAllocateMessageQueueAveragely}). */
    public void setStrategy(NativeStrategy strategy) {
        settings.strategy(strategy);
    }

    /** The strategy it allocates with (null until set: AVG). */
    public NativeStrategy getStrategy() {
        return settings.strategy;
    }

    public void setSemantics(RebalanceConfig.Semantics semantics) {
        settings.semantics(semantics);
    }

    public void setConsumeFrom(RebalanceConfig.ConsumeFrom consumeFrom) {
        settings.consumeFrom(consumeFrom);
    }

    /**
     * Where {@code TIMESTAMP} starts a queue no one has consumed: the first message stored at or
     * after this time, {@code yyyyMMddHHmmss} in the JVM's time zone, as the push consumer's
     * {@code setConsumeTimestamp} (default: half an hour before the consumer was built).
     */
    public void setConsumeTimestamp(String yyyyMMddHHmmss) {
        settings.consumeTimestamp(yyyyMMddHHmmss);
    }

    public String getConsumeTimestamp() {
        return settings.consumeTimestamp;
    }

    /** Overrides one of the engine's timing constants (docs/engine-json.md). */
    public void setTiming(String key, long ms) {
        settings.timing(key, ms);
    }

    /**
     * How often the listener's offsets are committed (default 1 s; only queues whose offset moved).
     * Java's push consumer commits with every pull request and every 5 s; after a crash, the next
     * owner consumes again what was consumed since the last commit.
     */
    public void setPersistIntervalMillis(long ms) {
        settings.persistIntervalMs(ms);
    }

    /**
     * How often each broker of the held queues is asked whether it restarted (default 1 s; 0 turns
     * the watch off). A broker restart empties its lock table; with the watch, consumption of its
     * queues pauses while it is out of reach, and once it answers with a new start time the cached
     * offsets are committed again and the engine is told the locks are lost, before any call begins
     * on the new broker. Without it, the restart reaches the engine only through the next lock
     * renewal, up to {@link #setRebalanceIntervalMillis} later, while the client-side lease lets
     * calls go on. One read-only admin request per broker and interval (docs/java.md), which a 5.x
     * broker answers by counting its whole timer wheel: about a tenth of the samples in the engine's
     * runs of the throughput benchmark (docs/benchmarks.md).
     */
    public void setBrokerWatchIntervalMillis(long ms) {
        settings.brokerWatchIntervalMs(ms);
    }

    /** How often a round and a lock renewal run without a notification (default 20 s, as Java). */
    public void setRebalanceIntervalMillis(long ms) {
        settings.rebalanceIntervalMs(ms);
    }

    /**
     * How many messages one listener call gets at most (default 1, as {@code DefaultMQPushConsumer};
     * 1 to 1024). A queue's calls stay one after another, each under its consume lock.
     */
    public void setConsumeMessageBatchMaxSize(int size) {
        settings.consumeMessageBatchMaxSize(size);
    }

    /**
     * How many times a message may fail before it goes to the dead-letter queue
     * {@code %DLQ%<group>} (default -1: never, as Java's orderly consumer, whose queue then waits on
     * the message for ever). A call fails when the listener returns anything but SUCCESS or throws;
     * the queue is suspended for the context's {@code suspendCurrentQueueTimeMillis} (or
     * {@link #setSuspendCurrentQueueTimeMillis}'s) and the message delivered again. With a limit of N the listener sees it N + 1 times, then
     * it is sent back through the broker as Java's orderly consumer sends it, and the queue goes on.
     */
    public void setMaxReconsumeTimes(int times) {
        settings.maxReconsumeTimes(times);
    }

    /**
     * The consume thread pool (default 20 and 20, as {@code DefaultMQPushConsumer}; as there, the
     * pool's work queue is unbounded, so it runs {@code consumeThreadMin} threads). Queues are
     * consumed in parallel, each queue one call after another under its consume lock.
     */
    public void setConsumeThreadMin(int threads) {
        settings.consumeThreadMin(threads);
    }

    /** See {@link #setConsumeThreadMin}. */
    public void setConsumeThreadMax(int threads) {
        settings.consumeThreadMax(threads);
    }

    /**
     * Flow control: a queue with this many messages fetched and not yet given to the listener is
     * fetched no further until they are (default 1000, as {@code DefaultMQPushConsumer}).
     */
    public void setPullThresholdForQueue(int messages) {
        settings.pullThresholdForQueue(messages);
    }

    /** Flow control by size: the fetched bytes per queue held back at most, in MiB (default 100, as Java). */
    public void setPullThresholdSizeForQueue(int mib) {
        settings.pullThresholdSizeForQueueMiB(mib);
    }

    /** How many messages one pull fetches from a queue (default 32, as {@code DefaultMQPushConsumer}). */
    public void setPullBatchSize(int messages) {
        settings.pullBatchSize(messages);
    }

    /** See {@link #setMaxReconsumeTimes}. */
    public int getMaxReconsumeTimes() {
        return settings.maxReconsumeTimes;
    }

    /** See {@link #setConsumeMessageBatchMaxSize}. */
    public int getConsumeMessageBatchMaxSize() {
        return settings.consumeMessageBatchMaxSize;
    }

    /** See {@link #setConsumeThreadMin}. */
    public int getConsumeThreadMin() {
        return settings.consumeThreadMin;
    }

    /** See {@link #setConsumeThreadMin}. */
    public int getConsumeThreadMax() {
        return settings.consumeThreadMax;
    }

    /** See {@link #setPullThresholdForQueue}. */
    public int getPullThresholdForQueue() {
        return settings.pullThresholdForQueue;
    }

    /** See {@link #setPullThresholdSizeForQueue} (MiB). */
    public int getPullThresholdSizeForQueue() {
        return settings.pullThresholdSizeForQueueMiB;
    }

    /** See {@link #setPullBatchSize}. */
    public int getPullBatchSize() {
        return settings.pullBatchSize;
    }

    /**
     * Per-topic flow control (default -1: none): with it set, each held queue's
     * {@code pullThresholdForQueue} becomes it divided by the number of queues held (at least 1),
     * as {@code DefaultMQPushConsumer} divides it (by every queue held, of any topic). -1, or 1 to
     * 6553500.
     */
    public void setPullThresholdForTopic(int messages) {
        settings.pullThresholdForTopic(messages);
    }

    public int getPullThresholdForTopic() {
        return settings.pullThresholdForTopic;
    }

    /** {@link #setPullThresholdForTopic}'s twin by size, in MiB (default -1: none; else 1 to 102400). */
    public void setPullThresholdSizeForTopic(int mib) {
        settings.pullThresholdSizeForTopicMiB(mib);
    }

    public int getPullThresholdSizeForTopic() {
        return settings.pullThresholdSizeForTopicMiB;
    }

    /** How long a queue's next pull waits after one that brought messages (default 0; 0 to 65535 ms, as the push consumer). */
    public void setPullInterval(long ms) {
        settings.pullIntervalMs(ms);
    }

    public long getPullInterval() {
        return settings.pullIntervalMs;
    }

    /**
     * How long a queue waits after a failed call when the listener's context does not say
     * (default 1000 ms); the wait is held to 10 ms to 30 s, as Java's orderly consumer holds it.
     */
    public void setSuspendCurrentQueueTimeMillis(long ms) {
        settings.suspendCurrentQueueTimeMillis(ms);
    }

    public long getSuspendCurrentQueueTimeMillis() {
        return settings.suspendCurrentQueueTimeMillis;
    }

    /**
     * Stops pulling, as {@code DefaultMQPushConsumer.suspend()}: a pull in flight is still
     * answered and its messages, like those fetched before, still consumed; the queues stay held
     * and locked (renewals and rounds go on), so no other consumer takes them meanwhile. Before
     * {@link #start()} it starts the consumer suspended.
     */
    public synchronized void suspend() {
        suspended = true;
        RunningConsumer r = running;
        if (r != null) {
            r.suspend();
        }
    }

    /** Pulls again after {@link #suspend()}. */
    public synchronized void resume() {
        suspended = false;
        RunningConsumer r = running;
        if (r != null) {
            r.resume();
        }
    }

    /** Whether {@link #suspend()} holds pulling now. */
    public boolean isSuspended() {
        return suspended;
    }

    /** Every message of {@code topic}. */
    public void subscribe(String topic) {
        subscribe(topic, MessageSelector.byTag(SubscriptionData.SUB_ALL));
    }

    /** The messages of {@code topic} whose tag {@code subExpression} names ({@code "TagA || TagB"}; null or {@code "*"}: every one), as a push consumer's. */
    public void subscribe(String topic, String subExpression) {
        subscribe(topic, MessageSelector.byTag(subExpression));
    }

    /**
     * The messages of {@code topic} {@code selector} selects: by tag, or by an SQL92 expression over
     * their properties (the broker filters those, and must have {@code enablePropertyFilter=true}).
     */
    public void subscribe(String topic, MessageSelector selector) {
        settings.subscribe(topic, selector);
    }

    /** The subscribed topics with their filters, in the order subscribed (the retry topic is not among them). */
    public Map<String, MessageSelector> subscriptions() {
        return settings.subscriptions();
    }

    public void registerMessageListener(MessageListenerOrderly listener) {
        this.listener = listener;
    }

    /** This consumer's client id, as the broker lists it; valid after {@link #start()}. */
    public String getClientId() {
        RunningConsumer r = running;
        return r == null ? null : r.clientId();
    }

    /** The queues this consumer holds now, with their engine state (empty before start and after shutdown). */
    public Map<MessageQueue, io.github.rocketmqrebalance.engine.QueueState> heldQueues() {
        RunningConsumer r = running;
        return r == null || stopped ? java.util.Collections.emptyMap() : r.held();
    }

    static long nowMs() {
        return System.nanoTime() / 1_000_000;
    }

    /**
     * Starts the group's client, the engine and its timers; the first round runs at once. Refused
     * before a topic is subscribed and a listener registered, and a second time.
     */
    public synchronized void start() throws MQClientException {
        if (listener == null || settings.topics.isEmpty()) {
            throw new IllegalStateException("subscribe to a topic and register a listener before start()");
        }
        if (running != null || stopped) {
            throw new IllegalStateException("this consumer was started already; build a new one");
        }
        settings.namespace = getNamespace();
        running = RunningConsumer.start(puller, settings, listener, suspended);
    }

    /** {@link #shutdown(long)} waiting up to 60 s. */
    public void shutdown() {
        shutdown(60_000);
    }

    /**
     * Releases every queue (commit, then unlock, each after its listener call returned), waiting up
     * to {@code awaitTerminateMillis} for running listener calls, then stops pulling. Queues still
     * busy after that stay locked until the broker expires the lock (60 s after the last renewal),
     * so no other consumer starts on them while a call may still run. Java's push consumer, by
     * contrast, waits {@code awaitTerminateMillis} (0 by default) for its consume threads and then
     * unlocks every queue, running call or not.
     */
    public synchronized void shutdown(long awaitTerminateMillis) {
        RunningConsumer r = running;
        if (r == null || stopped) {
            return;
        }
        stopped = true;
        r.shutdown(awaitTerminateMillis);
    }
}
