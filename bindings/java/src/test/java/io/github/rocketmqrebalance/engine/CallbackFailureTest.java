package io.github.rocketmqrebalance.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.rocketmqrebalance.internal.Native;
import io.github.rocketmqrebalance.NativeAllocateMessageQueueAveragely;

import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;

/** Where a callback's failure is reported, and a host bridge that does not match the library. */
class CallbackFailureTest {
    /** dispatchPull throws for the queues of topic A only. */
    static final class FailingForA extends FakeHost {
        @Override
        public void dispatchPull(MessageQueue mq, long offset, long delayMs, long generation) throws Exception {
            super.dispatchPull(mq, offset, delayMs, generation);
            if (mq.getTopic().equals("A")) {
                throw new IllegalStateException("no pull thread for " + mq.getTopic() + ":" + mq.getQueueId());
            }
        }
    }

    @Test
    void aFailedDispatchPullOfTopicAIsOnAsReportAndNowhereElse() {
        Map<String, TopicView> views = new LinkedHashMap<>();
        try (Rebalancer r = new Rebalancer(RebalanceConfig.builder("G", "c1").build(), new NativeAllocateMessageQueueAveragely())) {
            for (String topic : Arrays.asList("A", "M", "Z")) {
                r.subscribe(topic);
                views.put(topic, new TopicView(Arrays.asList(new MessageQueue(topic, "b", 0), new MessageQueue(topic, "b", 1)), Collections.singletonList("c1")));
            }
            List<RoundReport> reports = r.rebalanceAll(views, 0, new FailingForA());
            Map<String, List<String>> failures = new LinkedHashMap<>();
            for (RoundReport report : reports) {
                List<String> details = new ArrayList<>();
                for (Warning w : report.warnings) {
                    if (w.kind == Warning.Kind.CALLBACK_FAILED) {
                        details.add(w.detail);
                    }
                }
                failures.put(report.topic, details);
            }
            String thrown = "dispatchPull: java.lang.IllegalStateException: no pull thread for A:";
            Map<String, List<String>> expected = new LinkedHashMap<>();
            expected.put("A", Arrays.asList(thrown + "0", thrown + "1"));
            expected.put("M", Collections.emptyList());
            expected.put("Z", Collections.emptyList());
            assertEquals(expected, failures);
        }
    }

    /** A bridge class without the engine's callbacks: refused when the rebalancer is made, naming the first one. */
    @Test
    void aBridgeMissingACallbackFailsAtCreationNamingIt() {
        int strategy = new NativeAllocateMessageQueueAveragely().strategyId();
        String config = RebalanceConfig.builder("G", "c1").build().toJson();
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> Native.create(config, strategy, Object.class));
        assertTrue(e.getMessage().contains("no method lock(Ljava/lang/String;"), e.getMessage());
    }
}
