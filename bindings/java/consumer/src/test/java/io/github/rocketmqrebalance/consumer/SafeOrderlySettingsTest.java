package io.github.rocketmqrebalance.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.apache.rocketmq.client.consumer.MessageSelector;
import org.junit.jupiter.api.Test;

/** Settings refused at the call that gives them, and the defaults a push consumer has. */
class SafeOrderlySettingsTest {
    @Test
    void aConsumeTimestampThatIsNotYyyyMMddHHmmssIsRefused() {
        SafeOrderlyConsumer c = new SafeOrderlyConsumer("GID_SETTINGS");
        assertEquals(14, c.getConsumeTimestamp().length(), "a default in the push consumer's form: " + c.getConsumeTimestamp());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.setConsumeTimestamp("2025-01-01"));
        assertEquals("consumeTimestamp must be yyyyMMddHHmmss, not 2025-01-01", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> c.setConsumeTimestamp(null));
        c.setConsumeTimestamp("20250101083000");
        assertEquals("20250101083000", c.getConsumeTimestamp());
    }

    @Test
    void subscriptionsKeepTheirFiltersInOrder() {
        SafeOrderlyConsumer c = new SafeOrderlyConsumer("GID_SETTINGS");
        c.subscribe("T1");
        c.subscribe("T2", "A || B");
        c.subscribe("T3", MessageSelector.bySql("a > 1"));
        assertEquals(java.util.Arrays.asList("T1", "T2", "T3"), new java.util.ArrayList<>(c.subscriptions().keySet()));
        assertEquals("*", c.subscriptions().get("T1").getExpression());
        assertEquals("A || B", c.subscriptions().get("T2").getExpression());
        assertEquals("SQL92", c.subscriptions().get("T3").getExpressionType());
        assertThrows(IllegalArgumentException.class, () -> c.subscribe("", "*"));
        assertThrows(IllegalArgumentException.class, () -> c.subscribe("T4", (MessageSelector) null));
    }

    @Test
    void eachBoundedSettingIsRefusedOutsideItsRangeNamingIt() {
        SafeOrderlyConsumer c = new SafeOrderlyConsumer("GID_SETTINGS");
        assertEquals("consumeThreadMin must be 1 to 1000, not 0",
            assertThrows(IllegalArgumentException.class, () -> c.setConsumeThreadMin(0)).getMessage());
        assertEquals("pullBatchSize must be 1 to 1024, not 1025",
            assertThrows(IllegalArgumentException.class, () -> c.setPullBatchSize(1025)).getMessage());
        assertEquals("pullThresholdSizeForQueue must be 1 to 1024 (MiB), not 0",
            assertThrows(IllegalArgumentException.class, () -> c.setPullThresholdSizeForQueue(0)).getMessage());
        assertEquals("maxReconsumeTimes must be -1 (no limit) or more, not -2",
            assertThrows(IllegalArgumentException.class, () -> c.setMaxReconsumeTimes(-2)).getMessage());
        // A timer of 0 ms would be refused by the scheduler at start(); it is refused here instead.
        assertEquals("rebalanceIntervalMillis must be 1 or more, not 0",
            assertThrows(IllegalArgumentException.class, () -> c.setRebalanceIntervalMillis(0)).getMessage());
        assertEquals("persistIntervalMillis must be 1 or more, not -5",
            assertThrows(IllegalArgumentException.class, () -> c.setPersistIntervalMillis(-5)).getMessage());
        c.setBrokerWatchIntervalMillis(0); // the watch off: allowed
        assertEquals("strategy must not be null", assertThrows(IllegalArgumentException.class, () -> c.setStrategy(null)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> new SafeOrderlyConsumer(""));
        // What was refused changed nothing: the push consumer's defaults stand.
        assertEquals(20, c.getConsumeThreadMin());
        assertEquals(32, c.getPullBatchSize());
        assertEquals(100, c.getPullThresholdSizeForQueue());
        assertEquals(-1, c.getMaxReconsumeTimes());
    }

    @Test
    void theRunningInfoCarriesTheSettingsGivenUnderThePushConsumersNames() {
        ConsumerSettings s = new ConsumerSettings("GID_SETTINGS");
        s.consumeThreadMin(32);
        s.consumeThreadMax(64);
        s.pullBatchSize(16);
        s.pullThresholdSizeForQueueMiB(50);
        s.consumeFrom(io.github.rocketmqrebalance.engine.RebalanceConfig.ConsumeFrom.FIRST_OFFSET);
        java.util.Properties p = s.inForce();
        assertEquals("32", p.getProperty("consumeThreadMin"));
        assertEquals("64", p.getProperty("consumeThreadMax"));
        assertEquals("32", p.getProperty(RunningInfo.THREAD_POOL_CORE_SIZE));
        assertEquals("16", p.getProperty("pullBatchSize"));
        assertEquals("50", p.getProperty("pullThresholdSizeForQueue"));
        assertEquals("CONSUME_FROM_FIRST_OFFSET", p.getProperty("consumeFromWhere"));
        assertEquals("GID_SETTINGS", p.getProperty("consumerGroup"));
        assertEquals(50L * 1024 * 1024, s.pullThresholdSizeForQueueBytes());
    }

    @Test
    void startIsRefusedWithoutATopicAndAListener() {
        SafeOrderlyConsumer c = new SafeOrderlyConsumer("GID_SETTINGS");
        assertThrows(IllegalStateException.class, c::start);
        c.subscribe("T1");
        assertThrows(IllegalStateException.class, c::start);
        // Nothing started: a shutdown is a no-op, and the consumer holds nothing.
        c.shutdown(0);
        assertEquals(0, c.heldQueues().size());
        assertEquals(null, c.getClientId());
    }

    @Test
    void topicThresholdsAreDividedAmongTheQueuesHeldAsThePushConsumerDividesThem() {
        ConsumerSettings s = new ConsumerSettings("GID_SETTINGS");
        s.pullThresholdForQueue(500);
        QueueWorkers unset = new QueueWorkers((mq, batch, from, to) -> { }, noFetching(), s);
        unset.share(4);
        assertEquals(500, unset.threshold(), "without a topic threshold the queue's stands");
        unset.shutdown(0);
        s.pullThresholdForTopic(1000);
        s.pullThresholdSizeForTopicMiB(10);
        QueueWorkers w = new QueueWorkers((mq, batch, from, to) -> { }, noFetching(), s);
        w.share(3);
        assertEquals(333, w.threshold()); // 1000 / 3, as Java's integer division
        assertEquals(3L * 1024 * 1024, w.thresholdBytes()); // 10 MiB / 3 = 3 MiB
        w.share(2000);
        assertEquals(1, w.threshold(), "at least 1");
        assertEquals(1024L * 1024, w.thresholdBytes(), "at least 1 MiB");
        w.shutdown(0);
        assertEquals("pullThresholdForTopic must be -1 (none) or 1 to 6553500, not 0",
            assertThrows(IllegalArgumentException.class, () -> s.pullThresholdForTopic(0)).getMessage());
        assertEquals("pullInterval must be 0 to 65535, not 65536", assertThrows(IllegalArgumentException.class, () -> s.pullIntervalMs(65_536)).getMessage());
    }

    @Test
    void aFailedCallWaitsTheContextsTimeElseTheConsumersWithinJavasBounds() {
        ConsumerSettings s = new ConsumerSettings("GID_SETTINGS");
        assertEquals(1_000, s.suspendAfterFailure(-1), "the context's -1: the consumer's default, 1 s");
        s.suspendCurrentQueueTimeMillis(3_000);
        assertEquals(3_000, s.suspendAfterFailure(-1));
        assertEquals(200, s.suspendAfterFailure(200), "the context's own beats the consumer's");
        assertEquals(10, s.suspendAfterFailure(0), "at least 10 ms");
        assertEquals(30_000, s.suspendAfterFailure(90_000), "at most 30 s");
    }

    private static QueueWorkers.Fetching noFetching() {
        return new QueueWorkers.Fetching() {
            @Override
            public void pause(org.apache.rocketmq.common.message.MessageQueue mq) {
            }

            @Override
            public void resume(org.apache.rocketmq.common.message.MessageQueue mq) {
            }
        };
    }

    /** namespaceV2 arrived in rocketmq-client 5.2: on the client the tests run with, kept; before it, refused by name. */
    @Test
    void namespaceV2IsKeptOnClientsThatHaveItAndRefusedOnOlderOnes() {
        SafeOrderlyConsumer c = new SafeOrderlyConsumer("GID_NS");
        boolean clientHasIt = java.util.Arrays.stream(org.apache.rocketmq.client.ClientConfig.class.getMethods())
            .anyMatch(m -> m.getName().equals("setNamespaceV2"));
        if (clientHasIt) {
            c.setNamespaceV2("NS_V2");
            assertEquals("NS_V2", c.getNamespaceV2());
        } else {
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> c.setNamespaceV2("NS_V2"));
            assertEquals(true, e.getMessage().contains("5.2 or later"), e.getMessage());
            assertEquals(null, c.getNamespaceV2());
        }
    }
}
