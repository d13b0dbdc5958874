package io.github.rocketmqrebalance.cluster;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Random;
import java.util.concurrent.CountDownLatch;

import org.apache.rocketmq.namesrv.NamesrvController;

/**
 * A NameServer alone, for tests whose broker is a process of its own that they kill and start
 * again ({@link BrokerMain}): {@code NamesrvMain <state-dir>}. Writes its address to
 * {@code <state-dir>/namesrv.addr} (renamed into place) and runs until it is terminated.
 */
public final class NamesrvMain {
    private NamesrvMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: NamesrvMain <state-dir>");
            System.exit(2);
        }
        Path dir = Paths.get(args[0]);
        NamesrvController namesrv = LocalCluster.startNamesrv(LocalCluster.freePort(new Random(), 0));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            namesrv.shutdown();
            stopped.countDown();
        }, "namesrv-shutdown"));
        String addr = LocalCluster.host() + ":" + namesrv.getNettyServerConfig().getListenPort();
        StateFile.writeAtomically(dir.resolve("namesrv.addr"), addr);
        System.out.println("NameServer ready at " + addr);
        stopped.await();
    }
}
