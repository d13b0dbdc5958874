package io.github.rocketmqrebalance.cluster;

import org.apache.rocketmq.remoting.netty.NettyServerConfig;

/**
 * The 4.9 line's stand-in for tests/e2e/java's Loopback: 4.9's NettyServerConfig takes no bind
 * address, so its servers listen on every interface (on ports chosen at run time, as on 5.x).
 */
final class Loopback {
    private Loopback() {
    }

    static void bind(NettyServerConfig server) {
        // Nothing to set on this line.
    }
}
