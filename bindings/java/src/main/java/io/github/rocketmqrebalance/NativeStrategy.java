package io.github.rocketmqrebalance;

import java.util.List;

import io.github.rocketmqrebalance.internal.Native;

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

    /**
     * The strategy a configuration names: the core's name ({@code consistent_hash}, or the Java name
     * {@code CONSISTENT_HASH}) and its parameters as a JSON object ({@code {"virtual_node_count": 20}};
     * null or {@code ""} for none), checked by the core as every binding's configuration is. Stricter
     * than the core's plain parsing: a parameter the strategy does not read is refused, since a person
     * wrote it. MACHINE_ROOM_NEARBY's rooms come from separators here; other resolvers take code.
     *
     * @throws IllegalArgumentException naming the name or the parameter at fault
     */
    public static NativeStrategy fromConfig(String name, String paramsJson) {
        if (name == null) {
            throw new IllegalArgumentException("no strategy name");
        }
        return new ConfiguredStrategy(name, paramsJson == null || paramsJson.isEmpty() ? "{}" : paramsJson);
    }

    /** The core's configuration name ("averagely", "consistent_hash", ...). */
    abstract String configName();

    /** The core's parameters as JSON. */
    abstract String configParams();

    /**
     * What the parameters are written from, compared on every call to decide whether the
     * registration still holds: the JSON itself by default. A strategy whose parameters are
     * costly to write (a set of names) returns its live field and overrides {@link #snapshot}.
     */
    Object configKey() {
        return configParams();
    }

    /**
     * The class, then the core's name and parameters, for example
     * {@code io.github.rocketmqrebalance.NativeAllocateMessageQueueConsistentHash@consistent_hash{"virtual_node_count":10}}.
     * Admin tools show this as a consumer's {@code allocateMessageQueueStrategy} (a client's running
     * info writes the strategy's {@code toString()}); the class comes first, before the {@code @},
     * as in Java's default form, and {@code rmq-rebalance inspect} reads the rest back to know the
     * strategy and its parameters.
     */
    @Override
    public String toString() {
        return getClass().getName() + "@" + configName() + configParams();
    }

    /** A copy of a {@link #configKey()} that later changes to the live field cannot reach. */
    Object snapshot(Object key) {
        return key;
    }

    /** The registered id of this configuration, cached while the parameters stay the same. */
    private volatile Registration registration;

    private static final class Registration {
        final Object key;
        final int id;

        Registration(Object key, int id) {
            this.key = key;
            this.id = id;
        }
    }

    /**
     * The id of this configuration in the native library, registered on first use: what the
     * engine's {@code io.github.rocketmqrebalance.engine.Rebalancer} is given. Internal; not
     * needed to allocate.
     */
    public final int strategyId() {
        Object key = configKey();
        Registration r = registration;
        if (r == null || !java.util.Objects.equals(r.key, key)) {
            // The snapshot is taken before the JSON is written: if the field changes in between,
            // the next call sees a different key and registers again.
            Object kept = snapshot(key);
            r = new Registration(kept, Native.register(configName(), configParams()));
            registration = r;
        }
        return r.id;
    }

    /**
     * The queue table and the joined ids of the last call. A consumer asks with the same route
     * and ids every round: sending the very same (immutable) objects again lets the native side
     * find its conversion of them by identity, and skips building them here.
     */
    private volatile QueueTable lastTable;
    private volatile Joined.Remembered lastIds;

    /** Runs this strategy natively over Java's arguments (nulls as Java's originals treat them). */
    final List<MessageQueue> allocateNatively(String currentCID, List<MessageQueue> mqAll, List<String> cidAll) {
        QueueTable table = lastTable;
        if (table == null || !table.holds(mqAll)) {
            table = QueueTable.of(mqAll);
            lastTable = table;
        }
        List<String> ids = cidAll == null ? java.util.Collections.<String>emptyList() : cidAll;
        Joined.Remembered remembered = lastIds;
        if (remembered == null || !remembered.holds(ids)) {
            remembered = new Joined.Remembered(ids);
            lastIds = remembered;
        }
        Joined cids = remembered.joined;
        int[] positions = Native.allocate(strategyId(), currentCID == null ? "" : currentCID, table.names.text, table.names.lengths,
            table.topics, table.brokers, table.ids, cids.text, cids.lengths);
        return table.select(positions, mqAll);
    }
}
