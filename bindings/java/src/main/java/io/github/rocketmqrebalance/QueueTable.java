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
    /** The distinct names by index, as {@link #names} joins them. */
    private final String[] nameAt;

    private QueueTable(MessageQueue[] queues, String[] nameAt, int[] topics, int[] brokers, int[] ids) {
        this.queues = queues;
        this.nameAt = nameAt;
        this.names = Joined.of(java.util.Arrays.asList(nameAt));
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
        String[] nameAt = new String[index.size()];
        for (Map.Entry<String, Integer> e : index.entrySet()) {
            nameAt[e.getValue()] = e.getKey();
        }
        return new QueueTable(queues, nameAt, topics, brokers, ids);
    }

    /** A null name cannot cross to the native side; Java would print it as "null". */
    private static String nameOf(String name) {
        return name == null ? "null" : name;
    }

    private static int intern(Map<String, Integer> index, String name) {
        String key = nameOf(name);
        Integer known = index.get(key);
        if (known != null) {
            return known;
        }
        int next = index.size();
        index.put(key, next);
        return next;
    }

    /**
     * Whether {@code mqAll} now holds the queues this table was built from, in the same order.
     * Compared by value against the table, not against the kept objects: {@code MessageQueue}
     * has setters, so an object seen before may since have changed.
     */
    boolean holds(List<MessageQueue> mqAll) {
        int n = mqAll == null ? 0 : mqAll.size();
        if (n != queues.length) {
            return false;
        }
        int i = 0;
        for (MessageQueue mq : mqAll == null ? java.util.Collections.<MessageQueue>emptyList() : mqAll) {
            if (mq == null || mq.getQueueId() != ids[i] || !nameOf(mq.getTopic()).equals(nameAt[topics[i]])
                || !nameOf(mq.getBrokerName()).equals(nameAt[brokers[i]])) {
                return false;
            }
            i++;
        }
        return true;
    }

    /**
     * The caller's queues at {@code positions}, in that order: the objects of {@code mqAll} (the
     * list this call was given, equal to the one the table was built from), as Java's originals
     * return them.
     */
    List<MessageQueue> select(int[] positions, List<MessageQueue> mqAll) {
        java.util.ArrayList<MessageQueue> out = new java.util.ArrayList<>(positions.length);
        boolean direct = mqAll instanceof java.util.RandomAccess;
        for (int p : positions) {
            out.add(direct ? mqAll.get(p) : queues[p]);
        }
        return out;
    }
}
