package io.github.rocketmqrebalance;

import java.util.List;

import io.github.rocketmqrebalance.internal.Native;

import org.apache.rocketmq.common.message.MessageQueue;

/**
 * A strategy named by the core's configuration (a name and JSON parameters), as
 * {@link NativeStrategy#fromConfig} builds it: what a configuration file names, with nothing of the
 * strategy known on the Java side, so a strategy the core gains needs no Java change.
 */
final class ConfiguredStrategy extends NativeStrategy {
    private final String name;
    private final String params;

    ConfiguredStrategy(String name, String params) {
        String[] canonical = Native.configure(name, params);
        this.name = canonical[0];
        this.params = canonical[1];
        strategyId();
    }

    @Override
    public List<MessageQueue> allocate(String consumerGroup, String currentCID, List<MessageQueue> mqAll, List<String> cidAll) {
        return allocateNatively(currentCID, mqAll, cidAll);
    }

    /** The core's name for it, parameters included where they matter ({@code BALANCED_STICKY_V2-host}). */
    @Override
    public String getName() {
        return Native.name(strategyId());
    }

    @Override
    String configName() {
        return name;
    }

    @Override
    String configParams() {
        return params;
    }
}
