//! Requests sent and failed, per request code: `watch` exports them as its own health, so an
//! operator sees which request a cluster refuses or lets time out. Shared by every connection of
//! a process through an `Arc`; counting is two relaxed atomic adds per request.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::ReadOnly;

#[derive(Debug, Default)]
pub struct RequestStats {
    sent: [AtomicU64; ReadOnly::ALL.len()],
    failed: [AtomicU64; ReadOnly::ALL.len()],
}

impl RequestStats {
    pub(crate) fn sent(&self, request: ReadOnly) {
        self.sent[request.index()].fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn failed(&self, request: ReadOnly) {
        self.failed[request.index()].fetch_add(1, Ordering::Relaxed);
    }

    /// (request, sent, failed) for every request this client can send, in [`ReadOnly::ALL`]'s order.
    pub fn counts(&self) -> Vec<(ReadOnly, u64, u64)> {
        ReadOnly::ALL.iter().map(|r| (*r, self.sent[r.index()].load(Ordering::Relaxed), self.failed[r.index()].load(Ordering::Relaxed))).collect()
    }
}
