package io.github.rocketmqrebalance.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * Delegates to the strategy under test and writes down, in a {@link HoldingsFile}, what it answered
 * for one topic: the ground truth a driver compares inspect's reading and the broker's with. Built
 * on the 5.x line (tests/e2e/java) and the 4.9 line (tests/e2e/java49) alike.
 */
public final class RecordingStrategy implements AllocateMessageQueueStrategy {
    private final AllocateMessageQueueStrategy inner;
    private final String topic;
    private final HoldingsFile holdings;

    public RecordingStrategy(AllocateMessageQueueStrategy inner, String topic, HoldingsFile holdings) {
        this.inner = inner;
        this.topic = topic;
        this.holdings = holdings;
    }

    @Override
    public List<MessageQueue> allocate(String group, String currentCID, List<MessageQueue> mqAll, List<String> cidAll) {
        List<MessageQueue> mine = inner.allocate(group, currentCID, mqAll, cidAll);
        if (!mqAll.isEmpty() && mqAll.get(0).getTopic().equals(topic)) {
            List<Integer> ids = new ArrayList<>();
            for (MessageQueue q : mine) {
                ids.add(q.getQueueId());
            }
            Collections.sort(ids);
            try {
                holdings.write(currentCID, new ArrayList<>(cidAll), ids, false);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return mine;
    }

    @Override
    public String getName() {
        return inner.getName();
    }

    /** What admin tools see in the running info: the wrapped strategy, as without the recording. */
    @Override
    public String toString() {
        return inner.toString();
    }
}
