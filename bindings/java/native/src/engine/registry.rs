//! Rebalancers by id. Java holds a `long` id, never an address: an unknown or closed id is an
//! error, and an engine in use by a running call outlives its `close` until that call returns.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use rocketmq_rebalance::engine::{Rebalancer, Session};

use super::bridge::BridgeMethods;
use crate::errors::Failure;

/// One rebalancer: the core's session, and the host bridge's methods resolved at creation.
pub(crate) struct Engine {
    pub(crate) session: Session,
    pub(crate) bridge: BridgeMethods,
}

impl Engine {
    pub(crate) fn new(rebalancer: Rebalancer, bridge: BridgeMethods) -> Self {
        Engine { session: Session::new(rebalancer), bridge }
    }
}

fn engines() -> &'static Mutex<HashMap<i64, Arc<Engine>>> {
    static ENGINES: OnceLock<Mutex<HashMap<i64, Arc<Engine>>>> = OnceLock::new();
    ENGINES.get_or_init(Default::default)
}

/// Ids start at 1 and are never reused, so a stale id cannot name a newer rebalancer.
pub(crate) fn insert(engine: Engine) -> i64 {
    static NEXT: AtomicI64 = AtomicI64::new(1);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    engines().lock().unwrap_or_else(|p| p.into_inner()).insert(id, Arc::new(engine));
    id
}

pub(crate) fn get(id: i64) -> Result<Arc<Engine>, Failure> {
    engines()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&id)
        .cloned()
        .ok_or_else(|| Failure::Closed(format!("the rebalancer is closed (or was never created): id {id}")))
}

pub(crate) fn remove(id: i64) {
    engines().lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
}
