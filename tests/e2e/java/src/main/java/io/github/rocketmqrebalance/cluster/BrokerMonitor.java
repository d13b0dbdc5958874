package io.github.rocketmqrebalance.cluster;

import java.io.BufferedWriter;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

import org.apache.rocketmq.broker.BrokerController;
import org.apache.rocketmq.broker.client.ConsumerGroupInfo;
import org.apache.rocketmq.broker.client.rebalance.RebalanceLockManager;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * What the broker itself says about one group on one topic, appended to the file {@link BrokerMain}
 * names (one file across restarts; times are {@code System.nanoTime()}, CLOCK_MONOTONIC, comparable
 * with the consumers'). Lock grants and unlocks as they happen ({@link RecordingLockManager}), the
 * rest sampled every 50 ms from the broker's own tables:
 * <pre>
 * UP &lt;ns&gt;                       this broker process starts serving (its tables are empty)
 * G &lt;ns&gt; &lt;queueId&gt; &lt;clientId&gt;    the broker granted the client the queue's lock (taken or renewed)
 * R &lt;ns&gt; &lt;queueId&gt; &lt;clientId&gt;    an unlock by the client removed its lock
 * L &lt;ns&gt; &lt;queueId&gt; &lt;clientId|-&gt;  sampled: the lock's holder changed (- : none, or expired)
 * M &lt;ns&gt; &lt;id,id,...|-&gt;        the group's members, as the broker lists them, changed
 * O &lt;ns&gt; &lt;queueId&gt; &lt;offset&gt;     the committed offset changed
 * H &lt;ns&gt;                        every second: the monitor was alive until here
 * </pre>
 * The lock table has no public reader: its map is read by reflection, never through
 * {@code tryLockBatch} (which would take free locks).
 */
final class BrokerMonitor {
    static final long SAMPLE_MS = 50;

    private BrokerMonitor() {
    }

    static void start(BrokerController broker, String group, String topic, int queues, Path file) throws Exception {
        BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8,
            StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        RecordingLockManager manager = RecordingLockManager.of(broker);
        LockTable locks = new LockTable(manager);
        String brokerName = broker.getBrokerConfig().getBrokerName();
        ClusterMain.writeLine(out, "UP " + System.nanoTime());
        manager.listen(group, new RecordingLockManager.Listener() {
            @Override
            public void granted(MessageQueue mq, String clientId, long ns) {
                write("G", mq, clientId, ns);
            }

            @Override
            public void released(MessageQueue mq, String clientId, long ns) {
                write("R", mq, clientId, ns);
            }

            private void write(String kind, MessageQueue mq, String clientId, long ns) {
                if (mq.getTopic().equals(topic) && mq.getBrokerName().equals(brokerName)) {
                    ClusterMain.writeLine(out, kind + " " + ns + " " + mq.getQueueId() + " " + clientId);
                }
            }
        });
        Thread t = new Thread(() -> {
            String[] holders = new String[queues];
            long[] offsets = new long[queues];
            Arrays.fill(offsets, Long.MIN_VALUE);
            String members = null;
            long lastBeat = 0;
            while (true) {
                try {
                    long now = System.nanoTime();
                    Map<MessageQueue, Object> table = locks.of(group);
                    for (int q = 0; q < queues; q++) {
                        String holder = table == null ? null : locks.holder(table.get(new MessageQueue(topic, brokerName, q)));
                        if (!Objects.equals(holder, holders[q])) {
                            ClusterMain.writeLine(out, "L " + now + " " + q + " " + (holder == null ? "-" : holder));
                            holders[q] = holder;
                        }
                        long offset = broker.getConsumerOffsetManager().queryOffset(group, topic, q);
                        if (offset != offsets[q]) {
                            ClusterMain.writeLine(out, "O " + now + " " + q + " " + offset);
                            offsets[q] = offset;
                        }
                    }
                    ConsumerGroupInfo info = broker.getConsumerManager().getConsumerGroupInfo(group);
                    String listed = info == null || info.getAllClientId().isEmpty() ? "-" : String.join(",", new TreeSet<>(info.getAllClientId()));
                    if (!listed.equals(members)) {
                        ClusterMain.writeLine(out, "M " + now + " " + listed);
                        members = listed;
                    }
                    if (now - lastBeat >= 1_000_000_000L) {
                        ClusterMain.writeLine(out, "H " + now);
                        lastBeat = now;
                    }
                    Thread.sleep(SAMPLE_MS);
                } catch (InterruptedException e) {
                    return;
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException("the broker's lock table could not be read", e);
                }
            }
        }, "broker-monitor-" + group);
        t.setDaemon(true);
        t.start();
    }

    /** The broker's orderly lock table, read through its private map and its entries' public getters. */
    private static final class LockTable {
        private final Map<String, Map<MessageQueue, Object>> byGroup;
        private Method clientId;
        private Method expired;

        @SuppressWarnings("unchecked")
        LockTable(RebalanceLockManager manager) throws ReflectiveOperationException {
            Field f = RebalanceLockManager.class.getDeclaredField("mqLockTable");
            f.setAccessible(true);
            byGroup = (Map<String, Map<MessageQueue, Object>>) f.get(manager);
        }

        Map<MessageQueue, Object> of(String group) {
            return byGroup.get(group);
        }

        /** The client holding {@code entry}'s lock, or null when there is none or it expired. */
        String holder(Object entry) throws ReflectiveOperationException {
            if (entry == null) {
                return null;
            }
            if (clientId == null) {
                clientId = entry.getClass().getMethod("getClientId");
                expired = entry.getClass().getMethod("isExpired");
                clientId.setAccessible(true);
                expired.setAccessible(true);
            }
            return (Boolean) expired.invoke(entry) ? null : (String) clientId.invoke(entry);
        }
    }
}
