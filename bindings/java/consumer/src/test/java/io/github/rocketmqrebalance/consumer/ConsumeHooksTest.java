package io.github.rocketmqrebalance.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import org.apache.rocketmq.client.AccessChannel;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeReturnType;
import org.apache.rocketmq.client.hook.ConsumeMessageContext;
import org.apache.rocketmq.client.hook.ConsumeMessageHook;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;

/**
 * The hooks' contexts as Java's orderly push consumer fills them (read from its
 * {@code ConsumeMessageOrderlyService}): the return type by its rules and order, the status with a
 * throw or null as a suspension, and a throwing hook not keeping the next one from running.
 */
class ConsumeHooksTest {
    private static final MessageQueue MQ = new MessageQueue("T", "broker-a", 3);

    /** Records what each call showed it: "before:<group>:<namespace>:<queueId>:<n>:<success>", "after:<status>:<type>:<success>:<channel>". */
    private static final class Recording implements ConsumeMessageHook {
        final List<String> seen = new ArrayList<>();

        @Override
        public String hookName() {
            return "recording";
        }

        @Override
        public void consumeMessageBefore(ConsumeMessageContext c) {
            seen.add("before:" + c.getConsumerGroup() + ":" + c.getNamespace() + ":" + c.getMq().getQueueId() + ":" + c.getMsgList().size() + ":" + c.isSuccess());
        }

        @Override
        public void consumeMessageAfter(ConsumeMessageContext c) {
            seen.add("after:" + c.getStatus() + ":" + c.getProps().get(MixAll.CONSUME_CONTEXT_TYPE) + ":" + c.isSuccess() + ":" + channelOf(c));
        }
    }

    /** The context's access channel, read as the hook of a client that has the getter would ("null" before 5.1.4). */
    private static String channelOf(ConsumeMessageContext c) {
        try {
            return String.valueOf(ConsumeMessageContext.class.getMethod("getAccessChannel").invoke(c));
        } catch (ReflectiveOperationException before514) {
            return "null";
        }
    }

    /** Throws at both points. */
    private static final class Throwing implements ConsumeMessageHook {
        @Override
        public String hookName() {
            return "throwing";
        }

        @Override
        public void consumeMessageBefore(ConsumeMessageContext c) {
            throw new IllegalStateException("before (test)");
        }

        @Override
        public void consumeMessageAfter(ConsumeMessageContext c) {
            throw new IllegalStateException("after (test)");
        }
    }

    @Test
    void eachCallIsSeenBeforeAndAfterAsJavasOrderlyConsumerShowsIt() {
        Recording recording = new Recording();
        ConsumeHooks hooks = new ConsumeHooks(Arrays.asList(new Throwing(), recording), "NS_A%GID_HOOKS", "NS_A", AccessChannel.LOCAL);
        List<MessageExt> two = Arrays.asList(new MessageExt(), new MessageExt());
        ConsumeMessageContext ok = hooks.before(MQ, two);
        hooks.after(ok, ConsumeOrderlyStatus.SUCCESS, false, 5);
        ConsumeMessageContext suspended = hooks.before(MQ, two);
        hooks.after(suspended, ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT, false, 5);
        ConsumeMessageContext threw = hooks.before(MQ, two);
        hooks.after(threw, null, true, 5);
        // 5.1.0's contexts have no access channel (its own consumer sets none); later ones carry it.
        String channel = ConsumeHooks.reportsAccessChannel() ? "LOCAL" : "null";
        assertEquals(Arrays.asList(
            "before:NS_A%GID_HOOKS:NS_A:3:2:false", "after:SUCCESS:SUCCESS:true:" + channel,
            "before:NS_A%GID_HOOKS:NS_A:3:2:false", "after:SUSPEND_CURRENT_QUEUE_A_MOMENT:FAILED:false:" + channel,
            "before:NS_A%GID_HOOKS:NS_A:3:2:false", "after:SUSPEND_CURRENT_QUEUE_A_MOMENT:EXCEPTION:false:" + channel), recording.seen);
        assertSame(two, ok.getMsgList());
    }

    @Test
    void theReturnTypeFollowsJavasRulesInTheirOrder() {
        assertEquals(ConsumeReturnType.EXCEPTION, ConsumeHooks.returnType(null, true, 0));
        assertEquals(ConsumeReturnType.RETURNNULL, ConsumeHooks.returnType(null, false, 0));
        // Past the push consumer's 15-minute consume timeout, even a success is TIME_OUT; a null is not.
        assertEquals(ConsumeReturnType.TIME_OUT, ConsumeHooks.returnType(ConsumeOrderlyStatus.SUCCESS, false, ConsumeHooks.CONSUME_TIMEOUT_MS));
        assertEquals(ConsumeReturnType.EXCEPTION, ConsumeHooks.returnType(null, true, ConsumeHooks.CONSUME_TIMEOUT_MS));
        assertEquals(ConsumeReturnType.FAILED, ConsumeHooks.returnType(ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT, false, 0));
        assertEquals(ConsumeReturnType.SUCCESS, ConsumeHooks.returnType(ConsumeOrderlyStatus.SUCCESS, false, 0));
    }

    @Test
    void withoutHooksNoContextIsBuilt() {
        ConsumeHooks none = new ConsumeHooks(Collections.emptyList(), "GID_HOOKS", null, AccessChannel.LOCAL);
        ConsumeMessageContext c = none.before(MQ, Collections.singletonList(new MessageExt()));
        assertNull(c);
        none.after(null, ConsumeOrderlyStatus.SUCCESS, false, 0); // nothing to tell, nothing thrown
    }
}
