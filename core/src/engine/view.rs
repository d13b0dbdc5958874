//! What a client knows of one topic at the start of a round: the input of `rebalance_all`, and what
//! a joint call remembers of each topic.

use crate::queue::MessageQueue;

/// What a client knows of one topic at the start of a round.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopicView {
    /// The topic's readable queues; `None` when the route is unknown.
    pub queues: Option<Vec<MessageQueue>>,
    /// The group's client ids from one broker; `None` when the call failed.
    pub client_ids: Option<Vec<String>>,
}
