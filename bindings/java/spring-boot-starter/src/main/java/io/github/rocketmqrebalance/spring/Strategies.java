package io.github.rocketmqrebalance.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.github.rocketmqrebalance.NativeAllocateMessageQueueAveragely;
import io.github.rocketmqrebalance.NativeAllocateMessageQueueAveragelyByCircle;
import io.github.rocketmqrebalance.NativeAllocateMessageQueueBalancedSticky;
import io.github.rocketmqrebalance.NativeAllocateMessageQueueBalancedStickyV2;
import io.github.rocketmqrebalance.NativeAllocateMessageQueueByMachineRoom;
import io.github.rocketmqrebalance.NativeAllocateMessageQueueConsistentHash;
import io.github.rocketmqrebalance.NativeStrategy;

/**
 * Turns {@link StrategySettings} into this project's strategy classes, or fails with a message
 * naming the property at fault. Every strategy is registered with the native core here, so a
 * parameter the core refuses fails the application's start, not its first rebalance.
 */
final class Strategies {
    /** The names a property may give, in the core's spelling; each also answers to its Java name. */
    static final String KNOWN = "consistent_hash, averagely, circle, balanced_sticky, balanced_sticky_v2, by_machine_room";

    private Strategies() {
    }

    /**
     * The strategy the settings under {@code prefix} name, or null when they name none (and set no
     * parameter either: a parameter without a strategy is a mistake, and fails).
     */
    static NativeStrategy build(String prefix, StrategySettings s) {
        String name = canonical(s.getStrategy());
        List<String> unused = new ArrayList<String>();
        if (s.getVirtualNodeCount() != null && !"consistent_hash".equals(name)) {
            unused.add("virtual-node-count");
        }
        boolean sticky = "balanced_sticky".equals(name);
        boolean v2 = "balanced_sticky_v2".equals(name);
        if (!sticky && !v2) {
            addIf(unused, s.getStableKey() != null, "stable-key");
            addIf(unused, s.getStableKeySeparator() != null, "stable-key-separator");
        }
        if (!sticky) {
            addIf(unused, !s.getWeights().isEmpty(), "weights");
            addIf(unused, s.getTotalSlack() != null, "total-slack");
        }
        if (!v2) {
            addIf(unused, s.getOverloadPercent() != null, "overload-percent");
            addIf(unused, s.getUnderloadPercent() != null, "underload-percent");
        }
        addIf(unused, !s.getConsumeIdcs().isEmpty() && !"by_machine_room".equals(name), "consume-idcs");
        if (!unused.isEmpty()) {
            String owner = name == null ? "no strategy is set" : "the strategy is " + name;
            throw new IllegalStateException(prefix + "." + unused.get(0) + " does not apply: " + owner + " (" + prefix + ".strategy)");
        }
        if (name == null) {
            return null;
        }
        try {
            NativeStrategy built = of(prefix, name, s);
            // Registering makes the core check the parameters once, now.
            built.strategyId();
            return built;
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(prefix + ": " + e.getMessage(), e);
        }
    }

    private static NativeStrategy of(String prefix, String name, StrategySettings s) {
        switch (name) {
            case "consistent_hash":
                return s.getVirtualNodeCount() == null ? new NativeAllocateMessageQueueConsistentHash()
                    : new NativeAllocateMessageQueueConsistentHash(positive(prefix + ".virtual-node-count", s.getVirtualNodeCount()));
            case "averagely":
                return new NativeAllocateMessageQueueAveragely();
            case "circle":
                return new NativeAllocateMessageQueueAveragelyByCircle();
            case "by_machine_room":
                if (s.getConsumeIdcs().isEmpty()) {
                    throw new IllegalStateException(prefix + ".consume-idcs is required by by_machine_room");
                }
                NativeAllocateMessageQueueByMachineRoom room = new NativeAllocateMessageQueueByMachineRoom();
                room.setConsumeridcs(s.getConsumeIdcs());
                return room;
            case "balanced_sticky":
                return sticky(prefix, s);
            case "balanced_sticky_v2":
                return stickyV2(prefix, s);
            default:
                throw new IllegalStateException(prefix + ".strategy: unknown strategy '" + s.getStrategy() + "'; known: " + KNOWN
                    + " (machine_room_nearby and by_config take code, not properties: set them in the listener's prepareStart)");
        }
    }

    private static NativeAllocateMessageQueueBalancedSticky sticky(String prefix, StrategySettings s) {
        String key = stableKey(prefix, s);
        NativeAllocateMessageQueueBalancedSticky sticky;
        if ("client_id".equals(key)) {
            sticky = new NativeAllocateMessageQueueBalancedSticky();
        } else if ("host".equals(key)) {
            sticky = NativeAllocateMessageQueueBalancedSticky.byHost();
        } else {
            sticky = NativeAllocateMessageQueueBalancedSticky.byPartBefore(s.getStableKeySeparator());
        }
        if (!s.getWeights().isEmpty()) {
            sticky = sticky.withWeights(s.getWeights());
        }
        if (s.getTotalSlack() != null) {
            sticky = sticky.withTotalSlack(s.getTotalSlack());
        }
        return sticky;
    }

    private static NativeAllocateMessageQueueBalancedStickyV2 stickyV2(String prefix, StrategySettings s) {
        String key = stableKey(prefix, s);
        NativeAllocateMessageQueueBalancedStickyV2 v2;
        if ("client_id".equals(key)) {
            v2 = new NativeAllocateMessageQueueBalancedStickyV2();
        } else if ("host".equals(key)) {
            v2 = NativeAllocateMessageQueueBalancedStickyV2.byHost();
        } else {
            v2 = NativeAllocateMessageQueueBalancedStickyV2.byPartBefore(s.getStableKeySeparator());
        }
        if (s.getOverloadPercent() != null || s.getUnderloadPercent() != null) {
            v2 = v2.withCaps(s.getOverloadPercent() == null ? NativeAllocateMessageQueueBalancedStickyV2.DEFAULT_OVERLOAD_PERCENT : s.getOverloadPercent(),
                s.getUnderloadPercent() == null ? NativeAllocateMessageQueueBalancedStickyV2.DEFAULT_UNDERLOAD_PERCENT : s.getUnderloadPercent());
        }
        return v2;
    }

    /** The stable key of either sticky strategy, checked with its separator: client_id, host or before. */
    private static String stableKey(String prefix, StrategySettings s) {
        String key = s.getStableKey() == null ? "client_id" : canonical(s.getStableKey());
        if (!"client_id".equals(key) && !"host".equals(key) && !"before".equals(key)) {
            throw new IllegalStateException(prefix + ".stable-key: unknown key '" + s.getStableKey() + "'; known: client_id, host, before");
        }
        if ("before".equals(key) && (s.getStableKeySeparator() == null || s.getStableKeySeparator().isEmpty())) {
            throw new IllegalStateException(prefix + ".stable-key-separator is required by stable-key=before");
        }
        if (s.getStableKeySeparator() != null && !"before".equals(key)) {
            throw new IllegalStateException(prefix + ".stable-key-separator does not apply: stable-key is " + key);
        }
        return key;
    }

    /** The core's spelling of a strategy name written in any of the usual ways. */
    static String canonical(String written) {
        if (written == null || written.trim().isEmpty()) {
            return null;
        }
        String n = written.trim().toLowerCase(Locale.ROOT).replace('-', '_');
        switch (n) {
            case "avg":
                return "averagely";
            case "avg_by_circle":
                return "circle";
            case "machine_room":
                return "by_machine_room";
            default:
                return n;
        }
    }

    private static int positive(String key, int value) {
        if (value < 1) {
            throw new IllegalStateException(key + " must be at least 1, not " + value);
        }
        return value;
    }

    private static void addIf(List<String> to, boolean condition, String key) {
        if (condition) {
            to.add(key);
        }
    }
}
