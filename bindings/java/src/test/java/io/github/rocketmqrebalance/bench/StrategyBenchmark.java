package io.github.rocketmqrebalance.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.rocketmqrebalance.NativeAllocateMachineRoomNearby;
import io.github.rocketmqrebalance.NativeAllocateMessageQueueAveragely;
import io.github.rocketmqrebalance.NativeAllocateMessageQueueAveragelyByCircle;
import io.github.rocketmqrebalance.NativeAllocateMessageQueueByMachineRoom;
import io.github.rocketmqrebalance.NativeAllocateMessageQueueConsistentHash;
import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMachineRoomNearby;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByMachineRoom;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash;
import org.apache.rocketmq.common.message.MessageQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One member's allocation: each native class against its Java original, same JVM, same inputs
 * (sorted lists, as RebalanceImpl passes them). Run with scripts/bench/java.sh.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class StrategyBenchmark {
    @Param({"16x4", "1000x100", "100000x1000"})
    public String size;

    @Param({"AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "MACHINE_ROOM_NEARBY", "MACHINE_ROOM"})
    public String strategy;

    /**
     * "md5_of_keys" is the baseline, the same for every strategy: the JVM's own MD5
     * (MessageDigest, one instance reused as Java's MD5Hash does) over every queue's toString(),
     * the work consistent hash cannot avoid. Run it with -p strategy=CONSISTENT_HASH.
     */
    @Param({"java", "native", "md5_of_keys"})
    public String impl;

    AllocateMessageQueueStrategy subject;
    List<MessageQueue> queues;
    List<String> ids;
    String current;

    @Setup
    public void setup() {
        String[] parts = size.split("x");
        int q = Integer.parseInt(parts[0]);
        int c = Integer.parseInt(parts[1]);
        queues = new ArrayList<>();
        String[] rooms = {"hz", "sh"};
        for (int i = 0; i < q; i++) {
            String room = rooms[i % 2];
            // MACHINE_ROOM reads "idc@broker"; the others ignore the form.
            queues.add(new MessageQueue("TopicBench", room + "@broker-" + (i % 8), i / 8));
        }
        Collections.sort(queues);
        ids = new ArrayList<>();
        for (int i = 0; i < c; i++) {
            ids.add(rooms[i % 2] + "@10.0." + (i / 250) + "." + (i % 250) + "@" + (1000 + i));
        }
        Collections.sort(ids);
        current = ids.get(ids.size() / 2);
        if (impl.equals("md5_of_keys")) {
            subject = new Md5OfKeys();
            return;
        }
        boolean nat = impl.equals("native");
        AllocateMachineRoomNearby.MachineRoomResolver resolver = new AllocateMachineRoomNearby.MachineRoomResolver() {
            @Override
            public String brokerDeployIn(MessageQueue mq) {
                return mq.getBrokerName().substring(0, mq.getBrokerName().indexOf('@'));
            }

            @Override
            public String consumerDeployIn(String clientID) {
                return clientID.substring(0, clientID.indexOf('@'));
            }
        };
        switch (strategy) {
            case "AVG":
                subject = nat ? new NativeAllocateMessageQueueAveragely() : new AllocateMessageQueueAveragely();
                break;
            case "AVG_BY_CIRCLE":
                subject = nat ? new NativeAllocateMessageQueueAveragelyByCircle() : new AllocateMessageQueueAveragelyByCircle();
                break;
            case "CONSISTENT_HASH":
                subject = nat ? new NativeAllocateMessageQueueConsistentHash() : new AllocateMessageQueueConsistentHash();
                break;
            case "MACHINE_ROOM_NEARBY":
                subject = nat ? new NativeAllocateMachineRoomNearby(new NativeAllocateMessageQueueAveragely(), resolver)
                    : new AllocateMachineRoomNearby(new AllocateMessageQueueAveragely(), resolver);
                break;
            case "MACHINE_ROOM": {
                java.util.Set<String> idcs = new java.util.HashSet<>(java.util.Arrays.asList("hz", "sh"));
                if (nat) {
                    NativeAllocateMessageQueueByMachineRoom s = new NativeAllocateMessageQueueByMachineRoom();
                    s.setConsumeridcs(idcs);
                    subject = s;
                } else {
                    AllocateMessageQueueByMachineRoom s = new AllocateMessageQueueByMachineRoom();
                    s.setConsumeridcs(idcs);
                    subject = s;
                }
                break;
            }
            default:
                throw new IllegalArgumentException(strategy);
        }
    }

    /** Hashes every key like ConsistentHashRouter does for queues, keeps the first four bytes. */
    static final class Md5OfKeys implements AllocateMessageQueueStrategy {
        private final java.security.MessageDigest md5;
        int sink;

        Md5OfKeys() {
            try {
                md5 = java.security.MessageDigest.getInstance("MD5");
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public List<MessageQueue> allocate(String group, String currentCID, List<MessageQueue> mqAll, List<String> cidAll) {
            for (MessageQueue mq : mqAll) {
                md5.reset();
                byte[] d = md5.digest(mq.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                sink ^= (d[0] & 0xFF) << 24 | (d[1] & 0xFF) << 16 | (d[2] & 0xFF) << 8 | (d[3] & 0xFF);
            }
            return Collections.emptyList();
        }

        @Override
        public String getName() {
            return "MD5_OF_KEYS";
        }
    }

    @Benchmark
    public List<MessageQueue> allocate() {
        return subject.allocate("GID_bench", current, queues, ids);
    }
}
