package io.github.rocketmqrebalance.cluster49;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;

import io.github.rocketmqrebalance.cluster.HoldingsFile;
import io.github.rocketmqrebalance.cluster.LocalCluster;
import io.github.rocketmqrebalance.cluster.RecordingStrategy;
import io.github.rocketmqrebalance.cluster.StateFile;

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
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.namesrv.NamesrvController;

/**
 * A RocketMQ 4.9.7 NameServer, Broker and three consumer groups in one process, on ports picked at
 * run time, for inspect's check on the 4.x line ({@code tests/e2e/drivers/broker49.py}):
 * {@code Cluster49Main <state-dir>}.
 * <ul>
 * <li>{@code GID_49_OK}: c1 and c2 on Java's AVG, concurrent, over T49 (8 queues): healthy;</li>
 * <li>{@code GID_49_MIXED}: c3 on AVG and c4 on AVG_BY_CIRCLE over T49M (8 queues): their maps
 * disagree, so some queues are held twice and some by nobody;</li>
 * <li>{@code GID_49_ORDERLY}: c5 alone, orderly on AVG over T49: every queue held and locked.</li>
 * </ul>
 * Each consumer's every allocation of its topic is written to {@code <name>.held.json}
 * ({@link HoldingsFile}), the ground truth inspect's decoding is compared with; 20 messages go to
 * each topic so that offsets and lag are read too. {@code ready} holds the NameServer's address once
 * all is started; SIGTERM stops everything. The servers are tests/e2e/java's {@link LocalCluster},
 * compiled here against the 4.9.7 broker.
 */
public final class Cluster49Main {
    private static final String[] TOPICS = {"T49", "T49M"};

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

        NamesrvController namesrv = LocalCluster.startNamesrv(LocalCluster.freePort(random, 0));
        String namesrvAddr = "127.0.0.1:" + namesrv.getNettyServerConfig().getListenPort();
        // The broker also listens on port - 2 (its VIP channel).
        BrokerController broker = LocalCluster.startBroker(home, namesrvAddr, LocalCluster.freePort(random, 2), LocalCluster.freePort(random, 0));
        for (String topic : TOPICS) {
            LocalCluster.createTopic(broker, namesrvAddr, topic, 8);
        }

        List<DefaultMQPushConsumer> consumers = new ArrayList<>();
        consumers.add(consumer(state, namesrvAddr, "c1", "GID_49_OK", "T49", new AllocateMessageQueueAveragely(), false));
        consumers.add(consumer(state, namesrvAddr, "c2", "GID_49_OK", "T49", new AllocateMessageQueueAveragely(), false));
        consumers.add(consumer(state, namesrvAddr, "c3", "GID_49_MIXED", "T49M", new AllocateMessageQueueAveragely(), false));
        consumers.add(consumer(state, namesrvAddr, "c4", "GID_49_MIXED", "T49M", new AllocateMessageQueueAveragelyByCircle(), false));
        consumers.add(consumer(state, namesrvAddr, "c5", "GID_49_ORDERLY", "T49", new AllocateMessageQueueAveragely(), true));

        DefaultMQProducer producer = new DefaultMQProducer("PG_49");
        producer.setNamesrvAddr(namesrvAddr);
        producer.start();
        for (String topic : TOPICS) {
            for (int i = 0; i < 20; i++) {
                producer.send(new Message(topic, ("m-" + i).getBytes(StandardCharsets.UTF_8)), 30_000);
            }
        }
        producer.shutdown();

        StateFile.writeAtomically(state.resolve("ready"), namesrvAddr);
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
        c.setAllocateMessageQueueStrategy(new RecordingStrategy(strategy, topic, new HoldingsFile(state, name, strategy.getName())));
        c.subscribe(topic, "*");
        if (orderly) {
            c.registerMessageListener((MessageListenerOrderly) (msgs, context) -> ConsumeOrderlyStatus.SUCCESS);
        } else {
            c.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        }
        c.start();
        return c;
    }
}
