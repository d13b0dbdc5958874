package io.github.rocketmqrebalance.cluster;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.Set;

import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.body.LockBatchRequestBody;
import org.apache.rocketmq.remoting.protocol.body.UnlockBatchRequestBody;

/**
 * Another process that takes an orderly queue's broker lock the moment it is free, and keeps
 * renewing it: what a consumer frozen past the broker's lock expiry (a long GC pause, a stopped
 * container) finds when it wakes up, for the inspect liveness test
 * ({@code orderly_lock_stuck}). {@code LockHogMain <namesrv> <group> <topic> <queue-id> <state-dir>
 * [<victim-client-id>]} asks for the lock of that queue on the topic's first broker every 500 ms,
 * under its own client id, and writes {@code hog.granted} (the wall-clock time of the first grant)
 * once the broker grants it. It is not a member of the group: no heartbeat, no rebalance. SIGTERM
 * ends it; the lock then lapses after the broker's expiry (60 s).
 *
 * <p>With a victim, each request while the hog does not hold the lock is preceded by an unlock
 * under the victim's client id (the broker removes a lock entry for whichever client id the request
 * names): the lock is taken from a consumer that keeps running, as the broker's expiry would take
 * it from one paused for 60 s, without pausing it. A consumer frozen that long on a busy machine
 * times out its own lock requests once thawed and gives the queue up instead (the alert e2e).
 */
public final class LockHogMain {
    private LockHogMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5 && args.length != 6) {
            System.err.println("usage: LockHogMain <namesrv> <group> <topic> <queue-id> <state-dir> [<victim-client-id>]");
            System.exit(2);
        }
        String group = args[1];
        String topic = args[2];
        int queueId = Integer.parseInt(args[3]);
        Path granted = Paths.get(args[4]).resolve("hog.granted");
        try (Outsider out = Outsider.start(args[0], "lock-hog", topic)) {
            MessageQueue mq = new MessageQueue(topic, out.broker.getBrokerName(), queueId);
            LockBatchRequestBody body = new LockBatchRequestBody();
            body.setConsumerGroup(group);
            body.setClientId("lock-hog@" + ProcessHandle.current().pid());
            body.setMqSet(Collections.singleton(mq));
            UnlockBatchRequestBody steal = null;
            if (args.length == 6) {
                steal = new UnlockBatchRequestBody();
                steal.setConsumerGroup(group);
                steal.setClientId(args[5]);
                steal.setMqSet(Collections.singleton(mq));
            }
            System.out.println("asking for the lock of " + mq + " at " + out.addr + " as " + body.getClientId()
                + (steal == null ? "" : ", unlocking it as " + args[5] + " first"));
            boolean held = false;
            while (true) {
                Set<MessageQueue> ok;
                try {
                    if (steal != null && !held) {
                        out.api.unlockBatchMQ(out.addr, steal, 3_000, false);
                    }
                    ok = out.api.lockBatchMQ(out.addr, body, 3_000);
                } catch (Exception e) {
                    System.out.println("lock request failed: " + e);
                    Thread.sleep(Outsider.EVERY_MS);
                    continue;
                }
                if (ok.contains(mq) && !held) {
                    held = true;
                    Outsider.stamp(granted);
                    System.out.println("granted");
                } else if (!ok.contains(mq) && held) {
                    held = false;
                    System.out.println("lost");
                }
                Thread.sleep(Outsider.EVERY_MS);
            }
        }
    }
}
