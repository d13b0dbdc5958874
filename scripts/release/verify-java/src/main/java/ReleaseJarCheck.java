import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.OptionalLong;

import io.github.rocketmqrebalance.NativeAllocateMessageQueueAveragely;
import io.github.rocketmqrebalance.NativeAllocateMessageQueueAveragelyByCircle;
import io.github.rocketmqrebalance.NativeAllocateMessageQueueConsistentHash;
import io.github.rocketmqrebalance.consumer.SafeOrderlyConsumer;
import io.github.rocketmqrebalance.engine.RebalanceConfig;
import io.github.rocketmqrebalance.engine.RebalanceHost;
import io.github.rocketmqrebalance.engine.Rebalancer;
import io.github.rocketmqrebalance.engine.RoundReport;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The released jars as a user's program loads them (scripts/release/verify-java.sh): the JNI
 * library from inside the jar; three strategies against rocketmq-client's own (the oracle, in the
 * same JVM) for every client of groups of 1 to 9 clients over 1 to 40 queues on two brokers; one
 * engine round over an in-memory host; a SafeOrderlyConsumer constructed. Prints "ok ..." or the
 * first difference and exits 1.
 */
public final class ReleaseJarCheck {
    private ReleaseJarCheck() {
    }

    public static void main(String[] args) {
        AllocateMessageQueueStrategy[][] pairs = {
            {new NativeAllocateMessageQueueAveragely(), new AllocateMessageQueueAveragely()},
            {new NativeAllocateMessageQueueAveragelyByCircle(), new AllocateMessageQueueAveragelyByCircle()},
            {new NativeAllocateMessageQueueConsistentHash(), new AllocateMessageQueueConsistentHash()},
        };
        int compared = 0;
        for (AllocateMessageQueueStrategy[] pair : pairs) {
            for (int clients = 1; clients <= 9; clients += 2) {
                for (int queues = 1; queues <= 40; queues += 13) {
                    List<String> ids = ids(clients);
                    for (String id : ids) {
                        List<MessageQueue> want = pair[1].allocate("GID_release", id, queues(queues), ids);
                        List<MessageQueue> got = pair[0].allocate("GID_release", id, queues(queues), ids);
                        if (!want.equals(got)) {
                            fail(pair[1].getName() + " differs for " + id + " of " + clients + " over " + queues + " queues: Java "
                                + want + ", ours " + got);
                        }
                        compared++;
                    }
                }
            }
        }
        String clientId = ids(3).get(1);
        try (Rebalancer rebalancer = new Rebalancer(RebalanceConfig.builder("GID_release", clientId).build(),
            new NativeAllocateMessageQueueAveragely())) {
            rebalancer.subscribe("TopicA");
            RoundReport round = rebalancer.rebalanceTopic("TopicA", queues(12), ids(3), 0, new InMemoryHost());
            List<MessageQueue> want = new AllocateMessageQueueAveragely().allocate("GID_release", clientId, queues(12), ids(3));
            if (!round.allocation.equals(want) || round.acquired.size() != want.size()) {
                fail("engine round: allocation " + round.allocation + ", acquired " + round.acquired + "; Java allocates " + want);
            }
        }
        SafeOrderlyConsumer consumer = new SafeOrderlyConsumer("GID_release");
        consumer.setStrategy(new NativeAllocateMessageQueueConsistentHash());
        if (!(consumer.getStrategy() instanceof NativeAllocateMessageQueueConsistentHash)) {
            fail("SafeOrderlyConsumer kept no strategy: " + consumer.getStrategy());
        }
        System.out.println("ok " + compared + " allocations equal to rocketmq-client's, one engine round, one SafeOrderlyConsumer");
    }

    private static List<String> ids(int n) {
        List<String> ids = new ArrayList<>();
        for (int c = 0; c < n; c++) {
            ids.add("10.0.0." + c + "@" + (100 + c));
        }
        return ids;
    }

    /** {@code n} queues of TopicA, spread over two brokers, in RocketMQ's sorted order. */
    private static List<MessageQueue> queues(int n) {
        List<MessageQueue> queues = new ArrayList<>();
        for (int b = 0; b < 2; b++) {
            for (int q = 0; q < (n + 1 - b) / 2; q++) {
                queues.add(new MessageQueue("TopicA", "broker-" + b, q));
            }
        }
        return queues;
    }

    private static void fail(String why) {
        System.out.println(why);
        System.exit(1);
    }

    /** A broker that grants every lock and has every offset at 0. */
    private static final class InMemoryHost implements RebalanceHost {
        @Override
        public Collection<MessageQueue> lock(String broker, List<MessageQueue> queues) {
            return queues;
        }

        @Override
        public void unlock(String broker, List<MessageQueue> queues) {
        }

        @Override
        public OptionalLong readOffset(MessageQueue mq, boolean memoryFirst) {
            return OptionalLong.of(0);
        }

        @Override
        public void persistOffset(MessageQueue mq) {
        }

        @Override
        public void removeOffset(MessageQueue mq) {
        }

        @Override
        public long maxOffset(MessageQueue mq) {
            return 0;
        }

        @Override
        public long searchOffset(MessageQueue mq, long timestampMs) {
            return 0;
        }

        @Override
        public boolean tryConsumeLock(MessageQueue mq, long generation, long waitMs) {
            return true;
        }

        @Override
        public void releaseConsumeLock(MessageQueue mq, long generation) {
        }

        @Override
        public void dispatchPull(MessageQueue mq, long offset, long delayMs, long generation) {
        }

        @Override
        public void queueSetChanged(String topic, List<MessageQueue> all, List<MessageQueue> divided) {
        }

        @Override
        public void scheduleRebalance(long delayMs) {
        }
    }
}
