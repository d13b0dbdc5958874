package io.github.rocketmqrebalance.consumer;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

import io.github.rocketmqrebalance.NativeStrategy;
import io.github.rocketmqrebalance.engine.QueueState;

import org.apache.rocketmq.client.impl.ClientRemotingProcessor;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.CommandCustomHeader;
import org.apache.rocketmq.remoting.netty.NettyRequestProcessor;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.body.ConsumerRunningInfo;
import org.apache.rocketmq.remoting.protocol.body.ProcessQueueInfo;
import org.apache.rocketmq.remoting.protocol.header.GetConsumerRunningInfoRequestHeader;

/**
 * Answers the broker-relayed {@code GET_CONSUMER_RUNNING_INFO} for this consumer's group from the
 * engine's state, so that admin tools ({@code mqadmin consumerStatus}, the dashboard,
 * {@code rmq-rebalance inspect}) see what it really holds. Left alone, the client would answer
 * from the lite-pull consumer that stands for the group, which is assigned nothing (the queues
 * are fetched by {@link QueuePuller}), with its own settings, and the strategy would not be named.
 * The client's own answer is still built (the subscriptions, the client's properties); its queue
 * table, its status table (per-topic consume statistics) and the properties that describe the
 * consumer are replaced with what is in force here, under the names a push consumer reports them
 * by. Requests for other groups of the same client instance go to the client's processor
 * untouched.
 */
final class RunningInfo {
    private RunningInfo() {
    }

    /** What the answer is built from; the engine's clock is monotonic, the answer's is the wall clock. */
    interface State {
        Map<MessageQueue, QueueState> held();

        long committedOffset(MessageQueue mq);

        /** Per-topic consume statistics (Java's {@code statusTable}). */
        TreeMap<String, org.apache.rocketmq.remoting.protocol.body.ConsumeStatus> status();
    }

    /**
     * Properties the client's answer takes from the lite-pull consumer that stands for the group and
     * that describe nothing in force here (its own pull threads, commits and poll); the settings that
     * are in force replace them, under the push consumer's names.
     */
    static final java.util.List<String> STAND_IN_ONLY = java.util.Arrays.asList("pullThreadNums", "autoCommit", "autoCommitIntervalMillis",
        "pollTimeoutMillis", "pullThresholdForAll", "consumeMaxSpan", "topicMetadataCheckIntervalMillis", "messageQueueListener", "offsetStore",
        "subExpression4Assign", "messageSelector", "enableTraceSpanForLitePull");

    static final String THREAD_POOL_CORE_SIZE = ConsumerRunningInfo.PROP_THREADPOOL_CORE_SIZE;

    /** Properties from alternating keys and values (each value as its text). */
    static java.util.Properties properties(Object... keysAndValues) {
        java.util.Properties p = new java.util.Properties();
        for (int i = 0; i + 1 < keysAndValues.length; i += 2) {
            p.put(String.valueOf(keysAndValues[i]), String.valueOf(keysAndValues[i + 1]));
        }
        return p;
    }

    static void install(MQClientInstance client, String group, NativeStrategy strategy, java.util.Properties settings, Supplier<State> state,
        LongSupplier engineNowMs) {
        org.apache.rocketmq.remoting.RemotingClient remoting = client.getMQClientAPIImpl().getRemotingClient();
        // The client's own processor for this request, as the client registers it: every 5.x line
        // builds its answer in ClientRemotingProcessor (5.1 and 5.2 offer no way to read the
        // registered one back, and a second instance answers the same).
        NettyRequestProcessor inner = new ClientRemotingProcessor(client);
        remoting.registerProcessor(RequestCode.GET_CONSUMER_RUNNING_INFO, new NettyRequestProcessor() {
            @Override
            public RemotingCommand processRequest(io.netty.channel.ChannelHandlerContext ctx, RemotingCommand request) throws Exception {
                RemotingCommand answer = inner.processRequest(ctx, request);
                // (Typed through the interface: before 5.3 the decode is not generic.)
                CommandCustomHeader decoded = request.decodeCommandCustomHeader(GetConsumerRunningInfoRequestHeader.class);
                GetConsumerRunningInfoRequestHeader header = (GetConsumerRunningInfoRequestHeader) decoded;
                State s = state.get();
                if (!group.equals(header.getConsumerGroup()) || s == null || answer == null || answer.getCode() != 0 || answer.getBody() == null) {
                    return answer;
                }
                ConsumerRunningInfo info = ConsumerRunningInfo.decode(answer.getBody(), ConsumerRunningInfo.class);
                long wallMinusEngine = System.currentTimeMillis() - engineNowMs.getAsLong();
                info.setMqTable(table(s.held(), s::committedOffset, wallMinusEngine));
                info.setStatusTable(s.status());
                info.getProperties().keySet().removeAll(STAND_IN_ONLY);
                info.getProperties().putAll(settings);
                info.getProperties().put("allocateMessageQueueStrategy", String.valueOf(strategy));
                info.getProperties().put(ConsumerRunningInfo.PROP_CONSUME_ORDERLY, "true");
                // Messages are pushed to the listener, as by a push consumer (the stand-in is a pull consumer).
                info.getProperties().put(ConsumerRunningInfo.PROP_CONSUME_TYPE, "CONSUME_PASSIVELY");
                info.getProperties().put("consumerImplementation", SafeOrderlyConsumer.class.getName());
                answer.setBody(info.encode());
                return answer;
            }

            @Override
            public boolean rejectRequest() {
                return inner.rejectRequest();
            }
        }, null); // null: the client's shared executor, where the client registers its own
    }

    /** The engine's held states as Java's queue table: locked, dropped and the lock time as it reports them. */
    static TreeMap<MessageQueue, ProcessQueueInfo> table(Map<MessageQueue, QueueState> held, ToLongFunction<MessageQueue> committed, long wallMinusEngine) {
        TreeMap<MessageQueue, ProcessQueueInfo> out = new TreeMap<>();
        held.forEach((mq, state) -> {
            ProcessQueueInfo p = new ProcessQueueInfo();
            p.setCommitOffset(committed.applyAsLong(mq));
            p.setLocked(Boolean.TRUE.equals(state.locked));
            p.setLastLockTimestamp(state.lastLockMs == 0 ? 0 : state.lastLockMs + wallMinusEngine);
            p.setLastPullTimestamp(state.lastPullMs == 0 ? 0 : state.lastPullMs + wallMinusEngine);
            p.setDroped(state.dropped);
            p.setTryUnlockTimes(state.tryUnlockTimes);
            out.put(mq, p);
        });
        return out;
    }
}
