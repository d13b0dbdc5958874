//! Simulated time. The scheduler advances it and the checks measure in it, so it sits below both.

/// The scheduler's step: one second of simulated time.
pub const TICK_MS: u64 = 1_000;
