package io.github.rocketmqrebalance.consumer;

import java.lang.reflect.Constructor;

import org.apache.rocketmq.client.AccessChannel;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.trace.AsyncTraceDispatcher;
import org.apache.rocketmq.client.trace.TraceDispatcher;
import org.apache.rocketmq.client.trace.hook.ConsumeMessageTraceHookImpl;
import org.apache.rocketmq.remoting.RPCHook;

/**
 * Message tracing as {@code DefaultMQPushConsumer(group, rpcHook, strategy, enableMsgTrace,
 * customizedTraceTopic)} does it: the client's own {@link AsyncTraceDispatcher} (its producer
 * signed by the same {@link RPCHook}, over TLS when the consumer is) sending each call's
 * {@code SubBefore} and {@code SubAfter} records to the trace topic, fed by the client's
 * {@link ConsumeMessageTraceHookImpl} registered as a consume hook. A dispatcher that fails to
 * start is logged and consumption goes on untraced, as in Java.
 */
final class MessageTrace {
    /** {@code ClientConfig}'s default {@code traceMsgBatchNum} (5.3 on; 5.1 and 5.2 batch by themselves). */
    private static final int BATCH = 10;

    private final AsyncTraceDispatcher dispatcher;

    private MessageTrace(AsyncTraceDispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    /**
     * A dispatcher for {@code group}'s consume records to {@code traceTopic} (null: the default,
     * {@code RMQ_SYS_TRACE_TOPIC}), its producer with the consumer's TLS and namespaceV2 (null: none).
     */
    static MessageTrace create(String group, String traceTopic, RPCHook rpcHook, boolean useTLS, String namespaceV2) {
        AsyncTraceDispatcher d = construct(group, traceTopic, rpcHook);
        d.getTraceProducer().setUseTLS(useTLS);
        if (namespaceV2 != null) {
            NamespaceV2.set(d, namespaceV2);
        }
        return new MessageTrace(d);
    }

    /** The hook that records each call; register it before the first call. */
    ConsumeMessageTraceHookImpl hook() {
        return new ConsumeMessageTraceHookImpl(dispatcher);
    }

    void start(String namesrvAddr, AccessChannel accessChannel) throws MQClientException {
        dispatcher.start(namesrvAddr, accessChannel);
    }

    /** Flushes what is buffered and stops the trace producer. */
    void shutdown() {
        dispatcher.shutdown();
    }

    /**
     * The constructor changed in 5.3 (it took the batch size); the consumer supports 5.1.0 to 5.5.0,
     * so the one the application's client has is looked up.
     */
    private static AsyncTraceDispatcher construct(String group, String traceTopic, RPCHook rpcHook) {
        try {
            try {
                Constructor<AsyncTraceDispatcher> since53 = AsyncTraceDispatcher.class.getConstructor(String.class, TraceDispatcher.Type.class, int.class,
                    String.class, RPCHook.class);
                return since53.newInstance(group, TraceDispatcher.Type.CONSUME, BATCH, traceTopic, rpcHook);
            } catch (NoSuchMethodException before53) {
                Constructor<AsyncTraceDispatcher> upTo52 = AsyncTraceDispatcher.class.getConstructor(String.class, TraceDispatcher.Type.class, String.class,
                    RPCHook.class);
                return upTo52.newInstance(group, TraceDispatcher.Type.CONSUME, traceTopic, rpcHook);
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this rocketmq-client has no AsyncTraceDispatcher constructor SafeOrderlyConsumer knows (5.1.0 to 5.5.0 have)", e);
        }
    }
}
