package io.github.rocketmqrebalance.engine;

/** One held queue, as a snapshot ({@link Rebalancer#held()}). A state is never reused: a queue taken again gets a new generation. */
public final class QueueState {
    public final long generation;
    /** Marked for release; nothing may be consumed from it any more. */
    public final boolean dropped;
    /** Orderly (locking) consumers: holds the broker's lock as of the last lock or renewal; null for consumers that do not lock. */
    public final Boolean locked;
    public final long lastLockMs;
    public final long lastPullMs;
    /** Releases deferred because the queue was still being consumed. */
    public final int tryUnlockTimes;
    /** When the first deferred attempt to release it happened; null when no release is pending. */
    public final Long deferredSinceMs;

    QueueState(long generation, boolean dropped, Boolean locked, long lastLockMs, long lastPullMs, int tryUnlockTimes, Long deferredSinceMs) {
        this.generation = generation;
        this.dropped = dropped;
        this.locked = locked;
        this.lastLockMs = lastLockMs;
        this.lastPullMs = lastPullMs;
        this.tryUnlockTimes = tryUnlockTimes;
        this.deferredSinceMs = deferredSinceMs;
    }

    @Override
    public String toString() {
        return "generation " + generation + (dropped ? ", dropped" : "") + (locked == null ? "" : locked ? ", locked" : ", not locked");
    }
}
