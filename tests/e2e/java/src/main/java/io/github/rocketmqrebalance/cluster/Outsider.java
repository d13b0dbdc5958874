package io.github.rocketmqrebalance.cluster;

import java.nio.file.Path;

import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * A process outside the consumer group that sends one kind of request, again and again, to the
 * first broker of a topic's route: what a misbehaving peer does to a group (LockHogMain,
 * StaleCommitMain). It has a client id of its own and no heartbeat, so the group never lists it.
 */
final class Outsider implements AutoCloseable {
    /** How often the request is sent again. */
    static final long EVERY_MS = 500;

    private final DefaultMQAdminExt admin;
    final MQClientAPIImpl api;
    final BrokerData broker;
    final String addr;

    private Outsider(DefaultMQAdminExt admin, BrokerData broker) {
        this.admin = admin;
        this.api = admin.getDefaultMQAdminExtImpl().getMqClientInstance().getMQClientAPIImpl();
        this.broker = broker;
        this.addr = broker.selectBrokerAddr();
    }

    /** Started under instance name {@code <role>-<pid>}, with {@code topic}'s route read. */
    static Outsider start(String namesrv, String role, String topic) throws Exception {
        DefaultMQAdminExt admin = new DefaultMQAdminExt(15_000);
        admin.setNamesrvAddr(namesrv);
        admin.setInstanceName(role + "-" + ProcessHandle.current().pid());
        admin.start();
        try {
            return new Outsider(admin, admin.examineTopicRouteInfo(topic).getBrokerDatas().get(0));
        } catch (Exception e) {
            admin.shutdown();
            throw e;
        }
    }

    /**
     * Writes the wall-clock time in milliseconds to {@code file}, atomically: the driver reads it as
     * soon as the file exists, and a plain write let it read an empty file once.
     */
    static void stamp(Path file) throws Exception {
        StateFile.writeAtomically(file, Long.toString(System.currentTimeMillis()));
    }

    @Override
    public void close() {
        admin.shutdown();
    }
}
