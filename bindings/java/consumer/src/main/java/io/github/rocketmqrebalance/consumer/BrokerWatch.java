package io.github.rocketmqrebalance.consumer;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Tells a broker that restarted from one that was only out of reach, and fences consumption of
 * its queues meanwhile. A broker keeps its orderly lock table in memory only: after a restart it
 * grants any queue to the first client that asks, so a consumer that goes on consuming on the
 * locks it had (its client-side lease says they are good for up to 30 s) may share a queue with
 * a client that has just locked it.
 *
 * <p>Each poll asks every broker of the held queues for its store's start time
 * ({@code bootTimestamp} of {@code GET_BROKER_RUNTIME_INFO}, a read-only admin request):
 * <ul>
 * <li>no answer: the broker is fenced. Consumption of its queues pauses (calls already running
 *     go on); nothing is released, since the broker may come back with its table intact;</li>
 * <li>the start time it answered before: a blip. The fence lifts and nothing else happens, so a
 *     blip never undoes a handoff in progress;</li>
 * <li>another start time: a restart, confirmed. The fence stays and {@code onRestart} runs
 *     (commit the cached offsets, then tell the engine the locks are lost); the host lifts the
 *     fence with {@link #reopen} once the engine knows.</li>
 * </ul>
 * Why the start time and not a reconnected channel or a renewal: a reconnect happens after a
 * blip as well (the engine would give up queues whose handoff it is protecting), and a renewal
 * comes every 20 s, while the start time answers the question itself, within one poll.
 * A restart shorter than one poll is still caught (the start time changed); consumption during
 * that poll is the window this cannot close.
 */
final class BrokerWatch {
    /** The start time a broker answers; throws when it does not answer. */
    interface BootTimes {
        long bootTimestamp(String broker) throws Exception;
    }

    private final BootTimes bootTimes;
    private final Consumer<String> onRestart;
    private final Map<String, Long> known = new ConcurrentHashMap<>();
    private final Set<String> fenced = ConcurrentHashMap.newKeySet();
    /** Confirmed restarts whose handling has not finished: a blip answer must not lift their fence. */
    private final Set<String> restarting = ConcurrentHashMap.newKeySet();

    BrokerWatch(BootTimes bootTimes, Consumer<String> onRestart) {
        this.bootTimes = bootTimes;
        this.onRestart = onRestart;
    }

    /** False while {@code broker} is out of reach or its restart is being handled: start no call. */
    boolean open(String broker) {
        return !fenced.contains(broker);
    }

    /** One poll of {@code brokers} (the brokers of the queues held now). */
    void poll(Collection<String> brokers) {
        known.keySet().retainAll(brokers);
        for (String broker : brokers) {
            long boot;
            try {
                boot = bootTimes.bootTimestamp(broker);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception unreachable) {
                fenced.add(broker);
                continue;
            }
            Long before = known.put(broker, boot);
            if (before != null && before != boot) {
                fenced.add(broker);
                restarting.add(broker);
                onRestart.accept(broker);
            } else if (!restarting.contains(broker)) {
                fenced.remove(broker); // first contact, or back after a blip with its table intact
            }
        }
    }

    /** The engine knows {@code broker} restarted: its queues may be consumed as the engine says again. */
    void reopen(String broker) {
        restarting.remove(broker);
        fenced.remove(broker);
    }
}
