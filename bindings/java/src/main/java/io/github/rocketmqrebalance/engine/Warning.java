package io.github.rocketmqrebalance.engine;

import java.util.Collections;
import java.util.List;

/** Something about a round's inputs or callbacks that breaks the group's guarantees, reported not fixed. */
public final class Warning {
    public enum Kind {
        /** This client's id is not in the group's list: it gets nothing. */
        CLIENT_ID_ABSENT,
        /** Ids listed more than once ({@link #clientIds}). */
        DUPLICATE_CLIENT_IDS,
        /** A callback failed where the failure changes nothing (an unlock, a renewal, a void callback). */
        CALLBACK_FAILED,
        /** Safe semantics: this client's own id is listed twice, so it holds none of the topic's orderly queues. */
        STOOD_DOWN,
        /** Safe semantics: a start offset from consumeFrom could not be committed (the host has no commitOffset). */
        START_OFFSET_NOT_COMMITTED
    }

    public final Kind kind;
    /** The failure's text or the queue's name; null when the kind has none. */
    public final String detail;
    /** For {@link Kind#DUPLICATE_CLIENT_IDS}: the ids listed more than once; else empty. */
    public final List<String> clientIds;

    Warning(Kind kind, String detail, List<String> clientIds) {
        this.kind = kind;
        this.detail = detail;
        this.clientIds = Collections.unmodifiableList(clientIds);
    }

    @Override
    public String toString() {
        return kind + (detail != null ? ": " + detail : "") + (clientIds.isEmpty() ? "" : " " + clientIds);
    }
}
