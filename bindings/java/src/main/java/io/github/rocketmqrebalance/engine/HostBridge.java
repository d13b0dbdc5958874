package io.github.rocketmqrebalance.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

import org.apache.rocketmq.common.message.MessageQueue;

/**
 * What the native engine calls during one call of {@link Rebalancer}: primitive-typed methods
 * (queues as their fields, lists as parallel arrays) over a {@link RebalanceHost}. A host
 * exception becomes a {@link HostCallbackFailure} whose message the engine records as the step's
 * failure; a {@link java.lang.Error} also stops the round and is rethrown afterwards.
 */
final class HostBridge {
    /** {@link #readOffset}'s answer for "no committed offset". */
    static final long NOT_FOUND = Long.MIN_VALUE;

    private final RebalanceHost host;
    private Error fatal;

    HostBridge(RebalanceHost host) {
        if (host == null) {
            throw new NullPointerException("host");
        }
        this.host = host;
    }

    /** The Error a callback threw, if any: the caller rethrows it once the engine has returned. */
    void rethrowFatal() {
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

    /** Runs one host method: refused once an Error stopped the round; a throw becomes the step's failure. */
    private <T> T call(String method, Call<T> call) {
        if (fatal != null) {
            throw new HostCallbackFailure(method + ": not called, the round was stopped by " + fatal);
        }
        try {
            return call.run();
        } catch (Throwable e) {
            if (e instanceof Error) {
                fatal = (Error) e;
            } else if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new HostCallbackFailure(method + ": " + e);
        }
    }

    private void step(String method, Step step) {
        call(method, () -> {
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
        Collection<MessageQueue> locked = call("lock", () -> host.lock(broker, asked));
        if (locked == null) {
            throw new HostCallbackFailure("lock: returned null");
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
        step("unlock", () -> host.unlock(broker, queues(topics, brokers, ids)));
    }

    long readOffset(String topic, String broker, int id, boolean memoryFirst) {
        OptionalLong offset = call("readOffset", () -> host.readOffset(mq(topic, broker, id), memoryFirst));
        if (offset == null) {
            throw new HostCallbackFailure("readOffset: returned null (OptionalLong.empty() is \"no committed offset\")");
        }
        if (offset.isPresent() && offset.getAsLong() == NOT_FOUND) {
            throw new HostCallbackFailure("readOffset: offset out of range: " + NOT_FOUND);
        }
        return offset.isPresent() ? offset.getAsLong() : NOT_FOUND;
    }

    void persistOffset(String topic, String broker, int id) {
        step("persistOffset", () -> host.persistOffset(mq(topic, broker, id)));
    }

    void removeOffset(String topic, String broker, int id) {
        step("removeOffset", () -> host.removeOffset(mq(topic, broker, id)));
    }

    long maxOffset(String topic, String broker, int id) {
        return call("maxOffset", () -> host.maxOffset(mq(topic, broker, id)));
    }

    long searchOffset(String topic, String broker, int id, long timestampMs) {
        return call("searchOffset", () -> host.searchOffset(mq(topic, broker, id), timestampMs));
    }

    boolean tryConsumeLock(String topic, String broker, int id, long generation, long waitMs) {
        return call("tryConsumeLock", () -> host.tryConsumeLock(mq(topic, broker, id), generation, waitMs));
    }

    void releaseConsumeLock(String topic, String broker, int id, long generation) {
        step("releaseConsumeLock", () -> host.releaseConsumeLock(mq(topic, broker, id), generation));
    }

    void dispatchPull(String topic, String broker, int id, long offset, long delayMs, long generation) {
        step("dispatchPull", () -> host.dispatchPull(mq(topic, broker, id), offset, delayMs, generation));
    }

    void queueSetChanged(String topic, String[] allTopics, String[] allBrokers, int[] allIds, String[] topics, String[] brokers, int[] ids) {
        step("queueSetChanged", () -> host.queueSetChanged(topic, queues(allTopics, allBrokers, allIds), queues(topics, brokers, ids)));
    }

    void scheduleRebalance(long delayMs) {
        step("scheduleRebalance", () -> host.scheduleRebalance(delayMs));
    }

    void stopPull(String topic, String broker, int id, long generation) {
        step("stopPull", () -> host.stopPull(mq(topic, broker, id), generation));
    }

    boolean commitOffset(String topic, String broker, int id, long offset) {
        return call("commitOffset", () -> host.commitOffset(mq(topic, broker, id), offset));
    }

    /** A callback's failure on its way to the engine; no stack trace (only the message is kept). */
    static final class HostCallbackFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        HostCallbackFailure(String message) {
            super(message, null, false, false);
        }
    }
}
