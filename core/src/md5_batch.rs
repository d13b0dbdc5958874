//! MD5 of many independent keys at once.
//!
//! Consistent hash costs what hashing its keys costs: one MD5 per queue key and per virtual node.
//! One MD5 stream cannot go faster than its chain of 64-byte blocks, but the keys are
//! independent, so SIMD lanes hash 4 (SSE), 8 (AVX2) or 16 (AVX-512) of them side by side. The
//! kernels are the `md5-many` crate's; this module chooses one at run time, lets tests force each
//! ([`Md5Path`], `RMQ_REBALANCE_MD5`), and feeds it keys written into one reused buffer.
//!
//! Every path gives the scalar digest bit for bit: the tests compare them over every length
//! around the block boundaries, and the test command runs the conformance vectors once per path
//! the machine has.

use std::sync::OnceLock;

use md5::{Digest, Md5};
use md5_many::Md5Many;

/// Keys hashed per call into the SIMD engine: enough to fill every lane many times over, small
/// enough that the keys and digests stay in the L1/L2 cache.
const CHUNK: usize = 256;

/// The environment variable that forces a path for the whole process (tests and benchmarks);
/// `auto` or unset means the best the CPU has.
pub const PATH_VARIABLE: &str = "RMQ_REBALANCE_MD5";

/// One way to compute many MD5 digests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Md5Path {
    /// One key after another through the `md-5` crate: what every other path must equal.
    Scalar,
    /// 4 lanes, the x86-64 baseline.
    Sse2,
    /// 4 lanes with SSE4.2.
    Sse42,
    /// 8 lanes.
    Avx2,
    /// 16 lanes.
    Avx512,
    /// 4 lanes on AArch64.
    Neon,
}

impl Md5Path {
    pub const ALL: [Md5Path; 6] = [Md5Path::Scalar, Md5Path::Sse2, Md5Path::Sse42, Md5Path::Avx2, Md5Path::Avx512, Md5Path::Neon];

    /// The name used by `RMQ_REBALANCE_MD5` and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Md5Path::Scalar => "scalar",
            Md5Path::Sse2 => "sse2",
            Md5Path::Sse42 => "sse4.2",
            Md5Path::Avx2 => "avx2",
            Md5Path::Avx512 => "avx512",
            Md5Path::Neon => "neon",
        }
    }

    pub fn from_name(name: &str) -> Option<Md5Path> {
        Md5Path::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Keys hashed side by side.
    pub fn lanes(self) -> usize {
        self.engine().map_or(1, Md5Many::lanes)
    }

    /// Whether this CPU can run the path.
    pub fn is_available(self) -> bool {
        self == Md5Path::Scalar || self.engine().is_some()
    }

    /// Every path this CPU can run, scalar first, the best last.
    pub fn available() -> Vec<Md5Path> {
        Md5Path::ALL.into_iter().filter(|p| p.is_available()).collect()
    }

    /// The widest path this CPU can run.
    pub fn best() -> Md5Path {
        *Md5Path::available().iter().max_by_key(|p| p.lanes()).expect("scalar is always available")
    }

    /// The path the process uses: `RMQ_REBALANCE_MD5` if it names a path this CPU can run,
    /// otherwise the best one. Read once.
    pub fn active() -> Md5Path {
        static ACTIVE: OnceLock<Md5Path> = OnceLock::new();
        *ACTIVE.get_or_init(|| {
            let wanted = std::env::var(PATH_VARIABLE).ok();
            wanted.as_deref().and_then(Md5Path::from_name).filter(|p| p.is_available()).unwrap_or_else(Md5Path::best)
        })
    }

    /// The SIMD engine for this path, if the CPU has it (never for scalar).
    fn engine(self) -> Option<Md5Many> {
        let level = simd_level(self)?;
        Some(Md5Many::from_level(level))
    }
}

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
fn simd_level(path: Md5Path) -> Option<fearless_simd::Level> {
    use fearless_simd::{Level, Simd};
    let detected = Level::new();
    match path {
        Md5Path::Sse2 => detected.as_sse2().map(|t| t.level()),
        Md5Path::Sse42 => detected.as_sse4_2().map(|t| t.level()),
        Md5Path::Avx2 => detected.as_avx2().map(|t| t.level()),
        Md5Path::Avx512 => detected.as_avx512().map(|t| t.level()),
        Md5Path::Scalar | Md5Path::Neon => None,
    }
}

#[cfg(target_arch = "aarch64")]
fn simd_level(path: Md5Path) -> Option<fearless_simd::Level> {
    use fearless_simd::{Level, Simd};
    match path {
        Md5Path::Neon => Level::new().as_neon().map(|t| t.level()),
        _ => None,
    }
}

#[cfg(not(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64")))]
fn simd_level(_path: Md5Path) -> Option<fearless_simd::Level> {
    None
}

/// `MD5Hash.hash`: the first four digest bytes, big-endian, unsigned.
fn first_word(digest: &[u8]) -> u32 {
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

/// The ring hash of one key, one stream.
pub fn ring_hash(key: &[u8]) -> u32 {
    first_word(&Md5::digest(key))
}

/// The ring hash of `count` keys, `write_key(i, buffer)` appending key `i` to the buffer. Keys
/// are written a chunk at a time into one reused buffer, never one allocation per key.
pub fn ring_hashes(path: Md5Path, count: usize, mut write_key: impl FnMut(usize, &mut Vec<u8>)) -> Vec<u32> {
    let mut out = Vec::with_capacity(count);
    let mut bytes = Vec::with_capacity(CHUNK * 80);
    let mut ends = Vec::with_capacity(CHUNK);
    let mut digests = vec![[0u8; 16]; CHUNK];
    let engine = path.engine();
    let mut hasher = Md5::new();
    for start in (0..count).step_by(CHUNK) {
        let end = (start + CHUNK).min(count);
        bytes.clear();
        ends.clear();
        for i in start..end {
            write_key(i, &mut bytes);
            ends.push(bytes.len());
        }
        let keys = ends.iter().scan(0, |from, &to| {
            let key = &bytes[*from..to];
            *from = to;
            Some(key)
        });
        match engine {
            Some(engine) => {
                let keys: Vec<&[u8]> = keys.collect();
                engine.hash_many(&keys, &mut digests[..keys.len()]);
                out.extend(digests[..keys.len()].iter().map(|d| first_word(d)));
            }
            None => out.extend(keys.map(|key| {
                hasher.update(key);
                first_word(&hasher.finalize_reset())
            })),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every length from 0 to 200 bytes crosses the padding boundaries (55/56/64 bytes and
    /// their multiples): each path must give the scalar digest of each.
    #[test]
    fn every_path_equals_scalar_at_every_length_around_the_block_boundaries() {
        let keys: Vec<Vec<u8>> = (0..=200u32).map(|n| (0..n).map(|i| (i * 31 + n) as u8).collect()).collect();
        let scalar: Vec<u32> = keys.iter().map(|k| ring_hash(k)).collect();
        for path in Md5Path::available() {
            let got = ring_hashes(path, keys.len(), |i, b| b.extend_from_slice(&keys[i]));
            assert_eq!(got, scalar, "{}", path.name());
        }
    }

    /// RFC 1321's test suite, first four bytes of each digest.
    #[test]
    fn rfc_1321_vectors_on_every_path() {
        let suite: [(&str, u32); 4] = [("", 0xd41d_8cd9), ("a", 0x0cc1_75b9), ("abc", 0x9001_5098), ("message digest", 0xf96b_697d)];
        for path in Md5Path::available() {
            let got = ring_hashes(path, suite.len(), |i, b| b.extend_from_slice(suite[i].0.as_bytes()));
            assert_eq!(got, suite.map(|(_, h)| h), "{}", path.name());
        }
    }

    #[test]
    fn names_round_trip_and_scalar_is_always_there() {
        for path in Md5Path::ALL {
            assert_eq!(Md5Path::from_name(path.name()), Some(path));
        }
        assert_eq!(Md5Path::from_name("sse5"), None);
        assert_eq!(Md5Path::available()[0], Md5Path::Scalar);
        assert!(Md5Path::best().is_available());
        assert!(Md5Path::available().contains(&Md5Path::active()));
    }

    proptest! {
        /// Mixed lengths in one batch (lanes finishing at different blocks), more keys than one
        /// chunk.
        #[test]
        fn random_batches_equal_scalar(keys in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..300), 0..600)) {
            let scalar: Vec<u32> = keys.iter().map(|k| ring_hash(k)).collect();
            for path in Md5Path::available() {
                prop_assert_eq!(&ring_hashes(path, keys.len(), |i, b| b.extend_from_slice(&keys[i])), &scalar, "{}", path.name());
            }
        }
    }
}
