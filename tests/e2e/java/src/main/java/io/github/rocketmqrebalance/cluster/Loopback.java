package io.github.rocketmqrebalance.cluster;

import org.apache.rocketmq.remoting.netty.NettyServerConfig;

/**
 * Binds a server to loopback only (or to {@link LocalCluster#host()} where a test names another). The 5.x line's NettyServerConfig takes a bind address; the 4.9
 * line's has none (its servers listen on every interface), so tests/e2e/java49 has a Loopback of
 * its own, and LocalCluster compiles on both.
 */
final class Loopback {
    private Loopback() {
    }

    static void bind(NettyServerConfig server) {
        server.setBindAddress(LocalCluster.host());
    }
}
