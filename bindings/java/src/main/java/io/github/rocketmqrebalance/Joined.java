package io.github.rocketmqrebalance;

import java.util.Collection;
import java.util.Map;

/**
 * A list of strings as one string plus each one's length: crossing to native code this way costs
 * the same few JNI calls for 4 strings or 1,000.
 */
final class Joined {
    final String text;
    final int[] lengths;

    private Joined(String text, int[] lengths) {
        this.text = text;
        this.lengths = lengths;
    }

    static Joined of(Collection<String> strings) {
        StringBuilder b = new StringBuilder();
        int[] lengths = new int[strings.size()];
        int i = 0;
        for (String s : strings) {
            b.append(s);
            lengths[i++] = s.length();
        }
        return new Joined(b.toString(), lengths);
    }

    /** The keys of a name -> index map, in index order. */
    static Joined of(Map<String, Integer> index) {
        String[] names = new String[index.size()];
        for (Map.Entry<String, Integer> e : index.entrySet()) {
            names[e.getValue()] = e.getKey();
        }
        return of(java.util.Arrays.asList(names));
    }
}
