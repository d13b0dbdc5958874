package io.github.rocketmqrebalance;

import java.util.List;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMachineRoomNearby;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * {@code AllocateMachineRoomNearby} (MACHINE_ROOM_NEARBY-&lt;inner&gt;): queues go to consumers in the
 * same machine room; rooms without consumers are shared by everyone.
 *
 * <p>Every room comes from your Java {@code MachineRoomResolver}, one call per queue and per client
 * id, and grouping by room is a map lookup per answer: that part stays in Java, in the original's
 * own code (this class runs {@code AllocateMachineRoomNearby} around the inner strategy), so the
 * resolver is called exactly as before and its exceptions propagate unchanged. The work worth
 * moving is the inner strategy's: give a {@code Native*} inner strategy and it runs natively. It is
 * not a {@link NativeStrategy}: its rooms come from a Java resolver, which the engine (computing in
 * Rust) cannot call.
 * (Moving the grouping across JNI as well was measured: marshalling every room cost more than the
 * grouping itself, 3x the original at 1,000 queues.)
 */
public class NativeAllocateMachineRoomNearby implements AllocateMessageQueueStrategy {
    private final AllocateMessageQueueStrategy allocateMessageQueueStrategy;
    private final AllocateMachineRoomNearby.MachineRoomResolver machineRoomResolver;
    private final AllocateMachineRoomNearby delegate;

    /** @throws NullPointerException for a null argument, as the original does */
    public NativeAllocateMachineRoomNearby(AllocateMessageQueueStrategy allocateMessageQueueStrategy,
                                           AllocateMachineRoomNearby.MachineRoomResolver machineRoomResolver) {
        this.delegate = new AllocateMachineRoomNearby(allocateMessageQueueStrategy, machineRoomResolver);
        this.allocateMessageQueueStrategy = allocateMessageQueueStrategy;
        this.machineRoomResolver = machineRoomResolver;
    }

    @Override
    public List<MessageQueue> allocate(String consumerGroup, String currentCID, List<MessageQueue> mqAll, List<String> cidAll) {
        return delegate.allocate(consumerGroup, currentCID, mqAll, cidAll);
    }

    @Override
    public String getName() {
        return "MACHINE_ROOM_NEARBY" + "-" + allocateMessageQueueStrategy.getName();
    }

    public AllocateMessageQueueStrategy getAllocateMessageQueueStrategy() {
        return allocateMessageQueueStrategy;
    }

    public AllocateMachineRoomNearby.MachineRoomResolver getMachineRoomResolver() {
        return machineRoomResolver;
    }
}
