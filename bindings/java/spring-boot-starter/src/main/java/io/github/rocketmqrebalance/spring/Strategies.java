package io.github.rocketmqrebalance.spring;

import java.util.Map;

import io.github.rocketmqrebalance.NativeStrategy;
import io.github.rocketmqrebalance.internal.Json;

/**
 * Turns {@link StrategySettings} into a strategy through the core's own configuration parser
 * ({@link NativeStrategy#fromConfig}), or fails with a message naming the property at fault. Which
 * names exist, which parameter belongs to which strategy and which values are allowed are the
 * core's rules alone, checked here when the context starts, so the starter and every other binding
 * cannot disagree and a strategy the core gains needs no change here.
 */
final class Strategies {
    private Strategies() {
    }

    /**
     * The strategy the settings under {@code prefix} name, or null when they name none (and set no
     * parameter either: a parameter without a strategy is a mistake, and fails).
     */
    static NativeStrategy build(String prefix, StrategySettings s) {
        Map<String, Object> params = s.coreParams();
        String name = s.getStrategy();
        if (name == null) {
            if (!params.isEmpty()) {
                String first = params.keySet().iterator().next();
                throw new IllegalStateException(prefix + "." + s.propertyOf(first) + " is set, but " + prefix + ".strategy is not");
            }
            return null;
        }
        if (name.trim().isEmpty()) {
            throw new IllegalStateException(prefix + ".strategy is empty: name a strategy, or remove the key to keep rocketmq-spring's AVG");
        }
        try {
            return NativeStrategy.fromConfig(name.trim(), Json.write(params));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(prefix + ".strategy=" + name.trim() + ": " + e.getMessage() + where(prefix, s, e.getMessage()), e);
        }
    }

    /** The properties behind the core's parameter names that the core's message quotes. */
    private static String where(String prefix, StrategySettings s, String message) {
        StringBuilder out = new StringBuilder();
        for (String key : s.coreParams().keySet()) {
            if (message != null && message.contains(key)) {
                out.append(out.length() == 0 ? " (set by " : ", ").append(prefix).append('.').append(s.propertyOf(key));
            }
        }
        return out.length() == 0 ? "" : out.append(')').toString();
    }
}
