package io.github.rocketmqrebalance.consumer;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Tells a broker that restarted from one that was only out of reach, and fences consumption of
 * its queues meanwhile. A broker keeps its orderly lock table in memory only: after a restart it
 * grants any queue to the first client that asks, so a consumer that goes on consuming on the
 * locks it had (its client-side lease says they are good for up to 30 s) may share a queue with
 * a client that has just locked it.
 *
 * <p>Each poll sends every broker of the held queues a cheap read-only request, and asks for its
 * store's start time ({@code bootTimestamp} of {@code GET_BROKER_RUNTIME_INFO}) only when that
 * request travelled on a connection other than the one of the last answer:
 * <ul>
 * <li>no answer: the broker is fenced. Consumption of its queues pauses (calls already running
 *     go on); nothing is released, since the broker may come back with its table intact;</li>
 * <li>the start time it answered before, or an answer on the connection that carried the last
 *     one: a blip at most. The fence lifts and nothing is released, so a blip never undoes a
 *     handoff in progress; {@code onReturn} runs when the broker had been out of reach, so that
 *     the host renews its locks at once instead of at the next renewal (up to 20 s on: after a
 *     one-way partition the broker may have seen renewals whose answers were lost, and the engine
 *     holds those queues unlocked until one is granted again);</li>
 * <li>another start time: a restart, confirmed. The fence stays and {@code onRestart} runs
 *     (commit the cached offsets, then tell the engine the locks are lost); the host lifts the
 *     fence with {@link #reopen} once the engine knows.</li>
 * </ul>
 * Why a connection is enough to skip the start time: a TCP connection does not outlive the broker
 * process at its other end, so an answer on the same connection comes from the same process, with
 * its lock table. Why not the connection alone: a new connection follows a blip as well (the engine
 * would give up queues whose handoff it is protecting), while the start time answers the question.
 * Why not the start time on every poll: the broker computes its whole runtime info for it (the
 * timer wheel is scanned), about a tenth of a busy broker's time at one request a second per
 * client (docs/benchmarks.md). A restart shorter than one poll is still caught (its connection is
 * new and its start time changed); consumption during that poll is the window this cannot close.
 */
final class BrokerWatch {
    /** The requests a poll sends; each throws when the broker does not answer. */
    interface Probe {
        /** A cheap read-only request; returns the connection that carried it, compared by identity only. */
        Object ping(String broker) throws Exception;

        /** The start time of the broker's store. */
        long bootTimestamp(String broker) throws Exception;
    }

    private final Probe probe;
    private final Consumer<String> onRestart;
    private final Consumer<String> onReturn;
    private final Map<String, Long> known = new ConcurrentHashMap<>();
    /** The connection of each broker's last answer, and so of the start time in {@link #known}. */
    private final Map<String, Object> connections = new ConcurrentHashMap<>();
    private final Set<String> fenced = ConcurrentHashMap.newKeySet();
    /** Confirmed restarts whose handling has not finished: a blip answer must not lift their fence. */
    private final Set<String> restarting = ConcurrentHashMap.newKeySet();

    BrokerWatch(Probe probe, Consumer<String> onRestart, Consumer<String> onReturn) {
        this.probe = probe;
        this.onRestart = onRestart;
        this.onReturn = onReturn;
    }

    /** False while {@code broker} is out of reach or its restart is being handled: start no call. */
    boolean open(String broker) {
        return !fenced.contains(broker);
    }

    /**
     * One poll of {@code held} (the brokers of the queues held now) and of every broker still
     * fenced: the host asks a fenced broker for no lock, so a client whose queues of it were all
     * given up meanwhile (a round that stood down, say) could otherwise never take one again (seen
     * on a real cluster: two queues of a healed broker unconsumed for four minutes).
     */
    void poll(Collection<String> held) {
        Set<String> brokers = new TreeSet<>(held);
        brokers.addAll(fenced);
        known.keySet().retainAll(brokers);
        connections.keySet().retainAll(brokers);
        for (String broker : brokers) {
            Long before = known.get(broker);
            long boot;
            try {
                Object connection = probe.ping(broker);
                if (before != null && connection == connections.get(broker)) {
                    boot = before; // the same process answered
                } else {
                    connections.remove(broker);
                    boot = probe.bootTimestamp(broker);
                    connections.put(broker, connection);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception unreachable) {
                connections.remove(broker);
                fenced.add(broker);
                continue;
            }
            known.put(broker, boot);
            if (before != null && before != boot) {
                fenced.add(broker);
                restarting.add(broker);
                onRestart.accept(broker);
            } else if (!restarting.contains(broker) && fenced.remove(broker)) {
                onReturn.accept(broker); // back after a blip, with its table intact
            }
        }
    }

    /** The engine knows {@code broker} restarted: its queues may be consumed as the engine says again. */
    void reopen(String broker) {
        restarting.remove(broker);
        fenced.remove(broker);
    }
}
