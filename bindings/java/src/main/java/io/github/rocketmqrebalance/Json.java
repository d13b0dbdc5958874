package io.github.rocketmqrebalance;

import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one JSON writer of the binding: strategy parameters cross to the core as the JSON of the
 * CLI's batch form (which the core parses and checks). Writes null, strings, integers, booleans,
 * maps with string keys (in their iteration order) and collections; nothing else is needed.
 */
final class Json {
    private Json() {}

    /** {@code {k1: v1, k2: v2, ...}} from alternating keys and values, in that order. */
    static String object(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<String, Object>();
        for (int i = 0; i + 1 < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return write(map);
    }

    static String write(Object value) {
        StringBuilder b = new StringBuilder();
        append(b, value);
        return b.toString();
    }

    private static void append(StringBuilder b, Object value) {
        if (value == null) {
            b.append("null");
        } else if (value instanceof String) {
            appendString(b, (String) value);
        } else if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte
                || value instanceof Boolean) {
            b.append(value);
        } else if (value instanceof Map) {
            b.append('{');
            Iterator<? extends Map.Entry<?, ?>> it = ((Map<?, ?>) value).entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<?, ?> e = it.next();
                appendString(b, (String) e.getKey());
                b.append(':');
                append(b, e.getValue());
                if (it.hasNext()) {
                    b.append(',');
                }
            }
            b.append('}');
        } else if (value instanceof Collection) {
            b.append('[');
            Iterator<?> it = ((Collection<?>) value).iterator();
            while (it.hasNext()) {
                append(b, it.next());
                if (it.hasNext()) {
                    b.append(',');
                }
            }
            b.append(']');
        } else {
            throw new IllegalArgumentException("no JSON form for " + value.getClass().getName());
        }
    }

    /** A JSON string: quotes, backslashes and control characters escaped (RFC 8259). */
    private static void appendString(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        b.append('"');
    }
}
