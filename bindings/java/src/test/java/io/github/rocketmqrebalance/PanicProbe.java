package io.github.rocketmqrebalance;

/**
 * The test-only native entry point that panics. Its library is the panic-probe build that
 * scripts/stages/java.sh makes apart from the jar's and names in {@code -Drmq.panicProbe}.
 */
final class PanicProbe {
    private PanicProbe() {}

    static native String panic(String message);
}
