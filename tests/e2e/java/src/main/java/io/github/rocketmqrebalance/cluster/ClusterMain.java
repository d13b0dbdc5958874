package io.github.rocketmqrebalance.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.CountDownLatch;


/**
 * A NameServer and Broker as their own process, for scripts whose consumers are other processes:
 * {@code ClusterMain <state-dir> <topic>:<queues>... [monitor=<group>@<topic>...]}. Creates the
 * topics, then writes the NameServer's address to {@code <state-dir>/namesrv.addr} (renamed into
 * place, so a reader never sees half of it) and runs until it is terminated. Each
 * {@code monitor=} watches the group's committed offsets of the topic on the broker every 50 ms
 * and appends every move backwards to {@code <state-dir>/offsets-<group>.log}
 * ({@code regression <queueId> <from> <to>}), read straight from the broker's offset table.
 */
public final class ClusterMain {
    private ClusterMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: ClusterMain <state-dir> <topic>:<queues>...");
            System.exit(2);
        }
        Path dir = Paths.get(args[0]);
        LocalCluster cluster = LocalCluster.start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            cluster.close();
            stopped.countDown();
        }, "cluster-shutdown"));
        java.util.Map<String, Integer> queues = new java.util.HashMap<>();
        for (int i = 1; i < args.length; i++) {
            if (!args[i].startsWith("monitor=")) {
                String[] topic = args[i].split(":", 2);
                cluster.createTopic(topic[0], Integer.parseInt(topic[1]));
                queues.put(topic[0], Integer.parseInt(topic[1]));
            }
        }
        for (int i = 1; i < args.length; i++) {
            if (args[i].startsWith("monitor=")) {
                String[] groupTopic = args[i].substring("monitor=".length()).split("@", 2);
                OffsetMonitor.start(cluster, groupTopic[0], groupTopic[1], queues.get(groupTopic[1]), dir);
            }
        }
        StateFile.writeAtomically(dir.resolve("namesrv.addr"), cluster.namesrvAddr());
        System.out.println("cluster ready: namesrv " + cluster.namesrvAddr());
        stopped.await();
    }

    /** Appends one line and flushes it at once (a reader in another process sees whole lines), one writer at a time. */
    public static void writeLine(java.io.BufferedWriter out, String line) {
        synchronized (out) {
            try {
                out.write(line);
                out.newLine();
                out.flush();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }
}
