package io.github.rocketmqrebalance.cluster;

import java.io.File;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.apache.rocketmq.broker.BrokerController;

/**
 * The broker as a process of its own, so that a test can kill it (SIGKILL) and start it again on
 * the same store and ports: {@code BrokerMain <state-dir> <namesrv> <port> <ha-port>
 * <topic>:<queues>... [monitor=<group>@<topic>...]}. Its store is {@code <state-dir>/broker-home}
 * (kept across restarts). It starts one {@link BrokerMonitor} per {@code monitor=} (before it
 * serves), creates the topics (again, after a restart: the same configuration) and then writes {@code <state-dir>/broker.ready} (its
 * start, {@code System.nanoTime()}), removed first so that a reader waits for this start's.
 */
public final class BrokerMain {
    private BrokerMain() {
    }

    public static void main(String[] args) throws Exception {
        try {
            run(args);
        } catch (Throwable t) {
            // The initialized broker's threads would keep a failed start's process alive.
            t.printStackTrace();
            System.exit(1);
        }
    }

    private static void run(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: BrokerMain <state-dir> <namesrv> <port> <ha-port> <topic>:<queues>... [monitor=<group>@<topic>...]");
            System.exit(2);
        }
        Path dir = Paths.get(args[0]);
        java.nio.file.Files.deleteIfExists(dir.resolve("broker.ready"));
        File home = dir.resolve("broker-home").toFile();
        home.mkdirs();
        System.setProperty("rocketmq.home.dir", home.getPath());
        Map<String, Integer> queues = new LinkedHashMap<>();
        List<String[]> monitors = new ArrayList<>();
        for (int i = 4; i < args.length; i++) {
            if (args[i].startsWith("monitor=")) {
                monitors.add(args[i].substring("monitor=".length()).split("@", 2));
            } else {
                String[] topic = args[i].split(":", 2);
                queues.put(topic[0], Integer.parseInt(topic[1]));
            }
        }
        // The monitors start before the broker serves: a lock taken in its first moments is seen.
        BrokerController broker = LocalCluster.startBroker(home, args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), initialized -> {
            for (String[] groupTopic : monitors) {
                BrokerMonitor.start(initialized, groupTopic[0], groupTopic[1], queues.get(groupTopic[1]), dir);
            }
        });
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            broker.shutdown();
            stopped.countDown();
        }, "broker-shutdown"));
        for (Map.Entry<String, Integer> topic : queues.entrySet()) {
            LocalCluster.createTopic(broker, args[1], topic.getKey(), topic.getValue());
        }
        StateFile.writeAtomically(dir.resolve("broker.ready"), Long.toString(System.nanoTime()));
        System.out.println("broker ready on port " + args[2]);
        stopped.await();
    }
}
