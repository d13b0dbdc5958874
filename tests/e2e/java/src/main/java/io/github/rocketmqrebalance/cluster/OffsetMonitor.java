package io.github.rocketmqrebalance.cluster;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.apache.rocketmq.broker.offset.ConsumerOffsetManager;

/**
 * Watches one group's committed offsets of one topic in the broker's own offset table and writes
 * down every move backwards: a committed offset lower than one committed before means a consumer
 * committed from a stale position, and the messages between are consumed again.
 */
final class OffsetMonitor {
    private OffsetMonitor() {
    }

    static void start(LocalCluster cluster, String group, String topic, int queues, Path dir) throws IOException {
        ConsumerOffsetManager offsets = cluster.broker().getConsumerOffsetManager();
        BufferedWriter out = Files.newBufferedWriter(dir.resolve("offsets-" + group + ".log"), StandardCharsets.UTF_8,
            StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        long[] highest = new long[queues];
        java.util.Arrays.fill(highest, -1);
        Thread t = new Thread(() -> {
            while (true) {
                try {
                    for (int q = 0; q < queues; q++) {
                        long now = offsets.queryOffset(group, topic, q);
                        if (now >= 0 && now < highest[q]) {
                            out.write("regression " + q + " " + highest[q] + " " + now);
                            out.newLine();
                            out.flush();
                        }
                        highest[q] = Math.max(highest[q], now);
                    }
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }, "offset-monitor-" + group);
        t.setDaemon(true);
        t.start();
    }
}
