package io.github.rocketmqrebalance.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.github.rocketmqrebalance.cluster.LocalCluster;
import io.github.rocketmqrebalance.cluster.Patient;
import io.github.rocketmqrebalance.engine.RebalanceConfig;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.UtilAll;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A new group on {@code TIMESTAMP} starts where a stock {@code DefaultMQPushConsumer} given the
 * same timestamp starts, side by side on one broker: both consume the same messages, in the same
 * order, and every message sent after the timestamp. (Where that is depends on the broker: it
 * answers a new group's offset query for a queue whose first message is still in its page cache
 * with 0, as the 5.x client does not ask it not to, and every client then starts there whatever
 * it was told; only past that does the timestamp search decide. On a test broker every message
 * is cached, so both consume from the first message; the search itself is the engine's, tested in
 * core.) The timestamp has whole seconds, so the test leaves two seconds on each side of it.
 */
class SafeOrderlyStartTest {
    private static final String TOPIC = "SAFE_FROM_TIMESTAMP";

    @Test
    @Timeout(300)
    void aNewGroupFromATimestampStartsWhereTheStockConsumerStarts() throws Exception {
        try (LocalCluster cluster = LocalCluster.start()) {
            cluster.createTopic(TOPIC, 1);
            DefaultMQProducer producer = SafeOrderlyConsumerTest.startProducer(cluster, TOPIC, "timestamp-producer");
            List<String> consumed = Collections.synchronizedList(new ArrayList<>());
            List<String> stockConsumed = Collections.synchronizedList(new ArrayList<>());
            SafeOrderlyConsumer c = SafeOrderlyConsumerTest.fromFirstOffset(cluster, "GID_FROM_TIMESTAMP", "timestamp");
            DefaultMQPushConsumer stock = new DefaultMQPushConsumer("GID_FROM_TIMESTAMP_STOCK");
            try {
                for (int i = 0; i < 5; i++) {
                    send(producer, "before-" + i);
                }
                Thread.sleep(2_000);
                // Whole seconds: the first second wholly after the early messages.
                String at = UtilAll.timeMillisToHumanString3(System.currentTimeMillis() + 1_000);
                Thread.sleep(3_000);
                List<String> after = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    send(producer, "after-" + i);
                    after.add("after-" + i);
                }
                c.setConsumeFrom(RebalanceConfig.ConsumeFrom.TIMESTAMP);
                c.setConsumeTimestamp(at);
                c.subscribe(TOPIC);
                c.registerMessageListener(SafeOrderlyConsumerTest.recording(consumed));
                c.start();
                stock.setNamesrvAddr(cluster.namesrvAddr());
                stock.setInstanceName("timestamp-stock");
                stock.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_TIMESTAMP);
                stock.setConsumeTimestamp(at);
                stock.subscribe(TOPIC, "*");
                stock.registerMessageListener((MessageListenerOrderly) (msgs, context) -> {
                    for (MessageExt m : msgs) {
                        stockConsumed.add(new String(m.getBody(), StandardCharsets.UTF_8));
                    }
                    return ConsumeOrderlyStatus.SUCCESS;
                });
                stock.start();
                long deadline = System.currentTimeMillis() + 120_000;
                while ((consumed.size() < after.size() || stockConsumed.size() < after.size()) && System.currentTimeMillis() < deadline) {
                    Thread.sleep(100);
                }
                Thread.sleep(2_000); // what either would consume beyond the other's shows by now
                assertEquals(new ArrayList<>(stockConsumed), new ArrayList<>(consumed), "SafeOrderlyConsumer against the stock consumer, from " + at);
                assertEquals(after, consumed.subList(consumed.size() - after.size(), consumed.size()), "every message after " + at + ", last and in order");
            } finally {
                stock.shutdown();
                c.shutdown();
                producer.shutdown();
            }
        }
    }

    private static void send(DefaultMQProducer producer, String body) throws Exception {
        Message m = new Message(TOPIC, body.getBytes(StandardCharsets.UTF_8));
        assertEquals(SendStatus.SEND_OK, Patient.send(() -> producer.send(m)).getSendStatus());
    }
}
