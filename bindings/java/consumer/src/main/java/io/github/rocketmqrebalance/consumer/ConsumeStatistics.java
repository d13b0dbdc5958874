package io.github.rocketmqrebalance.consumer;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import org.apache.rocketmq.remoting.protocol.body.ConsumeStatus;

/**
 * Per-topic consume statistics for the running info's {@code statusTable}, in the meaning Java's
 * push consumer gives them: messages pulled and consumed (OK or failed) per second and the mean
 * call time over the last minute, the failed messages over the last hour, and the mean round trip
 * of the pulls that found messages over the last minute ({@code pullRT}, as Java counts it). The
 * lite-pull consumer that stands for the group keeps none of these (its own answer's table is empty).
 */
final class ConsumeStatistics {
    private static final int SECONDS = 60;
    private static final int MINUTES = 60;

    /** One topic's counts: a ring of the last 60 seconds, and one of the last 60 minutes of failures. */
    private static final class Topic {
        final long[] second = new long[SECONDS];
        final long[] pulled = new long[SECONDS];
        final long[] pulls = new long[SECONDS];
        final long[] pullNanos = new long[SECONDS];
        final long[] ok = new long[SECONDS];
        final long[] failed = new long[SECONDS];
        final long[] calls = new long[SECONDS];
        final long[] callMs = new long[SECONDS];
        final long[] minute = new long[MINUTES];
        final long[] failedInMinute = new long[MINUTES];

        Topic() {
            // No slot holds a second or a minute yet (the monotonic clock may start anywhere).
            java.util.Arrays.fill(second, Long.MIN_VALUE / 2);
            java.util.Arrays.fill(minute, Long.MIN_VALUE / 2);
        }

        /** The slot of second {@code s}, cleared if it last held an older second. */
        int slot(long s) {
            int i = (int) (s % SECONDS);
            if (second[i] != s) {
                second[i] = s;
                pulled[i] = pulls[i] = pullNanos[i] = ok[i] = failed[i] = calls[i] = callMs[i] = 0;
            }
            return i;
        }

        int minuteSlot(long m) {
            int i = (int) (m % MINUTES);
            if (minute[i] != m) {
                minute[i] = m;
                failedInMinute[i] = 0;
            }
            return i;
        }
    }

    private final LongSupplier clockMs;
    private final Map<String, Topic> topics = new ConcurrentHashMap<>();

    ConsumeStatistics(LongSupplier clockMs) {
        this.clockMs = clockMs;
    }

    /** One pull that found {@code messages} messages, {@code roundTripNanos} after it was issued. */
    void pulled(String topic, int messages, long roundTripNanos) {
        Topic t = topics.computeIfAbsent(topic, k -> new Topic());
        synchronized (t) {
            int i = t.slot(clockMs.getAsLong() / 1000);
            t.pulled[i] += messages;
            t.pulls[i]++;
            t.pullNanos[i] += roundTripNanos;
        }
    }

    /** One listener call of {@code messages} messages that took {@code ms}, and how it ended. */
    void called(String topic, int messages, long ms, boolean succeeded) {
        Topic t = topics.computeIfAbsent(topic, k -> new Topic());
        long now = clockMs.getAsLong();
        synchronized (t) {
            int i = t.slot(now / 1000);
            t.calls[i]++;
            t.callMs[i] += ms;
            if (succeeded) {
                t.ok[i] += messages;
            } else {
                t.failed[i] += messages;
                t.failedInMinute[t.minuteSlot(now / 60_000)] += messages;
            }
        }
    }

    /** The status of every topic seen, as of now. */
    TreeMap<String, ConsumeStatus> table() {
        long now = clockMs.getAsLong();
        long thisSecond = now / 1000;
        long thisMinute = now / 60_000;
        TreeMap<String, ConsumeStatus> out = new TreeMap<>();
        topics.forEach((name, t) -> {
            long pulled = 0;
            long pulls = 0;
            long pullNanos = 0;
            long ok = 0;
            long failed = 0;
            long calls = 0;
            long callMs = 0;
            long failedHour = 0;
            synchronized (t) {
                for (int i = 0; i < SECONDS; i++) {
                    if (thisSecond - t.second[i] < SECONDS) {
                        pulled += t.pulled[i];
                        pulls += t.pulls[i];
                        pullNanos += t.pullNanos[i];
                        ok += t.ok[i];
                        failed += t.failed[i];
                        calls += t.calls[i];
                        callMs += t.callMs[i];
                    }
                }
                for (int i = 0; i < MINUTES; i++) {
                    if (thisMinute - t.minute[i] < MINUTES) {
                        failedHour += t.failedInMinute[i];
                    }
                }
            }
            ConsumeStatus s = new ConsumeStatus();
            s.setPullTPS(pulled / (double) SECONDS);
            s.setPullRT(pulls == 0 ? 0 : pullNanos / 1e6 / pulls);
            s.setConsumeOKTPS(ok / (double) SECONDS);
            s.setConsumeFailedTPS(failed / (double) SECONDS);
            s.setConsumeRT(calls == 0 ? 0 : callMs / (double) calls);
            s.setConsumeFailedMsgs(failedHour);
            out.put(name, s);
        });
        return out;
    }
}
