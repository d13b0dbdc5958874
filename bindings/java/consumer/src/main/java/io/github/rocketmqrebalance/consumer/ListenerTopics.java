package io.github.rocketmqrebalance.consumer;

import java.util.List;

import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.protocol.NamespaceUtil;

/**
 * The topic a listener sees on each message, as the push consumer shows it
 * ({@code DefaultMQPushConsumerImpl.resetRetryAndNamespace}, which its orderly service runs before
 * the hooks and the listener): a message redelivered through the group's retry topic shows the
 * topic it was first sent to, and within a namespace every topic shows without the namespace.
 */
final class ListenerTopics {
    private final String retryTopic;
    private final String namespace;

    /** For {@code wireGroup}, the group as the broker knows it, within {@code namespace} (null: none). */
    ListenerTopics(String wireGroup, String namespace) {
        this.retryTopic = MixAll.getRetryTopic(wireGroup);
        this.namespace = namespace;
    }

    /** Sets each message's topic in place (idempotent: a call delivered again sees the same names). */
    void reset(List<MessageExt> messages) {
        for (MessageExt m : messages) {
            // The topic first: the property lookup, per message on the listener's path, only for a retry.
            if (retryTopic.equals(m.getTopic())) {
                String original = m.getProperty(MessageConst.PROPERTY_RETRY_TOPIC);
                if (original != null) {
                    m.setTopic(original);
                }
            }
            if (namespace != null && !namespace.isEmpty()) {
                m.setTopic(NamespaceUtil.withoutNamespace(m.getTopic(), namespace));
            }
        }
    }
}
