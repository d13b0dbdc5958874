package io.github.rocketmqrebalance.consumer;

import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.remoting.CommandCustomHeader;
import org.apache.rocketmq.remoting.netty.NettyRequestProcessor;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.header.NotifyConsumerIdsChangedRequestHeader;

/**
 * The broker's "consumer ids changed" notification ({@code NOTIFY_CONSUMER_IDS_CHANGED}), sent
 * when a member joins or leaves: for one group it starts a round at once. The client's own
 * handler (which wakes its RebalanceService) is replaced for this request only, and its work still
 * done, so other consumers of the same client instance keep their behaviour.
 */
final class IdsChangedNotice {
    private IdsChangedNotice() {
    }

    static void listen(MQClientInstance client, String group, Runnable changed) {
        client.getMQClientAPIImpl().getRemotingClient().registerProcessor(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, new NettyRequestProcessor() {
            @Override
            public RemotingCommand processRequest(io.netty.channel.ChannelHandlerContext ctx, RemotingCommand request) throws Exception {
                // (Typed through the interface: before 5.3 the decode is not generic.)
                CommandCustomHeader decoded = request.decodeCommandCustomHeader(NotifyConsumerIdsChangedRequestHeader.class);
                NotifyConsumerIdsChangedRequestHeader header = (NotifyConsumerIdsChangedRequestHeader) decoded;
                if (group.equals(header.getConsumerGroup())) {
                    changed.run();
                }
                client.rebalanceImmediately();
                return null;
            }

            @Override
            public boolean rejectRequest() {
                return false;
            }
        }, null);
    }
}
