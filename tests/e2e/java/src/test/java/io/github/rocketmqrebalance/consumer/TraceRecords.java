package io.github.rocketmqrebalance.consumer;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import io.github.rocketmqrebalance.cluster.LocalCluster;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.trace.TraceBean;
import org.apache.rocketmq.client.trace.TraceContext;
import org.apache.rocketmq.client.trace.TraceDataEncoder;
import org.apache.rocketmq.client.trace.TraceType;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.topic.TopicValidator;
import org.apache.rocketmq.remoting.RPCHook;

/** The consume records in {@code RMQ_SYS_TRACE_TOPIC}, decoded with the client's own {@link TraceDataEncoder}. */
public final class TraceRecords {
    private TraceRecords() {
    }

    /**
     * Per group, per record type, the ids of {@code sent} the trace topic has a record for (a
     * SubAfter only when it says success); read from the topic's start (signed by {@code signing},
     * null for none) until every group's records cover every message, or 120 s.
     */
    public static Map<String, Map<TraceType, Set<String>>> read(LocalCluster cluster, RPCHook signing, Set<String> sent, String... groups) throws Exception {
        Map<String, Map<TraceType, Set<String>>> found = new TreeMap<>();
        for (String g : groups) {
            found.put(g, new TreeMap<>());
            found.get(g).put(TraceType.SubBefore, new TreeSet<>());
            found.get(g).put(TraceType.SubAfter, new TreeSet<>());
        }
        // A group of its own for each read, committing nothing, and no seek: the topic is read
        // from offset 0 because the group has no offset at the broker. A shared group may start
        // where an earlier read of the same cluster committed, and seekToBegin interrupts the first
        // pull task and races with it (seen in the log of a CI run whose read missed the SubBefore
        // records of the first 35 of 160 messages).
        long id = System.nanoTime();
        DefaultLitePullConsumer reader = new DefaultLitePullConsumer("GID_TRACE_READER_" + id, signing);
        reader.setNamesrvAddr(cluster.namesrvAddr());
        reader.setInstanceName("trace-reader-" + id);
        reader.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        reader.setAutoCommit(false);
        reader.start();
        try {
            Collection<MessageQueue> queues = reader.fetchMessageQueues(TopicValidator.RMQ_SYS_TRACE_TOPIC);
            reader.assign(queues);
            long deadline = System.currentTimeMillis() + 120_000;
            while (!complete(found, sent) && System.currentTimeMillis() < deadline) {
                for (MessageExt record : reader.poll(1_000)) {
                    for (TraceContext t : TraceDataEncoder.decoderFromTraceDataString(new String(record.getBody(), StandardCharsets.UTF_8))) {
                        Map<TraceType, Set<String>> byType = found.get(t.getGroupName());
                        if (byType == null || !byType.containsKey(t.getTraceType()) || (t.getTraceType() == TraceType.SubAfter && !t.isSuccess())) {
                            continue;
                        }
                        for (TraceBean b : t.getTraceBeans()) {
                            if (sent.contains(b.getMsgId())) {
                                byType.get(t.getTraceType()).add(b.getMsgId());
                            }
                        }
                    }
                }
            }
        } finally {
            reader.shutdown();
        }
        return found;
    }

    private static boolean complete(Map<String, Map<TraceType, Set<String>>> found, Set<String> sent) {
        return found.values().stream().allMatch(byType -> byType.values().stream().allMatch(ids -> ids.equals(sent)));
    }
}
