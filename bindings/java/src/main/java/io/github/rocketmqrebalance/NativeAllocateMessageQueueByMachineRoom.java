package io.github.rocketmqrebalance;

import java.util.List;
import java.util.Set;

import io.github.rocketmqrebalance.internal.Json;

import org.apache.rocketmq.common.message.MessageQueue;

/**
 * {@code AllocateMessageQueueByMachineRoom} (MACHINE_ROOM), computed by the Rust core. As in the
 * original, the idc set is held by reference: changes to it show in later calls.
 */
public class NativeAllocateMessageQueueByMachineRoom extends NativeStrategy {
    private volatile Set<String> consumeridcs;

    @Override
    public List<MessageQueue> allocate(String consumerGroup, String currentCID, List<MessageQueue> mqAll, List<String> cidAll) {
        return allocateNatively(currentCID, mqAll, cidAll);
    }

    @Override
    public String getName() {
        return "MACHINE_ROOM";
    }

    public Set<String> getConsumeridcs() {
        return consumeridcs;
    }

    public void setConsumeridcs(Set<String> consumeridcs) {
        this.consumeridcs = consumeridcs;
    }

    @Override
    String configName() {
        return "by_machine_room";
    }

    @Override
    String configParams() {
        return Json.object("consume_idcs", consumeridcs);
    }

    /** The live set: compared with the registered copy (Set.equals) instead of writing JSON per call. */
    @Override
    Object configKey() {
        return consumeridcs;
    }

    @Override
    Object snapshot(Object key) {
        return key == null ? null : new java.util.HashSet<Object>((Set<?>) key);
    }
}
