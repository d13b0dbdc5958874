//! Refusing re-entry: a host callback that calls back into the rebalancer running it.
//!
//! Bindings share one rebalancer between threads behind a mutex. A callback that calls the same
//! rebalancer again on the same thread would wait for that mutex forever; this guard turns the
//! call into [`Error::Reentrant`] instead. Calls on other threads just wait their turn, and the
//! consume queries ([`super::ConsumeView`]) take no lock and need no guard.

use std::cell::RefCell;

use crate::error::{Error, Result};

thread_local! {
    /// The rebalancers (by the address of their shared owner) this thread is inside of.
    static ACTIVE: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Marks `owner` (the binding's handle around one rebalancer) as running on this thread until
/// dropped. Take it before the mutex.
#[must_use = "the rebalancer counts as running only while the guard lives"]
pub struct ReentryGuard(usize);

impl ReentryGuard {
    /// `Error::Reentrant` if this thread is already inside `owner`.
    pub fn enter<T>(owner: &T) -> Result<Self> {
        let key = owner as *const T as usize;
        ACTIVE.with(|active| {
            let mut active = active.borrow_mut();
            if active.contains(&key) {
                return Err(Error::Reentrant);
            }
            active.push(key);
            Ok(ReentryGuard(key))
        })
    }
}

impl Drop for ReentryGuard {
    fn drop(&mut self) {
        ACTIVE.with(|active| active.borrow_mut().retain(|k| *k != self.0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_the_same_owner_on_the_same_thread_only() {
        let (a, b) = (1u8, 2u8);
        let outer = ReentryGuard::enter(&a).unwrap();
        assert_eq!(ReentryGuard::enter(&a).err(), Some(Error::Reentrant));
        let other = ReentryGuard::enter(&b).unwrap(); // another rebalancer from a callback is fine
        std::thread::scope(|s| {
            s.spawn(|| drop(ReentryGuard::enter(&a).unwrap())); // another thread waits, not refused
        });
        drop(other);
        drop(outer);
        drop(ReentryGuard::enter(&a).unwrap()); // released on drop
    }
}
