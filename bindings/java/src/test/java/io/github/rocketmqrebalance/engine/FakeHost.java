package io.github.rocketmqrebalance.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

import org.apache.rocketmq.common.message.MessageQueue;

/**
 * A host that keeps an offset store and a broker lock table in maps and writes every call down,
 * with failures to inject per method. Thread-safe (one instance may serve several rebalancers).
 */
class FakeHost implements RebalanceHost {
    final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    final Map<MessageQueue, Long> committed = Collections.synchronizedMap(new HashMap<>());
    final Map<MessageQueue, Long> maxOffsets = Collections.synchronizedMap(new HashMap<>());
    /** Queues the broker refuses to lock (another client holds them). */
    final Set<MessageQueue> lockedElsewhere = Collections.synchronizedSet(new HashSet<>());
    /** method name -> what it throws. */
    final Map<String, Throwable> failing = Collections.synchronizedMap(new HashMap<>());
    boolean consumeLockFree = true;
    /** Run inside lock(), to try calling back into the engine. */
    volatile Runnable duringLock;

    static String name(MessageQueue q) {
        return q.getTopic() + "/" + q.getBrokerName() + "/" + q.getQueueId();
    }

    private void call(String method, String args) throws Exception {
        calls.add(method + " " + args);
        Throwable t = failing.get(method);
        if (t instanceof Exception) {
            throw (Exception) t;
        }
        if (t instanceof Error) {
            throw (Error) t;
        }
    }

    List<String> callsOf(String method) {
        List<String> out = new ArrayList<>();
        synchronized (calls) {
            for (String c : calls) {
                if (c.startsWith(method + " ")) {
                    out.add(c.substring(method.length() + 1));
                }
            }
        }
        return out;
    }

    private static String names(Collection<MessageQueue> queues) {
        List<String> out = new ArrayList<>();
        for (MessageQueue q : queues) {
            out.add(name(q));
        }
        return out.toString();
    }

    @Override
    public Collection<MessageQueue> lock(String broker, List<MessageQueue> queues) throws Exception {
        call("lock", broker + " " + names(queues));
        if (duringLock != null) {
            duringLock.run();
        }
        List<MessageQueue> locked = new ArrayList<>(queues);
        locked.removeAll(lockedElsewhere);
        return locked;
    }

    @Override
    public void unlock(String broker, List<MessageQueue> queues) throws Exception {
        call("unlock", broker + " " + names(queues));
    }

    @Override
    public OptionalLong readOffset(MessageQueue mq, boolean memoryFirst) throws Exception {
        call("readOffset", name(mq));
        Long offset = committed.get(mq);
        return offset == null ? OptionalLong.empty() : OptionalLong.of(offset);
    }

    @Override
    public void persistOffset(MessageQueue mq) throws Exception {
        call("persistOffset", name(mq));
    }

    @Override
    public void removeOffset(MessageQueue mq) throws Exception {
        call("removeOffset", name(mq));
    }

    @Override
    public long maxOffset(MessageQueue mq) throws Exception {
        call("maxOffset", name(mq));
        return maxOffsets.getOrDefault(mq, 0L);
    }

    @Override
    public long searchOffset(MessageQueue mq, long timestampMs) throws Exception {
        call("searchOffset", name(mq) + " " + timestampMs);
        return 0;
    }

    @Override
    public boolean tryConsumeLock(MessageQueue mq, long generation, long waitMs) throws Exception {
        call("tryConsumeLock", name(mq) + " #" + generation);
        return consumeLockFree;
    }

    @Override
    public void releaseConsumeLock(MessageQueue mq, long generation) throws Exception {
        call("releaseConsumeLock", name(mq) + " #" + generation);
    }

    @Override
    public void dispatchPull(MessageQueue mq, long offset, long delayMs, long generation) throws Exception {
        call("dispatchPull", name(mq) + " @" + offset + " #" + generation);
    }

    @Override
    public void queueSetChanged(String topic, List<MessageQueue> all, List<MessageQueue> divided) throws Exception {
        call("queueSetChanged", topic + " " + all.size() + " " + names(divided));
    }

    @Override
    public void scheduleRebalance(long delayMs) throws Exception {
        call("scheduleRebalance", Long.toString(delayMs));
    }
}
