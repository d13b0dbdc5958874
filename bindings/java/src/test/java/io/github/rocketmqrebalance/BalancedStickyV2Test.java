package io.github.rocketmqrebalance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * BALANCED_STICKY_V2 from Java: the committed answers of the core (tests/golden, pinned from its
 * first version), and its caps checked here in Java on seeded random groups, asked per topic as
 * {@code RebalanceImpl} asks: every queue exactly one owner, every total within the caps, for any
 * order of the lists.
 */
class BalancedStickyV2Test {
    static final Path GOLDEN = Paths.get("../../tests/golden/balanced_sticky_v2.jsonl");
    static final long SEED = Long.getLong("rmq.seed", System.nanoTime());

    static NativeAllocateMessageQueueBalancedStickyV2 of(JsonObject params) {
        JsonElement key = params.get("stable_key");
        NativeAllocateMessageQueueBalancedStickyV2 s;
        if (key == null || key.isJsonPrimitive() && key.getAsString().equals("client_id")) {
            s = new NativeAllocateMessageQueueBalancedStickyV2();
        } else if (key.isJsonPrimitive() && key.getAsString().equals("host")) {
            s = NativeAllocateMessageQueueBalancedStickyV2.byHost();
        } else {
            s = NativeAllocateMessageQueueBalancedStickyV2.byPartBefore(key.getAsJsonObject().get("before").getAsString());
        }
        if (params.has("overload_percent") || params.has("underload_percent")) {
            int overload = params.has("overload_percent") ? params.get("overload_percent").getAsInt() : NativeAllocateMessageQueueBalancedStickyV2.DEFAULT_OVERLOAD_PERCENT;
            int underload = params.has("underload_percent") ? params.get("underload_percent").getAsInt() : NativeAllocateMessageQueueBalancedStickyV2.DEFAULT_UNDERLOAD_PERCENT;
            s = s.withCaps(overload, underload);
        }
        return s;
    }

    @Test
    void everyCommittedAnswer() throws IOException {
        Golden.checkEvery(GOLDEN, params -> of(params));
    }

    @Test
    void randomGroupsKeepTheCapsExactlyOnceAndOrderFree() {
        long seed = SEED ^ 0x5ee72;
        System.out.println("randomGroupsKeepTheCapsExactlyOnceAndOrderFree: seed " + seed + " (replay with -Drmq.seed=" + SEED + ")");
        Random random = new Random(seed);
        int[][] caps = {{20, 40}, {0, 0}, {50, 100}};
        for (int i = 0; i < 1_000; i++) {
            int[] cap = caps[random.nextInt(caps.length)];
            NativeAllocateMessageQueueBalancedStickyV2 s =
                (random.nextBoolean() ? new NativeAllocateMessageQueueBalancedStickyV2() : NativeAllocateMessageQueueBalancedStickyV2.byHost()).withCaps(cap[0], cap[1]);
            List<MessageQueue> mqAll = new ArrayList<>();
            int brokers = 1 + random.nextInt(3);
            int perBroker = 1 + random.nextInt(16);
            for (int b = 0; b < brokers; b++) {
                for (int q = 0; q < perBroker; q++) {
                    mqAll.add(new MessageQueue("T", "broker-" + b, q));
                }
            }
            List<String> cidAll = new ArrayList<>();
            int members = 1 + random.nextInt(12);
            for (int m = 0; m < members; m++) {
                cidAll.add("10.0." + random.nextInt(4) + "." + m + "@" + (100 + m));
            }
            String where = "case " + i + " of seed " + seed + ": " + s.getName() + ", " + mqAll.size() + " queues, ids " + cidAll;
            int q = mqAll.size();
            // The caps from the rule's text (one topic: its cap ceil(Q/C) + 1 never binds first).
            int most = (q * (100 + cap[0]) + 100 * members - 1) / (100 * members);
            int least = q * (100 - cap[1]) / (100 * members);
            Set<MessageQueue> seen = new HashSet<>();
            int fewest = Integer.MAX_VALUE;
            int largest = 0;
            for (String me : cidAll) {
                List<MessageQueue> mine = s.allocate("g", me, mqAll, cidAll);
                assertTrue(mine.size() >= least && mine.size() <= most, where + ": " + me + " got " + mine.size());
                fewest = Math.min(fewest, mine.size());
                largest = Math.max(largest, mine.size());
                for (MessageQueue x : mine) {
                    assertTrue(seen.add(x), where + ": " + x + " has two owners");
                }
                List<MessageQueue> shuffledQueues = new ArrayList<>(mqAll);
                List<String> shuffledIds = new ArrayList<>(cidAll);
                Collections.shuffle(shuffledQueues, random);
                Collections.shuffle(shuffledIds, random);
                assertEquals(new HashSet<>(mine), new HashSet<>(s.allocate("g", me, shuffledQueues, shuffledIds)), where + ": order changed " + me + "'s share");
            }
            assertTrue(!(fewest == 0 && largest >= 2), where + ": a member idle while another holds " + largest);
            assertEquals(q, seen.size(), where + ": a queue has no owner");
        }
    }

    @Test
    void namesCarryTheCapsAndBadCapsAreRefused() {
        assertEquals("BALANCED_STICKY_V2", new NativeAllocateMessageQueueBalancedStickyV2().getName());
        assertEquals("BALANCED_STICKY_V2-host", NativeAllocateMessageQueueBalancedStickyV2.byHost().getName());
        assertEquals("BALANCED_STICKY_V2-before:#-overload:30-underload:100", NativeAllocateMessageQueueBalancedStickyV2.byPartBefore("#").withCaps(30, 100).getName());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new NativeAllocateMessageQueueBalancedStickyV2().withCaps(401, 40));
        assertTrue(e.getMessage().contains("overload_percent 401"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new NativeAllocateMessageQueueBalancedStickyV2().withCaps(20, -1));
        assertThrows(IllegalArgumentException.class, () -> NativeAllocateMessageQueueBalancedStickyV2.byPartBefore(null));
    }
}
