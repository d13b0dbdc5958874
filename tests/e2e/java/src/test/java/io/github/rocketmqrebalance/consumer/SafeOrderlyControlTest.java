package io.github.rocketmqrebalance.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.rocketmqrebalance.cluster.LocalCluster;
import io.github.rocketmqrebalance.cluster.Patient;

import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.impl.MQClientManager;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.protocol.body.ConsumerRunningInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The push consumer's controls on a real broker: {@code suspend()} stops pulling while the queue
 * stays held and locked, and {@code resume()} goes on in order; a failed call waits
 * {@code setSuspendCurrentQueueTimeMillis} when the listener's context does not say; a pull
 * interval and a per-topic threshold leave every message consumed, in order; and admin tools read
 * each setting in the running info. No assertion depends on how fast anything runs: a wait is an
 * absence over a window (a pull issued while suspended would come at once) or a lower bound the
 * consumer guarantees.
 */
class SafeOrderlyControlTest {
    private static final String TOPIC = "SAFE_CONTROL";
    private static final String GROUP = "GID_SAFE_CONTROL";
    private static final long SUSPEND_AFTER_FAILURE_MS = 2_000;

    @Test
    @Timeout(300)
    void suspendResumeAFailuresWaitAndThePullSettingsAsThePushConsumers() throws Exception {
        try (LocalCluster cluster = LocalCluster.start()) {
            cluster.createTopic(TOPIC, 1);
            DefaultMQProducer producer = SafeOrderlyConsumerTest.startProducer(cluster, TOPIC, "control-producer");
            List<String> consumed = Collections.synchronizedList(new ArrayList<>());
            Map<String, List<Long>> attempts = new ConcurrentHashMap<>();
            SafeOrderlyConsumer c = SafeOrderlyConsumerTest.fromFirstOffset(cluster, GROUP, "control");
            try {
                c.setPullInterval(200);
                c.setPullThresholdForTopic(100);
                c.setSuspendCurrentQueueTimeMillis(SUSPEND_AFTER_FAILURE_MS);
                c.subscribe(TOPIC);
                c.registerMessageListener((msgs, context) -> {
                    for (MessageExt m : msgs) {
                        String body = new String(m.getBody(), StandardCharsets.UTF_8);
                        List<Long> at = attempts.computeIfAbsent(body, b -> Collections.synchronizedList(new ArrayList<>()));
                        at.add(System.nanoTime());
                        if (body.equals("fails-once") && at.size() == 1) {
                            return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT; // the context's time left at -1
                        }
                        consumed.add(body);
                    }
                    return ConsumeOrderlyStatus.SUCCESS;
                });
                c.start();

                List<String> sent = new ArrayList<>();
                for (String body : new String[] {"a0", "fails-once", "a1", "a2"}) {
                    send(producer, body, sent);
                }
                awaitConsumed(consumed, sent);
                List<Long> failed = attempts.get("fails-once");
                assertEquals(2, failed.size(), "one failure, one redelivery");
                long waitedMs = (failed.get(1) - failed.get(0)) / 1_000_000;
                // The queue resumes no earlier than the wait it was given (whole milliseconds: 1 ms of rounding).
                assertTrue(waitedMs >= SUSPEND_AFTER_FAILURE_MS - 1, "redelivered after " + waitedMs + " ms");

                c.suspend();
                assertTrue(c.isSuspended());
                // A pull parked at the broker when suspend() came still lands, as the push
                // consumer's: this message takes it (or waits for resume with the rest).
                send(producer, "takes-the-pull-in-flight", sent);
                long until = System.currentTimeMillis() + 10_000;
                while (!consumed.contains("takes-the-pull-in-flight") && System.currentTimeMillis() < until) {
                    Thread.sleep(100);
                }
                int before = consumed.size();
                List<String> whileSuspended = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    send(producer, "b" + i, whileSuspended);
                }
                Thread.sleep(3_000);
                assertEquals(before, consumed.size(), "nothing pulled while suspended: " + consumed);
                assertFalse(c.heldQueues().isEmpty(), "the queue stays held while suspended");
                c.heldQueues().forEach((mq, state) -> assertTrue(Boolean.TRUE.equals(state.locked), mq + " stays locked: " + state));

                c.resume();
                sent.addAll(whileSuspended);
                awaitConsumed(consumed, sent);
                assertEquals(sent, new ArrayList<>(consumed), "every message once, in the order sent");

                ConsumerRunningInfo info = MQClientManager.getInstance().getOrCreateMQClientInstance(producer).getMQClientAPIImpl()
                    .getConsumerRunningInfo("127.0.0.1:" + cluster.broker().getNettyServerConfig().getListenPort(), GROUP, c.getClientId(), false, 15_000);
                java.util.Properties props = info.getProperties();
                assertEquals("100", props.getProperty("pullThresholdForTopic"), props.toString());
                assertEquals("200", props.getProperty("pullInterval"), props.toString());
                assertEquals(String.valueOf(SUSPEND_AFTER_FAILURE_MS), props.getProperty("suspendCurrentQueueTimeMillis"), props.toString());
            } finally {
                c.shutdown();
                producer.shutdown();
            }
        }
    }

    private static void send(DefaultMQProducer producer, String body, List<String> sent) throws Exception {
        Message m = new Message(TOPIC, body.getBytes(StandardCharsets.UTF_8));
        assertEquals(SendStatus.SEND_OK, Patient.send(() -> producer.send(m)).getSendStatus());
        sent.add(body);
    }

    private static void awaitConsumed(List<String> consumed, List<String> sent) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 120_000;
        while (consumed.size() < sent.size() && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(sent, new ArrayList<>(consumed), "consumed before the deadline, in order");
    }
}
