package io.github.rocketmqrebalance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByMachineRoom;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;

/**
 * A native strategy keeps its registration while its parameters stay the same; a setter call or
 * a change made inside the set it was given must still be seen on the next call, as the Java
 * original reads its field on every call.
 */
class ConfigChangeTest {
    private static final List<MessageQueue> QUEUES = new ArrayList<>();
    private static final List<String> IDS = Arrays.asList("c1", "c2");

    static {
        for (String broker : new String[] {"hz@b0", "sh@b1", "sz@b2"}) {
            for (int i = 0; i < 3; i++) {
                QUEUES.add(new MessageQueue("T", broker, i));
            }
        }
    }

    private static void sameAsJava(NativeAllocateMessageQueueByMachineRoom ours, Set<String> idcs) {
        AllocateMessageQueueByMachineRoom java = new AllocateMessageQueueByMachineRoom();
        java.setConsumeridcs(new HashSet<>(idcs));
        for (String id : IDS) {
            assertEquals(java.allocate("g", id, QUEUES, IDS), ours.allocate("g", id, QUEUES, IDS), idcs + " for " + id);
        }
    }

    @Test
    void machineRoomSeesTheSetChangedInPlaceAndReplaced() {
        NativeAllocateMessageQueueByMachineRoom ours = new NativeAllocateMessageQueueByMachineRoom();
        assertThrows(NullPointerException.class, () -> ours.allocate("g", "c1", QUEUES, IDS), "unset, as Java");
        Set<String> idcs = new HashSet<>(Arrays.asList("hz"));
        ours.setConsumeridcs(idcs);
        sameAsJava(ours, idcs);
        idcs.add("sh");
        sameAsJava(ours, idcs);
        idcs.remove("hz");
        sameAsJava(ours, idcs);
        Set<String> other = new HashSet<>(Arrays.asList("sz", "hz"));
        ours.setConsumeridcs(other);
        sameAsJava(ours, other);
        ours.setConsumeridcs(null);
        assertThrows(NullPointerException.class, () -> ours.allocate("g", "c1", QUEUES, IDS), "unset again");
    }
    /**
     * The last queue table and ids are reused while equal: a queue changed in place (MessageQueue
     * has setters) or an id list changed must be seen, and the answer holds the caller's own
     * objects of this call.
     */
    @Test
    void aRouteOrIdsChangedInPlaceAreSeenAndAnswersAreTheCallersObjects() {
        NativeAllocateMessageQueueConsistentHash ours = new NativeAllocateMessageQueueConsistentHash();
        org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash java =
            new org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash();
        List<MessageQueue> queues = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            queues.add(new MessageQueue("T", "b" + (i % 3), i));
        }
        List<String> ids = new ArrayList<>(Arrays.asList("c1", "c2", "c3"));
        for (int round = 0; round < 4; round++) {
            if (round == 1) {
                queues.get(5).setBrokerName("elsewhere");
            } else if (round == 2) {
                queues.get(7).setQueueId(99);
                ids.set(1, "c9");
            } else if (round == 3) {
                queues.get(0).setTopic("U");
            }
            for (String id : ids) {
                List<MessageQueue> mine = ours.allocate("g", id, queues, ids);
                assertEquals(java.allocate("g", id, queues, ids), mine, "round " + round + " for " + id);
                // An equal list of other objects: the answer is made of that list's objects.
                List<MessageQueue> copies = new ArrayList<>();
                for (MessageQueue q : queues) {
                    copies.add(new MessageQueue(q.getTopic(), q.getBrokerName(), q.getQueueId()));
                }
                for (MessageQueue q : ours.allocate("g", id, copies, ids)) {
                    assertTrue(copies.stream().anyMatch(c -> c == q), "not one of the caller's objects: " + q);
                }
            }
        }
    }
}
