//! Java's orderings, reproduced exactly.
//!
//! Every client of a group must sort the queue list and the client-id list the same way before
//! running a strategy, and the Java client is the majority of every group. Java's
//! `String.compareTo` compares UTF-16 code units; Rust's `str` order compares UTF-8 bytes, which
//! is code-point order. The two disagree only when the first differing characters are one in
//! U+E000..=U+FFFF and one supplementary (U+10000 and up): UTF-16 encodes the latter with a
//! surrogate (0xD800..=0xDBFF) that sorts *below* U+E000.

use std::cmp::Ordering;

/// `a.compareTo(b)` for Java strings, as an [`Ordering`].
pub fn compare_strings(a: &str, b: &str) -> Ordering {
    let (ab, bb) = (a.as_bytes(), b.as_bytes());
    // Byte-wise common prefix is also a char-wise common prefix; the fast path is a memcmp.
    let Some(diff) = ab.iter().zip(bb).position(|(x, y)| x != y) else {
        // One is a prefix of the other: the shorter (in any unit) sorts first.
        return ab.len().cmp(&bb.len());
    };
    // Back up to the start of the character holding the first differing byte (identical in both).
    let mut start = diff;
    while start > 0 && (ab[start] & 0xC0) == 0x80 {
        start -= 1;
    }
    let ca = a[start..].chars().next().expect("start is a char boundary inside a");
    let cb = b[start..].chars().next().expect("start is a char boundary inside b");
    utf16_key(ca).cmp(&utf16_key(cb))
}

/// The UTF-16 code units of `c`, as a sortable pair (a BMP char has no second unit).
fn utf16_key(c: char) -> (u16, u16) {
    let mut buf = [0u16; 2];
    let units = c.encode_utf16(&mut buf);
    (units[0], units.get(1).copied().unwrap_or(0))
}

/// Java's `String.compareTo` result value (not only its sign): the difference of the first
/// differing UTF-16 code units, or of the UTF-16 lengths. Useful for exact differential tests.
pub fn compare_strings_value(a: &str, b: &str) -> i32 {
    let mut ia = a.encode_utf16();
    let mut ib = b.encode_utf16();
    loop {
        match (ia.next(), ib.next()) {
            (Some(x), Some(y)) if x == y => continue,
            (Some(x), Some(y)) => return i32::from(x) - i32::from(y),
            (Some(_), None) => return 1 + ia.count() as i32,
            (None, Some(_)) => return -(1 + ib.count() as i32),
            (None, None) => return 0,
        }
    }
}

/// Sorts queues the way `RebalanceImpl` does (`Collections.sort(mqAll)`): stable, by
/// [`MessageQueue`](crate::MessageQueue)'s order, which is Java's `compareTo` (generic so that this
/// module, which `queue` builds on, does not depend on it).
pub fn sort_queues<Q: Ord>(queues: &mut [Q]) {
    queues.sort();
}

/// Sorts client ids the way `RebalanceImpl` does (`Collections.sort(cidAll)`): stable, by
/// Java's `String.compareTo`. Duplicates are kept, as Java keeps them.
pub fn sort_client_ids<S: AsRef<str>>(ids: &mut [S]) {
    ids.sort_by(|a, b| compare_strings(a.as_ref(), b.as_ref()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_order_differs_from_code_point_order() {
        // U+FF21 (fullwidth A) is one unit 0xFF21; U+1F600 starts with 0xD83D < 0xFF21.
        let bmp_high = "\u{FF21}";
        let emoji = "\u{1F600}";
        assert_eq!(bmp_high.cmp(emoji), Ordering::Less, "Rust: code-point order");
        assert_eq!(compare_strings(bmp_high, emoji), Ordering::Greater, "Java: UTF-16 order");
        assert!(compare_strings_value(bmp_high, emoji) > 0);
    }

    #[test]
    fn agrees_with_value_form_on_samples() {
        let samples =
            ["", "a", "ab", "b", "\u{E000}", "\u{FFFF}", "\u{10000}", "\u{1F600}", "a\u{1F600}", "a\u{FF21}", "é", "e", "\u{7FF}", "\u{800}", "\u{D7FF}"];
        for a in samples {
            for b in samples {
                let v = compare_strings_value(a, b);
                assert_eq!(compare_strings(a, b), v.cmp(&0), "{a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn length_difference_in_utf16_units() {
        // Java returns len1 - len2 in UTF-16 units: one emoji is two units.
        assert_eq!(compare_strings_value("a\u{1F600}", "a"), 2);
        assert_eq!(compare_strings_value("a", "abc"), -2);
    }
}
