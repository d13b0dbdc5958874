//! BALANCED_STICKY's answers on larger groups than the golden file holds (up to 300 members, 60
//! topics, 200 queues a topic, queues listed twice, lists shuffled; exact, with a total slack,
//! and weighted), fingerprinted. Every client in a group must compute the same answers, so a
//! change here is a new algorithm (a new name and new golden answers), never a side effect of
//! making it faster. The digest was produced by commit e8e923b, before the speed work of
//! f7239b9, and the code since gives the same.

use md5::{Digest, Md5};
use rocketmq_rebalance::{strategy_from_config, MessageQueue};

/// xorshift64: the groups must be the same on every machine and in every version of any crate.
struct Xorshift(u64);

impl Xorshift {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn group(rnd: &mut Xorshift, case: u64) -> (Vec<MessageQueue>, Vec<String>) {
    let topics = 1 + rnd.below(60);
    let members = 1 + rnd.below(if case.is_multiple_of(4) { 300 } else { 40 });
    let mut mq = Vec::new();
    for t in 0..topics {
        let n = 1 + rnd.below(if case.is_multiple_of(3) { 200 } else { 20 });
        let brokers = 1 + rnd.below(3);
        for i in 0..n {
            mq.push(MessageQueue::new(format!("T{t}-{case}"), format!("b{}", i % brokers), (i / brokers) as i32));
        }
    }
    if case.is_multiple_of(5) {
        let n = mq.len();
        for i in 0..n / 10 {
            let copy = mq[i * 7 % n].clone();
            mq.push(copy);
        }
    }
    for i in (1..mq.len()).rev() {
        let j = rnd.below(i as u64 + 1) as usize;
        mq.swap(i, j);
    }
    let ids = (0..members).map(|i| format!("10.0.0.{}@{}#{}", i % 7, i, rnd.below(1000))).collect();
    (mq, ids)
}

#[test]
fn balanced_sticky_answers_are_unchanged_on_larger_groups() {
    let mut rnd = Xorshift(12345);
    let mut text = String::new();
    let configs =
        [serde_json::Value::Null, serde_json::json!({"total_slack": 2}), serde_json::json!({"weights": {"10.0.0.1": 3, "10.0.0.2": 2}, "stable_key": "host"})];
    for config in configs {
        let strategy = strategy_from_config("balanced_sticky", &config).unwrap();
        for case in 0..400 {
            let (mq, ids) = group(&mut rnd, case);
            for member in strategy.allocate_group("g", &mq, &ids).unwrap().members {
                let positions: Option<Vec<usize>> = member.allocation.positions().map(Iterator::collect);
                text.push_str(&format!("{}:{positions:?};", member.client_id));
            }
            text.push('\n');
        }
    }
    assert_eq!(format!("{:x}", Md5::digest(text.as_bytes())), "1ef5243da1d5861937f01d10ca8262f9");
}
