package io.github.rocketmqrebalance.consumer;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The consume lock of each queue state: held by the listener thread for the whole of a listener
 * call, tried by the engine before it releases a queue (so an orderly queue is never unlocked at
 * the broker while its listener runs). Keyed by queue and generation: a state taken again gets a
 * fresh lock, and a late call for an old generation finds none.
 */
final class ConsumeLocks {
    private static final class Entry {
        final long generation;
        final ReentrantLock lock = new ReentrantLock();

        Entry(long generation) {
            this.generation = generation;
        }
    }

    private final ConcurrentMap<MessageQueue, Entry> locks = new ConcurrentHashMap<>();

    /** The lock of {@code mq}'s state {@code generation}, replacing an older generation's. */
    ReentrantLock of(MessageQueue mq, long generation) {
        Entry e = locks.compute(mq, (q, old) -> old != null && old.generation >= generation ? old : new Entry(generation));
        return e.generation == generation ? e.lock : null;
    }

    boolean tryLock(MessageQueue mq, long generation, long waitMs) throws InterruptedException {
        ReentrantLock lock = of(mq, generation);
        return lock != null && lock.tryLock(waitMs, TimeUnit.MILLISECONDS);
    }

    void unlock(MessageQueue mq, long generation) {
        ReentrantLock lock = of(mq, generation);
        if (lock != null && lock.isHeldByCurrentThread()) {
            lock.unlock();
        }
    }
}
