package io.github.rocketmqrebalance;

import java.util.ArrayList;
import java.util.List;

import io.github.rocketmqrebalance.internal.Native;
import io.github.rocketmqrebalance.internal.Json;

import org.apache.rocketmq.common.message.MessageQueue;

/**
 * {@code AllocateMessageQueueAveragely} (AVG), computed by the Rust core: the same queues, the
 * caller's own {@code MessageQueue} objects, the same exceptions. Only the sizes of the lists and
 * the current id's position cross to native code.
 */
public class NativeAllocateMessageQueueAveragely extends NativeStrategy {
    /** The native side encodes the share as a stride of three 21-bit fields. */
    private static final int STRIDE_LIMIT = 1 << 21;
    private static final long MASK = STRIDE_LIMIT - 1;

    @Override
    public List<MessageQueue> allocate(String consumerGroup, String currentCID, List<MessageQueue> mqAll, List<String> cidAll) {
        return byCounts(strategyId(), currentCID, mqAll, cidAll);
    }

    /** A count strategy (the core says which: AVG or AVG_BY_CIRCLE) over Java's arguments. */
    static List<MessageQueue> byCounts(int strategy, String currentCID, List<MessageQueue> mqAll, List<String> cidAll) {
        boolean currentEmpty = currentCID == null || currentCID.isEmpty();
        int queues = mqAll == null ? 0 : mqAll.size();
        int ids = cidAll == null ? 0 : cidAll.size();
        int index = ids == 0 || currentEmpty ? -1 : cidAll.indexOf(currentCID);
        if (queues >= STRIDE_LIMIT || ids >= STRIDE_LIMIT) {
            throw new IllegalArgumentException("more than " + (STRIDE_LIMIT - 1) + " queues or client ids");
        }
        long stride = Native.allocateByCounts(strategy, currentEmpty, queues, ids, index);
        int start = (int) (stride & MASK);
        int end = (int) ((stride >>> 21) & MASK);
        int step = (int) ((stride >>> 42) & MASK);
        List<MessageQueue> result = new ArrayList<>(end > start ? (end - start + step - 1) / step : 0);
        for (int p = start; p < end; p += step) {
            result.add(mqAll.get(p));
        }
        return result;
    }

    @Override
    public String getName() {
        return "AVG";
    }

    @Override
    String configName() {
        return "averagely";
    }

    @Override
    String configParams() {
        return Json.object();
    }
}
