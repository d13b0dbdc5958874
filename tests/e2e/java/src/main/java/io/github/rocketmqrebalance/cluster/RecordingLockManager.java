package io.github.rocketmqrebalance.cluster;

import java.lang.reflect.Field;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.rocketmq.broker.BrokerController;
import org.apache.rocketmq.broker.client.rebalance.RebalanceLockManager;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The broker's own lock manager, unchanged in what it decides, that tells a listener of each group
 * every lock it grants (a new holder or a renewal) and every lock an unlock removes, at the moment
 * it happens. A sampled table misses a lock held for less than a sampling period and places every
 * change up to a period late; these events do neither. Only expiry stays sampled: the broker has
 * no moment at which a lock expires, only a later request that finds it expired.
 *
 * <p>Installed in place of the controller's manager before the broker serves (the request
 * processors ask the controller for it on every request). Grants and unlocks are recorded under
 * one monitor so that what an unlock removed is read against the table it changed.
 */
final class RecordingLockManager extends RebalanceLockManager {
    /** What the manager tells about one group; {@code ns} is {@code System.nanoTime()} after the change. */
    interface Listener {
        void granted(MessageQueue mq, String clientId, long ns);

        void released(MessageQueue mq, String clientId, long ns);
    }

    private final Map<String, Listener> listeners = new ConcurrentHashMap<>();
    private final Map<String, ? extends Map<MessageQueue, ?>> table;
    private final java.lang.reflect.Method entryClientId;

    @SuppressWarnings("unchecked")
    private RecordingLockManager() throws ReflectiveOperationException {
        Field f = RebalanceLockManager.class.getDeclaredField("mqLockTable");
        f.setAccessible(true);
        table = (Map<String, ? extends Map<MessageQueue, ?>>) f.get(this);
        entryClientId = Class.forName(RebalanceLockManager.class.getName() + "$LockEntry").getMethod("getClientId");
        entryClientId.setAccessible(true);
    }

    /** The broker's manager, replaced by a recording one on the first call. */
    static RecordingLockManager of(BrokerController broker) throws ReflectiveOperationException {
        synchronized (broker) {
            if (broker.getRebalanceLockManager() instanceof RecordingLockManager recording) {
                return recording;
            }
            RecordingLockManager recording = new RecordingLockManager();
            Field f = BrokerController.class.getDeclaredField("rebalanceLockManager");
            f.setAccessible(true);
            f.set(broker, recording);
            if (broker.getRebalanceLockManager() != recording) {
                throw new IllegalStateException("the broker's lock manager could not be replaced");
            }
            return recording;
        }
    }

    void listen(String group, Listener listener) {
        listeners.put(group, listener);
    }

    @Override
    public synchronized Set<MessageQueue> tryLockBatch(String group, Set<MessageQueue> mqs, String clientId) {
        Set<MessageQueue> locked = super.tryLockBatch(group, mqs, clientId);
        Listener listener = listeners.get(group);
        if (listener != null) {
            long ns = System.nanoTime();
            for (MessageQueue mq : locked) {
                listener.granted(mq, clientId, ns);
            }
        }
        return locked;
    }

    @Override
    public synchronized void unlockBatch(String group, Set<MessageQueue> mqs, String clientId) {
        Map<MessageQueue, ?> before = table.get(group);
        Set<MessageQueue> held = new HashSet<>();
        if (before != null) {
            for (MessageQueue mq : mqs) {
                Object entry = before.get(mq);
                // As unlockBatch decides: an entry naming the client goes, expired or not.
                if (entry != null && clientId.equals(clientIdOf(entry))) {
                    held.add(mq);
                }
            }
        }
        super.unlockBatch(group, mqs, clientId);
        Listener listener = listeners.get(group);
        if (listener != null) {
            long ns = System.nanoTime();
            for (MessageQueue mq : held) {
                listener.released(mq, clientId, ns);
            }
        }
    }

    private String clientIdOf(Object entry) {
        try {
            return (String) entryClientId.invoke(entry);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the broker's lock entry could not be read", e);
        }
    }
}
