package io.github.rocketmqrebalance.cluster;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.remoting.exception.RemotingTooMuchRequestException;

/**
 * Sending on a loaded 2-core test machine, where the broker, the consumers and the build share
 * the CPU: the client's 3 s send budget was seen to run out while the route was looked up
 * ("sendSelectImpl call timeout"), which made a test process exit. A send may take 30 s, and a
 * send refused before it left is sent again.
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

    public static SendResult send(Attempt attempt) throws Exception {
        for (int i = 1;; i++) {
            try {
                return attempt.send();
            } catch (RemotingTooMuchRequestException e) {
                // Thrown before the request is written (the budget went on finding the route):
                // the broker has stored nothing, so sending again cannot duplicate a message.
                if (i == ATTEMPTS) {
                    throw e;
                }
                System.err.println("send refused before it left (" + e.getMessage() + "); attempt " + (i + 1) + " of " + ATTEMPTS);
                Thread.sleep(1000);
            }
        }
    }
}
