package io.github.rocketmqrebalance.consumer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.github.rocketmqrebalance.engine.QueueState;
import io.github.rocketmqrebalance.engine.Rebalancer;

import org.apache.rocketmq.client.consumer.store.OffsetStore;
import org.apache.rocketmq.client.consumer.store.ReadOffsetType;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The listener's offsets committed to the broker outside a release (the engine commits a queue
 * itself when it releases it): every {@code persistIntervalMillis} those that moved, and after a
 * broker restart those the new broker lost. Each commit is synchronous (the broker's answer is
 * awaited) and remembered, so a periodic commit sends only what moved. Runs on the rebalance
 * thread only.
 */
final class OffsetCommits {
    private static final Logger LOG = Logger.getLogger(OffsetCommits.class.getName());

    private final Rebalancer rebalancer;
    private final ClientHost host;
    private final OffsetStore offsets;
    private final LongSupplier clock;
    /** The offset last committed per queue. */
    private final Map<MessageQueue, Long> committed = new ConcurrentHashMap<>();

    OffsetCommits(Rebalancer rebalancer, ClientHost host, OffsetStore offsets, LongSupplier clock) {
        this.rebalancer = rebalancer;
        this.host = host;
        this.offsets = offsets;
        this.clock = clock;
    }

    /**
     * Commits each held queue whose offset moved since its last commit, while it is still
     * consumable (a queue whose lock was lost may be another client's by now, and its commit would
     * move that client's offset). A failure is retried at the next call.
     */
    void commitMoved() {
        long now = clock.getAsLong();
        Map<MessageQueue, QueueState> held = rebalancer.held();
        committed.keySet().retainAll(held.keySet());
        held.forEach((mq, state) -> {
            Long last = committed.get(mq);
            if (state.dropped || !rebalancer.isConsumable(mq, state.generation, now)) {
                return;
            }
            long offset = listenerOffset(mq);
            if (offset >= 0 && (last == null || last != offset)) {
                commit(mq, offset, Level.FINE, "offset commit of " + mq + " failed; retried at the next commit");
            }
        });
    }

    /**
     * After {@code broker} restarted: commits again the listener's offset of every queue of it whose
     * lock this client held, which the broker lost with its last seconds of commits (no other
     * client can have consumed those queues since: their lock was this client's until the broker
     * went). A queue whose lock was lost before the restart is left alone: it may be another's by
     * now. Returns how many were committed.
     */
    int recommitLocked(String broker) {
        int recommitted = 0;
        for (Map.Entry<MessageQueue, QueueState> e : rebalancer.held().entrySet()) {
            MessageQueue mq = e.getKey();
            if (!mq.getBrokerName().equals(broker) || !Boolean.TRUE.equals(e.getValue().locked)) {
                continue;
            }
            long offset = listenerOffset(mq);
            if (offset >= 0 && commit(mq, offset, Level.WARNING, "committing " + mq + " again after its broker restarted failed")) {
                recommitted++;
            }
        }
        return recommitted;
    }

    /** The offset the listener reached in {@code mq} (-1 when it has none). */
    long listenerOffset(MessageQueue mq) {
        return offsets.readOffset(mq, ReadOffsetType.READ_FROM_MEMORY);
    }

    private boolean commit(MessageQueue mq, long offset, Level failureLevel, String failure) {
        try {
            host.persistOffset(mq);
            committed.put(mq, offset);
            return true;
        } catch (Exception e) {
            LOG.log(failureLevel, failure, e);
            return false;
        }
    }
}
