package io.github.rocketmqrebalance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.rocketmqrebalance.internal.Json;

import org.junit.jupiter.api.Test;

/** The binding's JSON writer and reader: expected texts and values written by hand from RFC 8259. */
class JsonTest {
    @Test
    void scalarsAndEscapes() {
        assertEquals("null", Json.write(null));
        assertEquals("{}", Json.object());
        assertEquals("{\"n\":-3,\"b\":true}", Json.object("n", -3, "b", true));
        // Quote, backslash, a control character (U+0001) and a non-ASCII letter kept as is.
        assertEquals("\"a\\\"b\\\\c\\u0001\u00e9\"", Json.write("a\"b\\c\u0001\u00e9"));
    }

    @Test
    void nestedInIterationOrder() {
        Map<String, Object> weights = new LinkedHashMap<String, Object>();
        weights.put("z", 2);
        weights.put("a", 1);
        assertEquals("{\"stable_key\":{\"before\":\"@\"},\"weights\":{\"z\":2,\"a\":1}}",
            Json.object("stable_key", Collections.singletonMap("before", "@"), "weights", weights));
        assertEquals("{\"consume_idcs\":[\"hz\",null]}", Json.object("consume_idcs", Arrays.asList("hz", null)));
    }

    @Test
    void refusesWhatItCannotWrite() {
        assertThrows(IllegalArgumentException.class, () -> Json.write(1.5));
    }

    @Test
    void readsWhatTheEngineWrites() {
        Map<String, Object> expected = new LinkedHashMap<String, Object>();
        expected.put("topic", "T");
        expected.put("queue", Arrays.asList("T", "b", 3L));
        expected.put("skipped_round", null);
        expected.put("balanced", false);
        expected.put("ratio", 0.5);
        expected.put("detail", "a\"b\\c\u0001\u00e9/\n");
        expected.put("empty", Collections.emptyMap());
        expected.put("none", Collections.emptyList());
        assertEquals(expected, Json.read(" {\"topic\":\"T\", \"queue\":[\"T\",\"b\",3],\"skipped_round\":null,\n\"balanced\":false,"
            + "\"ratio\":5e-1,\"detail\":\"a\\\"b\\\\c\\u0001\u00e9\\/\\n\",\"empty\":{},\"none\":[]} "));
        assertEquals(-9223372036854775808L, Json.read("-9223372036854775808"));
        Object roundTrip = Json.read(Json.object("k", Arrays.asList(1, "x\u0002", true)));
        assertEquals(Collections.singletonMap("k", Arrays.asList(1L, "x\u0002", true)), roundTrip);
    }

    @Test
    void refusesWhatIsNotJson() {
        for (String bad : new String[] {"", "{", "[1,]", "{\"a\" 1}", "\"open", "tru", "01x", "\"\\q\"", "[1] 2", "\"tab\there\""}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Json.read(bad), bad);
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().startsWith("not JSON at offset"), e.getMessage());
        }
    }
}
