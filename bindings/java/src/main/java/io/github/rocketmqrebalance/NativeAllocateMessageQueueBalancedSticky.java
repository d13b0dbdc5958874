package io.github.rocketmqrebalance;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.rocketmqrebalance.internal.Native;
import io.github.rocketmqrebalance.internal.Json;

import org.apache.rocketmq.common.message.MessageQueue;

/**
 * BALANCED_STICKY (experimental; not a strategy of the Java client): every member gets the floor
 * or the ceiling of its share of each topic, and when a consumer joins or leaves few queues change
 * owner. The answer depends on the <em>sets</em> of queues and client ids, not on their order, so
 * clients with the same view agree, in any language.
 *
 * <p>{@code DefaultMQPushConsumer} asks its strategy once per topic, so within a Java consumer the
 * balance holds per topic; the cross-topic balance (totals within one over many small topics)
 * needs one call with every topic's queues, which the library's engine and group view make.
 *
 * <p>Members are ranked by their whole client id, by the host part ({@link #byHost()}: a restarted
 * consumer, whose default id {@code ip@pid#nanotime} changes, gets its queues back), or by the part
 * before a separator. Weights ({@link #withWeights(Map)}) give members proportional shares; every
 * client of the group must be configured alike, and {@link #getName()} carries the configuration
 * (a fingerprint of the weights) so a mismatch shows.
 *
 * <p>Immutable; one instance may be used by any number of threads.
 */
public class NativeAllocateMessageQueueBalancedSticky extends NativeStrategy {
    /** The stable key as the core's parameters name it: "client_id", "host" or {"before": separator}. */
    private final Object stableKey;
    private final Map<String, Integer> weights;
    /** How many queues a member's total may stray from its share; 0 is exact. */
    private final int totalSlack;

    /** Members ranked by their whole client id, all weighing 1. */
    public NativeAllocateMessageQueueBalancedSticky() {
        this("client_id", Collections.<String, Integer>emptyMap(), 0);
    }

    private NativeAllocateMessageQueueBalancedSticky(Object stableKey, Map<String, Integer> weights, int totalSlack) {
        this.stableKey = stableKey;
        this.weights = weights;
        this.totalSlack = totalSlack;
    }

    /** Members ranked by the part of the id before the first {@code '@'} (the client's IP address). */
    public static NativeAllocateMessageQueueBalancedSticky byHost() {
        return new NativeAllocateMessageQueueBalancedSticky("host", Collections.<String, Integer>emptyMap(), 0);
    }

    /** Members ranked by the part of the id before the first {@code separator} (the whole id when absent). */
    public static NativeAllocateMessageQueueBalancedSticky byPartBefore(String separator) {
        if (separator == null) {
            throw new IllegalArgumentException("separator is null");
        }
        return new NativeAllocateMessageQueueBalancedSticky(Collections.singletonMap("before", separator), Collections.<String, Integer>emptyMap(), 0);
    }

    /**
     * The same ranking with weights by stable key (the whole id, the host, or the part before the
     * separator); members not listed weigh 1.
     *
     * @throws IllegalArgumentException for a null map, key or weight, or a weight the core refuses
     *     (below 1, or above 2^32-1), with the core's message
     */
    public NativeAllocateMessageQueueBalancedSticky withWeights(Map<String, Integer> weights) {
        if (weights == null) {
            throw new IllegalArgumentException("weights is null");
        }
        TreeMap<String, Integer> copy = new TreeMap<String, Integer>();
        for (Map.Entry<String, Integer> e : weights.entrySet()) {
            if (e.getKey() == null || e.getValue() == null) {
                throw new IllegalArgumentException("weights: null key or weight");
            }
            copy.put(e.getKey(), e.getValue());
        }
        NativeAllocateMessageQueueBalancedSticky weighted =
            new NativeAllocateMessageQueueBalancedSticky(stableKey, Collections.unmodifiableMap(copy), totalSlack);
        // The core checks the weights (once, for every binding): registering now throws its
        // IllegalArgumentException here rather than at the first allocation.
        weighted.strategyId();
        return weighted;
    }

    /**
     * The same configuration, trading balance for movement: every member's total may be up to
     * {@code slack} queues below the floor or above the ceiling of its share, while every topic
     * stays exactly balanced (see docs/balanced-sticky.md for what each slack buys). 0 is exact.
     *
     * @throws IllegalArgumentException for a slack the core refuses (below 0 or above 1000)
     */
    public NativeAllocateMessageQueueBalancedSticky withTotalSlack(int slack) {
        NativeAllocateMessageQueueBalancedSticky slackened = new NativeAllocateMessageQueueBalancedSticky(stableKey, weights, slack);
        slackened.strategyId();
        return slackened;
    }

    /** The total slack given; 0 is exact. */
    public int getTotalSlack() {
        return totalSlack;
    }

    /** The weights given (an unmodifiable, sorted view). */
    public Map<String, Integer> getWeights() {
        return weights;
    }

    @Override
    public List<MessageQueue> allocate(String consumerGroup, String currentCID, List<MessageQueue> mqAll, List<String> cidAll) {
        return allocateNatively(currentCID, mqAll, cidAll);
    }

    /**
     * {@code BALANCED_STICKY}, {@code BALANCED_STICKY-host}, ... with {@code -weights:<fingerprint>}
     * when weighted and {@code -slack:<n>} with a total slack.
     */
    @Override
    public String getName() {
        return Native.name(strategyId());
    }

    @Override
    String configName() {
        return "balanced_sticky";
    }

    @Override
    String configParams() {
        // The slack only when set: the text of every configuration without one is unchanged.
        return totalSlack == 0 ? Json.object("stable_key", stableKey, "weights", weights)
            : Json.object("stable_key", stableKey, "weights", weights, "total_slack", totalSlack);
    }
}
