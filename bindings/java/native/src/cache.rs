//! Strategies by configuration, registered once and then named by a small integer. Java objects
//! hold only that number, so there is no native handle to free, calls pass one `int` instead of
//! configuration text, and consistent hash keeps its last ring here between calls.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use rocketmq_rebalance::{Strategy, StrategyConfig};
use serde_json::Value;

use crate::errors::Failure;

/// Distinct configurations registered; a process uses a handful. Beyond this (an idc set given
/// new contents at every call) registering fails rather than growing without bound.
const MAX_ENTRIES: usize = 4096;

#[derive(Default)]
struct Registry {
    by_config: HashMap<(String, String), i32>,
    strategies: Vec<Arc<dyn Strategy>>,
}

fn registry() -> &'static RwLock<Registry> {
    static REGISTRY: OnceLock<RwLock<Registry>> = OnceLock::new();
    REGISTRY.get_or_init(|| RwLock::new(Registry::default()))
}

/// The id of `name` + JSON `params`, building the strategy the first time.
pub(crate) fn register(name: &str, params: &str) -> Result<i32, Failure> {
    let key = (name.to_owned(), params.to_owned());
    // Registration only appends, so a panic elsewhere cannot leave it inconsistent.
    if let Some(id) = registry().read().unwrap_or_else(|p| p.into_inner()).by_config.get(&key) {
        return Ok(*id);
    }
    let value: Value = serde_json::from_str(params).map_err(|e| Failure::Argument(format!("parameters are not JSON: {e}")))?;
    let built = StrategyConfig::from_name(name, &value)?.build()?;
    let mut r = registry().write().unwrap_or_else(|p| p.into_inner());
    if let Some(id) = r.by_config.get(&key) {
        return Ok(*id);
    }
    if r.strategies.len() >= MAX_ENTRIES {
        return Err(Failure::Argument(format!("more than {MAX_ENTRIES} distinct strategy configurations")));
    }
    let id = r.strategies.len() as i32;
    r.strategies.push(built);
    r.by_config.insert(key, id);
    Ok(id)
}

/// The strategy registered as `id`.
pub(crate) fn strategy(id: i32) -> Result<Arc<dyn Strategy>, Failure> {
    let r = registry().read().unwrap_or_else(|p| p.into_inner());
    usize::try_from(id).ok().and_then(|i| r.strategies.get(i)).cloned().ok_or_else(|| Failure::Argument(format!("no strategy registered as {id}")))
}
