package io.github.rocketmqrebalance.cluster;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.util.Random;
import java.util.function.ToLongFunction;

import org.apache.rocketmq.broker.BrokerController;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.BrokerConfig;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.common.namesrv.NamesrvConfig;
import org.apache.rocketmq.namesrv.NamesrvController;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyServerConfig;
import org.apache.rocketmq.store.config.BrokerRole;
import org.apache.rocketmq.store.config.MessageStoreConfig;

/**
 * A real NameServer and one Broker (rocketmq-namesrv / rocketmq-broker) in the calling JVM, bound
 * to loopback on ports picked at run time, storing into a fresh temporary directory. Used by the
 * in-JVM end-to-end test and, as its own process, by {@link ClusterMain} for the scripts whose
 * consumers are other processes (and other languages). Compiled on the 4.9 line too
 * (tests/e2e/java49), with that line's {@link Loopback}.
 */
public final class LocalCluster implements AutoCloseable {
    public static final String BROKER_NAME = "broker-a";

    /**
     * The address the servers bind to and the brokers advertise: loopback, unless the system
     * property {@code rmq.e2e.host} names another local address. The partition test sets it: its
     * cluster runs in a network namespace of the test's own and its consumers, each in a namespace
     * of their own, reach the cluster through a veth pair, never through loopback.
     */
    public static String host() {
        return System.getProperty("rmq.e2e.host", "127.0.0.1");
    }

    private final File home;
    private final NamesrvController namesrv;
    private final BrokerController broker;
    private final String namesrvAddr;

    private LocalCluster(File home, NamesrvController namesrv, BrokerController broker, String namesrvAddr) {
        this.home = home;
        this.namesrv = namesrv;
        this.broker = broker;
        this.namesrvAddr = namesrvAddr;
    }

    /** Starts both servers; the client log root and rocketmq.home point into the temporary directory. */
    public static LocalCluster start() throws Exception {
        return start(BrokerController::new);
    }

    /** How a broker is built from its configurations: the 4.9 and 5.x lines' constructor, or one with more (5.x's authentication). */
    public interface BrokerMaker {
        BrokerController make(BrokerConfig broker, NettyServerConfig server, NettyClientConfig client, MessageStoreConfig store) throws Exception;
    }

    /** {@link #start()}, the broker built by {@code maker}. */
    public static LocalCluster start(BrokerMaker maker) throws Exception {
        File home = Files.createTempDirectory(roomyDirectory().toPath(), "rmq-cluster").toFile();
        System.setProperty("rocketmq.client.logRoot", new File(home, "logs").getPath());
        System.setProperty("rocketmq.home.dir", home.getPath());
        Random random = new Random();
        NamesrvController namesrv = startNamesrv(freePort(random, 0));
        String namesrvAddr = host() + ":" + namesrv.getNettyServerConfig().getListenPort();
        // The broker also listens on port - 2 (the VIP channel) and on the HA port.
        BrokerController broker;
        try {
            broker = startBroker(home, namesrvAddr, freePort(random, 2), freePort(random, 0), initialized -> { }, maker);
        } catch (Exception e) {
            namesrv.shutdown();
            throw e;
        }
        return new LocalCluster(home, namesrv, broker, namesrvAddr);
    }

    /** A NameServer on loopback {@code port}. */
    public static NamesrvController startNamesrv(int port) throws Exception {
        NettyServerConfig netty = new NettyServerConfig();
        netty.setListenPort(port);
        Loopback.bind(netty);
        NamesrvController namesrv = new NamesrvController(new NamesrvConfig(), netty);
        if (!namesrv.initialize()) {
            throw new IllegalStateException("the NameServer did not initialize");
        }
        namesrv.start();
        return namesrv;
    }

    /**
     * The broker, storing under {@code home}/store; started again on the same {@code home} and
     * ports (after a kill) it recovers that store: its messages, topics and the consumer offsets
     * it had flushed, but not its orderly lock table or its consumer groups' members (memory only).
     */
    public static BrokerController startBroker(File home, String namesrvAddr, int brokerPort, int haPort) throws Exception {
        return startBroker(home, namesrvAddr, brokerPort, haPort, initialized -> { });
    }

    /** What runs on an initialized broker before it starts serving. */
    public interface BeforeStart {
        void accept(BrokerController broker) throws Exception;
    }

    /** {@link #startBroker(File, String, int, int)}, running {@code beforeStart} just before the broker serves. */
    public static BrokerController startBroker(File home, String namesrvAddr, int brokerPort, int haPort, BeforeStart beforeStart)
        throws Exception {
        return startBroker(home, namesrvAddr, brokerPort, haPort, beforeStart, BrokerController::new);
    }

    /** {@link #startBroker(File, String, int, int, BeforeStart)}, the broker built by {@code maker}. */
    public static BrokerController startBroker(File home, String namesrvAddr, int brokerPort, int haPort, BeforeStart beforeStart,
        BrokerMaker maker) throws Exception {
        return startBroker(home, namesrvAddr, brokerPort, haPort, BROKER_NAME, 0, beforeStart, maker);
    }

    /**
     * {@link #startBroker(File, String, int, int, BeforeStart, BrokerMaker)} as the broker named
     * {@code brokerName} with id {@code brokerId}: 0 is the master, any other a slave, which finds
     * its master's HA address through the NameServer and replicates from it (asynchronously, as
     * RocketMQ ships it).
     */
    public static BrokerController startBroker(File home, String namesrvAddr, int brokerPort, int haPort, String brokerName, long brokerId,
        BeforeStart beforeStart, BrokerMaker maker) throws Exception {
        BrokerConfig brokerConfig = new BrokerConfig();
        brokerConfig.setBrokerName(brokerName);
        brokerConfig.setBrokerId(brokerId);
        brokerConfig.setBrokerClusterName("local");
        brokerConfig.setBrokerIP1(host());
        brokerConfig.setBrokerIP2(host());
        brokerConfig.setNamesrvAddr(namesrvAddr);
        brokerConfig.setRocketmqHome(home.getPath());
        // SQL92 subscriptions are refused by a broker without it (filtering by tag needs nothing).
        brokerConfig.setEnablePropertyFilter(true);
        NettyServerConfig brokerNetty = new NettyServerConfig();
        brokerNetty.setListenPort(brokerPort);
        Loopback.bind(brokerNetty);
        MessageStoreConfig store = new MessageStoreConfig();
        store.setStorePathRootDir(new File(home, "store").getPath());
        store.setStorePathCommitLog(new File(home, "store/commitlog").getPath());
        // Small files: the defaults (1 GiB commit log) would be preallocated on every run.
        store.setMappedFileSizeCommitLog(8 * 1024 * 1024);
        store.setMappedFileSizeConsumeQueue(20 * 20_000);
        store.setMaxHashSlotNum(1000);
        store.setMaxIndexNum(4000);
        store.setHaListenPort(haPort);
        store.setDiskMaxUsedSpaceRatio(99);
        if (brokerId != 0) {
            store.setBrokerRole(BrokerRole.SLAVE);
        }
        BrokerController broker = maker.make(brokerConfig, brokerNetty, new NettyClientConfig(), store);
        if (!broker.initialize()) {
            throw new IllegalStateException("the Broker did not initialize");
        }
        beforeStart.accept(broker);
        broker.start();
        return broker;
    }

    /**
     * Where the store goes. The broker judges the disk its files are on, not their few megabytes:
     * from 85% used it deletes commit log files before they expire, from 90% it refuses every
     * write as "disk full", and it caps both settings at those values, so no configuration lets
     * it run on a fuller disk. When the temporary directory's disk is that full (CI machines'
     * sometimes are), /dev/shm (memory, where present) holds the store instead.
     */
    static File roomyDirectory() {
        File[] candidates = {new File(System.getProperty("java.io.tmpdir")), new File("/dev/shm")};
        return roomyDirectory(candidates, LocalCluster::usedPercent);
    }

    /** The first of {@code candidates} under 80% used ({@code usedPercent} is -1 for one not usable). */
    static File roomyDirectory(File[] candidates, ToLongFunction<File> usedPercent) {
        StringBuilder seen = new StringBuilder();
        for (File dir : candidates) {
            long used = usedPercent.applyAsLong(dir);
            if (used < 0) {
                continue;
            }
            if (used < 80) {
                return dir;
            }
            seen.append(' ').append(dir).append(" is ").append(used).append("% full;");
        }
        throw new IllegalStateException("no directory with room for the broker's store:" + seen
                + " the broker deletes files from 85% and refuses writes from 90%");
    }

    /** How full the disk holding {@code dir} is, in percent; -1 when {@code dir} is no writable directory. */
    private static long usedPercent(File dir) {
        long total = dir.getTotalSpace();
        if (!dir.isDirectory() || !dir.canWrite() || total <= 0) {
            return -1;
        }
        return (total - dir.getUsableSpace()) * 100 / total;
    }

    public String namesrvAddr() {
        return namesrvAddr;
    }

    public BrokerController broker() {
        return broker;
    }

    /**
     * Creates (or resizes) a readable, writable topic, registers it with the NameServer and waits
     * until the NameServer answers a client's route query for it: a client asking before that gets
     * "no route" (a Go consumer gives up at once, a producer's send fails).
     */
    public void createTopic(String topic, int queues) throws Exception {
        createTopic(broker, namesrvAddr, topic, queues);
    }

    /** {@link #createTopic(String, int)} on any broker registered with {@code namesrvAddr}. */
    public static void createTopic(BrokerController broker, String namesrvAddr, String topic, int queues) throws Exception {
        TopicConfig config = new TopicConfig(topic, queues, queues, PermName.PERM_READ | PermName.PERM_WRITE);
        broker.getTopicConfigManager().updateTopicConfig(config);
        broker.registerBrokerAll(true, false, true);
        DefaultMQProducer probe = new DefaultMQProducer("PG_ROUTE_PROBE");
        probe.setNamesrvAddr(namesrvAddr);
        probe.setInstanceName("route-probe-" + topic);
        probe.start();
        try {
            long deadline = System.currentTimeMillis() + 120_000;
            while (true) {
                try {
                    // Only this broker's queues: the topic may be spread over other broker names too.
                    String name = broker.getBrokerConfig().getBrokerName();
                    if (probe.fetchPublishMessageQueues(topic).stream().filter(q -> q.getBrokerName().equals(name)).count() == queues) {
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

    @Override
    public void close() {
        broker.shutdown();
        namesrv.shutdown();
        deleteTree(home);
    }

    /** A loopback port that is free, and so is port - below (the broker's VIP channel). */
    public static int freePort(Random random, int below) throws IOException {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = 20_000 + random.nextInt(40_000);
            if (free(port) && (below == 0 || free(port - below))) {
                return port;
            }
        }
        throw new IOException("no free loopback port found");
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return s.isBound(); // bound here, and closed again at once
        } catch (IOException e) {
            return false;
        }
    }

    private static void deleteTree(File f) {
        File[] children = f.listFiles();
        if (children != null) {
            for (File c : children) {
                deleteTree(c);
            }
        }
        f.delete();
    }
}
