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
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SafeOrderlyConsumer on a real NameServer and Broker in this JVM (under -Xcheck:jni with the rest):
 * two consumers of one group share an 8-queue topic, one shuts down, a third joins; every message
 * is consumed, each key's sequence in order within a consumer, and no queue is ever inside two
 * listeners at once. The multi-process version with kills is tests/e2e/run/orderly.sh.
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
                subscribedAsAPushConsumer(cluster, producer, a, b);
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

    /**
     * With {@code maxReconsumeTimes} 2, a message whose call keeps returning SUSPEND (for the
     * context's 50 ms) and one whose call keeps throwing are each delivered 3 times, then stored in
     * {@code %DLQ%<group>} (read from the broker's own store), and each queue goes on to the message
     * after it; every other message is delivered once.
     */
    @Test
    void aMessageThatKeepsFailingGoesToTheDeadLetterQueueAndItsQueueGoesOn() throws Exception {
        String topic = "SAFE_DLQ";
        String group = "GID_" + topic;
        try (LocalCluster cluster = LocalCluster.start()) {
            cluster.createTopic(topic, 2);
            Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
            java.util.List<String> consumed = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            SafeOrderlyConsumer c = fromFirstOffset(cluster, group, "dlq");
            c.setMaxReconsumeTimes(2);
            c.subscribe(topic);
            c.registerMessageListener((msgs, context) -> {
                assertEquals(1, msgs.size(), "one message a call by default");
                String body = new String(msgs.get(0).getBody(), StandardCharsets.UTF_8);
                calls.computeIfAbsent(body, b -> new AtomicInteger()).incrementAndGet();
                if (body.equals("poison")) {
                    context.setSuspendCurrentQueueTimeMillis(50);
                    return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
                }
                if (body.equals("boom")) {
                    throw new IllegalStateException("a listener that throws fails its call");
                }
                consumed.add(body);
                return ConsumeOrderlyStatus.SUCCESS;
            });
            c.start();
            DefaultMQProducer producer = startProducer(cluster, topic, "dlq-producer");
            try {
                String[][] queues = {{"a0", "poison", "a1"}, {"boom", "b1"}};
                for (int q = 0; q < queues.length; q++) {
                    int queue = q;
                    for (String body : queues[q]) {
                        Message m = new Message(topic, body.getBytes(StandardCharsets.UTF_8));
                        assertEquals(SendStatus.SEND_OK, Patient.send(() -> producer.send(m, (mqs, msg, arg) -> mqs.get((Integer) arg), queue)).getSendStatus());
                    }
                }
                long deadline = System.currentTimeMillis() + 120_000;
                while (consumed.size() < 3 && System.currentTimeMillis() < deadline) {
                    Thread.sleep(100);
                }
                String dlq = org.apache.rocketmq.common.MixAll.getDLQTopic(group);
                org.apache.rocketmq.store.MessageStore store = cluster.broker().getMessageStore();
                while (store.getMaxOffsetInQueue(dlq, 0) < 2 && System.currentTimeMillis() < deadline) {
                    Thread.sleep(100);
                }
                assertEquals(java.util.Arrays.asList("a0", "a1"), queueOrder(consumed, "a"), "queue 0 went on past the dead letter, in order");
                assertEquals(java.util.Collections.singletonList("b1"), queueOrder(consumed, "b"));
                assertEquals(3, calls.get("poison").get(), "delivered 1 + maxReconsumeTimes times");
                assertEquals(3, calls.get("boom").get(), "a throw is a failed attempt too");
                calls.forEach((body, n) -> assertTrue(body.equals("poison") || body.equals("boom") || n.get() == 1, body + " delivered " + n));
                java.util.Set<String> dead = new java.util.TreeSet<>();
                org.apache.rocketmq.store.GetMessageResult got = store.getMessage("test-reader", dlq, 0, 0, 10, null);
                try {
                    for (java.nio.ByteBuffer b : got.getMessageBufferList()) {
                        MessageExt m = org.apache.rocketmq.common.message.MessageDecoder.decode(b);
                        dead.add(new String(m.getBody(), StandardCharsets.UTF_8));
                        assertEquals(topic, m.getProperty(org.apache.rocketmq.common.message.MessageConst.PROPERTY_RETRY_TOPIC), "the original topic travels along");
                    }
                } finally {
                    got.release();
                }
                assertEquals(new java.util.TreeSet<>(java.util.Arrays.asList("boom", "poison")), dead, "both in " + dlq);
                // Each of the two was delivered 3 times and failed each time: 6 failed messages.
                assertEquals(6, runningInfo(cluster, producer, group, c).getStatusTable().get(topic).getConsumeFailedMsgs(), "failed messages in the running info");
            } finally {
                c.shutdown();
                producer.shutdown();
            }
        }
    }

    /**
     * A call that does not return holds up only its own queue: queue 0's first message blocks its
     * call until every message of queue 1 has been consumed, which happens only if another thread
     * consumes queue 1 meanwhile (one listener thread would wait out the 120 s latch, and the test
     * fails). Queue 0's second message comes only after its first call returned: one call at a
     * time per queue.
     */
    @Test
    void aSlowCallHoldsUpOnlyItsOwnQueue() throws Exception {
        String topic = "SAFE_PARALLEL";
        try (LocalCluster cluster = LocalCluster.start()) {
            cluster.createTopic(topic, 2);
            java.util.concurrent.CountDownLatch queue1Done = new java.util.concurrent.CountDownLatch(5);
            java.util.concurrent.atomic.AtomicBoolean slowRunning = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicBoolean waitedOut = new java.util.concurrent.atomic.AtomicBoolean();
            AtomicInteger consumedBesideSlow = new AtomicInteger();
            java.util.List<String> queue0 = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            QueueOccupancy occupancy = new QueueOccupancy();
            SafeOrderlyConsumer c = fromFirstOffset(cluster, "GID_" + topic, "parallel");
            c.setConsumeThreadMin(2);
            c.subscribe(topic);
            c.registerMessageListener((msgs, context) -> {
                String body = new String(msgs.get(0).getBody(), StandardCharsets.UTF_8);
                occupancy.call(context.getMessageQueue().getQueueId(), "parallel", () -> {
                    if (body.equals("slow")) {
                        slowRunning.set(true);
                        try {
                            waitedOut.set(!queue1Done.await(120, java.util.concurrent.TimeUnit.SECONDS));
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        slowRunning.set(false);
                    } else if (body.startsWith("q1-")) {
                        if (slowRunning.get()) {
                            consumedBesideSlow.incrementAndGet();
                        }
                        queue1Done.countDown();
                    }
                    if (body.equals("slow") || body.equals("after")) {
                        queue0.add(body);
                    }
                });
                return ConsumeOrderlyStatus.SUCCESS;
            });
            c.start();
            DefaultMQProducer producer = startProducer(cluster, topic, "parallel-producer");
            try {
                send(producer, topic, 0, "slow");
                long deadline = System.currentTimeMillis() + 120_000;
                while (!slowRunning.get() && System.currentTimeMillis() < deadline) {
                    Thread.sleep(50);
                }
                assertTrue(slowRunning.get(), "the slow call began");
                send(producer, topic, 0, "after");
                for (int i = 0; i < 5; i++) {
                    send(producer, topic, 1, "q1-" + i);
                }
                while (queue0.size() < 2 && System.currentTimeMillis() < deadline + 120_000) {
                    Thread.sleep(50);
                }
            } finally {
                c.shutdown();
                producer.shutdown();
            }
            assertTrue(!waitedOut.get(), "queue 1 was consumed while queue 0's call ran (else the latch waited out)");
            assertEquals(5, consumedBesideSlow.get(), "every queue-1 message consumed during the slow call");
            assertEquals(java.util.Arrays.asList("slow", "after"), queue0, "queue 0 in order, its second call after the first");
            assertEquals(0, occupancy.overlaps(), "never two calls at once on one queue");
        }
    }

    /**
     * Flow control holds pulls back: with {@code pullThresholdForQueue} 10 and a call that does not
     * return, the broker serves the group a few batches of the 200 messages waiting (what the puller
     * caches, plus the backlog that paused it), counted by the broker's own statistics once they
     * stop growing; once the call returns, all 200 are consumed.
     */
    @Test
    void flowControlHoldsPullsBackWhileACallDoesNotReturn() throws Exception {
        String topic = "SAFE_FLOW";
        String group = "GID_" + topic;
        try (LocalCluster cluster = LocalCluster.start()) {
            cluster.createTopic(topic, 1);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            Set<String> consumed = ConcurrentHashMap.newKeySet();
            SafeOrderlyConsumer c = fromFirstOffset(cluster, group, "flow");
            c.setPullThresholdForQueue(10);
            c.setPullBatchSize(5);
            c.subscribe(topic);
            c.registerMessageListener((msgs, context) -> {
                try {
                    release.await(180, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                msgs.forEach(m -> consumed.add(new String(m.getBody(), StandardCharsets.UTF_8)));
                return ConsumeOrderlyStatus.SUCCESS;
            });
            DefaultMQProducer producer = startProducer(cluster, topic, "flow-producer");
            long served;
            try {
                for (int i = 0; i < 200; i++) {
                    send(producer, topic, 0, "m" + i);
                }
                c.start();
                org.apache.rocketmq.store.stats.BrokerStatsManager stats = cluster.broker().getBrokerStatsManager();
                String key = stats.buildStatsKey(topic, group);
                java.util.function.LongSupplier servedNow = () -> {
                    org.apache.rocketmq.common.stats.StatsItem item = stats.getStatsItem(org.apache.rocketmq.common.stats.Stats.GROUP_GET_NUMS, key);
                    return item == null ? 0 : item.getValue().sum();
                };
                // Until the count has stood still for 5 s (the first pull comes within a round).
                long deadline = System.currentTimeMillis() + 120_000;
                long last = -1;
                long stillSince = System.currentTimeMillis();
                while (System.currentTimeMillis() < deadline) {
                    long now = servedNow.getAsLong();
                    if (now != last || now == 0) {
                        last = now;
                        stillSince = System.currentTimeMillis();
                    } else if (System.currentTimeMillis() - stillSince >= 5_000) {
                        break;
                    }
                    Thread.sleep(100);
                }
                served = last;
                release.countDown();
                long consumedBy = System.currentTimeMillis() + 120_000;
                while (consumed.size() < 200 && System.currentTimeMillis() < consumedBy) {
                    Thread.sleep(100);
                }
            } finally {
                release.countDown();
                c.shutdown();
                producer.shutdown();
            }
            assertTrue(served > 0 && served < 100, "the broker served " + served + " of 200 while the call did not return");
            assertEquals(200, consumed.size(), "all consumed once the call returned");
        }
    }

    /**
     * {@code shutdown(1000)} returns while a call still runs (it waits no longer than its bound for
     * it); the idle queue was released (another client may lock it at the broker) and the busy one
     * was not (the broker refuses it to another client until its lock expires), so no one starts on
     * a queue whose call may still run. (That it waits 1 s and not the default 60 s is not
     * asserted: only a clock could tell.)
     */
    @Test
    void shutdownReturnsWhileACallRunsAndLeavesItsQueueLocked() throws Exception {
        String topic = "SAFE_SHUTDOWN";
        String group = "GID_" + topic;
        try (LocalCluster cluster = LocalCluster.start()) {
            cluster.createTopic(topic, 2);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean();
            Set<String> consumed = ConcurrentHashMap.newKeySet();
            SafeOrderlyConsumer c = fromFirstOffset(cluster, group, "shutdown");
            c.subscribe(topic);
            c.registerMessageListener((msgs, context) -> {
                String body = new String(msgs.get(0).getBody(), StandardCharsets.UTF_8);
                if (body.equals("busy")) {
                    running.set(true);
                    try {
                        release.await(180, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    running.set(false);
                }
                consumed.add(body);
                return ConsumeOrderlyStatus.SUCCESS;
            });
            c.start();
            DefaultMQProducer producer = startProducer(cluster, topic, "shutdown-producer");
            try {
                send(producer, topic, 1, "idle");
                send(producer, topic, 0, "busy");
                long deadline = System.currentTimeMillis() + 120_000;
                while (!(running.get() && consumed.contains("idle")) && System.currentTimeMillis() < deadline) {
                    Thread.sleep(50);
                }
                assertTrue(running.get() && consumed.contains("idle"), "the busy call runs and the idle queue was consumed");
                java.util.List<MessageQueue> mqs = producer.fetchPublishMessageQueues(topic);
                c.shutdown(1_000);
                assertTrue(running.get(), "shutdown returned while the call still ran");
                org.apache.rocketmq.broker.client.rebalance.RebalanceLockManager locks = cluster.broker().getRebalanceLockManager();
                MessageQueue busy = mqs.stream().filter(q -> q.getQueueId() == 0).findFirst().get();
                MessageQueue idle = mqs.stream().filter(q -> q.getQueueId() == 1).findFirst().get();
                assertTrue(locks.tryLock(group, idle, "another-client"), "the idle queue was unlocked at the broker");
                assertTrue(!locks.tryLock(group, busy, "another-client"), "the busy queue is still locked to the consumer");
            } finally {
                release.countDown();
                c.shutdown();
                producer.shutdown();
            }
        }
    }

    /** A consumer of {@code group} on the cluster, starting from the first offset; subscribe and start it. */
    static SafeOrderlyConsumer fromFirstOffset(LocalCluster cluster, String group, String instance) {
        SafeOrderlyConsumer c = new SafeOrderlyConsumer(group);
        c.setNamesrvAddr(cluster.namesrvAddr());
        c.setInstanceName(instance);
        c.setConsumeFrom(RebalanceConfig.ConsumeFrom.FIRST_OFFSET);
        return c;
    }

    /** A listener that appends each message's body to {@code consumed} and succeeds. */
    static MessageListenerOrderly recording(java.util.List<String> consumed) {
        return (msgs, context) -> {
            for (MessageExt m : msgs) {
                consumed.add(new String(m.getBody(), StandardCharsets.UTF_8));
            }
            return ConsumeOrderlyStatus.SUCCESS;
        };
    }

    static DefaultMQProducer startProducer(LocalCluster cluster, String topic, String instance) throws Exception {
        DefaultMQProducer producer = Patient.producer("PG_" + topic, cluster.namesrvAddr());
        producer.setInstanceName(instance);
        producer.start();
        return producer;
    }

    private static void send(DefaultMQProducer producer, String topic, int queue, String body) throws Exception {
        Message m = new Message(topic, body.getBytes(StandardCharsets.UTF_8));
        assertEquals(SendStatus.SEND_OK, Patient.send(() -> producer.send(m, (mqs, msg, arg) -> mqs.get((Integer) arg), queue)).getSendStatus());
    }

    private static java.util.List<String> queueOrder(java.util.List<String> consumed, String prefix) {
        synchronized (consumed) {
            return consumed.stream().filter(b -> b.startsWith(prefix)).collect(java.util.stream.Collectors.toList());
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
        org.apache.rocketmq.remoting.protocol.body.ConsumerRunningInfo info = runningInfo(cluster, asker, "GID_" + TOPIC, c);
        // 160 messages consumed within the last minute, none failed: the per-topic statistics.
        org.apache.rocketmq.remoting.protocol.body.ConsumeStatus status = info.getStatusTable().get(TOPIC);
        assertTrue(status != null && status.getConsumeOKTPS() > 0 && status.getConsumeFailedMsgs() == 0, String.valueOf(info.getStatusTable()));
        // Pulls that found messages have a round trip (measured in nanoseconds, so never 0 ms flat).
        assertTrue(status.getPullTPS() > 0 && status.getPullRT() > 0, String.valueOf(info.getStatusTable()));
        Map<org.apache.rocketmq.common.message.MessageQueue, io.github.rocketmqrebalance.engine.QueueState> held = c.heldQueues();
        assertEquals(held.keySet(), info.getMqTable().keySet(), "the queues the engine holds");
        info.getMqTable().forEach((mq, p) -> {
            assertEquals(Boolean.TRUE.equals(held.get(mq).locked), p.isLocked(), mq + " locked as the engine says");
            assertEquals(held.get(mq).dropped, p.isDroped(), mq + " dropped as the engine says");
        });
        assertTrue(info.getProperties().getProperty("allocateMessageQueueStrategy").startsWith("io.github.rocketmqrebalance.NativeAllocateMessageQueueAveragely"),
            info.getProperties().toString());
        assertEquals("true", info.getProperties().getProperty(org.apache.rocketmq.remoting.protocol.body.ConsumerRunningInfo.PROP_CONSUME_ORDERLY));
        // The settings in force, under the push consumer's names, not the stand-in pull consumer's.
        java.util.Properties props = info.getProperties();
        assertEquals("CONSUME_PASSIVELY", props.getProperty(org.apache.rocketmq.remoting.protocol.body.ConsumerRunningInfo.PROP_CONSUME_TYPE));
        assertEquals(String.valueOf(c.getPullBatchSize()), props.getProperty("pullBatchSize"), props.toString());
        assertEquals(String.valueOf(c.getPullThresholdSizeForQueue()), props.getProperty("pullThresholdSizeForQueue"), props.toString());
        assertEquals(String.valueOf(c.getConsumeThreadMin()), props.getProperty(org.apache.rocketmq.remoting.protocol.body.ConsumerRunningInfo.PROP_THREADPOOL_CORE_SIZE));
        assertEquals(null, props.getProperty("pullThreadNums"), "the stand-in's own pull threads are not reported");
    }

    /**
     * The group's subscriptions as the broker has them from the heartbeats, as a push consumer's:
     * the topic and the group's retry topic, every tag; and the retry topic's one queue held by
     * exactly one member, as a push consumer's rebalance gives it out.
     */
    private static void subscribedAsAPushConsumer(LocalCluster cluster, DefaultMQProducer asker, SafeOrderlyConsumer... members) throws Exception {
        String group = "GID_" + TOPIC;
        String retry = org.apache.rocketmq.common.MixAll.getRetryTopic(group);
        org.apache.rocketmq.remoting.protocol.body.ConsumerConnection connection = client(asker).getMQClientAPIImpl()
            .getConsumerConnectionList(brokerAddr(cluster), group, 15_000);
        assertEquals(new java.util.TreeSet<>(java.util.Arrays.asList(TOPIC, retry)), new java.util.TreeSet<>(connection.getSubscriptionTable().keySet()));
        connection.getSubscriptionTable().values().forEach(sub -> assertEquals("*", sub.getSubString(), sub.toString()));
        long deadline = System.currentTimeMillis() + 120_000;
        long holders;
        do {
            holders = java.util.Arrays.stream(members).filter(m -> m.heldQueues().keySet().stream().anyMatch(mq -> mq.getTopic().equals(retry))).count();
            if (holders == 1) {
                return;
            }
            Thread.sleep(200);
        } while (System.currentTimeMillis() < deadline);
        assertEquals(1, holders, "members holding " + retry);
    }

    private static org.apache.rocketmq.client.impl.factory.MQClientInstance client(DefaultMQProducer asker) {
        return org.apache.rocketmq.client.impl.MQClientManager.getInstance().getOrCreateMQClientInstance(asker);
    }

    private static String brokerAddr(LocalCluster cluster) {
        return "127.0.0.1:" + cluster.broker().getNettyServerConfig().getListenPort();
    }

    /** {@code c}'s running info, asked through the broker as admin tools ask. */
    private static org.apache.rocketmq.remoting.protocol.body.ConsumerRunningInfo runningInfo(LocalCluster cluster, DefaultMQProducer asker, String group,
        SafeOrderlyConsumer c) throws Exception {
        return client(asker).getMQClientAPIImpl().getConsumerRunningInfo(brokerAddr(cluster), group, c.getClientId(), false, 15_000);
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
