package io.github.rocketmqrebalance.cluster;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;

/**
 * Sends {@code count} messages, bodies {@code m-<from>} .. {@code m-<from+count-1>}, each with a key
 * of 32 ({@code k-<i mod 32>}), and appends each body whose send the broker confirmed to
 * {@code <sent-file>}: {@code ProducerMain <namesrv> <topic> <from> <count> <sent-file>}.
 */
public final class ProducerMain {
    private ProducerMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: ProducerMain <namesrv> <topic> <from> <count> <sent-file>");
            System.exit(2);
        }
        String topic = args[1];
        int from = Integer.parseInt(args[2]);
        int count = Integer.parseInt(args[3]);
        DefaultMQProducer producer = Patient.producer("PG_" + topic, args[0]);
        producer.start();
        int failed = 0;
        try (BufferedWriter sent = Files.newBufferedWriter(Paths.get(args[4]), StandardCharsets.UTF_8,
            StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            for (int i = from; i < from + count; i++) {
                Message m = new Message(topic, "", "k-" + (i % 32), ("m-" + i).getBytes(StandardCharsets.UTF_8));
                SendResult r = Patient.send(() -> producer.send(m));
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
