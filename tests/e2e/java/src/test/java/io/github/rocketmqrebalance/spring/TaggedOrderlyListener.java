package io.github.rocketmqrebalance.spring;

import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.spring.annotation.ConsumeMode;
import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.beans.factory.annotation.Value;

/** An ordinary rocketmq-spring orderly listener, as the user wrote it: one tag, traced; every call goes to the {@link CallLog}. */
@RocketMQMessageListener(topic = "${test.topic}", consumerGroup = "${test.group}", consumeMode = ConsumeMode.ORDERLY,
    selectorExpression = "keep", enableMsgTrace = true)
class TaggedOrderlyListener implements RocketMQListener<MessageExt> {
    @Value("${test.instance}")
    private String instance;

    @Override
    public void onMessage(MessageExt message) {
        CallLog.call(instance, message);
    }
}
