package io.github.rocketmqrebalance.spring;

import org.apache.rocketmq.spring.support.DefaultRocketMQListenerContainer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Registered through {@code META-INF/spring/...AutoConfiguration.imports} (read by Spring Boot
 * 2.7 and every 3.x). Active when rocketmq-spring is on the class path and
 * {@code rocketmq.rebalance.enabled} is not false.
 */
@AutoConfiguration
@ConditionalOnClass(DefaultRocketMQListenerContainer.class)
@ConditionalOnProperty(prefix = RebalanceProperties.PREFIX, name = "enabled", matchIfMissing = true)
public class RebalanceAutoConfiguration {
    /**
     * Static, and binding the properties itself: a bean post-processor is made before the
     * configuration-properties machinery is ready to bind for it. The handler makes an unknown key
     * under {@code rocketmq.rebalance} fail, as {@code ignoreUnknownFields = false} does.
     */
    @Bean
    static ListenerStrategyPostProcessor rocketmqRebalanceListenerStrategies(Environment environment) {
        BindHandler strict = new NoUnboundElementsBindHandler(BindHandler.DEFAULT);
        RebalanceProperties properties = Binder.get(environment)
            .bind(ConfigurationPropertyName.of(RebalanceProperties.PREFIX), Bindable.of(RebalanceProperties.class), strict)
            .orElseGet(RebalanceProperties::new);
        return new ListenerStrategyPostProcessor(properties, environment);
    }
}
