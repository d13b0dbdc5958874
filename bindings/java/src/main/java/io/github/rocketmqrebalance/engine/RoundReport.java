package io.github.rocketmqrebalance.engine;

import java.util.Collections;
import java.util.List;

import org.apache.rocketmq.common.message.MessageQueue;

/** What one round did for one topic (also what {@code dropQueue} and {@code shutdown} did). */
public final class RoundReport {
    /** Why a queue is being released. */
    public enum ReleaseReason {
        NOT_ASSIGNED, PULL_EXPIRED, UNSUBSCRIBED, REQUESTED, SHUTDOWN, DUPLICATE_CLIENT_ID, RESTARTED, LOCK_LOST
    }

    /** Why a release waits for a later round (the queue stays held, dropped). */
    public enum DeferReason {
        /** A listener call is still running. */
        CONSUME_IN_PROGRESS,
        /** Orderly, safe: the offset could not be committed; the lock is kept and the release retried. */
        PERSIST_FAILED,
        /** Orderly, safe: the unlock failed; retried next round. */
        UNLOCK_FAILED
    }

    /** Why a queue of the allocation was not taken this round. */
    public enum SkipReason {
        LOCK_REFUSED, LOCK_FAILED, OFFSET_UNAVAILABLE, START_OFFSET_NOT_COMMITTED
    }

    /** Why a whole round changed nothing. */
    public enum RoundSkipReason {
        ROUTE_UNKNOWN, CLIENT_IDS_UNAVAILABLE, STRATEGY_FAILED
    }

    public static final class Released {
        public final MessageQueue queue;
        public final long generation;
        public final ReleaseReason reason;
        /** Java semantics: unlocked although a listener call may still run (the forced unlock). */
        public final boolean forced;
        /** The offset could not be committed (best effort for concurrent queues); null when it was. */
        public final String persistFailed;
        /** Safe: the broker lock was known lost, so the offset was neither committed nor the queue unlocked. */
        public final boolean lockLost;
        /** Safe: a release deferred for too long was given up. */
        public final boolean gaveUp;

        Released(MessageQueue queue, long generation, ReleaseReason reason, boolean forced, String persistFailed, boolean lockLost, boolean gaveUp) {
            this.queue = queue;
            this.generation = generation;
            this.reason = reason;
            this.forced = forced;
            this.persistFailed = persistFailed;
            this.lockLost = lockLost;
            this.gaveUp = gaveUp;
        }

        @Override
        public String toString() {
            return queue + " #" + generation + " " + reason + (forced ? " forced" : "") + (persistFailed != null ? " persist failed: " + persistFailed : "")
                + (lockLost ? " lock lost" : "") + (gaveUp ? " gave up" : "");
        }
    }

    public static final class Deferred {
        public final MessageQueue queue;
        public final long generation;
        public final DeferReason reason;
        /** The failure's text for PERSIST_FAILED and UNLOCK_FAILED; else null. */
        public final String detail;
        /** How long this release has been waiting (since its first deferral). */
        public final long waitingMs;

        Deferred(MessageQueue queue, long generation, DeferReason reason, String detail, long waitingMs) {
            this.queue = queue;
            this.generation = generation;
            this.reason = reason;
            this.detail = detail;
            this.waitingMs = waitingMs;
        }

        @Override
        public String toString() {
            return queue + " #" + generation + " " + reason + (detail != null ? ": " + detail : "") + ", waiting " + waitingMs + " ms";
        }
    }

    public static final class Acquired {
        public final MessageQueue queue;
        public final long generation;
        public final long startOffset;

        Acquired(MessageQueue queue, long generation, long startOffset) {
            this.queue = queue;
            this.generation = generation;
            this.startOffset = startOffset;
        }

        @Override
        public String toString() {
            return queue + " #" + generation + " from " + startOffset;
        }
    }

    public static final class Skipped {
        public final MessageQueue queue;
        public final SkipReason reason;
        /** The failure's text, where the reason has one; else null. */
        public final String detail;
        /** Java semantics: the broker lock taken for this queue was kept (until the broker expires it). */
        public final boolean lockLeaked;

        Skipped(MessageQueue queue, SkipReason reason, String detail, boolean lockLeaked) {
            this.queue = queue;
            this.reason = reason;
            this.detail = detail;
            this.lockLeaked = lockLeaked;
        }

        @Override
        public String toString() {
            return queue + " " + reason + (detail != null ? ": " + detail : "") + (lockLeaked ? " (lock leaked)" : "");
        }
    }

    public final String topic;
    /** Set when the round changed nothing because an input was missing or the strategy failed; else null. */
    public final RoundSkipReason skippedRound;
    /** The strategy's failure for STRATEGY_FAILED; else null. */
    public final String skippedDetail;
    /** A queue was removed from or added to the table. */
    public final boolean changed;
    /** The allocation equals the non-dropped queues held (Java's {@code balanced}). */
    public final boolean balanced;
    /** The strategy's answer: what this client should hold. */
    public final List<MessageQueue> allocation;
    public final List<Released> released;
    public final List<Deferred> deferred;
    public final List<Acquired> acquired;
    public final List<Skipped> skipped;
    public final List<Warning> warnings;

    RoundReport(String topic, RoundSkipReason skippedRound, String skippedDetail, boolean changed, boolean balanced, List<MessageQueue> allocation,
                List<Released> released, List<Deferred> deferred, List<Acquired> acquired, List<Skipped> skipped, List<Warning> warnings) {
        this.topic = topic;
        this.skippedRound = skippedRound;
        this.skippedDetail = skippedDetail;
        this.changed = changed;
        this.balanced = balanced;
        this.allocation = Collections.unmodifiableList(allocation);
        this.released = Collections.unmodifiableList(released);
        this.deferred = Collections.unmodifiableList(deferred);
        this.acquired = Collections.unmodifiableList(acquired);
        this.skipped = Collections.unmodifiableList(skipped);
        this.warnings = Collections.unmodifiableList(warnings);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(topic);
        if (skippedRound != null) {
            b.append(" skipped: ").append(skippedRound).append(skippedDetail != null ? " (" + skippedDetail + ")" : "");
        }
        b.append(balanced ? ", balanced" : ", unbalanced");
        append(b, "released", released);
        append(b, "deferred", deferred);
        append(b, "acquired", acquired);
        append(b, "skipped", skipped);
        append(b, "warnings", warnings);
        return b.toString();
    }

    private static void append(StringBuilder b, String name, List<?> items) {
        if (!items.isEmpty()) {
            b.append(", ").append(name).append(' ').append(items);
        }
    }
}
