package io.github.rocketmqrebalance.engine;

import java.util.Collections;
import java.util.List;

import org.apache.rocketmq.common.message.MessageQueue;

/** {@code lockAll}, {@code lockQueue} and {@code locksLost}: what happened to held orderly locks. */
public final class LockReport {
    public final List<MessageQueue> renewed;
    /**
     * The lock is gone (refused, wiped by a broker restart, or renewed too late): the queue stops
     * being consumable; in safe semantics its state is dropped and the next round restarts it.
     */
    public final List<MessageQueue> lost;
    public final List<Warning> warnings;

    LockReport(List<MessageQueue> renewed, List<MessageQueue> lost, List<Warning> warnings) {
        this.renewed = Collections.unmodifiableList(renewed);
        this.lost = Collections.unmodifiableList(lost);
        this.warnings = Collections.unmodifiableList(warnings);
    }

    @Override
    public String toString() {
        return "renewed " + renewed + ", lost " + lost + (warnings.isEmpty() ? "" : ", warnings " + warnings);
    }
}
