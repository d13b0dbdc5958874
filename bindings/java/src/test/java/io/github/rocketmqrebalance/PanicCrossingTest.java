package io.github.rocketmqrebalance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.github.rocketmqrebalance.internal.Native;

import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A panic in the native library reaches Java as {@code java.lang.Error} with the panic's message,
 * never as a crashed JVM, and the library keeps working. Needs the panic-probe build, which
 * scripts/stages/java.sh always passes (the test is skipped only when run by hand without it).
 */
class PanicCrossingTest {
    @BeforeAll
    static void loadProbe() {
        String path = System.getProperty("rmq.panicProbe");
        Assumptions.assumeTrue(path != null && !path.isEmpty(), "no -Drmq.panicProbe: the panic-probe build is not available");
        Native.version(); // the jar's library first, so Native's methods bind to it
        System.load(path);
    }

    @Test
    void panicBecomesErrorAndTheLibraryGoesOn() {
        Error e = assertThrows(Error.class, () -> PanicProbe.panic("probe: the message travels"));
        assertEquals("rocketmq-rebalance panicked: probe: the message travels", e.getMessage());

        List<MessageQueue> queues = new ArrayList<>();
        for (int i = 0; i < 6; i++) queues.add(new MessageQueue("T", "b", i));
        List<MessageQueue> mine = new NativeAllocateMessageQueueConsistentHash().allocate("g", "a", queues, Arrays.asList("a"));
        assertEquals(6, mine.size());
    }

    @Test
    void panicsOnManyThreadsAtOnce() throws Exception {
        Thread[] threads = new Thread[4];
        final Throwable[] caught = new Throwable[threads.length];
        for (int t = 0; t < threads.length; t++) {
            final int slot = t;
            threads[t] = new Thread(() -> {
                try {
                    PanicProbe.panic("probe: thread " + slot);
                } catch (Throwable thrown) {
                    caught[slot] = thrown;
                }
            });
            threads[t].start();
        }
        for (Thread thread : threads) thread.join();
        for (int t = 0; t < threads.length; t++) {
            assertTrue(caught[t] instanceof Error, "thread " + t + " got " + caught[t]);
            assertTrue(caught[t].getMessage().endsWith("probe: thread " + t), caught[t].getMessage());
        }
    }
}
