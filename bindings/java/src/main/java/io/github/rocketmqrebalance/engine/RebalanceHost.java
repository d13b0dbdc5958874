package io.github.rocketmqrebalance.engine;

import java.util.Collection;
import java.util.List;
import java.util.OptionalLong;

import org.apache.rocketmq.common.message.MessageQueue;

/**
 * What the engine asks of the consumer it runs in: every broker call, offset-store access and
 * consume-service step of a round goes through here (the engine does no I/O). The Java form of the
 * core's {@code Host} trait; the whole contract (when each method is called, from which thread,
 * what it must guarantee) is docs/host-contract.md.
 *
 * <p>Calls happen on the thread that runs the round, one at a time. A method that throws is that
 * step's failure, exactly as a failed callback in C or Python: the engine leaves the queue in a
 * defined state and reports it (a lock that failed skips the queue, a commit that failed defers an
 * orderly release, ...). A {@link java.lang.Error} thrown by a method stops the round instead:
 * every later callback of the round fails without calling the host, and the error is rethrown
 * when the engine returns.
 *
 * <p>Two guarantees the safe semantics rest on: {@link #persistOffset} is synchronous and
 * acknowledged by the broker, and the host updates its cached offset for a listener call before
 * it releases the consume lock.
 *
 * <p>The default methods are optional: a host written against an earlier version keeps working,
 * with the behaviour each default documents.
 */
public interface RebalanceHost {
    /** {@code lockBatchMQ}: locks {@code queues} (all on {@code broker}); returns those now locked. */
    Collection<MessageQueue> lock(String broker, List<MessageQueue> queues) throws Exception;

    /** {@code unlockBatchMQ}. */
    void unlock(String broker, List<MessageQueue> queues) throws Exception;

    /**
     * The group's committed offset ({@code memoryFirst}: the client's cached offset if any, as a
     * lite-pull consumer reads it). Empty when nothing was committed, which is not the same as
     * "the store could not be asked" (throw for that).
     */
    OptionalLong readOffset(MessageQueue mq, boolean memoryFirst) throws Exception;

    /** Commits the cached offset of {@code mq} to the broker, synchronously. */
    void persistOffset(MessageQueue mq) throws Exception;

    /** Forgets the cached offset of {@code mq}. */
    void removeOffset(MessageQueue mq) throws Exception;

    long maxOffset(MessageQueue mq) throws Exception;

    long searchOffset(MessageQueue mq, long timestampMs) throws Exception;

    /**
     * Tries to take the consume lock of queue state {@code generation} (the lock the orderly consume
     * service holds while a listener call runs), waiting at most {@code waitMs}. True when taken;
     * the engine then calls {@link #releaseConsumeLock}.
     */
    boolean tryConsumeLock(MessageQueue mq, long generation, long waitMs) throws Exception;

    void releaseConsumeLock(MessageQueue mq, long generation) throws Exception;

    /** Start pulling {@code mq} from {@code offset} after {@code delayMs}, for state {@code generation}. */
    void dispatchPull(MessageQueue mq, long offset, long delayMs, long generation) throws Exception;

    /** {@code MessageQueueListener.messageQueueChanged}: all queues of the topic, and this client's share. */
    void queueSetChanged(String topic, List<MessageQueue> all, List<MessageQueue> divided) throws Exception;

    /** Run another round after {@code delayMs} (a lock was refused, a release deferred, a lock lost). */
    void scheduleRebalance(long delayMs) throws Exception;

    /**
     * Stop pulling {@code mq} for state {@code generation}: the state was dropped and nothing more
     * may be consumed from it. Default: nothing (the host then notices through
     * {@link Rebalancer#isConsumable} or {@link Rebalancer#recordPull} returning false).
     */
    default void stopPull(MessageQueue mq, long generation) throws Exception {
    }

    /**
     * Sets the group's committed offset of {@code mq} to {@code offset} on the broker,
     * synchronously, and the cached offset too; returns true when done. Safe semantics call it
     * when a queue with no committed offset starts from {@code consumeFrom}, so a queue is started
     * once per group. Default: false, "this host cannot"; the queue then starts uncommitted, as
     * in Java, and the round warns ({@code START_OFFSET_NOT_COMMITTED}).
     */
    default boolean commitOffset(MessageQueue mq, long offset) throws Exception {
        return false;
    }
}
