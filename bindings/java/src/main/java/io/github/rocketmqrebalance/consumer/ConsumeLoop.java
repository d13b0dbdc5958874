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
 * queues the engine dispatched; one thread polls, and {@link QueueWorkers} call the listener, queues
 * in parallel and each queue one call after another, each call
 * under that queue state's consume lock and only while the engine says the state is consumable,
 * so a queue being released or whose lock was lost gets no further call, nor does a queue of a
 * broker {@link BrokerWatch} fences. The next offset of each
 * state is tracked here: a message below it (a stale buffer) is skipped, a gap makes it seek back
 * rather than consume past a message.
 *
 * <p>A queue's polled messages go to the listener {@code consumeMessageBatchMaxSize} at a time. A
 * call that fails (any status but SUCCESS, or a throw) counts an attempt against each of its
 * messages and suspends the queue for the context's {@code suspendCurrentQueueTimeMillis}, as
 * Java's orderly consumer does; a message that has failed {@code maxReconsumeTimes} times goes to
 * the dead-letter queue ({@link DeadLetters}) and the queue goes on past it.
 */
final class ConsumeLoop implements Runnable {
    private static final Logger LOG = Logger.getLogger(ConsumeLoop.class.getName());
    private static final long POLL_MS = 100;
    /**
     * How often the loop tells the engine its queues are still being pulled: far inside the
     * engine's {@code pull_expired_ms} (120 s by default, as Java's), and not once per poll, which
     * at tens of thousands of polls a second cost a native call per queue each time.
     */
    private static final long RECORD_PULLS_EVERY_MS = 1_000;

    /** Where the listener is in one queue state. */
    private static final class Position {
        final long generation;
        volatile long next;
        volatile long suspendedUntilMs;
        /** Failed attempts per offset at or past {@code next} (touched under the consume lock only). */
        final Map<Long, Integer> failures = new java.util.HashMap<>();

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
    private final int batchMax;
    private final int maxReconsumeTimes;
    private final DeadLetters deadLetters;
    private final ConsumeStatistics statistics;
    private final Map<MessageQueue, Position> positions = new ConcurrentHashMap<>();
    /** What the puller is assigned; a paused queue stays in it (the puller refuses an empty set). */
    private final Set<MessageQueue> assigned = ConcurrentHashMap.newKeySet();
    private final Set<MessageQueue> paused = ConcurrentHashMap.newKeySet();
    private volatile QueueWorkers workers;
    private volatile Rebalancer rebalancer;
    private volatile OffsetStore offsets;
    private volatile boolean running = true;
    /** Whether and when {@link #recordPulls} last told the engine (the poll thread's own). */
    private boolean pullsRecorded;
    private long pullsRecordedAt;

    /** {@code maxReconsumeTimes} is the count itself (callers map Java's -1 to no limit). */
    ConsumeLoop(DefaultLitePullConsumer puller, MessageListenerOrderly listener, ConsumeLocks consumeLocks, LongSupplier clock,
        Predicate<String> brokerOpen, int batchMax, int maxReconsumeTimes, DeadLetters deadLetters, ConsumeStatistics statistics) {
        this.puller = puller;
        this.listener = listener;
        this.consumeLocks = consumeLocks;
        this.clock = clock;
        this.brokerOpen = brokerOpen;
        this.batchMax = batchMax;
        this.maxReconsumeTimes = maxReconsumeTimes;
        this.deadLetters = deadLetters;
        this.statistics = statistics;
    }

    void bind(Rebalancer rebalancer, OffsetStore offsets) {
        this.rebalancer = rebalancer;
        this.offsets = offsets;
    }

    /** The pool that calls the listener; set before the loop runs. */
    void useWorkers(QueueWorkers workers) {
        this.workers = workers;
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
        workers.forget(mq);
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
                    statistics.pulled(e.getKey().getTopic(), e.getValue().size());
                    workers.offer(e.getKey(), e.getValue());
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
        long now = clock.getAsLong();
        if (r == null || pullsRecorded && now - pullsRecordedAt < RECORD_PULLS_EVERY_MS) {
            return;
        }
        pullsRecorded = true;
        pullsRecordedAt = now;
        positions.forEach((mq, p) -> r.recordPull(mq, p.generation, now));
    }

    private static Map<MessageQueue, List<MessageExt>> byQueue(List<MessageExt> polled) {
        Map<MessageQueue, List<MessageExt>> out = new LinkedHashMap<>();
        for (MessageExt m : polled) {
            out.computeIfAbsent(new MessageQueue(m.getTopic(), m.getBrokerName(), m.getQueueId()), q -> new ArrayList<>()).add(m);
        }
        return out;
    }

    /**
     * Listener calls for {@code mq}'s polled messages, under its consume lock, while the engine says
     * so; when it cannot go on in order, the queue is fetched again from where the listener is.
     */
    void consume(MessageQueue mq, List<MessageExt> batch) {
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
            List<MessageExt> fresh = new ArrayList<>();
            for (MessageExt m : batch) {
                if (m.getQueueOffset() >= p.next) {
                    fresh.add(m);
                }
            }
            for (int from = 0; from < fresh.size(); from += batchMax) {
                // False as well when the queue's current state is another generation than this one.
                if (!r.isConsumable(mq, p.generation, clock.getAsLong())) {
                    return;
                }
                List<MessageExt> call = fresh.subList(from, Math.min(fresh.size(), from + batchMax));
                if (call.get(0).getQueueOffset() > p.next || clock.getAsLong() < p.suspendedUntilMs || !brokerOpen.test(mq.getBrokerName())
                    || !call(mq, p, call)) {
                    // A gap, a suspended queue, a fenced broker, or a failed call: fetch again from
                    // where the listener is.
                    long listenerAt = p.next;
                    workers.refetch(mq, () -> seek(mq, listenerAt));
                    return;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** One listener call; true when the queue goes on (it succeeded, or its messages went to the dead-letter queue). */
    // COMMIT is deprecated, but listeners written for it still return it: it is SUCCESS here.
    @SuppressWarnings("deprecation")
    private boolean call(MessageQueue mq, Position p, List<MessageExt> call) {
        ConsumeOrderlyContext context = new ConsumeOrderlyContext(mq);
        ConsumeOrderlyStatus status;
        long began = clock.getAsLong();
        try {
            status = listener.consumeMessage(Collections.unmodifiableList(call), context);
        } catch (Throwable t) {
            LOG.log(Level.WARNING, "listener threw for " + mq + "; a failed attempt, delivered again", t);
            status = null;
        }
        boolean succeeded = status == ConsumeOrderlyStatus.SUCCESS || status == ConsumeOrderlyStatus.COMMIT;
        statistics.called(mq.getTopic(), call.size(), clock.getAsLong() - began, succeeded);
        if (succeeded) {
            advance(mq, p, call.get(call.size() - 1).getQueueOffset() + 1);
            return true;
        }
        if (deadLettered(mq, p, call) == call.size()) {
            return true;
        }
        long suspend = context.getSuspendCurrentQueueTimeMillis();
        p.suspendedUntilMs = clock.getAsLong() + (suspend > 0 ? suspend : 1_000);
        return false;
    }

    /**
     * Counts a failed attempt against each message of the call. As Java's
     * {@code checkReconsumeTimes}, a message whose earlier failures reach {@code maxReconsumeTimes}
     * goes to the dead-letter queue instead; here only the leading run of them (a queue is
     * consumed in order, so the listener's position can pass only those), and a message whose
     * send failed is counted and tried again. Returns how many went, the position moved past them.
     */
    private int deadLettered(MessageQueue mq, Position p, List<MessageExt> call) {
        int sent = 0;
        for (int i = 0; i < call.size(); i++) {
            MessageExt m = call.get(i);
            int before = p.failures.getOrDefault(m.getQueueOffset(), 0);
            int attempts = m.getReconsumeTimes() + before;
            // sent == i: every message before this one went, so the position can pass this one too.
            if (sent == i && attempts >= maxReconsumeTimes && deadLetters.send(m, attempts, maxReconsumeTimes)) {
                sent++;
            } else {
                p.failures.put(m.getQueueOffset(), before + 1);
            }
        }
        if (sent > 0) {
            advance(mq, p, call.get(sent - 1).getQueueOffset() + 1);
        }
        return sent;
    }

    private void seek(MessageQueue mq, long offset) {
        try {
            puller.seek(mq, offset);
        } catch (Exception e) {
            // The next poll's gap (or the engine's next start of the queue) seeks again.
            LOG.log(Level.WARNING, "seeking " + mq + " back to " + offset + " failed", e);
        }
    }

    /** The listener is done with everything below {@code next}: it is the offset to commit. */
    private void advance(MessageQueue mq, Position p, long next) {
        p.next = next;
        if (!p.failures.isEmpty()) {
            p.failures.keySet().removeIf(offset -> offset < next);
        }
        // Before the consume lock is released: a release commits right after taking it.
        offsets.updateOffset(mq, next, true);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
