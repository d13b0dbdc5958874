package io.github.rocketmqrebalance.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Set;

import io.github.rocketmqrebalance.consumer.AbortiveClose;

import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.exception.RemotingTimeoutException;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.body.LockBatchRequestBody;
import org.apache.rocketmq.remoting.protocol.body.LockBatchResponseBody;
import org.apache.rocketmq.remoting.protocol.body.UnlockBatchRequestBody;
import org.apache.rocketmq.remoting.protocol.header.LockBatchMqRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.UnlockBatchMqRequestHeader;

/**
 * One client's lock and unlock requests to a broker around a partition that the driver makes
 * (tests/e2e/drivers/stale_request.py), on the client's own remoting connection:
 * {@code StaleRequestMain <broker-addr> <group> <topic> <broker-name> <client-id> <graceful|abortive> <state-dir> <tag>}.
 * <ol>
 * <li>lock queue 0; write {@code <tag>.locked} and wait for {@code <tag>.cut};</li>
 * <li>send a one-way request, so that the connection has a packet in flight whose answer the
 *     partition loses, and after the retransmission timer has fired, an unlock of queue 0, which
 *     then waits in the socket behind it; the unlock times out and the client closes the
 *     connection (gracefully, or abortively with {@link AbortiveClose}); write
 *     {@code <tag>.unlock-failed} and wait for {@code <tag>.healed};</li>
 * <li>lock queue 0 again, on a new connection; write {@code <tag>.relocked} (its
 *     {@code System.nanoTime()}) and stay until terminated.</li>
 * </ol>
 * The broker's monitor shows whether the unlock the client saw fail still reached the broker,
 * after the new lock, and removed it.
 */
public final class StaleRequestMain {
    private static final long TIMEOUT_MS = 3_000;

    private StaleRequestMain() {
    }

    public static void main(String[] args) throws Exception {
        String addr = args[0];
        String group = args[1];
        MessageQueue queue = new MessageQueue(args[2], args[3], 0);
        String clientId = args[4];
        boolean abortive = args[5].equals("abortive");
        Path dir = Paths.get(args[6]);
        String tag = args[7];
        NettyRemotingClient client = new NettyRemotingClient(new NettyClientConfig());
        client.start();
        if (abortive && !AbortiveClose.install(client)) {
            throw new IllegalStateException("AbortiveClose could not be installed");
        }
        if (!lock(client, addr, group, clientId, queue)) {
            throw new IllegalStateException("the first lock was refused");
        }
        StateFile.writeAtomically(dir.resolve(tag + ".locked"), Long.toString(System.nanoTime()));
        await(dir.resolve(tag + ".cut"));
        client.invokeOneway(addr, unlockRequest(group, clientId, new MessageQueue(queue.getTopic(), queue.getBrokerName(), 3)), TIMEOUT_MS);
        Thread.sleep(1_500); // past the retransmission timer: from here on, new data waits in the socket
        try {
            client.invokeSync(addr, unlockRequest(group, clientId, queue), TIMEOUT_MS);
            throw new IllegalStateException("the unlock was answered through the partition");
        } catch (RemotingTimeoutException expected) {
            System.out.println("the unlock timed out; the client closed its connection");
        }
        StateFile.writeAtomically(dir.resolve(tag + ".unlock-failed"), Long.toString(System.nanoTime()));
        await(dir.resolve(tag + ".healed"));
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            try {
                if (lock(client, addr, group, clientId, queue)) {
                    break;
                }
                throw new IllegalStateException("the lock after the heal was refused");
            } catch (org.apache.rocketmq.remoting.exception.RemotingException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200); // the new connection may need a moment after the heal
            }
        }
        StateFile.writeAtomically(dir.resolve(tag + ".relocked"), Long.toString(System.nanoTime()));
        System.out.println("locked again after the heal");
        Thread.sleep(Long.MAX_VALUE);
    }

    private static boolean lock(NettyRemotingClient client, String addr, String group, String clientId, MessageQueue queue) throws Exception {
        LockBatchRequestBody body = new LockBatchRequestBody();
        body.setConsumerGroup(group);
        body.setClientId(clientId);
        body.setMqSet(Set.of(queue));
        RemotingCommand request = RemotingCommand.createRequestCommand(RequestCode.LOCK_BATCH_MQ, new LockBatchMqRequestHeader());
        request.setBody(body.encode());
        RemotingCommand response = client.invokeSync(addr, request, TIMEOUT_MS);
        if (response.getCode() != ResponseCode.SUCCESS) {
            throw new IllegalStateException("lock: " + response.getCode() + " " + response.getRemark());
        }
        return LockBatchResponseBody.decode(response.getBody(), LockBatchResponseBody.class).getLockOKMQSet().contains(queue);
    }

    private static RemotingCommand unlockRequest(String group, String clientId, MessageQueue queue) {
        UnlockBatchRequestBody body = new UnlockBatchRequestBody();
        body.setConsumerGroup(group);
        body.setClientId(clientId);
        body.setMqSet(Set.of(queue));
        RemotingCommand request = RemotingCommand.createRequestCommand(RequestCode.UNLOCK_BATCH_MQ, new UnlockBatchMqRequestHeader());
        request.setBody(body.encode());
        return request;
    }

    private static void await(Path file) throws InterruptedException {
        while (!Files.exists(file)) {
            Thread.sleep(50);
        }
    }
}
