package io.github.rocketmqrebalance.cluster49;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;

import org.apache.rocketmq.broker.BrokerController;
import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.BrokerConfig;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.namesrv.NamesrvConfig;
import org.apache.rocketmq.namesrv.NamesrvController;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyServerConfig;
import org.apache.rocketmq.store.config.MessageStoreConfig;

/**
 * A RocketMQ 4.9.7 NameServer, Broker and three consumer groups in one process, on loopback ports
 * picked at run time, for inspect's check on the 4.x line ({@code tests/e2e/broker49.py}):
 * {@code Cluster49Main <state-dir>}.
 * <ul>
 * <li>{@code GID_49_OK}: c1 and c2 on Java's AVG, concurrent, over T49 (8 queues): healthy;</li>
 * <li>{@code GID_49_MIXED}: c3 on AVG and c4 on AVG_BY_CIRCLE over T49M (8 queues): their maps
 * disagree, so some queues are held twice and some by nobody;</li>
 * <li>{@code GID_49_ORDERLY}: c5 alone, orderly on AVG over T49: every queue held and locked.</li>
 * </ul>
 * Each consumer's every allocation of its topic is written to {@code <name>.held.json} (name,
 * client_id, cids, queues), the ground truth inspect's decoding is compared with; 20 messages go to
 * each topic so that offsets and lag are read too. {@code ready} holds the NameServer's address once
 * all is started; SIGTERM stops everything. The broker set-up, the free-port search and the
 * recording strategy follow bindings/java's LocalCluster and JavaConsumerMain line for line, but
 * cannot call them: those are compiled against the 5.3.3 broker, which cannot share this classpath.
 */
public final class Cluster49Main {
    private Cluster49Main() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: Cluster49Main <state-dir>");
            System.exit(2);
        }
        Path state = Paths.get(args[0]);
        File home = Files.createTempDirectory(state, "home").toFile();
        System.setProperty("rocketmq.home.dir", home.getPath());
        System.setProperty("rocketmq.client.logRoot", new File(home, "logs").getPath());
        // No TLS: its permissive mode makes a self-signed certificate through JDK internals that
        // Java 17 does not open to netty 4.1.65, and says so on every start.
        System.setProperty("tls.server.mode", "disabled");
        Random random = new Random();

        NettyServerConfig namesrvNetty = new NettyServerConfig();
        namesrvNetty.setListenPort(freePort(random, 0));
        NamesrvController namesrv = new NamesrvController(new NamesrvConfig(), namesrvNetty);
        check(namesrv.initialize(), "the NameServer did not initialize");
        namesrv.start();
        String namesrvAddr = "127.0.0.1:" + namesrvNetty.getListenPort();

        BrokerConfig brokerConfig = new BrokerConfig();
        brokerConfig.setBrokerName("broker-a");
        brokerConfig.setBrokerClusterName("local");
        brokerConfig.setBrokerIP1("127.0.0.1");
        brokerConfig.setNamesrvAddr(namesrvAddr);
        brokerConfig.setRocketmqHome(home.getPath());
        NettyServerConfig brokerNetty = new NettyServerConfig();
        // The broker also listens on port - 2 (its VIP channel).
        brokerNetty.setListenPort(freePort(random, 2));
        MessageStoreConfig store = new MessageStoreConfig();
        store.setStorePathRootDir(new File(home, "store").getPath());
        store.setStorePathCommitLog(new File(home, "store/commitlog").getPath());
        // Small files: the defaults (a 1 GiB commit log) would be preallocated.
        store.setMappedFileSizeCommitLog(8 * 1024 * 1024);
        store.setMappedFileSizeConsumeQueue(20 * 20_000);
        store.setMaxHashSlotNum(1000);
        store.setMaxIndexNum(4000);
        store.setHaListenPort(freePort(random, 0));
        store.setDiskMaxUsedSpaceRatio(99);
        BrokerController broker = new BrokerController(brokerConfig, brokerNetty, new NettyClientConfig(), store);
        check(broker.initialize(), "the Broker did not initialize");
        broker.start();
        for (String topic : new String[] {"T49", "T49M"}) {
            broker.getTopicConfigManager().updateTopicConfig(new TopicConfig(topic, 8, 8, PermName.PERM_READ | PermName.PERM_WRITE));
        }
        broker.registerBrokerAll(true, false, true);
        DefaultMQProducer producer = new DefaultMQProducer("PG_49");
        producer.setNamesrvAddr(namesrvAddr);
        producer.start();
        for (String topic : new String[] {"T49", "T49M"}) {
            awaitRoute(producer, topic);
        }

        List<DefaultMQPushConsumer> consumers = new ArrayList<>();
        consumers.add(consumer(state, namesrvAddr, "c1", "GID_49_OK", "T49", new AllocateMessageQueueAveragely(), false));
        consumers.add(consumer(state, namesrvAddr, "c2", "GID_49_OK", "T49", new AllocateMessageQueueAveragely(), false));
        consumers.add(consumer(state, namesrvAddr, "c3", "GID_49_MIXED", "T49M", new AllocateMessageQueueAveragely(), false));
        consumers.add(consumer(state, namesrvAddr, "c4", "GID_49_MIXED", "T49M", new AllocateMessageQueueAveragelyByCircle(), false));
        consumers.add(consumer(state, namesrvAddr, "c5", "GID_49_ORDERLY", "T49", new AllocateMessageQueueAveragely(), true));

        for (String topic : new String[] {"T49", "T49M"}) {
            for (int i = 0; i < 20; i++) {
                producer.send(new Message(topic, ("m-" + i).getBytes(StandardCharsets.UTF_8)), 30_000);
            }
        }
        producer.shutdown();

        writeAtomically(state.resolve("ready"), namesrvAddr);
        System.out.println("ready: namesrv " + namesrvAddr);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            consumers.forEach(DefaultMQPushConsumer::shutdown);
            broker.shutdown();
            namesrv.shutdown();
            stopped.countDown();
        }, "cluster49-shutdown"));
        stopped.await();
    }

    private static DefaultMQPushConsumer consumer(Path state, String namesrv, String name, String group, String topic,
        AllocateMessageQueueStrategy strategy, boolean orderly) throws Exception {
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(namesrv);
        // One process, five clients: each its own instance, so its own client id and running info.
        c.setInstanceName(name);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.setAllocateMessageQueueStrategy(new Recording(strategy, state.resolve(name + ".held.json"), name, topic));
        c.subscribe(topic, "*");
        if (orderly) {
            c.registerMessageListener((MessageListenerOrderly) (msgs, context) -> ConsumeOrderlyStatus.SUCCESS);
        } else {
            c.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        }
        c.start();
        return c;
    }

    /** The strategy, writing down each answer for the topic; admin tools see the strategy's own name. */
    static final class Recording implements AllocateMessageQueueStrategy {
        private final AllocateMessageQueueStrategy inner;
        private final Path file;
        private final String name;
        private final String topic;

        Recording(AllocateMessageQueueStrategy inner, Path file, String name, String topic) {
            this.inner = inner;
            this.file = file;
            this.name = name;
            this.topic = topic;
        }

        @Override
        public List<MessageQueue> allocate(String group, String currentCID, List<MessageQueue> mqAll, List<String> cidAll) {
            List<MessageQueue> mine = inner.allocate(group, currentCID, mqAll, cidAll);
            if (!mqAll.isEmpty() && mqAll.get(0).getTopic().equals(topic)) {
                List<Integer> ids = mine.stream().map(MessageQueue::getQueueId).sorted().collect(Collectors.toList());
                String json = "{\"name\":\"" + name + "\",\"client_id\":\"" + currentCID + "\",\"cids\":["
                    + cidAll.stream().map(id -> "\"" + id + "\"").collect(Collectors.joining(",")) + "],\"queues\":" + ids + "}";
                try {
                    writeAtomically(file, json);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
            return mine;
        }

        @Override
        public String getName() {
            return inner.getName();
        }

        @Override
        public String toString() {
            return inner.toString();
        }
    }

    /** Until the NameServer answers the topic's route with all 8 queues (a client asking sooner gets "no route"). */
    private static void awaitRoute(DefaultMQProducer probe, String topic) throws Exception {
        long deadline = System.currentTimeMillis() + 120_000;
        while (true) {
            try {
                if (probe.fetchPublishMessageQueues(topic).size() == 8) {
                    return;
                }
            } catch (org.apache.rocketmq.client.exception.MQClientException notYet) {
                if (System.currentTimeMillis() > deadline) {
                    throw notYet;
                }
            }
            Thread.sleep(200);
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }

    private static void writeAtomically(Path file, String text) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.write(tmp, text.getBytes(StandardCharsets.UTF_8));
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** A loopback port that is free, and so is port - below. */
    private static int freePort(Random random, int below) throws IOException {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = 20_000 + random.nextInt(40_000);
            if (free(port) && (below == 0 || free(port - below))) {
                return port;
            }
        }
        throw new IOException("no free loopback port found");
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return s.isBound();
        } catch (IOException e) {
            return false;
        }
    }
}
