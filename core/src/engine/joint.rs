//! The all-topics allocation of [`Rebalancer::rebalance_all`] for a strategy that balances across
//! topics (`Strategy::balances_across_topics`, BALANCED_STICKY).
//!
//! RebalanceImpl asks the strategy once per topic, so a strategy cannot see that four topics of
//! two queues each leave a third consumer idle. Here the topics are asked together, in one call
//! per *set of client ids*: topics whose id lists are equal are balanced as one, and a topic that
//! only some members subscribe to (its id list differs) is balanced with the topics that share its
//! list. Every member sees the same lists, so every member forms the same calls and agrees.
//!
//! When one topic's view is missing for a round (its id fetch failed, its route is unknown), the
//! topic is still counted in its joint call with its last known view (fix 15): leaving it out
//! would change every other topic's share in that call while peers, who see the topic, compute
//! with it. Its missing part alone comes from the past: a route it lacks is its last route, and an
//! id list it lacks is the one the topics that shared its last list have now (so a join seen
//! through them counts for it too; companions missing theirs too are passed over), or its last
//! list when none has one or they disagree. The
//! topic's own round is skipped as usual. A topic never seen complete (a topic not created yet has
//! no route for anyone) is left out, as before.

use std::collections::{BTreeMap, BTreeSet};

use super::view::TopicView;
use super::{MessageModel, Rebalancer};
use crate::java_order;
use crate::queue::MessageQueue;

/// A topic's share of a joint call: its queues for this client, or the strategy's error.
pub(super) type JointShare = Result<BTreeSet<MessageQueue>, String>;

impl Rebalancer {
    /// Each topic's share, for every subscribed topic with a current or last known view. Empty
    /// when the strategy balances per topic or the model is broadcasting.
    pub(super) fn joint_shares(&mut self, topics: &[String], views: &BTreeMap<String, TopicView>) -> BTreeMap<String, JointShare> {
        let mut shares = BTreeMap::new();
        if self.config.model != MessageModel::Clustering || !self.strategy.balances_across_topics() {
            return shares;
        }
        self.last_views.retain(|t, _| topics.contains(t));
        // A topic whose current view lacks a part takes it from the past, before the complete
        // views replace the last ones: its last route, and the id list its companions (the topics
        // that shared its last list) have now, so a join or a leave seen through them does not
        // split it off into a call of its own with the old list, which no peer forms; without
        // such companions, or when they now disagree, its last list stands.
        let mut filled: BTreeMap<&str, TopicView> = BTreeMap::new();
        for topic in topics {
            let (Some(last), current) = (self.last_views.get(topic), views.get(topic)) else {
                continue;
            };
            if matches!(current, Some(TopicView { queues: Some(_), client_ids: Some(_) })) {
                continue;
            }
            let route = current.and_then(|c| c.queues.clone()).or_else(|| last.queues.clone());
            let ids = match current.and_then(|c| c.client_ids.clone()) {
                Some(ids) => Some(ids),
                None => companions_ids(topic, last, &self.last_views, views).or_else(|| last.client_ids.clone()),
            };
            filled.insert(topic, TopicView { queues: route, client_ids: ids });
        }
        for topic in topics {
            if let Some(view @ TopicView { queues: Some(_), client_ids: Some(_) }) = views.get(topic) {
                self.last_views.insert(topic.clone(), view.clone());
            }
        }
        let view_of = |t: &str| filled.get(t).unwrap_or(&self.last_views[t]);
        let mut by_ids: BTreeMap<Vec<String>, Vec<&str>> = BTreeMap::new();
        for topic in self.last_views.keys() {
            let mut ids = view_of(topic).client_ids.clone().unwrap_or_default();
            java_order::sort_client_ids(&mut ids);
            ids.dedup();
            by_ids.entry(ids).or_default().push(topic);
        }
        for (ids, group) in by_ids {
            let mq_all: BTreeSet<MessageQueue> = group.iter().flat_map(|t| view_of(t).queues.iter().flatten().filter(|q| *q.topic == **t)).cloned().collect();
            let mq_all: Vec<MessageQueue> = mq_all.into_iter().collect();
            let share: JointShare = self
                .strategy
                .allocate(&self.config.group, &self.config.client_id, &mq_all, &ids)
                .map(|mine| mine.into_iter().collect())
                .map_err(|e| format!("{}: {e}", e.java_exception()));
            for topic in group {
                let own = share.as_ref().map(|mine| mine.iter().filter(|q| *q.topic == *topic).cloned().collect()).map_err(Clone::clone);
                shares.insert(topic.to_owned(), own);
            }
        }
        shares
    }
}

/// The current id list of the topics that shared `topic`'s last list: of those that have a current
/// list, when they agree on it (a companion whose own list is missing too, say after a join,
/// neither decides nor vetoes); None when none has one or they disagree.
fn companions_ids(topic: &str, last: &TopicView, before: &BTreeMap<String, TopicView>, views: &BTreeMap<String, TopicView>) -> Option<Vec<String>> {
    let sorted = |ids: &[String]| {
        let mut ids = ids.to_vec();
        java_order::sort_client_ids(&mut ids);
        ids.dedup();
        ids
    };
    let last_ids = sorted(last.client_ids.as_deref()?);
    let mut now: Option<Vec<String>> = None;
    for (other, seen) in before {
        if other == topic || seen.client_ids.as_deref().map(sorted).as_ref() != Some(&last_ids) {
            continue;
        }
        let Some(current) = views.get(other).and_then(|v| v.client_ids.as_deref()).map(sorted) else {
            continue;
        };
        match &now {
            Some(agreed) if *agreed != current => return None,
            _ => now = Some(current),
        }
    }
    now
}
