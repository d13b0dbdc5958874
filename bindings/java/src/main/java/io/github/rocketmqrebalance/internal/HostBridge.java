package io.github.rocketmqrebalance.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

import io.github.rocketmqrebalance.engine.RebalanceHost;

import org.apache.rocketmq.common.message.MessageQueue;

/**
 * What the native engine calls during one call of a {@code Rebalancer} (internal: public only for
 * the engine package): primitive-typed methods
 * (queues as their fields, lists as parallel arrays) over a {@link RebalanceHost}. A host
 * exception becomes a {@link HostCallbackFailure} whose message the engine records as the step's
 * failure (the engine names the method); a {@link java.lang.Error} becomes a {@link RoundStopped},
 * on which the engine stops the call (no later callback reaches the host), and is rethrown
 * afterwards. The native library resolves these methods once, when a rebalancer is created.
 */
public final class HostBridge {
    /** {@link #readOffset}'s answer for "no committed offset". */
    static final long NOT_FOUND = Long.MIN_VALUE;

    private final RebalanceHost host;
    private Error fatal;

    public HostBridge(RebalanceHost host) {
        if (host == null) {
            throw new NullPointerException("host");
        }
        this.host = host;
    }

    /** The Error a callback threw, if any: the caller rethrows it once the engine has returned. */
    public void rethrowFatal() {
        if (fatal != null) {
            throw fatal;
        }
    }

    /** A host method with a result. */
    private interface Call<T> {
        T run() throws Exception;
    }

    /** A host method without one. */
    private interface Step {
        void run() throws Exception;
    }

    /** Runs one host method; a throw becomes the step's failure, an Error stops the call. */
    private <T> T call(Call<T> call) {
        try {
            return call.run();
        } catch (Error e) {
            fatal = e;
            throw new RoundStopped(e.toString());
        } catch (Throwable e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new HostCallbackFailure(e.toString());
        }
    }

    private void step(Step step) {
        call(() -> {
            step.run();
            return null;
        });
    }

    static List<MessageQueue> queues(String[] topics, String[] brokers, int[] ids) {
        List<MessageQueue> out = new ArrayList<>(ids.length);
        for (int i = 0; i < ids.length; i++) {
            out.add(new MessageQueue(topics[i], brokers[i], ids[i]));
        }
        return out;
    }

    private static MessageQueue mq(String topic, String broker, int id) {
        return new MessageQueue(topic, broker, id);
    }

    int[] lock(String broker, String[] topics, String[] brokers, int[] ids) {
        List<MessageQueue> asked = queues(topics, brokers, ids);
        Collection<MessageQueue> locked = call(() -> host.lock(broker, asked));
        if (locked == null) {
            throw new HostCallbackFailure("returned null");
        }
        Set<MessageQueue> set = new HashSet<>(locked);
        int[] positions = new int[asked.size()];
        int n = 0;
        for (int i = 0; i < asked.size(); i++) {
            if (set.contains(asked.get(i))) {
                positions[n++] = i;
            }
        }
        return Arrays.copyOf(positions, n);
    }

    void unlock(String broker, String[] topics, String[] brokers, int[] ids) {
        step(() -> host.unlock(broker, queues(topics, brokers, ids)));
    }

    long readOffset(String topic, String broker, int id, boolean memoryFirst) {
        OptionalLong offset = call(() -> host.readOffset(mq(topic, broker, id), memoryFirst));
        if (offset == null) {
            throw new HostCallbackFailure("returned null (OptionalLong.empty() is \"no committed offset\")");
        }
        if (offset.isPresent() && offset.getAsLong() == NOT_FOUND) {
            throw new HostCallbackFailure("offset out of range: " + NOT_FOUND);
        }
        return offset.isPresent() ? offset.getAsLong() : NOT_FOUND;
    }

    void persistOffset(String topic, String broker, int id) {
        step(() -> host.persistOffset(mq(topic, broker, id)));
    }

    void removeOffset(String topic, String broker, int id) {
        step(() -> host.removeOffset(mq(topic, broker, id)));
    }

    long maxOffset(String topic, String broker, int id) {
        return call(() -> host.maxOffset(mq(topic, broker, id)));
    }

    long searchOffset(String topic, String broker, int id, long timestampMs) {
        return call(() -> host.searchOffset(mq(topic, broker, id), timestampMs));
    }

    boolean tryConsumeLock(String topic, String broker, int id, long generation, long waitMs) {
        return call(() -> host.tryConsumeLock(mq(topic, broker, id), generation, waitMs));
    }

    void releaseConsumeLock(String topic, String broker, int id, long generation) {
        step(() -> host.releaseConsumeLock(mq(topic, broker, id), generation));
    }

    void dispatchPull(String topic, String broker, int id, long offset, long delayMs, long generation) {
        step(() -> host.dispatchPull(mq(topic, broker, id), offset, delayMs, generation));
    }

    void queueSetChanged(String topic, String[] allTopics, String[] allBrokers, int[] allIds, String[] topics, String[] brokers, int[] ids) {
        step(() -> host.queueSetChanged(topic, queues(allTopics, allBrokers, allIds), queues(topics, brokers, ids)));
    }

    void scheduleRebalance(long delayMs) {
        step(() -> host.scheduleRebalance(delayMs));
    }

    void stopPull(String topic, String broker, int id, long generation) {
        step(() -> host.stopPull(mq(topic, broker, id), generation));
    }

    boolean commitOffset(String topic, String broker, int id, long offset) {
        return call(() -> host.commitOffset(mq(topic, broker, id), offset));
    }

    /** A callback's failure on its way to the engine; no stack trace (only the message is kept). */
    static class HostCallbackFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        HostCallbackFailure(String message) {
            super(message, null, false, false);
        }
    }

    /** A callback threw an {@link Error}: the engine stops the call (the native side knows this class by name). */
    static final class RoundStopped extends HostCallbackFailure {
        private static final long serialVersionUID = 1L;

        RoundStopped(String message) {
            super(message);
        }
    }
}
