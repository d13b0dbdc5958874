package example.spring;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.github.rocketmqrebalance.spring.SafeOrderlyListenerContainer;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.impl.consumer.ProcessQueue;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.spring.support.DefaultRocketMQListenerContainer;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationContext;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Test instrumentation, on only when {@code example.state-dir} is set: twice a second, writes what
 * the listener's consumer actually holds (its live process queues, not what a strategy answered;
 * not for a listener on SafeOrderlyConsumer, which the test reads through inspect)
 * and the member list it sees, to {@code <name>.held.json} and {@code <name>.held.log}, in the
 * shape the test's other consumers write (bindings/java ...cluster.HoldingsFile). It reads the
 * client's internals; an application has no need of it.
 */
@Component
@ConditionalOnProperty("example.state-dir")
public class HoldingsReporter {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ApplicationContext context;
    private final Path file;
    private final Path history;
    private final String name;
    private volatile boolean stopped;
    private int round;

    public HoldingsReporter(ApplicationContext context, @Value("${example.state-dir}") String stateDir, @Value("${example.name:example}") String name) {
        this.context = context;
        this.file = Paths.get(stateDir, name + ".held.json");
        this.history = Paths.get(stateDir, name + ".held.log");
        this.name = name;
    }

    @EventListener(ApplicationReadyEvent.class)
    public void start() {
        DefaultRocketMQListenerContainer container = context.getBean(DefaultRocketMQListenerContainer.class);
        if (container instanceof SafeOrderlyListenerContainer) {
            // SafeOrderlyConsumer answers admin tools from its engine: the test reads it with inspect.
            System.out.println(name + " started: " + ((SafeOrderlyListenerContainer) container).getSafeOrderlyConsumer().getClientId()
                + " on SafeOrderlyConsumer");
            return;
        }
        System.out.println(name + " started: " + client(container.getConsumer()).getClientId()
            + " allocating with " + container.getConsumer().getAllocateMessageQueueStrategy());
        Thread t = new Thread(() -> {
            while (!stopped) {
                try {
                    write(container, false);
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    // The broker may be slow to answer the member list; the next pass tries again.
                    System.err.println("holdings not written: " + e);
                }
            }
        }, "holdings-reporter");
        t.setDaemon(true);
        t.start();
    }

    @EventListener(ContextClosedEvent.class)
    public void stop() throws IOException {
        stopped = true;
        DefaultRocketMQListenerContainer container = context.getBean(DefaultRocketMQListenerContainer.class);
        if (!(container instanceof SafeOrderlyListenerContainer)) {
            write(container, true);
        }
    }

    @SuppressWarnings("deprecation")
    private static MQClientInstance client(DefaultMQPushConsumer consumer) {
        return consumer.getDefaultMQPushConsumerImpl().getmQClientFactory();
    }

    @SuppressWarnings("deprecation")
    private synchronized void write(DefaultRocketMQListenerContainer container, boolean last) throws IOException {
        DefaultMQPushConsumer consumer = container.getConsumer();
        MQClientInstance client = client(consumer);
        List<Integer> queues = new ArrayList<>();
        List<String> cids = new ArrayList<>();
        if (!last) {
            consumer.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable().forEach((MessageQueue q, ProcessQueue pq) -> {
                if (q.getTopic().equals(container.getTopic()) && !pq.isDropped()) {
                    queues.add(q.getQueueId());
                }
            });
            List<String> seen = client.findConsumerIdList(container.getTopic(), container.getConsumerGroup());
            if (seen != null) {
                cids.addAll(seen);
            }
            Collections.sort(queues);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", name);
        out.put("client_id", client.getClientId());
        out.put("language", "java");
        out.put("strategy", String.valueOf(consumer.getAllocateMessageQueueStrategy()));
        out.put("round", ++round);
        out.put("at_ms", System.currentTimeMillis());
        out.put("cids", cids);
        out.put("queues", queues);
        out.put("stopped", last);
        String json = JSON.writeValueAsString(out);
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.write(tmp, json.getBytes(StandardCharsets.UTF_8));
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.write(history, (json + "\n").getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
