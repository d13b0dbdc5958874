package example.spring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;

import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.spring.annotation.ConsumeMode;
import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * An orderly rocketmq-spring listener (with {@code example.listener=orderly}); with
 * {@code rocketmq.rebalance.groups.<group>.safe-orderly=true} it runs on SafeOrderlyConsumer, and
 * nothing here changes. With {@code example.state-dir} set, each body goes to
 * {@code <name>.consumed} and {@code <queue id> <body>} to {@code <name>.order}, for the test.
 */
@Component
@ConditionalOnProperty(name = "example.listener", havingValue = "orderly")
@RocketMQMessageListener(topic = "${example.topic}", consumerGroup = "${example.group}", consumeMode = ConsumeMode.ORDERLY)
public class SequenceListener implements RocketMQListener<MessageExt> {
    private final Path consumed;
    private final Path order;

    public SequenceListener(@Value("${example.state-dir:}") String stateDir, @Value("${example.name:example}") String name) {
        this.consumed = stateDir.isEmpty() ? null : Paths.get(stateDir, name + ".consumed");
        this.order = stateDir.isEmpty() ? null : Paths.get(stateDir, name + ".order");
    }

    @Override
    public void onMessage(MessageExt message) {
        String body = new String(message.getBody(), StandardCharsets.UTF_8);
        if (consumed == null) {
            System.out.println("consumed " + body + " from queue " + message.getQueueId());
            return;
        }
        synchronized (this) {
            try {
                Files.write(consumed, (body + "\n").getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                Files.write(order, (message.getQueueId() + " " + body + "\n").getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
