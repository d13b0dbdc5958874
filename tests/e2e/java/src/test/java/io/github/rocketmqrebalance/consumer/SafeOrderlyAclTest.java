package io.github.rocketmqrebalance.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

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
 * consumes and holds nothing. {@code rmq-rebalance inspect --access-key} (the secret in its
 * environment) signs as the consumer does and finds the group healthy; unsigned or with a wrong
 * secret it is refused with the broker's reason.
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
                // inspect, signing as the consumer does: the group healthy, each queue held by it.
                Inspect signedInspect = Inspect.run(cluster, "GID_SAFE_ACL", ACCESS_KEY, SECRET_KEY);
                assertEquals(0, signedInspect.exit, "inspect with the keys: " + signedInspect.err + signedInspect.out);
                JsonObject diagnosis = JsonParser.parseString(signedInspect.out).getAsJsonObject();
                assertEquals(0, diagnosis.getAsJsonArray("findings").size(), signedInspect.out);
                int ours = 0;
                for (JsonElement row : diagnosis.getAsJsonArray("queues")) {
                    JsonArray holders = row.getAsJsonObject().getAsJsonArray("holders");
                    assertEquals(1, holders.size(), row.toString());
                    assertEquals(signed.getClientId(), holders.get(0).getAsString(), row.toString());
                    ours++;
                }
                assertEquals(3, ours, "the topic's 2 queues and the retry topic's 1: " + signedInspect.out);
                // Without keys, or with a wrong secret, the broker refuses inspect as it refuses a consumer.
                Inspect anonymous = Inspect.run(cluster, "GID_SAFE_ACL", null, null);
                assertEquals(2, anonymous.exit, anonymous.out);
                assertTrue(anonymous.err.contains("code 16") && anonymous.err.contains("username cannot be null"), anonymous.err);
                Inspect wrong = Inspect.run(cluster, "GID_SAFE_ACL", ACCESS_KEY, "not-the-secret");
                assertEquals(2, wrong.exit, wrong.out);
                assertTrue(wrong.err.contains("code 16") && wrong.err.contains("check signature failed"), wrong.err);
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

    /** One run of {@code rmq-rebalance inspect --json} against the cluster: exit status, stdout, stderr. */
    private static final class Inspect {
        final int exit;
        final String out;
        final String err;

        private Inspect(int exit, String out, String err) {
            this.exit = exit;
            this.out = out;
            this.err = err;
        }

        /**
         * The CLI is tests/e2e/run/java.sh's build ({@code -Drmq.rebalance.cli}), or the
         * workspace's debug build when the test runs on its own ({@code cargo build -p rocketmq-rebalance-cli}).
         */
        static Inspect run(LocalCluster cluster, String group, String accessKey, String secretKey) throws Exception {
            String cli = System.getProperty("rmq.rebalance.cli", new File("../../../target/debug/rmq-rebalance").getAbsolutePath());
            List<String> cmd = new ArrayList<>(List.of(cli, "inspect", "--namesrv", cluster.namesrvAddr(), "--group", group, "--json"));
            if (accessKey != null) {
                cmd.add("--access-key");
                cmd.add(accessKey);
            }
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.environment().remove("RMQ_REBALANCE_SECRET_KEY");
            if (secretKey != null) {
                pb.environment().put("RMQ_REBALANCE_SECRET_KEY", secretKey);
            }
            File errFile = File.createTempFile("inspect", ".err");
            try {
                Process p = pb.redirectError(errFile).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!p.waitFor(120, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new AssertionError("inspect did not end within 120 s");
                }
                return new Inspect(p.exitValue(), out, Files.readString(errFile.toPath()));
            } finally {
                errFile.delete();
            }
        }
    }
}
