//! The whole-group view of BALANCED_STICKY against consistent hash's at 100,000 queues (100
//! topics) x 1,000 members, alternated 5 times in one run, medians:
//! `cargo run --release -p rocketmq-rebalance --example sticky_cost`. (Movement and balance over
//! the grid: `rmq-rebalance compare`.)

use std::time::Instant;

use rocketmq_rebalance::{strategy_from_config, MessageQueue};

fn main() {
    let mq: Vec<MessageQueue> = (0..100_000).map(|i| MessageQueue::new(format!("Topic{}", i % 100), "broker-a", i / 100)).collect();
    let ids: Vec<String> = (0..1000).map(|i| format!("10.0.{}.{}@{}", i / 200, i % 200, 4000 + i)).collect();
    let sticky = strategy_from_config("balanced_sticky", &serde_json::Value::Null).expect("known strategy");
    let ch = strategy_from_config("consistent_hash", &serde_json::Value::Null).expect("known strategy");
    let (mut t_sticky, mut t_ch) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        let t0 = Instant::now();
        std::hint::black_box(sticky.allocate_group("g", &mq, &ids).unwrap());
        t_sticky.push(t0.elapsed().as_secs_f64());
        let t0 = Instant::now();
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
