package io.github.rocketmqrebalance.consumer;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;

import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.remoting.RemotingClient;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;

/**
 * Makes every connection of a client instance close abortively ({@code SO_LINGER} 0: a reset, the
 * unsent data discarded), so that a request the client reported as failed can never reach the
 * broker afterwards.
 *
 * <p>Why: the client closes a connection when a request times out. A graceful close leaves the
 * kernel delivering whatever the socket still holds, and during a partition that is every request
 * queued behind the first lost packet. When the network heals, those requests land, on the old
 * connection, after requests the client has sent since on a new one. An unlock that timed out
 * during the partition then removes the lock the client has taken again since: the broker keys a
 * lock by client id only, so it cannot tell the old unlock from a new one, and the client consumes
 * a queue it believes locked while another client may take it. A reset leaves nothing to deliver:
 * what the broker had received before the close it has processed, in order; the rest is gone, as
 * the client already believes.
 *
 * <p>The remoting client has no setting for it, so its bootstrap (for connections made later) and
 * its open connections are reached by reflection; a client built in a way this does not know (a
 * proxy's bootstraps) keeps graceful closes, with a warning. Public for hosts that drive the engine
 * over a client instance of their own.
 */
public final class AbortiveClose {
    private static final Logger LOG = Logger.getLogger(AbortiveClose.class.getName());

    private AbortiveClose() {
    }

    /** For the client instance's remoting client; true when both its bootstrap and its open connections were set. */
    public static boolean install(MQClientInstance client) {
        return install(client.getMQClientAPIImpl().getRemotingClient());
    }

    /** See {@link #install(MQClientInstance)}. */
    public static boolean install(RemotingClient remoting) {
        if (!(remoting instanceof NettyRemotingClient)) {
            LOG.warning("not a NettyRemotingClient (" + remoting.getClass().getName() + "): its connections keep graceful closes");
            return false;
        }
        try {
            Bootstrap bootstrap = (Bootstrap) field("bootstrap").get(remoting);
            bootstrap.option(ChannelOption.SO_LINGER, 0);
            Map<?, ?> channels = (Map<?, ?>) field("channelTables").get(remoting);
            for (Object wrapper : channels.values()) {
                Method getChannel = wrapper.getClass().getDeclaredMethod("getChannel");
                getChannel.setAccessible(true);
                Channel channel = (Channel) getChannel.invoke(wrapper);
                if (channel != null && channel.isOpen()) {
                    channel.config().setOption(ChannelOption.SO_LINGER, 0);
                }
            }
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.log(Level.WARNING, "the remoting client's connections keep graceful closes: a request that timed out during a partition may"
                + " still reach a broker after it heals", e);
            return false;
        }
    }

    private static Field field(String name) throws NoSuchFieldException {
        Field f = NettyRemotingClient.class.getDeclaredField(name);
        f.setAccessible(true);
        return f;
    }
}
