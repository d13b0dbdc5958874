//! CONFIG: `AllocateMessageQueueByConfig`. Returns the configured list whatever it is asked,
//! without any argument check.

use std::borrow::Cow;
use std::sync::Arc;

use super::{Allocation, Strategy};
use crate::error::{Error, Result};
use crate::queue::MessageQueue;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ByConfig {
    /// `None` is Java's unset list: `allocate` then returns null, which Rust reports as
    /// [`Error::NoConfiguredQueues`].
    queues: Option<Arc<[MessageQueue]>>,
}

impl ByConfig {
    pub fn new(queues: Option<Vec<MessageQueue>>) -> Self {
        ByConfig { queues: queues.map(Into::into) }
    }

    pub fn queues(&self) -> Option<&[MessageQueue]> {
        self.queues.as_deref()
    }
}

impl Strategy for ByConfig {
    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed("CONFIG")
    }

    fn allocate_positions(&self, _group: &str, _current_id: &str, _mq_all: &[MessageQueue], _cid_all: &[String]) -> Result<Allocation> {
        self.queues.clone().map(Allocation::Fixed).ok_or(Error::NoConfiguredQueues)
    }
}
