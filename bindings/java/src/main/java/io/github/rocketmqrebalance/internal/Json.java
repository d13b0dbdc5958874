package io.github.rocketmqrebalance.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one JSON reader and writer of the jar (internal: public only so that the engine package can
 * use it; not part of the API). Strategy parameters and the engine's configuration cross to the
 * core as JSON, which the core parses and checks; the engine's reports come back as the JSON of
 * docs/engine-json.md. Writes null, strings, integers, booleans, maps with string keys (in their
 * iteration order) and collections; reads objects (as insertion-ordered maps), arrays (lists),
 * strings, integers (as Long), other numbers (as Double), booleans and null.
 */
public final class Json {
    private Json() {}

    /** {@code {k1: v1, k2: v2, ...}} from alternating keys and values, in that order. */
    public static String object(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<String, Object>();
        for (int i = 0; i + 1 < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return write(map);
    }

    public static String write(Object value) {
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

    /** Parses one JSON text; IllegalArgumentException, with the offset, when it is not JSON. */
    public static Object read(String text) {
        Reader r = new Reader(text);
        Object value = r.value();
        r.skipSpace();
        if (r.at < text.length()) {
            throw r.error("text after the value");
        }
        return value;
    }

    /** A recursive-descent reader over RFC 8259 JSON. */
    private static final class Reader {
        private final String s;
        private int at;

        Reader(String s) {
            this.s = s;
        }

        IllegalArgumentException error(String what) {
            return new IllegalArgumentException("not JSON at offset " + at + ": " + what);
        }

        void skipSpace() {
            while (at < s.length() && " \t\r\n".indexOf(s.charAt(at)) >= 0) {
                at++;
            }
        }

        Object value() {
            skipSpace();
            if (at >= s.length()) {
                throw error("unexpected end");
            }
            char c = s.charAt(at);
            switch (c) {
                case '{':
                    return object();
                case '[':
                    return array();
                case '"':
                    return string();
                case 't':
                    return literal("true", Boolean.TRUE);
                case 'f':
                    return literal("false", Boolean.FALSE);
                case 'n':
                    return literal("null", null);
                default:
                    return number();
            }
        }

        private Object literal(String word, Object value) {
            if (!s.startsWith(word, at)) {
                throw error("expected " + word);
            }
            at += word.length();
            return value;
        }

        private Map<String, Object> object() {
            Map<String, Object> out = new LinkedHashMap<String, Object>();
            at++;
            skipSpace();
            if (at < s.length() && s.charAt(at) == '}') {
                at++;
                return out;
            }
            while (true) {
                skipSpace();
                if (at >= s.length() || s.charAt(at) != '"') {
                    throw error("expected a key");
                }
                String key = string();
                skipSpace();
                expect(':');
                out.put(key, value());
                skipSpace();
                if (at < s.length() && s.charAt(at) == ',') {
                    at++;
                    continue;
                }
                expect('}');
                return out;
            }
        }

        private List<Object> array() {
            List<Object> out = new ArrayList<Object>();
            at++;
            skipSpace();
            if (at < s.length() && s.charAt(at) == ']') {
                at++;
                return out;
            }
            while (true) {
                out.add(value());
                skipSpace();
                if (at < s.length() && s.charAt(at) == ',') {
                    at++;
                    continue;
                }
                expect(']');
                return out;
            }
        }

        private void expect(char c) {
            if (at >= s.length() || s.charAt(at) != c) {
                throw error("expected '" + c + "'");
            }
            at++;
        }

        private String string() {
            at++;
            StringBuilder b = new StringBuilder();
            while (true) {
                if (at >= s.length()) {
                    throw error("unterminated string");
                }
                char c = s.charAt(at++);
                if (c == '"') {
                    return b.toString();
                }
                if (c < 0x20) {
                    throw error("control character in a string");
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                if (at >= s.length()) {
                    throw error("unterminated escape");
                }
                char e = s.charAt(at++);
                int simple = "\"\\/bfnrt".indexOf(e);
                if (simple >= 0) {
                    b.append("\"\\/\b\f\n\r\t".charAt(simple));
                } else if (e == 'u' && at + 4 <= s.length()) {
                    try {
                        b.append((char) Integer.parseInt(s.substring(at, at + 4), 16));
                    } catch (NumberFormatException x) {
                        throw error("bad \\u escape");
                    }
                    at += 4;
                } else {
                    throw error("bad escape");
                }
            }
        }

        private Object number() {
            int start = at;
            while (at < s.length() && "+-0123456789.eE".indexOf(s.charAt(at)) >= 0) {
                at++;
            }
            String n = s.substring(start, at);
            if (n.isEmpty()) {
                throw error("unexpected character");
            }
            try {
                if (n.indexOf('.') < 0 && n.indexOf('e') < 0 && n.indexOf('E') < 0) {
                    return Long.valueOf(n);
                }
                return Double.valueOf(n);
            } catch (NumberFormatException x) {
                at = start;
                throw error("bad number " + n);
            }
        }
    }
}
