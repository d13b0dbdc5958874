package io.github.rocketmqrebalance.spring;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Logger;

import io.github.rocketmqrebalance.NativeStrategy;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.spring.support.DefaultRocketMQListenerContainer;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;

/**
 * Gives each rocketmq-spring listener container its strategy between the container's
 * {@code afterPropertiesSet} (which builds the {@link DefaultMQPushConsumer} with a hard-coded
 * {@link AllocateMessageQueueAveragely}) and its {@code start} (a {@code SmartLifecycle} start,
 * after every singleton exists): the consumer reads its strategy only when it starts.
 *
 * <p>Every configured strategy is built when this processor is, before any bean that uses it, so
 * a wrong property fails the application's start. A listener that chose a strategy itself in
 * {@code RocketMQPushConsumerLifecycleListener.prepareStart} keeps it: code beats configuration,
 * and the choice is logged.
 */
public final class ListenerStrategyPostProcessor implements BeanPostProcessor, Ordered {
    private static final Logger LOG = Logger.getLogger(ListenerStrategyPostProcessor.class.getName());

    private final NativeStrategy fallback;
    private final Map<String, NativeStrategy> byGroup = new LinkedHashMap<String, NativeStrategy>();
    private final Map<String, String> applied = new LinkedHashMap<String, String>();

    ListenerStrategyPostProcessor(RebalanceProperties properties) {
        this.fallback = Strategies.build(RebalanceProperties.PREFIX, properties);
        for (Map.Entry<String, StrategySettings> e : properties.getGroups().entrySet()) {
            String prefix = RebalanceProperties.PREFIX + ".groups." + e.getKey();
            NativeStrategy built = Strategies.build(prefix, e.getValue());
            if (built == null) {
                throw new IllegalStateException(prefix + ".strategy is required: a group's settings replace the default as a whole");
            }
            byGroup.put(e.getKey(), built);
        }
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
        if (bean instanceof DefaultRocketMQListenerContainer) {
            apply((DefaultRocketMQListenerContainer) bean);
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

    /** Late, so that other processors see the container as rocketmq-spring built it. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE - 100;
    }
}
