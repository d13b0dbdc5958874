package io.github.rocketmqrebalance.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;

/**
 * The commit step of the broker-restart recipe: lock on the new broker first, commit only what it
 * granted, and only ahead of the broker's offset. A queue another client locked on the new broker
 * first (or held and gave back before this client's relock) may already have been consumed and
 * committed past this client's cached offset; committing that offset would move it back.
 */
class OffsetCommitsTest {
    private static final MessageQueue Q0 = new MessageQueue("T", "broker-a", 0);
    private static final MessageQueue Q1 = new MessageQueue("T", "broker-a", 1);
    private static final MessageQueue Q2 = new MessageQueue("T", "broker-a", 2);

    /** The new broker: grants {@link #grant}, refuses the rest; commits fail for {@link #failing}. */
    private final class NewBroker implements OffsetCommits.Broker {
        final List<String> calls = new ArrayList<>();
        Set<MessageQueue> grant = Set.of();
        Set<MessageQueue> failing = Set.of();
        /** The new broker's committed offsets (none: -1), as the broker's flushed file and later commits left them. */
        Map<MessageQueue, Long> offsets = Map.of();
        boolean unreachable;

        @Override
        public Collection<MessageQueue> relock(String broker, List<MessageQueue> queues) throws Exception {
            calls.add("lock " + broker + " " + queues.size());
            if (unreachable) {
                throw new java.io.IOException("no answer");
            }
            return grant;
        }

        @Override
        public long brokerOffset(MessageQueue mq) {
            return offsets.getOrDefault(mq, -1L);
        }

        @Override
        public void persistOffset(MessageQueue mq) throws Exception {
            calls.add("commit " + mq.getQueueId() + (store.containsKey(mq) ? " at " + store.get(mq) : ""));
            if (failing.contains(mq)) {
                throw new java.io.IOException("commit refused");
            }
        }

        @Override
        public void unlock(String broker, List<MessageQueue> queues) {
            calls.add("unlock " + broker + " " + queues.size());
        }
    }

    /** The offset store's memory, for the queues the engine no longer holds. */
    private final Map<MessageQueue, Long> store = new TreeMap<>();

    private final NewBroker broker = new NewBroker();
    private final Map<MessageQueue, Long> committed = new TreeMap<>();
    /** The listener's offsets: Q2 has none yet. */
    private final Map<MessageQueue, Long> listener = Map.of(Q0, 40L, Q1, 50L, Q2, -1L);

    private Set<MessageQueue> run(List<MessageQueue> wasLocked) {
        return OffsetCommits.relockThenCommit("broker-a", wasLocked, broker, listener::get, committed::put);
    }

    @Test
    void onlyTheQueuesTheNewBrokerGrantsAreCommittedAgainAfterTheLock() {
        broker.grant = Set.of(Q1);
        Set<MessageQueue> granted = run(List.of(Q0, Q1));
        assertEquals(Set.of(Q1), granted);
        assertEquals(Map.of(Q1, 50L), committed, "Q0 was refused: another client may have committed past 40");
        assertEquals(List.of("lock broker-a 2", "commit 1"), broker.calls, "the lock comes before any commit");
    }

    @Test
    void aLockThatGetsNoAnswerCommitsNothing() {
        broker.grant = Set.of(Q0, Q1);
        broker.unreachable = true;
        assertEquals(Set.of(), run(List.of(Q0, Q1)));
        assertEquals(Map.of(), committed);
        assertEquals(List.of("lock broker-a 2"), broker.calls, "not retried: the engine takes the queues again from the broker's offset");
    }

    @Test
    void aFailedCommitIsNotRetriedAndTheOthersGoOn() {
        broker.grant = Set.of(Q0, Q1);
        broker.failing = Set.of(Q0);
        assertEquals(Set.of(Q0, Q1), run(List.of(Q0, Q1)), "both stay locked: the engine's round takes them back");
        assertEquals(Map.of(Q1, 50L), committed);
        assertEquals(List.of("lock broker-a 2", "commit 0", "commit 1"), broker.calls);
    }

    @Test
    void aQueueWithoutAnOffsetOrNotAskedForIsNotCommitted() {
        broker.grant = Set.of(Q0, Q2, new MessageQueue("T", "broker-a", 9));
        assertEquals(Set.of(Q0, Q2), run(List.of(Q0, Q2)), "a grant for a queue not asked for is not this recipe's");
        assertEquals(Map.of(Q0, 40L), committed, "Q2's listener has consumed nothing: nothing to commit");
    }

    @Test
    void aGrantedQueueTheBrokerHasFurtherIsNotMovedBack() {
        // Q0: another client took it after the restart, consumed to 45 and gave it back before this
        // client's late relock; Q1: the broker lost 50 and has 47 from its last flush.
        broker.grant = Set.of(Q0, Q1);
        broker.offsets = Map.of(Q0, 45L, Q1, 47L);
        assertEquals(Set.of(Q0, Q1), run(List.of(Q0, Q1)));
        assertEquals(Map.of(Q1, 50L), committed, "40 would move Q0 back from 45");
        assertEquals(List.of("lock broker-a 2", "commit 1"), broker.calls);
    }

    @Test
    void anOffsetTheBrokerAlreadyHasIsNotSentAgain() {
        broker.grant = Set.of(Q1);
        broker.offsets = Map.of(Q1, 50L);
        run(List.of(Q1));
        assertEquals(Map.of(), committed);
    }

    @Test
    void queuesLetGoInTheSilenceAreCommittedAgainUnderALockGivenBackAtOnce() {
        // Both queues' locks lapsed while the broker was silent; it restarted with 45 for Q0 (it
        // had flushed past this client's 40: somebody's later commit) and 47 for Q1 (its last
        // flush, older than this client's 50). Q2 was refused: another client has it now.
        broker.grant = Set.of(Q0, Q1);
        broker.offsets = Map.of(Q0, 45L, Q1, 47L);
        Set<MessageQueue> regained = OffsetCommits.recommitReleased("broker-a", new TreeMap<>(Map.of(Q0, 40L, Q1, 50L, Q2, 60L)), broker, store::put,
            store::remove);
        assertEquals(Set.of(Q0, Q1), regained);
        assertEquals(List.of("lock broker-a 3", "commit 1 at 50", "unlock broker-a 2"), broker.calls,
            "the lock before the commit, only ahead of the broker, and every lock taken given back");
        assertEquals(Map.of(), store, "the offsets were in the store for the commit only");
    }

    @Test
    void nothingLetGoAsksNothing() {
        assertEquals(Set.of(), OffsetCommits.recommitReleased("broker-a", Map.of(), broker, store::put, store::remove));
        assertEquals(List.of(), broker.calls);
    }

    @Test
    void nothingHeldLockedAsksNothing() {
        assertEquals(Set.of(), run(List.of()));
        assertEquals(List.of(), broker.calls);
    }
}
