package io.github.rocketmqrebalance.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import io.github.rocketmqrebalance.NativeAllocateMessageQueueAveragelyByCircle;
import io.github.rocketmqrebalance.NativeStrategy;
import io.github.rocketmqrebalance.consumer.SafeOrderlyConsumer;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle;
import org.apache.rocketmq.spring.annotation.ConsumeMode;
import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.annotation.SelectorType;
import org.apache.rocketmq.spring.autoconfigure.RocketMQAutoConfiguration;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.apache.rocketmq.spring.core.RocketMQPushConsumerLifecycleListener;
import org.apache.rocketmq.spring.support.DefaultRocketMQListenerContainer;
import org.apache.rocketmq.common.namesrv.NamesrvConfig;
import org.apache.rocketmq.namesrv.NamesrvController;
import org.apache.rocketmq.remoting.netty.NettyServerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The auto-configuration inside a real rocketmq-spring context: its registrar builds the listener
 * containers, this project's post-processor changes them, and the containers start (against a
 * real NameServer on a loopback port chosen at run time, with no broker: the consumers start and
 * find no route, which is all these tests need). The strategy is read back from the started consumer's rebalance, which takes
 * it from the consumer when it starts: so each test also shows it was set before the start.
 */
class ListenerStrategiesTest {
    private static NamesrvController namesrv;
    private static ApplicationContextRunner runner;

    @BeforeAll
    static void startNamesrv() throws Exception {
        NettyServerConfig netty = new NettyServerConfig();
        netty.setListenPort(0);
        netty.setBindAddress("127.0.0.1");
        namesrv = new NamesrvController(new NamesrvConfig(), netty);
        if (!namesrv.initialize()) {
            throw new IllegalStateException("the NameServer did not initialize");
        }
        namesrv.start();
        runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RocketMQAutoConfiguration.class, RebalanceAutoConfiguration.class))
            .withUserConfiguration(Listeners.class)
            .withPropertyValues("rocketmq.name-server=127.0.0.1:" + namesrv.getRemotingServer().localListenPort());
    }

    @AfterAll
    static void stopNamesrv() {
        namesrv.shutdown();
    }

    @RocketMQMessageListener(topic = "T_A", consumerGroup = "GID_A")
    static class ListenerA implements RocketMQListener<String> {
        @Override
        public void onMessage(String message) {
        }
    }

    @RocketMQMessageListener(topic = "T_B", consumerGroup = "GID_B")
    static class ListenerB implements RocketMQListener<String> {
        @Override
        public void onMessage(String message) {
        }
    }

    /** A listener that chooses its strategy in code. */
    @RocketMQMessageListener(topic = "T_C", consumerGroup = "GID_C")
    static class ListenerC implements RocketMQListener<String>, RocketMQPushConsumerLifecycleListener {
        @Override
        public void onMessage(String message) {
        }

        @Override
        public void prepareStart(DefaultMQPushConsumer consumer) {
            consumer.setAllocateMessageQueueStrategy(new AllocateMessageQueueAveragelyByCircle());
        }
    }

    /** An orderly listener, with values of its own for what a safe-orderly container passes on. */
    @RocketMQMessageListener(topic = "T_D", consumerGroup = "GID_D", consumeMode = ConsumeMode.ORDERLY, maxReconsumeTimes = 3, consumeThreadNumber = 4,
        consumeThreadMax = 6, awaitTerminationMillisWhenShutdown = 1500, enableMsgTrace = true, customizedTraceTopic = "${example.trace-topic:}",
        namespace = "${example.namespace:}")
    static class ListenerD implements RocketMQListener<String> {
        @Override
        public void onMessage(String message) {
        }
    }

    /** Orderly listeners that choose their strategy in code: this library's, and Java's own. */
    @RocketMQMessageListener(topic = "T_E", consumerGroup = "GID_E", consumeMode = ConsumeMode.ORDERLY)
    static class ListenerE implements RocketMQListener<String>, RocketMQPushConsumerLifecycleListener {
        @Override
        public void onMessage(String message) {
        }

        @Override
        public void prepareStart(DefaultMQPushConsumer consumer) {
            consumer.setAllocateMessageQueueStrategy(new NativeAllocateMessageQueueAveragelyByCircle());
        }
    }

    @RocketMQMessageListener(topic = "T_F", consumerGroup = "GID_F", consumeMode = ConsumeMode.ORDERLY)
    static class ListenerF implements RocketMQListener<String>, RocketMQPushConsumerLifecycleListener {
        @Override
        public void onMessage(String message) {
        }

        @Override
        public void prepareStart(DefaultMQPushConsumer consumer) {
            consumer.setAllocateMessageQueueStrategy(new AllocateMessageQueueAveragelyByCircle());
        }
    }

    /** An orderly listener that filters by SQL92. */
    @RocketMQMessageListener(topic = "T_G", consumerGroup = "GID_G", consumeMode = ConsumeMode.ORDERLY, selectorType = SelectorType.SQL92,
        selectorExpression = "kind = 'keep'")
    static class ListenerG implements RocketMQListener<String> {
        @Override
        public void onMessage(String message) {
        }
    }

    /** An orderly listener that starts a new group's queues from a timestamp. */
    @RocketMQMessageListener(topic = "T_H", consumerGroup = "GID_H", consumeMode = ConsumeMode.ORDERLY)
    static class ListenerH implements RocketMQListener<String>, RocketMQPushConsumerLifecycleListener {
        @Override
        public void onMessage(String message) {
        }

        @Override
        public void prepareStart(DefaultMQPushConsumer consumer) {
            consumer.setConsumeFromWhere(org.apache.rocketmq.common.consumer.ConsumeFromWhere.CONSUME_FROM_TIMESTAMP);
            consumer.setConsumeTimestamp("20250101083000");
        }
    }

    @Configuration
    static class Filtering {
        @Bean
        ListenerG listenerG() {
            return new ListenerG();
        }

        @Bean
        ListenerH listenerH() {
            return new ListenerH();
        }
    }

    @Configuration
    static class Listeners {
        @Bean
        ListenerE listenerE() {
            return new ListenerE();
        }

        @Bean
        ListenerF listenerF() {
            return new ListenerF();
        }

        @Bean
        ListenerD listenerD() {
            return new ListenerD();
        }

        @Bean
        ListenerA listenerA() {
            return new ListenerA();
        }

        @Bean
        ListenerB listenerB() {
            return new ListenerB();
        }

        @Bean
        ListenerC listenerC() {
            return new ListenerC();
        }
    }

    /** The strategy each group's started consumer rebalances with. */
    private static AllocateMessageQueueStrategy started(AssertableApplicationContext ctx, String group) {
        for (DefaultRocketMQListenerContainer c : ctx.getBeansOfType(DefaultRocketMQListenerContainer.class).values()) {
            if (c.getConsumerGroup().equals(group)) {
                assertThat(c.isRunning()).as("container of %s started", group).isTrue();
                assertThat(c).as("a container of %s without safe-orderly", group).isNotInstanceOf(SafeOrderlyListenerContainer.class);
                @SuppressWarnings("deprecation")
                AllocateMessageQueueStrategy s = c.getConsumer().getDefaultMQPushConsumerImpl().getRebalanceImpl().getAllocateMessageQueueStrategy();
                return s;
            }
        }
        throw new AssertionError("no container for " + group);
    }

    private static String failure(AssertableApplicationContext ctx) {
        assertThat(ctx).hasFailed();
        StringBuilder all = new StringBuilder();
        for (Throwable t = ctx.getStartupFailure(); t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }

    @Test
    void theDefaultReachesEveryListenerAndAGroupsOwnReplacesIt() {
        runner.withPropertyValues("rocketmq.rebalance.strategy=consistent_hash", "rocketmq.rebalance.virtual-node-count=20",
            "rocketmq.rebalance.groups.GID_B.strategy=balanced_sticky", "rocketmq.rebalance.groups.GID_B.total-slack=2",
            "rocketmq.rebalance.groups.GID_B.stable-key=host").run(ctx -> {
                assertThat(ctx).hasNotFailed();
                // Built by the core's configuration parser: its canonical name and parameters show in
                // toString(), which admin tools (and inspect) read back.
                AllocateMessageQueueStrategy a = started(ctx, "GID_A");
                assertThat(a).isInstanceOf(NativeStrategy.class);
                assertThat(a.toString()).endsWith("@consistent_hash{\"virtual_node_count\":20}");
                assertThat(a.getName()).isEqualTo("CONSISTENT_HASH");
                AllocateMessageQueueStrategy b = started(ctx, "GID_B");
                assertThat(b.toString()).contains("@balanced_sticky{").contains("\"stable_key\":\"host\"").contains("\"total_slack\":2");
                Map<String, String> applied = ctx.getBean(ListenerStrategyPostProcessor.class).applied();
                assertThat(applied).containsOnlyKeys("GID_A", "GID_B", "GID_D");
            });
    }

    @Test
    void balancedStickyV2IsSelectedWithItsCaps() {
        runner.withPropertyValues("rocketmq.rebalance.strategy=BALANCED_STICKY_V2", "rocketmq.rebalance.stable-key=host",
            "rocketmq.rebalance.groups.GID_B.strategy=balanced_sticky_v2", "rocketmq.rebalance.groups.GID_B.overload-percent=30").run(ctx -> {
                assertThat(ctx).hasNotFailed();
                AllocateMessageQueueStrategy a = started(ctx, "GID_A");
                assertThat(a.getName()).isEqualTo("BALANCED_STICKY_V2-host");
                AllocateMessageQueueStrategy b = started(ctx, "GID_B");
                assertThat(b.toString()).contains("\"overload_percent\":30").contains("\"underload_percent\":40");
                assertThat(b.getName()).isEqualTo("BALANCED_STICKY_V2-overload:30");
            });
        runner.withPropertyValues("rocketmq.rebalance.strategy=balanced_sticky_v2", "rocketmq.rebalance.underload-percent=101")
            .run(ctx -> assertThat(failure(ctx)).contains("rocketmq.rebalance.strategy=balanced_sticky_v2: ").contains("underload_percent 101")
                .contains("(set by rocketmq.rebalance.underload-percent)"));
        runner.withPropertyValues("rocketmq.rebalance.strategy=balanced_sticky_v2", "rocketmq.rebalance.total-slack=1")
            .run(ctx -> assertThat(failure(ctx)).contains("`total_slack` is not one of its parameters").contains("(set by rocketmq.rebalance.total-slack)"));
        runner.withPropertyValues("rocketmq.rebalance.strategy=balanced_sticky", "rocketmq.rebalance.overload-percent=10")
            .run(ctx -> assertThat(failure(ctx)).contains("`overload_percent` is not one of its parameters").contains("(set by rocketmq.rebalance.overload-percent)"));
    }

    @Test
    void aListenersOwnChoiceInPrepareStartIsKept() {
        runner.withPropertyValues("rocketmq.rebalance.strategy=CONSISTENT_HASH").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(started(ctx, "GID_C")).isInstanceOf(AllocateMessageQueueAveragelyByCircle.class);
            assertThat(started(ctx, "GID_A").getName()).isEqualTo("CONSISTENT_HASH");
        });
    }

    @Test
    void withoutPropertiesOrWhenDisabledEveryListenerKeepsRocketmqSpringsAverage() {
        runner.run(ctx -> assertThat(started(ctx, "GID_A")).isExactlyInstanceOf(AllocateMessageQueueAveragely.class));
        runner.withPropertyValues("rocketmq.rebalance.enabled=false", "rocketmq.rebalance.strategy=consistent_hash").run(ctx -> {
            assertThat(ctx).doesNotHaveBean(ListenerStrategyPostProcessor.class);
            assertThat(started(ctx, "GID_A")).isExactlyInstanceOf(AllocateMessageQueueAveragely.class);
        });
    }

    @Test
    void anUnknownStrategyFailsTheStartNamingTheKey() {
        runner.withPropertyValues("rocketmq.rebalance.groups.GID_A.strategy=round_robin").run(ctx -> assertThat(failure(ctx))
            .contains("rocketmq.rebalance.groups.GID_A.strategy=round_robin: unknown strategy \"round_robin\"").contains("consistent_hash"));
        // The core's names only: no spelling of the starter's own.
        runner.withPropertyValues("rocketmq.rebalance.strategy=consistent-hash").run(ctx -> assertThat(failure(ctx))
            .contains("unknown strategy \"consistent-hash\""));
        runner.withPropertyValues("rocketmq.rebalance.strategy= ").run(ctx -> assertThat(failure(ctx))
            .contains("rocketmq.rebalance.strategy is empty"));
    }

    @Test
    void anyCoreParameterIsReachableByItsOwnName() {
        runner.withPropertyValues("rocketmq.rebalance.strategy=machine_room_nearby", "rocketmq.rebalance.params.inner=consistent_hash",
            "rocketmq.rebalance.params.inner_params={\"virtual_node_count\":5}").run(ctx -> {
                assertThat(ctx).hasNotFailed();
                assertThat(started(ctx, "GID_A").getName()).isEqualTo("MACHINE_ROOM_NEARBY-CONSISTENT_HASH");
                assertThat(started(ctx, "GID_A").toString()).contains("\"virtual_node_count\":5");
            });
        runner.withPropertyValues("rocketmq.rebalance.strategy=machine_room_nearby", "rocketmq.rebalance.params.inner=averagely",
            "rocketmq.rebalance.params.inner_params={\"virtual_node_count\":5}").run(ctx -> assertThat(failure(ctx))
                .contains("`virtual_node_count` is not one of its parameters"));
    }

    @Test
    void aConfiguredGroupNoListenerHasFailsTheStartBeforeAnyListenerStarts() {
        runner.withPropertyValues("rocketmq.rebalance.groups.GID_DD.safe-orderly=true").run(ctx -> assertThat(failure(ctx))
            .contains("rocketmq.rebalance.groups.GID_DD: no @RocketMQMessageListener has consumerGroup GID_DD")
            .contains("[GID_A, GID_B, GID_C, GID_D, GID_E, GID_F]"));
    }

    @Test
    void anUnknownKeyFailsTheStartNamingIt() {
        runner.withPropertyValues("rocketmq.rebalance.strategy=consistent_hash", "rocketmq.rebalance.virtual-nodes=3")
            .run(ctx -> assertThat(failure(ctx)).contains("rocketmq.rebalance.virtual-nodes"));
    }

    @Test
    void aParameterOfAnotherStrategyFailsTheStart() {
        runner.withPropertyValues("rocketmq.rebalance.strategy=averagely", "rocketmq.rebalance.virtual-node-count=3").run(ctx -> assertThat(failure(ctx))
            .contains("`virtual_node_count` is not one of its parameters (it takes: none)").contains("(set by rocketmq.rebalance.virtual-node-count)"));
        runner.withPropertyValues("rocketmq.rebalance.groups.GID_A.total-slack=1").run(ctx -> assertThat(failure(ctx))
            .contains("rocketmq.rebalance.groups.GID_A.total-slack is set, but rocketmq.rebalance.groups.GID_A.strategy is not"));
    }

    @Test
    void aParameterTheCoreRefusesFailsTheStartWithTheCoresReason() {
        runner.withPropertyValues("rocketmq.rebalance.strategy=balanced_sticky", "rocketmq.rebalance.total-slack=-1")
            .run(ctx -> assertThat(failure(ctx)).contains("rocketmq.rebalance.strategy=balanced_sticky: ").contains("total_slack"));
        // Java's own check, as the core makes it for every binding: a negative count (0 is allowed, as in Java).
        runner.withPropertyValues("rocketmq.rebalance.strategy=consistent_hash", "rocketmq.rebalance.virtual-node-count=-1")
            .run(ctx -> assertThat(failure(ctx)).contains("illegal virtualNodeCnt :-1"));
        runner.withPropertyValues("rocketmq.rebalance.strategy=consistent_hash", "rocketmq.rebalance.virtual-node-count=0")
            .run(ctx -> assertThat(ctx).hasNotFailed());
    }

    private static SafeOrderlyListenerContainer safe(AssertableApplicationContext ctx, String group) {
        for (DefaultRocketMQListenerContainer c : ctx.getBeansOfType(DefaultRocketMQListenerContainer.class).values()) {
            if (c.getConsumerGroup().equals(group)) {
                assertThat(c).isInstanceOf(SafeOrderlyListenerContainer.class);
                return (SafeOrderlyListenerContainer) c;
            }
        }
        throw new AssertionError("no container for " + group);
    }

    @Test
    void safeOrderlyReplacesAnOrderlyListenersContainerWhichStartsAndStops() {
        runner.withPropertyValues("rocketmq.rebalance.strategy=consistent_hash", "rocketmq.rebalance.groups.GID_D.safe-orderly=true").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            SafeOrderlyListenerContainer d = safe(ctx, "GID_D");
            assertThat(d.isRunning()).isTrue();
            assertThat(d.getSafeOrderlyConsumer().getClientId()).isNotNull();
            assertThat(d.getTopic()).isEqualTo("T_D");
            // The annotation's dead-letter limit, threads and shutdown wait reach the consumer; the
            // rest is the push consumer's defaults (the stock container's consumer holds the same).
            SafeOrderlyConsumer consumer = d.getSafeOrderlyConsumer();
            assertThat(consumer.getMaxReconsumeTimes()).isEqualTo(3);
            assertThat(consumer.getConsumeThreadMin()).isEqualTo(4);
            assertThat(consumer.getConsumeThreadMax()).isEqualTo(6);
            assertThat(d.getAwaitTerminationMillis()).isEqualTo(1500);
            DefaultMQPushConsumer stock = d.getOriginal().getConsumer();
            assertThat(consumer.getConsumeMessageBatchMaxSize()).isEqualTo(stock.getConsumeMessageBatchMaxSize()).isEqualTo(1);
            assertThat(consumer.getPullBatchSize()).isEqualTo(stock.getPullBatchSize()).isEqualTo(32);
            assertThat(consumer.getPullThresholdForQueue()).isEqualTo(stock.getPullThresholdForQueue()).isEqualTo(1000);
            assertThat(consumer.getPullThresholdSizeForQueue()).isEqualTo(stock.getPullThresholdSizeForQueue()).isEqualTo(100);
            // rocketmq-spring's own consumer for the group was never started.
            @SuppressWarnings("deprecation")
            org.apache.rocketmq.common.ServiceState state = stock.getDefaultMQPushConsumerImpl().getServiceState();
            assertThat(state).isEqualTo(org.apache.rocketmq.common.ServiceState.CREATE_JUST);
            // Control through getConsumer() would reach that unstarted consumer: refused, naming the way that works.
            assertThatThrownBy(d::getConsumer).isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("use getSafeOrderlyConsumer()");
            consumer.suspend();
            assertThat(consumer.isSuspended()).isTrue();
            consumer.resume();
            assertThat(consumer.isSuspended()).isFalse();
            assertThat(ctx.getBean(ListenerStrategyPostProcessor.class).applied().get("GID_D"))
                .startsWith("SafeOrderlyConsumer with io.github.rocketmqrebalance.ConfiguredStrategy@consistent_hash");
            // The other listeners are untouched by it.
            assertThat(started(ctx, "GID_A").getName()).isEqualTo("CONSISTENT_HASH");
            ctx.close();
            assertThat(d.isRunning()).isFalse();
        });
    }

    @Test
    void aSafeOrderlyListenersFilterAndStartReachTheConsumer() {
        runner.withUserConfiguration(Filtering.class).withPropertyValues("rocketmq.rebalance.groups.GID_G.safe-orderly=true",
            "rocketmq.rebalance.groups.GID_D.safe-orderly=true", "rocketmq.rebalance.groups.GID_H.safe-orderly=true").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            org.apache.rocketmq.client.consumer.MessageSelector selector = safe(ctx, "GID_G").getSafeOrderlyConsumer().subscriptions().get("T_G");
            assertThat(selector.getExpressionType()).isEqualTo("SQL92");
            assertThat(selector.getExpression()).isEqualTo("kind = 'keep'");
            // A tag expression reaches it the same way (GID_D's listener takes every tag).
            assertThat(safe(ctx, "GID_D").getSafeOrderlyConsumer().subscriptions().get("T_D").getExpression()).isEqualTo("*");
            // prepareStart's start from a timestamp reaches the consumer.
            assertThat(safe(ctx, "GID_H").getSafeOrderlyConsumer().getConsumeTimestamp()).isEqualTo("20250101083000");
        });
    }

    @Test
    void aSafeOrderlyListenerSignsTracesAndNamespacesAsTheStockContainersConsumerWould() {
        // No keys anywhere: unsigned, as rocketmq-spring's consumer; the annotation's tracing.
        runner.withPropertyValues("rocketmq.rebalance.groups.GID_D.safe-orderly=true").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            SafeOrderlyConsumer c = safe(ctx, "GID_D").getSafeOrderlyConsumer();
            assertThat(c.getRpcHook()).isNull();
            assertThat(c.isEnableMsgTrace()).isTrue();
            assertThat(c.getCustomizedTraceTopic()).isNull();
            assertThat(c.getNamespaceV2()).isNull();
        });
        // The annotation's default keys are rocketmq-spring's global consumer properties.
        runner.withPropertyValues("rocketmq.rebalance.groups.GID_D.safe-orderly=true", "rocketmq.consumer.access-key=AK_D",
            "rocketmq.consumer.secret-key=SK_D", "example.trace-topic=TRACE_D", "example.namespace=NS_D").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            SafeOrderlyListenerContainer d = safe(ctx, "GID_D");
            SafeOrderlyConsumer c = d.getSafeOrderlyConsumer();
            assertThat(c.getRpcHook()).isInstanceOf(org.apache.rocketmq.acl.common.AclClientRPCHook.class);
            org.apache.rocketmq.acl.common.SessionCredentials keys = ((org.apache.rocketmq.acl.common.AclClientRPCHook) c.getRpcHook()).getSessionCredentials();
            assertThat(keys.getAccessKey()).isEqualTo("AK_D");
            assertThat(keys.getSecretKey()).isEqualTo("SK_D");
            assertThat(c.getCustomizedTraceTopic()).isEqualTo("TRACE_D");
            // The listener's namespace too (the stock container gives its consumer the same).
            assertThat(d.getOriginal().getNamespace()).isEqualTo("NS_D");
            @SuppressWarnings("deprecation")
            String namespace = c.getNamespace();
            assertThat(namespace).isEqualTo("NS_D");
            // The channels as the stock container set them on its consumer (a signing one turns the
            // VIP channel off; rocketmq-spring 2.3.5 leaves a listener's access channel LOCAL).
            DefaultMQPushConsumer stock = d.getOriginal().getConsumer();
            assertThat(c.getAccessChannel()).isEqualTo(stock.getAccessChannel()).isEqualTo(org.apache.rocketmq.client.AccessChannel.LOCAL);
            assertThat(c.isVipChannelEnabled()).isEqualTo(stock.isVipChannelEnabled()).isFalse();
            assertThat(c.isUseTLS()).isEqualTo(stock.isUseTLS()).isFalse();
        });
    }

    @Test
    void aSafeOrderlyListenersOwnChoiceInPrepareStartIsKeptOrRefusedNeverReplaced() {
        runner.withPropertyValues("rocketmq.rebalance.strategy=consistent_hash", "rocketmq.rebalance.groups.GID_E.safe-orderly=true").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(safe(ctx, "GID_E").getSafeOrderlyConsumer().getStrategy()).isInstanceOf(NativeAllocateMessageQueueAveragelyByCircle.class);
            assertThat(ctx.getBean(ListenerStrategyPostProcessor.class).applied().get("GID_E")).contains("NativeAllocateMessageQueueAveragelyByCircle@circle");
        });
        runner.withPropertyValues("rocketmq.rebalance.groups.GID_F.safe-orderly=true").run(ctx -> assertThat(failure(ctx))
            .contains("rocketmq.rebalance.groups.GID_F.safe-orderly=true cannot apply to the listener of group GID_F: its prepareStart chose "
                + AllocateMessageQueueAveragelyByCircle.class.getName()));
    }

    @Test
    void safeOrderlyOnAConcurrentListenerFailsTheStartNamingTheKey() {
        runner.withPropertyValues("rocketmq.rebalance.groups.GID_A.safe-orderly=true").run(ctx -> assertThat(failure(ctx))
            .contains("rocketmq.rebalance.groups.GID_A.safe-orderly=true cannot apply to the listener of group GID_A: its consumeMode is CONCURRENTLY"));
    }
}
