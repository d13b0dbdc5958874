package io.github.rocketmqrebalance.internal;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Properties;

/**
 * The native entry points, all in one place, and the loading of the library behind them. Internal:
 * public only so that the strategies and the engine, in other packages, can call it; not API.
 *
 * <p>Loading, at first use: the path in the system property {@code rocketmq.rebalance.native.path}
 * if set; else {@code System.loadLibrary("rocketmq_rebalance_jni")}; else the copy inside this jar
 * ({@code /native/<os>/<arch>/librocketmq_rebalance_jni-<version>.so}), written once per content
 * to {@code java.io.tmpdir/rocketmq-rebalance-<user>/} and reused by every later JVM
 * ({@link ExtractedLibrary}). Failing all three is an {@link UnsatisfiedLinkError} that says what
 * was tried.
 */
public final class Native {
    public static final String LIBRARY = "rocketmq_rebalance_jni";
    public static final String PATH_PROPERTY = "rocketmq.rebalance.native.path";
    public static final String VERSION = readVersion();

    static {
        load();
    }

    private Native() {
    }

    /** The native library's version (the Cargo version it was built from). */
    public static native String version();

    /** The id of a strategy configuration (the core's name and JSON parameters), registered once. */
    public static native int register(String name, String paramsJson);

    /**
     * A configuration a person wrote, checked strictly by the core (a parameter the strategy does not
     * read is refused, as is an unknown name or a value out of range): its canonical config name and
     * parameters, {@code {name, paramsJson}}, as {@link #register} takes them.
     */
    public static native String[] configure(String name, String paramsJson);

    /** The registered strategy's name, as the core gives it (parameters included where they matter). */
    public static native String name(int strategy);

    /**
     * A registered count strategy (AVG or AVG_BY_CIRCLE, as the core decides): the share from the
     * sizes and the current id's index, as a stride {@code start | end << 21 | step << 42}. Sizes
     * must be below 2^21.
     */
    public static native long allocateByCounts(int strategy, boolean currentEmpty, int queues, int ids, int index);

    /**
     * The registered strategy over a queue table and ids (string lists joined, with their lengths).
     * Returns positions into the table.
     */
    public static native int[] allocate(int strategy, String currentCid, String names, int[] nameLengths, int[] topicIndex,
                                 int[] brokerIndex, int[] queueIds, String cids, int[] cidLengths);

    // The rebalance engine (bindings/java/native/src/engine); reports return as the JSON of
    // docs/engine-json.md. Every rebalancer is created with a NativeStrategy, whose registration
    // has loaded the library.

    public static native long create(String configJson, int strategy, Class<?> bridge);

    public static native void close(long id);

    public static native void subscribe(long id, String topic, boolean subscribe);

    public static native String[] subscriptions(long id);

    public static native boolean isShutDown(long id);

    public static native String rebalanceTopic(long id, String topic, String[] topics, String[] brokers, int[] queueIds, String[] clientIds,
                                        long nowMs, HostBridge host);

    public static native String rebalanceAll(long id, String[] viewTopics, int[] queueCounts, String[] topics, String[] brokers, int[] queueIds,
                                      int[] idCounts, String[] clientIds, long nowMs, HostBridge host);

    public static native String lockAll(long id, long nowMs, HostBridge host);

    public static native String lockQueue(long id, String topic, String broker, int queueId, long nowMs, HostBridge host);

    public static native String locksLost(long id, String broker, long nowMs, HostBridge host);

    public static native String dropQueue(long id, String topic, String broker, int queueId, long nowMs, HostBridge host);

    public static native String shutdown(long id, long nowMs, HostBridge host);

    public static native long[] startOffset(long id, String topic, String broker, int queueId, HostBridge host);

    public static native boolean isConsumable(long id, String topic, String broker, int queueId, long generation, long nowMs);

    public static native long consumableUntil(long id, String topic, String broker, int queueId, long generation);

    public static native boolean recordPull(long id, String topic, String broker, int queueId, long generation, long nowMs);

    public static native long generation(long id, String topic, String broker, int queueId);

    public static native String held(long id);

    public static native String reasonNames();

    /** The core's example reports, every field filled (0 round, 1 lock, 2 held): for the reader's tests. */
    public static native String reportExample(int which);

    private static String readVersion() {
        try (InputStream in = Native.class.getResourceAsStream("/io/github/rocketmqrebalance/version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void load() {
        String override = System.getProperty(PATH_PROPERTY);
        if (override != null) {
            System.load(override);
            return;
        }
        UnsatisfiedLinkError fromPath;
        try {
            System.loadLibrary(LIBRARY);
            return;
        } catch (UnsatisfiedLinkError e) {
            fromPath = e;
        }
        String resource = "/native/" + os() + "/" + arch() + "/" + System.mapLibraryName(LIBRARY + "-" + VERSION);
        try (InputStream in = Native.class.getResourceAsStream(resource)) {
            if (in == null) {
                UnsatisfiedLinkError e = new UnsatisfiedLinkError("rocketmq-rebalance " + VERSION + ": no native library for "
                    + os() + "/" + arch() + " (this jar has one for " + shippedPlatforms() + "). Tried -D" + PATH_PROPERTY + " (unset), System.loadLibrary(\"" + LIBRARY
                    + "\") on java.library.path=" + System.getProperty("java.library.path") + " (" + fromPath.getMessage()
                    + "), and the jar resource " + resource + " (absent)");
                e.initCause(fromPath);
                throw e;
            }
            File file = ExtractedLibrary.extracted(readAll(in), ExtractedLibrary.defaultFolder(), "lib" + LIBRARY + "-" + VERSION, ".so");
            System.load(file.getAbsolutePath());
        } catch (IOException e) {
            UnsatisfiedLinkError error = new UnsatisfiedLinkError("rocketmq-rebalance: cannot extract " + resource + ": " + e);
            error.initCause(e);
            throw error;
        }
    }

    /** The platforms released jars are built for (scripts/release.sh), those of them this jar holds. */
    static String shippedPlatforms() {
        StringBuilder shipped = new StringBuilder();
        for (String platform : new String[] {"linux/x86_64", "linux/aarch64"}) {
            if (Native.class.getResource("/native/" + platform + "/" + System.mapLibraryName(LIBRARY + "-" + VERSION)) != null) {
                shipped.append(shipped.length() == 0 ? "" : ", ").append(platform);
            }
        }
        return shipped.length() == 0 ? "no platform" : shipped.toString();
    }

    private static byte[] readAll(InputStream in) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(1 << 22);
        byte[] buf = new byte[1 << 16];
        for (int n; (n = in.read(buf)) > 0;) {
            out.write(buf, 0, n);
        }
        return out.toByteArray();
    }

    public static String os() {
        String name = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (name.contains("linux")) {
            return "linux";
        }
        if (name.contains("mac")) {
            return "macos";
        }
        return name.contains("windows") ? "windows" : name.replace(' ', '_');
    }

    public static String arch() {
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return arch.equals("amd64") ? "x86_64" : arch.equals("arm64") ? "aarch64" : arch;
    }
}
