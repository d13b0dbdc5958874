package io.github.rocketmqrebalance.consumer;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.filter.FilterAPI;
import org.apache.rocketmq.remoting.protocol.heartbeat.SubscriptionData;

/**
 * The topics a group consumes, registered at the broker as a push consumer registers them: each
 * subscribed topic with its filter (tags or SQL92) and, as the group consumes in clustering mode,
 * its retry topic
 * {@code %RETRY%<group>}. The registration rides on the heartbeats of the lite-pull consumer that
 * stands for the group: subscribed, it reports the subscriptions to every broker, so admin tools
 * ({@code mqadmin consumerConnection}, the dashboard, {@code rmq-rebalance inspect --group}) list
 * the group as a consumer of its topics. Its own rebalance is given a strategy that allocates
 * nothing, so it starts no pull: the engine decides who holds what, and {@link QueuePuller} fetches.
 */
final class GroupSubscriptions {
    private GroupSubscriptions() {
    }

    /**
     * What the engine rebalances and fetches: the subscribed topics in order, each with its filter,
     * then the retry topic with every tag. A filter the client cannot parse is refused here.
     */
    static Map<String, SubscriptionData> of(String group, Map<String, MessageSelector> topics) throws MQClientException {
        Map<String, SubscriptionData> out = new LinkedHashMap<>();
        try {
            for (Map.Entry<String, MessageSelector> t : topics.entrySet()) {
                MessageSelector selector = t.getValue();
                out.put(t.getKey(), FilterAPI.build(t.getKey(), selector.getExpression(), selector.getExpressionType()));
            }
            String retry = MixAll.getRetryTopic(group);
            out.put(retry, FilterAPI.buildSubscriptionData(retry, SubscriptionData.SUB_ALL));
        } catch (Exception unparsable) {
            throw new MQClientException("subscription of group " + group + " not valid: " + unparsable.getMessage(), unparsable);
        }
        return Collections.unmodifiableMap(out);
    }

    /** Subscribes {@code standIn} (not started yet) to {@code topics} with their filters, and to the rest of {@code consumed} with every tag. */
    static void register(DefaultLitePullConsumer standIn, Map<String, MessageSelector> topics, Iterable<String> consumed) throws MQClientException {
        standIn.setAllocateMessageQueueStrategy(new AllocateNothing());
        for (String topic : consumed) {
            MessageSelector selector = topics.get(topic);
            if (selector != null) {
                standIn.subscribe(topic, selector);
            } else {
                standIn.subscribe(topic, SubscriptionData.SUB_ALL);
            }
        }
    }

    /** The stand-in's share of every topic: none. Named so in its running info. */
    static final class AllocateNothing implements AllocateMessageQueueStrategy {
        @Override
        public List<MessageQueue> allocate(String consumerGroup, String currentCID, List<MessageQueue> mqAll, List<String> cidAll) {
            return Collections.emptyList();
        }

        @Override
        public String getName() {
            return "NONE_THE_ENGINE_ALLOCATES";
        }
    }
}
