package io.github.rocketmqrebalance.consumer;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.LongConsumer;
import java.util.function.Predicate;

import io.github.rocketmqrebalance.engine.RebalanceHost;

import org.apache.rocketmq.client.consumer.store.OffsetStore;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.consumer.store.ReadOffsetType;
import org.apache.rocketmq.client.impl.FindBrokerResult;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.body.LockBatchRequestBody;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.body.UnlockBatchRequestBody;
import org.apache.rocketmq.remoting.protocol.header.QueryConsumerOffsetRequestHeader;

/**
 * The engine's host over the real client: broker locks through the lock/unlock batch requests,
 * offsets through the group's offset store on the broker (synchronous commits), pulling through
 * {@link ListenerCalls}, consume locks from {@link ConsumeLocks}. Called on the rebalance thread only.
 */
final class ClientHost implements RebalanceHost, OffsetCommits.Broker {
    static final long BROKER_TIMEOUT_MS = 3_000;
    /** A broker watch poll: a broker silent this long is fenced until it answers. */
    static final long WATCH_TIMEOUT_MS = 1_000;

    private final MQClientInstance client;
    private final String group;
    /** This consumer's own store: only the engine and the listener thread move its offsets. */
    private final OffsetStore offsets;
    private final ListenerCalls calls;
    private final ConsumeLocks consumeLocks;
    private final LongConsumer scheduleRound;
    /** The broker watch's verdict: false while a broker is out of reach or its restart is being handled. */
    private final Predicate<String> brokerOpen;

    ClientHost(MQClientInstance client, String group, OffsetStore offsets, ListenerCalls calls, ConsumeLocks consumeLocks, LongConsumer scheduleRound,
        Predicate<String> brokerOpen) {
        this.brokerOpen = brokerOpen;
        this.client = client;
        this.group = group;
        this.offsets = offsets;
        this.calls = calls;
        this.consumeLocks = consumeLocks;
        this.scheduleRound = scheduleRound;
    }

    private String brokerAddress(String brokerName) throws Exception {
        return brokerAddress(client, brokerName);
    }

    static String brokerAddress(MQClientInstance client, String brokerName) throws Exception {
        FindBrokerResult found = client.findBrokerAddressInSubscribe(brokerName, MixAll.MASTER_ID, true);
        if (found == null) {
            throw new IllegalStateException("no address for broker " + brokerName);
        }
        return found.getBrokerAddr();
    }

    /** A lock not asked for: the broker watch has not heard the broker since it fell silent. */
    static final class BrokerFenced extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        BrokerFenced(String broker) {
            super("broker " + broker + " is out of reach or restarting; its locks are asked for again once the broker watch hears it");
        }
    }

    /**
     * The engine's lock (a renewal or a new queue's), asked of a broker only while the watch holds
     * it open. A broker back from a silence may have restarted: its empty lock table would refuse
     * or grant anything, and a refusal tells the engine the lock is lost, which releases the queue
     * without a commit and takes it again from the offset the new broker has, older than the
     * cached one by what the broker had not flushed. The watch tells a restart first (then the
     * recipe commits the cached offsets before the engine hears of it) or lifts the fence and has
     * the locks renewed at once. The failure leaves the engine's states as they are.
     */
    @Override
    public Collection<MessageQueue> lock(String broker, List<MessageQueue> queues) throws Exception {
        if (!brokerOpen.test(broker)) {
            throw new BrokerFenced(broker);
        }
        return relock(broker, queues);
    }

    /** The lock request itself, fence or not: the restart recipe's, which runs while the broker is fenced. */
    @Override
    public Collection<MessageQueue> relock(String broker, List<MessageQueue> queues) throws Exception {
        LockBatchRequestBody body = new LockBatchRequestBody();
        body.setConsumerGroup(group);
        body.setClientId(client.getClientId());
        body.setMqSet(new HashSet<>(queues));
        return client.getMQClientAPIImpl().lockBatchMQ(brokerAddress(broker), body, BROKER_TIMEOUT_MS);
    }

    /** Synchronous, unlike Java's one-way unlock: a failed unlock is then retried (engine fix 10). */
    @Override
    public void unlock(String broker, List<MessageQueue> queues) throws Exception {
        UnlockBatchRequestBody body = new UnlockBatchRequestBody();
        body.setConsumerGroup(group);
        body.setClientId(client.getClientId());
        body.setMqSet(new HashSet<>(queues));
        client.getMQClientAPIImpl().unlockBatchMQ(brokerAddress(broker), body, BROKER_TIMEOUT_MS, false);
    }

    /** The broker's own committed offset, read without touching the offset store's cached one. */
    @Override
    public long brokerOffset(MessageQueue mq) throws Exception {
        QueryConsumerOffsetRequestHeader header = new QueryConsumerOffsetRequestHeader();
        header.setConsumerGroup(group);
        header.setTopic(mq.getTopic());
        header.setQueueId(mq.getQueueId());
        try {
            return client.getMQClientAPIImpl().queryConsumerOffset(brokerAddress(mq.getBrokerName()), header, BROKER_TIMEOUT_MS);
        } catch (MQBrokerException e) {
            if (e.getResponseCode() == ResponseCode.QUERY_NOT_FOUND) {
                return -1;
            }
            throw e;
        }
    }

    @Override
    public OptionalLong readOffset(MessageQueue mq, boolean memoryFirst) throws Exception {
        long offset = offsets.readOffset(mq, memoryFirst ? ReadOffsetType.MEMORY_FIRST_THEN_STORE : ReadOffsetType.READ_FROM_STORE);
        if (offset == -1) {
            return OptionalLong.empty(); // the broker has no offset for the group
        }
        if (offset < 0) {
            throw new IllegalStateException("the offset of " + mq + " could not be read from the broker");
        }
        return OptionalLong.of(offset);
    }

    /** Commits the listener's offset, waiting for the broker's answer (the engine unlocks right after). */
    @Override
    public void persistOffset(MessageQueue mq) throws Exception {
        long offset = offsets.readOffset(mq, ReadOffsetType.READ_FROM_MEMORY);
        if (offset >= 0) {
            offsets.updateConsumeOffsetToBroker(mq, offset, false);
        }
    }

    @Override
    public void removeOffset(MessageQueue mq) {
        offsets.removeOffset(mq);
    }

    @Override
    public long maxOffset(MessageQueue mq) throws Exception {
        return client.getMQAdminImpl().maxOffset(mq);
    }

    @Override
    public long searchOffset(MessageQueue mq, long timestampMs) throws Exception {
        return client.getMQAdminImpl().searchOffset(mq, timestampMs);
    }

    @Override
    public boolean tryConsumeLock(MessageQueue mq, long generation, long waitMs) throws InterruptedException {
        return consumeLocks.tryLock(mq, generation, waitMs);
    }

    @Override
    public void releaseConsumeLock(MessageQueue mq, long generation) {
        consumeLocks.unlock(mq, generation);
    }

    @Override
    public void dispatchPull(MessageQueue mq, long offset, long delayMs, long generation) throws Exception {
        calls.start(mq, offset, generation, delayMs);
    }

    @Override
    public void stopPull(MessageQueue mq, long generation) {
        calls.stop(mq, generation);
    }

    @Override
    public void queueSetChanged(String topic, List<MessageQueue> all, List<MessageQueue> divided) {
    }

    @Override
    public void scheduleRebalance(long delayMs) {
        scheduleRound.accept(delayMs);
    }

    /** A queue with no committed offset starts once per group: its start is committed first. */
    @Override
    public boolean commitOffset(MessageQueue mq, long offset) throws Exception {
        offsets.updateOffset(mq, offset, false);
        offsets.updateConsumeOffsetToBroker(mq, offset, false);
        return true;
    }
}
