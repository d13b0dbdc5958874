package org.rocketmq.rebalance.vectors;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
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

/**
 * Answers one case of the batch format with the real rocketmq-client classes: the reference every
 * other implementation is compared with. The answer has the same shape as `rmq-rebalance allocate
 * --cases`: {"id", "result"} or {"id", "error": "SimpleName: message"}.
 */
final class Oracle {
    private Oracle() {
    }

    static JsonObject answer(JsonObject c) {
        JsonObject out = new JsonObject();
        out.add("id", c.has("id") ? c.get("id") : JsonNull.INSTANCE);
        try {
            AllocateMessageQueueStrategy s = build(str(c, "strategy"), obj(c, "params"));
            List<MessageQueue> result = s.allocate(str(c, "group"), str(c, "current"), queues(c.get("mq_all")), strings(c.get("cid_all")));
            out.add("result", result == null ? JsonNull.INSTANCE : Json.queues(result));
        } catch (RuntimeException e) {
            out.addProperty("error", e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        return out;
    }

    static AllocateMessageQueueStrategy build(String name, JsonObject p) {
        switch (name) {
            case "averagely":
                return new AllocateMessageQueueAveragely();
            case "circle":
                return new AllocateMessageQueueAveragelyByCircle();
            case "consistent_hash":
                return p.has("virtual_node_count") && !p.get("virtual_node_count").isJsonNull()
                    ? new AllocateMessageQueueConsistentHash(p.get("virtual_node_count").getAsInt())
                    : new AllocateMessageQueueConsistentHash();
            case "machine_room_nearby": {
                AllocateMessageQueueStrategy inner = build(str(p, "inner"), obj(p, "inner_params"));
                String brokerSep = p.has("broker_room_sep") ? str(p, "broker_room_sep") : "-";
                String consumerSep = p.has("consumer_room_sep") ? str(p, "consumer_room_sep") : "@";
                return new AllocateMachineRoomNearby(inner, new AllocateMachineRoomNearby.MachineRoomResolver() {
                    @Override
                    public String brokerDeployIn(MessageQueue mq) {
                        return prefix(mq.getBrokerName(), brokerSep);
                    }

                    @Override
                    public String consumerDeployIn(String clientID) {
                        return prefix(clientID, consumerSep);
                    }
                });
            }
            case "by_machine_room": {
                AllocateMessageQueueByMachineRoom s = new AllocateMessageQueueByMachineRoom();
                List<String> idcs = strings(p.get("consume_idcs"));
                s.setConsumeridcs(idcs == null ? null : new HashSet<>(idcs));
                return s;
            }
            case "by_config": {
                AllocateMessageQueueByConfig s = new AllocateMessageQueueByConfig();
                s.setMessageQueueList(queues(p.get("config")));
                return s;
            }
            default:
                throw new IllegalStateException("generator bug: unknown strategy " + name);
        }
    }

    /** The shipped separator resolver's rule: the part before the first separator, or all. */
    static String prefix(String name, String sep) {
        int at = name.indexOf(sep);
        return at < 0 ? name : name.substring(0, at);
    }

    static String str(JsonObject o, String key) {
        JsonElement e = o.get(key);
        return e == null || e.isJsonNull() ? null : e.getAsString();
    }

    static JsonObject obj(JsonObject o, String key) {
        JsonElement e = o.get(key);
        return e == null || e.isJsonNull() ? new JsonObject() : e.getAsJsonObject();
    }

    static List<MessageQueue> queues(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return null;
        }
        List<MessageQueue> out = new ArrayList<>();
        for (JsonElement q : e.getAsJsonArray()) {
            JsonArray a = q.getAsJsonArray();
            out.add(new MessageQueue(a.get(0).getAsString(), a.get(1).getAsString(), a.get(2).getAsInt()));
        }
        return out;
    }

    static List<String> strings(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return null;
        }
        List<String> out = new ArrayList<>();
        for (JsonElement s : e.getAsJsonArray()) {
            out.add(s.getAsString());
        }
        return out;
    }

}
