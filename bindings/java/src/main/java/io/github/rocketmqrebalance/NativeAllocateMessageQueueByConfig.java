package io.github.rocketmqrebalance;

import java.util.List;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * {@code AllocateMessageQueueByConfig} (CONFIG): every client gets the configured list, whatever
 * it is asked (null until set). There is nothing to compute, so nothing crosses to native code,
 * and it is not a {@link NativeStrategy} (the engine cannot run it); the class exists so every
 * original has its drop-in.
 */
public class NativeAllocateMessageQueueByConfig implements AllocateMessageQueueStrategy {
    private volatile List<MessageQueue> messageQueueList;

    @Override
    public List<MessageQueue> allocate(String consumerGroup, String currentCID, List<MessageQueue> mqAll, List<String> cidAll) {
        return messageQueueList;
    }

    @Override
    public String getName() {
        return "CONFIG";
    }

    public List<MessageQueue> getMessageQueueList() {
        return messageQueueList;
    }

    public void setMessageQueueList(List<MessageQueue> messageQueueList) {
        this.messageQueueList = messageQueueList;
    }
}
