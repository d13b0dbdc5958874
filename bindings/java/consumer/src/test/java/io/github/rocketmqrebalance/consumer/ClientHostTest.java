package io.github.rocketmqrebalance.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;

import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;

/**
 * The engine's lock waits for the broker watch: a broker back from a silence may have restarted,
 * and a lock answered by its empty table would reach the engine before the restart recipe has
 * committed the cached offsets (seen on a real cluster: a master killed for 65 s, the first
 * renewal after its return refused, the queues released without a commit and consumed again from
 * the offsets the broker had lost). No client is needed: a fenced broker is never asked.
 */
class ClientHostTest {
    private static final MessageQueue Q0 = new MessageQueue("T", "broker-a", 0);

    private final List<String> asked = new ArrayList<>();

    private ClientHost host(boolean open) {
        return new ClientHost(null, "G", null, null, null, delay -> { }, broker -> {
            asked.add(broker);
            return open;
        });
    }

    @Test
    void aFencedBrokerIsNotAskedForLocks() {
        ClientHost.BrokerFenced e = assertThrows(ClientHost.BrokerFenced.class, () -> host(false).lock("broker-a", List.of(Q0)));
        assertEquals(List.of("broker-a"), asked, "the watch is asked about the broker the lock is for");
        assertEquals(true, e.getMessage().contains("broker-a"), e.getMessage());
    }

    @Test
    void anOpenBrokerIsAsked() {
        // Past the fence the request goes to the client, which this test does not have.
        assertThrows(NullPointerException.class, () -> host(true).lock("broker-a", List.of(Q0)));
        assertEquals(List.of("broker-a"), asked);
    }
}
