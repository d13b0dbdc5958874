package example.spring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * A plain rocketmq-spring listener. With {@code example.state-dir} set (by the test), every body
 * is appended to {@code <state-dir>/<example.name>.consumed}, which the test reads.
 */
@Component
@ConditionalOnProperty(name = "example.listener", havingValue = "concurrent", matchIfMissing = true)
@RocketMQMessageListener(topic = "${example.topic}", consumerGroup = "${example.group}")
public class OrdersListener implements RocketMQListener<String> {
    private final Path consumed;

    public OrdersListener(@Value("${example.state-dir:}") String stateDir, @Value("${example.name:example}") String name) {
        this.consumed = stateDir.isEmpty() ? null : Paths.get(stateDir, name + ".consumed");
    }

    @Override
    public void onMessage(String body) {
        if (consumed == null) {
            System.out.println("consumed " + body);
            return;
        }
        synchronized (this) {
            try {
                Files.write(consumed, (body + "\n").getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
