package io.github.rocketmqrebalance.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import io.github.rocketmqrebalance.cluster.Authentication;
import io.github.rocketmqrebalance.cluster.LocalCluster;
import io.github.rocketmqrebalance.cluster.Patient;
import io.github.rocketmqrebalance.consumer.TraceRecords;

import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.trace.TraceType;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.topic.TopicValidator;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.body.ConsumerConnection;
import org.apache.rocketmq.remoting.protocol.heartbeat.SubscriptionData;
import org.apache.rocketmq.spring.autoconfigure.RocketMQAutoConfiguration;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The user's application, on a broker that authenticates every request: a rocketmq-spring orderly
 * listener with a tag filter and {@code enableMsgTrace}, its group on
 * {@code rocketmq.rebalance.groups.<group>.safe-orderly=true} with BALANCED_STICKY_V2, its keys in
 * rocketmq-spring's own {@code rocketmq.consumer.access-key}/{@code secret-key}. Three instances of
 * it (Spring contexts in this JVM, each its own client instance): two start, messages are sent, a
 * third joins, the first leaves, more are sent. Then: every message with the listened tag consumed
 * and no other, no listener call of a queue overlapping another instance's call of that queue, each
 * instance's calls of a queue in send order, every consumed message's SubBefore and successful
 * SubAfter record in the trace topic, and RocketMQ's own admin client (signed) listing the group's
 * members with the tag subscription, while an unsigned one is refused.
 */
class SafeOrderlySpringAclTest {
    private static final String ACCESS_KEY = "spring-e2e";
    private static final String SECRET_KEY = "spring-e2e-secret";
    private static final String TOPIC = "SPRING_ACL";
    private static final String GROUP = "GID_SPRING_ACL";
    private static final int QUEUES = 4;
    private static final RPCHook SIGNING = Authentication.signing(ACCESS_KEY, SECRET_KEY);

    @Test
    @Timeout(600)
    void theApplicationConsumesItsTagSignedTracedWithoutOverlaps() throws Exception {
        CallLog.reset();
        try (LocalCluster cluster = LocalCluster.start(Authentication.broker(ACCESS_KEY, SECRET_KEY))) {
            cluster.createTopic(TOPIC, QUEUES);
            cluster.createTopic(TopicValidator.RMQ_SYS_TRACE_TOPIC, 1);
            DefaultMQProducer producer = new DefaultMQProducer("spring-acl-producer", Authentication.signing(ACCESS_KEY, SECRET_KEY));
            producer.setNamesrvAddr(cluster.namesrvAddr());
            producer.setInstanceName("spring-acl-producer");
            producer.start();
            List<ConfigurableApplicationContext> apps = new ArrayList<>();
            Set<String> kept = new TreeSet<>();
            try {
                apps.add(start(cluster, "app1"));
                apps.add(start(cluster, "app2"));
                kept.addAll(send(producer, 0, 120));
                apps.add(start(cluster, "app3"));
                CallLog.awaitConsumed(kept);
                adminViews(cluster, 3);
                // The first instance's records in the topic before it closes: its dispatcher's last
                // sends may still be in flight when close() stops the trace producer under them
                // (the client flushes for at most 500 ms), which is the client's, not the test's.
                TraceRecords.read(cluster, SIGNING, kept, GROUP);
                apps.remove(0).close();
                kept.addAll(send(producer, 120, 240));
                CallLog.awaitConsumed(kept);
                adminViews(cluster, 2);

                assertEquals(kept, CallLog.consumedIds(), "every message with tag keep consumed, and no other");
                assertEquals(0, CallLog.overlaps(), "listener calls of one queue in two instances at once");
                assertEquals(List.of(), CallLog.orderViolations(), "calls out of send order within an instance");
                Map<String, Map<TraceType, Set<String>>> records = TraceRecords.read(cluster, SIGNING, kept, GROUP);
                assertEquals(kept, records.get(GROUP).get(TraceType.SubBefore), "SubBefore records");
                assertEquals(kept, records.get(GROUP).get(TraceType.SubAfter), "successful SubAfter records");
                System.out.println("spring acl: " + kept.size() + " consumed by " + CallLog.instances() + ", "
                    + CallLog.redeliveries() + " delivered again, 0 overlaps, 0 order violations, every call traced");
            } finally {
                apps.forEach(ConfigurableApplicationContext::close);
                producer.shutdown();
            }
        }
    }

    private static ConfigurableApplicationContext start(LocalCluster cluster, String instance) {
        return new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE).properties(
            "rocketmq.name-server=" + cluster.namesrvAddr(),
            "rocketmq.consumer.access-key=" + ACCESS_KEY,
            "rocketmq.consumer.secret-key=" + SECRET_KEY,
            "rocketmq.rebalance.strategy=balanced_sticky_v2",
            "rocketmq.rebalance.groups." + GROUP + ".safe-orderly=true",
            "test.topic=" + TOPIC,
            "test.group=" + GROUP,
            "test.instance=" + instance,
            "spring.main.banner-mode=off").run();
    }

    /** Messages {@code from} to {@code to}, message n to queue n % QUEUES, every third tagged "skip", the rest "keep"; the ids of the kept ones. */
    private static Set<String> send(DefaultMQProducer producer, int from, int to) throws Exception {
        Set<String> kept = new TreeSet<>();
        for (int n = from; n < to; n++) {
            String tag = n % 3 == 2 ? "skip" : "keep";
            Message m = new Message(TOPIC, tag, (n % QUEUES + "-" + n).getBytes(StandardCharsets.UTF_8));
            int queue = n % QUEUES;
            SendResult r = Patient.send(() -> producer.send(m, (mqs, msg, arg) -> mqs.get((Integer) arg), queue));
            assertEquals(SendStatus.SEND_OK, r.getSendStatus());
            if (tag.equals("keep")) {
                kept.add(r.getMsgId());
            }
        }
        return kept;
    }

    /** RocketMQ's admin client, signed: the group's {@code members} with the tag subscription; unsigned: refused. */
    private static void adminViews(LocalCluster cluster, int members) throws Exception {
        DefaultMQAdminExt admin = new DefaultMQAdminExt(Authentication.signing(ACCESS_KEY, SECRET_KEY));
        admin.setNamesrvAddr(cluster.namesrvAddr());
        admin.setInstanceName("spring-acl-admin-" + System.nanoTime());
        admin.start();
        try {
            ConsumerConnection c = waitForMembers(admin, members);
            SubscriptionData sub = c.getSubscriptionTable().get(TOPIC);
            assertTrue(sub != null, "the group's subscription to " + TOPIC + ": " + c.getSubscriptionTable().keySet());
            assertEquals("keep", sub.getSubString());
            assertEquals(Set.of("keep"), sub.getTagsSet());
        } finally {
            admin.shutdown();
        }
        DefaultMQAdminExt unsigned = new DefaultMQAdminExt();
        unsigned.setNamesrvAddr(cluster.namesrvAddr());
        unsigned.setInstanceName("spring-acl-unsigned-" + System.nanoTime());
        unsigned.start();
        try {
            MQBrokerException refused = assertThrows(MQBrokerException.class, () -> unsigned.examineConsumerConnectionInfo(GROUP));
            assertEquals(ResponseCode.NO_PERMISSION, refused.getResponseCode());
        } finally {
            unsigned.shutdown();
        }
    }

    private static ConsumerConnection waitForMembers(DefaultMQAdminExt admin, int members) throws Exception {
        long deadline = System.currentTimeMillis() + 120_000;
        while (true) {
            ConsumerConnection c = admin.examineConsumerConnectionInfo(GROUP);
            if (c.getConnectionSet().size() == members || System.currentTimeMillis() > deadline) {
                assertEquals(members, c.getConnectionSet().size(), "members listed: "
                    + c.getConnectionSet().stream().map(x -> x.getClientId()).collect(Collectors.toList()));
                return c;
            }
            Thread.sleep(500);
        }
    }

    /** The application: rocketmq-spring, this library's starter, and one orderly listener. */
    @SpringBootConfiguration
    @ImportAutoConfiguration({RocketMQAutoConfiguration.class, RebalanceAutoConfiguration.class})
    static class Application {
        @Bean
        TaggedOrderlyListener listener() {
            return new TaggedOrderlyListener();
        }
    }
}
