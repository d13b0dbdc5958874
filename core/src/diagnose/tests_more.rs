//! Fingerprints, mixed strategies and subscriptions, stuck locks, idle pulls, what is not judged,
//! and lag. Expected shares come from the strategies themselves, each checked against the real
//! client that defines it (tests/vectors), so the answers here are the clients' own.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::*;

fn q(id: i32) -> MessageQueue {
    MessageQueue::new("T", "broker-a", id)
}

fn queues() -> Vec<MessageQueue> {
    (0..8).map(q).collect()
}

const IDS: [&str; 3] = ["10.0.0.1@1", "10.0.0.2@1", "10.0.0.3@1"];

/// What `id` gets from `strategy` over the 8 queues and the 3 ids.
fn share(strategy: &Named, id: &str) -> Vec<MessageQueue> {
    let ids: Vec<String> = IDS.iter().map(|s| (*s).to_owned()).collect();
    strategy.strategy.allocate("G", id, &queues(), &ids).unwrap()
}

fn holding(queues: &[MessageQueue]) -> Vec<HeldQueue> {
    queues.iter().map(|q| HeldQueue { queue: q.clone(), dropped: false, locked: false, last_lock_ms: 0, last_pull_ms: 0 }).collect()
}

/// A group of the 3 ids, each with its language and what it holds.
fn group(members: &[(&str, &str, Vec<HeldQueue>)]) -> Snapshot {
    Snapshot {
        group: "G".into(),
        taken_at_ms: 1_000_000,
        topics: [("T".to_owned(), queues())].into(),
        brokers: vec![BrokerMembers {
            broker: "broker-a".into(),
            addr: "a:1".into(),
            consumer_ids: Some(members.iter().map(|m| m.0.to_owned()).collect()),
            error: None,
        }],
        connections: members
            .iter()
            .map(|(id, lang, _)| ClientConnection { client_id: (*id).into(), client_addr: format!("{id}:1"), language: (*lang).into(), version: 1 })
            .collect(),
        clients: members
            .iter()
            .map(|(id, _, held)| ClientState {
                client_id: (*id).into(),
                running: Some(RunningState { held: held.clone(), ..RunningState::default() }),
                error: None,
            })
            .collect(),
        ..Snapshot::default()
    }
}

fn kinds(d: &Diagnosis) -> Vec<FindingKind> {
    d.findings.iter().map(|f| f.kind).collect()
}

fn go_ring() -> Named {
    Named::from_config("go_consistent_hash", &json!({"virtual_node_count": 10})).unwrap()
}

#[test]
fn a_go_client_on_its_own_ring_is_fingerprinted() {
    let ring = go_ring();
    let s = group(&IDS.map(|id| (id, "GO", holding(&share(&ring, id)))));
    let d = diagnose_with(&s, &BTreeMap::new());
    assert!(d.healthy(), "{:?}", d.findings);
    for c in &d.strategies {
        assert_eq!((c.source, c.strategy.as_deref()), (StrategySource::Fingerprint, Some(r#"go_consistent_hash{"virtual_node_count":10}"#)), "{c:?}");
    }
    assert!(d.queues.iter().all(|r| r.expected == r.holders && r.if_agreed == r.holders));
}

#[test]
fn java_and_go_rings_side_by_side_are_mixed_strategies() {
    let java = Named::from_config("consistent_hash", &json!({"virtual_node_count": 10})).unwrap();
    let (go, j) = (go_ring(), java.clone());
    let s = group(&[(IDS[0], "GO", holding(&share(&go, IDS[0]))), (IDS[1], "GO", holding(&share(&go, IDS[1]))), (IDS[2], "JAVA", holding(&share(&j, IDS[2])))]);
    let given: BTreeMap<String, Named> = [("JAVA".to_owned(), java)].into();
    let d = diagnose_with(&s, &given);
    let mixed = d.findings.iter().find(|f| f.kind == FindingKind::MixedStrategies).expect("mixed strategies");
    assert!(mixed.detail.contains("go_consistent_hash") && mixed.detail.contains(IDS[2]), "{}", mixed.detail);
    // Most members run Go's ring: "if every client agreed" is Go's map.
    for r in &d.queues {
        let owner: Vec<String> = IDS.iter().filter(|id| share(&go, id).contains(&r.queue)).map(|s| (*s).to_owned()).collect();
        assert_eq!(r.if_agreed, owner, "{}", r.queue);
    }
    // Whatever the two rings disagree on is orphaned or held twice, exactly as computed.
    let held_by = |q: &MessageQueue| -> usize {
        usize::from(share(&go, IDS[0]).contains(q)) + usize::from(share(&go, IDS[1]).contains(q)) + usize::from(share(&j, IDS[2]).contains(q))
    };
    let orphans: Vec<MessageQueue> = queues().into_iter().filter(|q| held_by(q) == 0).collect();
    let doubles = queues().into_iter().filter(|q| held_by(q) > 1).count();
    let found_orphans = d.findings.iter().find(|f| f.kind == FindingKind::Orphaned).map(|f| f.queues.clone()).unwrap_or_default();
    assert_eq!(found_orphans, orphans);
    assert_eq!(kinds(&d).iter().filter(|k| **k == FindingKind::DoubleHeld).count(), doubles);
    assert!(!orphans.is_empty() || doubles > 0, "the two rings agree on this input: pick another");
}

#[test]
fn a_client_nobody_can_reproduce_is_unknown() {
    // 10.0.0.1 holds the odd queues, 10.0.0.2 the even ones, 10.0.0.3 nothing: no strategy here
    // gives a member of three exactly half of eight queues while another gets none.
    let odd: Vec<MessageQueue> = (0..8).filter(|i| i % 2 == 1).map(q).collect();
    let even: Vec<MessageQueue> = (0..8).filter(|i| i % 2 == 0).map(q).collect();
    let s = group(&[(IDS[0], "GO", holding(&odd)), (IDS[1], "GO", holding(&even)), (IDS[2], "GO", Vec::new())]);
    let d = diagnose_with(&s, &BTreeMap::new());
    assert!(d.strategies.iter().all(|c| c.source == StrategySource::Unknown && c.strategy.is_none()), "{:?}", d.strategies);
    assert!(d.queues.iter().all(|r| r.expected.is_empty()));
}

fn subscribe(s: &mut Snapshot, client: usize, subs: &[(&str, &str)]) {
    let running = s.clients[client].running.as_mut().unwrap();
    running.subscriptions =
        subs.iter().map(|(t, e)| Subscription { topic: (*t).into(), expression: (*e).into(), expression_type: "TAG".into(), sub_version: 1 }).collect();
}

#[test]
fn members_subscribing_differently_are_named() {
    let avg = Named::from_config("averagely", &serde_json::Value::Null).unwrap();
    let mut s = group(&IDS.map(|id| (id, "JAVA", holding(&share(&avg, id)))));
    subscribe(&mut s, 0, &[("T", "*"), ("%RETRY%G", "*"), ("U", "*")]);
    subscribe(&mut s, 1, &[("T", "*"), ("U", "a || b")]);
    subscribe(&mut s, 2, &[("T", "*")]);
    let d = diagnose(&s, &|_| Some(avg.clone()));
    let mixed: Vec<&Finding> = d.findings.iter().filter(|f| f.kind == FindingKind::MixedSubscriptions).collect();
    assert_eq!(mixed.len(), 1, "only U differs (T alike, the retry topic ignored): {mixed:?}");
    assert_eq!(mixed[0].topic.as_deref(), Some("U"));
    assert!(mixed[0].detail.contains("not subscribed (10.0.0.3@1)") && mixed[0].detail.contains("consumed by nobody"), "{}", mixed[0].detail);
}

fn orderly(s: &mut Snapshot, client: usize) {
    s.clients[client].running.as_mut().unwrap().properties.insert("PROP_CONSUMEORDERLY".into(), "true".into());
}

#[test]
fn an_orderly_queue_refused_past_the_lock_expiry_is_stuck_and_an_idle_one_not_pulled() {
    let avg = Named::from_config("averagely", &serde_json::Value::Null).unwrap();
    let mut s = group(&IDS.map(|id| (id, "JAVA", holding(&share(&avg, id)))));
    let now = s.taken_at_ms;
    for c in &mut s.clients {
        for h in &mut c.running.as_mut().unwrap().held {
            (h.locked, h.last_lock_ms, h.last_pull_ms) = (true, now - 1_000, now - 1_000);
        }
    }
    orderly(&mut s, 0);
    // Client 0's first queue: refused for 61 s. Client 1's (not orderly) first: unpulled for 61 s.
    // Client 0's second: refused for 59 s, within the expiry, and client 1's second unpulled for
    // 59 s, within the idle limit: nothing yet.
    let a = &mut s.clients[0].running.as_mut().unwrap().held;
    (a[0].locked, a[0].last_lock_ms) = (false, now - 61_000);
    (a[1].locked, a[1].last_lock_ms) = (false, now - 59_000);
    s.clients[1].running.as_mut().unwrap().held[0].last_pull_ms = now - 61_000;
    s.clients[1].running.as_mut().unwrap().held[1].last_pull_ms = now - 59_000;
    s.offsets = vec![QueueOffsets { queue: share(&avg, IDS[0])[0].clone(), broker_offset: 50, consumer_offset: 8 }];
    let d = diagnose(&s, &|_| Some(avg.clone()));
    assert_eq!(kinds(&d), [FindingKind::OrderlyLockStuck, FindingKind::NotPulled], "{:?}", d.findings);
    assert_eq!((d.findings[0].queues.clone(), d.findings[0].lag), (vec![share(&avg, IDS[0])[0].clone()], Some(42)));
    assert_eq!(d.findings[1].queues, [share(&avg, IDS[1])[0].clone()]);
    assert_eq!(d.queues.iter().find(|r| r.queue == share(&avg, IDS[0])[0]).unwrap().lag, Some(42));
}

#[test]
fn broadcasting_and_pop_are_said_not_judged() {
    let avg = Named::from_config("averagely", &serde_json::Value::Null).unwrap();
    let mut s = group(&IDS.map(|id| (id, "JAVA", holding(&queues()))));
    s.message_model = Some("BROADCASTING".into());
    let d = diagnose(&s, &|_| Some(avg.clone()));
    assert_eq!(kinds(&d), [FindingKind::NotJudged], "every client holds every queue: not double-held");
    let mut s = group(&IDS.map(|id| (id, "JAVA", Vec::new())));
    s.clients[0].running.as_mut().unwrap().pop_queues = vec![q(0)];
    let d = diagnose(&s, &|_| Some(avg.clone()));
    assert_eq!(kinds(&d), [FindingKind::NotJudged], "POP: nothing held is not orphaned");
    assert_eq!(d.findings[0].topic.as_deref(), Some("T"));
}

#[test]
fn snapshots_saved_before_the_new_fields_still_load() {
    let old = r#"{"group":"G","taken_at_ms":1,"topics":{},"brokers":[],"connections":[],
        "clients":[{"client_id":"a","running":{"properties":{},"held":[]}}]}"#;
    let s = parse_snapshot(old).unwrap();
    assert!(s.offsets.is_empty() && s.message_model.is_none());
}

/// `name()` is the JSON's spelling, and `ALL` lists every kind once, sorted as findings are.
#[test]
fn every_kind_is_listed_and_named_as_the_json_names_it() {
    for k in FindingKind::ALL {
        assert_eq!(serde_json::to_value(k).unwrap(), k.name());
    }
    let mut sorted = FindingKind::ALL.to_vec();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, FindingKind::ALL);
}

/// Two instances of one strategy agree even when one has allocated before (consistent hash caches
/// its last ring, which its `Debug` text shows), and parameters agree whatever their key order.
#[test]
fn members_on_one_strategy_are_not_mixed_whatever_each_instance_has_cached() {
    let used = Named::from_config("consistent_hash", &json!({"virtual_node_count": 10})).unwrap();
    let fresh = Named::from_config("consistent_hash", &json!({"virtual_node_count": 10})).unwrap();
    let s = group(&IDS.map(|id| (id, "JAVA", holding(&share(&used, id)))));
    let given: BTreeMap<String, Named> = [(IDS[0].to_owned(), used), (IDS[1].to_owned(), fresh.clone()), (IDS[2].to_owned(), fresh)].into();
    let d = diagnose_with(&s, &given);
    assert!(d.healthy(), "{:?}", d.findings);
    let a = Named::from_config("go_by_machine_room", &json!({"consume_idcs": ["x"]})).unwrap();
    let b = Named::from_config("go_by_machine_room", &serde_json::from_str(r#"{"consume_idcs":["x"]}"#).unwrap()).unwrap();
    assert_eq!(a.identity(), b.identity());
    let nested_a = Named::from_config("machine_room_nearby", &json!({"inner": "consistent_hash", "inner_params": {"virtual_node_count": 3}})).unwrap();
    let nested_b =
        Named::from_config("machine_room_nearby", &serde_json::from_str(r#"{"inner_params":{"virtual_node_count":3},"inner":"consistent_hash"}"#).unwrap())
            .unwrap();
    assert_eq!(nested_a.identity(), nested_b.identity());
}

/// A Java member on a class of its own (here one that takes every queue) beside two on Java's AVG:
/// the class is named as the member's strategy, and as one side of the mixed strategies that make
/// the double-held queues. AVG over 8 queues and the 3 sorted ids gives 10.0.0.1 queues 0-2 and
/// 10.0.0.2 queues 3-5 (Java's AVG: 8 = 3 + 3 + 2).
#[test]
fn a_custom_strategy_class_is_named_as_a_foreign_strategy() {
    let mut s = group(&[(IDS[0], "JAVA", holding(&queues()[0..3])), (IDS[1], "JAVA", holding(&queues()[3..6])), (IDS[2], "JAVA", holding(&queues()))]);
    let property = |c: &mut ClientState, v: &str| {
        c.running.as_mut().unwrap().properties.insert("allocateMessageQueueStrategy".into(), v.into());
    };
    property(&mut s.clients[0], "org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely@1b6d3586");
    property(&mut s.clients[1], "org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely@4554617c");
    property(&mut s.clients[2], "com.example.TakeEverything@74a14482");
    let d = diagnose_with(&s, &BTreeMap::new());
    let custom = d.strategies.iter().find(|c| c.client_id == IDS[2]).unwrap();
    assert_eq!((custom.strategy.as_deref(), custom.source), (Some("com.example.TakeEverything"), StrategySource::Foreign));
    let mixed = d.findings.iter().find(|f| f.kind == FindingKind::MixedStrategies).expect("the custom class is a strategy of its own");
    assert!(
        mixed.detail.contains("com.example.TakeEverything (10.0.0.3@1)") && mixed.detail.contains("averagely (10.0.0.1@1, 10.0.0.2@1)"),
        "{}",
        mixed.detail
    );
    // Queues 0-5 are held twice (AVG's owner and the custom class), 6-7 once (by the custom class).
    assert_eq!(kinds(&d).iter().filter(|k| **k == FindingKind::DoubleHeld).count(), 6);
}

#[test]
fn a_broker_that_did_not_answer_makes_the_read_partial_never_healthy() {
    let avg = |id: &str| share(&Named::from_config("averagely", &Value::Null).unwrap(), id);
    let mut s = group(&[(IDS[0], "JAVA", holding(&avg(IDS[0]))), (IDS[1], "JAVA", holding(&avg(IDS[1]))), (IDS[2], "JAVA", holding(&avg(IDS[2])))]);
    let stated: BTreeMap<String, Named> = [("JAVA".to_owned(), Named::from_config("averagely", &Value::Null).unwrap())].into();
    assert!(diagnose_with(&s, &stated).healthy());
    let error = "127.0.0.1:10921 did not answer within 5000 ms";
    s.brokers.push(BrokerMembers { broker: "broker-b".into(), addr: "127.0.0.1:10921".into(), consumer_ids: None, error: Some(error.into()) });
    let d = diagnose_with(&s, &stated);
    assert_eq!(kinds(&d), [FindingKind::BrokerUnreadable]);
    assert!(d.findings[0].detail.starts_with(&format!("broker-b at 127.0.0.1:10921 did not answer: {error}")), "{}", d.findings[0].detail);
}

#[test]
fn a_relay_timeout_is_recognised_in_each_brokers_wording() {
    for error in [
        "GET_CONSUMER_RUNNING_INFO refused with code 1: invokeSync call the addr[127.0.0.1:52344] timeout, 10000(ms)",
        "GET_CONSUMER_RUNNING_INFO refused with code 1: wait response on the channel <127.0.0.1:52344> timed out",
        "127.0.0.1:10911 did not answer within 15000 ms",
    ] {
        let mut s = group(&[(IDS[0], "JAVA", Vec::new()), (IDS[1], "JAVA", Vec::new()), (IDS[2], "JAVA", Vec::new())]);
        s.clients[0] = ClientState { client_id: IDS[0].into(), running: None, error: Some(error.into()) };
        let d = diagnose_with(&s, &BTreeMap::new());
        let silent = d.findings.iter().find(|f| f.kind == FindingKind::RunningInfoUnavailable).unwrap();
        assert!(silent.detail.contains("did not answer within the broker's 10 s relay"), "{error}: {}", silent.detail);
    }
}
