package io.github.rocketmqrebalance.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.remoting.exception.RemotingSendRequestException;
import org.junit.jupiter.api.Test;

/**
 * The test machinery's own retries and fallbacks, which the real-broker runs only reach when a
 * machine is loaded or its disk nearly full: each is driven here by a made-up failure.
 */
class PatienceTest {
    /** A consumer whose start() throws what the client throws when its route lookup fails on the wire. */
    private static final class FailingStart extends DefaultMQPushConsumer {
        private final RuntimeException failure;
        int shutdowns;

        FailingStart(RuntimeException failure) {
            super("GID_PATIENCE");
            this.failure = failure;
        }

        @Override
        public void start() {
            if (failure != null) {
                throw failure;
            }
        }

        @Override
        public void shutdown() {
            shutdowns++;
        }
    }

    /** As the 5.3.3 client builds it: an IllegalStateException thrown in the route lookup, caused by a RemotingException. */
    private static IllegalStateException routeLookupFailure() {
        IllegalStateException e = new IllegalStateException(new RemotingSendRequestException("127.0.0.1:9876"));
        e.setStackTrace(new StackTraceElement[] {
            new StackTraceElement("org.apache.rocketmq.client.impl.factory.MQClientInstance", "updateTopicRouteInfoFromNameServer", "MQClientInstance.java", 859),
        });
        return e;
    }

    @Test
    void a_start_that_failed_on_the_route_lookup_is_shut_down_and_made_again() throws Exception {
        List<FailingStart> made = new ArrayList<>();
        DefaultMQPushConsumer started = Patient.start(() -> {
            FailingStart c = new FailingStart(made.isEmpty() ? routeLookupFailure() : null);
            made.add(c);
            return c;
        });
        assertEquals(2, made.size());
        assertSame(made.get(1), started);
        assertEquals(1, made.get(0).shutdowns, "the failed consumer releases its client instance");
        assertEquals(0, made.get(1).shutdowns);
    }

    @Test
    void any_other_start_failure_is_thrown_at_once() {
        List<FailingStart> made = new ArrayList<>();
        IllegalStateException other = new IllegalStateException("subscribe first");
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> Patient.start(() -> {
            FailingStart c = new FailingStart(other);
            made.add(c);
            return c;
        }));
        assertSame(other, thrown);
        assertEquals(1, made.size());
    }

    @Test
    void a_send_refused_by_the_route_lookup_is_sent_again_and_another_failure_is_not() throws Exception {
        int[] attempts = {0};
        assertEquals(null, Patient.send(() -> {
            if (attempts[0]++ == 0) {
                throw routeLookupFailure();
            }
            return null;
        }));
        assertEquals(2, attempts[0]);
        attempts[0] = 0;
        assertThrows(IllegalStateException.class, () -> Patient.send(() -> {
            attempts[0]++;
            throw new IllegalStateException("not a route lookup");
        }));
        assertEquals(1, attempts[0]);
    }

    @Test
    void the_store_goes_to_the_first_directory_with_room_and_says_why_when_none_has() {
        File tmp = new File("/tmp-like");
        File shm = new File("/shm-like");
        Map<File, Long> used = new HashMap<>();
        used.put(tmp, 91L);
        used.put(shm, 3L);
        assertSame(shm, LocalCluster.roomyDirectory(new File[] {tmp, shm}, used::get));
        used.put(tmp, 79L);
        assertSame(tmp, LocalCluster.roomyDirectory(new File[] {tmp, shm}, used::get));
        used.put(tmp, -1L);
        assertSame(shm, LocalCluster.roomyDirectory(new File[] {tmp, shm}, used::get), "a directory that cannot be used is passed over");
        used.put(tmp, 80L);
        used.put(shm, 95L);
        IllegalStateException none = assertThrows(IllegalStateException.class, () -> LocalCluster.roomyDirectory(new File[] {tmp, shm}, used::get));
        assertTrue(none.getMessage().contains("/tmp-like is 80% full") && none.getMessage().contains("/shm-like is 95% full"), none.getMessage());
    }
}
