package org.rocketmq.rebalance.vectors;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.apache.rocketmq.common.MQVersion;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * Entry point of the vector generator.
 *
 * <pre>
 *   vectors DIR          write the committed vector files (deterministic) into DIR
 *   random SEED COUNT    print COUNT random cases with Java's answer as "expected" (JSON Lines)
 *   oracle               answer cases read from stdin, one line each, like `rmq-rebalance allocate --cases -`
 * </pre>
 */
public final class Main {
    /** The seed of the committed vectors; changing it rewrites them all. */
    static final long VECTOR_SEED = 20261129L;

    private Main() {
    }

    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String mode = args.length > 0 ? args[0] : "";
        switch (mode) {
            case "vectors":
                writeVectors(Paths.get(args[1]));
                break;
            case "random": {
                long seed = Long.parseLong(args[1]);
                int count = Integer.parseInt(args[2]);
                Cases cases = new Cases(seed, "random-" + seed, c -> out.println(Json.GSON.toJson(withExpected(c))));
                Random pick = new Random(seed ^ 0x5DEECE66DL);
                for (int i = 0; i < count; i++) {
                    cases.random(Cases.STRATEGIES[pick.nextInt(Cases.STRATEGIES.length)], 300, 60);
                }
                break;
            }
            case "oracle": {
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                for (String line; (line = in.readLine()) != null; ) {
                    out.println(Json.GSON.toJson(Oracle.answer(JsonParser.parseString(line).getAsJsonObject())));
                }
                break;
            }
            default:
                System.err.println("usage: Main vectors DIR | random SEED COUNT | oracle");
                System.exit(2);
        }
        out.flush();
    }

    /** The case with Java's answer (minus the id) under "expected". */
    static JsonObject withExpected(JsonObject c) {
        JsonObject answer = Oracle.answer(c);
        answer.remove("id");
        JsonObject line = c.deepCopy();
        line.add("expected", answer);
        return line;
    }

    static void writeVectors(Path dir) throws IOException {
        Files.createDirectories(dir);
        JsonObject manifest = new JsonObject();
        manifest.addProperty("rocketmq_client", MQVersion.getVersionDesc(MQVersion.CURRENT_VERSION));
        manifest.addProperty("seed", VECTOR_SEED);
        manifest.addProperty("generator", "tests/vectors/run.sh vectors tests/vectors/data");
        JsonObject counts = new JsonObject();
        long seed = VECTOR_SEED;
        for (String s : Cases.STRATEGIES) {
            counts.addProperty(s, writeFile(dir.resolve(s + ".jsonl"), seed++, s, cases -> fixed(s, cases)));
        }
        counts.addProperty("sort", writeSortVectors(dir.resolve("sort.jsonl"), seed));
        manifest.add("cases", counts);
        Files.writeString(dir.resolve("MANIFEST.json"), Json.GSON.toJson(manifest) + "\n");
    }

    static JsonObject params(String key, int value) {
        JsonObject p = new JsonObject();
        p.addProperty(key, value);
        return p;
    }

    /** What each strategy's file holds; see Cases for what each group of cases exercises. */
    static void fixed(String strategy, Cases c) {
        switch (strategy) {
            case "averagely":
            case "circle":
                c.argumentErrors(strategy, null);
                c.exhaustive(strategy, null, 12, 6);
                randoms(c, strategy, 300);
                c.large(strategy, null, 5000, 500, 3);
                break;
            case "consistent_hash":
                c.argumentErrors(strategy, null);
                c.consistentHashEdges();
                c.exhaustive(strategy, null, 8, 4);
                randoms(c, strategy, 400);
                c.large(strategy, null, 5000, 500, 3);
                c.large(strategy, params("virtual_node_count", 100), 5000, 500, 1);
                break;
            case "machine_room_nearby": {
                JsonObject avg = new JsonObject();
                avg.addProperty("inner", "averagely");
                c.argumentErrors(strategy, avg);
                c.machineRoomNearbyEdges();
                randoms(c, strategy, 400);
                break;
            }
            case "by_machine_room":
                c.argumentErrors(strategy, null);
                c.byMachineRoomEdges();
                randoms(c, strategy, 300);
                break;
            case "by_config":
                c.argumentErrors(strategy, null);
                c.byConfigEdges();
                randoms(c, strategy, 20);
                break;
            default:
                throw new IllegalArgumentException(strategy);
        }
    }

    static void randoms(Cases c, String strategy, int count) {
        for (int i = 0; i < count; i++) {
            c.random(strategy, 300, 60);
        }
    }

    static int writeFile(Path file, long seed, String name, Consumer<Cases> body) throws IOException {
        int[] count = {0};
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            Cases cases = new Cases(seed, name, c -> {
                try {
                    w.write(Json.GSON.toJson(withExpected(c)));
                    w.write('\n');
                    count[0]++;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            body.accept(cases);
        }
        return count[0];
    }

    /** Lists sorted by Collections.sort, as RebalanceImpl sorts them before allocating. */
    static int writeSortVectors(Path file, long seed) throws IOException {
        Random rnd = new Random(seed);
        int count = 200;
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            Cases cases = new Cases(seed, "sort", c -> { });
            for (int i = 0; i < count; i++) {
                List<MessageQueue> mqs = cases.randomQueues(rnd.nextInt(40), Cases.BROKERS);
                List<String> ids = cases.randomIds(rnd.nextInt(20), rnd.nextBoolean() ? null : Cases.ROOMS);
                Collections.shuffle(mqs, rnd);
                Collections.shuffle(ids, rnd);
                List<MessageQueue> sortedQueues = new ArrayList<>(mqs);
                List<String> sortedIds = new ArrayList<>(ids);
                Collections.sort(sortedQueues);
                Collections.sort(sortedIds);
                JsonObject line = new JsonObject();
                line.addProperty("id", "sort-" + i);
                line.add("mq_all", Json.queues(mqs));
                line.add("cid_all", Json.strings(ids));
                JsonObject expected = new JsonObject();
                expected.add("mq_all", Json.queues(sortedQueues));
                expected.add("cid_all", Json.strings(sortedIds));
                line.add("expected", expected);
                w.write(Json.GSON.toJson(line));
                w.write('\n');
            }
        }
        return count;
    }
}
