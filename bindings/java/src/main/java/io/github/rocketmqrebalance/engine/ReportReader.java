package io.github.rocketmqrebalance.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.rocketmqrebalance.internal.Json;

import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The engine's JSON reports (docs/engine-json.md) as the typed classes. A name the enums do not
 * know, or a field this reader does not read, means the jar's classes and its native library
 * differ (or a field was added without its reader): IllegalStateException. The tests read the
 * core's example reports, which fill every field, so an unread field fails them.
 */
final class ReportReader {
    private ReportReader() {
    }

    static RoundReport round(String json) {
        return round(map(Json.read(json)));
    }

    static List<RoundReport> rounds(String json) {
        List<RoundReport> out = new ArrayList<>();
        for (Object o : list(Json.read(json))) {
            out.add(round(map(o)));
        }
        return out;
    }

    static LockReport lock(String json) {
        Map<String, Object> m = only(map(Json.read(json)), "lock report", "renewed", "lost", "warnings");
        return new LockReport(queues(m.get("renewed")), queues(m.get("lost")), warnings(m.get("warnings")));
    }

    static Map<MessageQueue, QueueState> held(String json) {
        Map<MessageQueue, QueueState> out = new LinkedHashMap<>();
        for (Object o : list(Json.read(json))) {
            List<Object> pair = list(o);
            Map<String, Object> s = only(map(pair.get(1)), "queue state", "generation", "dropped", "locked", "last_lock_ms", "last_pull_ms",
                "try_unlock_times", "deferred_since_ms");
            Object locked = s.get("locked");
            Object since = s.get("deferred_since_ms");
            out.put(queue(pair.get(0)), new QueueState(num(s.get("generation")), (Boolean) s.get("dropped"), (Boolean) locked,
                num(s.get("last_lock_ms")), num(s.get("last_pull_ms")), (int) num(s.get("try_unlock_times")), since == null ? null : num(since)));
        }
        return out;
    }

    private static RoundReport round(Map<String, Object> m) {
        only(m, "round report", "topic", "skipped_round", "changed", "balanced", "allocation", "released", "deferred", "acquired", "skipped", "warnings");
        Map<String, Object> skip = m.get("skipped_round") == null ? null : tagged(m.get("skipped_round"));
        List<RoundReport.Released> released = new ArrayList<>();
        for (Object o : list(m.get("released"))) {
            Map<String, Object> r = only(map(o), "released", "queue", "generation", "reason", "forced", "persist_failed", "lock_lost", "gave_up");
            released.add(new RoundReport.Released(queue(r.get("queue")), num(r.get("generation")), kind(RoundReport.ReleaseReason.class, r.get("reason")),
                (Boolean) r.get("forced"), (String) r.get("persist_failed"), Boolean.TRUE.equals(r.get("lock_lost")), Boolean.TRUE.equals(r.get("gave_up"))));
        }
        List<RoundReport.Deferred> deferred = new ArrayList<>();
        for (Object o : list(m.get("deferred"))) {
            Map<String, Object> d = only(map(o), "deferred", "queue", "generation", "reason", "waiting_ms");
            Map<String, Object> reason = tagged(d.get("reason"));
            deferred.add(new RoundReport.Deferred(queue(d.get("queue")), num(d.get("generation")), kind(RoundReport.DeferReason.class, reason.get("kind")),
                (String) reason.get("detail"), d.get("waiting_ms") == null ? 0 : num(d.get("waiting_ms"))));
        }
        List<RoundReport.Acquired> acquired = new ArrayList<>();
        for (Object o : list(m.get("acquired"))) {
            Map<String, Object> a = only(map(o), "acquired", "queue", "generation", "start_offset");
            acquired.add(new RoundReport.Acquired(queue(a.get("queue")), num(a.get("generation")), num(a.get("start_offset"))));
        }
        List<RoundReport.Skipped> skipped = new ArrayList<>();
        for (Object o : list(m.get("skipped"))) {
            Map<String, Object> s = only(map(o), "skipped", "queue", "reason", "lock_leaked");
            Map<String, Object> reason = tagged(s.get("reason"));
            skipped.add(new RoundReport.Skipped(queue(s.get("queue")), kind(RoundReport.SkipReason.class, reason.get("kind")), (String) reason.get("detail"),
                (Boolean) s.get("lock_leaked")));
        }
        return new RoundReport((String) m.get("topic"), skip == null ? null : kind(RoundReport.RoundSkipReason.class, skip.get("kind")),
            skip == null ? null : (String) skip.get("detail"), (Boolean) m.get("changed"), (Boolean) m.get("balanced"), queues(m.get("allocation")),
            released, deferred, acquired, skipped, warnings(m.get("warnings")));
    }

    private static List<Warning> warnings(Object json) {
        List<Warning> out = new ArrayList<>();
        for (Object o : list(json)) {
            Map<String, Object> w = tagged(o);
            Object detail = w.get("detail");
            List<String> ids = new ArrayList<>();
            if (detail instanceof List) {
                for (Object id : (List<?>) detail) {
                    ids.add((String) id);
                }
                detail = null;
            }
            out.add(new Warning(kind(Warning.Kind.class, w.get("kind")), (String) detail, ids));
        }
        return out;
    }

    /** The enum constant for a serialised snake_case name. */
    static <E extends Enum<E>> E kind(Class<E> type, Object name) {
        try {
            return Enum.valueOf(type, ((String) name).toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalStateException("the native library reports " + type.getSimpleName() + " '" + name
                + "', which this jar does not know: the jar and its library are different versions", e);
        }
    }

    private static List<MessageQueue> queues(Object json) {
        List<MessageQueue> out = new ArrayList<>();
        for (Object o : list(json)) {
            out.add(queue(o));
        }
        return out;
    }

    private static MessageQueue queue(Object json) {
        List<Object> q = list(json);
        return new MessageQueue((String) q.get(0), (String) q.get(1), (int) num(q.get(2)));
    }

    /** {@code m}, checked to carry no field but {@code names} (what this reader reads). */
    private static Map<String, Object> only(Map<String, Object> m, String what, String... names) {
        java.util.Set<String> extra = new java.util.TreeSet<>(m.keySet());
        extra.removeAll(java.util.Arrays.asList(names));
        if (!extra.isEmpty()) {
            throw new IllegalStateException("the native library reports " + extra + " in a " + what
                + ", which this jar does not read: the jar and its library are different versions, or a field was added without its reader");
        }
        return m;
    }

    /** A tagged enum value: {"kind": ..., "detail": ...}. */
    private static Map<String, Object> tagged(Object json) {
        return only(map(json), "tagged value", "kind", "detail");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object json) {
        return (Map<String, Object>) json;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object json) {
        return (List<Object>) json;
    }

    private static long num(Object json) {
        return ((Number) json).longValue();
    }
}
