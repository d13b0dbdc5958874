package io.github.rocketmqrebalance.cluster;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;

/**
 * Keyed messages for the orderly test, until {@code <stop-file>} exists:
 * {@code OrderlyProducerMain <namesrv> <topic> <keys> <per-second> <sent-file> <stop-file>}.
 * Key {@code k<i>} always goes to queue {@code i mod queues}, and its bodies are
 * {@code k<i>:<seq>} with seq 0, 1, 2, ...; each confirmed body is appended to the sent file. A
 * broker restart is waited out (see {@link #throughOutage}).
 */
public final class OrderlyProducerMain {
    static final long OUTAGE_MS = 180_000;

    private OrderlyProducerMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: OrderlyProducerMain <namesrv> <topic> <keys> <per-second> <sent-file> <stop-file>");
            System.exit(2);
        }
        String topic = args[1];
        int keys = Integer.parseInt(args[2]);
        long pauseNs = 1_000_000_000L / Integer.parseInt(args[3]);
        Path stop = Paths.get(args[5]);
        DefaultMQProducer producer = Patient.producer("PG_" + topic, args[0]);
        producer.setInstanceName("orderly-producer");
        producer.start();
        long[] seq = new long[keys];
        long sent = 0;
        try (BufferedWriter out = Files.newBufferedWriter(Paths.get(args[4]), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
            StandardOpenOption.APPEND)) {
            for (long i = 0; !Files.exists(stop); i++) {
                int key = (int) (i % keys);
                String body = "k" + key + ":" + seq[key];
                Message m = new Message(topic, "", "k" + key, body.getBytes(StandardCharsets.UTF_8));
                SendResult r = throughOutage(() -> producer.send(m, (mqs, msg, arg) -> mqs.get((Integer) arg % mqs.size()), key));
                if (r.getSendStatus() == SendStatus.SEND_OK) {
                    seq[key]++;
                    sent++;
                    out.write(body);
                    out.newLine();
                    out.flush();
                }
                Thread.sleep(pauseNs / 1_000_000, (int) (pauseNs % 1_000_000));
            }
        } finally {
            producer.shutdown();
        }
        System.out.println("sent " + sent + " to " + topic);
    }

    /**
     * Sends, and while the broker is away (killed and starting again) sends the same message
     * again every half second, for up to {@link #OUTAGE_MS}: the key's sequence waits for it. A
     * send that failed after the broker stored it is then stored twice, which the checker counts
     * as a delivery beyond the first, never as a loss or an order violation.
     */
    private static SendResult throughOutage(Patient.Attempt attempt) throws Exception {
        long deadline = System.nanoTime() + OUTAGE_MS * 1_000_000;
        boolean told = false;
        while (true) {
            try {
                return Patient.send(attempt);
            } catch (Exception e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                if (!told) {
                    System.err.println("send failed (" + e + "); sending again until the broker answers");
                    told = true;
                }
                Thread.sleep(500);
            }
        }
    }
}
