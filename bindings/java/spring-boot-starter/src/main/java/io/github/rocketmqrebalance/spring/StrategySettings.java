package io.github.rocketmqrebalance.spring;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * One strategy and its parameters, as properties: the default under {@code rocketmq.rebalance}
 * and each group's under {@code rocketmq.rebalance.groups.<group>}. A parameter is read only by the
 * strategy it belongs to; setting it for another strategy fails the start (see {@link Strategies}).
 */
public class StrategySettings {
    /**
     * The allocation strategy: consistent_hash, averagely, circle, balanced_sticky,
     * balanced_sticky_v2 or by_machine_room (the Java names CONSISTENT_HASH, AVG, AVG_BY_CIRCLE,
     * BALANCED_STICKY, BALANCED_STICKY_V2 and MACHINE_ROOM are read too). Unset: the listener keeps
     * rocketmq-spring's AVG.
     */
    private String strategy;

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
