package io.github.rocketmqrebalance;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMachineRoomNearby;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByConfig;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByMachineRoom;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash;
import org.apache.rocketmq.common.message.MessageQueue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/** A Java original and its native counterpart, built from the vectors' strategy configuration. */
final class Pairs {
    final AllocateMessageQueueStrategy original;
    final AllocateMessageQueueStrategy nativeOne;
    /** CONFIG (also inside MACHINE_ROOM_NEARBY) answers with its configured queues, not the caller's. */
    final boolean returnsCallersQueues;

    private Pairs(AllocateMessageQueueStrategy original, AllocateMessageQueueStrategy nativeOne) {
        this(original, nativeOne, true);
    }

    private Pairs(AllocateMessageQueueStrategy original, AllocateMessageQueueStrategy nativeOne, boolean returnsCallersQueues) {
        this.original = original;
        this.nativeOne = nativeOne;
        this.returnsCallersQueues = returnsCallersQueues;
    }

    /** The resolver the vectors use: the room is the part of a name before the first separator. */
    static AllocateMachineRoomNearby.MachineRoomResolver separators(String brokerSep, String consumerSep) {
        return new AllocateMachineRoomNearby.MachineRoomResolver() {
            @Override
            public String brokerDeployIn(MessageQueue mq) {
                return prefix(mq.getBrokerName(), brokerSep);
            }

            @Override
            public String consumerDeployIn(String clientID) {
                return prefix(clientID, consumerSep);
            }
        };
    }

    static String prefix(String name, String sep) {
        int at = name.indexOf(sep);
        return at < 0 ? name : name.substring(0, at);
    }

    /** Both strategies for a configuration; null when the original's constructor throws (checked separately). */
    static Pairs of(String name, JsonObject p) {
        switch (name) {
            case "averagely":
                return new Pairs(new AllocateMessageQueueAveragely(), new NativeAllocateMessageQueueAveragely());
            case "circle":
                return new Pairs(new AllocateMessageQueueAveragelyByCircle(), new NativeAllocateMessageQueueAveragelyByCircle());
            case "consistent_hash": {
                JsonElement n = p.get("virtual_node_count");
                if (n == null || n.isJsonNull()) {
                    return new Pairs(new AllocateMessageQueueConsistentHash(), new NativeAllocateMessageQueueConsistentHash());
                }
                // Native first: when the count is illegal, it is the native constructor that must throw.
                NativeAllocateMessageQueueConsistentHash nativeOne = new NativeAllocateMessageQueueConsistentHash(n.getAsInt());
                return new Pairs(new AllocateMessageQueueConsistentHash(n.getAsInt()), nativeOne);
            }
            case "machine_room_nearby": {
                JsonObject innerParams = p.has("inner_params") && !p.get("inner_params").isJsonNull() ? p.getAsJsonObject("inner_params") : new JsonObject();
                Pairs inner = of(p.get("inner").getAsString(), innerParams);
                String b = p.has("broker_room_sep") ? p.get("broker_room_sep").getAsString() : "-";
                String c = p.has("consumer_room_sep") ? p.get("consumer_room_sep").getAsString() : "@";
                return new Pairs(new AllocateMachineRoomNearby(inner.original, separators(b, c)),
                    new NativeAllocateMachineRoomNearby(inner.nativeOne, separators(b, c)), inner.returnsCallersQueues);
            }
            case "by_machine_room": {
                AllocateMessageQueueByMachineRoom o = new AllocateMessageQueueByMachineRoom();
                NativeAllocateMessageQueueByMachineRoom n = new NativeAllocateMessageQueueByMachineRoom();
                JsonElement idcs = p.get("consume_idcs");
                if (idcs != null && !idcs.isJsonNull()) {
                    HashSet<String> set = new HashSet<>();
                    idcs.getAsJsonArray().forEach(e -> set.add(e.getAsString()));
                    o.setConsumeridcs(set);
                    n.setConsumeridcs(set);
                }
                return new Pairs(o, n);
            }
            case "by_config": {
                AllocateMessageQueueByConfig o = new AllocateMessageQueueByConfig();
                NativeAllocateMessageQueueByConfig n = new NativeAllocateMessageQueueByConfig();
                List<MessageQueue> list = queues(p.get("config"));
                o.setMessageQueueList(list);
                n.setMessageQueueList(list);
                return new Pairs(o, n, false);
            }
            default:
                throw new IllegalArgumentException("unknown strategy " + name);
        }
    }

    static List<MessageQueue> queues(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return null;
        }
        List<MessageQueue> out = new ArrayList<>();
        e.getAsJsonArray().forEach(q -> out.add(new MessageQueue(q.getAsJsonArray().get(0).getAsString(),
            q.getAsJsonArray().get(1).getAsString(), q.getAsJsonArray().get(2).getAsInt())));
        return out;
    }

    static List<String> strings(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return null;
        }
        List<String> out = new ArrayList<>();
        e.getAsJsonArray().forEach(s -> out.add(s.getAsString()));
        return out;
    }

    /** What a call did: a result or an exception class, comparable across the two strategies. */
    static String outcome(AllocateMessageQueueStrategy s, String group, String current, List<MessageQueue> mqAll, List<String> cidAll) {
        try {
            List<MessageQueue> r = s.allocate(group, current, mqAll, cidAll);
            return r == null ? "null" : r.toString();
        } catch (RuntimeException e) {
            return "throws " + e.getClass().getName();
        }
    }

    /** Null when both agree (and the native result holds the caller's own objects), else why not. */
    String disagreement(String group, String current, List<MessageQueue> mqAll, List<String> cidAll) {
        String expected = outcome(original, group, current, mqAll, cidAll);
        String actual = outcome(nativeOne, group, current, mqAll, cidAll);
        if (!expected.equals(actual)) {
            return "original: " + expected + "\nnative:   " + actual;
        }
        if (returnsCallersQueues && mqAll != null && !actual.startsWith("throws")) {
            List<MessageQueue> r = nativeOne.allocate(group, current, mqAll, cidAll);
            for (MessageQueue q : r) {
                if (mqAll.stream().noneMatch(x -> x == q)) {
                    return "native result holds a queue that is not one of the caller's objects: " + q;
                }
            }
        }
        return null;
    }
}
