package io.github.rocketmqrebalance.cluster;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import io.github.rocketmqrebalance.consumer.SafeOrderlyConsumer;
import io.github.rocketmqrebalance.engine.RebalanceConfig;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * One orderly consumer process for tests/e2e/run/orderly.sh:
 * {@code OrderlyConsumerMain <namesrv> <group> <topic> safe|safe-nowatch|java|stock <name> <state-dir>}.
 * {@code safe} and {@code java} are {@link SafeOrderlyConsumer} with those semantics,
 * {@code safe-nowatch} is {@code safe} without its broker watch (the control of the broker
 * restart test: a restart then reaches the engine only through a lock renewal), {@code stock}
 * is {@code DefaultMQPushConsumer} with {@code MessageListenerOrderly} (Java's own RebalanceImpl).
 * All use AVG and start new queues from the first offset.
 *
 * <p>Every listener call is written to {@code <name>.calls} twice, flushed at once: when it begins
 * ({@code B <queue> <firstOffset> <lastOffset> <startNs>}) and when it returns
 * ({@code E <queue> <firstOffset> <lastOffset> <startNs> <endNs> <body,body,...>}), times from
 * {@code System.nanoTime()} (CLOCK_MONOTONIC, comparable across processes); {@code <queue>} is
 * the queue id on {@link LocalCluster#BROKER_NAME}, {@code <broker-name>/<queueId>} on any other. A call begun while
 * {@code <name>.slow} exists ({@code <queueId|*> <ms>}: a call on that queue, or on any) sleeps that long, and writes
 * {@code <name>.slow-started} first, so a script can kill the process inside it.
 */
public final class OrderlyConsumerMain {
    private OrderlyConsumerMain() {
    }

    interface Stoppable {
        void stop();
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: OrderlyConsumerMain <namesrv> <group> <topic> safe|safe-nowatch|java|stock <name> <state-dir>");
            System.exit(2);
        }
        String namesrv = args[0];
        String group = args[1];
        String topic = args[2];
        String kind = args[3];
        String name = args[4];
        Path dir = Paths.get(args[5]);
        BufferedWriter calls = Files.newBufferedWriter(dir.resolve(name + ".calls"), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
        MessageListenerOrderly listener = (msgs, context) -> {
            long start = System.nanoTime();
            String span = queueName(context.getMessageQueue()) + " " + msgs.get(0).getQueueOffset() + " " + msgs.get(msgs.size() - 1).getQueueOffset();
            ClusterMain.writeLine(calls, "B " + span + " " + start);
            slowIfAsked(dir, name, context.getMessageQueue().getQueueId());
            ClusterMain.writeLine(calls, "E " + span + " " + start + " " + System.nanoTime() + " " + bodies(msgs));
            return ConsumeOrderlyStatus.SUCCESS;
        };
        Stoppable consumer;
        if (kind.equals("stock")) {
            DefaultMQPushConsumer c = Patient.start(() -> {
                DefaultMQPushConsumer made = new DefaultMQPushConsumer(group);
                made.setNamesrvAddr(namesrv);
                made.setInstanceName(name);
                made.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
                made.subscribe(topic, "*");
                made.registerMessageListener(listener);
                return made;
            });
            consumer = c::shutdown;
        } else {
            SafeOrderlyConsumer c = new SafeOrderlyConsumer(group);
            c.setNamesrvAddr(namesrv);
            c.setInstanceName(name);
            c.setConsumeFrom(RebalanceConfig.ConsumeFrom.FIRST_OFFSET);
            c.setSemantics(kind.equals("java") ? RebalanceConfig.Semantics.JAVA : RebalanceConfig.Semantics.SAFE);
            if (kind.equals("safe-nowatch")) {
                c.setBrokerWatchIntervalMillis(0);
            }
            c.subscribe(topic);
            c.registerMessageListener(listener);
            c.start();
            consumer = c::shutdown;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            consumer.stop();
            stopped.countDown();
        }, "consumer-shutdown"));
        System.out.println(name + " started (" + kind + ")");
        stopped.await();
    }

    /** How a call's queue is written: its id alone on the single-broker cluster's broker, else with its broker's name. */
    static String queueName(MessageQueue mq) {
        return mq.getBrokerName().equals(LocalCluster.BROKER_NAME) ? Integer.toString(mq.getQueueId()) : mq.getBrokerName() + "/" + mq.getQueueId();
    }

    private static void slowIfAsked(Path dir, String name, int queueId) {
        long ms = takeSlowCue(dir, name, queueId);
        if (ms > 0) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The cue's milliseconds if it is for this queue, or for any ({@code *}) (taken: it applies once), else 0. */
    private static synchronized long takeSlowCue(Path dir, String name, int queueId) {
        Path slow = dir.resolve(name + ".slow");
        try {
            if (!Files.exists(slow)) {
                return 0;
            }
            String[] asked = new String(Files.readAllBytes(slow), StandardCharsets.UTF_8).trim().split(" ");
            if (!asked[0].equals("*") && Integer.parseInt(asked[0]) != queueId) {
                return 0;
            }
            Files.deleteIfExists(slow);
            StateFile.writeAtomically(dir.resolve(name + ".slow-started"), Long.toString(System.nanoTime()));
            return Long.parseLong(asked[1]);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String bodies(List<MessageExt> msgs) {
        StringBuilder b = new StringBuilder();
        for (MessageExt m : msgs) {
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(new String(m.getBody(), StandardCharsets.UTF_8));
        }
        return b.toString();
    }
}
