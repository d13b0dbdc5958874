package io.github.rocketmqrebalance.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import io.github.rocketmqrebalance.cluster.LocalCluster;
import io.github.rocketmqrebalance.cluster.Patient;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.hook.ConsumeMessageContext;
import org.apache.rocketmq.client.hook.ConsumeMessageHook;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.trace.TraceDataEncoder;
import org.apache.rocketmq.client.trace.TraceType;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.topic.TopicValidator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a production orderly consumer attaches, on a real broker, beside the stock consumer: with
 * {@code enableMsgTrace} every consumed message has its {@code SubBefore} and a successful
 * {@code SubAfter} record in {@code RMQ_SYS_TRACE_TOPIC}, read back and decoded with the client's
 * own {@link TraceDataEncoder} exactly as the stock {@code DefaultMQPushConsumer}'s (the control: the
 * same reader finds the stock consumer's records for the same messages); a registered consume hook
 * sees each call before and after, as the push consumer shows it; and a consumer with
 * {@code setUseTLS(true)} consumes every message over TLS (the broker's default permissive mode
 * accepts TLS and plain connections alike).
 */
class SafeOrderlyTracingTest {
    private static final String TOPIC = "SAFE_TRACED";

    @Test
    @Timeout(300)
    void tracesHooksAndTlsAsThePushConsumersOnARealBroker() throws Exception {
        try (LocalCluster cluster = LocalCluster.start()) {
            cluster.createTopic(TOPIC, 2);
            cluster.createTopic(TopicValidator.RMQ_SYS_TRACE_TOPIC, 1);
            DefaultMQProducer producer = SafeOrderlyConsumerTest.startProducer(cluster, TOPIC, "traced-producer");
            Set<String> sent = new TreeSet<>();
            try {
                for (int i = 0; i < 6; i++) {
                    Message m = new Message(TOPIC, ("traced-" + i).getBytes(StandardCharsets.UTF_8));
                    SendResult r = Patient.send(() -> producer.send(m));
                    assertEquals(SendStatus.SEND_OK, r.getSendStatus());
                    sent.add(r.getMsgId());
                }
                Map<String, List<String>> hooked = new ConcurrentHashMap<>();
                SafeOrderlyConsumer traced = new SafeOrderlyConsumer("GID_SAFE_TRACED", null, true, null);
                traced.registerConsumeMessageHook(recordingInto(hooked));
                Set<String> tracedConsumed = consume(traced, cluster, "traced");
                Set<String> stockConsumed = consumeWithStock(cluster);
                SafeOrderlyConsumer overTls = new SafeOrderlyConsumer("GID_SAFE_TLS");
                overTls.setUseTLS(true);
                Set<String> tlsConsumed = consume(overTls, cluster, "tls");
                assertEquals(sent, tracedConsumed, "the traced consumer's messages");
                assertEquals(sent, stockConsumed, "the stock consumer's messages");
                assertEquals(sent, tlsConsumed, "the TLS consumer's messages");
                assertTrue(overTls.isUseTLS());

                // Each call's hooks, as the push consumer fills their context.
                assertEquals(sent, hooked.keySet(), "every message seen by the hook");
                hooked.forEach((id, seen) -> assertEquals(List.of("before:GID_SAFE_TRACED", "after:SUCCESS:SUCCESS:true"), seen, id));

                // The trace topic: the stock consumer's records are the control for the reader.
                Map<String, Map<TraceType, Set<String>>> records = TraceRecords.read(cluster, null, sent, "GID_SAFE_TRACED", "GID_STOCK_TRACED");
                assertEquals(sent, records.get("GID_STOCK_TRACED").get(TraceType.SubBefore), "the stock consumer's SubBefore records");
                assertEquals(sent, records.get("GID_STOCK_TRACED").get(TraceType.SubAfter), "the stock consumer's successful SubAfter records");
                assertEquals(sent, records.get("GID_SAFE_TRACED").get(TraceType.SubBefore), "SafeOrderlyConsumer's SubBefore records");
                assertEquals(sent, records.get("GID_SAFE_TRACED").get(TraceType.SubAfter), "SafeOrderlyConsumer's successful SubAfter records");
            } finally {
                producer.shutdown();
            }
        }
    }

    /** Starts {@code c} from the first offset, waits until it consumed 6 messages, shuts it down (flushing its traces); their ids. */
    private static Set<String> consume(SafeOrderlyConsumer c, LocalCluster cluster, String instance) throws Exception {
        Set<String> consumed = ConcurrentHashMap.newKeySet();
        c.setNamesrvAddr(cluster.namesrvAddr());
        c.setInstanceName(instance);
        c.setConsumeFrom(io.github.rocketmqrebalance.engine.RebalanceConfig.ConsumeFrom.FIRST_OFFSET);
        c.subscribe(TOPIC);
        c.registerMessageListener((msgs, context) -> {
            msgs.forEach(m -> consumed.add(m.getMsgId()));
            return ConsumeOrderlyStatus.SUCCESS;
        });
        c.start();
        try {
            awaitSix(consumed);
        } finally {
            c.shutdown();
        }
        return consumed;
    }

    private static Set<String> consumeWithStock(LocalCluster cluster) throws Exception {
        Set<String> consumed = ConcurrentHashMap.newKeySet();
        DefaultMQPushConsumer stock = new DefaultMQPushConsumer("GID_STOCK_TRACED", true, null);
        stock.setNamesrvAddr(cluster.namesrvAddr());
        stock.setInstanceName("stock-traced");
        stock.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        stock.subscribe(TOPIC, "*");
        stock.registerMessageListener((MessageListenerOrderly) (msgs, context) -> {
            msgs.forEach(m -> consumed.add(m.getMsgId()));
            return ConsumeOrderlyStatus.SUCCESS;
        });
        stock.start();
        try {
            awaitSix(consumed);
        } finally {
            stock.shutdown();
        }
        return consumed;
    }

    private static void awaitSix(Set<String> consumed) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 120_000;
        while (consumed.size() < 6 && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
        }
        Thread.sleep(500); // the last call's after-hook and trace record follow its return
    }

    /** A hook recording, per message id, "before:<group>" and "after:<status>:<type>:<success>". */
    private static ConsumeMessageHook recordingInto(Map<String, List<String>> seen) {
        return new ConsumeMessageHook() {
            @Override
            public String hookName() {
                return "test-recorder";
            }

            @Override
            public void consumeMessageBefore(ConsumeMessageContext c) {
                c.getMsgList().forEach(m -> seen.computeIfAbsent(m.getMsgId(), id -> Collections.synchronizedList(new ArrayList<>()))
                    .add("before:" + c.getConsumerGroup()));
            }

            @Override
            public void consumeMessageAfter(ConsumeMessageContext c) {
                c.getMsgList().forEach(m -> seen.get(m.getMsgId()).add("after:" + c.getStatus() + ":"
                    + c.getProps().get(org.apache.rocketmq.common.MixAll.CONSUME_CONTEXT_TYPE) + ":" + c.isSuccess()));
            }
        };
    }
}
