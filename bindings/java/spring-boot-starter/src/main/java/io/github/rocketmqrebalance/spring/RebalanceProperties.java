package io.github.rocketmqrebalance.spring;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code rocketmq.rebalance.*}: the strategy every rocketmq-spring listener container gets, and
 * per consumer group ({@code rocketmq.rebalance.groups.<group>.*}, which replaces the default for
 * that group as a whole). Keys this class does not know fail the start.
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
    private Map<String, StrategySettings> groups = new LinkedHashMap<String, StrategySettings>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Map<String, StrategySettings> getGroups() {
        return groups;
    }

    public void setGroups(Map<String, StrategySettings> groups) {
        this.groups = groups;
    }
}
