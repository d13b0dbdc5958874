package io.github.rocketmqrebalance;

import java.util.Collections;
import java.util.List;

import io.github.rocketmqrebalance.internal.Json;
import io.github.rocketmqrebalance.internal.Native;

import org.apache.rocketmq.common.message.MessageQueue;

/**
 * BALANCED_STICKY_V2 (experimental; not a strategy of the Java client): balanced within stated
 * caps rather than exactly, so that a consumer joining or leaving moves close to its fair share of
 * queues. With {@code Q} queues over {@code C} members, no member holds more than
 * {@code ceil(Q * (100 + overload) / (100 * C))} in total nor fewer than
 * {@code floor(Q * (100 - underload) / (100 * C))} (none idle while another holds two), nor more
 * than {@code ceil(Q_t / C) + 1} of one topic. Defaults: overload 20, underload 40 (chosen and
 * measured in docs/balanced-sticky.md). Like BALANCED_STICKY, the answer depends on the
 * <em>sets</em> of queues and client ids, not their order, and {@code DefaultMQPushConsumer} asks
 * once per topic, so within a Java consumer the caps hold per topic.
 *
 * <p>Members are ranked by their whole client id, by the host part ({@link #byHost()}), or by the
 * part before a separator ({@link #byPartBefore(String)}). Every client of a group must be
 * configured alike; {@link #getName()} carries any cap other than the default.
 *
 * <p>Immutable; one instance may be used by any number of threads.
 */
public class NativeAllocateMessageQueueBalancedStickyV2 extends NativeStrategy {
    /** The default overload, percent above the even share. */
    public static final int DEFAULT_OVERLOAD_PERCENT = 20;
    /** The default underload, percent below the even share. */
    public static final int DEFAULT_UNDERLOAD_PERCENT = 40;

    /** The stable key as the core's parameters name it: "client_id", "host" or {"before": separator}. */
    private final Object stableKey;
    private final int overloadPercent;
    private final int underloadPercent;

    /** Members ranked by their whole client id, the default caps. */
    public NativeAllocateMessageQueueBalancedStickyV2() {
        this("client_id", DEFAULT_OVERLOAD_PERCENT, DEFAULT_UNDERLOAD_PERCENT);
    }

    private NativeAllocateMessageQueueBalancedStickyV2(Object stableKey, int overloadPercent, int underloadPercent) {
        this.stableKey = stableKey;
        this.overloadPercent = overloadPercent;
        this.underloadPercent = underloadPercent;
    }

    /** Members ranked by the part of the id before the first {@code '@'} (the client's IP address). */
    public static NativeAllocateMessageQueueBalancedStickyV2 byHost() {
        return new NativeAllocateMessageQueueBalancedStickyV2("host", DEFAULT_OVERLOAD_PERCENT, DEFAULT_UNDERLOAD_PERCENT);
    }

    /** Members ranked by the part of the id before the first {@code separator} (the whole id when absent). */
    public static NativeAllocateMessageQueueBalancedStickyV2 byPartBefore(String separator) {
        if (separator == null) {
            throw new IllegalArgumentException("separator is null");
        }
        return new NativeAllocateMessageQueueBalancedStickyV2(Collections.singletonMap("before", separator), DEFAULT_OVERLOAD_PERCENT,
            DEFAULT_UNDERLOAD_PERCENT);
    }

    /**
     * The same ranking with other caps.
     *
     * @throws IllegalArgumentException for a cap the core refuses (overload outside 0-400,
     *     underload outside 0-100), with the core's message
     */
    public NativeAllocateMessageQueueBalancedStickyV2 withCaps(int overloadPercent, int underloadPercent) {
        NativeAllocateMessageQueueBalancedStickyV2 capped = new NativeAllocateMessageQueueBalancedStickyV2(stableKey, overloadPercent, underloadPercent);
        // The core checks the caps (once, for every binding): registering now throws here rather
        // than at the first allocation.
        capped.strategyId();
        return capped;
    }

    public int getOverloadPercent() {
        return overloadPercent;
    }

    public int getUnderloadPercent() {
        return underloadPercent;
    }

    @Override
    public List<MessageQueue> allocate(String consumerGroup, String currentCID, List<MessageQueue> mqAll, List<String> cidAll) {
        return allocateNatively(currentCID, mqAll, cidAll);
    }

    /** {@code BALANCED_STICKY_V2}, {@code BALANCED_STICKY_V2-host}, ... with {@code -overload:<p>} and {@code -underload:<u>} when not the defaults. */
    @Override
    public String getName() {
        return Native.name(strategyId());
    }

    @Override
    String configName() {
        return "balanced_sticky_v2";
    }

    @Override
    String configParams() {
        return Json.object("stable_key", stableKey, "overload_percent", overloadPercent, "underload_percent", underloadPercent);
    }
}
