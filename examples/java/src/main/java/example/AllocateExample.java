package example;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.common.message.MessageQueue;

import io.github.rocketmqrebalance.NativeAllocateMessageQueueConsistentHash;

/** The README's Java quick start: a drop-in strategy, and what it gives one consumer. */
public class AllocateExample {
    public static void main(String[] args) {
        NativeAllocateMessageQueueConsistentHash strategy = new NativeAllocateMessageQueueConsistentHash();
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("GID_demo");
        consumer.setAllocateMessageQueueStrategy(strategy); // nothing else changes

        List<MessageQueue> queues = new ArrayList<>();
        for (int i = 0; i < 8; i++) queues.add(new MessageQueue("TopicA", "broker-a", i));
        List<String> ids = Arrays.asList("10.0.0.1@7", "10.0.0.2@7", "10.0.0.3@7");
        System.out.println(strategy.getName() + " gives 10.0.0.1@7 " + strategy.allocate("GID_demo", "10.0.0.1@7", queues, ids));
    }
}
