package io.github.rocketmqrebalance.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import org.apache.rocketmq.common.message.MessageAccessor;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;

/**
 * The topics a listener sees, by the rules of {@code DefaultMQPushConsumerImpl.resetRetryAndNamespace}
 * (derived from its source, not its output): a message of the group's retry topic that names its
 * original topic shows that one; a retry-topic property on a message of another topic changes
 * nothing; within a namespace the namespace is taken off; and a second reset changes nothing.
 */
class ListenerTopicsTest {
    private static MessageExt on(String topic, String retryTopicProperty) {
        MessageExt m = new MessageExt();
        m.setTopic(topic);
        if (retryTopicProperty != null) {
            MessageAccessor.putProperty(m, MessageConst.PROPERTY_RETRY_TOPIC, retryTopicProperty);
        }
        return m;
    }

    private static List<String> topics(List<MessageExt> ms) {
        return ms.stream().map(MessageExt::getTopic).collect(Collectors.toList());
    }

    @Test
    void aRedeliveredMessageShowsItsOriginalTopic() {
        List<MessageExt> ms = Arrays.asList(on("%RETRY%GID", "ORDERS"), on("ORDERS", null), on("OTHER", "ORDERS"), on("%RETRY%GID_OTHER", "ORDERS"));
        new ListenerTopics("GID", null).reset(ms);
        assertEquals(Arrays.asList("ORDERS", "ORDERS", "OTHER", "%RETRY%GID_OTHER"), topics(ms));
    }

    @Test
    void withinANamespaceTheNamespaceIsTakenOffOnce() {
        // The retry topic of NS_A%GID is %RETRY%NS_A%GID; the original topic property carries the namespace.
        List<MessageExt> ms = Arrays.asList(on("NS_A%ORDERS", null), on("%RETRY%NS_A%GID", "NS_A%ORDERS"), on("ORDERS", null));
        ListenerTopics reset = new ListenerTopics("NS_A%GID", "NS_A");
        reset.reset(ms);
        assertEquals(Arrays.asList("ORDERS", "ORDERS", "ORDERS"), topics(ms));
        reset.reset(ms);
        assertEquals(Arrays.asList("ORDERS", "ORDERS", "ORDERS"), topics(ms));
    }
}
