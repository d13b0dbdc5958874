//! The hash every BALANCED_STICKY decision rests on: FNV-1a 64 over the parts, each followed by a
//! 0xff separator, then SplitMix64's finaliser. Fixed by this file, the same everywhere.
//!
//! FNV goes byte by byte, one multiplication after another, so most of its cost is in long shared
//! beginnings: a queue key's topic and broker, a member's name. [`Fnv`] hashes such a beginning
//! once and finishes each key from there, with the same result as hashing every key whole.

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a 64 part way through its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fnv(pub(crate) u64);

impl Fnv {
    pub(crate) const START: Fnv = Fnv(OFFSET);

    /// The state after `bytes` more.
    pub(crate) fn bytes(self, bytes: &[u8]) -> Fnv {
        Fnv(bytes.iter().fold(self.0, |h, b| (h ^ u64::from(*b)).wrapping_mul(PRIME)))
    }

    /// The state after one whole part: its bytes and the separator.
    pub(crate) fn part(self, bytes: &[u8]) -> Fnv {
        self.bytes(bytes).bytes(&[0xff])
    }

    /// The hash: the state through SplitMix64's finaliser.
    pub(crate) fn finish(self) -> u64 {
        let mut h = self.0;
        h ^= h >> 30;
        h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h ^= h >> 27;
        h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^ (h >> 31)
    }
}

/// The hash of `parts`, each a whole part.
pub(crate) fn hash64(parts: &[&[u8]]) -> u64 {
    parts.iter().fold(Fnv::START, |h, p| h.part(p)).finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c (the published test vector); the separator and
    /// the finaliser follow from the definitions above.
    #[test]
    fn fnv_matches_the_published_vector() {
        assert_eq!(Fnv::START.bytes(b"a").0, 0xaf63_dc4c_8601_ec8c);
        assert_eq!(Fnv::START.bytes(b"").0, OFFSET);
    }

    #[test]
    fn a_shared_beginning_finishes_as_the_whole_key() {
        let whole = hash64(&[b"MessageQueue [topic=T, brokerName=b, queueId=7]"]);
        let prefix = Fnv::START.bytes(b"MessageQueue [topic=T, brokerName=b, queueId=");
        assert_eq!(prefix.bytes(b"7]").part(b"").finish(), whole);
        assert_eq!(hash64(&[b"m", b"x"]), Fnv::START.part(b"m").part(b"x").finish());
    }
}
