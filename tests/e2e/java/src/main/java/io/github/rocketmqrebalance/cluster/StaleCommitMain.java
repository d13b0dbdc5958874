package io.github.rocketmqrebalance.cluster;

import java.nio.file.Path;
import java.nio.file.Paths;

import org.apache.rocketmq.remoting.protocol.header.UpdateConsumerOffsetRequestHeader;

/**
 * A process that keeps committing an old offset for one queue of a group, as a member that lost
 * the queue and still commits what it had read (the stock consumer does so after a partition
 * heals), for the alert test's {@code RocketMQQueueRewind}.
 * {@code StaleCommitMain <namesrv> <group> <topic> <queue-id> <offset> <state-dir>} commits that
 * offset on the topic's first broker every 500 ms under its own client id, and writes
 * {@code stale.began} (the wall-clock time of the first commit the broker took) once one is taken.
 * It is not a member of the group: the group's own member commits its offset again every 5 s, so
 * the broker's committed offset goes back and forth, as it does with a real stale committer.
 * SIGTERM ends it.
 */
public final class StaleCommitMain {
    private StaleCommitMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: StaleCommitMain <namesrv> <group> <topic> <queue-id> <offset> <state-dir>");
            System.exit(2);
        }
        String group = args[1];
        String topic = args[2];
        int queueId = Integer.parseInt(args[3]);
        long offset = Long.parseLong(args[4]);
        Path began = Paths.get(args[5]).resolve("stale.began");
        try (Outsider out = Outsider.start(args[0], "stale-commit", topic)) {
            UpdateConsumerOffsetRequestHeader header = new UpdateConsumerOffsetRequestHeader();
            header.setConsumerGroup(group);
            header.setTopic(topic);
            header.setQueueId(queueId);
            header.setCommitOffset(offset);
            System.out.println("committing offset " + offset + " of " + topic + " queue " + queueId + " for " + group + " at " + out.addr);
            boolean taken = false;
            while (true) {
                try {
                    out.api.updateConsumerOffset(out.addr, header, 3_000);
                    if (!taken) {
                        taken = true;
                        Outsider.stamp(began);
                        System.out.println("first stale commit taken");
                    }
                } catch (Exception e) {
                    System.out.println("commit failed: " + e);
                }
                Thread.sleep(Outsider.EVERY_MS);
            }
        }
    }
}
