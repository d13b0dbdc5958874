package io.github.rocketmqrebalance.cluster;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Who is inside each queue's listener right now, for the in-JVM orderly tests: a call that finds
 * another consumer already inside its queue is an overlap, the one thing orderly consumption
 * promises never happens.
 */
public final class QueueOccupancy {
    private final Map<Integer, String> inside = new ConcurrentHashMap<>();
    private final AtomicInteger overlaps = new AtomicInteger();

    public interface Body {
        void run();
    }

    /** Runs one listener call of {@code consumer} on {@code queue}, held 2 ms so that overlapping calls meet. */
    public void call(int queue, String consumer, Body body) {
        String before = inside.putIfAbsent(queue, consumer);
        if (before != null) {
            overlaps.incrementAndGet();
        }
        try {
            body.run();
            Thread.sleep(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (before == null) {
                inside.remove(queue);
            }
        }
    }

    public int overlaps() {
        return overlaps.get();
    }
}
