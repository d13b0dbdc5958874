package io.github.rocketmqrebalance.consumer;

import java.util.HashMap;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.apache.rocketmq.client.AccessChannel;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeReturnType;
import org.apache.rocketmq.client.hook.ConsumeMessageContext;
import org.apache.rocketmq.client.hook.ConsumeMessageHook;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The consume hooks around every listener call, filled as Java's orderly push consumer fills them
 * ({@code ConsumeMessageOrderlyService}): before the call the group, the queue, the messages and
 * {@code success=false}; after it the return type in the props under
 * {@code ConsumeContextType} ({@code SUCCESS}, {@code FAILED} for a suspension, {@code EXCEPTION},
 * {@code RETURNNULL}, {@code TIME_OUT} past the push consumer's 15 minutes), the status (a throw or
 * null counted as {@code SUSPEND_CURRENT_QUEUE_A_MOMENT}), success and the access channel. This is
 * how message tracing ({@code ConsumeMessageTraceHookImpl}), metrics and OpenTelemetry's RocketMQ
 * instrumentation attach. A hook that throws is logged and the others still run, as in Java.
 */
final class ConsumeHooks {
    private static final Logger LOG = Logger.getLogger(ConsumeHooks.class.getName());
    /** The push consumer's {@code consumeTimeout} default, 15 minutes: a call this long is reported TIME_OUT. */
    static final long CONSUME_TIMEOUT_MS = 15 * 60 * 1000L;

    private final List<ConsumeMessageHook> hooks;
    private final String group;
    private final String namespace;
    private final AccessChannel accessChannel;

    /** For {@code group} as the broker knows it, within {@code namespace} (null: none), as the push consumer's context says them. */
    ConsumeHooks(List<ConsumeMessageHook> hooks, String group, String namespace, AccessChannel accessChannel) {
        this.hooks = hooks;
        this.group = group;
        this.namespace = namespace;
        this.accessChannel = accessChannel;
    }

    /** The context every hook saw before the call, or null when there is no hook. */
    ConsumeMessageContext before(MessageQueue mq, List<MessageExt> messages) {
        if (hooks.isEmpty()) {
            return null;
        }
        ConsumeMessageContext context = new ConsumeMessageContext();
        context.setConsumerGroup(group);
        context.setNamespace(namespace);
        context.setMq(mq);
        context.setMsgList(messages);
        context.setSuccess(false);
        context.setProps(new HashMap<>());
        for (ConsumeMessageHook hook : hooks) {
            try {
                hook.consumeMessageBefore(context);
            } catch (Throwable t) {
                LOG.log(Level.WARNING, "consume hook " + hook.hookName() + " failed before a call", t);
            }
        }
        return context;
    }

    /** After the call: {@code status} as the listener returned it (null when it threw or returned null). */
    void after(ConsumeMessageContext context, ConsumeOrderlyStatus status, boolean threw, long callMs) {
        if (context == null) {
            return;
        }
        context.getProps().put(MixAll.CONSUME_CONTEXT_TYPE, returnType(status, threw, callMs).name());
        ConsumeOrderlyStatus reported = status == null ? ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT : status;
        context.setStatus(reported.toString());
        context.setSuccess(isSuccess(reported));
        setAccessChannel(context, accessChannel);
        for (ConsumeMessageHook hook : hooks) {
            try {
                hook.consumeMessageAfter(context);
            } catch (Throwable t) {
                LOG.log(Level.WARNING, "consume hook " + hook.hookName() + " failed after a call", t);
            }
        }
    }

    /** {@code ConsumeMessageContext.setAccessChannel}, which clients before 5.1.4 lack (their consumers do not set it either). */
    private static final java.lang.reflect.Method SET_ACCESS_CHANNEL = accessChannelSetter();

    private static java.lang.reflect.Method accessChannelSetter() {
        try {
            return ConsumeMessageContext.class.getMethod("setAccessChannel", AccessChannel.class);
        } catch (NoSuchMethodException before52) {
            return null;
        }
    }

    /** Whether this client's hook contexts carry the access channel. */
    static boolean reportsAccessChannel() {
        return SET_ACCESS_CHANNEL != null;
    }

    private static void setAccessChannel(ConsumeMessageContext context, AccessChannel channel) {
        if (SET_ACCESS_CHANNEL == null) {
            return;
        }
        try {
            SET_ACCESS_CHANNEL.invoke(context, channel);
        } catch (ReflectiveOperationException e) {
            LOG.log(Level.FINE, "setting the hook context's access channel", e);
        }
    }

    // COMMIT is deprecated, but listeners written for it still return it: it is SUCCESS, as in Java.
    @SuppressWarnings("deprecation")
    static boolean isSuccess(ConsumeOrderlyStatus status) {
        return status == ConsumeOrderlyStatus.SUCCESS || status == ConsumeOrderlyStatus.COMMIT;
    }

    /** Java's classification, in its order; any other status (COMMIT, ROLLBACK) keeps SUCCESS, as there. */
    static ConsumeReturnType returnType(ConsumeOrderlyStatus status, boolean threw, long callMs) {
        if (status == null) {
            return threw ? ConsumeReturnType.EXCEPTION : ConsumeReturnType.RETURNNULL;
        }
        if (callMs >= CONSUME_TIMEOUT_MS) {
            return ConsumeReturnType.TIME_OUT;
        }
        if (status == ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT) {
            return ConsumeReturnType.FAILED;
        }
        return ConsumeReturnType.SUCCESS;
    }
}
