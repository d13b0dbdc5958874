package io.github.rocketmqrebalance.consumer;

import java.util.Queue;
import java.util.function.LongSupplier;

/**
 * What {@code shutdown(awaitTerminateMillis)} does while releases wait for listener calls still
 * running (docs/host-contract.md, "Shutdown"): call the engine's shutdown again every 100 ms until
 * nothing is deferred or the wait is over, and meanwhile keep fencing those calls, as the contract
 * asks. Their broker locks are renewed on the usual cadence (the broker expires a lock 60 s after
 * its last renewal, so a call that outlives that would otherwise find another client consuming its
 * queue beside it), and a broker restart seen meanwhile is told to the engine at once, which asks
 * the new broker for those locks again before the queue's next owner does. It runs on the
 * rebalance thread, which serves no other task until it returns.
 */
final class ShutdownWait {
    private static final long RETRY_MS = 100;

    /** The engine calls the wait makes; each may fail, which is logged by the caller's engine and retried on cadence. */
    interface Engine {
        /** Shutdown again; true while releases are still deferred. */
        boolean shutdown(long nowMs);

        void lockAll(long nowMs);

        void locksLost(String broker, long nowMs);
    }

    interface Sleeper {
        void sleep(long ms) throws InterruptedException;
    }

    private ShutdownWait() {}

    /**
     * Waits until nothing is deferred or {@code deadlineMs} has passed; returns whether releases
     * are still deferred (left to the broker's lock expiry). {@code restarts} holds the brokers
     * the watch saw restart during the wait.
     */
    static boolean await(Engine engine, long deadlineMs, long renewEveryMs, LongSupplier clock, Sleeper sleeper, Queue<String> restarts)
        throws InterruptedException {
        long now = clock.getAsLong();
        boolean deferred = engine.shutdown(now);
        long nextRenewal = now + renewEveryMs;
        while (deferred && clock.getAsLong() < deadlineMs) {
            sleeper.sleep(RETRY_MS);
            now = clock.getAsLong();
            for (String broker = restarts.poll(); broker != null; broker = restarts.poll()) {
                engine.locksLost(broker, now);
            }
            if (now >= nextRenewal) {
                engine.lockAll(now);
                nextRenewal = now + renewEveryMs;
            }
            deferred = engine.shutdown(now);
        }
        return deferred;
    }
}
