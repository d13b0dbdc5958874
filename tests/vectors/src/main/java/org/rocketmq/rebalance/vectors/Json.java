package org.rocketmq.rebalance.vectors;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import java.util.List;
import org.apache.rocketmq.common.message.MessageQueue;

/** JSON helpers: queues as ["topic", "broker", id], one compact object per line. */
final class Json {
    /** No HTML escaping: the vectors stay readable and byte-stable across Gson versions. */
    static final Gson GSON = new GsonBuilder().disableHtmlEscaping().serializeNulls().create();

    private Json() {
    }

    static JsonArray queue(MessageQueue mq) {
        JsonArray a = new JsonArray();
        a.add(mq.getTopic());
        a.add(mq.getBrokerName());
        a.add(mq.getQueueId());
        return a;
    }

    static JsonArray queues(List<MessageQueue> mqs) {
        JsonArray a = new JsonArray();
        for (MessageQueue mq : mqs) {
            a.add(queue(mq));
        }
        return a;
    }

    static JsonArray strings(List<String> ss) {
        JsonArray a = new JsonArray();
        for (String s : ss) {
            a.add(s);
        }
        return a;
    }
}
