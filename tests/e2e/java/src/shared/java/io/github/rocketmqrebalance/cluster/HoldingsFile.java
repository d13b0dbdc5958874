package io.github.rocketmqrebalance.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.google.gson.Gson;

/**
 * What a consumer process says it holds, for a checker in another process: one JSON object per
 * consumer, rewritten after every allocation ({@code <name>.held.json}), and the same object
 * appended as a line to {@code <name>.held.log}, its history. The Go test consumer writes the same
 * shape: {"name", "client_id", "language", "strategy", "round", "at_ms" (wall clock), "cids": [...],
 * "queues": [queue ids], "stopped"}.
 */
public final class HoldingsFile {
    private static final Gson GSON = new Gson();
    private final Path file;
    private final Path history;
    private final String name;
    private final String strategy;
    private int round;

    public HoldingsFile(Path dir, String name, String strategy) {
        this.file = dir.resolve(name + ".held.json");
        this.history = dir.resolve(name + ".held.log");
        this.name = name;
        this.strategy = strategy;
    }

    public synchronized void write(String clientId, List<String> cids, List<Integer> queues, boolean stopped) throws IOException {
        round++;
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", name);
        out.put("client_id", clientId);
        out.put("language", "java");
        out.put("strategy", strategy);
        out.put("round", round);
        out.put("at_ms", System.currentTimeMillis());
        out.put("cids", cids);
        out.put("queues", queues);
        out.put("stopped", stopped);
        String json = GSON.toJson(out);
        StateFile.writeAtomically(file, json);
        java.nio.file.Files.write(history, (json + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8),
            java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    }
}
