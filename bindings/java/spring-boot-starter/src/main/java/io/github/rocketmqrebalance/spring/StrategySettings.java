package io.github.rocketmqrebalance.spring;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import io.github.rocketmqrebalance.internal.Json;

/**
 * One strategy and its parameters, as properties: the default under {@code rocketmq.rebalance}
 * and each group's under {@code rocketmq.rebalance.groups.<group>}. The properties are the core's
 * configuration in Spring's spelling ({@link #coreParams}); the core decides which strategy takes
 * which parameter, and a parameter the chosen strategy does not take fails the start.
 */
public class StrategySettings {
    /**
     * The allocation strategy, as the core names it: consistent_hash, averagely, circle,
     * balanced_sticky, balanced_sticky_v2, by_machine_room, machine_room_nearby, by_config, or a Java
     * name (CONSISTENT_HASH, AVG, AVG_BY_CIRCLE, MACHINE_ROOM, ...). Unset: the listener keeps
     * rocketmq-spring's AVG.
     */
    private String strategy;

    /**
     * Any of the core's parameters by its own name ({@code params.inner=consistent_hash},
     * {@code params.inner_params={"virtual_node_count":5}}): a value that reads as JSON is taken as
     * JSON, any other as a string. For parameters without a property of their own.
     */
    private Map<String, String> params = new LinkedHashMap<String, String>();

    /** consistent_hash: virtual nodes per client on the ring (Java's default, 10, when unset). */
    private Integer virtualNodeCount;

    /** balanced_sticky and balanced_sticky_v2: what ranks a member: client_id (the default), host, or before (the part of the id before stable-key-separator). */
    private String stableKey;

    /** balanced_sticky and balanced_sticky_v2 with stable-key=before: the separator. */
    private String stableKeySeparator;

    /** balanced_sticky: weight per stable key (members not listed weigh 1). */
    private Map<String, Integer> weights = new LinkedHashMap<String, Integer>();

    /** balanced_sticky: how many queues a member's total may stray from its share (0, exact, when unset). */
    private Integer totalSlack;

    /** balanced_sticky_v2: how far above the even share a member's total may go, in percent, 0 to 400 (20 when unset). */
    private Integer overloadPercent;

    /** balanced_sticky_v2: how far below the even share a member's total may go, in percent, 0 to 100 (40 when unset). */
    private Integer underloadPercent;

    /** by_machine_room: the machine rooms this group consumes. */
    private Set<String> consumeIdcs = new LinkedHashSet<String>();

    /** Each core parameter key with the property that sets it, for messages. */
    private final Map<String, String> propertyOf = new LinkedHashMap<String, String>();

    /**
     * The core's parameters these properties set, by the core's names: each property is renamed,
     * never checked (the core checks). {@code stable-key=before} with {@code stable-key-separator}
     * is the core's {@code {"before": separator}}.
     */
    Map<String, Object> coreParams() {
        Map<String, Object> out = new LinkedHashMap<String, Object>();
        propertyOf.clear();
        put(out, "virtual_node_count", "virtual-node-count", virtualNodeCount);
        Object key = stableKey;
        if (stableKeySeparator != null) {
            Map<String, Object> keyed = new LinkedHashMap<String, Object>();
            keyed.put(stableKey == null ? "before" : stableKey, stableKeySeparator);
            key = keyed;
        }
        put(out, "stable_key", stableKeySeparator == null ? "stable-key" : "stable-key-separator", key);
        put(out, "weights", "weights", weights.isEmpty() ? null : weights);
        put(out, "total_slack", "total-slack", totalSlack);
        put(out, "overload_percent", "overload-percent", overloadPercent);
        put(out, "underload_percent", "underload-percent", underloadPercent);
        put(out, "consume_idcs", "consume-idcs", consumeIdcs.isEmpty() ? null : new ArrayList<String>(consumeIdcs));
        for (Map.Entry<String, String> e : params.entrySet()) {
            put(out, e.getKey().replace('-', '_'), "params." + e.getKey(), jsonOrText(e.getValue()));
        }
        return out;
    }

    /** The property that set the core's parameter {@code key}. */
    String propertyOf(String key) {
        String property = propertyOf.get(key);
        return property == null ? key : property;
    }

    private void put(Map<String, Object> out, String key, String property, Object value) {
        if (value != null) {
            out.put(key, value);
            propertyOf.put(key, property);
        }
    }

    private static Object jsonOrText(String value) {
        if (value == null) {
            return null;
        }
        try {
            return Json.read(value);
        } catch (IllegalArgumentException notJson) {
            return value;
        }
    }

    public Map<String, String> getParams() {
        return params;
    }

    public void setParams(Map<String, String> params) {
        this.params = params;
    }

    public String getStrategy() {
        return strategy;
    }

    public void setStrategy(String strategy) {
        this.strategy = strategy;
    }

    public Integer getVirtualNodeCount() {
        return virtualNodeCount;
    }

    public void setVirtualNodeCount(Integer virtualNodeCount) {
        this.virtualNodeCount = virtualNodeCount;
    }

    public String getStableKey() {
        return stableKey;
    }

    public void setStableKey(String stableKey) {
        this.stableKey = stableKey;
    }

    public String getStableKeySeparator() {
        return stableKeySeparator;
    }

    public void setStableKeySeparator(String stableKeySeparator) {
        this.stableKeySeparator = stableKeySeparator;
    }

    public Map<String, Integer> getWeights() {
        return weights;
    }

    public void setWeights(Map<String, Integer> weights) {
        this.weights = weights;
    }

    public Integer getOverloadPercent() {
        return overloadPercent;
    }

    public void setOverloadPercent(Integer overloadPercent) {
        this.overloadPercent = overloadPercent;
    }

    public Integer getUnderloadPercent() {
        return underloadPercent;
    }

    public void setUnderloadPercent(Integer underloadPercent) {
        this.underloadPercent = underloadPercent;
    }

    public Integer getTotalSlack() {
        return totalSlack;
    }

    public void setTotalSlack(Integer totalSlack) {
        this.totalSlack = totalSlack;
    }

    public Set<String> getConsumeIdcs() {
        return consumeIdcs;
    }

    public void setConsumeIdcs(Set<String> consumeIdcs) {
        this.consumeIdcs = consumeIdcs;
    }
}
