package io.github.rocketmqrebalance.spring;

/**
 * One consumer group's settings, {@code rocketmq.rebalance.groups.<group>.*}: a strategy of its
 * own (replacing the default as a whole; unset, the default applies), and whether its orderly
 * listener runs on {@code SafeOrderlyConsumer}.
 */
public class GroupSettings extends StrategySettings {
    /**
     * Consume this group's orderly listener with SafeOrderlyConsumer (its handoff never has a queue
     * in two consumers' listeners at once) instead of rocketmq-spring's DefaultMQPushConsumer.
     */
    private boolean safeOrderly;

    public boolean isSafeOrderly() {
        return safeOrderly;
    }

    public void setSafeOrderly(boolean safeOrderly) {
        this.safeOrderly = safeOrderly;
    }
}
