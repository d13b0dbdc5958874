package io.github.rocketmqrebalance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;

/** One shared instance used by 16 threads at once gives what one thread gets, call for call. */
class ConcurrencyTest {
    @Test
    void sixteenThreadsShareOneInstance() throws Exception {
        List<MessageQueue> queues = new ArrayList<>();
        for (int b = 0; b < 3; b++) {
            for (int i = 0; i < 24; i++) {
                queues.add(new MessageQueue("TopicA", "hz-broker-" + b, i));
            }
        }
        List<List<String>> groups = new ArrayList<>();
        for (int size = 1; size <= 9; size++) {
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                ids.add((i % 2 == 0 ? "hz" : "sh") + "@10.0.0." + i + "@1");
            }
            groups.add(ids);
        }
        AllocateMessageQueueStrategy[] strategies = {
            new NativeAllocateMessageQueueAveragely(),
            new NativeAllocateMessageQueueAveragelyByCircle(),
            new NativeAllocateMessageQueueConsistentHash(),
            new NativeAllocateMachineRoomNearby(new NativeAllocateMessageQueueConsistentHash(), Pairs.separators("-", "@")),
            NativeAllocateMessageQueueBalancedSticky.byHost(),
        };
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            for (AllocateMessageQueueStrategy s : strategies) {
                List<String> expected = answers(s, queues, groups);
                List<Future<List<String>>> futures = new ArrayList<>();
                for (int t = 0; t < 16; t++) {
                    futures.add(pool.submit(() -> {
                        List<String> last = null;
                        for (int round = 0; round < 50; round++) {
                            last = answers(s, queues, groups);
                        }
                        return last;
                    }));
                }
                for (Future<List<String>> f : futures) {
                    assertEquals(expected, f.get(120, TimeUnit.SECONDS), s.getName());
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static List<String> answers(AllocateMessageQueueStrategy s, List<MessageQueue> queues, List<List<String>> groups) {
        List<String> out = new ArrayList<>();
        for (List<String> ids : groups) {
            for (String id : ids) {
                out.add(s.allocate("GID", id, queues, ids).toString());
            }
        }
        return out;
    }
}
