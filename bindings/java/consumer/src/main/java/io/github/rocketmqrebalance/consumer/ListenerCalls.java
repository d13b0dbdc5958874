package io.github.rocketmqrebalance.consumer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.github.rocketmqrebalance.engine.RebalanceConfig;
import io.github.rocketmqrebalance.engine.Rebalancer;

import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.consumer.store.OffsetStore;
import org.apache.rocketmq.client.hook.ConsumeMessageContext;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The listener's side of each dispatched queue state. {@link QueuePuller} fetches the queues and
 * hands what it fetched here ({@link #fetched}); {@link QueueWorkers} call the listener, queues in
 * parallel and each queue one call after another, each call under that queue state's consume lock
 * and only while the engine says the state is consumable, so a queue being released or whose lock
 * was lost gets no further call, nor does a queue of a broker {@link BrokerWatch} fences. The next
 * offset of each state is tracked here: a message below it (a stale buffer) is skipped, a gap
 * makes it fetch again from there rather than consume past a message.
 *
 * <p>A queue's fetched messages go to the listener {@code consumeMessageBatchMaxSize} at a time. A
 * call that fails (any status but SUCCESS, or a throw) counts an attempt against each of its
 * messages and suspends the queue for the context's {@code suspendCurrentQueueTimeMillis}, as
 * Java's orderly consumer does; a message that has failed {@code maxReconsumeTimes} times goes to
 * the dead-letter queue ({@link DeadLetters}) and the queue goes on past it.
 */
final class ListenerCalls {
    private static final Logger LOG = Logger.getLogger(ListenerCalls.class.getName());

    /** Where the listener is in one queue state. */
    private static final class Position {
        final long generation;
        volatile long next;
        volatile long suspendedUntilMs;
        /** Set by {@link #stop} when the engine drops this state, before it tries the consume lock. */
        volatile boolean stopped;
        /** The engine's last {@code consumableUntil} answer (touched under the consume lock only; none yet: MIN_VALUE). */
        long consumableUntilMs = Long.MIN_VALUE;
        /** Failed attempts per offset at or past {@code next} (touched under the consume lock only). */
        final Map<Long, Integer> failures = new java.util.HashMap<>();

        Position(long generation, long next) {
            this.generation = generation;
            this.next = next;
        }
    }

    private final MessageListenerOrderly listener;
    private final Rebalancer rebalancer;
    /** The listener's offsets (this consumer's own store): moved here, committed by the engine and {@link OffsetCommits}. */
    private final OffsetStore offsets;
    private final ConsumeLocks consumeLocks;
    private final LongSupplier clock;
    /** False for a broker whose queues must not start a call now (out of reach, or its restart being handled). */
    private final Predicate<String> brokerOpen;
    private final int batchMax;
    private final int maxReconsumeTimes;
    private final DeadLetters deadLetters;
    private final ConsumeStatistics statistics;
    private final ConsumeHooks hooks;
    private final Map<MessageQueue, Position> positions = new ConcurrentHashMap<>();
    private final QueuePuller puller;
    private final QueueWorkers workers;
    /** The topic names the listener sees. */
    private final ListenerTopics topics;
    /** Whether {@link #consumable} may keep the engine's answer (safe semantics drop every state whose lock is refused). */
    private final boolean keepsLockAnswers;
    /** The wait after a failed call, from the context's own ({@link ConsumerSettings#suspendAfterFailure}). */
    private final java.util.function.LongUnaryOperator suspendAfterFailure;

    /**
     * The listener's side with its fetching ({@link QueuePuller} over {@code wire}, which hands
     * what it fetched to {@link #fetched}) and its consume pool ({@link QueueWorkers}, which calls
     * {@link #consume}), both made here, in that order, with the settings in force. Neither runs a
     * queue before the engine starts one ({@link #start}), which it does only once this is built.
     */
    ListenerCalls(MessageListenerOrderly listener, Rebalancer rebalancer, OffsetStore offsets, ConsumeLocks consumeLocks, LongSupplier clock,
        Predicate<String> brokerOpen, ConsumerSettings settings, DeadLetters deadLetters, ConsumeStatistics statistics, ConsumeHooks hooks,
        QueuePuller.Wire wire) {
        this.listener = listener;
        this.rebalancer = rebalancer;
        this.offsets = offsets;
        this.consumeLocks = consumeLocks;
        this.clock = clock;
        this.brokerOpen = brokerOpen;
        this.batchMax = settings.consumeMessageBatchMaxSize;
        this.maxReconsumeTimes = settings.reconsumeLimit();
        this.deadLetters = deadLetters;
        this.statistics = statistics;
        this.hooks = hooks;
        this.suspendAfterFailure = settings::suspendAfterFailure;
        this.keepsLockAnswers = settings.semantics == RebalanceConfig.Semantics.SAFE;
        this.topics = new ListenerTopics(settings.wireGroup(), settings.namespace);
        this.puller = new QueuePuller(wire, settings.group, this::fetched, clock, settings.pullBatchSize, settings.pullIntervalMs, rebalancer::recordPull);
        this.workers = new QueueWorkers(this::consume, puller, settings);
    }

    /** Issues no further pull until {@link #resume()}; what was fetched is still consumed (as the push consumer's {@code suspend()}). */
    void suspend() {
        puller.suspend();
    }

    void resume() {
        puller.resume();
    }

    QueueWorkers workers() {
        return workers;
    }

    /** Stops fetching, then waits up to {@code awaitMs} for running listener calls. */
    void shutdown(long awaitMs) {
        puller.shutdown();
        workers.shutdown(awaitMs);
    }

    /** The engine took {@code mq} as state {@code generation}, starting at {@code offset}: fetch it after {@code delayMs}. */
    void start(MessageQueue mq, long offset, long generation, long delayMs) {
        positions.put(mq, new Position(generation, offset));
        workers.share(positions.size());
        puller.start(mq, generation, offset, delayMs);
    }

    /** The engine dropped state {@code generation} of {@code mq}: stop fetching it. */
    void stop(MessageQueue mq, long generation) {
        Position p = positions.get(mq);
        if (p == null || p.generation != generation) {
            return;
        }
        p.stopped = true;
        positions.remove(mq, p);
        puller.stop(mq, generation);
        workers.forget(mq);
        workers.share(positions.size());
    }

    /** What {@link QueuePuller} fetched for {@code mq} (offsets {@code from} to {@code to}), in offset order: to the queue's backlog. */
    void fetched(MessageQueue mq, List<MessageExt> messages, long from, long to, long roundTripNanos) {
        if (!messages.isEmpty()) {
            statistics.pulled(mq.getTopic(), messages.size(), roundTripNanos);
        }
        workers.offer(mq, messages, from, to);
    }

    /**
     * Listener calls for {@code mq}'s fetched messages, under its consume lock, while the engine says
     * so; when it cannot go on in order, the queue is fetched again from where the listener is.
     */
    void consume(MessageQueue mq, List<MessageExt> batch, long coveredFrom, long coveredTo) {
        Position p = positions.get(mq);
        if (p == null) {
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
                if (!consumable(mq, p)) {
                    // Its lock lapsed (a renewal lost while the broker was out of reach, say): these
                    // messages are dropped here, and the fetch has moved past them. Fetch again from
                    // where the listener is, a little later, or a queue with no newer message (no
                    // gap to notice) would never get them back while it stays this client's (seen
                    // on a real broker: the tail of four queues unconsumed for minutes after a
                    // 40 s silence, their locks renewed).
                    puller.seek(mq, p.generation, p.next, () -> workers.forget(mq), QueuePuller.RETRY_AFTER_FAILURE_MS);
                    return;
                }
                List<MessageExt> call = fresh.subList(from, Math.min(fresh.size(), from + batchMax));
                long first = call.get(0).getQueueOffset();
                // A gap the fetch went over without a break holds only messages the filter passed over.
                boolean filtered = first > p.next && coveredFrom >= 0 && coveredFrom <= p.next && first < coveredTo;
                // Only at another gap: the broker's minimum offset is read off the message then, not on every call.
                long gone = first > p.next && !filtered ? expiredUpTo(call.get(0), p.next) : p.next;
                if (gone > p.next && brokerOpen.test(mq.getBrokerName())) {
                    LOG.warning("messages " + p.next + " to " + (gone - 1) + " of " + mq + " are no longer on the broker (its minimum offset is "
                        + gone + "); the listener goes on from there, as Java's consumer does");
                    advance(mq, p, gone);
                }
                if ((call.get(0).getQueueOffset() > p.next && !filtered) || clock.getAsLong() < p.suspendedUntilMs
                    || !brokerOpen.test(mq.getBrokerName()) || !call(mq, p, call)) {
                    // A gap, a suspended queue, a fenced broker, or a failed call: fetch again from
                    // where the listener is.
                    puller.seek(mq, p.generation, p.next, () -> workers.forget(mq));
                    return;
                }
            }
            // Everything handed over is consumed: the rest of what the fetch went over matched
            // nothing, and the position (the offset committed) moves past it, as the push
            // consumer's does when a pull finds no message for the filter.
            if (coveredFrom >= 0 && coveredFrom <= p.next && p.next < coveredTo && brokerOpen.test(mq.getBrokerName())
                && consumable(mq, p)) {
                advance(mq, p, coveredTo);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * The engine's {@code isConsumable} for the next call, without a JNI call per message: a state
     * the engine drops is seen at once through {@link #stop} (the engine stops the pull before it
     * tries the consume lock this thread holds), and the lock's validity, which only a renewal
     * extends, is asked again once the engine's last answer has run out. Under JAVA semantics a
     * refused renewal drops nothing, so every call asks.
     */
    private boolean consumable(MessageQueue mq, Position p) {
        long now = clock.getAsLong();
        if (!keepsLockAnswers) {
            return rebalancer.isConsumable(mq, p.generation, now);
        }
        if (p.stopped) {
            return false;
        }
        if (now > p.consumableUntilMs) {
            p.consumableUntilMs = rebalancer.consumableUntil(mq, p.generation);
        }
        return now <= p.consumableUntilMs;
    }

    /**
     * Where the broker's messages of the queue begin, when that is past {@code next}: the messages
     * from {@code next} up to it expired and can never be fetched (the broker answers a pull below
     * its minimum offset by moving the fetch to it, and a gap would only fetch again from
     * {@code next}, for ever). Read from the minimum offset each fetched message carries; otherwise
     * {@code next}.
     */
    static long expiredUpTo(MessageExt head, long next) {
        String min = head.getProperty(MessageConst.PROPERTY_MIN_OFFSET);
        if (min == null) {
            return next;
        }
        long minOffset;
        try {
            minOffset = Long.parseLong(min);
        } catch (NumberFormatException notAnOffset) {
            return next;
        }
        // Never past the message at hand, which the broker still has.
        return minOffset > next ? Math.min(minOffset, head.getQueueOffset()) : next;
    }

    /** One listener call; true when the queue goes on (it succeeded, or its messages went to the dead-letter queue). */
    private boolean call(MessageQueue mq, Position p, List<MessageExt> call) {
        ConsumeOrderlyContext context = new ConsumeOrderlyContext(mq);
        topics.reset(call);
        ConsumeOrderlyStatus status;
        boolean threw = false;
        List<MessageExt> messages = Collections.unmodifiableList(call);
        ConsumeMessageContext hooked = hooks.before(mq, messages);
        long began = clock.getAsLong();
        try {
            status = listener.consumeMessage(messages, context);
        } catch (Throwable t) {
            LOG.log(Level.WARNING, "listener threw for " + mq + "; a failed attempt, delivered again", t);
            status = null;
            threw = true;
        }
        long callMs = clock.getAsLong() - began;
        hooks.after(hooked, status, threw, callMs);
        boolean succeeded = ConsumeHooks.isSuccess(status);
        statistics.called(mq.getTopic(), call.size(), callMs, succeeded);
        if (succeeded) {
            advance(mq, p, call.get(call.size() - 1).getQueueOffset() + 1);
            return true;
        }
        if (deadLettered(mq, p, call) == call.size()) {
            return true;
        }
        p.suspendedUntilMs = clock.getAsLong() + suspendAfterFailure.applyAsLong(context.getSuspendCurrentQueueTimeMillis());
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

    /** The listener is done with everything below {@code next}: it is the offset to commit. */
    private void advance(MessageQueue mq, Position p, long next) {
        p.next = next;
        if (!p.failures.isEmpty()) {
            p.failures.keySet().removeIf(offset -> offset < next);
        }
        // Before the consume lock is released: a release commits right after taking it.
        offsets.updateOffset(mq, next, true);
    }
}
