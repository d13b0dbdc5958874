package io.github.rocketmqrebalance.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import io.github.rocketmqrebalance.internal.Native;
import io.github.rocketmqrebalance.internal.HostBridge;
import io.github.rocketmqrebalance.NativeStrategy;

import org.apache.rocketmq.common.message.MessageQueue;

/**
 * One consumer's rebalancing, run by the native engine: the round {@code RebalanceImpl} runs
 * (release the queues no longer ours, take the new ones), with Java's flaws fixed by default
 * ({@link RebalanceConfig.Semantics#SAFE}; docs/engine.md lists each fix), driven through a
 * {@link RebalanceHost} for every broker and offset-store call.
 *
 * <p>Each call takes {@code nowMs} (any monotonic millisecond clock, the same for every call) and
 * the host, performs the round's decisions through the host, and returns a typed report.
 *
 * <p>Threads: rounds (every method taking a host) are serialised; a second thread waits for the
 * running one. The consume-thread queries ({@link #isConsumable}, {@link #recordPull},
 * {@link #generation}) never wait for a running round. Calling the same rebalancer from inside
 * one of its own host callbacks throws {@link IllegalStateException} (it would wait for itself);
 * another rebalancer may be called.
 *
 * <p>Holds a native engine until {@link #close()}; after close every method throws
 * {@link IllegalStateException}. Close after {@link #shutdown}, which releases the queues.
 */
public final class Rebalancer implements AutoCloseable {
    private final long id;
    private final RebalanceConfig config;
    private final NativeStrategy strategy;

    /** Fails with IllegalArgumentException when the core refuses the configuration (naming the key). */
    public Rebalancer(RebalanceConfig config, NativeStrategy strategy) {
        if (config == null || strategy == null) {
            throw new NullPointerException("config and strategy must not be null");
        }
        this.config = config;
        this.strategy = strategy;
        this.id = Native.create(config.toJson(), strategy.strategyId(), HostBridge.class);
    }

    public RebalanceConfig config() {
        return config;
    }

    public NativeStrategy strategy() {
        return strategy;
    }

    public void subscribe(String topic) {
        Native.subscribe(id, topic, true);
    }

    /** The topic's queues are released at the next {@link #rebalanceAll}. */
    public void unsubscribe(String topic) {
        Native.subscribe(id, topic, false);
    }

    public List<String> subscriptions() {
        return Arrays.asList(Native.subscriptions(id));
    }

    public boolean isShutDown() {
        return Native.isShutDown(id);
    }

    /**
     * One round for one topic ({@code rebalanceByTopic}). {@code queues} null: the route is
     * unknown; {@code clientIds} null: the group's ids could not be fetched.
     */
    public RoundReport rebalanceTopic(String topic, List<MessageQueue> queues, List<String> clientIds, long nowMs, RebalanceHost host) {
        Queues q = Queues.of(queues);
        String[] ids = clientIds == null ? null : clientIds.toArray(new String[0]);
        return ReportReader.round(withHost(host, b -> Native.rebalanceTopic(id, topic, q.topics, q.brokers, q.ids, ids, nowMs, b)));
    }

    /** {@code doRebalance}: every subscribed topic (views by topic), then unsubscribed topics' queues released. */
    public List<RoundReport> rebalanceAll(Map<String, TopicView> views, long nowMs, RebalanceHost host) {
        String[] topics = views.keySet().toArray(new String[0]);
        int[] queueCounts = new int[topics.length];
        int[] idCounts = new int[topics.length];
        List<MessageQueue> allQueues = new ArrayList<>();
        List<String> allIds = new ArrayList<>();
        for (int i = 0; i < topics.length; i++) {
            TopicView v = views.get(topics[i]);
            queueCounts[i] = v == null || v.queues == null ? -1 : v.queues.size();
            idCounts[i] = v == null || v.clientIds == null ? -1 : v.clientIds.size();
            if (queueCounts[i] > 0) {
                allQueues.addAll(v.queues);
            }
            if (idCounts[i] > 0) {
                allIds.addAll(v.clientIds);
            }
        }
        Queues q = Queues.of(allQueues);
        String[] ids = allIds.toArray(new String[0]);
        return ReportReader.rounds(withHost(host, b -> Native.rebalanceAll(id, topics, queueCounts, q.topics, q.brokers, q.ids, idCounts, ids, nowMs, b)));
    }

    /** Renews the broker locks of every held orderly queue ({@code lockAll}, every 20 s in Java). */
    public LockReport lockAll(long nowMs, RebalanceHost host) {
        return ReportReader.lock(withHost(host, b -> Native.lockAll(id, nowMs, b)));
    }

    /** {@code lockOneMQ}: the consume service found {@code mq} unlocked or expired. */
    public LockReport lockQueue(MessageQueue mq, long nowMs, RebalanceHost host) {
        return ReportReader.lock(withHost(host, b -> Native.lockQueue(id, mq.getTopic(), mq.getBrokerName(), mq.getQueueId(), nowMs, b)));
    }

    /** Every lock on {@code broker} is gone (the broker restarted): those queues stop being consumable. */
    public LockReport locksLost(String broker, long nowMs, RebalanceHost host) {
        return ReportReader.lock(withHost(host, b -> Native.locksLost(id, broker, nowMs, b)));
    }

    /** The queue's start offset, as a round computes it; a failing callback throws RuntimeException with its message. */
    public StartOffset startOffset(MessageQueue mq, RebalanceHost host) {
        long[] start = withHost(host, b -> Native.startOffset(id, mq.getTopic(), mq.getBrokerName(), mq.getQueueId(), b));
        return new StartOffset(start[0], start[1] != 0);
    }

    /** Releases one queue now ({@code removeUnnecessaryMessageQueue}: offset illegal, offset reset). */
    public RoundReport dropQueue(MessageQueue mq, long nowMs, RebalanceHost host) {
        return ReportReader.round(withHost(host, b -> Native.dropQueue(id, mq.getTopic(), mq.getBrokerName(), mq.getQueueId(), nowMs, b)));
    }

    /**
     * Releases every queue as a round would and refuses further rounds. What cannot be released yet
     * (a listener call still running) is reported deferred and stays locked; calling shutdown again
     * finishes it.
     */
    public RoundReport shutdown(long nowMs, RebalanceHost host) {
        if (nowMs < 0) {
            throw new IllegalArgumentException("nowMs must not be negative, got " + nowMs);
        }
        return shutdownAt(nowMs, host);
    }

    /** {@link #shutdown(long, RebalanceHost)} at the latest clock any call was given. */
    public RoundReport shutdown(RebalanceHost host) {
        return shutdownAt(-1, host);
    }

    private RoundReport shutdownAt(long nowMs, RebalanceHost host) {
        return ReportReader.round(withHost(host, b -> Native.shutdown(id, nowMs, b)));
    }

    /** Whether a message of {@code mq} pulled for state {@code generation} may be consumed now. Never waits for a round. */
    public boolean isConsumable(MessageQueue mq, long generation, long nowMs) {
        return Native.isConsumable(id, mq.getTopic(), mq.getBrokerName(), mq.getQueueId(), generation, nowMs);
    }

    /**
     * Until when (ms, inclusive) {@link #isConsumable} stays true for state {@code generation} if
     * nothing else changes: the lock's last renewal plus its validity for orderly queues,
     * {@code Long.MAX_VALUE} for the others; -1 when it is false at any time (no such state,
     * dropped, not locked). A consume service may keep the answer and ask again only once that
     * time has passed, if it also stops at {@link RebalanceHost#stopPull}, which the engine calls
     * before it tries the consume lock of a state it drops. Only SAFE semantics drop every state
     * whose lock renewal is refused; under JAVA semantics ask {@link #isConsumable} each time.
     * Never waits for a round.
     */
    public long consumableUntil(MessageQueue mq, long generation) {
        return Native.consumableUntil(id, mq.getTopic(), mq.getBrokerName(), mq.getQueueId(), generation);
    }

    /** Records a pull of state {@code generation}; false when that state is gone (stop pulling). Never waits for a round. */
    public boolean recordPull(MessageQueue mq, long generation, long nowMs) {
        return Native.recordPull(id, mq.getTopic(), mq.getBrokerName(), mq.getQueueId(), generation, nowMs);
    }

    /** The generation of the held state of {@code mq}, empty when not held. Never waits for a round. */
    public OptionalLong generation(MessageQueue mq) {
        long g = Native.generation(id, mq.getTopic(), mq.getBrokerName(), mq.getQueueId());
        return g < 0 ? OptionalLong.empty() : OptionalLong.of(g);
    }

    /** Every held queue (dropped ones included until their release completes), in Java order. */
    public Map<MessageQueue, QueueState> held() {
        return ReportReader.held(Native.held(id));
    }

    /** Frees the native engine; idempotent. A round running on another thread finishes first. */
    @Override
    public void close() {
        Native.close(id);
    }

    /** One engine call with a host: an Error a callback threw is rethrown once the engine has returned. */
    private static <T> T withHost(RebalanceHost host, java.util.function.Function<HostBridge, T> call) {
        HostBridge bridge = new HostBridge(host);
        try {
            return call.apply(bridge);
        } finally {
            bridge.rethrowFatal();
        }
    }

    /** A queue list as the three arrays the native side reads; all null for "unknown". */
    private static final class Queues {
        final String[] topics;
        final String[] brokers;
        final int[] ids;

        private Queues(String[] topics, String[] brokers, int[] ids) {
            this.topics = topics;
            this.brokers = brokers;
            this.ids = ids;
        }

        static Queues of(List<MessageQueue> queues) {
            if (queues == null) {
                return new Queues(null, null, null);
            }
            int n = queues.size();
            String[] topics = new String[n];
            String[] brokers = new String[n];
            int[] ids = new int[n];
            for (int i = 0; i < n; i++) {
                MessageQueue q = queues.get(i);
                if (q == null) {
                    throw new NullPointerException("queue " + i + " is null");
                }
                topics[i] = q.getTopic();
                brokers[i] = q.getBrokerName();
                ids[i] = q.getQueueId();
            }
            return new Queues(topics, brokers, ids);
        }
    }
}
