//! Strategies other clients run that disagree with Java's, for diagnosis only: `inspect` uses them
//! to say "this Go client runs Go's own consistent hash", never to allocate. So they are not in
//! [`crate::strategy_from_config`]; [`diagnostic_strategy`] knows them and every allocating one.
//!
//! rocketmq-client-go's AVG and AVG_BY_CIRCLE answer as Java's on every committed Java case
//! (`tests/vectors/go-data`), so Java's serve for Go clients; its MACHINE_ROOM_NEARBY is its AVG.

mod go_consistent_hash;
mod go_machine_room;

use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

pub use go_consistent_hash::GoConsistentHash;
pub use go_machine_room::GoMachineRoom;

use crate::{Error, Result, Strategy};

/// The names [`diagnostic_strategy`] adds to the allocating strategies'.
pub const FOREIGN_NAMES: [&str; 2] = ["go_consistent_hash", "go_by_machine_room"];

/// A strategy by its config name, the foreign ones included.
pub fn diagnostic_strategy(name: &str, params: &Value) -> Result<Arc<dyn Strategy>> {
    match name {
        "go_consistent_hash" => {
            #[derive(Deserialize)]
            #[serde(deny_unknown_fields)]
            struct P {
                virtual_node_count: i64,
            }
            let p: P = params_of(name, params)?;
            let n = i32::try_from(p.virtual_node_count).map_err(|_| invalid(name, "virtual_node_count must fit a Go int32 here"))?;
            Ok(Arc::new(GoConsistentHash::new(n)))
        }
        "go_by_machine_room" => {
            #[derive(Deserialize)]
            #[serde(deny_unknown_fields)]
            struct P {
                consume_idcs: Vec<String>,
            }
            let p: P = params_of(name, params)?;
            Ok(Arc::new(GoMachineRoom::new(p.consume_idcs)))
        }
        _ => crate::strategy_from_config(name, params),
    }
}

/// Go has no default for either parameter (`AllocateByConsistentHash(n)`, `AllocateByMachineRoom(idcs)`),
/// so both are required.
fn params_of<T: serde::de::DeserializeOwned>(name: &str, params: &Value) -> Result<T> {
    let params = if params.is_null() { Value::Object(Default::default()) } else { params.clone() };
    serde_path_to_error::deserialize(params).map_err(|e| invalid(name, &format!("{}: {}", e.path(), e.inner())))
}

fn invalid(strategy: &str, reason: &str) -> Error {
    Error::InvalidParameters { strategy: strategy.to_owned(), reason: reason.to_owned() }
}

/// The Go strategies' argument handling: no errors, an empty share for a missing current id,
/// empty lists or an id not in the list (Go logs `[BUG]` and returns nil). `Some(index)` otherwise.
fn go_index(current_id: &str, mq_all_len: usize, cid_all: &[String]) -> Option<usize> {
    if current_id.is_empty() || mq_all_len == 0 || cid_all.is_empty() {
        return None;
    }
    cid_all.iter().position(|c| c == current_id)
}

#[cfg(test)]
mod tests;
