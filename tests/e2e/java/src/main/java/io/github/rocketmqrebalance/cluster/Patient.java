package io.github.rocketmqrebalance.cluster;

import java.util.concurrent.Callable;
import java.util.function.Predicate;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.remoting.exception.RemotingException;
import org.apache.rocketmq.remoting.exception.RemotingTooMuchRequestException;

/**
 * Sending and starting on a loaded 2-core test machine, where the broker, the consumers and the
 * build share the CPU: the client's 3 s send budget was seen to run out while the route was looked
 * up ("sendSelectImpl call timeout"), which made a test process exit; the NameServer was also seen
 * to take over a second to answer the route lookup itself, or to drop the request, which the
 * client throws as an IllegalStateException, from a send before anything is sent and from a push
 * consumer's {@code start()}. A send may take 30 s, and a send refused before it left (either way)
 * is sent again; a consumer whose start failed on the route lookup is shut down and a fresh one
 * started.
 */
public final class Patient {
    public static final int TIMEOUT_MS = 30_000;
    private static final int ATTEMPTS = 5;

    private Patient() {
    }

    public interface Attempt {
        SendResult send() throws Exception;
    }

    /** Builds a consumer ready to start: group, NameServer, subscription and listener set. */
    public interface Consumer {
        DefaultMQPushConsumer make() throws Exception;
    }

    public static DefaultMQProducer producer(String group, String namesrv) {
        DefaultMQProducer producer = new DefaultMQProducer(group);
        producer.setNamesrvAddr(namesrv);
        producer.setSendMsgTimeout(TIMEOUT_MS);
        return producer;
    }

    /** The client's route lookup from the NameServer failed on the wire. */
    private static boolean routeLookupFailed(Exception e) {
        if (!(e.getCause() instanceof RemotingException)) {
            return false;
        }
        for (StackTraceElement frame : e.getStackTrace()) {
            if (frame.getMethodName().equals("updateTopicRouteInfoFromNameServer")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Sends; a send refused before the request was written (the budget went on finding the route,
     * or the route lookup itself failed) is sent again: the broker has stored nothing, so this
     * cannot duplicate a message. Any other IllegalStateException is a bug and is thrown.
     */
    public static SendResult send(Attempt attempt) throws Exception {
        return retrying("send refused before it left", attempt::send,
            e -> e instanceof RemotingTooMuchRequestException || (e instanceof IllegalStateException && routeLookupFailed(e)));
    }

    /**
     * Starts a consumer from {@code make}. The stock client's {@code start()} looks the topic's
     * route up after it has begun running; a consumer whose start failed is shut down (so its
     * client instance is released), and when it was that lookup, a fresh one is built and started.
     */
    public static DefaultMQPushConsumer start(Consumer make) throws Exception {
        return retrying("consumer start failed on the route lookup", () -> {
            DefaultMQPushConsumer consumer = make.make();
            try {
                consumer.start();
                return consumer;
            } catch (IllegalStateException e) {
                consumer.shutdown();
                throw e;
            }
        }, e -> e instanceof IllegalStateException && routeLookupFailed(e));
    }

    /** Up to {@code ATTEMPTS} tries a second apart, while a failure is one {@code retriable} accepts. */
    private static <T> T retrying(String what, Callable<T> attempt, Predicate<Exception> retriable) throws Exception {
        for (int i = 1;; i++) {
            try {
                return attempt.call();
            } catch (Exception e) {
                if (i == ATTEMPTS || !retriable.test(e)) {
                    throw e;
                }
                System.err.println(what + " (" + e.getMessage() + "); attempt " + (i + 1) + " of " + ATTEMPTS);
                Thread.sleep(1000);
            }
        }
    }
}
