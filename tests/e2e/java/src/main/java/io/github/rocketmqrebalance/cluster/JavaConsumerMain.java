package io.github.rocketmqrebalance.cluster;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import io.github.rocketmqrebalance.NativeAllocateMessageQueueConsistentHash;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * One Java push consumer as its own process, for the mixed-language group test:
 * {@code JavaConsumerMain <namesrv> <group> <topic> native|original <name> <state-dir>
 * [<instance-name>|- <extra-topic>|- [concurrent|orderly|slow]]}.
 * {@code native} is this project's {@link NativeAllocateMessageQueueConsistentHash}, {@code original}
 * the client's own {@link AllocateMessageQueueConsistentHash} (both 10 virtual nodes). Every
 * allocation is written to {@code <name>.held.json} ({@link HoldingsFile}); every consumed body is
 * appended to {@code <name>.consumed}, by a concurrent listener or (for the inspect liveness test) an
 * orderly one, which Java's rebalance lets take a queue only once the broker grants its lock, or (for the
 * alert test) a slow concurrent one: one consume thread that takes {@value #SLOW_MS} ms per message, so
 * that lag builds up with ownership sound. SIGTERM shuts the consumer down (the group sees it leave).
 */
public final class JavaConsumerMain {
    /**
     * The slow listener's time per message. Slow enough that over a watch window of 10 rounds most
     * queues see no commit (STALL), rather than every queue draining a little (which Burrow's rules
     * rightly call OK).
     */
    static final long SLOW_MS = 5000;

    private JavaConsumerMain() {
    }

    // The client id is read through the client's deprecated internals: no public API gives it.
    @SuppressWarnings("deprecation")
    public static void main(String[] args) throws Exception {
        if (args.length != 6 && args.length != 8 && args.length != 9) {
            System.err.println("usage: JavaConsumerMain <namesrv> <group> <topic> native|original <name> <state-dir> [<instance-name>|- <extra-topic>|- [concurrent|orderly|slow]]");
            System.exit(2);
        }
        // The wrong-group setups of the inspect test: an instance name shared by two processes
        // (one client id), and a topic only this member subscribes to.
        String instanceName = args.length >= 8 && !args[6].equals("-") ? args[6] : null;
        String extraTopic = args.length >= 8 && !args[7].equals("-") ? args[7] : null;
        String mode = args.length == 9 ? args[8] : "concurrent";
        boolean orderly = mode.equals("orderly");
        boolean slow = mode.equals("slow");
        if (!orderly && !slow && !mode.equals("concurrent")) {
            throw new IllegalArgumentException("mode must be concurrent, orderly or slow, not " + mode);
        }
        String topic = args[2];
        String kind = args[3];
        String name = args[4];
        Path dir = Paths.get(args[5]);
        AllocateMessageQueueStrategy inner;
        if (kind.equals("native")) {
            inner = new NativeAllocateMessageQueueConsistentHash(10);
        } else if (kind.equals("original")) {
            inner = new AllocateMessageQueueConsistentHash(10);
        } else {
            throw new IllegalArgumentException("strategy must be native or original, not " + kind);
        }
        HoldingsFile holdings = new HoldingsFile(dir, name, kind);
        BufferedWriter consumed = Files.newBufferedWriter(dir.resolve(name + ".consumed"), StandardCharsets.UTF_8,
            StandardOpenOption.CREATE, StandardOpenOption.APPEND);

        DefaultMQPushConsumer consumer = Patient.start(() -> {
            DefaultMQPushConsumer made = new DefaultMQPushConsumer(args[1]);
            made.setNamesrvAddr(args[0]);
            made.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
            made.setAllocateMessageQueueStrategy(new RecordingStrategy(inner, topic, holdings));
            made.subscribe(topic, "*");
            if (instanceName != null) {
                made.setInstanceName(instanceName);
            }
            if (extraTopic != null) {
                made.subscribe(extraTopic, "*");
            }
            if (orderly) {
                made.registerMessageListener((MessageListenerOrderly) (msgs, context) -> {
                    record(consumed, msgs);
                    return ConsumeOrderlyStatus.SUCCESS;
                });
            } else {
                if (slow) {
                    made.setConsumeThreadMin(1);
                    made.setConsumeThreadMax(1);
                }
                made.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
                    if (slow) {
                        try {
                            Thread.sleep(SLOW_MS * msgs.size());
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                        }
                    }
                    record(consumed, msgs);
                    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
                });
            }
            return made;
        });
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            consumer.shutdown();
            try {
                String id = consumer.getDefaultMQPushConsumerImpl().getmQClientFactory().getClientId();
                holdings.write(id, Collections.<String>emptyList(), Collections.<Integer>emptyList(), true);
                synchronized (consumed) {
                    consumed.close();
                }
            } catch (IOException e) {
                e.printStackTrace();
            }
            stopped.countDown();
        }, "consumer-shutdown"));
        System.out.println(name + " started: " + consumer.getDefaultMQPushConsumerImpl().getmQClientFactory().getClientId());
        stopped.await();
    }

    private static void record(BufferedWriter consumed, List<MessageExt> msgs) {
        synchronized (consumed) {
            try {
                for (MessageExt m : msgs) {
                    consumed.write(new String(m.getBody(), StandardCharsets.UTF_8));
                    consumed.newLine();
                }
                consumed.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
