//! One group measured: its balance, and its movement on one join and one leave against two
//! yardsticks: the fewest moves any balanced assignment needs (`movement_bound`, an exact min-cost
//! flow from this strategy's own last assignment), and the fair share, which no stateless strategy,
//! balanced or not, beats in expectation: a join hands the newcomer Q/(C+1) queues, a leave hands
//! out the leaver's Q/C.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rocketmq_rebalance::movement_bound::{capacity_lower_bound, lower_bound};
use rocketmq_rebalance::strategy::balanced_sticky::Caps;
use rocketmq_rebalance::{java_order, MessageQueue, Strategy};

type Owners = HashMap<MessageQueue, String>;

/// The balance rule a strategy keeps, for the stateful minimum under its own rule.
#[derive(Clone, Copy)]
pub(super) enum Rule {
    /// Per-topic floor or ceiling, totals within one (every strategy is measured against it).
    Exact,
    /// BALANCED_STICKY_V2's caps.
    Capacity(Caps),
}

impl Rule {
    fn bound(self, old: &Owners, queues: &[MessageQueue], ids: &[String]) -> usize {
        match self {
            Rule::Exact => lower_bound(old, queues, ids),
            Rule::Capacity(caps) => capacity_lower_bound(old, queues, ids, caps),
        }
    }
}

pub(super) struct Measured {
    /// Most-loaded member's queues over the average.
    pub max_over_avg: f64,
    /// Most-loaded member's queues over ceil(Q/C), what an exactly balanced member holds at most.
    pub max_over_ceil: f64,
    /// Largest difference between two members' counts within one topic.
    pub topic_spread: usize,
    pub idle_members: usize,
    pub join_moved: usize,
    pub join_bound: usize,
    pub leave_moved: usize,
    pub leave_bound: usize,
    /// The bounds under the strategy's own rule (the exact bounds for a strategy without one).
    pub join_own_bound: usize,
    pub leave_own_bound: usize,
    /// The moves the new per-topic counts alone force (see [`forced`]): what is left of `moved`
    /// is the price of pairing queues with members anew.
    pub join_forced: usize,
    pub leave_forced: usize,
    /// Q/(C+1) and Q/C: the fair share of a join and of a leave.
    pub join_fair: f64,
    pub leave_fair: f64,
}

/// Owners as clients compute them: Java strategies per topic (RebalanceImpl), a strategy that
/// balances across topics once over every topic.
fn owners(strategy: &dyn Strategy, queues: &[MessageQueue], ids: &[String]) -> Result<Owners, String> {
    let mut ids = ids.to_vec();
    java_order::sort_client_ids(&mut ids);
    let mut calls: BTreeMap<&str, Vec<MessageQueue>> = BTreeMap::new();
    let whole = strategy.balances_across_topics();
    for q in queues {
        calls.entry(if whole { "" } else { &q.topic }).or_default().push(q.clone());
    }
    let mut out = Owners::new();
    for (_, mut qs) in calls {
        java_order::sort_queues(&mut qs);
        let view = strategy.allocate_group("compare", &qs, &ids).map_err(|e| e.to_string())?;
        for (q, owners) in view.ownership(&qs).queues() {
            if let Some(o) = owners.iter().next() {
                out.insert(q.clone(), o.clone());
            }
        }
    }
    Ok(out)
}

fn moved(before: &Owners, after: &Owners) -> usize {
    before.iter().filter(|(q, o)| after.get(*q) != Some(*o)).count()
}

/// How many queues of each topic each member holds.
fn per_topic_counts(owners: &Owners) -> HashMap<(&str, &str), usize> {
    let mut counts = HashMap::new();
    for (q, o) in owners {
        *counts.entry((&*q.topic, o.as_str())).or_default() += 1;
    }
    counts
}

/// The fewest queues that change owner between an assignment with the counts `before` (see
/// [`per_topic_counts`]) and one with the counts of `after`: a member holding fewer of a topic
/// after gives up the difference, and nothing else need move. The movement bound is this,
/// minimised over every balanced choice of counts.
fn forced(before: &HashMap<(&str, &str), usize>, after: &Owners) -> usize {
    let after = per_topic_counts(after);
    before.iter().map(|(k, n)| n.saturating_sub(after.get(k).copied().unwrap_or(0))).sum()
}

/// `ids` consume `queues`; then `newcomer` joins, and (separately) `ids[leaving]` leaves.
pub(super) fn measure(
    strategy: &dyn Strategy,
    rule: Rule,
    queues: &[MessageQueue],
    ids: &[String],
    newcomer: &str,
    leaving: usize,
) -> Result<Measured, String> {
    let mut joined = ids.to_vec();
    joined.push(newcomer.to_owned());
    let mut left = ids.to_vec();
    left.remove(leaving);
    let before = owners(strategy, queues, ids)?;
    let (after_join, after_leave) = (owners(strategy, queues, &joined)?, if left.is_empty() { Owners::new() } else { owners(strategy, queues, &left)? });
    let mut load: HashMap<&str, usize> = ids.iter().map(|i| (i.as_str(), 0)).collect();
    for o in before.values() {
        *load.entry(o).or_default() += 1;
    }
    let per_topic = per_topic_counts(&before);
    let topics: BTreeSet<&str> = queues.iter().map(|q| &*q.topic).collect();
    let spread = topics
        .iter()
        .map(|topic| {
            let counts: Vec<usize> = ids.iter().map(|i| per_topic.get(&(*topic, i.as_str())).copied().unwrap_or(0)).collect();
            counts.iter().max().unwrap_or(&0) - counts.iter().min().unwrap_or(&0)
        })
        .max()
        .unwrap_or(0);
    Ok(Measured {
        max_over_avg: *load.values().max().unwrap_or(&0) as f64 / (queues.len() as f64 / ids.len() as f64),
        max_over_ceil: *load.values().max().unwrap_or(&0) as f64 / queues.len().div_ceil(ids.len()) as f64,
        topic_spread: spread,
        idle_members: load.values().filter(|n| **n == 0).count(),
        join_moved: moved(&before, &after_join),
        join_bound: lower_bound(&before, queues, &joined),
        leave_moved: moved(&before, &after_leave),
        leave_bound: if left.is_empty() { 0 } else { lower_bound(&before, queues, &left) },
        join_own_bound: rule.bound(&before, queues, &joined),
        leave_own_bound: if left.is_empty() { 0 } else { rule.bound(&before, queues, &left) },
        join_forced: forced(&per_topic, &after_join),
        leave_forced: forced(&per_topic, &after_leave),
        join_fair: queues.len() as f64 / joined.len() as f64,
        leave_fair: queues.len() as f64 / ids.len() as f64,
    })
}
