package io.github.rocketmqrebalance;

import java.util.List;

import io.github.rocketmqrebalance.internal.Json;

import org.apache.rocketmq.common.message.MessageQueue;

/** {@code AllocateMessageQueueAveragelyByCircle} (AVG_BY_CIRCLE), computed by the Rust core. */
public class NativeAllocateMessageQueueAveragelyByCircle extends NativeStrategy {
    @Override
    public List<MessageQueue> allocate(String consumerGroup, String currentCID, List<MessageQueue> mqAll, List<String> cidAll) {
        return NativeAllocateMessageQueueAveragely.byCounts(strategyId(), currentCID, mqAll, cidAll);
    }

    @Override
    public String getName() {
        return "AVG_BY_CIRCLE";
    }

    @Override
    String configName() {
        return "circle";
    }

    @Override
    String configParams() {
        return Json.object();
    }
}
