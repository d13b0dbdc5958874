package io.github.rocketmqrebalance.spring;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.logging.Logger;

import io.github.rocketmqrebalance.NativeStrategy;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.spring.support.DefaultRocketMQListenerContainer;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * Gives each rocketmq-spring listener container its strategy between the container's
 * {@code afterPropertiesSet} (which builds the {@link DefaultMQPushConsumer} with a hard-coded
 * {@link AllocateMessageQueueAveragely}) and its {@code start} (a {@code SmartLifecycle} start,
 * after every singleton exists): the consumer reads its strategy only when it starts.
 *
 * <p>A group with {@code safe-orderly=true} has its container replaced by a
 * {@link SafeOrderlyListenerContainer}, which consumes with {@code SafeOrderlyConsumer}.
 *
 * <p>Every configured strategy is built when this processor is, before any bean that uses it, so
 * a wrong property fails the application's start. A listener that chose a strategy itself in
 * {@code RocketMQPushConsumerLifecycleListener.prepareStart} keeps it: code beats configuration,
 * and the choice is logged.
 *
 * <p>A group configured under {@code rocketmq.rebalance.groups} that no listener has (a typo in the
 * group's name) fails the start before any listener starts: silently, it would have left that
 * group on rocketmq-spring's consumer, where a {@code safe-orderly} group is the very overlap the
 * user configured it to prevent.
 */
public final class ListenerStrategyPostProcessor implements BeanPostProcessor, Ordered, SmartLifecycle {
    private static final Logger LOG = Logger.getLogger(ListenerStrategyPostProcessor.class.getName());

    private final Environment environment;
    private final NativeStrategy fallback;
    private final Map<String, NativeStrategy> byGroup = new LinkedHashMap<String, NativeStrategy>();
    private final Map<String, String> applied = new LinkedHashMap<String, String>();
    private final Set<String> safeOrderly = new LinkedHashSet<String>();
    private final Set<String> configured = new LinkedHashSet<String>();
    private final Set<String> seen = new TreeSet<String>();
    private volatile boolean running;

    ListenerStrategyPostProcessor(RebalanceProperties properties, Environment environment) {
        this.environment = environment;
        this.fallback = Strategies.build(RebalanceProperties.PREFIX, properties);
        for (Map.Entry<String, GroupSettings> e : properties.getGroups().entrySet()) {
            configured.add(e.getKey());
            NativeStrategy built = Strategies.build(groupPrefix(e.getKey()), e.getValue());
            if (built != null) {
                byGroup.put(e.getKey(), built);
            }
            if (e.getValue().isSafeOrderly()) {
                safeOrderly.add(e.getKey());
            }
        }
    }

    private static String groupPrefix(String group) {
        return RebalanceProperties.PREFIX + ".groups." + group;
    }

    /** The strategy a container of {@code group} gets, or null to leave rocketmq-spring's. */
    NativeStrategy strategyFor(String group) {
        NativeStrategy own = byGroup.get(group);
        return own != null ? own : fallback;
    }

    /** Consumer group to the strategy's {@code toString()}, for every container this processor changed. */
    public Map<String, String> applied() {
        synchronized (applied) {
            return new LinkedHashMap<String, String>(applied);
        }
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof DefaultRocketMQListenerContainer && !(bean instanceof SafeOrderlyListenerContainer)) {
            DefaultRocketMQListenerContainer container = (DefaultRocketMQListenerContainer) bean;
            String group = container.getConsumerGroup();
            synchronized (seen) {
                seen.add(group);
            }
            if (safeOrderly.contains(group)) {
                // rocketmq-spring asks the context for its containers by type, so the stand-in
                // takes the container's place as the bean.
                SafeOrderlyListenerContainer safe = SafeOrderlyListenerContainer.replacing(container, strategyFor(group), groupPrefix(group) + ".safe-orderly", environment);
                NativeStrategy strategy = safe.getSafeOrderlyConsumer().getStrategy();
                synchronized (applied) {
                    applied.put(group, "SafeOrderlyConsumer with " + (strategy == null ? "its default strategy (AVG)" : strategy.toString()));
                }
                LOG.info("rocketmq-rebalance: group " + group + " consumes with SafeOrderlyConsumer");
                return safe;
            }
            apply(container);
        }
        return bean;
    }

    private void apply(DefaultRocketMQListenerContainer container) {
        DefaultMQPushConsumer consumer = container.getConsumer();
        String group = container.getConsumerGroup();
        NativeStrategy strategy = strategyFor(group);
        if (consumer == null || strategy == null) {
            return;
        }
        AllocateMessageQueueStrategy current = consumer.getAllocateMessageQueueStrategy();
        // rocketmq-spring sets exactly this class; anything else was the listener's own choice.
        if (current != null && current.getClass() != AllocateMessageQueueAveragely.class) {
            LOG.info("rocketmq-rebalance: group " + group + " keeps " + current.getClass().getName()
                + ", chosen by its listener's prepareStart, over the configured " + strategy);
            return;
        }
        consumer.setAllocateMessageQueueStrategy(strategy);
        synchronized (applied) {
            applied.put(group, strategy.toString());
        }
        LOG.info("rocketmq-rebalance: group " + group + " allocates with " + strategy);
    }

    /**
     * Every listener container exists now (rocketmq-spring registers them once the singletons are
     * made) and none has started (they start in a later phase): a configured group without one is
     * a mistake, and fails here.
     */
    @Override
    public void start() {
        Set<String> missing = new TreeSet<String>(configured);
        synchronized (seen) {
            missing.removeAll(seen);
            if (!missing.isEmpty()) {
                String group = missing.iterator().next();
                throw new IllegalStateException(groupPrefix(group) + ": no @RocketMQMessageListener has consumerGroup " + group
                    + " (the listeners' groups: " + seen + "); a misspelt group would run on rocketmq-spring's own consumer");
            }
        }
        running = true;
    }

    @Override
    public void stop() {
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Before the listener containers, which start last (their phase is {@code Integer.MAX_VALUE}). */
    @Override
    public int getPhase() {
        return Integer.MAX_VALUE - 1000;
    }

    /** Late, so that other processors see the container as rocketmq-spring built it. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE - 100;
    }
}
