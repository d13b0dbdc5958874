package io.github.rocketmqrebalance.consumer;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
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

    /** What the commits ask of the broker (the host's lock, sent while the broker watch fences the broker, and commit). */
    interface Broker {
        Collection<MessageQueue> relock(String broker, List<MessageQueue> queues) throws Exception;

        /** The offset the broker has committed for the group on {@code mq}; -1 when it has none. */
        long brokerOffset(MessageQueue mq) throws Exception;

        void persistOffset(MessageQueue mq) throws Exception;

        void unlock(String broker, List<MessageQueue> queues) throws Exception;
    }

    private final Rebalancer rebalancer;
    private final Broker host;
    private final OffsetStore offsets;
    private final LongSupplier clock;
    /** The offset last committed per queue. */
    private final Map<MessageQueue, Long> committed = new ConcurrentHashMap<>();
    /**
     * The last commit of each queue the engine let go while the broker watch fenced its broker (a
     * lock that lapsed in the silence): if the silence was a restart, the new broker may have lost
     * that commit, and nobody can have consumed the queue since (nobody could lock it).
     */
    private final Map<MessageQueue, Long> releasedWhileFenced = new ConcurrentHashMap<>();
    private final Predicate<String> brokerOpen;

    OffsetCommits(Rebalancer rebalancer, Broker host, OffsetStore offsets, LongSupplier clock, Predicate<String> brokerOpen) {
        this.rebalancer = rebalancer;
        this.host = host;
        this.offsets = offsets;
        this.clock = clock;
        this.brokerOpen = brokerOpen;
    }

    /**
     * Commits each held queue whose offset moved since its last commit, while it is still
     * consumable (a queue whose lock was lost may be another client's by now, and its commit would
     * move that client's offset). A failure is retried at the next call.
     */
    void commitMoved() {
        long now = clock.getAsLong();
        Map<MessageQueue, QueueState> held = rebalancer.held();
        committed.forEach((mq, offset) -> {
            if (!held.containsKey(mq) && !brokerOpen.test(mq.getBrokerName())) {
                releasedWhileFenced.put(mq, offset);
            }
        });
        committed.keySet().retainAll(held.keySet());
        releasedWhileFenced.keySet().removeAll(held.keySet());
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
     * lock this client held, which the broker lost with its last seconds of commits, but only where
     * the new broker grants this client the lock first ({@link #relockThenCommit}). A queue whose
     * lock was lost before the restart is left alone: it may be another's by now. Returns the
     * queues locked on the new broker, committed or not (the engine, told next that the locks are
     * lost, keeps them locked while it drops their states and gives back those no longer this
     * client's).
     */
    Set<MessageQueue> recommitLocked(String broker) {
        List<MessageQueue> wasLocked = new ArrayList<>();
        rebalancer.held().forEach((mq, state) -> {
            if (mq.getBrokerName().equals(broker) && Boolean.TRUE.equals(state.locked)) {
                wasLocked.add(mq);
            }
        });
        Set<MessageQueue> granted = relockThenCommit(broker, wasLocked, host, this::listenerOffset, committed::put);
        recommitReleased(broker);
        return granted;
    }

    /**
     * The same for the queues this client let go while the broker was silent, which the broker
     * down past the lock's lease makes every queue of it: their last commits go in again where the
     * new broker has less, under a lock taken for the purpose and given back at once (the engine
     * holds none of them; its next round takes what is its own). Without it, the next owner
     * consumed again what the killed broker had not flushed (a master down 65 s lost 12 offsets of
     * one queue on a real cluster). Failures are not retried: the queue is consumed again from the
     * broker's offset, at least once, as before.
     */
    private void recommitReleased(String broker) {
        Map<MessageQueue, Long> remembered = new TreeMap<>();
        releasedWhileFenced.forEach((mq, offset) -> {
            if (mq.getBrokerName().equals(broker)) {
                remembered.put(mq, offset);
            }
        });
        releasedWhileFenced.keySet().removeAll(remembered.keySet());
        Set<MessageQueue> regained = recommitReleased(broker, remembered, host, (mq, offset) -> offsets.updateOffset(mq, offset, false), offsets::removeOffset);
        if (!remembered.isEmpty()) {
            LOG.info("broker " + broker + " restarted: " + regained.size() + " of " + remembered.size() + " queues let go in its silence locked to commit again");
        }
    }

    /**
     * {@link #relockThenCommit} for queues the engine does not hold: their last commits
     * ({@code remembered}) put in the offset store (which commits what it holds in memory) for the
     * commit only, and the locks given back at once. Returns the queues the new broker granted.
     */
    static Set<MessageQueue> recommitReleased(String broker, Map<MessageQueue, Long> remembered, Broker host, Committed putInStore,
        java.util.function.Consumer<MessageQueue> removeFromStore) {
        if (remembered.isEmpty()) {
            return new TreeSet<>();
        }
        remembered.forEach(putInStore::put);
        Set<MessageQueue> regained = relockThenCommit(broker, new ArrayList<>(remembered.keySet()), host, remembered::get, (mq, offset) -> {
        });
        remembered.keySet().forEach(removeFromStore);
        if (!regained.isEmpty()) {
            try {
                host.unlock(broker, new ArrayList<>(regained));
            } catch (Exception e) {
                LOG.log(Level.WARNING, "giving back the locks taken to commit again on " + broker + " failed; the broker's expiry frees them", e);
            }
        }
        return regained;
    }

    /** The broker answered again with the same start time: it kept its offsets, nothing is committed again. */
    void brokerKeptItsState(String broker) {
        releasedWhileFenced.keySet().removeIf(mq -> mq.getBrokerName().equals(broker));
    }

    /** Where {@link #relockThenCommit} reports a commit that landed. */
    interface Committed {
        void put(MessageQueue mq, long offset);
    }

    /**
     * The restart recipe's commit (docs/host-contract.md, "Broker restarts", step 4): lock the
     * queues on the new broker, then commit the listener's offset of those granted, and of no
     * other, and only where it is ahead of the offset the broker has. A queue refused is another
     * client's now, and it may have committed past this client's cached offset, which would move
     * it back. A queue granted may have been another's in between too: a restart noticed late (the
     * client's route lacked the broker for a while) leaves time for another client, whose member
     * list from the new broker did not list this one yet, to take the queue, consume and commit
     * past the cached offset, and give it back (seen on a real cluster: 676, then this client's
     * 671). A lock refused, a commit failed or the broker's offset unread is not retried: the
     * engine, told next that the locks are lost, takes the queue again from the offset the broker
     * has, and what was consumed since the broker's last flush is consumed again (at least once),
     * where a late commit could undo a newer owner's. Returns the queues granted.
     */
    static Set<MessageQueue> relockThenCommit(String broker, List<MessageQueue> wasLocked, Broker host, ToLongFunction<MessageQueue> listenerOffset,
        Committed committed) {
        Set<MessageQueue> granted = new TreeSet<>();
        if (wasLocked.isEmpty()) {
            return granted;
        }
        try {
            granted.addAll(host.relock(broker, wasLocked));
        } catch (Exception e) {
            LOG.log(Level.WARNING, "locking the queues of " + broker + " again after its restart failed; none is committed again", e);
            return granted;
        }
        granted.retainAll(wasLocked);
        for (MessageQueue mq : granted) {
            long offset = listenerOffset.applyAsLong(mq);
            if (offset < 0) {
                continue;
            }
            try {
                long brokers = host.brokerOffset(mq);
                if (brokers >= offset) {
                    continue; // the broker has this far or further: another client consumed it since
                }
                host.persistOffset(mq);
                committed.put(mq, offset);
            } catch (Exception e) {
                LOG.log(Level.WARNING, "committing " + mq + " again after its broker restarted failed; it is consumed again from the broker's offset", e);
            }
        }
        return granted;
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
