package io.github.rocketmqrebalance.cluster;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.remoting.exception.RemotingException;
import org.apache.rocketmq.remoting.exception.RemotingTooMuchRequestException;

/**
 * Sending on a loaded 2-core test machine, where the broker, the consumers and the build share
 * the CPU: the client's 3 s send budget was seen to run out while the route was looked up
 * ("sendSelectImpl call timeout"), which made a test process exit; the NameServer was also seen
 * to take over a second to answer the route lookup itself, which the client throws as an
 * IllegalStateException before sending anything. A send may take 30 s, and a send refused before
 * it left (either way) is sent again.
 */
public final class PatientSend {
    public static final int TIMEOUT_MS = 30_000;
    private static final int ATTEMPTS = 5;

    private PatientSend() {
    }

    public interface Attempt {
        SendResult send() throws Exception;
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

    public static SendResult send(Attempt attempt) throws Exception {
        for (int i = 1;; i++) {
            try {
                return attempt.send();
            } catch (RemotingTooMuchRequestException | IllegalStateException e) {
                // Thrown before the request is written (the budget went on finding the route, or
                // the route lookup itself failed): the broker has stored nothing, so sending
                // again cannot duplicate a message. Any other IllegalStateException is a bug.
                if (i == ATTEMPTS || (e instanceof IllegalStateException && !routeLookupFailed(e))) {
                    throw e;
                }
                System.err.println("send refused before it left (" + e.getMessage() + "); attempt " + (i + 1) + " of " + ATTEMPTS);
                Thread.sleep(1000);
            }
        }
    }
}
