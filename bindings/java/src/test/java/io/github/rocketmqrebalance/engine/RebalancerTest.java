package io.github.rocketmqrebalance.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import io.github.rocketmqrebalance.internal.Native;
import io.github.rocketmqrebalance.internal.Json;
import io.github.rocketmqrebalance.NativeAllocateMessageQueueAveragely;

import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;

/**
 * The JVM binding of the engine against a fake host. Expected answers are derived by hand from
 * AVG over 4 queues (one id: all four; ids c1, c2: c1 takes q0 and q1) and from the round as
 * docs/engine.md describes it.
 */
class RebalancerTest {
    static final String TOPIC = "T";
    static final List<MessageQueue> QUEUES = Arrays.asList(q(0), q(1), q(2), q(3));

    static MessageQueue q(int id) {
        return new MessageQueue(TOPIC, "b", id);
    }

    static Rebalancer rebalancer(RebalanceConfig.Builder config) {
        return new Rebalancer(config.build(), new NativeAllocateMessageQueueAveragely());
    }

    static Rebalancer concurrent() {
        return rebalancer(RebalanceConfig.builder("G", "c1"));
    }

    static Rebalancer orderly() {
        return rebalancer(RebalanceConfig.builder("G", "c1").orderly(true));
    }

    @Test
    void aRoundTakesItsShareFromTheStartOffsetsAndReleasesWhatMoves() {
        FakeHost host = new FakeHost();
        host.committed.put(q(0), 5L);
        host.maxOffsets.put(q(1), 7L);
        try (Rebalancer r = concurrent()) {
            RoundReport first = r.rebalanceTopic(TOPIC, QUEUES, Collections.singletonList("c1"), 1_000, host);
            assertEquals(TOPIC, first.topic);
            assertNull(first.skippedRound);
            assertTrue(first.balanced);
            assertEquals(QUEUES, first.allocation);
            assertEquals(Arrays.asList(5L, 7L, 0L, 0L), startOffsets(first));
            // q1..q3 start from consumeFrom (LAST_OFFSET: the max offset); this host cannot commit that.
            assertEquals(3, count(first.warnings, Warning.Kind.START_OFFSET_NOT_COMMITTED));
            assertEquals(Arrays.asList("T/b/0 @5 #1", "T/b/1 @7 #2", "T/b/2 @0 #3", "T/b/3 @0 #4"), host.callsOf("dispatchPull"));
            assertEquals(QUEUES, new ArrayList<>(r.held().keySet()));

            host.calls.clear();
            RoundReport second = r.rebalanceTopic(TOPIC, QUEUES, Arrays.asList("c2", "c1"), 2_000, host);
            assertEquals(Arrays.asList(q(0), q(1)), second.allocation);
            assertEquals(2, second.released.size());
            for (RoundReport.Released rel : second.released) {
                assertEquals(RoundReport.ReleaseReason.NOT_ASSIGNED, rel.reason);
                assertNull(rel.persistFailed);
            }
            assertEquals(Arrays.asList("T/b/2", "T/b/3"), host.callsOf("persistOffset"));
            assertEquals(Arrays.asList(q(0), q(1)), new ArrayList<>(r.held().keySet()));
            assertEquals(1L, r.generation(q(0)).getAsLong());
            assertFalse(r.generation(q(2)).isPresent());
            assertTrue(r.isConsumable(q(0), 1, 2_000));
            assertFalse(r.isConsumable(q(2), 3, 2_000));
            // Concurrent queues have no lock to lapse; a released one is never consumable.
            assertEquals(Long.MAX_VALUE, r.consumableUntil(q(0), 1));
            assertEquals(-1L, r.consumableUntil(q(2), 3));
        }
    }

    @Test
    void anOptionalCommitOffsetIsUsedWhenTheHostHasIt() {
        CommittingHost host = new CommittingHost();
        host.maxOffsets.put(q(2), 9L);
        try (Rebalancer r = concurrent()) {
            RoundReport report = r.rebalanceTopic(TOPIC, QUEUES, Collections.singletonList("c1"), 1_000, host);
            assertEquals(0, count(report.warnings, Warning.Kind.START_OFFSET_NOT_COMMITTED));
            assertEquals(Arrays.asList("T/b/0 @0", "T/b/1 @0", "T/b/2 @9", "T/b/3 @0"), host.callsOf("commitOffset"));
            assertEquals(9L, host.committed.get(q(2)));
        }
    }

    @Test
    void orderlyQueuesAreLockedAndARefusedLockIsRetriedSoon() {
        FakeHost host = new FakeHost();
        host.lockedElsewhere.add(q(1));
        try (Rebalancer r = orderly()) {
            RoundReport report = r.rebalanceTopic(TOPIC, QUEUES, Collections.singletonList("c1"), 1_000, host);
            assertEquals(1, report.skipped.size());
            assertEquals(q(1), report.skipped.get(0).queue);
            assertEquals(RoundReport.SkipReason.LOCK_REFUSED, report.skipped.get(0).reason);
            assertEquals(Arrays.asList(q(0), q(2), q(3)), queuesOf(report.acquired));
            assertFalse(report.balanced);
            assertTrue(host.callsOf("scheduleRebalance").contains("500"), host.calls.toString());
            assertEquals(Boolean.TRUE, r.held().get(q(0)).locked);
            // Locked at 1 s, valid for the engine's default 30 s, and again from each renewal.
            long g0 = r.held().get(q(0)).generation;
            assertEquals(31_000L, r.consumableUntil(q(0), g0));
            assertTrue(r.isConsumable(q(0), g0, 31_000) && !r.isConsumable(q(0), g0, 31_001));

            LockReport renewal = r.lockAll(2_000, host);
            assertEquals(32_000L, r.consumableUntil(q(0), g0));
            assertEquals(Arrays.asList(q(0), q(2), q(3)), renewal.renewed);
            assertTrue(renewal.lost.isEmpty());

            host.lockedElsewhere.add(q(2));
            LockReport lost = r.lockAll(3_000, host);
            assertEquals(Collections.singletonList(q(2)), lost.lost);
            assertFalse(r.isConsumable(q(2), r.held().get(q(2)).generation, 3_000));
            assertEquals(-1L, r.consumableUntil(q(2), r.held().get(q(2)).generation));
        }
    }

    @Test
    void aThrowingCallbackIsThatStepsFailure() {
        FakeHost host = new FakeHost();
        host.failing.put("readOffset", new IOException("offset store down"));
        try (Rebalancer r = concurrent()) {
            RoundReport report = r.rebalanceTopic(TOPIC, QUEUES, Collections.singletonList("c1"), 1_000, host);
            assertEquals(4, report.skipped.size());
            for (RoundReport.Skipped s : report.skipped) {
                assertEquals(RoundReport.SkipReason.OFFSET_UNAVAILABLE, s.reason);
                assertTrue(s.detail.contains("offset store down"), s.detail);
            }
            assertTrue(r.held().isEmpty());

            // The next round, with the store back, repairs it; a void callback that throws is a warning.
            host.failing.clear();
            host.failing.put("queueSetChanged", new IllegalStateException("listener broke"));
            RoundReport repaired = r.rebalanceTopic(TOPIC, QUEUES, Collections.singletonList("c1"), 2_000, host);
            assertEquals(QUEUES, queuesOf(repaired.acquired));
            List<Warning> failed = of(repaired.warnings, Warning.Kind.CALLBACK_FAILED);
            assertEquals(1, failed.size(), repaired.warnings.toString());
            assertTrue(failed.get(0).detail.contains("queueSetChanged") && failed.get(0).detail.contains("listener broke"), failed.get(0).detail);

            host.failing.put("maxOffset", new IOException("x"));
            RuntimeException e = assertThrows(RuntimeException.class, () -> r.startOffset(q(3), host));
            assertTrue(e.getMessage().contains("maxOffset"), e.getMessage());
        }
    }

    @Test
    void anErrorStopsTheRoundAndIsRethrown() {
        FakeHost host = new FakeHost();
        AssertionError boom = new AssertionError("boom");
        host.failing.put("lock", boom);
        try (Rebalancer r = orderly()) {
            AssertionError thrown = assertThrows(AssertionError.class, () -> r.rebalanceTopic(TOPIC, QUEUES, Collections.singletonList("c1"), 1_000, host));
            assertSame(boom, thrown);
            assertEquals(1, host.callsOf("lock").size(), "no host method is called after the Error: " + host.calls);
            assertTrue(host.callsOf("readOffset").isEmpty());
            host.failing.clear();
            assertEquals(QUEUES, queuesOf(r.rebalanceTopic(TOPIC, QUEUES, Collections.singletonList("c1"), 2_000, host).acquired));
        }
    }

    @Test
    void callingTheSameRebalancerFromItsOwnCallbackThrowsInsteadOfDeadlocking() {
        FakeHost host = new FakeHost();
        AtomicReference<Throwable> reentry = new AtomicReference<>();
        AtomicReference<Map<MessageQueue, QueueState>> other = new AtomicReference<>();
        try (Rebalancer r = orderly(); Rebalancer second = concurrent()) {
            host.duringLock = () -> {
                try {
                    r.held();
                } catch (Throwable t) {
                    reentry.set(t);
                }
                other.set(second.held());
            };
            r.rebalanceTopic(TOPIC, QUEUES, Collections.singletonList("c1"), 1_000, host);
            assertTrue(reentry.get() instanceof IllegalStateException, String.valueOf(reentry.get()));
            assertTrue(reentry.get().getMessage().contains("inside one of its own host callbacks"));
            assertTrue(other.get().isEmpty(), "another rebalancer may be called from a callback");
        }
    }

    @Test
    void threadsShareOneRebalancer() throws Exception {
        long seed = Long.getLong("rmq.seed", System.nanoTime());
        System.out.println("RebalancerTest.threadsShareOneRebalancer seed " + seed);
        CommittingHost host = new CommittingHost();
        List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        try (Rebalancer r = orderly()) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                java.util.Random random = new java.util.Random(seed + t);
                boolean rounds = t < 6;
                threads.add(new Thread(() -> {
                    try {
                        for (int i = 0; i < 150; i++) {
                            if (rounds) {
                                List<String> ids = new ArrayList<>(Collections.singletonList("c1"));
                                for (int k = 2; k <= 1 + random.nextInt(3); k++) {
                                    ids.add("c" + k);
                                }
                                r.rebalanceTopic(TOPIC, QUEUES, ids, 1_000 + i, host);
                                r.lockAll(1_000 + i, host);
                            } else {
                                MessageQueue mq = q(random.nextInt(4));
                                r.generation(mq).ifPresent(g -> r.recordPull(mq, g, 1_000));
                                r.isConsumable(mq, 1, 1_000);
                            }
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(errors.isEmpty(), errors.toString());
            RoundReport last = r.rebalanceTopic(TOPIC, QUEUES, Arrays.asList("c1", "c2"), 5_000, host);
            assertEquals(Arrays.asList(q(0), q(1)), last.allocation);
            Set<MessageQueue> live = new HashSet<>();
            r.held().forEach((mq, s) -> {
                if (!s.dropped) {
                    live.add(mq);
                }
            });
            assertEquals(new HashSet<>(last.allocation), live);
        }
    }

    @Test
    void shutdownReleasesEverythingAndRefusesFurtherRounds() {
        FakeHost host = new FakeHost();
        try (Rebalancer r = orderly()) {
            r.rebalanceTopic(TOPIC, QUEUES, Collections.singletonList("c1"), 1_000, host);
            host.calls.clear();
            RoundReport report = r.shutdown(2_000, host);
            assertEquals(4, report.released.size());
            for (RoundReport.Released rel : report.released) {
                assertEquals(RoundReport.ReleaseReason.SHUTDOWN, rel.reason);
            }
            // Safe semantics: each queue is committed and unlocked under its consume lock, one by one.
            assertEquals(Arrays.asList("b [T/b/0]", "b [T/b/1]", "b [T/b/2]", "b [T/b/3]"), host.callsOf("unlock"));
            assertEquals(Arrays.asList("T/b/0", "T/b/1", "T/b/2", "T/b/3"), host.callsOf("persistOffset"));
            assertTrue(r.isShutDown());
            IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> r.rebalanceTopic(TOPIC, QUEUES, Collections.singletonList("c1"), 3_000, host));
            assertTrue(e.getMessage().contains("shut down"), e.getMessage());
        }
    }

    @Test
    void aDeferredOrderlyReleaseWaitsForTheListener() {
        FakeHost host = new FakeHost();
        try (Rebalancer r = orderly()) {
            r.rebalanceTopic(TOPIC, QUEUES, Collections.singletonList("c1"), 1_000, host);
            host.consumeLockFree = false;
            RoundReport busy = r.rebalanceTopic(TOPIC, QUEUES, Arrays.asList("c1", "c2"), 2_000, host);
            assertEquals(2, busy.deferred.size());
            assertEquals(RoundReport.DeferReason.CONSUME_IN_PROGRESS, busy.deferred.get(0).reason);
            RoundReport still = r.rebalanceTopic(TOPIC, QUEUES, Arrays.asList("c1", "c2"), 2_500, host);
            assertEquals(500, still.deferred.get(0).waitingMs, "waiting since the first deferral at 2,000");
            assertTrue(host.callsOf("unlock").isEmpty(), "never unlocked under a running listener");
            host.consumeLockFree = true;
            RoundReport done = r.rebalanceTopic(TOPIC, QUEUES, Arrays.asList("c1", "c2"), 3_000, host);
            assertEquals(Arrays.asList(q(2), q(3)), releasedQueues(done));
            assertTrue(done.deferred.isEmpty());
        }
    }

    @Test
    void aClosedRebalancerThrowsAndCloseIsIdempotent() {
        Rebalancer r = concurrent();
        r.close();
        r.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, r::held);
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> r.isConsumable(q(0), 1, 0));
        assertThrows(IllegalStateException.class, () -> r.consumableUntil(q(0), 1));
    }

    @Test
    void badInputIsATypedError() {
        IllegalArgumentException key = assertThrows(IllegalArgumentException.class,
            () -> rebalancer(RebalanceConfig.builder("G", "c1").timing("lock_valid_mss", 1)));
        assertTrue(key.getMessage().contains("lock_valid_mss"), key.getMessage());
        assertThrows(IllegalArgumentException.class, () -> rebalancer(RebalanceConfig.builder("G", "")));
        assertThrows(IllegalArgumentException.class,
            () -> rebalancer(RebalanceConfig.builder("G", "c1").orderly(true).consumeType(RebalanceConfig.ConsumeType.PULL)));
        FakeHost host = new FakeHost();
        try (Rebalancer r = concurrent()) {
            assertThrows(NullPointerException.class, () -> r.rebalanceTopic(TOPIC, QUEUES, Collections.singletonList("c1"), 0, null));
            assertThrows(NullPointerException.class, () -> r.rebalanceTopic(TOPIC, Arrays.asList(q(0), null), Collections.singletonList("c1"), 0, host));
            assertThrows(IllegalArgumentException.class, () -> r.rebalanceTopic(TOPIC, QUEUES, Arrays.asList("c1", null), 0, host));
            assertThrows(IllegalArgumentException.class, () -> r.rebalanceTopic(TOPIC, QUEUES, Collections.singletonList("c1"), -1, host));
            // Unknown inputs are a skipped round, not an error.
            assertEquals(RoundReport.RoundSkipReason.ROUTE_UNKNOWN, r.rebalanceTopic(TOPIC, null, Collections.singletonList("c1"), 0, host).skippedRound);
            assertEquals(RoundReport.RoundSkipReason.CLIENT_IDS_UNAVAILABLE, r.rebalanceTopic(TOPIC, QUEUES, null, 0, host).skippedRound);
        }
    }

    @Test
    void rebalanceAllTakesEveryTopicAndReleasesUnsubscribedOnes() {
        FakeHost host = new FakeHost();
        try (Rebalancer r = concurrent()) {
            r.subscribe(TOPIC);
            r.subscribe("U");
            assertEquals(Arrays.asList(TOPIC, "U"), r.subscriptions());
            Map<String, TopicView> views = new LinkedHashMap<>();
            views.put(TOPIC, new TopicView(QUEUES, Collections.singletonList("c1")));
            views.put("U", new TopicView(Collections.singletonList(new MessageQueue("U", "b", 0)), Collections.singletonList("c1")));
            List<RoundReport> reports = r.rebalanceAll(views, 1_000, host);
            assertEquals(2, reports.size());
            assertEquals(5, r.held().size());
            r.unsubscribe("U");
            views.remove("U");
            List<RoundReport> after = r.rebalanceAll(views, 2_000, host);
            List<RoundReport.Released> released = new ArrayList<>();
            after.forEach(rep -> released.addAll(rep.released));
            assertEquals(1, released.size(), after.toString());
            assertEquals(RoundReport.ReleaseReason.UNSUBSCRIBED, released.get(0).reason);
        }
    }

    /** Every name the native library can report is a constant of the Java enum, and the other way round. */
    @Test
    void theEnumsKnowEveryReasonTheLibraryReports() {
        new NativeAllocateMessageQueueAveragely().strategyId(); // loads the library
        @SuppressWarnings("unchecked")
        Map<String, Object> names = (Map<String, Object>) Json.read(Native.reasonNames());
        check(RoundReport.ReleaseReason.class, names.get("release"));
        check(RoundReport.DeferReason.class, names.get("defer"));
        check(RoundReport.SkipReason.class, names.get("skip"));
        check(Warning.Kind.class, names.get("warning"));
        check(RoundReport.RoundSkipReason.class, names.get("round_skipped"));
    }

    private static <E extends Enum<E>> void check(Class<E> type, Object names) {
        Set<E> seen = EnumSet.noneOf(type);
        for (Object name : (List<?>) names) {
            seen.add(ReportReader.kind(type, name));
        }
        assertEquals(EnumSet.allOf(type), seen, type.getSimpleName());
    }

    private static List<Long> startOffsets(RoundReport report) {
        List<Long> out = new ArrayList<>();
        report.acquired.forEach(a -> out.add(a.startOffset));
        return out;
    }

    private static List<MessageQueue> releasedQueues(RoundReport report) {
        List<MessageQueue> out = new ArrayList<>();
        report.released.forEach(r -> out.add(r.queue));
        return out;
    }

    private static List<MessageQueue> queuesOf(List<RoundReport.Acquired> acquired) {
        List<MessageQueue> out = new ArrayList<>();
        acquired.forEach(a -> out.add(a.queue));
        return out;
    }

    private static List<Warning> of(List<Warning> warnings, Warning.Kind kind) {
        List<Warning> out = new ArrayList<>();
        for (Warning w : warnings) {
            if (w.kind == kind) {
                out.add(w);
            }
        }
        return out;
    }

    private static int count(List<Warning> warnings, Warning.Kind kind) {
        return of(warnings, kind).size();
    }
}
