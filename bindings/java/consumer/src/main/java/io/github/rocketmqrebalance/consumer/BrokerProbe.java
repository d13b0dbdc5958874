package io.github.rocketmqrebalance.consumer;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.remoting.InvokeCallback;
import org.apache.rocketmq.remoting.netty.ResponseFuture;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.body.KVTable;
import org.apache.rocketmq.remoting.protocol.header.GetConsumerListByGroupRequestHeader;

/**
 * {@link BrokerWatch}'s requests over the real client, signed by its RPC hook like every other.
 * The ping is the group's member list: a map lookup at the broker that every supported broker
 * answers without logging. It is sent asynchronously because only the callback's
 * {@link ResponseFuture} names the connection a request went over, on every 5.x client.
 */
final class BrokerProbe implements BrokerWatch.Probe {
    private final MQClientInstance client;
    private final String group;

    BrokerProbe(MQClientInstance client, String group) {
        this.client = client;
        this.group = group;
    }

    @Override
    public Object ping(String broker) throws Exception {
        GetConsumerListByGroupRequestHeader header = new GetConsumerListByGroupRequestHeader();
        header.setConsumerGroup(group);
        RemotingCommand request = RemotingCommand.createRequestCommand(RequestCode.GET_CONSUMER_LIST_BY_GROUP, header);
        CompletableFuture<Object> connection = new CompletableFuture<>();
        client.getMQClientAPIImpl().getRemotingClient().invokeAsync(ClientHost.brokerAddress(client, broker), request,
            ClientHost.WATCH_TIMEOUT_MS, new InvokeCallback() {
                // 5.1 calls only this one; 5.2+ calls it after operationSucceed or operationFail.
                @Override
                public void operationComplete(ResponseFuture answer) {
                    if (answer.getResponseCommand() != null && answer.getChannel() != null) {
                        connection.complete(answer.getChannel());
                    } else {
                        connection.completeExceptionally(new IllegalStateException("no answer from broker " + broker, answer.getCause()));
                    }
                }

                // 5.2+ only (no @Override, so that this compiles on 5.1), and then also for failures
                // before the request was sent, which no operationComplete follows.
                public void operationFail(Throwable cause) {
                    connection.completeExceptionally(cause);
                }
            });
        try {
            // The callback runs on the client's timeout scan at the latest; this bound only guards against a lost callback.
            return connection.get(2 * ClientHost.WATCH_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
        }
    }

    @Override
    public long bootTimestamp(String broker) throws Exception {
        KVTable info = client.getMQClientAPIImpl().getBrokerRuntimeInfo(ClientHost.brokerAddress(client, broker), ClientHost.WATCH_TIMEOUT_MS);
        String boot = info.getTable().get("bootTimestamp");
        if (boot == null) {
            throw new IllegalStateException("broker " + broker + " reports no bootTimestamp");
        }
        return Long.parseLong(boot);
    }
}
