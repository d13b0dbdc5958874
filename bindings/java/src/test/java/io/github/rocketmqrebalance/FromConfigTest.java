package io.github.rocketmqrebalance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;

/**
 * {@link NativeStrategy#fromConfig}: a strategy named by the core's configuration alone, checked by
 * the core strictly (what the Spring starter builds from properties).
 */
class FromConfigTest {
    @Test
    void aConfigurationAllocatesAsTheJavaOriginalDoes() {
        NativeStrategy s = NativeStrategy.fromConfig("CONSISTENT_HASH", "{\"virtual_node_count\": 7}");
        List<MessageQueue> mqAll = new ArrayList<MessageQueue>();
        for (int i = 0; i < 16; i++) {
            mqAll.add(new MessageQueue("T", "broker-a", i));
        }
        List<String> cids = Arrays.asList("10.0.0.1@1", "10.0.0.2@1", "10.0.0.3@1");
        AllocateMessageQueueConsistentHash java = new AllocateMessageQueueConsistentHash(7);
        for (String cid : cids) {
            assertEquals(java.allocate("g", cid, mqAll, cids), s.allocate("g", cid, mqAll, cids), cid);
        }
        // The canonical name and parameters, whatever name the configuration used.
        assertEquals("io.github.rocketmqrebalance.ConfiguredStrategy@consistent_hash{\"virtual_node_count\":7}", s.toString());
        assertEquals("CONSISTENT_HASH", s.getName());
        assertEquals("AVG", NativeStrategy.fromConfig("averagely", null).getName());
    }

    @Test
    void whatTheCoreRefusesIsAnIllegalArgumentNamingIt() {
        String misplaced = assertThrows(IllegalArgumentException.class, () -> NativeStrategy.fromConfig("averagely", "{\"virtual_node_count\":3}")).getMessage();
        assertTrue(misplaced.contains("`virtual_node_count` is not one of its parameters"), misplaced);
        String unknown = assertThrows(IllegalArgumentException.class, () -> NativeStrategy.fromConfig("round_robin", "{}")).getMessage();
        assertTrue(unknown.contains("unknown strategy \"round_robin\""), unknown);
        String negative = assertThrows(IllegalArgumentException.class, () -> NativeStrategy.fromConfig("consistent_hash", "{\"virtual_node_count\":-1}")).getMessage();
        assertEquals("illegal virtualNodeCnt :-1", negative);
        assertThrows(IllegalArgumentException.class, () -> NativeStrategy.fromConfig("consistent_hash", "{not json"));
        assertThrows(IllegalArgumentException.class, () -> NativeStrategy.fromConfig(null, "{}"));
    }
}
