package io.github.rocketmqrebalance.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.rocketmqrebalance.cluster.LocalCluster;
import io.github.rocketmqrebalance.cluster.Patient;
import io.github.rocketmqrebalance.engine.RebalanceConfig;

import org.apache.rocketmq.broker.client.ConsumerGroupInfo;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.hook.ConsumeMessageContext;
import org.apache.rocketmq.client.hook.ConsumeMessageHook;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A namespace on a real broker, beside the stock consumer as the control: with
 * {@code setNamespace("NS_A")} both subscribe to {@code SAFE_NS} and consume what a producer in the
 * same namespace sent; the broker knows each group and topic by the namespaced names
 * ({@code NS_A%...}: members, subscriptions and committed offsets there, nothing under the plain
 * names); each listener sees the plain topic name, and each consume hook the namespaced group and
 * the namespace, the same for both consumers.
 */
class SafeOrderlyNamespaceTest {
    private static final String NAMESPACE = "NS_A";
    private static final String TOPIC = "SAFE_NS";
    private static final String WIRE_TOPIC = NAMESPACE + "%" + TOPIC;

    @Test
    @Timeout(300)
    @SuppressWarnings("deprecation") // setNamespace: deprecated in 5.2 for namespaceV2, which a broker does not read
    void theBrokerKnowsTheNamespacedNamesAndTheListenerThePlainOnes() throws Exception {
        try (LocalCluster cluster = LocalCluster.start()) {
            cluster.createTopic(WIRE_TOPIC, 2);
            DefaultMQProducer producer = new DefaultMQProducer("ns-producer");
            producer.setNamespace(NAMESPACE);
            producer.setNamesrvAddr(cluster.namesrvAddr());
            producer.setInstanceName("ns-producer");
            producer.start();
            Set<String> sent = new TreeSet<>();
            try {
                for (int i = 0; i < 6; i++) {
                    Message m = new Message(TOPIC, ("ns-" + i).getBytes(StandardCharsets.UTF_8));
                    assertEquals(SendStatus.SEND_OK, Patient.send(() -> producer.send(m)).getSendStatus());
                    sent.add(new String(m.getBody(), StandardCharsets.UTF_8));
                }
            } finally {
                producer.shutdown();
            }

            Seen ours = new Seen();
            SafeOrderlyConsumer safe = new SafeOrderlyConsumer("GID_SAFE_NS");
            safe.setNamespace(NAMESPACE);
            safe.setNamesrvAddr(cluster.namesrvAddr());
            safe.setInstanceName("safe-ns");
            safe.setConsumeFrom(RebalanceConfig.ConsumeFrom.FIRST_OFFSET);
            safe.subscribe(TOPIC);
            safe.registerConsumeMessageHook(ours.hook());
            safe.registerMessageListener((msgs, context) -> {
                msgs.forEach(ours::record);
                return ConsumeOrderlyStatus.SUCCESS;
            });
            safe.start();
            try {
                ours.await(sent.size());
                ConsumerGroupInfo info = listed(cluster, NAMESPACE + "%GID_SAFE_NS");
                assertNotNull(info, "the broker lists the namespaced group");
                assertEquals(Set.of(WIRE_TOPIC, "%RETRY%" + NAMESPACE + "%GID_SAFE_NS"), info.getSubscriptionTable().keySet());
                assertNull(cluster.broker().getConsumerManager().getConsumerGroupInfo("GID_SAFE_NS"), "nothing under the plain group");
                assertEquals(Set.of(WIRE_TOPIC, "%RETRY%" + NAMESPACE + "%GID_SAFE_NS"),
                    safe.heldQueues().keySet().stream().map(MessageQueue::getTopic).collect(Collectors.toSet()));
            } finally {
                safe.shutdown();
            }

            Seen stock = new Seen();
            DefaultMQPushConsumer control = new DefaultMQPushConsumer("GID_STOCK_NS");
            control.setNamespace(NAMESPACE);
            control.setNamesrvAddr(cluster.namesrvAddr());
            control.setInstanceName("stock-ns");
            control.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
            control.subscribe(TOPIC, "*");
            control.getDefaultMQPushConsumerImpl().registerConsumeMessageHook(stock.hook());
            control.registerMessageListener((MessageListenerOrderly) (msgs, context) -> {
                msgs.forEach(stock::record);
                return ConsumeOrderlyStatus.SUCCESS;
            });
            control.start();
            try {
                stock.await(sent.size());
            } finally {
                control.shutdown();
            }

            assertEquals(sent, ours.bodies(), "SafeOrderlyConsumer's messages");
            assertEquals(sent, stock.bodies(), "the stock consumer's messages");
            assertEquals(Set.of(TOPIC), ours.topics(), "the topic SafeOrderlyConsumer's listener sees");
            assertEquals(stock.topics(), ours.topics(), "the stock listener sees the same");
            assertEquals(Set.of(NAMESPACE + "%GID_SAFE_NS/" + NAMESPACE), ours.hooked(), "what SafeOrderlyConsumer's hook sees");
            assertEquals(Set.of(NAMESPACE + "%GID_STOCK_NS/" + NAMESPACE), stock.hooked(), "what the stock consumer's hook sees");
            // Both groups' progress is committed under the namespaced names only.
            for (String group : List.of("GID_SAFE_NS", "GID_STOCK_NS")) {
                Map<Integer, Long> committed = cluster.broker().getConsumerOffsetManager().queryOffset(NAMESPACE + "%" + group, WIRE_TOPIC);
                assertEquals(6L, committed.values().stream().mapToLong(Long::longValue).sum(), group + ": " + committed);
                assertNull(cluster.broker().getConsumerOffsetManager().queryOffset(group, TOPIC), group + " under the plain names");
            }
        }
    }

    /** What one consumer's listener and hook saw. */
    private static final class Seen {
        private final Set<String> bodies = ConcurrentHashMap.newKeySet();
        private final Set<String> topics = ConcurrentHashMap.newKeySet();
        private final Set<String> hooked = ConcurrentHashMap.newKeySet();

        void record(org.apache.rocketmq.common.message.MessageExt m) {
            bodies.add(new String(m.getBody(), StandardCharsets.UTF_8));
            topics.add(m.getTopic());
        }

        ConsumeMessageHook hook() {
            return new ConsumeMessageHook() {
                @Override
                public String hookName() {
                    return "namespace-recorder";
                }

                @Override
                public void consumeMessageBefore(ConsumeMessageContext c) {
                    hooked.add(c.getConsumerGroup() + "/" + c.getNamespace());
                }

                @Override
                public void consumeMessageAfter(ConsumeMessageContext c) {
                }
            };
        }

        void await(int n) throws InterruptedException {
            long deadline = System.currentTimeMillis() + 120_000;
            while (bodies.size() < n && System.currentTimeMillis() < deadline) {
                Thread.sleep(100);
            }
            Thread.sleep(1_500); // the offsets of the last calls committed (every second) before shutdown commits the rest
        }

        Set<String> bodies() {
            return new TreeSet<>(bodies);
        }

        Set<String> topics() {
            return new TreeSet<>(topics);
        }

        Set<String> hooked() {
            return new TreeSet<>(hooked);
        }
    }

    /**
     * The broker's entry for {@code group}, waited for (up to 60 s): the broker drops a group whose
     * only channel closes, and a client closes its channel when a request times out (5.x:
     * clientCloseSocketIfTimeout, true by default), which a loaded machine makes happen (a CI run
     * saw it); the client's next heartbeat (every 30 s) lists the group again.
     */
    private static ConsumerGroupInfo listed(LocalCluster cluster, String group) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        ConsumerGroupInfo info = cluster.broker().getConsumerManager().getConsumerGroupInfo(group);
        while (info == null && System.nanoTime() < deadline) {
            Thread.sleep(200);
            info = cluster.broker().getConsumerManager().getConsumerGroupInfo(group);
        }
        return info;
    }
}
