package io.github.rocketmqrebalance;

import java.util.Collection;

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

    /** A list of strings joined, with a copy of the list to tell whether a later one is equal. */
    static final class Remembered {
        final Joined joined;
        private final String[] strings;

        Remembered(java.util.List<String> strings) {
            this.strings = strings.toArray(new String[0]);
            this.joined = of(java.util.Arrays.asList(this.strings));
        }

        boolean holds(java.util.List<String> other) {
            if (other.size() != strings.length) {
                return false;
            }
            int i = 0;
            for (String s : other) {
                String kept = strings[i++];
                if (kept != s && (s == null || !s.equals(kept))) {
                    return false;
                }
            }
            return true;
        }
    }


}
