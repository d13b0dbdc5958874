package io.github.rocketmqrebalance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * BALANCED_STICKY from Java: the committed answers of the core (tests/golden, the reference for a
 * strategy with no Java original), and properties checked here in Java on seeded random groups,
 * asked per topic as {@code RebalanceImpl} asks: every queue has exactly one owner, every member
 * the floor or ceiling of its share, for any order of the lists.
 */
class BalancedStickyTest {
    static final Path GOLDEN = Paths.get("../../tests/golden/balanced_sticky.jsonl");
    static final long SEED = Long.getLong("rmq.seed", System.nanoTime());

    static NativeAllocateMessageQueueBalancedSticky of(JsonObject params) {
        JsonElement key = params.get("stable_key");
        NativeAllocateMessageQueueBalancedSticky s;
        if (key == null || key.isJsonPrimitive() && key.getAsString().equals("client_id")) {
            s = new NativeAllocateMessageQueueBalancedSticky();
        } else if (key.isJsonPrimitive() && key.getAsString().equals("host")) {
            s = NativeAllocateMessageQueueBalancedSticky.byHost();
        } else {
            s = NativeAllocateMessageQueueBalancedSticky.byPartBefore(key.getAsJsonObject().get("before").getAsString());
        }
        if (params.has("weights")) {
            Map<String, Integer> weights = new HashMap<>();
            params.getAsJsonObject("weights").entrySet().forEach(e -> weights.put(e.getKey(), e.getValue().getAsInt()));
            s = s.withWeights(weights);
        }
        return s;
    }

    @Test
    void everyCommittedAnswer() throws IOException {
        Golden.checkEvery(GOLDEN, params -> of(params));
    }

    @Test
    void randomGroupsAreBalancedExactlyOnceAndOrderFree() {
        long seed = SEED ^ 0x5ee7;
        System.out.println("randomGroupsAreBalancedExactlyOnceAndOrderFree: seed " + seed + " (replay with -Drmq.seed=" + SEED + ")");
        Random random = new Random(seed);
        NativeAllocateMessageQueueBalancedSticky[] strategies = {
            new NativeAllocateMessageQueueBalancedSticky(), NativeAllocateMessageQueueBalancedSticky.byHost(),
        };
        for (int i = 0; i < 2_000; i++) {
            NativeAllocateMessageQueueBalancedSticky s = strategies[random.nextInt(strategies.length)];
            String topic = "T" + random.nextInt(3);
            List<MessageQueue> mqAll = new ArrayList<>();
            int brokers = 1 + random.nextInt(3);
            int perBroker = 1 + random.nextInt(16);
            for (int b = 0; b < brokers; b++) {
                for (int q = 0; q < perBroker; q++) {
                    mqAll.add(new MessageQueue(topic, "broker-" + b, q));
                }
            }
            List<String> cidAll = new ArrayList<>();
            int members = 1 + random.nextInt(12);
            for (int m = 0; m < members; m++) {
                cidAll.add("10.0." + random.nextInt(4) + "." + m + "@" + (100 + m));
            }
            String where = "case " + i + " of seed " + seed + ": " + s.getName() + ", " + mqAll.size() + " queues, ids " + cidAll;
            Set<MessageQueue> seen = new HashSet<>();
            int floor = mqAll.size() / members;
            int ceil = (mqAll.size() + members - 1) / members;
            for (String me : cidAll) {
                List<MessageQueue> mine = s.allocate("g", me, mqAll, cidAll);
                assertTrue(mine.size() >= floor && mine.size() <= ceil, where + ": " + me + " got " + mine.size());
                for (MessageQueue q : mine) {
                    assertTrue(seen.add(q), where + ": " + q + " has two owners");
                }
                List<MessageQueue> shuffledQueues = new ArrayList<>(mqAll);
                List<String> shuffledIds = new ArrayList<>(cidAll);
                Collections.shuffle(shuffledQueues, random);
                Collections.shuffle(shuffledIds, random);
                assertEquals(new HashSet<>(mine), new HashSet<>(s.allocate("g", me, shuffledQueues, shuffledIds)), where + ": order changed " + me + "'s share");
            }
            assertEquals(mqAll.size(), seen.size(), where + ": a queue has no owner");
        }
    }

    @Test
    void weightsAndNamesCarryTheConfiguration() {
        assertEquals("BALANCED_STICKY", new NativeAllocateMessageQueueBalancedSticky().getName());
        assertEquals("BALANCED_STICKY-host", NativeAllocateMessageQueueBalancedSticky.byHost().getName());
        assertEquals("BALANCED_STICKY-before:#", NativeAllocateMessageQueueBalancedSticky.byPartBefore("#").getName());
        Map<String, Integer> weights = new HashMap<>();
        weights.put("10.0.0.1", 3);
        NativeAllocateMessageQueueBalancedSticky weighted = NativeAllocateMessageQueueBalancedSticky.byHost().withWeights(weights);
        assertTrue(weighted.getName().startsWith("BALANCED_STICKY-host-weights:"), weighted.getName());
        weights.put("10.0.0.2", 1);
        assertEquals(weighted.getName(), NativeAllocateMessageQueueBalancedSticky.byHost().withWeights(weights).getName(), "a weight of 1 is the default");
        weights.put("10.0.0.1", 2);
        assertNotEquals(weighted.getName(), NativeAllocateMessageQueueBalancedSticky.byHost().withWeights(weights).getName());

        // 8 queues, hosts weighing 3 and 1: shares of exactly 6 and 2.
        List<MessageQueue> mqAll = new ArrayList<>();
        for (int q = 0; q < 8; q++) {
            mqAll.add(new MessageQueue("T", "b", q));
        }
        List<String> ids = java.util.Arrays.asList("10.0.0.2@7", "10.0.0.1@5");
        assertEquals(6, weighted.allocate("g", "10.0.0.1@5", mqAll, ids).size());
        assertEquals(2, weighted.allocate("g", "10.0.0.2@7", mqAll, ids).size());

        Map<String, Integer> zero = new HashMap<>();
        zero.put("x", 0);
        assertThrows(IllegalArgumentException.class, () -> new NativeAllocateMessageQueueBalancedSticky().withWeights(zero));
        assertThrows(IllegalArgumentException.class, () -> new NativeAllocateMessageQueueBalancedSticky().withWeights(null));
        assertThrows(IllegalArgumentException.class, () -> NativeAllocateMessageQueueBalancedSticky.byPartBefore(null));
        assertThrows(IllegalArgumentException.class, () -> weighted.allocate("g", "", mqAll, ids));
        if (!weighted.allocate("g", "absent", mqAll, ids).isEmpty()) {
            fail("an id not in the list gets nothing");
        }
    }
    @Test
    void aTotalSlackIsNamedKeptThroughWeightsAndChecked() {
        NativeAllocateMessageQueueBalancedSticky slack = NativeAllocateMessageQueueBalancedSticky.byHost().withTotalSlack(2);
        assertEquals("BALANCED_STICKY-host-slack:2", slack.getName());
        assertEquals(2, slack.getTotalSlack());
        Map<String, Integer> weights = new HashMap<>();
        weights.put("10.0.0.1", 3);
        assertTrue(slack.withWeights(weights).getName().endsWith("-slack:2"), "withWeights keeps the slack");
        assertEquals("BALANCED_STICKY", new NativeAllocateMessageQueueBalancedSticky().withTotalSlack(0).getName());
        assertThrows(IllegalArgumentException.class, () -> new NativeAllocateMessageQueueBalancedSticky().withTotalSlack(-1));
        assertThrows(IllegalArgumentException.class, () -> new NativeAllocateMessageQueueBalancedSticky().withTotalSlack(1001));

        // 20 one-queue topics over 6 members in one call: every queue held once, and every total
        // within the slack of 20 / 6 (3 or 4), so between 1 and 6.
        List<MessageQueue> mqAll = new ArrayList<>();
        for (int t = 0; t < 20; t++) {
            mqAll.add(new MessageQueue("T" + t, "b", 0));
        }
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ids.add("10.0.0." + i + "@" + (100 + i));
        }
        java.util.Set<MessageQueue> held = new java.util.HashSet<>();
        for (String id : ids) {
            List<MessageQueue> mine = slack.allocate("g", id, mqAll, ids);
            assertTrue(mine.size() >= 1 && mine.size() <= 6, id + " holds " + mine.size());
            held.addAll(mine);
        }
        assertEquals(new java.util.HashSet<>(mqAll), held);
    }
}
