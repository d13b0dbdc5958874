package io.github.rocketmqrebalance.engine;

import java.util.Collections;
import java.util.List;

import org.apache.rocketmq.common.message.MessageQueue;

/**
 * What a client knows about one topic at the start of a round: its queues (null when the route is
 * unknown) and the group's client ids (null when they could not be fetched).
 */
public final class TopicView {
    public final List<MessageQueue> queues;
    public final List<String> clientIds;

    public TopicView(List<MessageQueue> queues, List<String> clientIds) {
        this.queues = queues == null ? null : Collections.unmodifiableList(queues);
        this.clientIds = clientIds == null ? null : Collections.unmodifiableList(clientIds);
    }
}
