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
 * <topic>:<queues>... [monitor=<group>@<topic>...] [name=<broker-name>] [id=<broker-id>]}.
 * Without {@code name=} and {@code id=} it is the master of {@link LocalCluster#BROKER_NAME}, its
 * store {@code <state-dir>/broker-home}, its monitors' files {@code broker-<group>.log} and its
 * ready file {@code broker.ready}; with them, {@code broker-home-<name>-<id>},
 * {@code broker-<group>@<name>.log} and {@code broker-<name>-<id>.ready}, so that several brokers
 * share one state directory. Id 0 is a master, any other a slave of the master of its name.
 * A master starts one {@link BrokerMonitor} per {@code monitor=} (before it serves) and creates the
 * topics (again, after a restart: the same configuration); a slave takes both from its master.
 * Then it writes its ready file (its start, {@code System.nanoTime()}), removed first so that a
 * reader waits for this start's.
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
        Map<String, Integer> queues = new LinkedHashMap<>();
        List<String[]> monitors = new ArrayList<>();
        String name = LocalCluster.BROKER_NAME;
        long id = 0;
        boolean named = false;
        for (int i = 4; i < args.length; i++) {
            if (args[i].startsWith("monitor=")) {
                monitors.add(args[i].substring("monitor=".length()).split("@", 2));
            } else if (args[i].startsWith("name=")) {
                name = args[i].substring("name=".length());
                named = true;
            } else if (args[i].startsWith("id=")) {
                id = Long.parseLong(args[i].substring("id=".length()));
                named = true;
            } else {
                String[] topic = args[i].split(":", 2);
                queues.put(topic[0], Integer.parseInt(topic[1]));
            }
        }
        String suffix = named ? "-" + name + "-" + id : "";
        Path ready = dir.resolve("broker" + suffix + ".ready");
        java.nio.file.Files.deleteIfExists(ready);
        File home = dir.resolve("broker-home" + suffix).toFile();
        home.mkdirs();
        System.setProperty("rocketmq.home.dir", home.getPath());
        if (id != 0) {
            // A slave takes its topics and offsets from its master, and the lock table is the master's.
            monitors.clear();
            queues.clear();
        }
        String monitorSuffix = named ? "@" + name : "";
        // The monitors start before the broker serves: a lock taken in its first moments is seen.
        BrokerController broker = LocalCluster.startBroker(home, args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), name, id,
            initialized -> {
                for (String[] groupTopic : monitors) {
                    Path file = dir.resolve("broker-" + groupTopic[0] + monitorSuffix + ".log");
                    BrokerMonitor.start(initialized, groupTopic[0], groupTopic[1], queues.get(groupTopic[1]), file);
                }
            }, BrokerController::new);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            broker.shutdown();
            stopped.countDown();
        }, "broker-shutdown"));
        for (Map.Entry<String, Integer> topic : queues.entrySet()) {
            LocalCluster.createTopic(broker, args[1], topic.getKey(), topic.getValue());
        }
        StateFile.writeAtomically(ready, Long.toString(System.nanoTime()));
        System.out.println("broker " + name + " id " + id + " ready on port " + args[2]);
        stopped.await();
    }
}
