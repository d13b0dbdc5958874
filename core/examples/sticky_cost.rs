//! The whole-group view of BALANCED_STICKY (and BALANCED_STICKY_V2) against consistent hash's at 100,000 queues x 1,000
//! members, for topic counts from 1 to 100,000 (and 10,000 topics at 100 and 5,000 members, to
//! show the cost does not follow queues x members), alternated 9 times in one run, the fastest of
//! each (noise on a shared machine only ever adds time, so the minimum is the steadiest estimate):
//! `cargo run --release -p rocketmq-rebalance --example sticky_cost` (`-- TOPICS MEMBERS` for one
//! case, under a profiler say). (Movement and balance over
//! the grid: `rmq-rebalance compare`; the 100-topic case is also a criterion group.)

use std::time::Instant;

use rocketmq_rebalance::{strategy_from_config, MessageQueue};

fn fastest(v: Vec<f64>) -> f64 {
    v.into_iter().fold(f64::INFINITY, f64::min)
}

fn main() {
    let sticky = strategy_from_config("balanced_sticky", &serde_json::Value::Null).expect("known strategy");
    let slack = strategy_from_config("balanced_sticky", &serde_json::json!({ "total_slack": 2 })).expect("known strategy");
    let v2 = strategy_from_config("balanced_sticky_v2", &serde_json::Value::Null).expect("known strategy");
    println!("| topics x queues each | members | BALANCED_STICKY | BALANCED_STICKY-slack:2 | BALANCED_STICKY_V2 | CONSISTENT_HASH, new instance | ratio | slack:2 ratio | V2 ratio |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("TOPICS MEMBERS: numbers")).collect();
    let cases = match args[..] {
        [topics, members] => vec![(topics, members)],
        _ => vec![(1usize, 1000usize), (100, 1000), (1000, 1000), (10_000, 1000), (100_000, 1000), (10_000, 100), (10_000, 5000)],
    };
    for (topics, members) in cases {
        let per = 100_000 / topics;
        let mq: Vec<MessageQueue> = (0..topics * per).map(|i| MessageQueue::new(format!("Topic{}", i % topics), "broker-a", (i / topics) as i32)).collect();
        let ids: Vec<String> = (0..members).map(|i| format!("10.{}.{}.{}@{}", i / 40_000, i / 200 % 200, i % 200, 4000 + i)).collect();
        let (mut t_sticky, mut t_slack, mut t_v2, mut t_ch) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for _ in 0..9 {
            let t0 = Instant::now();
            std::hint::black_box(sticky.allocate_group("g", &mq, &ids).unwrap());
            t_sticky.push(t0.elapsed().as_secs_f64());
            let t0 = Instant::now();
            std::hint::black_box(slack.allocate_group("g", &mq, &ids).unwrap());
            t_slack.push(t0.elapsed().as_secs_f64());
            let t0 = Instant::now();
            std::hint::black_box(v2.allocate_group("g", &mq, &ids).unwrap());
            t_v2.push(t0.elapsed().as_secs_f64());
            // A new instance: consistent hash remembers its ring and its keys' digests, which
            // BALANCED_STICKY does not, so both compute everything.
            let ch = strategy_from_config("consistent_hash", &serde_json::Value::Null).expect("known strategy");
            let t0 = Instant::now();
            std::hint::black_box(ch.allocate_group("g", &mq, &ids).unwrap());
            t_ch.push(t0.elapsed().as_secs_f64());
        }
        let (s, l, v, c) = (fastest(t_sticky), fastest(t_slack), fastest(t_v2), fastest(t_ch));
        println!(
            "| {topics} x {per} | {members} | {:.1} ms | {:.1} ms | {:.1} ms | {:.1} ms | {:.2} | {:.2} | {:.2} |",
            s * 1e3,
            l * 1e3,
            v * 1e3,
            c * 1e3,
            s / c,
            l / c,
            v / c
        );
    }
}
