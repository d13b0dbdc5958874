//! `inspect`'s diagnosis of a saved snapshot: 50 clients and 10,000 queues (10 topics of 1,000),
//! each client holding its AVG share. Stated: every client's properties name Java's AVG class.
//! Fingerprinted: nobody states a strategy, so each client is matched against every known one
//! (the worst case: AVG is found first, but the rings are still computed for the ambiguity check).
//! Beside them, the unavoidable work: parsing the snapshot's JSON.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use rocketmq_rebalance::diagnose::{diagnose_with, parse_snapshot, BrokerMembers, ClientConnection, ClientState, HeldQueue, RunningState, Snapshot};
use rocketmq_rebalance::strategy::Averagely;
use rocketmq_rebalance::{java_order, MessageQueue, Strategy};

const CLIENTS: usize = 50;
const TOPICS: usize = 10;
const QUEUES_PER_TOPIC: usize = 1_000;

fn snapshot(stated: bool) -> Snapshot {
    let mut ids: Vec<String> = (0..CLIENTS).map(|i| format!("10.0.0.{i}@{}", 4000 + i)).collect();
    java_order::sort_client_ids(&mut ids);
    let mut topics = BTreeMap::new();
    let mut held: BTreeMap<String, Vec<HeldQueue>> = BTreeMap::new();
    for t in 0..TOPICS {
        let topic = format!("T{t}");
        let mut queues: Vec<MessageQueue> =
            (0..QUEUES_PER_TOPIC).map(|i| MessageQueue::new(topic.as_str(), format!("broker-{}", i % 4), (i / 4) as i32)).collect();
        java_order::sort_queues(&mut queues);
        for id in &ids {
            let share = Averagely.allocate("G", id, &queues, &ids).expect("valid input");
            held.entry(id.clone()).or_default().extend(share.into_iter().map(|queue| HeldQueue {
                queue,
                dropped: false,
                locked: false,
                last_lock_ms: 0,
                last_pull_ms: 0,
            }));
        }
        topics.insert(topic, queues);
    }
    let props: BTreeMap<String, String> = if stated {
        [("allocateMessageQueueStrategy".to_owned(), "org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely@1".to_owned())].into()
    } else {
        BTreeMap::new()
    };
    Snapshot {
        group: "G".into(),
        taken_at_ms: 0,
        topics,
        brokers: vec![BrokerMembers { broker: "broker-0".into(), addr: "b:1".into(), consumer_ids: Some(ids.clone()), error: None }],
        connections: ids
            .iter()
            .map(|id| ClientConnection { client_id: id.clone(), client_addr: format!("{id}:1"), language: "JAVA".into(), version: 1 })
            .collect(),
        clients: ids
            .iter()
            .map(|id| ClientState {
                client_id: id.clone(),
                running: Some(RunningState { properties: props.clone(), held: held.remove(id).unwrap_or_default(), ..RunningState::default() }),
                error: None,
            })
            .collect(),
        ..Snapshot::default()
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("diagnose_50x10000");
    g.measurement_time(Duration::from_secs(5)).sample_size(10);
    for (name, stated) in [("stated", true), ("fingerprinted", false)] {
        let s = snapshot(stated);
        let d = diagnose_with(&s, &BTreeMap::new());
        assert!(d.healthy(), "the benchmark's group must be healthy: {:?}", d.findings.first());
        g.bench_function(name, |b| b.iter(|| black_box(diagnose_with(black_box(&s), &BTreeMap::new()))));
    }
    let text = serde_json::to_string(&snapshot(true)).expect("serialisable");
    g.bench_function("parse_snapshot_json", |b| b.iter(|| black_box(parse_snapshot(black_box(&text)).expect("valid"))));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
