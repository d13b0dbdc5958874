package io.github.rocketmqrebalance.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.CountDownLatch;

import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;

/**
 * A NameServer and Broker as their own process, for scripts whose consumers are other processes:
 * {@code ClusterMain <state-dir> <topic>:<queues>...}. Creates the topics, then writes the
 * NameServer's address to {@code <state-dir>/namesrv.addr} (renamed into place, so a reader never
 * sees half of it) and runs until it is terminated.
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
        for (int i = 1; i < args.length; i++) {
            String[] topic = args[i].split(":", 2);
            cluster.createTopic(topic[0], Integer.parseInt(topic[1]));
        }
        for (int i = 1; i < args.length; i++) {
            awaitRoute(cluster.namesrvAddr(), args[i].split(":", 2)[0]);
        }
        writeAtomically(dir.resolve("namesrv.addr"), cluster.namesrvAddr());
        System.out.println("cluster ready: namesrv " + cluster.namesrvAddr());
        stopped.await();
    }

    /**
     * Waits until the NameServer serves the topic's route, as a client asks for it: a Go consumer
     * started before that gives up at once ("route info not found") where Java's retries.
     */
    private static void awaitRoute(String namesrvAddr, String topic) throws Exception {
        DefaultMQProducer probe = new DefaultMQProducer("PG_ROUTE_PROBE");
        probe.setNamesrvAddr(namesrvAddr);
        probe.setInstanceName("route-probe");
        probe.start();
        try {
            long deadline = System.currentTimeMillis() + 120_000;
            while (true) {
                try {
                    if (!probe.fetchPublishMessageQueues(topic).isEmpty()) {
                        return;
                    }
                } catch (MQClientException notYet) {
                    if (System.currentTimeMillis() > deadline) {
                        throw notYet;
                    }
                }
                Thread.sleep(200);
            }
        } finally {
            probe.shutdown();
        }
    }

    /** Writes through a temporary file and a rename, so a polling reader sees the old or the new text. */
    public static void writeAtomically(Path file, String text) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.write(tmp, text.getBytes(StandardCharsets.UTF_8));
        Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
}
