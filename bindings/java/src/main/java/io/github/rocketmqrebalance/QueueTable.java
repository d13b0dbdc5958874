package io.github.rocketmqrebalance;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.common.message.MessageQueue;

/**
 * A queue list as the native side reads it: each distinct topic and broker name once, plus one
 * int per queue for each field. The caller's own {@code MessageQueue} objects stay here, so an
 * answer (positions) maps back to them.
 */
final class QueueTable {
    final MessageQueue[] queues;
    final Joined names;
    final int[] topics;
    final int[] brokers;
    final int[] ids;

    private QueueTable(MessageQueue[] queues, Joined names, int[] topics, int[] brokers, int[] ids) {
        this.queues = queues;
        this.names = names;
        this.topics = topics;
        this.brokers = brokers;
        this.ids = ids;
    }

    /** Java's null list is an empty table (the native checks treat both as Java does). */
    static QueueTable of(List<MessageQueue> mqAll) {
        int n = mqAll == null ? 0 : mqAll.size();
        MessageQueue[] queues = new MessageQueue[n];
        int[] topics = new int[n];
        int[] brokers = new int[n];
        int[] ids = new int[n];
        Map<String, Integer> index = new HashMap<>();
        int i = 0;
        // Sorted lists keep a topic's and a broker's queues together, usually sharing one String
        // object: the previous queue's names are checked by identity before the map.
        String lastTopic = null;
        String lastBroker = null;
        int topic = -1;
        int broker = -1;
        if (mqAll != null) {
            for (MessageQueue mq : mqAll) {
                queues[i] = mq;
                if (mq.getTopic() != lastTopic || topic < 0) {
                    lastTopic = mq.getTopic();
                    topic = intern(index, lastTopic);
                }
                if (mq.getBrokerName() != lastBroker || broker < 0) {
                    lastBroker = mq.getBrokerName();
                    broker = intern(index, lastBroker);
                }
                topics[i] = topic;
                brokers[i] = broker;
                ids[i] = mq.getQueueId();
                i++;
            }
        }
        return new QueueTable(queues, Joined.of(index), topics, brokers, ids);
    }

    private static int intern(Map<String, Integer> index, String name) {
        // A null name cannot cross to the native side; Java would print it as "null".
        String key = name == null ? "null" : name;
        Integer known = index.get(key);
        if (known != null) {
            return known;
        }
        int next = index.size();
        index.put(key, next);
        return next;
    }

    /** The caller's queues at {@code positions}, in that order. */
    List<MessageQueue> select(int[] positions) {
        java.util.ArrayList<MessageQueue> out = new java.util.ArrayList<>(positions.length);
        for (int p : positions) {
            out.add(queues[p]);
        }
        return out;
    }
}
