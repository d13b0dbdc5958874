package io.github.rocketmqrebalance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/**
 * Each native class against its Java original from the real rocketmq-client jar (5.3.3, or 4.9.8
 * with -P rmq49): every committed conformance vector, then 100,000 seeded random inputs per
 * strategy. Set -Drmq.seed=N to replay; the seed is printed.
 */
class DifferentialTest {
    static final Path VECTORS = Paths.get("../../tests/vectors/data");
    static final int RANDOM_CASES = Integer.getInteger("rmq.cases", 100_000);
    static final long SEED = Long.getLong("rmq.seed", System.nanoTime());

    @ParameterizedTest
    @ValueSource(strings = {"averagely", "circle", "consistent_hash", "machine_room_nearby", "by_machine_room", "by_config"})
    void everyCommittedVector(String strategy) throws IOException {
        List<String> lines = Files.readAllLines(VECTORS.resolve(strategy + ".jsonl"), StandardCharsets.UTF_8);
        int checked = 0;
        for (String line : lines) {
            JsonObject c = JsonParser.parseString(line).getAsJsonObject();
            JsonObject params = c.has("params") && c.get("params").isJsonObject() ? c.getAsJsonObject("params") : new JsonObject();
            Pairs pair;
            try {
                pair = Pairs.of(strategy, params);
            } catch (IllegalArgumentException e) {
                // Our constructor threw (a negative virtual node count, checked before the original's):
                // Java's answer for the case must be that exception too.
                assertTrue(c.getAsJsonObject("expected").get("error").getAsString().startsWith("IllegalArgumentException: illegal virtualNodeCnt"),
                    c.get("id") + ": " + e);
                checked++;
                continue;
            }
            String group = c.has("group") && !c.get("group").isJsonNull() ? c.get("group").getAsString() : null;
            String current = c.has("current") && !c.get("current").isJsonNull() ? c.get("current").getAsString() : null;
            String why = pair.disagreement(group, current, Pairs.queues(c.get("mq_all")), Pairs.strings(c.get("cid_all")));
            if (why != null) {
                fail(c.get("id") + "\n" + why);
            }
            checked++;
        }
        assertEquals(lines.size(), checked);
    }

    @ParameterizedTest
    @ValueSource(strings = {"averagely", "circle", "consistent_hash", "machine_room_nearby", "by_machine_room", "by_config"})
    void randomInputs(String strategy) {
        long seed = SEED ^ strategy.hashCode();
        System.out.println("randomInputs(" + strategy + "): seed " + seed + " (replay with -Drmq.seed=" + SEED + ")");
        Random random = new Random(seed);
        for (int i = 0; i < RANDOM_CASES; i++) {
            JsonObject params = Inputs.params(random, strategy);
            Pairs pair = Pairs.of(strategy, params);
            List<MessageQueue> mqAll = Inputs.queues(random);
            List<String> cidAll = Inputs.ids(random);
            String current = Inputs.current(random, cidAll);
            String why = pair.disagreement("GID", current, mqAll, cidAll);
            if (why != null) {
                fail("case " + i + " of seed " + seed + ": params " + params + ", current " + current + ", mqAll " + mqAll
                    + ", cidAll " + cidAll + "\n" + why);
            }
        }
    }

    @Test
    void namesAreTheOriginals() {
        assertEquals("AVG", new NativeAllocateMessageQueueAveragely().getName());
        assertEquals("AVG_BY_CIRCLE", new NativeAllocateMessageQueueAveragelyByCircle().getName());
        assertEquals("CONSISTENT_HASH", new NativeAllocateMessageQueueConsistentHash(3).getName());
        assertEquals("MACHINE_ROOM", new NativeAllocateMessageQueueByMachineRoom().getName());
        assertEquals("CONFIG", new NativeAllocateMessageQueueByConfig().getName());
        assertEquals("MACHINE_ROOM_NEARBY-CONSISTENT_HASH",
            new NativeAllocateMachineRoomNearby(new NativeAllocateMessageQueueConsistentHash(), Pairs.separators("-", "@")).getName());
    }

    /** Random inputs in the shapes that matter: duplicates, unicode, nulls, absent ids, several topics and brokers. */
    static final class Inputs {
        static final String[] TOPICS = {"T", "TopicA", "T\u00f8", "T\ud83d\ude00", "\uff34"};
        static final String[] BROKERS = {"hz-a", "sh-b", "hz@b1", "sh@b2", "b", "x-\ud83d\ude00", "gz@"};
        static final String[] IDCS = {"hz", "sh", "gz", "", "x"};

        static JsonObject params(Random r, String strategy) {
            JsonObject p = new JsonObject();
            switch (strategy) {
                case "consistent_hash":
                    p.addProperty("virtual_node_count", r.nextInt(21));
                    break;
                case "machine_room_nearby": {
                    String[] inners = {"averagely", "circle", "consistent_hash", "by_machine_room", "by_config"};
                    String inner = inners[r.nextInt(inners.length)];
                    p.addProperty("inner", inner);
                    p.add("inner_params", params(r, inner));
                    if (r.nextBoolean()) {
                        p.addProperty("broker_room_sep", r.nextBoolean() ? "@" : "-");
                        p.addProperty("consumer_room_sep", r.nextBoolean() ? "@" : ".");
                    }
                    break;
                }
                case "by_machine_room":
                    if (r.nextInt(5) > 0) {
                        JsonArray idcs = new JsonArray();
                        for (String idc : IDCS) {
                            if (r.nextBoolean()) {
                                idcs.add(idc);
                            }
                        }
                        p.add("consume_idcs", idcs);
                    }
                    break;
                case "by_config":
                    List<MessageQueue> config = queues(r);
                    if (config != null && r.nextInt(4) > 0) {
                        JsonArray list = new JsonArray();
                        for (MessageQueue q : config) {
                            JsonArray a = new JsonArray();
                            a.add(q.getTopic());
                            a.add(q.getBrokerName());
                            a.add(q.getQueueId());
                            list.add(a);
                        }
                        p.add("config", list);
                    }
                    break;
                default:
                    break;
            }
            return p;
        }

        static List<MessageQueue> queues(Random r) {
            if (r.nextInt(40) == 0) {
                return null;
            }
            int n = r.nextInt(r.nextInt(8) == 0 ? 200 : 40);
            List<MessageQueue> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                out.add(new MessageQueue(TOPICS[r.nextInt(r.nextInt(4) == 0 ? TOPICS.length : 1)], BROKERS[r.nextInt(BROKERS.length)], r.nextInt(16)));
            }
            if (r.nextBoolean()) {
                Collections.sort(out);
            }
            return out;
        }

        static List<String> ids(Random r) {
            if (r.nextInt(40) == 0) {
                return null;
            }
            int n = r.nextInt(12);
            List<String> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String room = new String[] {"hz", "sh", "gz", "x\ud83d\ude00"}[r.nextInt(4)];
                out.add(room + (r.nextBoolean() ? "@" : ".") + "10.0.0." + r.nextInt(n + 2) + "@" + r.nextInt(3));
            }
            if (r.nextBoolean()) {
                Collections.sort(out);
            }
            return out;
        }

        static String current(Random r, List<String> ids) {
            int pick = r.nextInt(20);
            if (pick == 0) {
                return null;
            }
            if (pick == 1) {
                return "";
            }
            if (pick == 2 || ids == null || ids.isEmpty()) {
                return "absent@1";
            }
            return ids.get(r.nextInt(ids.size()));
        }
    }
}
