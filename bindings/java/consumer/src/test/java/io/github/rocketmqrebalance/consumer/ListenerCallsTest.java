package io.github.rocketmqrebalance.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.rocketmq.common.message.MessageAccessor;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;

/**
 * When the listener's position lies below the broker's minimum offset (the messages there
 * expired), the listener goes on from that minimum instead of fetching the vanished messages again
 * for ever; anything else leaves the position where it is. The minimum is what the broker's pull
 * answer carries, put on each message as {@code MIN_OFFSET} by the client's decoding.
 */
class ListenerCallsTest {
    private static MessageExt at(long offset, String minOffset) {
        MessageExt m = new MessageExt();
        m.setQueueOffset(offset);
        if (minOffset != null) {
            MessageAccessor.putProperty(m, MessageConst.PROPERTY_MIN_OFFSET, minOffset);
        }
        return m;
    }

    @Test
    void expiredMessagesBelowTheBrokersMinimumAreSkippedUpToIt() {
        // Listener at 10, the broker's messages begin at 40, the answer's first message is 40.
        assertEquals(40, ListenerCalls.expiredUpTo(at(40, "40"), 10));
        // A minimum past the message at hand cannot be right: never skip the message itself.
        assertEquals(45, ListenerCalls.expiredUpTo(at(45, "50"), 10));
    }

    @Test
    void aGapOfMessagesTheBrokerStillHasIsNotSkipped() {
        // Messages 10..44 still exist (minimum 0): the gap is fetched again, not skipped.
        assertEquals(10, ListenerCalls.expiredUpTo(at(45, "0"), 10));
        assertEquals(10, ListenerCalls.expiredUpTo(at(45, "10"), 10));
    }

    @Test
    void noMinimumOrAnUnreadableOneLeavesThePosition() {
        assertEquals(10, ListenerCalls.expiredUpTo(at(45, null), 10));
        assertEquals(10, ListenerCalls.expiredUpTo(at(45, "forty"), 10));
    }
}
