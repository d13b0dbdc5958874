package io.github.rocketmqrebalance.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.List;

import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.junit.jupiter.api.Test;

/**
 * What the far end of a connection sees when the remoting client closes it: a reset once
 * {@link AbortiveClose} is installed (whether the connection existed before or was made after),
 * the orderly end of the stream without it. A loopback server socket stands for the broker.
 */
class AbortiveCloseTest {
    /** Reads the request the client sent, then until the stream ends: -1 for an orderly close; a reset throws. */
    private static int drainThenEnd(Socket accepted) throws IOException {
        accepted.setSoTimeout(10_000);
        InputStream in = accepted.getInputStream();
        byte[] buffer = new byte[4096];
        int n;
        while ((n = in.read(buffer)) > 0) {
            // the one-way request's bytes
        }
        return n;
    }

    private static Socket connectAndClose(boolean install, boolean installFirst) throws Exception {
        ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        NettyRemotingClient client = new NettyRemotingClient(new NettyClientConfig());
        client.start();
        try {
            String addr = "127.0.0.1:" + server.getLocalPort();
            if (install && installFirst) {
                assertTrue(AbortiveClose.install(client));
            }
            client.invokeOneway(addr, RemotingCommand.createRequestCommand(RequestCode.HEART_BEAT, null), 3_000);
            Socket accepted = server.accept();
            if (install && !installFirst) {
                assertTrue(AbortiveClose.install(client));
            }
            client.closeChannels(List.of(addr));
            return accepted;
        } finally {
            server.close();
            client.shutdown();
        }
    }

    @Test
    void aConnectionMadeAfterInstallIsReset() throws Exception {
        try (Socket accepted = connectAndClose(true, true)) {
            assertThrows(SocketException.class, () -> drainThenEnd(accepted));
        }
    }

    @Test
    void aConnectionOpenBeforeInstallIsResetToo() throws Exception {
        try (Socket accepted = connectAndClose(true, false)) {
            assertThrows(SocketException.class, () -> drainThenEnd(accepted));
        }
    }

    @Test
    void withoutItTheCloseIsOrderly() throws Exception {
        try (Socket accepted = connectAndClose(false, false)) {
            assertEquals(-1, drainThenEnd(accepted));
        }
    }
}
