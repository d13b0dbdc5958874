package io.github.rocketmqrebalance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The binding's JSON writer: expected texts written by hand from RFC 8259. */
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
}
