package io.github.rocketmqrebalance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.github.rocketmqrebalance.cluster.LocalCluster;
import io.github.rocketmqrebalance.cluster.Patient;
import io.github.rocketmqrebalance.cluster.QueueOccupancy;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A real NameServer and Broker ({@link LocalCluster}, in this JVM), a topic with 8 queues, and DefaultMQPushConsumers
 * of one group using the native strategies: 3 consumers, a 4th joins, one shuts down. Every
 * message must be consumed, and once the group settles every queue must be held by exactly one
 * consumer, as the Java original computes.
 */
@Timeout(600)
class EndToEndTest {
    static {
        // Rebalance every second instead of every 20 s, so each phase settles quickly.
        System.setProperty("rocketmq.client.rebalance.waitInterval", "1000");
    }

    static final int QUEUES = 8;
    static final long SETTLE_MS = 120_000;
    static LocalCluster cluster;
    static String namesrvAddr;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = LocalCluster.start();
        namesrvAddr = cluster.namesrvAddr();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void concurrentConsumersWithAveragely() throws Exception {
        run("E2E_AVG", false, NativeAllocateMessageQueueAveragely::new, new AllocateMessageQueueAveragely());
    }

    @Test
    void orderlyConsumersWithConsistentHash() throws Exception {
        run("E2E_ORDERLY", true, NativeAllocateMessageQueueConsistentHash::new, new AllocateMessageQueueConsistentHash());
    }

    private void run(String topic, boolean orderly, Supplier<AllocateMessageQueueStrategy> strategy, AllocateMessageQueueStrategy original)
        throws Exception {
        cluster.createTopic(topic, QUEUES);
        String group = "GID_" + topic;
        Set<String> consumed = ConcurrentHashMap.newKeySet();
        QueueOccupancy occupancy = new QueueOccupancy();
        Map<String, DefaultMQPushConsumer> consumers = new HashMap<>();
        DefaultMQProducer producer = Patient.producer("PG_" + topic, namesrvAddr);
        producer.setInstanceName("producer-" + topic);
        producer.start();
        int sent = 0;
        try {
            for (int i = 1; i <= 3; i++) {
                start(consumers, "c" + i, topic, group, orderly, strategy.get(), consumed, occupancy);
            }
            settle(consumers, topic, original);
            sent = produce(producer, topic, sent, 120);

            start(consumers, "c4", topic, group, orderly, strategy.get(), consumed, occupancy);
            settle(consumers, topic, original);
            sent = produce(producer, topic, sent, 120);

            consumers.remove("c2").shutdown();
            settle(consumers, topic, original);
            sent = produce(producer, topic, sent, 120);

            long deadline = System.currentTimeMillis() + SETTLE_MS;
            while (consumed.size() < sent && System.currentTimeMillis() < deadline) {
                Thread.sleep(200);
            }
            assertEquals(sent, consumed.size(), "every message consumed at least once");
            assertEquals(0, occupancy.overlaps(), "no queue consumed by two consumers at once");
        } finally {
            for (DefaultMQPushConsumer c : consumers.values()) {
                c.shutdown();
            }
            producer.shutdown();
        }
    }

    private static void start(Map<String, DefaultMQPushConsumer> consumers, String name, String topic, String group, boolean orderly,
                              AllocateMessageQueueStrategy strategy, Set<String> consumed, QueueOccupancy occupancy) throws Exception {
        DefaultMQPushConsumer started = Patient.start(() -> {
            DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
            c.setNamesrvAddr(namesrvAddr);
            c.setInstanceName(name + "-" + topic);
            c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
            c.setAllocateMessageQueueStrategy(strategy);
            c.subscribe(topic, "*");
            if (orderly) {
                c.registerMessageListener((MessageListenerOrderly) (msgs, context) -> {
                    occupancy.call(context.getMessageQueue().getQueueId(), name, () -> record(msgs, consumed));
                    return ConsumeOrderlyStatus.SUCCESS;
                });
            } else {
                c.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
                    record(msgs, consumed);
                    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
                });
            }
            return c;
        });
        consumers.put(name, started);
    }

    private static void record(List<MessageExt> msgs, Set<String> consumed) {
        for (MessageExt m : msgs) {
            consumed.add(new String(m.getBody(), StandardCharsets.UTF_8));
        }
    }

    private static int produce(DefaultMQProducer producer, String topic, int from, int count) throws Exception {
        for (int i = from; i < from + count; i++) {
            Message m = new Message(topic, ("m-" + i).getBytes(StandardCharsets.UTF_8));
            SendStatus status = Patient.send(() -> producer.send(m)).getSendStatus();
            assertEquals(SendStatus.SEND_OK, status);
        }
        return from + count;
    }

    /** Waits until every consumer holds what the Java original gives it and each queue has one holder. */
    private static void settle(Map<String, DefaultMQPushConsumer> consumers, String topic, AllocateMessageQueueStrategy original)
        throws InterruptedException {
        long deadline = System.currentTimeMillis() + SETTLE_MS;
        String last = "";
        while (System.currentTimeMillis() < deadline) {
            last = mismatch(consumers, topic, original);
            if (last == null) {
                return;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("group did not settle on the original's assignment: " + last);
    }

    // The client id and the held queues are read through the client's deprecated internals: no
    // public API gives them.
    @SuppressWarnings("deprecation")
    private static String mismatch(Map<String, DefaultMQPushConsumer> consumers, String topic, AllocateMessageQueueStrategy original) {
        List<MessageQueue> all = new ArrayList<>();
        for (int i = 0; i < QUEUES; i++) {
            all.add(new MessageQueue(topic, LocalCluster.BROKER_NAME, i));
        }
        Collections.sort(all);
        List<String> ids = new ArrayList<>();
        for (DefaultMQPushConsumer c : consumers.values()) {
            ids.add(c.getDefaultMQPushConsumerImpl().getmQClientFactory().getClientId());
        }
        Collections.sort(ids);
        Map<MessageQueue, Integer> holders = new HashMap<>();
        for (DefaultMQPushConsumer c : consumers.values()) {
            String id = c.getDefaultMQPushConsumerImpl().getmQClientFactory().getClientId();
            Set<MessageQueue> held = new TreeSet<>();
            c.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable().forEach((q, pq) -> {
                if (q.getTopic().equals(topic) && !pq.isDropped()) {
                    held.add(q);
                }
            });
            Set<MessageQueue> expected = new TreeSet<>(original.allocate("g", id, all, ids));
            if (!held.equals(expected)) {
                return id + " holds " + held + ", the original gives it " + expected;
            }
            held.forEach(q -> holders.merge(q, 1, Integer::sum));
        }
        for (MessageQueue q : all) {
            if (holders.getOrDefault(q, 0) != 1) {
                return q + " has " + holders.getOrDefault(q, 0) + " holders";
            }
        }
        return null;
    }
}
