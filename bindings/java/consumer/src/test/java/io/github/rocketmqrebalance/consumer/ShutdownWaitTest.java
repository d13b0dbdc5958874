package io.github.rocketmqrebalance.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.junit.jupiter.api.Test;

/**
 * The wait of a graceful shutdown on a clock the test moves: a listener call that outlives the
 * broker's 60 s lock expiry keeps its lock renewed on the 20 s cadence, and a broker restart seen
 * meanwhile reaches the engine before its next shutdown attempt. Before this wait, the rebalance
 * thread slept through shutdown and renewed nothing, so a 70 s call lost its lock to the queue's
 * next owner.
 */
class ShutdownWaitTest {
    private long now = 1_000;
    private final List<String> calls = new ArrayList<>();
    private final Queue<String> restarts = new ConcurrentLinkedQueue<>();

    /** The engine keeps a release deferred until {@code callEndsAt}. */
    private ShutdownWait.Engine engine(long callEndsAt) {
        return new ShutdownWait.Engine() {
            @Override
            public boolean shutdown(long nowMs) {
                return nowMs < callEndsAt;
            }

            @Override
            public void lockAll(long nowMs) {
                calls.add("lockAll@" + nowMs);
            }

            @Override
            public void locksLost(String broker, long nowMs) {
                calls.add("locksLost " + broker + "@" + nowMs);
            }
        };
    }

    private boolean await(long callEndsAt, long deadline) throws InterruptedException {
        return ShutdownWait.await(engine(callEndsAt), deadline, 20_000, () -> now, ms -> {
            now += ms;
            if (now == 31_000) {
                restarts.add("broker-a"); // the watch sees a restart 30 s into the wait
            }
        }, restarts);
    }

    @Test
    void aCallOutlivingTheBrokersExpiryKeepsItsLockRenewedUntilItEnds() throws InterruptedException {
        assertFalse(await(71_000, 91_000), "the call ended within the wait: nothing left deferred");
        assertEquals(List.of("lockAll@21000", "locksLost broker-a@31000", "lockAll@41000", "lockAll@61000"), calls,
            "renewed every 20 s, the restart told at once");
        assertEquals(71_000, now, "returns as soon as nothing is deferred");
    }

    @Test
    void theWaitEndsAtItsDeadlineWithTheCallStillRunning() throws InterruptedException {
        assertTrue(await(Long.MAX_VALUE, 25_000), "still deferred: left to the broker's expiry");
        assertEquals(List.of("lockAll@21000"), calls);
        assertEquals(25_000, now);
    }

    @Test
    void nothingDeferredReturnsAtOnceWithoutRenewing() throws InterruptedException {
        assertFalse(await(0, 91_000));
        assertEquals(List.of(), calls);
        assertEquals(1_000, now);
    }
}
