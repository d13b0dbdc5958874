package io.github.rocketmqrebalance.consumer;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.apache.rocketmq.client.consumer.PullCallback;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.client.impl.CommunicationMode;
import org.apache.rocketmq.client.impl.consumer.PullAPIWrapper;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.common.filter.ExpressionType;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.sysflag.PullSysFlag;
import org.apache.rocketmq.remoting.protocol.heartbeat.SubscriptionData;

/**
 * Fetches the queues the engine dispatched, as the push consumer does: one asynchronous long-poll
 * pull in flight per queue, its answer handed straight to the {@link Sink} and the next pull issued
 * from one thread right after. (A lite-pull consumer did this before: a synchronous pull on a
 * thread per queue, then a poll thread handing over one pull's batch at a time, which held
 * SafeOrderlyConsumer to 0.67 of the stock consumer's rate at 32 queues, docs/benchmarks.md.)
 *
 * <p>Each queue's fetching has an epoch: a {@link #seek} starts a new one at once, and an answer
 * of an older epoch is dropped when it arrives, so a queue fetched again from where its listener
 * is never waits for a long poll still parked at the broker. What is handed to the sink and a
 * seek's clearing of what was fetched before happen under the queue's fetch lock, so nothing
 * fetched anew is cleared with the stale messages. Pausing (flow control) lets a pull in flight
 * finish and issues no next one until {@link #resume}.
 */
final class QueuePuller implements QueueWorkers.Fetching {
    private static final Logger LOG = Logger.getLogger(QueuePuller.class.getName());
    /** After a failed pull, as the lite-pull consumer's {@code pullTimeDelayMillsWhenException}. */
    static final long RETRY_AFTER_FAILURE_MS = 1_000;
    /** After an illegal offset: the listener's gap check seeks back, and this keeps that from spinning. */
    static final long RETRY_AFTER_ILLEGAL_OFFSET_MS = 1_000;
    /** How often the engine is told which queues are being fetched (far inside its 120 s {@code pull_expired_ms}). */
    static final long RECORD_PULLS_EVERY_MS = 1_000;
    /** Where fetched messages go, in offset order per queue; called under the queue's fetch lock. */
    interface Sink {
        /**
         * {@code messages} (perhaps none) are every message of the subscription at offsets
         * {@code from} to {@code to} (exclusive): the others there did not match its filter, at the
         * broker or in the client. They came back {@code roundTripNanos} after their pull was issued.
         */
        void fetched(MessageQueue mq, List<MessageExt> messages, long from, long to, long roundTripNanos);
    }

    /** The pull requests: the client's {@link PullAPIWrapper} ({@link #over}), or a test's stand-in. */
    interface Wire {
        /** Sends one asynchronous pull of up to {@code max} messages from {@code offset}; its answer goes to {@code callback}. */
        void pull(MessageQueue mq, long offset, int max, PullCallback callback) throws Exception;

        /** Decodes and filters a pull's answer, as the push consumer does before it looks at it. */
        PullResult decode(MessageQueue mq, PullResult answer);

        /** Whether {@code mq}'s subscription filters (tags or SQL92), so an answer may leave offsets out. */
        default boolean filters(MessageQueue mq) {
            return false;
        }
    }

    /**
     * Pulls through {@code client} for {@code group}, each topic with its subscription (its filter
     * goes to the broker in the request, and the client filters tags again on the answer, as the
     * push consumer does): long polls of {@code suspendMs}, each given up after {@code timeoutMs}.
     */
    static Wire over(MQClientInstance client, String group, Map<String, SubscriptionData> subscriptions, long suspendMs, long timeoutMs) {
        PullAPIWrapper api = new PullAPIWrapper(client, group, false);
        // Flags as the lite-pull consumer's: no offset committed with the pull (the listener's
        // position is committed apart), a long poll, the subscription in the request.
        int sysFlag = PullSysFlag.buildSysFlag(false, true, true, false, true);
        return new Wire() {
            @Override
            public void pull(MessageQueue mq, long offset, int max, PullCallback callback) throws Exception {
                SubscriptionData sub = subscriptionOf(subscriptions, mq.getTopic());
                api.pullKernelImpl(mq, sub.getSubString(), sub.getExpressionType(), sub.getSubVersion(), offset, max, sysFlag, 0L, suspendMs, timeoutMs,
                    CommunicationMode.ASYNC, callback);
            }

            @Override
            public PullResult decode(MessageQueue mq, PullResult answer) {
                return api.processPullResult(mq, answer, subscriptionOf(subscriptions, mq.getTopic()));
            }

            @Override
            public boolean filters(MessageQueue mq) {
                SubscriptionData sub = subscriptionOf(subscriptions, mq.getTopic());
                return !ExpressionType.isTagType(sub.getExpressionType()) || !sub.getTagsSet().isEmpty();
            }
        };
    }

    private static SubscriptionData subscriptionOf(Map<String, SubscriptionData> subscriptions, String topic) {
        SubscriptionData sub = subscriptions.get(topic);
        if (sub == null) {
            throw new IllegalStateException("no subscription for " + topic);
        }
        return sub;
    }

    /** Tells the engine state {@code generation} of {@code mq} was last pulled at {@code atMs}. */
    interface PullRecorder {
        void record(MessageQueue mq, long generation, long atMs);
    }

    /** One queue state's fetching; the fields without volatile are guarded by the object itself. */
    private static final class Fetch {
        final MessageQueue mq;
        final long generation;
        long offset;
        long epoch;
        /** A pull of the current epoch is waiting for its answer. */
        boolean inFlight;
        boolean stopped;
        volatile boolean paused;
        volatile long lastPullMs;

        Fetch(MessageQueue mq, long generation, long offset, long now) {
            this.mq = mq;
            this.generation = generation;
            this.offset = offset;
            this.lastPullMs = now;
        }
    }

    private final Wire wire;
    private final Sink sink;
    private final LongSupplier clock;
    private final int batchSize;
    /** After an answer with messages, the next pull waits this long (the push consumer's {@code pullInterval}). */
    private final long intervalMs;
    /** No pull is issued while set ({@link #suspend}); each fetch's next pull waits for {@link #resume}. */
    private volatile boolean suspended;
    private final Map<MessageQueue, Fetch> fetches = new ConcurrentHashMap<>();
    /** Issues every pull, as the push consumer's PullMessageService thread; answers arrive on the client's callback threads. */
    private final ScheduledExecutorService thread;

    /** {@code recorder} is told every second which queue states are being fetched (a paused one counts: its pause is ours). */
    QueuePuller(Wire wire, String group, Sink sink, LongSupplier clock, int batchSize, long intervalMs, PullRecorder recorder) {
        this.wire = wire;
        this.sink = sink;
        this.clock = clock;
        this.batchSize = batchSize;
        this.intervalMs = intervalMs;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "SafeOrderlyConsumer-pull-" + group);
            t.setDaemon(true);
            return t;
        });
        thread.scheduleWithFixedDelay(() -> {
            long now = clock.getAsLong();
            fetches.forEach((mq, f) -> {
                try {
                    recorder.record(mq, f.generation, f.paused || suspended ? now : f.lastPullMs);
                } catch (Throwable t) {
                    LOG.log(Level.FINE, "recording the pull of " + mq, t);
                }
            });
        }, RECORD_PULLS_EVERY_MS, RECORD_PULLS_EVERY_MS, TimeUnit.MILLISECONDS);
    }

    /** Starts fetching state {@code generation} of {@code mq} from {@code offset}, after {@code delayMs}. */
    void start(MessageQueue mq, long generation, long offset, long delayMs) {
        Fetch f = new Fetch(mq, generation, offset, clock.getAsLong());
        Fetch before = fetches.put(mq, f);
        if (before != null) {
            synchronized (before) {
                before.stopped = true;
            }
        }
        schedule(f, Math.max(0, delayMs));
    }

    /** Stops fetching state {@code generation} of {@code mq}; an answer still in flight is dropped. */
    void stop(MessageQueue mq, long generation) {
        Fetch f = fetches.get(mq);
        if (f == null || f.generation != generation) {
            return;
        }
        fetches.remove(mq, f);
        synchronized (f) {
            f.stopped = true;
        }
    }

    /**
     * Fetches state {@code generation} of {@code mq} again from {@code offset}: a new epoch, so an
     * answer in flight is dropped; {@code clear} (dropping what was fetched before) runs under the
     * queue's fetch lock, before anything of the new epoch can be handed over.
     */
    void seek(MessageQueue mq, long generation, long offset, Runnable clear) {
        seek(mq, generation, offset, clear, 0);
    }

    /**
     * {@link #seek(MessageQueue, long, long, Runnable)} whose first pull waits {@code delayMs}: for
     * a queue that cannot be consumed now (its lock lapsed, its broker fenced), whose fetched
     * messages must be fetched again once it can, but not at the network's pace meanwhile.
     */
    void seek(MessageQueue mq, long generation, long offset, Runnable clear, long delayMs) {
        Fetch f = fetches.get(mq);
        if (f == null || f.generation != generation) {
            return;
        }
        synchronized (f) {
            if (f.stopped) {
                return;
            }
            f.epoch++;
            f.inFlight = false;
            f.offset = offset;
            clear.run();
        }
        schedule(f, Math.max(0, delayMs));
    }

    @Override
    public void pause(MessageQueue mq) {
        Fetch f = fetches.get(mq);
        if (f != null) {
            f.paused = true;
        }
    }

    /** Never takes a fetch lock (the consume pool calls it under a backlog lock): the next pull is issued from the pull thread. */
    @Override
    public void resume(MessageQueue mq) {
        Fetch f = fetches.get(mq);
        if (f != null && f.paused) {
            f.paused = false;
            schedule(f, 0);
        }
    }

    /**
     * Issues no further pull of any queue until {@link #resume()}: a pull in flight is still
     * answered and handed over, as the push consumer's {@code suspend()} lets it.
     */
    void suspend() {
        suspended = true;
    }

    /** Pulls again, every fetch at once. */
    void resume() {
        if (suspended) {
            suspended = false;
            fetches.values().forEach(f -> schedule(f, 0));
        }
    }

    /** Stops every fetch; answers still in flight are dropped. */
    void shutdown() {
        fetches.values().forEach(f -> {
            synchronized (f) {
                f.stopped = true;
            }
        });
        fetches.clear();
        thread.shutdownNow();
    }

    private void schedule(Fetch f, long delayMs) {
        try {
            if (delayMs == 0) {
                thread.execute(() -> pull(f));
            } else {
                thread.schedule(() -> pull(f), delayMs, TimeUnit.MILLISECONDS);
            }
        } catch (RejectedExecutionException shutDown) {
            // shutdown() stopped every fetch
        }
    }

    /** Issues the next pull of {@code f}, unless one is in flight, it or every fetch is paused, or it stopped. */
    private void pull(Fetch f) {
        long epoch;
        long offset;
        synchronized (f) {
            if (f.stopped || f.inFlight || f.paused || suspended) {
                return;
            }
            f.inFlight = true;
            epoch = f.epoch;
            offset = f.offset;
            f.lastPullMs = clock.getAsLong();
        }
        long issued = System.nanoTime();
        try {
            wire.pull(f.mq, offset, batchSize, new PullCallback() {
                @Override
                public void onSuccess(PullResult result) {
                    answered(f, epoch, offset, result, System.nanoTime() - issued);
                }

                @Override
                public void onException(Throwable e) {
                    failed(f, epoch, e);
                }
            });
        } catch (Exception e) {
            failed(f, epoch, e);
        }
    }

    private void answered(Fetch f, long epoch, long from, PullResult result, long roundTripNanos) {
        long delay = 0;
        try {
            result = wire.decode(f.mq, result);
            synchronized (f) {
                if (!settled(f, epoch)) {
                    return;
                }
                f.offset = result.getNextBeginOffset();
                // Under a filter, FOUND and NO_MATCHED_MSG answer for every offset from the pull's
                // to the next one: what is not there did not match (NO_MATCHED_MSG: nothing did).
                // Without one, nothing is claimed: a gap then is no filter's doing (a broker that
                // lost messages in a restart answers so too), and the listener fetches it again.
                List<MessageExt> found = result.getPullStatus() == PullStatus.FOUND && result.getMsgFoundList() != null
                    ? result.getMsgFoundList() : java.util.Collections.<MessageExt>emptyList();
                boolean covers = wire.filters(f.mq)
                    && (result.getPullStatus() == PullStatus.FOUND || result.getPullStatus() == PullStatus.NO_MATCHED_MSG);
                long to = result.getNextBeginOffset();
                if (!found.isEmpty() || (covers && to > from)) {
                    sink.fetched(f.mq, found, covers ? from : -1, covers ? to : -1, roundTripNanos);
                    // As the push consumer: the interval follows an answer with messages only.
                    delay = found.isEmpty() ? 0 : intervalMs;
                } else if (result.getPullStatus() == PullStatus.OFFSET_ILLEGAL) {
                    LOG.warning("offset of " + f.mq + " illegal; the broker suggests " + result.getNextBeginOffset());
                    delay = RETRY_AFTER_ILLEGAL_OFFSET_MS;
                }
            }
        } catch (Throwable t) {
            LOG.log(Level.WARNING, "handling a pull of " + f.mq + "; again in " + RETRY_AFTER_FAILURE_MS + " ms", t);
            synchronized (f) {
                // The pull may have been settled already (the hand-over threw): it is tried again all the same.
                if (f.stopped || f.epoch != epoch) {
                    return;
                }
                f.inFlight = false;
            }
            delay = RETRY_AFTER_FAILURE_MS;
        }
        schedule(f, delay);
    }

    private void failed(Fetch f, long epoch, Throwable e) {
        synchronized (f) {
            if (!settled(f, epoch)) {
                return;
            }
        }
        LOG.log(Level.FINE, "pulling " + f.mq + " failed; again in " + RETRY_AFTER_FAILURE_MS + " ms", e);
        schedule(f, RETRY_AFTER_FAILURE_MS);
    }

    /**
     * Under {@code f}'s lock: marks the pull of {@code epoch} answered, or says it no longer counts
     * (the fetch stopped, was sought since, or this pull was already answered, as when a send both
     * throws and reports its failure).
     */
    private static boolean settled(Fetch f, long epoch) {
        if (f.stopped || f.epoch != epoch || !f.inFlight) {
            return false;
        }
        f.inFlight = false;
        return true;
    }
}
