package io.github.rocketmqrebalance.consumer;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

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
    private static final Logger LOG = Logger.getLogger(GroupSubscriptions.class.getName());

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

    /** Gives {@code standIn}, before it starts, a strategy that allocates nothing. */
    static void prepare(DefaultLitePullConsumer standIn) {
        standIn.setAllocateMessageQueueStrategy(new AllocateNothing());
    }

    /**
     * Subscribes {@code standIn}, started, to {@code topics} with their filters and to the rest of
     * {@code consumed} with every tag. After its start, not before: subscribed then, its start
     * would look each topic's route up and fail on a NameServer that does not answer at once.
     * Subscribed now, the subscription is recorded first and goes out with a heartbeat at once;
     * when the route lookup after it fails, the client's periodic route update and heartbeats
     * carry it on, so that failure is logged and the start goes on. (The filters were checked by
     * {@link #of}, so nothing else can fail here.)
     */
    static void register(DefaultLitePullConsumer standIn, Map<String, MessageSelector> topics, Iterable<String> consumed) {
        for (String topic : consumed) {
            MessageSelector selector = topics.get(topic);
            try {
                standIn.subscribe(topic, selector != null ? selector : MessageSelector.byTag(SubscriptionData.SUB_ALL));
            } catch (MQClientException routeNotYet) {
                LOG.log(Level.WARNING, "subscribed to " + topic + "; its route lookup failed and is left to the client's next update", routeNotYet);
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
