package io.github.rocketmqrebalance.consumer;

import java.lang.reflect.Proxy;
import java.util.Collections;

import org.apache.rocketmq.client.consumer.store.OffsetStore;

/**
 * The {@link OffsetStore} of the lite-pull consumer that only stands for the group in the client
 * instance: it stores nothing and commits nothing (that consumer would commit its own view of the
 * offsets on shutdown and every 5 s; the listener's offsets are committed apart), and reads -1 for
 * every queue. A proxy, so an interface method added by a newer client is covered too.
 */
final class SilentOffsetStore {
    private SilentOffsetStore() {
    }

    static OffsetStore create() {
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
