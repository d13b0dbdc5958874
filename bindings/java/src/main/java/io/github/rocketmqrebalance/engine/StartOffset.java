package io.github.rocketmqrebalance.engine;

/** Where a queue starts: the committed offset, or one chosen by {@code consumeFrom} (none committed). */
public final class StartOffset {
    public final long offset;
    public final boolean fromConsumeFrom;

    StartOffset(long offset, boolean fromConsumeFrom) {
        this.offset = offset;
        this.fromConsumeFrom = fromConsumeFrom;
    }

    @Override
    public String toString() {
        return offset + (fromConsumeFrom ? " (from consumeFrom)" : " (committed)");
    }
}
