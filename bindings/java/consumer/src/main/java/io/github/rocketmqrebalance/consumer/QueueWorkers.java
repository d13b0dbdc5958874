package io.github.rocketmqrebalance.consumer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The consume thread pool. Each queue's fetched messages wait in its backlog, and one task at a
 * time per queue hands them to the listener: queues are consumed in parallel, each queue one call
 * after another (a slow call holds up only its own queue). A backlog that reaches
 * {@code pullThresholdForQueue} messages, or {@code pullThresholdSizeForQueue} of message bodies,
 * pauses that queue's fetching until it is handed over, as the push consumer's flow control does. The pool is Java's: {@code consumeThreadMin} core threads
 * over an unbounded work queue (so, as in Java, {@code consumeThreadMax} adds no thread).
 */
final class QueueWorkers {
    private static final Logger LOG = Logger.getLogger(QueueWorkers.class.getName());

    /**
     * Consumes what it can of a queue's messages, in order (when it cannot go on, it has the queue
     * fetched again). Offsets from {@code coveredFrom} to {@code coveredTo} (exclusive) were
     * fetched without a break: those of them not in this batch or an earlier one did not match the
     * subscription's filter. A batch may be empty: every message of the newly covered offsets was
     * filtered out.
     */
    interface Listener {
        void consume(MessageQueue mq, List<MessageExt> batch, long coveredFrom, long coveredTo) throws Exception;
    }

    /** Stops and restarts fetching one queue. */
    interface Fetching {
        void pause(MessageQueue mq);

        void resume(MessageQueue mq);
    }

    /** One queue's messages not yet handed over; guarded by itself. */
    private static final class Backlog {
        final ArrayDeque<MessageExt> messages = new ArrayDeque<>();
        long bytes;
        boolean draining;
        boolean paused;
        /** The offsets fetched without a break since the last {@link #forget}; -1 when none. */
        long coveredFrom = -1;
        long coveredTo = -1;
        /** How far the coverage was when the listener last got a batch. */
        long handedTo = -1;

        /** {@code from} and {@code to} -1: the fetch claims nothing, and coverage ends. */
        void covered(long from, long to) {
            if (from < 0) {
                coveredFrom = -1;
                coveredTo = -1;
            } else if (coveredTo == from) {
                coveredTo = to;
            } else if (messages.isEmpty()) {
                coveredFrom = from;
                coveredTo = to;
            } else {
                // Not contiguous with messages still waiting (never expected: each fetch starts
                // where the last ended, and a seek forgets first): claim nothing, so a gap is
                // fetched again rather than passed.
                coveredFrom = -1;
                coveredTo = -1;
            }
        }
    }

    private final Listener listener;
    private final Fetching fetching;
    /** The per-queue thresholds in force: the settings', or the topic's divided ({@link #share}). */
    private volatile int threshold;
    private volatile long thresholdBytes;
    private final int thresholdForTopic;
    private final int thresholdSizeForTopicMiB;
    private final ThreadPoolExecutor pool;
    private final Map<MessageQueue, Backlog> backlogs = new ConcurrentHashMap<>();

    QueueWorkers(Listener listener, Fetching fetching, ConsumerSettings settings) {
        this.listener = listener;
        this.fetching = fetching;
        this.threshold = settings.pullThresholdForQueue;
        this.thresholdBytes = settings.pullThresholdSizeForQueueBytes();
        this.thresholdForTopic = settings.pullThresholdForTopic;
        this.thresholdSizeForTopicMiB = settings.pullThresholdSizeForTopicMiB;
        AtomicInteger n = new AtomicInteger();
        String name = settings.group;
        this.pool = new ThreadPoolExecutor(settings.consumeThreadMin, Math.max(settings.consumeThreadMin, settings.consumeThreadMax), 60, TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(), r -> new Thread(r, "SafeOrderlyConsumer-consume-" + name + "-" + n.incrementAndGet()));
    }

    /**
     * {@code held} queues are consumed now: with {@code pullThresholdForTopic} (or its size twin)
     * set, each queue's threshold becomes it divided by {@code held}, at least 1, as Java's
     * {@code RebalancePushImpl.messageQueueChanged} sets {@code pullThresholdForQueue} (which
     * divides by every queue the consumer holds, of any topic, as here). Java does this when a round
     * changes the set; here at every queue started or stopped, which is the same once a round ends.
     */
    void share(int held) {
        if (held <= 0) {
            return;
        }
        if (thresholdForTopic != -1) {
            threshold = Math.max(1, thresholdForTopic / held);
        }
        if (thresholdSizeForTopicMiB != -1) {
            thresholdBytes = Math.max(1, thresholdSizeForTopicMiB / held) * 1024L * 1024L;
        }
    }

    /** The per-queue message threshold in force. */
    int threshold() {
        return threshold;
    }

    /** The per-queue size threshold in force, in bytes. */
    long thresholdBytes() {
        return thresholdBytes;
    }

    /**
     * Adds fetched messages of {@code mq}, every message of the subscription at offsets {@code from}
     * to {@code to} (exclusive), to its backlog, and starts its task unless one runs.
     */
    void offer(MessageQueue mq, List<MessageExt> messages, long from, long to) {
        Backlog b = backlogs.computeIfAbsent(mq, q -> new Backlog());
        boolean start;
        synchronized (b) {
            b.covered(from, to);
            b.messages.addAll(messages);
            b.bytes += bytes(messages);
            if ((b.messages.size() >= threshold || b.bytes >= thresholdBytes) && !b.paused) {
                b.paused = true;
                fetching.pause(mq);
            }
            start = !b.draining;
            b.draining = true;
        }
        if (start) {
            try {
                pool.execute(() -> drain(mq, b));
            } catch (java.util.concurrent.RejectedExecutionException shuttingDown) {
                synchronized (b) {
                    b.draining = false;
                }
            }
        }
    }

    /** Forgets what was fetched for {@code mq} and not yet handed over (the engine dropped it, or it is fetched again). */
    void forget(MessageQueue mq) {
        Backlog b = backlogs.get(mq);
        if (b != null) {
            synchronized (b) {
                b.messages.clear();
                b.bytes = 0;
                b.coveredFrom = -1;
                b.coveredTo = -1;
                b.handedTo = -1;
            }
        }
    }

    private static long bytes(List<MessageExt> messages) {
        long n = 0;
        for (MessageExt m : messages) {
            n += m.getBody() == null ? 0 : m.getBody().length;
        }
        return n;
    }

    private void drain(MessageQueue mq, Backlog b) {
        while (true) {
            List<MessageExt> batch;
            long from;
            long to;
            synchronized (b) {
                if (b.paused) {
                    b.paused = false;
                    fetching.resume(mq);
                }
                // Nothing new: no message, and no offset newly passed by the filter.
                if ((b.messages.isEmpty() && b.coveredTo <= b.handedTo) || pool.isShutdown()) {
                    b.draining = false;
                    return;
                }
                batch = new ArrayList<>(b.messages);
                b.messages.clear();
                b.bytes = 0;
                from = b.coveredFrom;
                to = b.coveredTo;
                b.handedTo = to;
            }
            try {
                listener.consume(mq, batch, from, to);
            } catch (Throwable t) {
                LOG.log(Level.WARNING, "consuming " + mq, t);
            }
        }
    }

    /** Starts no new call, and waits up to {@code awaitMs} for the running ones to return. */
    void shutdown(long awaitMs) {
        pool.shutdown();
        try {
            if (!pool.awaitTermination(awaitMs, TimeUnit.MILLISECONDS)) {
                LOG.warning("listener calls still running after " + awaitMs + " ms; their queues stay locked until they return");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
