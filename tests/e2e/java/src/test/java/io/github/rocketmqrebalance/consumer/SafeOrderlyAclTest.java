package io.github.rocketmqrebalance.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import io.github.rocketmqrebalance.cluster.Authentication;
import io.github.rocketmqrebalance.cluster.LocalCluster;
import io.github.rocketmqrebalance.cluster.Patient;
import io.github.rocketmqrebalance.engine.RebalanceConfig;

import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ACL on a real broker that authenticates every request (ACL 2.0, {@link Authentication}):
 * {@code SafeOrderlyConsumer(group, rpcHook)} with the right keys consumes every message, holding
 * and committing as without ACL; the same consumer without keys, and with a wrong secret, is
 * refused: the broker answers its heartbeats and its member-list queries with {@code NO_PERMISSION}
 * (seen by a hook that records the broker's answers), never lists it in the group, and it
 * consumes and holds nothing.
 */
class SafeOrderlyAclTest {
    private static final String TOPIC = "SAFE_ACL";
    private static final String ACCESS_KEY = "rebalance-e2e";
    private static final String SECRET_KEY = "rebalance-e2e-secret";

    @Test
    @Timeout(300)
    void theBrokerServesTheSignedConsumerAndRefusesTheOthers() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(Authentication.broker(ACCESS_KEY, SECRET_KEY))) {
            cluster.createTopic(TOPIC, 2);
            DefaultMQProducer producer = new DefaultMQProducer("acl-producer", Authentication.signing(ACCESS_KEY, SECRET_KEY));
            producer.setNamesrvAddr(cluster.namesrvAddr());
            producer.setInstanceName("acl-producer");
            producer.start();
            Set<String> sent = new TreeSet<>();
            try {
                for (int i = 0; i < 6; i++) {
                    Message m = new Message(TOPIC, ("acl-" + i).getBytes(StandardCharsets.UTF_8));
                    SendResult r = Patient.send(() -> producer.send(m));
                    assertEquals(SendStatus.SEND_OK, r.getSendStatus());
                    sent.add(r.getMsgId());
                }
            } finally {
                producer.shutdown();
            }

            Answers signedAnswers = new Answers(Authentication.signing(ACCESS_KEY, SECRET_KEY));
            Set<String> signedConsumed = ConcurrentHashMap.newKeySet();
            SafeOrderlyConsumer signed = consumer("GID_SAFE_ACL", signedAnswers, cluster, signedConsumed);
            try {
                long deadline = System.currentTimeMillis() + 120_000;
                while (signedConsumed.size() < sent.size() && System.currentTimeMillis() < deadline) {
                    Thread.sleep(100);
                }
                assertEquals(sent, signedConsumed, "the signed consumer's messages");
                assertEquals(2, signed.heldQueues().keySet().stream().filter(q -> q.getTopic().equals(TOPIC)).count(),
                    "the signed consumer holds both queues of the topic (and its retry topic's)");
                assertTrue(signedAnswers.succeeded(RequestCode.LOCK_BATCH_MQ), "the broker granted the signed consumer's locks");
                assertEquals(Map.of(), signedAnswers.refusals(), "no request of the signed consumer refused");
                assertTrue(cluster.broker().getConsumerManager().getConsumerGroupInfo("GID_SAFE_ACL") != null, "the signed group is listed");
            } finally {
                signed.shutdown();
            }

            refused(cluster, "GID_SAFE_NO_KEYS", new Answers(null), "username cannot be null");
            refused(cluster, "GID_SAFE_WRONG_SECRET", new Answers(Authentication.signing(ACCESS_KEY, "not-the-secret")), "check signature failed");
        }
    }

    /**
     * Starts a consumer of {@code group} signing with {@code answers}, until the broker refused its
     * heartbeat and its member-list query (without members the engine's round stops there, before
     * any lock); then checks it has nothing.
     */
    private static void refused(LocalCluster cluster, String group, Answers answers, String reason) throws Exception {
        Set<String> consumed = ConcurrentHashMap.newKeySet();
        SafeOrderlyConsumer c = consumer(group, answers, cluster, consumed);
        try {
            long deadline = System.currentTimeMillis() + 120_000;
            while (!(answers.refused(RequestCode.HEART_BEAT) && answers.refused(RequestCode.GET_CONSUMER_LIST_BY_GROUP)) && System.currentTimeMillis() < deadline) {
                Thread.sleep(100);
            }
            Map<Integer, String> refusals = answers.refusals();
            assertTrue(refusals.containsKey(RequestCode.HEART_BEAT), group + ": heartbeat refused, in " + refusals);
            assertTrue(refusals.containsKey(RequestCode.GET_CONSUMER_LIST_BY_GROUP), group + ": member list refused, in " + refusals);
            assertTrue(refusals.get(RequestCode.HEART_BEAT).contains(reason), group + ": the broker's reason, in " + refusals);
            assertTrue(!answers.succeeded(RequestCode.LOCK_BATCH_MQ) && !answers.succeeded(RequestCode.PULL_MESSAGE), group + ": no lock or pull answered");
            assertEquals(Set.of(), consumed, group + " consumed");
            assertEquals(Map.<MessageQueue, Object>of(), Map.copyOf(c.heldQueues()), group + " holds");
            assertNull(cluster.broker().getConsumerManager().getConsumerGroupInfo(group), group + " is not listed at the broker");
        } finally {
            c.shutdown();
        }
    }

    private static SafeOrderlyConsumer consumer(String group, RPCHook hook, LocalCluster cluster, Set<String> consumed) throws Exception {
        SafeOrderlyConsumer c = new SafeOrderlyConsumer(group, hook);
        c.setNamesrvAddr(cluster.namesrvAddr());
        // Its own client instance: the RPC hook is the instance's, taken from its first consumer.
        c.setInstanceName(group);
        c.setConsumeFrom(RebalanceConfig.ConsumeFrom.FIRST_OFFSET);
        c.subscribe(TOPIC);
        c.registerMessageListener((msgs, context) -> {
            msgs.forEach(m -> consumed.add(m.getMsgId()));
            return ConsumeOrderlyStatus.SUCCESS;
        });
        c.start();
        return c;
    }

    /** Signs with {@code signer} (none: unsigned) and records the broker's answers by request code. */
    private static final class Answers implements RPCHook {
        private final RPCHook signer;
        private final Set<Integer> succeeded = ConcurrentHashMap.newKeySet();
        private final Map<Integer, String> refused = new ConcurrentHashMap<>();

        Answers(RPCHook signer) {
            this.signer = signer;
        }

        @Override
        public void doBeforeRequest(String addr, RemotingCommand request) {
            if (signer != null) {
                signer.doBeforeRequest(addr, request);
            }
        }

        @Override
        public void doAfterResponse(String addr, RemotingCommand request, RemotingCommand response) {
            if (response == null) {
                return;
            }
            if (response.getCode() == ResponseCode.SUCCESS) {
                succeeded.add(request.getCode());
            } else if (response.getCode() == ResponseCode.NO_PERMISSION) {
                refused.putIfAbsent(request.getCode(), String.valueOf(response.getRemark()));
            }
        }

        boolean succeeded(int code) {
            return succeeded.contains(code);
        }

        boolean refused(int code) {
            return refused.containsKey(code);
        }

        /** Request code to the broker's reason, for every kind of request refused. */
        Map<Integer, String> refusals() {
            return Map.copyOf(refused);
        }
    }
}
