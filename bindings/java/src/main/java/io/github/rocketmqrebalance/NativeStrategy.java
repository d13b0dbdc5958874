package io.github.rocketmqrebalance;

import java.util.List;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * What the native strategies share: a configuration the Rust core understands (so one strategy
 * can sit inside MACHINE_ROOM_NEARBY natively), and the call that runs it. Instances are immutable
 * apart from the setters the Java originals have; they hold no native resource, so there is
 * nothing to close, and one instance may be used by any number of threads at once.
 */
public abstract class NativeStrategy implements AllocateMessageQueueStrategy {
    NativeStrategy() {
    }

    /** The core's configuration name ("averagely", "consistent_hash", ...). */
    abstract String configName();

    /** The core's parameters as JSON. */
    abstract String configParams();

    /** The registered id of this configuration, cached while the parameters stay the same. */
    private volatile Registration registration;

    private static final class Registration {
        final String params;
        final int id;

        Registration(String params, int id) {
            this.params = params;
            this.id = id;
        }
    }

    /**
     * The id of this configuration in the native library, registered on first use: what the
     * engine's {@code io.github.rocketmqrebalance.engine.Rebalancer} is given. Internal; not
     * needed to allocate.
     */
    public final int strategyId() {
        String params = configParams();
        Registration r = registration;
        if (r == null || !r.params.equals(params)) {
            r = new Registration(params, Native.register(configName(), params));
            registration = r;
        }
        return r.id;
    }

    /** Runs this strategy natively over Java's arguments (nulls as Java's originals treat them). */
    final List<MessageQueue> allocateNatively(String currentCID, List<MessageQueue> mqAll, List<String> cidAll) {
        QueueTable table = QueueTable.of(mqAll);
        Joined cids = Joined.of(cidAll == null ? java.util.Collections.<String>emptyList() : cidAll);
        int[] positions = Native.allocate(strategyId(), currentCID == null ? "" : currentCID, table.names.text, table.names.lengths,
            table.topics, table.brokers, table.ids, cids.text, cids.lengths);
        return table.select(positions);
    }

    /**
     * {@code AbstractAllocateMessageQueueStrategy.check}: the same exceptions; false when the
     * current id is not listed (the original logs "[BUG]" and returns an empty list).
     */
    static boolean check(String currentCID, List<MessageQueue> mqAll, List<String> cidAll) {
        if (currentCID == null || currentCID.isEmpty()) {
            throw new IllegalArgumentException("currentCID is empty");
        }
        if (mqAll == null || mqAll.isEmpty()) {
            throw new IllegalArgumentException("mqAll is null or mqAll empty");
        }
        if (cidAll == null || cidAll.isEmpty()) {
            throw new IllegalArgumentException("cidAll is null or cidAll empty");
        }
        return cidAll.contains(currentCID);
    }
}
