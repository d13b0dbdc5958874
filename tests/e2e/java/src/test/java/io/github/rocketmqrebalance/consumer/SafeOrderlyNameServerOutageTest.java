package io.github.rocketmqrebalance.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.rocketmqrebalance.cluster.LocalCluster;
import io.github.rocketmqrebalance.cluster.Patient;
import io.github.rocketmqrebalance.engine.QueueState;

import org.apache.rocketmq.client.ClientConfig;
import org.apache.rocketmq.client.impl.MQClientManager;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.protocol.header.QueryConsumerOffsetRequestHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The NameServer stops answering while the consumer still reaches its broker (issue 45: a
 * partition from the NameServer only). Its lookups then hang for their whole timeout, again and
 * again. Lock renewal and offset commits must not wait behind them: the test watches the consumer's
 * rebalance thread, which runs every engine call, and it must never be found inside a NameServer
 * lookup while the lookups hang on the route thread; meanwhile the locks are renewed, messages
 * sent through the real NameServer are consumed in order and their offsets committed at the
 * broker; and once the NameServer answers again, consumption goes on. The "NameServer" here is a
 * socket that accepts and reads and never answers: what a client sees when a partition drops the
 * answers. No assertion depends on how fast anything runs: each wait ends on what it waits for,
 * under a generous deadline, and the thread check is a count of samples that caught the wrong
 * thread in a lookup (0), beside the count that caught the right one there (more than 0, or the
 * check saw no lookup at all).
 */
class SafeOrderlyNameServerOutageTest {
    private static final String TOPIC = "SAFE_NAMESRV_OUTAGE";
    private static final String GROUP = "GID_SAFE_NAMESRV_OUTAGE";
    private static final String INSTANCE = "namesrv-outage";
    /** The frames of a NameServer lookup (the lite-pull consumer's, and the admin call under it). */
    private static final Set<String> LOOKUP = Set.of("fetchMessageQueues", "fetchSubscribeMessageQueues", "getTopicRouteInfoFromNameServer");
    private static final long DEADLINE_MS = 120_000;

    @Test
    @Timeout(400)
    void lockRenewalAndCommitsNeverWaitBehindAHungNameServer() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(); SilentServer silent = new SilentServer()) {
            cluster.createTopic(TOPIC, 2);
            DefaultMQProducer producer = SafeOrderlyConsumerTest.startProducer(cluster, TOPIC, "outage-producer");
            List<String> consumed = Collections.synchronizedList(new ArrayList<>());
            SafeOrderlyConsumer c = SafeOrderlyConsumerTest.fromFirstOffset(cluster, GROUP, INSTANCE);
            c.setRebalanceIntervalMillis(2_000); // renewals every 2 s: several during one hung lookup
            c.setPersistIntervalMillis(1_000);
            c.subscribe(TOPIC);
            c.registerMessageListener(SafeOrderlyConsumerTest.recording(consumed));
            c.start();
            try {
                List<String> sent = new ArrayList<>();
                sendAndAwait(producer, "before", sent, consumed);

                MQClientInstance client = clientOf(c);
                String namesrv = String.join(";", client.getMQClientAPIImpl().getNameServerAddressList());
                client.getMQClientAPIImpl().updateNameServerAddressList(silent.address());
                Outage outage = watchThreads(c, silent, producer, sent, consumed);
                System.out.printf("NameServer silent: %d samples of the threads, a lookup on the rebalance thread in %d, on the route thread in %d;"
                    + " %d requests held; locks renewed %d times; %d messages sent meanwhile, all consumed%n", outage.samples, outage.rebalanceInLookup,
                    outage.routeInLookup, silent.requests(), outage.renewals, sent.size() - 10);
                assertEquals(0, outage.rebalanceInLookup,
                    "the rebalance thread (lock renewal, commits) waited inside a NameServer lookup in " + outage.rebalanceInLookup + " of "
                        + outage.samples + " samples");
                assertTrue(outage.routeInLookup > 0, "no lookup was seen hanging on the route thread in " + outage.samples + " samples");
                assertTrue(silent.requests() >= 2, "the silent NameServer got " + silent.requests() + " requests");
                assertTrue(outage.renewals >= 3, "locks renewed " + outage.renewals + " times while the NameServer hung");
                awaitCommitted(cluster, producer, sent.size());

                client.getMQClientAPIImpl().updateNameServerAddressList(namesrv);
                sendAndAwait(producer, "after", sent, consumed);
            } finally {
                c.shutdown();
                producer.shutdown();
            }
        }
    }

    /** What the samples of the consumer's threads showed while the NameServer hung. */
    private static final class Outage {
        int samples;
        int rebalanceInLookup;
        int routeInLookup;
        /** Distinct renewal times of the held queues seen. */
        int renewals;
    }

    /**
     * Samples the rebalance and route threads' stacks while messages are sent and consumed, until
     * the silent NameServer has held several lookups and the locks were renewed a few times.
     */
    private static Outage watchThreads(SafeOrderlyConsumer c, SilentServer silent, DefaultMQProducer producer, List<String> sent,
        List<String> consumed) throws Exception {
        Thread rebalance = thread("SafeOrderlyConsumer-rebalance-" + GROUP);
        assertTrue(rebalance != null, "the consumer's rebalance thread runs");
        Thread route = thread("SafeOrderlyConsumer-route-" + GROUP); // null in a consumer without one: then no sample finds a lookup there
        Outage o = new Outage();
        Set<Long> renewedAt = new TreeSet<>();
        Set<Long> before = lockTimes(c);
        int hungAtStart = silent.requests();
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        int batch = 0;
        while (System.currentTimeMillis() < deadline && (silent.requests() < hungAtStart + 2 || renewedAt.size() < 3 || o.routeInLookup == 0)) {
            o.samples++;
            if (inLookup(rebalance)) {
                o.rebalanceInLookup++;
            }
            if (route != null && inLookup(route)) {
                o.routeInLookup++;
            }
            for (long at : lockTimes(c)) {
                if (!before.contains(at)) {
                    renewedAt.add(at);
                }
            }
            if (o.samples % 200 == 0) {
                send(producer, "during-" + batch++, sent);
            }
            Thread.sleep(5);
        }
        awaitConsumed(sent, consumed);
        o.renewals = renewedAt.size();
        return o;
    }

    private static Set<Long> lockTimes(SafeOrderlyConsumer c) {
        Set<Long> at = new TreeSet<>();
        for (QueueState s : c.heldQueues().values()) {
            if (Boolean.TRUE.equals(s.locked) && !s.dropped) {
                at.add(s.lastLockMs);
            }
        }
        return at;
    }

    private static boolean inLookup(Thread t) {
        for (StackTraceElement frame : t.getStackTrace()) {
            if (LOOKUP.contains(frame.getMethodName())) {
                return true;
            }
        }
        return false;
    }

    private static Thread thread(String name) {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(name)) {
                return t;
            }
        }
        return null;
    }

    /** The client instance the consumer runs on (the one its instance name selects). */
    private static MQClientInstance clientOf(SafeOrderlyConsumer c) {
        ClientConfig config = new ClientConfig();
        config.setInstanceName(INSTANCE);
        config.setEnableStreamRequestType(true); // as the lite-pull consumer sets it (its id ends in @STREAM)
        MQClientInstance client = MQClientManager.getInstance().getOrCreateMQClientInstance(config);
        assertEquals(c.getClientId(), client.getClientId(), "the consumer's own client instance");
        return client;
    }

    private static void sendAndAwait(DefaultMQProducer producer, String prefix, List<String> sent, List<String> consumed) throws Exception {
        for (int i = 0; i < 10; i++) {
            send(producer, prefix + "-" + i, sent);
        }
        awaitConsumed(sent, consumed);
    }

    /** To queue 0 always, so that the consumed order is the sent order. */
    private static void send(DefaultMQProducer producer, String body, List<String> sent) throws Exception {
        Message m = new Message(TOPIC, body.getBytes(StandardCharsets.UTF_8));
        assertEquals(SendStatus.SEND_OK, Patient.send(() -> producer.send(m, (mqs, msg, arg) -> mqs.get(0), null)).getSendStatus());
        sent.add(body);
    }

    private static void awaitConsumed(List<String> sent, List<String> consumed) throws InterruptedException {
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        while (consumed.size() < sent.size() && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(sent, new ArrayList<>(consumed), "every message consumed once, in order");
    }

    /** The committed offsets at the broker reach {@code total} (all sent to queue 0) while the NameServer still hangs. */
    private static void awaitCommitted(LocalCluster cluster, DefaultMQProducer producer, long total) throws Exception {
        MQClientInstance client = MQClientManager.getInstance().getOrCreateMQClientInstance(producer);
        String broker = "127.0.0.1:" + cluster.broker().getNettyServerConfig().getListenPort();
        QueryConsumerOffsetRequestHeader header = new QueryConsumerOffsetRequestHeader();
        header.setConsumerGroup(GROUP);
        header.setTopic(TOPIC);
        header.setQueueId(0);
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        long committed = -1;
        while (System.currentTimeMillis() < deadline) {
            committed = client.getMQClientAPIImpl().queryConsumerOffset(broker, header, 5_000);
            if (committed == total) {
                return;
            }
            Thread.sleep(200);
        }
        assertEquals(total, committed, "the offset committed at the broker while the NameServer hung");
    }

    /** Accepts connections on loopback, reads whatever comes, and answers nothing. */
    private static final class SilentServer implements AutoCloseable {
        private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final List<Socket> accepted = Collections.synchronizedList(new ArrayList<>());
        /** Reads that returned bytes: a request each, near enough (a request is one small frame). */
        private final AtomicInteger reads = new AtomicInteger();

        SilentServer() throws IOException {
            Thread acceptor = new Thread(this::accept, "silent-namesrv");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        String address() {
            return "127.0.0.1:" + socket.getLocalPort();
        }

        int requests() {
            return reads.get();
        }

        private void accept() {
            while (!socket.isClosed()) {
                try {
                    Socket s = socket.accept();
                    accepted.add(s);
                    Thread reader = new Thread(() -> drain(s), "silent-namesrv-reader");
                    reader.setDaemon(true);
                    reader.start();
                } catch (IOException closed) {
                    return;
                }
            }
        }

        private void drain(Socket s) {
            byte[] buf = new byte[4096];
            try (InputStream in = s.getInputStream()) {
                while (in.read(buf) > 0) {
                    reads.incrementAndGet();
                }
            } catch (IOException closed) {
                // the client gave up the connection
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
            synchronized (accepted) {
                for (Socket s : accepted) {
                    s.close();
                }
            }
        }
    }
}
