#![allow(clippy::needless_range_loop, clippy::type_complexity)]
//! Movement on one join and one leave over the issue-7 grid, for the experimental BALANCED_STICKY
//! and the Java strategies, each relative to the exact lower bound: the fewest queues any
//! assignment meeting both balance bounds (per topic floor/ceil, totals within one) must move.
//! `cargo run --release -p rocketmq-rebalance --example sticky_grid`

use std::collections::HashMap;

use rocketmq_rebalance::strategy::balanced_sticky;
use rocketmq_rebalance::{java_order, strategy_from_config, MessageQueue};

type Owners = HashMap<MessageQueue, String>;

fn sticky(mq: &[MessageQueue], ids: &[String]) -> Owners {
    let (names, owner) = balanced_sticky::assign(mq, ids);
    mq.iter().zip(owner).map(|(q, o)| (q.clone(), names[o].clone())).collect()
}

/// A Java strategy as clients run it: per topic, sorted lists, every member its own share.
fn java(name: &str, mq: &[MessageQueue], ids: &[String]) -> Owners {
    let s = strategy_from_config(name, &serde_json::Value::Null).unwrap();
    let mut sorted_ids = ids.to_vec();
    java_order::sort_client_ids(&mut sorted_ids);
    let mut by_topic: HashMap<String, Vec<MessageQueue>> = HashMap::new();
    for q in mq {
        by_topic.entry(q.topic.to_string()).or_default().push(q.clone());
    }
    let mut out = Owners::new();
    for (_, mut qs) in by_topic {
        java_order::sort_queues(&mut qs);
        for id in &sorted_ids {
            for q in s.allocate("g", id, &qs, &sorted_ids).unwrap() {
                out.insert(q, id.clone());
            }
        }
    }
    out
}

/// The fewest moves from `old` to any assignment over `ids` meeting both balance bounds:
/// Q - (queues that can stay at base quota) - (the best choice of extras, a small min-cost flow).
fn lower_bound(old: &Owners, topics: &[String], per_topic: &HashMap<String, usize>, ids: &[String]) -> usize {
    let c = ids.len();
    let index: HashMap<&str, usize> = ids.iter().enumerate().map(|(i, s)| (s.as_str(), i)).collect();
    let mut n = vec![vec![0usize; c]; topics.len()];
    let tindex: HashMap<&str, usize> = topics.iter().enumerate().map(|(i, s)| (s.as_str(), i)).collect();
    for (q, o) in old {
        if let Some(&m) = index.get(o.as_str()) {
            n[tindex[&*q.topic]][m] += 1;
        }
    }
    let total: usize = per_topic.values().sum();
    let mut kept = 0;
    let mut r = vec![0usize; topics.len()];
    for (t, name) in topics.iter().enumerate() {
        let b = per_topic[name] / c;
        r[t] = per_topic[name] % c;
        kept += n[t].iter().map(|&x| x.min(b)).sum::<usize>();
    }
    let e: usize = r.iter().sum();
    let (lo, hi) = (e / c, e.div_ceil(c));
    // Nodes: 0 source, 1..=T topics, T+1..=T+C members, T+C+1 sink.
    let (s, tt) = (0, topics.len() + c + 1);
    let mut g = Flow::new(tt + 1);
    for t in 0..topics.len() {
        g.edge(s, 1 + t, r[t] as i64, 0);
        for m in 0..c {
            let b = per_topic[&topics[t]] / c;
            let gain = i64::from(n[t][m] > b);
            g.edge(1 + t, 1 + topics.len() + m, 1, -gain);
        }
    }
    const BIG: i64 = 1 << 20;
    for m in 0..c {
        g.edge(1 + topics.len() + m, tt, lo as i64, -BIG);
        g.edge(1 + topics.len() + m, tt, (hi - lo) as i64, 0);
    }
    let cost = g.min_cost_flow(s, tt);
    let gain = (-(cost + BIG * (lo * c) as i64)) as usize;
    total - kept - gain
}

struct Flow {
    to: Vec<usize>,
    cap: Vec<i64>,
    cost: Vec<i64>,
    adj: Vec<Vec<usize>>,
}

impl Flow {
    fn new(n: usize) -> Self {
        Flow { to: Vec::new(), cap: Vec::new(), cost: Vec::new(), adj: vec![Vec::new(); n] }
    }
    fn edge(&mut self, a: usize, b: usize, cap: i64, cost: i64) {
        for (x, y, c, w) in [(a, b, cap, cost), (b, a, 0, -cost)] {
            self.adj[x].push(self.to.len());
            self.to.push(y);
            self.cap.push(c);
            self.cost.push(w);
        }
    }
    /// Successive shortest paths (SPFA); returns the cost of a maximum flow.
    fn min_cost_flow(&mut self, s: usize, t: usize) -> i64 {
        let n = self.adj.len();
        let mut total = 0;
        loop {
            let mut dist = vec![i64::MAX; n];
            let mut prev = vec![usize::MAX; n];
            let mut queued = vec![false; n];
            let mut queue = std::collections::VecDeque::from([s]);
            dist[s] = 0;
            while let Some(u) = queue.pop_front() {
                queued[u] = false;
                for &e in &self.adj[u] {
                    let v = self.to[e];
                    if self.cap[e] > 0 && dist[u] + self.cost[e] < dist[v] {
                        dist[v] = dist[u] + self.cost[e];
                        prev[v] = e;
                        if !queued[v] {
                            queued[v] = true;
                            queue.push_back(v);
                        }
                    }
                }
            }
            if dist[t] == i64::MAX {
                return total;
            }
            let mut push = i64::MAX;
            let mut v = t;
            while v != s {
                push = push.min(self.cap[prev[v]]);
                v = self.to[prev[v] ^ 1];
            }
            let mut v = t;
            while v != s {
                self.cap[prev[v]] -= push;
                self.cap[prev[v] ^ 1] += push;
                v = self.to[prev[v] ^ 1];
            }
            total += push * dist[t];
        }
    }
}

fn moved(before: &Owners, after: &Owners) -> usize {
    before.iter().filter(|(q, o)| after.get(*q) != Some(*o)).count()
}

fn main() {
    let strategies: [(&str, fn(&[MessageQueue], &[String]) -> Owners); 4] = [
        ("BALANCED_STICKY", sticky),
        ("AVG", |q, i| java("averagely", q, i)),
        ("AVG_BY_CIRCLE", |q, i| java("circle", q, i)),
        ("CONSISTENT_HASH", |q, i| java("consistent_hash", q, i)),
    ];
    let mut sums: HashMap<&str, (usize, usize)> = HashMap::new();
    let cost_only = std::env::args().any(|a| a == "--cost-only");
    println!("topics x queues/topic x members: moved / lower bound on join, on leave");
    for topics in if cost_only { vec![] } else { vec![1usize, 4, 50, 200] } {
        for per in [2usize, 4, 8, 16, 64] {
            for members in [2usize, 3, 5, 12, 64] {
                let names: Vec<String> = (0..topics).map(|t| format!("Topic{t}")).collect();
                let mq: Vec<MessageQueue> = names.iter().flat_map(|t| (0..per).map(move |q| MessageQueue::new(t.as_str(), "broker-a", q as i32))).collect();
                let per_topic: HashMap<String, usize> = names.iter().map(|t| (t.clone(), per)).collect();
                let ids: Vec<String> = (0..members).map(|i| format!("10.0.{}.{}@{}", i / 200, i % 200, 4000 + i)).collect();
                let mut joined = ids.clone();
                joined.push("10.9.9.9@1".to_string());
                let mut left = ids.clone();
                left.remove(members / 2);
                let mut line = format!("{topics:>3} x {per:>2} x {members:>2}:");
                for (name, f) in &strategies {
                    let before = f(&mq, &ids);
                    let (after_join, after_leave) = (f(&mq, &joined), f(&mq, &left));
                    let (mj, ml) = (moved(&before, &after_join), moved(&before, &after_leave));
                    let (lj, ll) = (lower_bound(&before, &names, &per_topic, &joined), if left.is_empty() { 0 } else { lower_bound(&before, &names, &per_topic, &left) });
                    let entry = sums.entry(name).or_default();
                    entry.0 += mj + ml;
                    entry.1 += lj + ll;
                    line += &format!("  {name} {:.2}/{:.2}", mj as f64 / lj.max(1) as f64, ml as f64 / ll.max(1) as f64);
                }
                println!("{line}");
            }
        }
    }
    for (name, _) in strategies.iter().filter(|_| !cost_only) {
        let (m, l) = sums[name];
        println!("{name}: moved {m}, lower bound {l}, ratio {:.2}", m as f64 / l as f64);
    }

    // Cost of the whole-group view at 100,000 queues x 1,000 members, side by side with
    // consistent hash's group view (median of 5 each, alternated).
    let mq: Vec<MessageQueue> = (0..100_000).map(|i| MessageQueue::new(format!("Topic{}", i % 100), "broker-a", i / 100)).collect();
    let ids: Vec<String> = (0..1000).map(|i| format!("10.0.{}.{}@{}", i / 200, i % 200, 4000 + i)).collect();
    let ch = strategy_from_config("consistent_hash", &serde_json::Value::Null).unwrap();
    let (mut t_sticky, mut t_ch) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        let t0 = std::time::Instant::now();
        std::hint::black_box(balanced_sticky::assign(&mq, &ids));
        t_sticky.push(t0.elapsed().as_secs_f64());
        let t0 = std::time::Instant::now();
        std::hint::black_box(ch.allocate_group("g", &mq, &ids).unwrap());
        t_ch.push(t0.elapsed().as_secs_f64());
    }
    t_sticky.sort_by(f64::total_cmp);
    t_ch.sort_by(f64::total_cmp);
    println!(
        "group view, 100,000 queues (100 topics) x 1,000 members: BALANCED_STICKY {:.1} ms, CONSISTENT_HASH {:.1} ms, ratio {:.2}",
        t_sticky[2] * 1e3,
        t_ch[2] * 1e3,
        t_sticky[2] / t_ch[2]
    );
}
