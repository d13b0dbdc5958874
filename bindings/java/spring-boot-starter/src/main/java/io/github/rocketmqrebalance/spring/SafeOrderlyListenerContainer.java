package io.github.rocketmqrebalance.spring;

import java.util.List;

import io.github.rocketmqrebalance.NativeStrategy;
import io.github.rocketmqrebalance.consumer.SafeOrderlyConsumer;
import io.github.rocketmqrebalance.engine.RebalanceConfig;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.spring.annotation.ConsumeMode;
import org.apache.rocketmq.spring.annotation.MessageModel;
import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.annotation.SelectorType;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.apache.rocketmq.spring.support.DefaultRocketMQListenerContainer;
import org.apache.rocketmq.spring.support.RocketMQUtil;
import org.springframework.core.env.Environment;

/**
 * Stands in for an orderly listener's {@link DefaultRocketMQListenerContainer} when its group sets
 * {@code safe-orderly=true}: the same bean, listener and message conversion (each message goes
 * through the original container's {@code handleMessage}, which converts it as rocketmq-spring
 * does), but consumed by a {@link SafeOrderlyConsumer}, whose handoff never has a queue in two
 * consumers' listeners at once. The original container's {@code DefaultMQPushConsumer} is never
 * started. A listener that throws is retried after the annotation's
 * {@code suspendCurrentQueueTimeMillis}, as rocketmq-spring's orderly container does, and after the
 * annotation's {@code maxReconsumeTimes} failures (if set) goes to the dead-letter queue.
 *
 * <p>A subclass only so that rocketmq-spring, which asks the context for its containers by this
 * type, gets this one; every lifecycle method is this class's own, and the parent's fields are unused.
 */
public final class SafeOrderlyListenerContainer extends DefaultRocketMQListenerContainer {
    private final DefaultRocketMQListenerContainer original;
    private final SafeOrderlyConsumer consumer;
    private final long awaitTerminationMillis;
    private volatile boolean running;

    private SafeOrderlyListenerContainer(DefaultRocketMQListenerContainer original, SafeOrderlyConsumer consumer, long awaitTerminationMillis) {
        this.original = original;
        this.consumer = consumer;
        this.awaitTerminationMillis = awaitTerminationMillis;
    }

    /**
     * The stand-in for {@code original}, or an {@link IllegalStateException} naming {@code key} when
     * the listener asks for something {@link SafeOrderlyConsumer} does not do.
     */
    @SuppressWarnings("deprecation") // setNamespace, deprecated as ClientConfig's
    static SafeOrderlyListenerContainer replacing(DefaultRocketMQListenerContainer original, NativeStrategy strategy, String key, Environment env) {
        String group = original.getConsumerGroup();
        RocketMQMessageListener anno = original.getRocketMQMessageListener();
        String refused = null;
        if (original.getConsumeMode() != ConsumeMode.ORDERLY) {
            refused = "its consumeMode is " + original.getConsumeMode() + ", and SafeOrderlyConsumer is orderly";
        } else if (original.getMessageModel() != MessageModel.CLUSTERING) {
            refused = "its messageModel is " + original.getMessageModel();
        } else if (original.getRocketMQListener() == null) {
            refused = "it is a RocketMQReplyListener";
        }
        if (refused != null) {
            throw new IllegalStateException(key + "=true cannot apply to the listener of group " + group + ": " + refused);
        }
        DefaultMQPushConsumer stock = original.getConsumer();
        // A strategy the listener chose in prepareStart (which ran in the container's
        // afterPropertiesSet) beats the configured one, as for every other listener; one that is
        // not this library's cannot run inside the engine, and is refused rather than replaced.
        AllocateMessageQueueStrategy chosen = stock.getAllocateMessageQueueStrategy();
        if (chosen != null && chosen.getClass() != AllocateMessageQueueAveragely.class) {
            if (!(chosen instanceof NativeStrategy)) {
                throw new IllegalStateException(key + "=true cannot apply to the listener of group " + group + ": its prepareStart chose "
                    + chosen.getClass().getName() + ", and SafeOrderlyConsumer allocates with this library's strategies only"
                    + " (io.github.rocketmqrebalance.Native*, each with the Java original's answers)");
            }
            strategy = (NativeStrategy) chosen;
        }
        // Request signing, tracing, TLS and the channels as rocketmq-spring gives them its consumer:
        // the annotation's accessKey/secretKey (by default rocketmq.consumer.access-key and
        // secret-key) through rocketmq-spring's own RocketMQUtil, which signs only when both are set.
        RPCHook signing = RocketMQUtil.getRPCHookByAkSk(env, anno.accessKey(), anno.secretKey());
        String traceTopic = env.resolvePlaceholders(anno.customizedTraceTopic());
        SafeOrderlyConsumer safe = new SafeOrderlyConsumer(group, signing, anno.enableMsgTrace(), traceTopic);
        safe.setUseTLS(stock.isUseTLS());
        safe.setAccessChannel(stock.getAccessChannel());
        safe.setVipChannelEnabled(stock.isVipChannelEnabled());
        safe.setNamesrvAddr(stock.getNamesrvAddr());
        // The listener's namespace (its own, or rocketmq.consumer.namespace / namespace-v2), as the
        // stock container gives its consumer.
        if (notEmpty(original.getNamespace())) {
            safe.setNamespace(original.getNamespace());
        }
        if (notEmpty(original.getNamespaceV2())) {
            safe.setNamespaceV2(original.getNamespaceV2());
        }
        safe.setInstanceName(stock.getInstanceName());
        if (strategy != null) {
            safe.setStrategy(strategy);
        }
        // From where a queue no one has consumed starts, as the container asked (with the
        // container's timestamp for TIMESTAMP).
        switch (stock.getConsumeFromWhere()) {
            case CONSUME_FROM_FIRST_OFFSET:
                safe.setConsumeFrom(RebalanceConfig.ConsumeFrom.FIRST_OFFSET);
                break;
            case CONSUME_FROM_TIMESTAMP:
                safe.setConsumeFrom(RebalanceConfig.ConsumeFrom.TIMESTAMP);
                safe.setConsumeTimestamp(stock.getConsumeTimestamp());
                break;
            default:
                safe.setConsumeFrom(RebalanceConfig.ConsumeFrom.LAST_OFFSET);
        }
        // The listener's filter, as the container gives its stock consumer: a tag expression, or SQL92.
        String expression = original.getSelectorExpression();
        safe.subscribe(original.getTopic(), original.getSelectorType() == SelectorType.SQL92 ? MessageSelector.bySql(expression) : MessageSelector.byTag(expression));
        // What the container gave its stock consumer from the annotation and the push consumer's
        // defaults, and what its prepareStart set: maxReconsumeTimes (-1: never give up, as
        // rocketmq-spring's orderly container), the batch size, the consume threads, the flow
        // control, the pull interval and the wait after a failure.
        safe.setMaxReconsumeTimes(stock.getMaxReconsumeTimes());
        safe.setConsumeMessageBatchMaxSize(stock.getConsumeMessageBatchMaxSize());
        safe.setConsumeThreadMin(stock.getConsumeThreadMin());
        safe.setConsumeThreadMax(stock.getConsumeThreadMax());
        safe.setPullThresholdForQueue(stock.getPullThresholdForQueue());
        safe.setPullThresholdSizeForQueue(stock.getPullThresholdSizeForQueue());
        safe.setPullBatchSize(stock.getPullBatchSize());
        safe.setPullThresholdForTopic(stock.getPullThresholdForTopic());
        safe.setPullThresholdSizeForTopic(stock.getPullThresholdSizeForTopic());
        safe.setPullInterval(stock.getPullInterval());
        safe.setSuspendCurrentQueueTimeMillis(stock.getSuspendCurrentQueueTimeMillis());
        long suspendMs = original.getSuspendCurrentQueueTimeMillis();
        safe.registerMessageListener((MessageListenerOrderly) (List<MessageExt> msgs, ConsumeOrderlyContext context) -> {
            for (MessageExt m : msgs) {
                try {
                    original.handleMessage(m);
                } catch (Exception e) {
                    context.setSuspendCurrentQueueTimeMillis(suspendMs);
                    return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
                }
            }
            return ConsumeOrderlyStatus.SUCCESS;
        });
        // The annotation's awaitTerminationMillisWhenShutdown, which the container gave its stock consumer.
        return new SafeOrderlyListenerContainer(original, safe, Math.max(0, stock.getAwaitTerminationMillisWhenShutdown()));
    }

    private static boolean notEmpty(String s) {
        return s != null && !s.isEmpty();
    }

    /** The consumer that consumes for this listener. */
    public SafeOrderlyConsumer getSafeOrderlyConsumer() {
        return consumer;
    }

    /** How long {@link #stop()} waits for running listener calls: the annotation's {@code awaitTerminationMillisWhenShutdown}. */
    public long getAwaitTerminationMillis() {
        return awaitTerminationMillis;
    }

    /** The container rocketmq-spring built; its {@code DefaultMQPushConsumer} is never started. */
    public DefaultRocketMQListenerContainer getOriginal() {
        return original;
    }

    @Override
    public synchronized void start() {
        if (running) {
            throw new IllegalStateException("container already running. " + this);
        }
        try {
            consumer.start();
        } catch (MQClientException e) {
            throw new IllegalStateException("Failed to start SafeOrderlyConsumer for group " + getConsumerGroup(), e);
        }
        running = true;
    }

    /**
     * Releases every queue as {@link SafeOrderlyConsumer#shutdown(long)} does, waiting up to the
     * annotation's {@code awaitTerminationMillisWhenShutdown} for running listener calls; a queue
     * whose call still runs then stays locked until the broker's lock expiry.
     */
    @Override
    public synchronized void stop() {
        if (running) {
            consumer.shutdown(awaitTerminationMillis);
            running = false;
        }
    }

    @Override
    public void stop(Runnable callback) {
        stop();
        callback.run();
    }

    @Override
    public void destroy() {
        stop();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public void afterPropertiesSet() {
        // Built from a container that rocketmq-spring already initialised.
    }

    @Override
    public String getConsumerGroup() {
        return original.getConsumerGroup();
    }

    @Override
    public String getTopic() {
        return original.getTopic();
    }

    @Override
    public String getNameServer() {
        return original.getNameServer();
    }

    @Override
    public ConsumeMode getConsumeMode() {
        return original.getConsumeMode();
    }

    @Override
    public MessageModel getMessageModel() {
        return original.getMessageModel();
    }

    @Override
    public SelectorType getSelectorType() {
        return original.getSelectorType();
    }

    @Override
    public String getSelectorExpression() {
        return original.getSelectorExpression();
    }

    @Override
    @SuppressWarnings("rawtypes")
    public RocketMQListener getRocketMQListener() {
        return original.getRocketMQListener();
    }

    @Override
    public RocketMQMessageListener getRocketMQMessageListener() {
        return original.getRocketMQMessageListener();
    }

    /**
     * Refused: this group consumes on {@link #getSafeOrderlyConsumer()}, and rocketmq-spring's
     * {@code DefaultMQPushConsumer} for it is never started, so a call on it ({@code suspend()},
     * a setting) would change nothing that runs. {@code getSafeOrderlyConsumer()} has
     * {@code suspend()}, {@code resume()} and the push consumer's settings;
     * {@code getOriginal().getConsumer()} is the unstarted consumer, for reading only.
     */
    @Override
    public DefaultMQPushConsumer getConsumer() {
        throw new UnsupportedOperationException("group " + getConsumerGroup() + " consumes on SafeOrderlyConsumer (safe-orderly=true), not on"
            + " rocketmq-spring's DefaultMQPushConsumer, which never starts: use getSafeOrderlyConsumer() (suspend(), resume(), its settings)");
    }

    @Override
    public String toString() {
        return "SafeOrderlyListenerContainer{group=" + getConsumerGroup() + ", topic=" + getTopic() + ", original=" + original + "}";
    }
}
