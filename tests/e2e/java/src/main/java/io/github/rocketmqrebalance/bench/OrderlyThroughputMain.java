package io.github.rocketmqrebalance.bench;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.rocketmqrebalance.cluster.LocalCluster;
import io.github.rocketmqrebalance.cluster.Patient;
import io.github.rocketmqrebalance.consumer.SafeOrderlyConsumer;
import io.github.rocketmqrebalance.engine.RebalanceConfig;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * Orderly consumption throughput, side by side on one real NameServer and Broker in this JVM:
 * {@code SafeOrderlyConsumer} against {@code DefaultMQPushConsumer} + {@code MessageListenerOrderly},
 * both with their defaults, one consumer each, over the same messages already stored (each run a
 * fresh group from the first offset), the two sides alternating so that neither always runs on a
 * warmer JVM or broker. The listener does nothing but count. Each run's rate is messages over the
 * time from its first message to its last (the start and the first rebalance left out). The first
 * pairs of runs per queue count ({@code -Drmq.bench.warmup}, 3 by default) warm the JIT and the
 * broker up and are not counted: with one, the counted runs still rose run after run.
 * {@code OrderlyThroughputMain [messages] [runs] [queues...]} (defaults 20000, 3, 8 32); prints one
 * line per run and a table of medians with their spread (scripts/bench/orderly.sh).
 */
public final class OrderlyThroughputMain {
    private OrderlyThroughputMain() {
    }

    public static void main(String[] args) throws Exception {
        int messages = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int warmup = Integer.getInteger("rmq.bench.warmup", 3);
        List<Integer> queueCounts = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            queueCounts.add(Integer.parseInt(args[i]));
        }
        if (queueCounts.isEmpty()) {
            queueCounts.addAll(Arrays.asList(8, 32));
        }
        StringBuilder table = new StringBuilder("| queues | messages | DefaultMQPushConsumer + MessageListenerOrderly (msg/s, median) "
            + "| SafeOrderlyConsumer (msg/s, median) | SafeOrderlyConsumer / stock | stock min-max | SafeOrderlyConsumer min-max |\n"
            + "|---|---|---|---|---|---|---|\n");
        try (LocalCluster cluster = LocalCluster.start()) {
            for (int queues : queueCounts) {
                String topic = "BENCH_ORDERLY_" + queues;
                cluster.createTopic(topic, queues);
                int stored = produce(cluster, topic, queues, messages);
                List<Double> stock = new ArrayList<>();
                List<Double> safe = new ArrayList<>();
                // Runs below 0 warm the JVM and the broker up for both sides and are not counted: the
                // first runs were up to 3x slower than the later ones of the same side.
                for (int run = -warmup; run < runs; run++) {
                    // Alternate which side goes first.
                    for (int side = 0; side < 2; side++) {
                        boolean isSafe = Math.floorMod(run + side, 2) == 0;
                        String group = "GID_BENCH_" + queues + "_" + (isSafe ? "SAFE" : "STOCK") + "_" + (run + warmup);
                        double rate = isSafe ? safeRun(cluster, topic, group, stored) : stockRun(cluster, topic, group, stored);
                        if (run >= 0) {
                            (isSafe ? safe : stock).add(rate);
                        }
                        System.out.printf("queues %d run %s %-5s %.0f msg/s%n", queues, run < 0 ? "warm-up" : String.valueOf(run), isSafe ? "safe" : "stock", rate);
                    }
                }
                double s = median(stock);
                double e = median(safe);
                table.append(String.format("| %d | %d | %.0f | %.0f | %.2f | %.0f-%.0f | %.0f-%.0f |%n", queues, stored, s, e, e / s,
                    Collections.min(stock), Collections.max(stock), Collections.min(safe), Collections.max(safe)));
            }
        }
        System.out.println();
        System.out.print(table);
        System.exit(0);
    }

    /** Stores {@code messages / queues} messages in each queue; returns how many in all. */
    private static int produce(LocalCluster cluster, String topic, int queues, int messages) throws Exception {
        DefaultMQProducer producer = Patient.producer("PG_" + topic, cluster.namesrvAddr());
        producer.setInstanceName("bench-producer-" + topic);
        producer.start();
        try {
            List<MessageQueue> mqs = producer.fetchPublishMessageQueues(topic);
            int perQueue = messages / queues;
            for (MessageQueue mq : mqs) {
                for (int sent = 0; sent < perQueue; sent += 100) {
                    List<Message> batch = new ArrayList<>();
                    for (int i = sent; i < Math.min(perQueue, sent + 100); i++) {
                        batch.add(new Message(topic, ("q" + mq.getQueueId() + ":" + i).getBytes(StandardCharsets.UTF_8)));
                    }
                    producer.send(batch, mq, 30_000);
                }
            }
            return perQueue * mqs.size();
        } finally {
            producer.shutdown();
        }
    }

    /** Counts each message; the rate is taken between the first and the last. */
    private static final class Counter {
        final CountDownLatch done;
        final AtomicLong first = new AtomicLong();
        volatile long last;

        Counter(int messages) {
            done = new CountDownLatch(messages);
        }

        void count(int n) {
            long now = System.nanoTime();
            first.compareAndSet(0, now);
            for (int i = 0; i < n; i++) {
                if (done.getCount() == 1) {
                    last = now;
                }
                done.countDown();
            }
        }

        double rate(int messages) throws InterruptedException {
            if (!done.await(600, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not all " + messages + " consumed within 600 s (" + done.getCount() + " left)");
            }
            return messages / ((last - first.get()) / 1e9);
        }
    }

    private static double stockRun(LocalCluster cluster, String topic, String group, int messages) throws Exception {
        Counter counter = new Counter(messages);
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(cluster.namesrvAddr());
        c.setInstanceName(group);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "*");
        c.registerMessageListener((MessageListenerOrderly) (msgs, context) -> {
            counter.count(msgs.size());
            return ConsumeOrderlyStatus.SUCCESS;
        });
        c.start();
        try {
            return counter.rate(messages);
        } finally {
            c.shutdown();
        }
    }

    private static double safeRun(LocalCluster cluster, String topic, String group, int messages) throws Exception {
        Counter counter = new Counter(messages);
        SafeOrderlyConsumer c = new SafeOrderlyConsumer(group);
        c.setNamesrvAddr(cluster.namesrvAddr());
        c.setInstanceName(group);
        c.setConsumeFrom(RebalanceConfig.ConsumeFrom.FIRST_OFFSET);
        c.subscribe(topic);
        c.registerMessageListener((msgs, context) -> {
            counter.count(msgs.size());
            return ConsumeOrderlyStatus.SUCCESS;
        });
        c.start();
        try {
            return counter.rate(messages);
        } finally {
            c.shutdown();
        }
    }

    private static double median(List<Double> xs) {
        List<Double> sorted = new ArrayList<>(xs);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
