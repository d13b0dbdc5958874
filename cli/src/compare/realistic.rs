//! Random groups shaped like real deployments, next to the regular grid: many topics of uneven
//! size (1 to 16 queues over 1 to 3 brokers), 1 to 40 topics, 2 to 24 members with the Java
//! client's ids (`ip@pid#nanotime`), so a topic often has fewer queues than the group has members.
//! The regular grid samples few such groups, and a tuning that wins on one and loses on the
//! other is not a win: both are reported.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rocketmq_rebalance::{MessageQueue, Strategy};
use serde::Serialize;

use super::measure::{measure, Rule};

/// One random group: its shape and its movement.
#[derive(Serialize, Clone)]
pub(super) struct Group {
    pub strategy: String,
    pub index: usize,
    pub topics: usize,
    pub queues: usize,
    pub members: usize,
    /// Most-loaded member's queues over ceil(Q/C).
    pub max_over_ceil: f64,
    /// Largest difference between two members' counts within one topic.
    pub topic_spread: usize,
    pub join_moved: usize,
    pub join_bound: usize,
    pub leave_moved: usize,
    pub leave_bound: usize,
    /// The bounds under the strategy's own balance rule.
    pub join_own_bound: usize,
    pub leave_own_bound: usize,
    pub join_forced: usize,
    pub leave_forced: usize,
    pub join_fair: f64,
    pub leave_fair: f64,
}

/// A strategy over all the random groups.
#[derive(Serialize)]
pub(super) struct Summary {
    pub strategy: String,
    /// Largest member total over ceil(Q/C): mean and worst over the groups.
    pub mean_max_over_ceil: f64,
    pub worst_max_over_ceil: f64,
    pub worst_topic_spread: usize,
    /// Sum moved / sum of bounds.
    pub join_ratio: f64,
    pub leave_ratio: f64,
    /// The same over the bounds under the strategy's own rule.
    pub join_own_ratio: f64,
    pub leave_own_ratio: f64,
    /// The largest moved / own-rule bound of one group (groups with a bound of 0 left out).
    pub worst_join: f64,
    pub worst_leave: f64,
    /// Groups that moved more than 3x their own-rule bound + 2 on a join or a leave.
    pub over_3x_plus_2: usize,
    /// Sum of the moves the new per-topic counts force / sum of bounds: how much of the movement
    /// is in choosing counts; the rest (moved / forced) is the pairing of queues with members.
    pub join_forced_ratio: f64,
    pub leave_forced_ratio: f64,
    /// Sum moved / sum of fair shares (Q/(C+1) for a join, Q/C for a leave).
    pub join_fair_ratio: f64,
    pub leave_fair_ratio: f64,
}

/// A Java client id: `ip@pid#nanotime`.
fn client_id(rng: &mut ChaCha8Rng) -> String {
    format!(
        "10.{}.{}.{}@{}#{}",
        rng.gen_range(0..=255),
        rng.gen_range(0..=255),
        rng.gen_range(1..=254),
        rng.gen_range(1_000..=65_535),
        rng.gen_range(10_000_000_000_000u64..=99_999_999_999_999)
    )
}

/// The `index`-th group of `seed`: the same group for every strategy.
pub(super) struct Shape {
    pub queues: Vec<MessageQueue>,
    pub ids: Vec<String>,
    pub newcomer: String,
    pub leaving: usize,
    pub topics: usize,
}

pub(super) fn shape(seed: u64, index: usize) -> Shape {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let topics = rng.gen_range(1..=40);
    let mut queues = Vec::new();
    for t in 0..topics {
        let topic = format!("svc{}-events-{t}", rng.gen_range(0..1000));
        let total: usize = rng.gen_range(1..=16);
        let brokers = rng.gen_range(1..=3usize).min(total);
        for b in 0..brokers {
            // Queues split over the brokers as evenly as they go: 7 over 2 is 4 + 3.
            let here = total / brokers + usize::from(b < total % brokers);
            for q in 0..here {
                queues.push(MessageQueue::new(topic.clone(), format!("broker-{}", (b'a' + b as u8) as char), q as i32));
            }
        }
    }
    let members = rng.gen_range(2..=24);
    let ids: Vec<String> = (0..members).map(|_| client_id(&mut rng)).collect();
    let newcomer = client_id(&mut rng);
    let leaving = rng.gen_range(0..members);
    Shape { queues, ids, newcomer, leaving, topics }
}

pub(super) fn group(name: &str, strategy: &dyn Strategy, rule: Rule, seed: u64, index: usize) -> Result<Group, String> {
    let s = shape(seed, index);
    let m = measure(strategy, rule, &s.queues, &s.ids, &s.newcomer, s.leaving)?;
    Ok(Group {
        strategy: name.to_owned(),
        index,
        topics: s.topics,
        queues: s.queues.len(),
        members: s.ids.len(),
        max_over_ceil: m.max_over_ceil,
        topic_spread: m.topic_spread,
        join_moved: m.join_moved,
        join_bound: m.join_bound,
        leave_moved: m.leave_moved,
        leave_bound: m.leave_bound,
        join_own_bound: m.join_own_bound,
        leave_own_bound: m.leave_own_bound,
        join_forced: m.join_forced,
        leave_forced: m.leave_forced,
        join_fair: m.join_fair,
        leave_fair: m.leave_fair,
    })
}

pub(super) fn summarise(name: &str, groups: &[Group]) -> Summary {
    let ratio = |moved: usize, bound: usize| moved as f64 / bound.max(1) as f64;
    let worst = |f: fn(&Group) -> (usize, usize)| groups.iter().map(f).filter(|(_, b)| *b > 0).map(|(m, b)| ratio(m, b)).fold(0.0, f64::max);
    Summary {
        strategy: name.to_owned(),
        mean_max_over_ceil: groups.iter().map(|g| g.max_over_ceil).sum::<f64>() / groups.len().max(1) as f64,
        worst_max_over_ceil: groups.iter().map(|g| g.max_over_ceil).fold(0.0, f64::max),
        worst_topic_spread: groups.iter().map(|g| g.topic_spread).max().unwrap_or(0),
        join_ratio: ratio(groups.iter().map(|g| g.join_moved).sum(), groups.iter().map(|g| g.join_bound).sum()),
        leave_ratio: ratio(groups.iter().map(|g| g.leave_moved).sum(), groups.iter().map(|g| g.leave_bound).sum()),
        join_own_ratio: ratio(groups.iter().map(|g| g.join_moved).sum(), groups.iter().map(|g| g.join_own_bound).sum()),
        leave_own_ratio: ratio(groups.iter().map(|g| g.leave_moved).sum(), groups.iter().map(|g| g.leave_own_bound).sum()),
        worst_join: worst(|g| (g.join_moved, g.join_own_bound)),
        worst_leave: worst(|g| (g.leave_moved, g.leave_own_bound)),
        over_3x_plus_2: groups.iter().filter(|g| g.join_moved > 3 * g.join_own_bound + 2 || g.leave_moved > 3 * g.leave_own_bound + 2).count(),
        join_forced_ratio: ratio(groups.iter().map(|g| g.join_forced).sum(), groups.iter().map(|g| g.join_bound).sum()),
        leave_forced_ratio: ratio(groups.iter().map(|g| g.leave_forced).sum(), groups.iter().map(|g| g.leave_bound).sum()),
        join_fair_ratio: fair_ratio(groups.iter().map(|g| (g.join_moved, g.join_fair))),
        leave_fair_ratio: fair_ratio(groups.iter().map(|g| (g.leave_moved, g.leave_fair))),
    }
}

/// Sum of moved / sum of fair shares over (moved, fair share) pairs.
pub(super) fn fair_ratio(pairs: impl Iterator<Item = (usize, f64)>) -> f64 {
    let (moved, fair) = pairs.fold((0usize, 0f64), |(m, f), (dm, df)| (m + dm, f + df));
    if fair > 0.0 {
        moved as f64 / fair
    } else {
        0.0
    }
}
