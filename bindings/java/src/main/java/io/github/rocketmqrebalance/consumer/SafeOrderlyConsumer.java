package io.github.rocketmqrebalance.consumer;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.github.rocketmqrebalance.NativeAllocateMessageQueueAveragely;
import io.github.rocketmqrebalance.NativeStrategy;
import io.github.rocketmqrebalance.engine.LockReport;
import io.github.rocketmqrebalance.engine.RebalanceConfig;
import io.github.rocketmqrebalance.engine.Rebalancer;
import io.github.rocketmqrebalance.engine.RoundReport;
import io.github.rocketmqrebalance.engine.TopicView;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.MQClientManager;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.common.UtilAll;
import org.apache.rocketmq.common.message.MessageQueue;
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
 * Every second each broker of the held queues is asked for its start time ({@link BrokerWatch}): a
 * broker out of reach has its queues' consumption paused, and a restarted one (its lock table is
 * gone) is told to the engine before any call begins on it. Admin tools asking for its running info
 * get the engine's held queues, locks and strategy ({@link RunningInfo}). Needs rocketmq-client 5.x.
 */
public class SafeOrderlyConsumer {
    private static final Logger LOG = Logger.getLogger(SafeOrderlyConsumer.class.getName());

    private final String group;
    private final DefaultLitePullConsumer puller;
    /** The subscribed topics, in order, each with its filter (every tag unless given). */
    private final Map<String, MessageSelector> topics = new LinkedHashMap<>();
    /** The topics the engine rebalances: the subscribed ones and the retry topic (set by start()). */
    private List<String> consumed = java.util.Collections.emptyList();
    private NativeStrategy strategy = new NativeAllocateMessageQueueAveragely();
    private RebalanceConfig.Semantics semantics = RebalanceConfig.Semantics.SAFE;
    private RebalanceConfig.ConsumeFrom consumeFrom = RebalanceConfig.ConsumeFrom.LAST_OFFSET;
    private String consumeTimestamp = UtilAll.timeMillisToHumanString3(System.currentTimeMillis() - 30 * 60 * 1000);
    private final Map<String, Long> timing = new LinkedHashMap<>();
    private long rebalanceIntervalMs = 20_000;
    private long persistIntervalMs = 1_000;
    private long brokerWatchIntervalMs = 1_000;
    private static final long UNBALANCED_RETRY_MS = 1_000;
    /** A retry of an unbalanced round is scheduled; one is enough. */
    private final java.util.concurrent.atomic.AtomicBoolean retryPending = new java.util.concurrent.atomic.AtomicBoolean();
    /** The offset last committed per queue, so the periodic commit sends only what moved. */
    private final Map<MessageQueue, Long> committed = new java.util.concurrent.ConcurrentHashMap<>();
    private MessageListenerOrderly listener;
    private int consumeMessageBatchMaxSize = 1;
    private int maxReconsumeTimes = -1;
    private int consumeThreadMin = 20;
    private int consumeThreadMax = 20;
    private int pullThresholdForQueue = 1000;
    private int pullThresholdSizeForQueueMiB = 100;
    private int pullBatchSize = 32;
    private QueueWorkers workers;
    private QueuePuller pulls;

    private MQClientInstance client;
    private ScheduledExecutorService rebalanceThread;
    private ScheduledExecutorService watchThread;
    private BrokerWatch watch;
    private ListenerCalls calls;
    private ClientHost host;
    private Rebalancer rebalancer;
    private volatile boolean stopping;

    public SafeOrderlyConsumer(String group) {
        this.group = group;
        // The client instance's consumer of the group: it heartbeats with the group's subscriptions
        // (GroupSubscriptions), and is assigned no queue (QueuePuller fetches them), so it never
        // pulls and, with its silent store, commits nothing.
        this.puller = new DefaultLitePullConsumer(group);
        puller.setAutoCommit(false);
        puller.setOffsetStore(SilentOffsetStore.create());
    }

    public void setNamesrvAddr(String namesrvAddr) {
        puller.setNamesrvAddr(namesrvAddr);
    }

    public void setInstanceName(String instanceName) {
        puller.setInstanceName(instanceName);
    }

    /** The allocation strategy (default {@code NativeAllocateMessageQueueAveragely}). */
    public void setStrategy(NativeStrategy strategy) {
        this.strategy = strategy;
    }

    /** The strategy it allocates with (null until set: AVG). */
    public NativeStrategy getStrategy() {
        return strategy;
    }

    public void setSemantics(RebalanceConfig.Semantics semantics) {
        this.semantics = semantics;
    }

    public void setConsumeFrom(RebalanceConfig.ConsumeFrom consumeFrom) {
        this.consumeFrom = consumeFrom;
    }

    /**
     * Where {@code TIMESTAMP} starts a queue no one has consumed: the first message stored at or
     * after this time, {@code yyyyMMddHHmmss} in the JVM's time zone, as the push consumer's
     * {@code setConsumeTimestamp} (default: half an hour before the consumer was built).
     */
    public void setConsumeTimestamp(String yyyyMMddHHmmss) {
        if (yyyyMMddHHmmss == null || UtilAll.parseDate(yyyyMMddHHmmss, UtilAll.YYYYMMDDHHMMSS) == null) {
            throw new IllegalArgumentException("consumeTimestamp must be yyyyMMddHHmmss, not " + yyyyMMddHHmmss);
        }
        this.consumeTimestamp = yyyyMMddHHmmss;
    }

    public String getConsumeTimestamp() {
        return consumeTimestamp;
    }

    /** Overrides one of the engine's timing constants (docs/engine-json.md). */
    public void setTiming(String key, long ms) {
        timing.put(key, ms);
    }

    /**
     * How often the listener's offsets are committed (default 1 s; only queues whose offset moved).
     * Java's push consumer commits with every pull request and every 5 s; after a crash, the next
     * owner consumes again what was consumed since the last commit.
     */
    public void setPersistIntervalMillis(long ms) {
        this.persistIntervalMs = ms;
    }

    /**
     * How often each broker of the held queues is asked whether it restarted (default 1 s; 0 turns
     * the watch off). A broker restart empties its lock table; with the watch, consumption of its
     * queues pauses while it is out of reach, and once it answers with a new start time the cached
     * offsets are committed again and the engine is told the locks are lost, before any call begins
     * on the new broker. Without it, the restart reaches the engine only through the next lock
     * renewal, up to {@link #setRebalanceIntervalMillis} later, while the client-side lease lets
     * calls go on. One read-only admin request per broker and interval (docs/java.md).
     */
    public void setBrokerWatchIntervalMillis(long ms) {
        this.brokerWatchIntervalMs = ms;
    }

    /** How often a round and a lock renewal run without a notification (default 20 s, as Java). */
    public void setRebalanceIntervalMillis(long ms) {
        this.rebalanceIntervalMs = ms;
    }

    /**
     * How many messages one listener call gets at most (default 1, as {@code DefaultMQPushConsumer};
     * 1 to 1024). A queue's calls stay one after another, each under its consume lock.
     */
    public void setConsumeMessageBatchMaxSize(int size) {
        if (size < 1 || size > 1024) {
            throw new IllegalArgumentException("consumeMessageBatchMaxSize must be 1 to 1024, not " + size);
        }
        this.consumeMessageBatchMaxSize = size;
    }

    /**
     * How many times a message may fail before it goes to the dead-letter queue
     * {@code %DLQ%<group>} (default -1: never, as Java's orderly consumer, whose queue then waits on
     * the message for ever). A call fails when the listener returns anything but SUCCESS or throws;
     * the queue is suspended for the context's {@code suspendCurrentQueueTimeMillis} (1 s unless
     * set) and the message delivered again. With a limit of N the listener sees it N + 1 times, then
     * it is sent back through the broker as Java's orderly consumer sends it, and the queue goes on.
     */
    public void setMaxReconsumeTimes(int times) {
        if (times < -1) {
            throw new IllegalArgumentException("maxReconsumeTimes must be -1 (no limit) or more, not " + times);
        }
        this.maxReconsumeTimes = times;
    }

    /**
     * The consume thread pool (default 20 and 20, as {@code DefaultMQPushConsumer}; as there, the
     * pool's work queue is unbounded, so it runs {@code consumeThreadMin} threads). Queues are
     * consumed in parallel, each queue one call after another under its consume lock.
     */
    public void setConsumeThreadMin(int threads) {
        if (threads < 1 || threads > 1000) {
            throw new IllegalArgumentException("consumeThreadMin must be 1 to 1000, not " + threads);
        }
        this.consumeThreadMin = threads;
    }

    /** See {@link #setConsumeThreadMin}. */
    public void setConsumeThreadMax(int threads) {
        if (threads < 1 || threads > 1000) {
            throw new IllegalArgumentException("consumeThreadMax must be 1 to 1000, not " + threads);
        }
        this.consumeThreadMax = threads;
    }

    /**
     * Flow control: a queue with this many messages fetched and not yet given to the listener is
     * fetched no further until they are (default 1000, as {@code DefaultMQPushConsumer}).
     */
    public void setPullThresholdForQueue(int messages) {
        if (messages < 1 || messages > 65535) {
            throw new IllegalArgumentException("pullThresholdForQueue must be 1 to 65535, not " + messages);
        }
        this.pullThresholdForQueue = messages;
    }

    /** Flow control by size: the fetched bytes per queue held back at most, in MiB (default 100, as Java). */
    public void setPullThresholdSizeForQueue(int mib) {
        if (mib < 1 || mib > 1024) {
            throw new IllegalArgumentException("pullThresholdSizeForQueue must be 1 to 1024 (MiB), not " + mib);
        }
        this.pullThresholdSizeForQueueMiB = mib;
    }

    /** How many messages one pull fetches from a queue (default 32, as {@code DefaultMQPushConsumer}). */
    public void setPullBatchSize(int messages) {
        if (messages < 1 || messages > 1024) {
            throw new IllegalArgumentException("pullBatchSize must be 1 to 1024, not " + messages);
        }
        this.pullBatchSize = messages;
    }

    /** See {@link #setMaxReconsumeTimes}. */
    public int getMaxReconsumeTimes() {
        return maxReconsumeTimes;
    }

    /** See {@link #setConsumeMessageBatchMaxSize}. */
    public int getConsumeMessageBatchMaxSize() {
        return consumeMessageBatchMaxSize;
    }

    /** See {@link #setConsumeThreadMin}. */
    public int getConsumeThreadMin() {
        return consumeThreadMin;
    }

    /** See {@link #setConsumeThreadMin}. */
    public int getConsumeThreadMax() {
        return consumeThreadMax;
    }

    /** See {@link #setPullThresholdForQueue}. */
    public int getPullThresholdForQueue() {
        return pullThresholdForQueue;
    }

    /** See {@link #setPullThresholdSizeForQueue} (MiB). */
    public int getPullThresholdSizeForQueue() {
        return pullThresholdSizeForQueueMiB;
    }

    /** See {@link #setPullBatchSize}. */
    public int getPullBatchSize() {
        return pullBatchSize;
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
        if (topic == null || topic.isEmpty() || selector == null) {
            throw new IllegalArgumentException("subscribe needs a topic and a selector");
        }
        topics.put(topic, selector);
    }

    /** The subscribed topics with their filters, in the order subscribed (the retry topic is not among them). */
    public Map<String, MessageSelector> subscriptions() {
        return java.util.Collections.unmodifiableMap(new LinkedHashMap<>(topics));
    }

    public void registerMessageListener(MessageListenerOrderly listener) {
        this.listener = listener;
    }

    /** This consumer's client id, as the broker lists it; valid after {@link #start()}. */
    public String getClientId() {
        return rebalancer == null ? null : rebalancer.config().clientId();
    }

    /** The queues this consumer holds now, with their engine state (empty before start and after shutdown). */
    public Map<MessageQueue, io.github.rocketmqrebalance.engine.QueueState> heldQueues() {
        Rebalancer r = rebalancer;
        if (r == null || stopping) {
            return java.util.Collections.emptyMap();
        }
        return r.held();
    }

    static long nowMs() {
        return System.nanoTime() / 1_000_000;
    }

    public synchronized void start() throws MQClientException {
        if (listener == null || topics.isEmpty()) {
            throw new IllegalStateException("subscribe to a topic and register a listener before start()");
        }
        Map<String, SubscriptionData> subscriptions = GroupSubscriptions.of(group, topics);
        consumed = new ArrayList<>(subscriptions.keySet());
        GroupSubscriptions.prepare(puller);
        puller.start();
        GroupSubscriptions.register(puller, topics, consumed);
        client = MQClientManager.getInstance().getOrCreateMQClientInstance(puller);
        RebalanceConfig.Builder config = RebalanceConfig.builder(group, client.getClientId()).orderly(true).semantics(semantics).consumeFrom(consumeFrom)
            .consumeTimestampMs(UtilAll.parseDate(consumeTimestamp, UtilAll.YYYYMMDDHHMMSS).getTime());
        timing.forEach(config::timing);
        ConsumeLocks consumeLocks = new ConsumeLocks();
        watch = new BrokerWatch(broker -> host.bootTimestamp(broker), broker -> schedule(() -> brokerRestarted(broker), 0));
        ConsumeStatistics statistics = new ConsumeStatistics(SafeOrderlyConsumer::nowMs);
        calls = new ListenerCalls(listener, consumeLocks, SafeOrderlyConsumer::nowMs, watch::open, consumeMessageBatchMaxSize,
            maxReconsumeTimes < 0 ? Integer.MAX_VALUE : maxReconsumeTimes, new DeadLetters(client, group), statistics);
        pulls = new QueuePuller(QueuePuller.over(client, group, subscriptions, puller.getBrokerSuspendMaxTimeMillis(), puller.getConsumerTimeoutMillisWhenSuspend()),
            group, calls::fetched, SafeOrderlyConsumer::nowMs, pullBatchSize);
        workers = new QueueWorkers(calls::consume, pulls, pullThresholdForQueue, pullThresholdSizeForQueueMiB * 1024L * 1024L, consumeThreadMin,
            consumeThreadMax, group);
        calls.use(workers, pulls);
        rebalanceThread = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "SafeOrderlyConsumer-rebalance-" + group));
        host = new ClientHost(client, group, calls, consumeLocks, delay -> schedule(this::round, delay));
        rebalancer = new Rebalancer(config.build(), strategy);
        for (String t : consumed) {
            rebalancer.subscribe(t);
        }
        calls.bind(rebalancer, host.offsets());
        pulls.recordPullsTo(rebalancer::recordPull);
        IdsChangedNotice.listen(client, group, () -> schedule(this::round, 0));
        RunningInfo.install(client, group, strategy, settingsInForce(), () -> stopping || rebalancer == null ? null : new RunningInfo.State() {
            @Override
            public Map<MessageQueue, io.github.rocketmqrebalance.engine.QueueState> held() {
                return rebalancer.held();
            }

            @Override
            public long committedOffset(MessageQueue mq) {
                return host.offsets().readOffset(mq, org.apache.rocketmq.client.consumer.store.ReadOffsetType.READ_FROM_MEMORY);
            }

            @Override
            public java.util.TreeMap<String, org.apache.rocketmq.remoting.protocol.body.ConsumeStatus> status() {
                return statistics.table();
            }
        }, SafeOrderlyConsumer::nowMs);
        rebalanceThread.scheduleWithFixedDelay(this::round, 0, rebalanceIntervalMs, TimeUnit.MILLISECONDS);
        rebalanceThread.scheduleWithFixedDelay(this::renewLocks, rebalanceIntervalMs, rebalanceIntervalMs, TimeUnit.MILLISECONDS);
        rebalanceThread.scheduleWithFixedDelay(this::persistOffsets, persistIntervalMs, persistIntervalMs, TimeUnit.MILLISECONDS);
        if (brokerWatchIntervalMs > 0) {
            // Its own thread: an unreachable broker may hold a poll for its whole timeout.
            watchThread = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "SafeOrderlyConsumer-broker-watch-" + group));
            watchThread.scheduleWithFixedDelay(this::watchBrokers, brokerWatchIntervalMs, brokerWatchIntervalMs, TimeUnit.MILLISECONDS);
        }
    }

    /** What admin tools read in the running info, under {@code DefaultMQPushConsumer}'s property names. */
    private java.util.Properties settingsInForce() {
        return RunningInfo.properties("consumerGroup", group, "messageModel", "CLUSTERING", "consumeFromWhere", "CONSUME_FROM_" + consumeFrom.name(), "consumeTimestamp", consumeTimestamp,
            "consumeThreadMin", consumeThreadMin, "consumeThreadMax", consumeThreadMax, RunningInfo.THREAD_POOL_CORE_SIZE, consumeThreadMin,
            "pullBatchSize", pullBatchSize, "pullThresholdForQueue", pullThresholdForQueue, "pullThresholdSizeForQueue", pullThresholdSizeForQueueMiB,
            "consumeMessageBatchMaxSize", consumeMessageBatchMaxSize, "maxReconsumeTimes", maxReconsumeTimes);
    }

    private void watchBrokers() {
        if (stopping) {
            return;
        }
        try {
            Set<String> brokers = new java.util.TreeSet<>();
            rebalancer.held().keySet().forEach(mq -> brokers.add(mq.getBrokerName()));
            watch.poll(brokers);
        } catch (Throwable t) {
            LOG.log(Level.WARNING, "broker watch failed", t);
        }
    }

    /**
     * A broker restarted (its start time changed); its queues are fenced meanwhile. In this order:
     * this client's heartbeat, so the new broker lists it in the group again; the cached offsets of
     * the queues whose lock it held, which the broker lost with its last seconds of commits (no
     * other client can have consumed them since: the fence stopped this client only once the broker
     * was gone, and another takes a queue only after locking it on the new broker); then
     * {@code locks_lost}, and a round at once. A failure is retried a second later; the fence lifts
     * only once the engine has been told.
     */
    private void brokerRestarted(String broker) {
        if (stopping) {
            return;
        }
        try {
            client.sendHeartbeatToAllBrokerWithLock();
            int recommitted = commitCachedOffsets(broker);
            LockReport report = rebalancer.locksLost(broker, nowMs(), host);
            LOG.warning("broker " + broker + " restarted: " + recommitted + " offsets committed again, locks lost " + report.lost);
            watch.reopen(broker);
            schedule(this::round, 0);
        } catch (Throwable t) {
            LOG.log(Level.WARNING, "handling the restart of broker " + broker + " failed; retried in 1 s", t);
            schedule(() -> brokerRestarted(broker), 1_000);
        }
    }

    private int commitCachedOffsets(String broker) {
        int recommitted = 0;
        for (Map.Entry<MessageQueue, io.github.rocketmqrebalance.engine.QueueState> e : rebalancer.held().entrySet()) {
            MessageQueue mq = e.getKey();
            // A state whose lock was lost before the restart may be another client's queue by now.
            if (!mq.getBrokerName().equals(broker) || !Boolean.TRUE.equals(e.getValue().locked)) {
                continue;
            }
            long offset = host.offsets().readOffset(mq, org.apache.rocketmq.client.consumer.store.ReadOffsetType.READ_FROM_MEMORY);
            if (offset < 0) {
                continue;
            }
            try {
                host.persistOffset(mq);
                committed.put(mq, offset);
                recommitted++;
            } catch (Exception failed) {
                LOG.log(Level.WARNING, "committing " + mq + " again after its broker restarted failed", failed);
            }
        }
        return recommitted;
    }

    private void schedule(Runnable task, long delayMs) {
        ScheduledExecutorService s = rebalanceThread;
        if (s != null && !s.isShutdown()) {
            try {
                s.schedule(task, delayMs, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException shuttingDown) {
                // shutdown() takes over from here
            }
        }
    }

    /** One round over every subscribed topic; a failure is logged and the next round repairs it. */
    private void round() {
        if (stopping) {
            return;
        }
        try {
            Map<String, TopicView> views = new LinkedHashMap<>();
            for (String topic : consumed) {
                List<MessageQueue> queues = null;
                try {
                    Collection<MessageQueue> fetched = puller.fetchMessageQueues(topic);
                    queues = fetched == null ? null : new ArrayList<>(fetched);
                } catch (MQClientException routeUnknown) {
                    LOG.log(Level.FINE, "no route for " + topic, routeUnknown);
                }
                views.put(topic, new TopicView(queues, client.findConsumerIdList(topic, group)));
            }
            boolean again = false;
            for (RoundReport report : rebalancer.rebalanceAll(views, nowMs(), host)) {
                again |= !report.balanced || report.skippedRound != null;
                if (report.changed || !report.warnings.isEmpty()) {
                    LOG.info("round: " + report);
                } else if (!report.deferred.isEmpty()) {
                    LOG.fine("round: " + report); // a release waiting for a listener call, every retry
                }
            }
            // As Java's RebalanceService: an unbalanced round is tried again after 1 s, not 20 s. A
            // skipped one too (unlike Java): right after a broker restart its member list is empty
            // until the group's heartbeats arrive, and the queues whose locks were lost wait.
            if (again && retryPending.compareAndSet(false, true)) {
                schedule(() -> {
                    retryPending.set(false);
                    round();
                }, UNBALANCED_RETRY_MS);
            }
        } catch (Throwable t) {
            LOG.log(Level.WARNING, "rebalance round failed", t);
        }
    }

    private void renewLocks() {
        if (stopping) {
            return;
        }
        try {
            LockReport report = rebalancer.lockAll(nowMs(), host);
            if (!report.lost.isEmpty() || !report.warnings.isEmpty()) {
                LOG.warning("lock renewal: " + report);
            }
        } catch (Throwable t) {
            LOG.log(Level.WARNING, "lock renewal failed", t);
        }
    }

    /** Commits the listener's offsets of queues still consumable (a lost lock's queue may be another's). */
    private void persistOffsets() {
        if (stopping) {
            return;
        }
        long now = nowMs();
        Map<MessageQueue, io.github.rocketmqrebalance.engine.QueueState> held = rebalancer.held();
        committed.keySet().retainAll(held.keySet());
        held.forEach((mq, state) -> {
            long offset = host.offsets().readOffset(mq, org.apache.rocketmq.client.consumer.store.ReadOffsetType.READ_FROM_MEMORY);
            Long last = committed.get(mq);
            if (offset >= 0 && (last == null || last != offset) && !state.dropped && rebalancer.isConsumable(mq, state.generation, now)) {
                try {
                    host.persistOffset(mq);
                    committed.put(mq, offset);
                } catch (Exception e) {
                    LOG.log(Level.FINE, "offset commit of " + mq + " failed; retried in " + persistIntervalMs + " ms", e);
                }
            }
        });
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
        if (rebalancer == null || stopping) {
            return;
        }
        long deadline = nowMs() + Math.max(0, awaitTerminateMillis);
        try {
            rebalanceThread.submit(() -> {
                stopping = true;
                RoundReport report = rebalancer.shutdown(nowMs(), host);
                while (!report.deferred.isEmpty() && nowMs() < deadline) {
                    Thread.sleep(100);
                    report = rebalancer.shutdown(nowMs(), host);
                }
                if (!report.deferred.isEmpty()) {
                    LOG.warning("shutdown left queues to the broker's lock expiry: " + report.deferred);
                }
                return null;
            }).get();
        } catch (Exception e) {
            LOG.log(Level.WARNING, "shutdown", e);
        } finally {
            rebalanceThread.shutdownNow();
            if (watchThread != null) {
                watchThread.shutdownNow();
            }
            pulls.shutdown();
            workers.shutdown(Math.max(0, deadline - nowMs()));
            puller.shutdown();
            rebalancer.close();
        }
    }
}
