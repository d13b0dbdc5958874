//! Strategy cost, one member and whole group, next to the unavoidable work it is judged against:
//! one pass over the queue list, and MD5-hashing every queue key (consistent hash).
//! `scripts/bench/report.py` turns the results into the ratio table of the README.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use md5::{Digest, Md5};
use rocketmq_rebalance::md5_batch::{ring_hashes, Md5Path};
use rocketmq_rebalance::strategy::{Averagely, AveragelyByCircle, BalancedSticky, ByMachineRoom, ConsistentHash, MachineRoomNearby, SeparatorResolver};
use rocketmq_rebalance::{java_order, MessageQueue, Strategy};

const SIZES: &[(usize, usize)] = &[(16, 4), (1_000, 100), (100_000, 1_000)];

fn input(n: usize, m: usize) -> (Vec<MessageQueue>, Vec<String>) {
    let rooms = ["hz", "sh"];
    let mut queues: Vec<MessageQueue> = (0..n).map(|i| MessageQueue::new("TopicA", format!("{}@broker-{}", rooms[i % 2], i % 8), (i / 8) as i32)).collect();
    let mut ids: Vec<String> = (0..m).map(|i| format!("{}@10.0.{}.{}@{}", rooms[i % 2], i / 250, i % 250, 4000 + i)).collect();
    java_order::sort_queues(&mut queues);
    java_order::sort_client_ids(&mut ids);
    (queues, ids)
}

fn strategies() -> Vec<(&'static str, Arc<dyn Strategy>)> {
    vec![
        ("AVG", Arc::new(Averagely)),
        ("AVG_BY_CIRCLE", Arc::new(AveragelyByCircle)),
        ("CONSISTENT_HASH", Arc::new(ConsistentHash::default())),
        ("MACHINE_ROOM_NEARBY-AVG", Arc::new(MachineRoomNearby::new(Arc::new(Averagely), Arc::new(SeparatorResolver::new("@", "@").unwrap())))),
        ("MACHINE_ROOM", Arc::new(ByMachineRoom::new(Some(["hz".to_string()].into_iter().collect())))),
        ("BALANCED_STICKY", Arc::new(BalancedSticky::default())),
    ]
}

/// BALANCED_STICKY's whole-group view over many topics (its cross-topic case) next to consistent
/// hash's at the same size: 100,000 queues in 100 topics, 1,000 members (the bound: 3x).
fn many_topics(c: &mut Criterion) {
    let queues: Vec<MessageQueue> = (0..100_000).map(|i| MessageQueue::new(format!("Topic{}", i % 100), "broker-a", i / 100)).collect();
    let ids: Vec<String> = (0..1000).map(|i| format!("10.0.{}.{}@{}", i / 200, i % 200, 4000 + i)).collect();
    let mut g = c.benchmark_group("group_view_100_topics/100000x1000");
    g.sample_size(10);
    let pair: [(&str, Arc<dyn Strategy>); 2] =
        [("CONSISTENT_HASH", Arc::new(ConsistentHash::default())), ("BALANCED_STICKY", Arc::new(BalancedSticky::default()))];
    for (name, s) in pair {
        g.bench_function(name, |b| b.iter(|| s.allocate_group("g", black_box(&queues), &ids).unwrap()));
    }
    g.finish();
}

fn bench(c: &mut Criterion) {
    for &(n, m) in SIZES {
        let (queues, ids) = input(n, m);
        let size = format!("{n}x{m}");
        let current = &ids[m / 2];
        let mut g = c.benchmark_group(format!("strategies/{size}"));
        if n >= 100_000 {
            g.sample_size(10);
        }
        // Baseline 1: touch every queue once (what any allocation must at least do).
        g.bench_function("baseline/one_pass", |b| b.iter(|| black_box(&queues).iter().map(|q| q.queue_id as usize ^ q.broker_name.len()).sum::<usize>()));
        // Baseline 2: the key and MD5 of every queue, the work consistent hash cannot avoid.
        g.bench_function("baseline/md5_queue_keys", |b| {
            let mut key = String::new();
            let mut h = Md5::new();
            b.iter(|| {
                let mut acc = 0u32;
                for q in black_box(&queues) {
                    q.write_java_string(&mut key);
                    h.update(key.as_bytes());
                    let d = h.finalize_reset();
                    acc ^= u32::from_be_bytes([d[0], d[1], d[2], d[3]]);
                }
                acc
            })
        });
        // The same keys through each MD5 path this CPU has, many at once (the strategies use the
        // best one, or the one RMQ_REBALANCE_MD5 names).
        for path in Md5Path::available() {
            g.bench_function(BenchmarkId::new("md5_queue_keys_batch", path.name()), |b| {
                b.iter(|| ring_hashes(path, queues.len(), |i, key| black_box(&queues)[i].write_java_bytes(key)))
            });
        }
        for (name, s) in strategies() {
            g.bench_with_input(BenchmarkId::new("one_member", name), &(), |b, _| {
                b.iter(|| s.allocate_positions("g", current, black_box(&queues), &ids).unwrap())
            });
            g.bench_with_input(BenchmarkId::new("group", name), &(), |b, _| b.iter(|| s.allocate_group("g", black_box(&queues), &ids).unwrap()));
        }
        // `one_member/CONSISTENT_HASH` above is warm: the same route every call, as in a round
        // after an unchanged one. Cold route: the ring is kept (same ids), the queue list is new
        // to the instance, so every key is hashed (the setup, not timed, builds the ring).
        g.bench_function("one_member_cold_route/CONSISTENT_HASH", |b| {
            // `_ref`: the instance (and the digests it kept) is dropped outside the timing.
            b.iter_batched_ref(
                || {
                    let s = ConsistentHash::default();
                    s.allocate_positions("g", current, &queues[..1], &ids).unwrap();
                    s
                },
                |s| s.allocate_positions("g", current, black_box(&queues), &ids).unwrap(),
                criterion::BatchSize::LargeInput,
            )
        });
        // A fresh instance every time: the ring is built from scratch and every key hashed (the
        // first call after a change of the id list and of the route).
        g.bench_function("one_member_cold_ring/CONSISTENT_HASH", |b| {
            b.iter(|| ConsistentHash::default().allocate_positions("g", current, black_box(&queues), &ids).unwrap())
        });
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2)).sample_size(20);
    targets = bench, many_topics
}
criterion_main!(benches);
