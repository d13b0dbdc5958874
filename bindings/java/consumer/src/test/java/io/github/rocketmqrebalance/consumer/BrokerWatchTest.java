package io.github.rocketmqrebalance.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** What the watch concludes from the start times a broker answers, poll by poll. */
class BrokerWatchTest {
    /** Start times by broker; a missing one does not answer. */
    private final Map<String, Long> answers = new HashMap<>();
    /** The connection each broker answers on; {@link #answer} opens a new one with every new start time. */
    private final Map<String, Object> connections = new HashMap<>();
    private final List<String> asked = new ArrayList<>();
    private final List<String> restarts = new ArrayList<>();
    private final List<String> returns = new ArrayList<>();
    private final BrokerWatch watch = new BrokerWatch(new BrokerWatch.Probe() {
        @Override
        public Object ping(String broker) throws Exception {
            if (!answers.containsKey(broker)) {
                throw new java.io.IOException("connection refused");
            }
            return connections.get(broker);
        }

        @Override
        public long bootTimestamp(String broker) throws Exception {
            asked.add(broker);
            Long boot = answers.get(broker);
            if (boot == null) {
                throw new java.io.IOException("connection refused");
            }
            return boot;
        }
    }, restarts::add, returns::add);

    /** {@code broker} answers {@code boot}, on a new connection if it answered nothing or another start time before. */
    private void answer(String broker, long boot) {
        Long before = answers.put(broker, boot);
        if (before == null || before != boot) {
            reconnect(broker);
        }
    }

    private void reconnect(String broker) {
        connections.put(broker, new Object());
    }

    private void poll() {
        watch.poll(Arrays.asList("a", "b"));
    }

    @Test
    void aBrokerOutOfReachIsFencedAndABlipLiftsTheFenceWithoutARestart() {
        answer("a", 100L);
        answer("b", 200L);
        poll();
        assertTrue(watch.open("a"));
        answers.remove("a");
        poll();
        assertFalse(watch.open("a"), "no answer: consumption pauses");
        assertTrue(watch.open("b"), "another broker is not concerned");
        answer("a", 100L);
        poll();
        assertTrue(watch.open("a"), "the same start time: a blip, the table is intact");
        assertEquals(List.of(), restarts, "a blip must not look like a restart (it would undo a protected handoff)");
        assertEquals(List.of("a"), returns, "back after a blip: its locks are renewed at once");
        poll();
        assertEquals(List.of("a"), returns, "a broker that kept answering has not returned");
    }

    @Test
    void onlyABrokerThatWasOutOfReachReturns() {
        answer("a", 100L);
        poll();
        poll();
        assertEquals(List.of(), returns, "first contact and answers on cadence are no return");
        answers.remove("a");
        poll();
        answer("a", 101L);
        poll();
        assertEquals(List.of("a"), restarts);
        assertEquals(List.of(), returns, "a restart is handled as one (its locks are lost), not renewed as a blip's");
        watch.reopen("a");
        poll();
        assertEquals(List.of(), returns, "reopened by the host, which runs its round itself");
    }

    @Test
    void aNewStartTimeIsARestartWhoseFenceStaysUntilReopened() {
        answer("a", 100L);
        answer("b", 200L);
        poll();
        answers.remove("a");
        poll();
        answer("a", 101L);
        poll();
        assertEquals(List.of("a"), restarts);
        assertFalse(watch.open("a"), "fenced until the engine has been told");
        poll();
        assertEquals(List.of("a"), restarts, "one restart is reported once");
        assertFalse(watch.open("a"), "a later poll with the new start time does not lift the fence early");
        watch.reopen("a");
        assertTrue(watch.open("a"));
    }

    @Test
    void aFencedBrokerIsStillPolledWhenNoHeldQueueIsOnIt() {
        answer("a", 100L);
        poll();
        answers.remove("a");
        poll();
        assertFalse(watch.open("a"));
        // Every queue of "a" given up meanwhile: the host no longer names it, yet asks it for no
        // lock while it is fenced, so only the watch can lift the fence.
        answer("a", 100L);
        watch.poll(List.of("b"));
        assertTrue(watch.open("a"), "heard again: its locks may be asked for");
        assertEquals(List.of("a"), returns);
        watch.poll(List.of("b"));
        answers.remove("a");
        watch.poll(List.of("b"));
        assertTrue(watch.open("a"), "an open broker no queue is held on is not polled");
    }

    @Test
    void aRestartShorterThanAPollIsStillARestart() {
        answer("a", 100L);
        poll();
        answer("a", 150L);
        poll();
        assertEquals(List.of("a"), restarts);
    }

    @Test
    void theStartTimeIsAskedOnlyWhenTheConnectionIsNew() {
        answer("a", 100L);
        answer("b", 200L);
        poll();
        poll();
        poll();
        assertEquals(List.of("a", "b"), asked, "an answer on the last answer's connection comes from the same process");
        reconnect("a");
        poll();
        assertEquals(List.of("a", "b", "a"), asked, "a new connection may lead to a new process");
        assertEquals(List.of(), restarts, "it did not: the same start time");
        answers.remove("a");
        poll();
        answers.put("a", 100L); // on the connection it answered on before the silence
        poll();
        assertEquals(List.of("a", "b", "a", "a"), asked, "after a poll without an answer the start time is asked again");
        assertTrue(watch.open("a"));
    }

    @Test
    void aBrokerNoLongerHeldIsForgottenSoItsNextFirstContactIsNoRestart() {
        answer("a", 100L);
        poll();
        watch.poll(List.of("b"));
        answer("a", 300L);
        poll();
        assertEquals(List.of(), restarts, "nothing was held on it across the restart, so nothing is lost");
        assertTrue(watch.open("a"));
    }
}
