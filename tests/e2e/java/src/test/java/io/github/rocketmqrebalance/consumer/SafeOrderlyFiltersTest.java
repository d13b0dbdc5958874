package io.github.rocketmqrebalance.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import io.github.rocketmqrebalance.cluster.LocalCluster;
import io.github.rocketmqrebalance.cluster.Patient;

import org.apache.rocketmq.broker.BrokerController;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.protocol.body.ConsumerConnection;
import org.apache.rocketmq.remoting.protocol.heartbeat.SubscriptionData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Filters as a push consumer's, on a real broker: a tag expression and an SQL92 selector, each
 * registered at the broker with the group's subscription, each group given exactly the messages
 * its filter selects, in order per queue, and each queue's committed offset moved past the
 * messages the filter passed over (to the end of the queue), so a filtered-out tail does not hold
 * the group's lag or a handoff's start back.
 */
class SafeOrderlyFiltersTest {
    private static final String TOPIC = "SAFE_FILTERS";
    private static final int QUEUES = 2;
    private static final int PER_QUEUE = 30;

    @Test
    @Timeout(300)
    void aTagExpressionAndAnSqlSelectorGetExactlyTheirMessagesInOrder() throws Exception {
        try (LocalCluster cluster = LocalCluster.start()) {
            cluster.createTopic(TOPIC, QUEUES);
            Map<String, List<String>> byTag = new ConcurrentHashMap<>();
            Map<String, List<String>> bySql = new ConcurrentHashMap<>();
            SafeOrderlyConsumer tags = filtered(cluster, "GID_FILTER_TAG", "tags", byTag);
            tags.subscribe(TOPIC, "A || C");
            SafeOrderlyConsumer sql = filtered(cluster, "GID_FILTER_SQL", "sql", bySql);
            sql.subscribe(TOPIC, MessageSelector.bySql("kind = 'keep' AND n >= 10"));
            tags.start();
            sql.start();
            DefaultMQProducer producer = SafeOrderlyConsumerTest.startProducer(cluster, TOPIC, "filters-producer");
            // Message i of queue q: tag A, B or C by i mod 3 (B passed over by the tag group, and
            // the last two of each queue are B and C: a tag-filtered message ends each queue);
            // kind keep for even i, n = i.
            Map<String, List<String>> expectTag = new TreeMap<>();
            Map<String, List<String>> expectSql = new TreeMap<>();
            try {
                for (int q = 0; q < QUEUES; q++) {
                    for (int i = 0; i < PER_QUEUE; i++) {
                        String tag = "ABC".substring(i % 3, i % 3 + 1);
                        if (i == PER_QUEUE - 1) {
                            tag = "B";
                        }
                        String body = "q" + q + ":" + i;
                        Message m = new Message(TOPIC, tag, body.getBytes(StandardCharsets.UTF_8));
                        m.putUserProperty("kind", i % 2 == 0 ? "keep" : "skip");
                        m.putUserProperty("n", String.valueOf(i));
                        int queue = q;
                        assertEquals(SendStatus.SEND_OK, Patient.send(() -> producer.send(m, (mqs, msg, arg) -> mqs.get((Integer) arg), queue)).getSendStatus());
                        if (!tag.equals("B")) {
                            expectTag.computeIfAbsent("q" + q, k -> new ArrayList<>()).add(body);
                        }
                        if (i % 2 == 0 && i >= 10) {
                            expectSql.computeIfAbsent("q" + q, k -> new ArrayList<>()).add(body);
                        }
                    }
                }
                BrokerController broker = cluster.broker();
                awaitCommittedToTheEnd(broker, "GID_FILTER_TAG");
                awaitCommittedToTheEnd(broker, "GID_FILTER_SQL");
                assertEquals(expectTag, new TreeMap<>(byTag), "the tag group's messages, each once, in queue order");
                assertEquals(expectSql, new TreeMap<>(bySql), "the SQL92 group's messages, each once, in queue order");
                assertEquals("A || C", subscription(cluster, producer, "GID_FILTER_TAG").getSubString());
                SubscriptionData registered = subscription(cluster, producer, "GID_FILTER_SQL");
                assertEquals("SQL92", registered.getExpressionType());
                assertEquals("kind = 'keep' AND n >= 10", registered.getSubString());
            } finally {
                tags.shutdown();
                sql.shutdown();
                producer.shutdown();
            }
        }
    }

    private static SafeOrderlyConsumer filtered(LocalCluster cluster, String group, String instance, Map<String, List<String>> consumed) {
        SafeOrderlyConsumer c = SafeOrderlyConsumerTest.fromFirstOffset(cluster, group, instance);
        c.setRebalanceIntervalMillis(2_000);
        c.registerMessageListener((msgs, context) -> {
            for (MessageExt m : msgs) {
                String body = new String(m.getBody(), StandardCharsets.UTF_8);
                consumed.computeIfAbsent(body.split(":")[0], k -> Collections.synchronizedList(new ArrayList<>())).add(body);
            }
            return ConsumeOrderlyStatus.SUCCESS;
        });
        return c;
    }

    /** Until the broker holds, for every queue, {@code group}'s committed offset at the queue's end. */
    private static void awaitCommittedToTheEnd(BrokerController broker, String group) throws Exception {
        long deadline = System.currentTimeMillis() + 120_000;
        String seen = "";
        while (System.currentTimeMillis() < deadline) {
            StringBuilder s = new StringBuilder();
            boolean all = true;
            for (int q = 0; q < QUEUES; q++) {
                long committed = broker.getConsumerOffsetManager().queryOffset(group, TOPIC, q);
                long end = broker.getMessageStore().getMaxOffsetInQueue(TOPIC, q);
                s.append(" queue ").append(q).append(' ').append(committed).append(" of ").append(end);
                all &= end == PER_QUEUE && committed == end;
            }
            seen = s.toString();
            if (all) {
                return;
            }
            Thread.sleep(200);
        }
        assertTrue(false, group + " committed offsets never reached the end of every queue:" + seen);
    }

    private static SubscriptionData subscription(LocalCluster cluster, DefaultMQProducer asker, String group) throws Exception {
        ConsumerConnection connection = org.apache.rocketmq.client.impl.MQClientManager.getInstance().getOrCreateMQClientInstance(asker)
            .getMQClientAPIImpl().getConsumerConnectionList("127.0.0.1:" + cluster.broker().getNettyServerConfig().getListenPort(), group, 15_000);
        return connection.getSubscriptionTable().get(TOPIC);
    }
}
