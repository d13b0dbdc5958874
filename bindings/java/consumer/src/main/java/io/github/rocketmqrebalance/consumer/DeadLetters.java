package io.github.rocketmqrebalance.consumer;

import java.util.logging.Level;
import java.util.logging.Logger;

import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.UtilAll;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageAccessor;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * A message that failed {@code maxReconsumeTimes} times goes to the group's dead-letter queue as
 * Java's orderly push consumer sends it ({@code ConsumeMessageOrderlyService.sendMessageBack}): a
 * copy to {@code %RETRY%<group>} through the client's own producer, carrying the original's
 * properties and id, its topic, its attempts and the limit; the broker, seeing attempts at the
 * limit, stores it in {@code %DLQ%<group>} instead of the retry topic.
 */
final class DeadLetters {
    private static final Logger LOG = Logger.getLogger(DeadLetters.class.getName());

    private final MQClientInstance client;
    private final String group;

    DeadLetters(MQClientInstance client, String group) {
        this.client = client;
        this.group = group;
    }

    /** Sends {@code msg}, which failed {@code attempts} times against a limit of {@code max}; false if the send failed. */
    boolean send(MessageExt msg, int attempts, int max) {
        Message copy = new Message(MixAll.getRetryTopic(group), msg.getBody());
        String origin = MessageAccessor.getOriginMessageId(msg);
        MessageAccessor.setOriginMessageId(copy, UtilAll.isBlank(origin) ? msg.getMsgId() : origin);
        copy.setFlag(msg.getFlag());
        MessageAccessor.setProperties(copy, new java.util.HashMap<>(msg.getProperties()));
        MessageAccessor.putProperty(copy, MessageConst.PROPERTY_RETRY_TOPIC, msg.getTopic());
        MessageAccessor.setReconsumeTime(copy, String.valueOf(attempts));
        MessageAccessor.setMaxReconsumeTimes(copy, String.valueOf(max));
        MessageAccessor.clearProperty(copy, MessageConst.PROPERTY_TRANSACTION_PREPARED);
        copy.setDelayTimeLevel(3 + attempts);
        try {
            client.getDefaultMQProducer().send(copy);
            return true;
        } catch (Exception e) {
            LOG.log(Level.WARNING, "sending " + msg.getMsgId() + " to the dead-letter queue of " + group + " failed; it is tried again", e);
            return false;
        }
    }
}
