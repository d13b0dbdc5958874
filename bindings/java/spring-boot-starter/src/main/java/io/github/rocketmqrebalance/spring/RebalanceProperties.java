package io.github.rocketmqrebalance.spring;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code rocketmq.rebalance.*}: the strategy every rocketmq-spring listener container gets, and
 * per consumer group ({@code rocketmq.rebalance.groups.<group>.*}: a strategy there replaces the
 * default for that group as a whole; {@code safe-orderly} runs its orderly listener on
 * {@code SafeOrderlyConsumer}). Keys this class does not know fail the start.
 */
@ConfigurationProperties(prefix = RebalanceProperties.PREFIX, ignoreUnknownFields = false)
public class RebalanceProperties extends StrategySettings {
    public static final String PREFIX = "rocketmq.rebalance";

    /** Whether the strategies here are applied at all (false: every listener keeps rocketmq-spring's AVG). */
    private boolean enabled = true;

    /**
     * Per consumer group, as the listener's {@code consumerGroup} names it (after placeholders);
     * write a group with dots or other special characters in brackets: {@code groups[GID.a].strategy}.
     */
    private Map<String, GroupSettings> groups = new LinkedHashMap<String, GroupSettings>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Map<String, GroupSettings> getGroups() {
        return groups;
    }

    public void setGroups(Map<String, GroupSettings> groups) {
        this.groups = groups;
    }
}
