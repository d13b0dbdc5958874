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
    private final List<String> restarts = new ArrayList<>();
    private final BrokerWatch watch = new BrokerWatch(broker -> {
        Long boot = answers.get(broker);
        if (boot == null) {
            throw new java.io.IOException("connection refused");
        }
        return boot;
    }, restarts::add);

    private void poll() {
        watch.poll(Arrays.asList("a", "b"));
    }

    @Test
    void aBrokerOutOfReachIsFencedAndABlipLiftsTheFenceWithoutARestart() {
        answers.put("a", 100L);
        answers.put("b", 200L);
        poll();
        assertTrue(watch.open("a"));
        answers.remove("a");
        poll();
        assertFalse(watch.open("a"), "no answer: consumption pauses");
        assertTrue(watch.open("b"), "another broker is not concerned");
        answers.put("a", 100L);
        poll();
        assertTrue(watch.open("a"), "the same start time: a blip, the table is intact");
        assertEquals(List.of(), restarts, "a blip must not look like a restart (it would undo a protected handoff)");
    }

    @Test
    void aNewStartTimeIsARestartWhoseFenceStaysUntilReopened() {
        answers.put("a", 100L);
        answers.put("b", 200L);
        poll();
        answers.remove("a");
        poll();
        answers.put("a", 101L);
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
    void aRestartShorterThanAPollIsStillARestart() {
        answers.put("a", 100L);
        poll();
        answers.put("a", 150L);
        poll();
        assertEquals(List.of("a"), restarts);
    }

    @Test
    void aBrokerNoLongerHeldIsForgottenSoItsNextFirstContactIsNoRestart() {
        answers.put("a", 100L);
        poll();
        watch.poll(List.of("b"));
        answers.put("a", 300L);
        poll();
        assertEquals(List.of(), restarts, "nothing was held on it across the restart, so nothing is lost");
        assertTrue(watch.open("a"));
    }
}
