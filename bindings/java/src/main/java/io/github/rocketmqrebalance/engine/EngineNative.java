package io.github.rocketmqrebalance.engine;

/**
 * The engine's native entry points (bindings/java/native/src/engine). The library is loaded by the
 * strategies' loader: every rebalancer is created with a {@code NativeStrategy}, whose
 * registration loads it first. Reports return as the JSON of docs/engine-json.md.
 */
final class EngineNative {
    private EngineNative() {
    }

    /** {@code bridge}: the class whose methods the engine calls back ({@link HostBridge}), resolved here once. */
    static native long create(String configJson, int strategy, Class<?> bridge);

    static native void close(long id);

    static native void subscribe(long id, String topic, boolean subscribe);

    static native String[] subscriptions(long id);

    static native boolean isShutDown(long id);

    static native String rebalanceTopic(long id, String topic, String[] topics, String[] brokers, int[] queueIds, String[] clientIds,
                                        long nowMs, HostBridge host);

    static native String rebalanceAll(long id, String[] viewTopics, int[] queueCounts, String[] topics, String[] brokers, int[] queueIds,
                                      int[] idCounts, String[] clientIds, long nowMs, HostBridge host);

    static native String lockAll(long id, long nowMs, HostBridge host);

    static native String lockQueue(long id, String topic, String broker, int queueId, long nowMs, HostBridge host);

    static native String locksLost(long id, String broker, long nowMs, HostBridge host);

    static native String dropQueue(long id, String topic, String broker, int queueId, long nowMs, HostBridge host);

    static native String shutdown(long id, long nowMs, HostBridge host);

    static native long[] startOffset(long id, String topic, String broker, int queueId, HostBridge host);

    static native boolean isConsumable(long id, String topic, String broker, int queueId, long generation, long nowMs);

    static native boolean recordPull(long id, String topic, String broker, int queueId, long generation, long nowMs);

    static native long generation(long id, String topic, String broker, int queueId);

    static native String held(long id);

    static native String reasonNames();

    /** The core's example reports, every field filled (0 round, 1 lock, 2 held): for the reader's tests. */
    static native String reportExample(int which);
}
