package io.github.rocketmqrebalance.consumer;

import java.lang.reflect.Proxy;
import java.util.Collections;

import org.apache.rocketmq.client.consumer.store.OffsetStore;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The {@link OffsetStore} of the lite-pull consumer used only to pull: it stores nothing and
 * commits nothing (that consumer's view of the offsets is what was polled, not what the listener
 * consumed, and it would commit it on shutdown and every 5 s), and the one offset it reads is
 * where the engine started the queue, so a newly assigned queue is fetched from there without a
 * {@code seek} (which, right after {@code assign}, interrupts whichever pull thread last ran the
 * queue's task, and can drop a batch another queue had just fetched). A proxy, so an interface
 * method added by a newer client is covered too.
 */
final class SilentOffsetStore {
    private SilentOffsetStore() {
    }

    /** {@code starts}: the engine's start offset of a queue, or null when it has none. */
    static OffsetStore create(java.util.function.Function<MessageQueue, Long> starts) {
        return (OffsetStore) Proxy.newProxyInstance(OffsetStore.class.getClassLoader(), new Class<?>[] {OffsetStore.class}, (proxy, method, args) -> {
            Class<?> type = method.getReturnType();
            switch (method.getName()) {
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "equals":
                    return proxy == args[0];
                case "toString":
                    return "SilentOffsetStore";
                default:
                    break;
            }
            if (method.getName().equals("readOffset")) {
                Long start = starts.apply((MessageQueue) args[0]);
                return start == null ? -1L : start;
            }
            if (type == long.class) {
                return -1L;
            }
            if (type == boolean.class) {
                return false;
            }
            if (type == java.util.Map.class) {
                return Collections.emptyMap();
            }
            return null;
        });
    }
}
