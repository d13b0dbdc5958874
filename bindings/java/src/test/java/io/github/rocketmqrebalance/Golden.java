package io.github.rocketmqrebalance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.common.message.MessageQueue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/** The committed answers of a strategy with no Java original (tests/golden), asked in Java. */
final class Golden {
    private Golden() {
    }

    /** Every case of {@code file}, through the strategy {@code of} builds from its parameters. */
    static void checkEvery(Path file, Function<JsonObject, AllocateMessageQueueStrategy> of) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertTrue(lines.size() >= 400, lines.size() + " golden cases");
        for (String line : lines) {
            JsonObject c = JsonParser.parseString(line).getAsJsonObject();
            JsonObject expected = c.getAsJsonObject("expected");
            List<MessageQueue> mqAll = Pairs.queues(c.get("mq_all"));
            String current = c.get("current").getAsString();
            String got;
            try {
                got = of.apply(c.getAsJsonObject("params")).allocate("GID_golden", current, mqAll, Pairs.strings(c.get("cid_all"))).toString();
            } catch (IllegalArgumentException e) {
                got = "IllegalArgumentException: " + e.getMessage();
            }
            String want = expected.has("error") ? expected.get("error").getAsString() : String.valueOf(Pairs.queues(expected.get("result")));
            assertEquals(want, got, c.get("id").getAsString());
        }
    }
}
