package io.github.rocketmqrebalance.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.rocketmq.common.message.MessageExt;

/**
 * Every listener call of every instance in this JVM: which messages were consumed (and how often),
 * calls of one queue that ran in two instances at once (each call holds its queue for a few
 * milliseconds, so an overlap has room to show), and calls out of send order within an instance
 * (a body is "queue-n", n rising per queue as sent).
 */
final class CallLog {
    private static final Map<String, AtomicInteger> DELIVERIES = new ConcurrentHashMap<>();
    private static final Map<Integer, String> RUNNING = new ConcurrentHashMap<>();
    private static final AtomicInteger OVERLAPS = new AtomicInteger();
    private static final Map<String, Integer> LAST = new ConcurrentHashMap<>();
    private static final List<String> OUT_OF_ORDER = Collections.synchronizedList(new ArrayList<>());
    private static final Set<String> INSTANCES = ConcurrentHashMap.newKeySet();

    private CallLog() {
    }

    static void reset() {
        DELIVERIES.clear();
        RUNNING.clear();
        OVERLAPS.set(0);
        LAST.clear();
        OUT_OF_ORDER.clear();
        INSTANCES.clear();
    }

    static void call(String instance, MessageExt m) {
        int queue = m.getQueueId();
        String other = RUNNING.putIfAbsent(queue, instance);
        if (other != null && !other.equals(instance)) {
            OVERLAPS.incrementAndGet();
        }
        try {
            INSTANCES.add(instance);
            DELIVERIES.computeIfAbsent(m.getMsgId(), id -> new AtomicInteger()).incrementAndGet();
            int n = Integer.parseInt(new String(m.getBody(), StandardCharsets.UTF_8).split("-")[1]);
            Integer last = LAST.put(instance + "/" + queue, n);
            if (last != null && n <= last) {
                OUT_OF_ORDER.add(instance + " queue " + queue + ": " + n + " after " + last);
            }
            Thread.sleep(3);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            RUNNING.remove(queue, instance);
        }
    }

    /** Waits up to 180 s until every id of {@code ids} was consumed, then asserts it. */
    static void awaitConsumed(Set<String> ids) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 180_000;
        while (!DELIVERIES.keySet().containsAll(ids) && System.currentTimeMillis() < deadline) {
            Thread.sleep(200);
        }
        Set<String> missing = new TreeSet<>(ids);
        missing.removeAll(DELIVERIES.keySet());
        assertEquals(Set.of(), missing, "messages not consumed within 180 s");
    }

    static Set<String> consumedIds() {
        return new TreeSet<>(DELIVERIES.keySet());
    }

    static int redeliveries() {
        return DELIVERIES.values().stream().mapToInt(d -> d.get() - 1).sum();
    }

    static int overlaps() {
        return OVERLAPS.get();
    }

    static List<String> orderViolations() {
        synchronized (OUT_OF_ORDER) {
            return new ArrayList<>(OUT_OF_ORDER);
        }
    }

    static Set<String> instances() {
        return new TreeSet<>(INSTANCES);
    }
}
