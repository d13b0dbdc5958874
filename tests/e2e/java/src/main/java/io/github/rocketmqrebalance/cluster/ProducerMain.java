package io.github.rocketmqrebalance.cluster;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.MessageQueueSelector;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * Sends {@code count} messages, bodies {@code m-<from>} .. {@code m-<from+count-1>}, each with a key
 * of 32 ({@code k-<i mod 32>}), and appends each body whose send the broker confirmed to
 * {@code <sent-file>}: {@code ProducerMain <namesrv> <topic> <from> <count> <sent-file> [<queue-ids>]}.
 * With queue ids ({@code 0,1}) the messages go to those queues of the topic's first broker in turn,
 * and to no other (the inspect liveness test starves exactly those); without, the client's own
 * choice spreads them.
 */
public final class ProducerMain {
    private ProducerMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5 && args.length != 6) {
            System.err.println("usage: ProducerMain <namesrv> <topic> <from> <count> <sent-file> [<queue-ids>]");
            System.exit(2);
        }
        String topic = args[1];
        int from = Integer.parseInt(args[2]);
        int count = Integer.parseInt(args[3]);
        List<Integer> queueIds = new ArrayList<>();
        if (args.length == 6) {
            for (String id : args[5].split(",")) {
                queueIds.add(Integer.parseInt(id));
            }
        }
        DefaultMQProducer producer = Patient.producer("PG_" + topic, args[0]);
        producer.start();
        int failed = 0;
        try (BufferedWriter sent = Files.newBufferedWriter(Paths.get(args[4]), StandardCharsets.UTF_8,
            StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            for (int i = from; i < from + count; i++) {
                Message m = new Message(topic, "", "k-" + (i % 32), ("m-" + i).getBytes(StandardCharsets.UTF_8));
                int turn = i;
                SendResult r = Patient.send(() -> queueIds.isEmpty() ? producer.send(m) : producer.send(m, (MessageQueueSelector) (mqs, msg, arg) -> {
                    int id = queueIds.get(turn % queueIds.size());
                    String broker = mqs.get(0).getBrokerName();
                    for (MessageQueue q : mqs) {
                        if (q.getBrokerName().equals(broker) && q.getQueueId() == id) {
                            return q;
                        }
                    }
                    throw new IllegalArgumentException("no queue " + id + " on " + broker);
                }, null));
                if (r.getSendStatus() == SendStatus.SEND_OK) {
                    sent.write("m-" + i);
                    sent.newLine();
                } else {
                    failed++;
                }
            }
        } finally {
            producer.shutdown();
        }
        System.out.println("sent " + (count - failed) + " of " + count + " to " + topic);
        System.exit(failed == 0 ? 0 : 1);
    }
}
