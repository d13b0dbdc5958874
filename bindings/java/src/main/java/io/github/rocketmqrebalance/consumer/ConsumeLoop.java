package io.github.rocketmqrebalance.consumer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.github.rocketmqrebalance.engine.Rebalancer;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.consumer.store.OffsetStore;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * Pulling and the listener. The lite-pull consumer (assign mode, committing nothing) fetches the
 * queues the engine dispatched; one thread polls and calls the listener queue by queue, each call
 * under that queue state's consume lock and only while the engine says the state is consumable,
 * so a queue being released or whose lock was lost gets no further call, nor does a queue of a
 * broker {@link BrokerWatch} fences. The next offset of each
 * state is tracked here: a message below it (a stale buffer) is skipped, a gap makes it seek back
 * rather than consume past a message.
 */
final class ConsumeLoop implements Runnable {
    private static final Logger LOG = Logger.getLogger(ConsumeLoop.class.getName());
    private static final long POLL_MS = 100;

    /** Where the listener is in one queue state. */
    private static final class Position {
        final long generation;
        volatile long next;
        volatile long suspendedUntilMs;

        Position(long generation, long next) {
            this.generation = generation;
            this.next = next;
        }
    }

    private final DefaultLitePullConsumer puller;
    private final MessageListenerOrderly listener;
    private final ConsumeLocks consumeLocks;
    private final LongSupplier clock;
    /** False for a broker whose queues must not start a call now (out of reach, or its restart being handled). */
    private final Predicate<String> brokerOpen;
    private final Map<MessageQueue, Position> positions = new ConcurrentHashMap<>();
    /** What the puller is assigned; a paused queue stays in it (the puller refuses an empty set). */
    private final Set<MessageQueue> assigned = ConcurrentHashMap.newKeySet();
    private final Set<MessageQueue> paused = ConcurrentHashMap.newKeySet();
    private volatile Rebalancer rebalancer;
    private volatile OffsetStore offsets;
    private volatile boolean running = true;

    ConsumeLoop(DefaultLitePullConsumer puller, MessageListenerOrderly listener, ConsumeLocks consumeLocks, LongSupplier clock,
        Predicate<String> brokerOpen) {
        this.puller = puller;
        this.listener = listener;
        this.consumeLocks = consumeLocks;
        this.clock = clock;
        this.brokerOpen = brokerOpen;
    }

    void bind(Rebalancer rebalancer, OffsetStore offsets) {
        this.rebalancer = rebalancer;
        this.offsets = offsets;
    }

    /** Where the engine started {@code mq}'s current state: what the puller's offset store answers. */
    Long startOffset(MessageQueue mq) {
        Position p = positions.get(mq);
        return p == null ? null : p.next;
    }

    /**
     * The engine took {@code mq} as state {@code generation}, starting at {@code offset}. A queue
     * newly assigned to the puller is fetched from {@link #startOffset}; only a queue still
     * assigned from before (paused, see {@link #stop}) needs a seek.
     */
    synchronized void start(MessageQueue mq, long offset, long generation) throws Exception {
        positions.put(mq, new Position(generation, offset));
        boolean stillAssigned = paused.remove(mq);
        if (!stillAssigned) {
            assigned.removeAll(paused); // a queue left paused is let go now that the set is not empty
            paused.clear();
        }
        assigned.add(mq);
        puller.assign(new ArrayList<>(assigned));
        if (stillAssigned) {
            puller.resume(Collections.singletonList(mq));
            puller.seek(mq, offset);
        }
    }

    /** The engine dropped state {@code generation} of {@code mq}: stop fetching it. */
    synchronized void stop(MessageQueue mq, long generation) {
        Position p = positions.get(mq);
        if (p == null || p.generation != generation) {
            return;
        }
        positions.remove(mq);
        if (assigned.size() == 1) {
            // assign() refuses an empty set: the last queue stays assigned, paused.
            puller.pause(Collections.singletonList(mq));
            paused.add(mq);
        } else {
            assigned.remove(mq);
            paused.removeAll(Collections.singleton(mq));
            puller.assign(new ArrayList<>(assigned));
        }
    }

    void halt() {
        running = false;
    }

    @Override
    public void run() {
        while (running) {
            try {
                List<MessageExt> polled = puller.poll(POLL_MS);
                recordPulls();
                for (Map.Entry<MessageQueue, List<MessageExt>> e : byQueue(polled).entrySet()) {
                    consume(e.getKey(), e.getValue());
                }
            } catch (Throwable t) {
                if (running) {
                    LOG.log(Level.WARNING, "consume loop", t);
                    sleep(100);
                }
            }
        }
    }

    /**
     * Tells the engine that each dispatched state is still being pulled: the lite-pull consumer
     * fetches every assigned queue in the background, whether or not it has messages, and this
     * loop being alive is what says its fetching is (the engine releases a state whose pulls stop
     * for {@code pull_expired_ms}, as Java does for a stuck pull request).
     */
    private void recordPulls() {
        Rebalancer r = rebalancer;
        if (r == null) {
            return;
        }
        long now = clock.getAsLong();
        positions.forEach((mq, p) -> r.recordPull(mq, p.generation, now));
    }

    private static Map<MessageQueue, List<MessageExt>> byQueue(List<MessageExt> polled) {
        Map<MessageQueue, List<MessageExt>> out = new LinkedHashMap<>();
        for (MessageExt m : polled) {
            out.computeIfAbsent(new MessageQueue(m.getTopic(), m.getBrokerName(), m.getQueueId()), q -> new ArrayList<>()).add(m);
        }
        return out;
    }

    /** One listener call for {@code mq}, under its consume lock, if the engine still says so. */
    // COMMIT is deprecated, but listeners written for it still return it: it is SUCCESS here.
    @SuppressWarnings("deprecation")
    private void consume(MessageQueue mq, List<MessageExt> batch) throws Exception {
        Position p = positions.get(mq);
        Rebalancer r = rebalancer;
        if (p == null || r == null) {
            return;
        }
        ReentrantLock lock = consumeLocks.of(mq, p.generation);
        if (lock == null) {
            return;
        }
        lock.lock();
        try {
            // False as well when the queue's current state is another generation than this one.
            if (!r.isConsumable(mq, p.generation, clock.getAsLong())) {
                return;
            }
            List<MessageExt> fresh = new ArrayList<>();
            for (MessageExt m : batch) {
                if (m.getQueueOffset() >= p.next) {
                    fresh.add(m);
                }
            }
            if (fresh.isEmpty()) {
                return;
            }
            long first = fresh.get(0).getQueueOffset();
            if (first > p.next || clock.getAsLong() < p.suspendedUntilMs || !brokerOpen.test(mq.getBrokerName())) {
                // A gap, a suspended queue, or a fenced broker: fetch again from where the listener is.
                puller.seek(mq, p.next);
                return;
            }
            ConsumeOrderlyContext context = new ConsumeOrderlyContext(mq);
            ConsumeOrderlyStatus status;
            try {
                status = listener.consumeMessage(Collections.unmodifiableList(fresh), context);
            } catch (Throwable t) {
                LOG.log(Level.WARNING, "listener threw for " + mq + "; the batch will be delivered again", t);
                status = null;
            }
            if (status == ConsumeOrderlyStatus.SUCCESS || status == ConsumeOrderlyStatus.COMMIT) {
                p.next = fresh.get(fresh.size() - 1).getQueueOffset() + 1;
                // Before the consume lock is released: a release commits right after taking it.
                offsets.updateOffset(mq, p.next, true);
            } else {
                long suspend = context.getSuspendCurrentQueueTimeMillis();
                p.suspendedUntilMs = clock.getAsLong() + (suspend > 0 ? suspend : 1_000);
                puller.seek(mq, p.next);
            }
        } finally {
            lock.unlock();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
