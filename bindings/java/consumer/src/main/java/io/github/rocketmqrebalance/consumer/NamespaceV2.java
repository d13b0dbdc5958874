package io.github.rocketmqrebalance.consumer;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * {@code namespaceV2}, which rocketmq-client has from 5.2 on ({@code ClientConfig} and the trace
 * dispatcher), looked up at run time: this artifact supports 5.1.0, which has neither. On such a
 * client, setting one is refused; reading one gives null.
 */
final class NamespaceV2 {
    private NamespaceV2() {
    }

    /** Sets it on {@code target} (a client configuration, or a trace dispatcher). */
    static void set(Object target, String namespaceV2) {
        Method setter = find(target, "setNamespaceV2", String.class);
        if (setter == null) {
            throw new UnsupportedOperationException("namespaceV2 needs rocketmq-client 5.2 or later; " + target.getClass().getName()
                + " of this one has none");
        }
        invoke(setter, target, namespaceV2);
    }

    /** Its value on {@code target}, or null (none set, or a client without it). */
    static String get(Object target) {
        Method getter = find(target, "getNamespaceV2");
        return getter == null ? null : (String) invoke(getter, target);
    }

    private static Method find(Object target, String name, Class<?>... parameters) {
        try {
            return target.getClass().getMethod(name, parameters);
        } catch (NoSuchMethodException olderClient) {
            return null;
        }
    }

    private static Object invoke(Method m, Object target, Object... args) {
        try {
            return m.invoke(target, args);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            throw cause instanceof RuntimeException ? (RuntimeException) cause : new IllegalStateException(cause);
        }
    }
}
