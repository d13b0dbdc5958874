//! One-member allocation on the Rust API, timed: the Rust half of scripts/bench/ffi.sh, whose C
//! half (ffi/bench/bench_allocate.c) times the same calls through the C API with the same loop.
//! Prints one line per (strategy, call): "rust <strategy> <call> <queues> <ids> <ns per call>".

use std::hint::black_box;
use std::time::Instant;

use rocketmq_rebalance::{java_order, strategy_from_config, MessageQueue};

fn bench(name: &str, queues_n: i32, ids_n: usize, iterations: usize) {
    // Consistent hash costs ~100x AVG per call: fewer iterations keep the run short (as in C).
    let iterations = if name == "consistent_hash" { iterations / 20 } else { iterations };
    let strategy = strategy_from_config(name, &serde_json::Value::Null).expect("known strategy");
    let queues: Vec<MessageQueue> = (0..queues_n).map(|i| MessageQueue::new("TopicA", "broker-a", i)).collect();
    let mut ids: Vec<String> = (0..ids_n).map(|i| format!("10.0.0.{i}@{}", 1000 + i)).collect();
    java_order::sort_client_ids(&mut ids);
    let mut sink = 0usize;

    for it in 0..iterations / 10 {
        sink += strategy.allocate_positions("GID", &ids[it % ids_n], &queues, &ids).unwrap().len();
    }
    let t0 = Instant::now();
    for it in 0..iterations {
        let allocation = strategy.allocate_positions("GID", black_box(&ids[it % ids_n]), black_box(&queues), black_box(&ids)).unwrap();
        // The C call writes the positions out; so does this.
        sink += allocation.positions().map_or(0, |p| p.sum::<usize>());
    }
    let per_call = t0.elapsed().as_nanos() as f64 / iterations as f64;
    println!("rust {name} positions {queues_n} {ids_n} {per_call:.1}");
    // The C API's id-list call is the same Rust call (the ids already Rust strings).
    println!("rust {name} positions_ids {queues_n} {ids_n} {per_call:.1}");

    let t0 = Instant::now();
    for it in 0..iterations {
        sink += strategy.allocate("GID", black_box(&ids[it % ids_n]), black_box(&queues), black_box(&ids)).unwrap().len();
    }
    let per_call = t0.elapsed().as_nanos() as f64 / iterations as f64;
    println!("rust {name} list {queues_n} {ids_n} {per_call:.1}");
    black_box(sink);
}

fn main() {
    let iterations: usize = std::env::args().nth(1).map_or(2_000_000, |a| a.parse().expect("an iteration count"));
    for name in ["averagely", "circle", "consistent_hash"] {
        bench(name, 16, 4, iterations);
    }
    for name in ["averagely", "circle", "consistent_hash"] {
        bench(name, 1000, 100, iterations / 100);
    }
}
