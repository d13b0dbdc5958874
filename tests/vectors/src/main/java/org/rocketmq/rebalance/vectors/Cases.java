package org.rocketmq.rebalance.vectors;

import com.google.gson.JsonArray;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * Builds cases: a fixed set per strategy (exhaustive small sizes, every error, named edge cases)
 * plus seeded random ones. java.util.Random is specified bit for bit, so a seed always gives the
 * same cases on every JDK.
 */
final class Cases {
    static final String[] STRATEGIES = {"averagely", "circle", "consistent_hash", "machine_room_nearby", "by_machine_room", "by_config"};

    /**
     * Names chosen so that UTF-16 order and code-point order disagree: U+FF21 and U+E000 (one
     * UTF-16 unit >= 0xE000) against an emoji (a surrogate pair starting at 0xD83D).
     */
    static final String[] TOPICS = {"TopicA", "TopicB", "%RETRY%group", "t", "\uFF21topic", "\uD83D\uDE00topic", "\uE000", "\u00e9t"};
    static final String[] BROKERS = {"broker-a", "broker-b", "hz-broker", "sh-broker-1", "\uFF21-b", "\uD83D\uDE00-b", "b"};
    static final String[] ROOMS = {"hz", "sh", "bj", "\uFF21", "\uD83D\uDE00", "\uE000a", "hz2"};
    static final String[] MACHINE_ROOM_BROKERS = {"idc1@b1", "idc2@b2", "idc1@b3@", "@b", "@", "a@@b", "plain", "", "idc3@", "idc1@b@c", "\uFF21@b", "idc2@\uD83D\uDE00", "@@idc1"};
    static final String[] IDCS = {"idc1", "idc2", "idc3", "", "\uFF21", "a"};

    private final Random rnd;
    private final Consumer<JsonObject> sink;
    private int serial;
    private final String prefix;

    Cases(long seed, String prefix, Consumer<JsonObject> sink) {
        this.rnd = new Random(seed);
        this.prefix = prefix;
        this.sink = sink;
    }

    // ---------- case plumbing ----------

    private void emit(String strategy, JsonObject params, String current, List<MessageQueue> mqs, List<String> cids) {
        JsonObject c = new JsonObject();
        c.addProperty("id", prefix + "-" + (serial++));
        c.addProperty("strategy", strategy);
        c.addProperty("group", "GID_test");
        c.add("current", current == null ? JsonNull.INSTANCE : new com.google.gson.JsonPrimitive(current));
        c.add("mq_all", mqs == null ? JsonNull.INSTANCE : Json.queues(mqs));
        c.add("cid_all", cids == null ? JsonNull.INSTANCE : Json.strings(cids));
        c.add("params", params == null ? new JsonObject() : params);
        sink.accept(c);
    }

    /** Every member of the list (first occurrences), plus one id that is absent. */
    private void emitForMembers(String strategy, JsonObject params, List<MessageQueue> mqs, List<String> cids) {
        for (String cid : new java.util.LinkedHashSet<>(cids)) {
            emit(strategy, params, cid, mqs, cids);
        }
        emit(strategy, params, "absent@0.0.0.0", mqs, cids);
    }

    private <T> T pick(T[] a) {
        return a[rnd.nextInt(a.length)];
    }

    /** Sizes skewed towards small ones, up to max inclusive. */
    private int size(int max) {
        if (rnd.nextInt(10) == 0) {
            return rnd.nextInt(3);
        }
        double u = rnd.nextDouble();
        return (int) Math.min(max, Math.floor(Math.exp(u * Math.log(max + 1))));
    }

    // ---------- inputs ----------

    List<MessageQueue> randomQueues(int n, String[] brokers) {
        int topics = 1 + rnd.nextInt(3);
        List<String> ts = new ArrayList<>();
        for (int i = 0; i < topics; i++) {
            ts.add(pick(TOPICS));
        }
        List<MessageQueue> out = new ArrayList<>();
        Map<String, Integer> next = new HashMap<>();
        for (int i = 0; i < n; i++) {
            String t = ts.get(rnd.nextInt(ts.size()));
            String b = pick(brokers);
            String k = t + "\u0000" + b;
            int id = next.merge(k, 1, Integer::sum) - 1;
            if (rnd.nextInt(20) == 0) {
                id = rnd.nextInt(5) - 1; // duplicates and a negative id now and then
            }
            out.add(new MessageQueue(t, b, id));
        }
        if (rnd.nextBoolean()) {
            Collections.sort(out);
        } else {
            Collections.shuffle(out, rnd);
        }
        if (n > 0 && rnd.nextInt(10) == 0) {
            out.add(out.get(rnd.nextInt(out.size())));
        }
        return out;
    }

    List<String> randomIds(int m, String[] rooms) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < m; i++) {
            String room = rooms == null ? null : pick(rooms);
            switch (rnd.nextInt(4)) {
                case 0:
                    out.add((room == null ? "10.0.0." + rnd.nextInt(255) : room) + "@" + (1000 + rnd.nextInt(9000)));
                    break;
                case 1:
                    out.add((room == null ? "c" : room + "@c") + i);
                    break;
                case 2:
                    out.add((room == null ? "\uFF21" : room + "@\uFF21") + i);
                    break;
                default:
                    out.add((room == null ? "\uD83D\uDE00" : room + "@\uD83D\uDE00") + i + "#" + rnd.nextInt(1 << 20));
            }
        }
        if (m > 0 && rnd.nextInt(8) == 0) {
            out.add(rnd.nextInt(out.size()), out.get(rnd.nextInt(out.size())));
        }
        if (rnd.nextBoolean()) {
            Collections.sort(out);
        } else {
            Collections.shuffle(out, rnd);
        }
        return out;
    }

    String randomCurrent(List<String> cids) {
        int r = rnd.nextInt(20);
        if (cids == null || cids.isEmpty() || r == 0) {
            return "absent@0.0.0.0";
        }
        if (r == 1) {
            return null;
        }
        if (r == 2) {
            return "";
        }
        return cids.get(rnd.nextInt(cids.size()));
    }

    JsonObject randomParams(String strategy) {
        JsonObject p = new JsonObject();
        switch (strategy) {
            case "consistent_hash": {
                int[] counts = {0, 1, 10, 100, 3, -1};
                int r = rnd.nextInt(counts.length + 1);
                if (r < counts.length && !(counts[r] < 0 && rnd.nextInt(4) != 0)) {
                    p.addProperty("virtual_node_count", counts[r]);
                }
                break;
            }
            case "machine_room_nearby": {
                String[] inners = {"averagely", "circle", "consistent_hash", "by_machine_room", "averagely", "circle"};
                String inner = pick(inners);
                p.addProperty("inner", inner);
                p.add("inner_params", randomParams(inner));
                break;
            }
            case "by_machine_room": {
                if (rnd.nextInt(10) != 0) {
                    JsonArray idcs = new JsonArray();
                    for (String idc : IDCS) {
                        if (rnd.nextBoolean()) {
                            idcs.add(idc);
                        }
                    }
                    p.add("consume_idcs", idcs);
                }
                break;
            }
            case "by_config": {
                if (rnd.nextInt(4) != 0) {
                    p.add("config", Json.queues(randomQueues(rnd.nextInt(6), BROKERS)));
                }
                break;
            }
            default:
        }
        return p;
    }

    /** One random case of any strategy. */
    void random(String strategy, int maxQueues, int maxIds) {
        int n = size(maxQueues);
        int m = size(maxIds);
        String[] brokers = BROKERS;
        String[] rooms = null;
        if (strategy.equals("machine_room_nearby")) {
            brokers = new String[n == 0 ? 1 : 1 + rnd.nextInt(4)];
            for (int i = 0; i < brokers.length; i++) {
                brokers[i] = pick(ROOMS) + "-broker-" + i;
            }
            rooms = new String[1 + rnd.nextInt(3)];
            for (int i = 0; i < rooms.length; i++) {
                rooms[i] = pick(ROOMS);
            }
        } else if (strategy.equals("by_machine_room")) {
            brokers = MACHINE_ROOM_BROKERS;
        }
        List<MessageQueue> mqs = randomQueues(n, brokers);
        List<String> cids = randomIds(m, rooms);
        if (rnd.nextInt(40) == 0) {
            mqs = null;
        }
        if (rnd.nextInt(40) == 0) {
            cids = null;
        }
        emit(strategy, randomParams(strategy), randomCurrent(cids), mqs, cids);
    }

    // ---------- fixed cases ----------

    static List<MessageQueue> topic(String t, String broker, int n) {
        List<MessageQueue> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new MessageQueue(t, broker, i));
        }
        return out;
    }

    static List<String> ids(int m) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < m; i++) {
            out.add("c" + (char) ('a' + i));
        }
        return out;
    }

    /** Every argument error of the shared check, in Java's order of checks. */
    void argumentErrors(String strategy, JsonObject params) {
        List<MessageQueue> mqs = topic("T", "b", 3);
        List<String> cids = ids(2);
        emit(strategy, params, null, mqs, cids);
        emit(strategy, params, "", mqs, cids);
        emit(strategy, params, "ca", null, cids);
        emit(strategy, params, "ca", new ArrayList<>(), cids);
        emit(strategy, params, "ca", mqs, null);
        emit(strategy, params, "ca", mqs, new ArrayList<>());
        emit(strategy, params, null, null, null);
        emit(strategy, params, "", new ArrayList<>(), new ArrayList<>());
        emit(strategy, params, "ca", null, null);
        emit(strategy, params, "zz", mqs, cids);
    }

    /** Every size from 0 to maxQueues x 0 to maxIds, each member and an absent one. */
    void exhaustive(String strategy, JsonObject params, int maxQueues, int maxIds) {
        for (int n = 0; n <= maxQueues; n++) {
            for (int m = 0; m <= maxIds; m++) {
                List<MessageQueue> mqs = topic("TopicA", "broker-a", n);
                List<String> cids = ids(m);
                if (m == 0) {
                    emit(strategy, params, "ca", mqs, cids);
                } else {
                    emitForMembers(strategy, params, mqs, cids);
                }
            }
        }
    }

    /** Large inputs with short names: every n-th member of a 5,000 x 500 group. */
    void large(String strategy, JsonObject params, int n, int m, int members) {
        List<MessageQueue> mqs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            mqs.add(new MessageQueue("T" + (i % 3), "b" + (i % 7), i / 21));
        }
        Collections.shuffle(mqs, rnd);
        List<String> cids = new ArrayList<>();
        for (int i = 0; i < m; i++) {
            cids.add("10.0." + (i / 200) + "." + (i % 200) + "@" + (i * 7919 % 10007));
        }
        Collections.sort(cids);
        for (int k = 0; k < members; k++) {
            emit(strategy, params, cids.get(rnd.nextInt(m)), mqs, cids);
        }
    }

    /** Client ids "x<i>" whose first virtual-node keys "x<i>-0" share a 32-bit ring hash. */
    static List<String[]> ringCollisions(int wanted) {
        List<String[]> out = new ArrayList<>();
        Map<Long, Integer> seen = new HashMap<>();
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            for (int i = 0; out.size() < wanted; i++) {
                long h = ringHash(md5, "x" + i + "-0");
                Integer prev = seen.put(h, i);
                if (prev != null) {
                    out.add(new String[] {"x" + prev, "x" + i});
                }
            }
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }

    static long ringHash(MessageDigest md5, String key) {
        byte[] d = md5.digest(key.getBytes(StandardCharsets.UTF_8));
        return ((d[0] & 0xFFL) << 24) | ((d[1] & 0xFFL) << 16) | ((d[2] & 0xFFL) << 8) | (d[3] & 0xFFL);
    }

    /**
     * A queue id q and a client id "y<j>" where queue "T"/"b"/q hashes exactly onto the ring
     * point "y<j>-0": the lookup is inclusive (tailMap), so y<j> owns it. Birthday search over
     * 2^17 queue keys and up to a few hundred thousand id keys.
     */
    static int[] ringExactHit() {
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            Map<Long, Integer> queues = new HashMap<>();
            for (int q = 0; q < (1 << 17); q++) {
                queues.put(ringHash(md5, new MessageQueue("T", "b", q).toString()), q);
            }
            for (int j = 0; ; j++) {
                Integer q = queues.get(ringHash(md5, "y" + j + "-0"));
                if (q != null) {
                    return new int[] {q, j};
                }
            }
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    void consistentHashEdges() {
        int[] hit = ringExactHit();
        JsonObject oneNode = new JsonObject();
        oneNode.addProperty("virtual_node_count", 1);
        List<MessageQueue> hitQueues = new ArrayList<>(topic("T", "b", 6));
        hitQueues.add(new MessageQueue("T", "b", hit[0]));
        for (int extra : new int[] {0, 1, 2, 5}) {
            List<String> cids = new ArrayList<>(List.of("y" + hit[1]));
            cids.addAll(ids(extra));
            emitForMembers("consistent_hash", oneNode, hitQueues, cids);
        }
        for (int v : new int[] {0, 1, 10, 100}) {
            JsonObject p = new JsonObject();
            p.addProperty("virtual_node_count", v);
            emitForMembers("consistent_hash", p, topic("TopicA", "broker-a", 16), ids(4));
            // A duplicated id gets further virtual nodes ("ca-10".."ca-19" with 10 per id).
            emitForMembers("consistent_hash", p, topic("TopicA", "broker-a", 24), List.of("ca", "cb", "ca", "cc"));
        }
        JsonObject neg = new JsonObject();
        neg.addProperty("virtual_node_count", -1);
        emit("consistent_hash", neg, "ca", topic("T", "b", 2), ids(2));
        neg = new JsonObject();
        neg.addProperty("virtual_node_count", Integer.MIN_VALUE);
        emit("consistent_hash", neg, "ca", topic("T", "b", 2), ids(2));
        // Ring collisions: the later put overwrites the earlier owner, which also lowers that
        // owner's count of existing virtual nodes when it appears again.
        JsonObject one = new JsonObject();
        one.addProperty("virtual_node_count", 1);
        JsonObject three = new JsonObject();
        three.addProperty("virtual_node_count", 3);
        for (String[] pair : ringCollisions(3)) {
            String a = pair[0];
            String b = pair[1];
            List<MessageQueue> mqs = topic("TopicA", "broker-a", 40);
            for (JsonObject p : new JsonObject[] {one, three}) {
                emitForMembers("consistent_hash", p, mqs, List.of(a, b));
                emitForMembers("consistent_hash", p, mqs, List.of(b, a));
                emitForMembers("consistent_hash", p, mqs, List.of(a, b, a));
                emitForMembers("consistent_hash", p, mqs, List.of(a, b, b, "cz"));
            }
        }
        // Two different queues with the same toString key go to the same owner.
        List<MessageQueue> sameKey = List.of(new MessageQueue("T, brokerName=b", "c", 1), new MessageQueue("T", "b, brokerName=c", 1));
        emitForMembers("consistent_hash", new JsonObject(), sameKey, ids(5));
    }

    void machineRoomNearbyEdges() {
        JsonObject avg = new JsonObject();
        avg.addProperty("inner", "averagely");
        List<MessageQueue> mqs = new ArrayList<>();
        for (String room : new String[] {"hz", "sh", "\uFF21", "\uD83D\uDE00", "\uE000a"}) {
            mqs.addAll(topic("TopicA", room + "-broker", 4));
        }
        // Rooms sorted by UTF-16 order decide the order of the consumer-less rooms' shares.
        emitForMembers("machine_room_nearby", avg, mqs, List.of("hz@1", "hz@2", "sh@1"));
        emitForMembers("machine_room_nearby", avg, mqs, List.of("bj@1", "bj@2"));
        emitForMembers("machine_room_nearby", avg, mqs, List.of("\uFF21@1", "\uD83D\uDE00@1", "hz@1"));
        // No room: a broker name or id that starts with its separator.
        emit("machine_room_nearby", avg, "hz@1", List.of(new MessageQueue("T", "-b", 0)), List.of("hz@1"));
        emit("machine_room_nearby", avg, "hz@1", topic("T", "hz-b", 2), List.of("hz@1", "@2"));
        // The queue error wins over the id error.
        emit("machine_room_nearby", avg, "hz@1", List.of(new MessageQueue("T", "-b", 0)), List.of("hz@1", "@2"));
        // Custom separators.
        JsonObject custom = avg.deepCopy();
        custom.addProperty("broker_room_sep", "::");
        custom.addProperty("consumer_room_sep", "#");
        emitForMembers("machine_room_nearby", custom, topic("T", "hz::b", 5), List.of("hz#1", "sh#1", "hz#2"));
        // Inner CONFIG with no list: Java's addAll(null) throws NullPointerException.
        JsonObject nullConfig = new JsonObject();
        nullConfig.addProperty("inner", "by_config");
        emit("machine_room_nearby", nullConfig, "hz@1", topic("T", "hz-b", 2), List.of("hz@1"));
        JsonObject config = new JsonObject();
        config.addProperty("inner", "by_config");
        JsonObject configParams = new JsonObject();
        configParams.add("config", Json.queues(topic("X", "y", 2)));
        config.add("inner_params", configParams);
        emitForMembers("machine_room_nearby", config, mqs, List.of("hz@1", "bj@1"));
        // Nested: the name is MACHINE_ROOM_NEARBY-MACHINE_ROOM_NEARBY-AVG.
        JsonObject nested = new JsonObject();
        nested.addProperty("inner", "machine_room_nearby");
        nested.add("inner_params", avg);
        emitForMembers("machine_room_nearby", nested, mqs, List.of("hz@1", "sh@2", "bj@1"));
    }

    void byMachineRoomEdges() {
        List<MessageQueue> mqs = new ArrayList<>();
        int i = 0;
        for (String b : MACHINE_ROOM_BROKERS) {
            mqs.add(new MessageQueue("T", b, i++));
            mqs.add(new MessageQueue("T", b, i++));
        }
        JsonArray all = new JsonArray();
        for (String idc : IDCS) {
            all.add(idc);
        }
        JsonObject p = new JsonObject();
        p.add("consume_idcs", all);
        for (int m = 1; m <= 7; m++) {
            emitForMembers("by_machine_room", p, mqs, ids(m));
        }
        // An unset idc set throws only once a broker name has exactly two parts.
        emit("by_machine_room", new JsonObject(), "ca", mqs, ids(2));
        emit("by_machine_room", new JsonObject(), "ca", List.of(new MessageQueue("T", "plain", 0), new MessageQueue("T", "a@b@c", 1)), ids(2));
        JsonObject none = new JsonObject();
        none.add("consume_idcs", new JsonArray());
        emitForMembers("by_machine_room", none, mqs, ids(3));
    }

    void byConfigEdges() {
        JsonObject p = new JsonObject();
        p.add("config", Json.queues(topic("X", "y", 3)));
        // CONFIG checks nothing: nulls and absent ids are fine.
        emit("by_config", p, null, null, null);
        emit("by_config", p, "ca", topic("T", "b", 2), ids(2));
        emit("by_config", new JsonObject(), "ca", topic("T", "b", 2), ids(2));
        JsonObject empty = new JsonObject();
        empty.add("config", new JsonArray());
        emit("by_config", empty, "ca", topic("T", "b", 2), ids(2));
    }
}
