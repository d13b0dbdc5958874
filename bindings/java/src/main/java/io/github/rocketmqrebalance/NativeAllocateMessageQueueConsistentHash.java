package io.github.rocketmqrebalance;

import java.util.List;

import io.github.rocketmqrebalance.internal.Json;

import org.apache.rocketmq.common.message.MessageQueue;

/**
 * {@code AllocateMessageQueueConsistentHash} (CONSISTENT_HASH) with its MD5 ring, computed by the
 * Rust core, which keeps the ring between calls while the id list is unchanged.
 */
public class NativeAllocateMessageQueueConsistentHash extends NativeStrategy {
    private final int virtualNodeCnt;
    private final String params;

    /** Ten virtual nodes per client, as the original's default. */
    public NativeAllocateMessageQueueConsistentHash() {
        this(10);
    }

    /** @throws IllegalArgumentException for a negative count, as the original does */
    public NativeAllocateMessageQueueConsistentHash(int virtualNodeCnt) {
        this.virtualNodeCnt = virtualNodeCnt;
        this.params = Json.object("virtual_node_count", virtualNodeCnt);
        strategyId(); // the core checks the count (one rule for every binding) and throws as Java does
    }

    public int getVirtualNodeCnt() {
        return virtualNodeCnt;
    }

    @Override
    public List<MessageQueue> allocate(String consumerGroup, String currentCID, List<MessageQueue> mqAll, List<String> cidAll) {
        return allocateNatively(currentCID, mqAll, cidAll);
    }

    @Override
    public String getName() {
        return "CONSISTENT_HASH";
    }

    @Override
    String configName() {
        return "consistent_hash";
    }

    @Override
    String configParams() {
        return params;
    }
}
