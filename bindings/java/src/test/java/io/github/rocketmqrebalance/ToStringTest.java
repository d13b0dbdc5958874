package io.github.rocketmqrebalance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * What admin tools show as a consumer's allocateMessageQueueStrategy: the class before the
 * {@code @} (as Java's default toString has it), then the core's name and parameters, which
 * {@code rmq-rebalance inspect} reads back (core/src/diagnose, tested with this form).
 */
class ToStringTest {
    @Test
    void theClassThenTheCoresNameAndParameters() {
        assertEquals("io.github.rocketmqrebalance.NativeAllocateMessageQueueConsistentHash@consistent_hash{\"virtual_node_count\":20}",
            new NativeAllocateMessageQueueConsistentHash(20).toString());
        assertEquals("io.github.rocketmqrebalance.NativeAllocateMessageQueueAveragelyByCircle@circle{}",
            new NativeAllocateMessageQueueAveragelyByCircle().toString());
        String avg = new NativeAllocateMessageQueueAveragely().toString();
        assertTrue(avg.startsWith(NativeAllocateMessageQueueAveragely.class.getName() + "@averagely{"), avg);
    }
}
