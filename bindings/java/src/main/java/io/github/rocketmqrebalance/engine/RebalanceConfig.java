package io.github.rocketmqrebalance.engine;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import io.github.rocketmqrebalance.internal.Json;

/**
 * A rebalancer's configuration: the consumer's settings and the Java client's timing constants.
 * The same configuration as every other binding (docs/engine-json.md); it is checked by the core
 * when the {@link Rebalancer} is created, where a bad value is an IllegalArgumentException naming
 * the key.
 *
 * <pre>{@code
 * RebalanceConfig config = RebalanceConfig.builder("GID_orders", clientId)
 *     .orderly(true)
 *     .timing("lock_valid_ms", 30_000)
 *     .build();
 * }</pre>
 */
public final class RebalanceConfig {
    /** {@code MessageModel}. */
    public enum Model { CLUSTERING, BROADCASTING }

    /** Push consumers (PASSIVE) or pull and lite-pull consumers (ACTIVE). */
    public enum ConsumeType { PUSH, PULL }

    /** {@code ConsumeFromWhere}: where a queue with no committed offset starts. */
    public enum ConsumeFrom { LAST_OFFSET, FIRST_OFFSET, TIMESTAMP }

    /** Which decisions the engine makes: Java's fixed ({@code SAFE}, the default) or Java's exactly. */
    public enum Semantics { SAFE, JAVA }

    private final String json;
    private final String group;
    private final String clientId;

    private RebalanceConfig(Builder b) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("group", b.group);
        map.put("client_id", b.clientId);
        map.put("model", name(b.model));
        map.put("consume_type", name(b.consumeType));
        map.put("orderly", b.orderly);
        map.put("consume_from", name(b.consumeFrom));
        map.put("consume_timestamp_ms", b.consumeTimestampMs);
        map.put("timing", new LinkedHashMap<>(b.timing));
        map.put("semantics", name(b.semantics));
        this.json = Json.write(map);
        this.group = b.group;
        this.clientId = b.clientId;
    }

    private static String name(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    /** A clustering push consumer with Java's defaults and safe semantics. */
    public static Builder builder(String group, String clientId) {
        return new Builder(group, clientId);
    }

    public String group() {
        return group;
    }

    public String clientId() {
        return clientId;
    }

    /** The JSON form the core reads (docs/engine-json.md). */
    public String toJson() {
        return json;
    }

    @Override
    public String toString() {
        return json;
    }

    public static final class Builder {
        private final String group;
        private final String clientId;
        private Model model = Model.CLUSTERING;
        private ConsumeType consumeType = ConsumeType.PUSH;
        private boolean orderly;
        private ConsumeFrom consumeFrom = ConsumeFrom.LAST_OFFSET;
        private long consumeTimestampMs;
        private Semantics semantics = Semantics.SAFE;
        private final Map<String, Long> timing = new LinkedHashMap<>();

        private Builder(String group, String clientId) {
            if (group == null || clientId == null) {
                throw new NullPointerException("group and clientId must not be null");
            }
            this.group = group;
            this.clientId = clientId;
        }

        public Builder model(Model model) {
            this.model = model;
            return this;
        }

        public Builder consumeType(ConsumeType consumeType) {
            this.consumeType = consumeType;
            return this;
        }

        /** Orderly consumption (push only): queues are locked on the broker before consuming. */
        public Builder orderly(boolean orderly) {
            this.orderly = orderly;
            return this;
        }

        public Builder consumeFrom(ConsumeFrom consumeFrom) {
            this.consumeFrom = consumeFrom;
            return this;
        }

        /** For {@link ConsumeFrom#TIMESTAMP}: milliseconds since the epoch. */
        public Builder consumeTimestampMs(long consumeTimestampMs) {
            this.consumeTimestampMs = consumeTimestampMs;
            return this;
        }

        public Builder semantics(Semantics semantics) {
            this.semantics = semantics;
            return this;
        }

        /**
         * Overrides one timing constant, in milliseconds, by its key in docs/engine-json.md
         * ({@code pull_expired_ms}, {@code lock_valid_ms}, {@code force_unlock_ms}, ...). An unknown
         * key is refused when the rebalancer is created, so a misspelt one cannot fall back silently.
         */
        public Builder timing(String key, long ms) {
            timing.put(key, ms);
            return this;
        }

        public RebalanceConfig build() {
            if (model == null || consumeType == null || consumeFrom == null || semantics == null) {
                throw new NullPointerException("model, consumeType, consumeFrom and semantics must not be null");
            }
            return new RebalanceConfig(this);
        }
    }
}
