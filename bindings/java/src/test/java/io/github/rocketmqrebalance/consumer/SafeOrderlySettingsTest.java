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
}
