package io.github.rocketmqrebalance.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.rocketmqrebalance.cluster.LocalCluster;
import io.github.rocketmqrebalance.cluster.Patient;
import io.github.rocketmqrebalance.cluster.QueueOccupancy;
import io.github.rocketmqrebalance.engine.RebalanceConfig;

import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SafeOrderlyConsumer on a real NameServer and Broker in this JVM (under -Xcheck:jni with the rest):
 * two consumers of one group share an 8-queue topic, one shuts down, a third joins; every message
 * is consumed, each key's sequence in order within a consumer, and no queue is ever inside two
 * listeners at once. The multi-process version with kills is scripts/e2e/orderly.sh.
 */
@Timeout(300)
class SafeOrderlyConsumerTest {
    static final String TOPIC = "SAFE_ORDERLY";
    static final int KEYS = 16;

    @Test
    void consumesEverythingInOrderThroughALeaveAndAJoin() throws Exception {
        try (LocalCluster cluster = LocalCluster.start()) {
            cluster.createTopic(TOPIC, 8);
            Set<String> consumed = ConcurrentHashMap.newKeySet();
            QueueOccupancy occupancy = new QueueOccupancy();
            Map<String, Integer> lastSeq = new ConcurrentHashMap<>();
            AtomicInteger outOfOrder = new AtomicInteger();
            DefaultMQProducer producer = Patient.producer("PG_" + TOPIC, cluster.namesrvAddr());
            producer.setInstanceName("safe-orderly-producer");
            producer.start();
            SafeOrderlyConsumer a = consumer(cluster, "a", consumed, occupancy, lastSeq, outOfOrder);
            SafeOrderlyConsumer b = consumer(cluster, "b", consumed, occupancy, lastSeq, outOfOrder);
            SafeOrderlyConsumer c = null;
            int sent = 0;
            try {
                sent = produce(producer, sent, 160);
                awaitConsumed(consumed, sent, a, b);
                runningInfoIsTheEngines(cluster, producer, b);
                a.shutdown();
                sent = produce(producer, sent, 160);
                c = consumer(cluster, "c", consumed, occupancy, lastSeq, outOfOrder);
                sent = produce(producer, sent, 160);
                awaitConsumed(consumed, sent, b, c);
            } finally {
                a.shutdown();
                b.shutdown();
                if (c != null) {
                    c.shutdown();
                }
                producer.shutdown();
            }
            assertEquals(sent, consumed.size(), "every message consumed");
            assertEquals(0, occupancy.overlaps(), "no queue inside two listeners at once");
            assertEquals(0, outOfOrder.get(), "each key's messages in order within a consumer");
        }
    }

    private static SafeOrderlyConsumer consumer(LocalCluster cluster, String name, Set<String> consumed, QueueOccupancy occupancy,
                                                Map<String, Integer> lastSeq, AtomicInteger outOfOrder) throws Exception {
        SafeOrderlyConsumer c = new SafeOrderlyConsumer("GID_" + TOPIC);
        c.setNamesrvAddr(cluster.namesrvAddr());
        c.setInstanceName(name);
        c.setConsumeFrom(RebalanceConfig.ConsumeFrom.FIRST_OFFSET);
        c.setRebalanceIntervalMillis(2_000);
        c.subscribe(TOPIC);
        c.registerMessageListener((msgs, context) -> {
            occupancy.call(context.getMessageQueue().getQueueId(), name, () -> {
                for (MessageExt m : msgs) {
                    String body = new String(m.getBody(), StandardCharsets.UTF_8);
                    String[] keySeq = body.split(":");
                    Integer last = lastSeq.put(name + "/" + keySeq[0], Integer.parseInt(keySeq[1]));
                    if (last != null && last > Integer.parseInt(keySeq[1])) {
                        outOfOrder.incrementAndGet();
                    }
                    consumed.add(body);
                }
            });
            return ConsumeOrderlyStatus.SUCCESS;
        });
        c.start();
        assertTrue(c.getClientId().contains("@" + name), c.getClientId());
        return c;
    }

    /**
     * What an admin tool sees when it asks {@code c} for its running info through the broker (as
     * mqadmin and inspect do): the queues the engine holds, locked, and the strategy it runs.
     */
    private static void runningInfoIsTheEngines(LocalCluster cluster, DefaultMQProducer asker, SafeOrderlyConsumer c) throws Exception {
        org.apache.rocketmq.client.impl.factory.MQClientInstance client =
            org.apache.rocketmq.client.impl.MQClientManager.getInstance().getOrCreateMQClientInstance(asker);
        String broker = "127.0.0.1:" + cluster.broker().getNettyServerConfig().getListenPort();
        org.apache.rocketmq.remoting.protocol.body.ConsumerRunningInfo info =
            client.getMQClientAPIImpl().getConsumerRunningInfo(broker, "GID_" + TOPIC, c.getClientId(), false, 15_000);
        Map<org.apache.rocketmq.common.message.MessageQueue, io.github.rocketmqrebalance.engine.QueueState> held = c.heldQueues();
        assertEquals(held.keySet(), info.getMqTable().keySet(), "the queues the engine holds");
        info.getMqTable().forEach((mq, p) -> {
            assertEquals(Boolean.TRUE.equals(held.get(mq).locked), p.isLocked(), mq + " locked as the engine says");
            assertEquals(held.get(mq).dropped, p.isDroped(), mq + " dropped as the engine says");
        });
        assertTrue(info.getProperties().getProperty("allocateMessageQueueStrategy").startsWith("io.github.rocketmqrebalance.NativeAllocateMessageQueueAveragely"),
            info.getProperties().toString());
        assertEquals("true", info.getProperties().getProperty(org.apache.rocketmq.remoting.protocol.body.ConsumerRunningInfo.PROP_CONSUME_ORDERLY));
    }

    /** Message i has key k(i mod 16), sent to queue (i mod 16) mod 8, body k<key>:<i div 16>. */
    private static int produce(DefaultMQProducer producer, int from, int count) throws Exception {
        for (int i = from; i < from + count; i++) {
            int key = i % KEYS;
            Message m = new Message(TOPIC, ("k" + key + ":" + i / KEYS).getBytes(StandardCharsets.UTF_8));
            SendStatus status = Patient.send(() -> producer.send(m, (mqs, msg, arg) -> mqs.get((Integer) arg % mqs.size()), key)).getSendStatus();
            assertEquals(SendStatus.SEND_OK, status);
        }
        return from + count;
    }

    private static void awaitConsumed(Set<String> consumed, int sent, SafeOrderlyConsumer... consumers) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 180_000;
        while (consumed.size() < sent && System.currentTimeMillis() < deadline) {
            Thread.sleep(200);
        }
        StringBuilder held = new StringBuilder();
        for (SafeOrderlyConsumer c : consumers) {
            held.append(' ').append(c.getClientId()).append(' ').append(c.heldQueues());
        }
        java.util.List<String> missing = new java.util.ArrayList<>();
        for (int i = 0; i < sent && missing.size() < 20; i++) {
            String body = "k" + i % KEYS + ":" + i / KEYS;
            if (!consumed.contains(body)) {
                missing.add(body + " (queue " + (i % KEYS) % 8 + ")");
            }
        }
        assertEquals(sent, consumed.size(), "consumed before the deadline; missing " + missing + "; held:" + held);
    }
}
