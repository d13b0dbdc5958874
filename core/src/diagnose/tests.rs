//! Hand-built snapshots whose answers are derived by hand: AVG over the sorted members
//! ["a@1", "b@1"] and 4 queues gives a@1 queues 0-1 and b@1 queues 2-3.

use std::sync::Arc;

use super::*;
use crate::strategy::Averagely;

fn q(id: i32) -> MessageQueue {
    MessageQueue::new("T", "broker-a", id)
}

fn held(ids: &[i32]) -> Vec<HeldQueue> {
    ids.iter().map(|&i| HeldQueue { queue: q(i), dropped: false, locked: false, last_lock_ms: 0, last_pull_ms: 0 }).collect()
}

fn client(id: &str, queues: Vec<HeldQueue>) -> ClientState {
    ClientState { client_id: id.into(), running: Some(RunningState { held: queues, ..RunningState::default() }), error: None }
}

fn snapshot(clients: Vec<ClientState>) -> Snapshot {
    let ids: Vec<String> = clients.iter().map(|c| c.client_id.clone()).collect();
    Snapshot {
        group: "G".into(),
        taken_at_ms: 0,
        topics: [("T".to_owned(), (0..4).rev().map(q).collect())].into(),
        brokers: vec![BrokerMembers { broker: "broker-a".into(), addr: "127.0.0.1:10911".into(), consumer_ids: Some(ids.clone()), error: None }],
        connections: ids
            .iter()
            .enumerate()
            .map(|(i, id)| ClientConnection { client_id: id.clone(), client_addr: format!("10.0.0.{i}:1"), language: "JAVA".into(), version: 479 })
            .collect(),
        clients,
        ..Snapshot::default()
    }
}

fn avg(_: &str) -> Option<Named> {
    Some(Named::from_strategy(Arc::new(Averagely)))
}

fn kinds(d: &Diagnosis) -> Vec<FindingKind> {
    d.findings.iter().map(|f| f.kind).collect()
}

#[test]
fn a_group_that_holds_what_its_strategy_says_is_healthy() {
    let d = diagnose(&snapshot(vec![client("b@1", held(&[2, 3])), client("a@1", held(&[0, 1]))]), &avg);
    assert!(d.healthy(), "{:?}", d.findings);
    let row = |i: usize| (d.queues[i].holders.clone(), d.queues[i].expected.clone());
    assert_eq!(row(0), (vec!["a@1".to_owned()], vec!["a@1".to_owned()]));
    assert_eq!(row(3), (vec!["b@1".to_owned()], vec!["b@1".to_owned()]));
}

#[test]
fn orphaned_double_held_and_unexpected_holders_are_named() {
    // a@1 holds 0, 1, 2; b@1 holds 2 only: queue 2 is held twice (a@1 should not hold it), 3 by nobody.
    let d = diagnose(&snapshot(vec![client("a@1", held(&[0, 1, 2])), client("b@1", held(&[2]))]), &avg);
    assert_eq!(kinds(&d), [FindingKind::Orphaned, FindingKind::DoubleHeld, FindingKind::UnexpectedHolder]);
    assert_eq!(d.findings[0].queues, [q(3)]);
    assert_eq!((d.findings[1].queues.clone(), d.findings[1].clients.clone()), (vec![q(2)], vec!["a@1".to_owned(), "b@1".to_owned()]));
    assert!(d.findings[1].detail.contains("consumed twice"), "{}", d.findings[1].detail);
    assert_eq!(d.findings[2].clients, ["a@1"]);
}

#[test]
fn a_queue_being_handed_off_is_not_held_twice() {
    let mut giving_up = held(&[2]);
    giving_up[0].dropped = true;
    let mut a = held(&[0, 1]);
    a.extend(giving_up);
    let d = diagnose(&snapshot(vec![client("a@1", a), client("b@1", held(&[2, 3]))]), &avg);
    assert!(d.healthy(), "{:?}", d.findings);
    assert_eq!((d.queues[2].holders.clone(), d.queues[2].handing_off.clone()), (vec!["b@1".to_owned()], vec!["a@1".to_owned()]));
}

#[test]
fn a_queue_given_up_before_its_new_holder_takes_it_is_not_orphaned() {
    // a@1 is finishing its last call on queue 2 (dropped, kept); b@1 waits for the lock.
    let mut a = held(&[0, 1, 2]);
    a[2].dropped = true;
    let d = diagnose(&snapshot(vec![client("a@1", a), client("b@1", held(&[3]))]), &avg);
    assert!(d.healthy(), "{:?}", d.findings);
    assert_eq!((d.queues[2].holders.len(), d.queues[2].handing_off.clone()), (0, vec!["a@1".to_owned()]));
}

#[test]
fn two_locked_orderly_holders_are_critical_and_locks_of_concurrent_ones_count_for_nothing() {
    let mut a = held(&[0, 1, 2]);
    let mut b = held(&[2, 3]);
    a[2].locked = true;
    b[0].locked = true;
    let mut s = snapshot(vec![client("a@1", a), client("b@1", b)]);
    // Concurrent clients (a Go client reports `locked` for those too): duplicates, not a lock clash.
    let double = |s: &Snapshot| diagnose(s, &avg).findings.into_iter().find(|f| f.kind == FindingKind::DoubleHeld).expect("queue 2 held twice");
    assert!(double(&s).detail.contains("consumed twice"), "{}", double(&s).detail);
    for c in &mut s.clients {
        c.running.as_mut().unwrap().properties.insert("PROP_CONSUMEORDERLY".into(), "true".into());
    }
    assert!(double(&s).detail.contains("critical"), "{}", double(&s).detail);
}

#[test]
fn one_id_on_two_connections_is_a_duplicate() {
    let mut s = snapshot(vec![client("a@1", held(&[0, 1, 2, 3]))]);
    s.connections.push(ClientConnection { client_id: "a@1".into(), client_addr: "10.0.0.9:1".into(), language: "JAVA".into(), version: 479 });
    let d = diagnose(&s, &avg);
    let dup = d.findings.iter().find(|f| f.kind == FindingKind::DuplicateClientId).expect("a duplicate");
    assert!(dup.detail.contains("10.0.0.0:1") && dup.detail.contains("10.0.0.9:1"), "{}", dup.detail);
}

#[test]
fn brokers_that_disagree_and_silent_clients_are_findings() {
    let mut s = snapshot(vec![client("a@1", held(&[0, 1])), client("b@1", held(&[2, 3]))]);
    s.brokers.push(BrokerMembers { broker: "broker-b".into(), addr: "127.0.0.1:10921".into(), consumer_ids: Some(vec!["a@1".into()]), error: None });
    s.clients[1] = ClientState { client_id: "b@1".into(), running: None, error: Some("timed out after 15000 ms".into()) };
    let d = diagnose(&s, &avg);
    let disagree = d.findings.iter().find(|f| f.kind == FindingKind::MembershipDisagreement).expect("brokers disagree");
    assert_eq!(disagree.clients, ["b@1"]);
    let silent = d.findings.iter().find(|f| f.kind == FindingKind::RunningInfoUnavailable).expect("b@1 did not answer");
    assert!(silent.detail.contains("timed out"), "{}", silent.detail);
    let orphaned = d.findings.iter().find(|f| f.kind == FindingKind::Orphaned).expect("what b@1 holds is unknown");
    assert!(orphaned.detail.contains("did not say"), "{}", orphaned.detail);
}

#[test]
fn a_go_client_that_cannot_encode_its_statistics_is_told_apart() {
    // The error inspect records for rocketmq-client-go's empty answer (its remark, as read on the
    // test command's cluster): the likely reason names the NaN, not a timeout or a missing feature.
    let mut s = snapshot(vec![client("a@1", held(&[0, 1])), client("b@1", held(&[2, 3]))]);
    let error = "GET_CONSUMER_RUNNING_INFO: the answer has no body, and says: json marshal error: json: unsupported value: NaN";
    s.clients[1] = ClientState { client_id: "b@1".into(), running: None, error: Some(error.into()) };
    let d = diagnose(&s, &avg);
    let silent = d.findings.iter().find(|f| f.kind == FindingKind::RunningInfoUnavailable).expect("b@1 did not answer");
    assert!(silent.detail.contains("could not encode its own statistics") && silent.detail.contains("ask again"), "{}", silent.detail);
}

#[test]
fn the_snapshot_and_the_findings_keep_their_json_form() {
    let s = snapshot(vec![client("a@1", held(&[0]))]);
    let text = serde_json::to_string(&s).unwrap();
    assert_eq!(serde_json::from_str::<Snapshot>(&text).unwrap(), s);
    assert!(serde_json::from_str::<Snapshot>(&text.replacen("\"group\"", "\"grup\"", 1)).is_err(), "a misspelt field is refused");
    let d = diagnose(&s, &avg);
    let v = serde_json::to_value(&d).unwrap();
    assert_eq!(v["findings"][0]["kind"], "orphaned");
    // The snapshot keeps every input's ["topic", "broker", id]; the diagnosis writes queues as
    // `allocate` and the findings' sentences do.
    assert_eq!(v["findings"][0]["queues"][0], "T@broker-a:1");
    assert_eq!(v["group"], "G");
    assert_eq!(parse_diagnosis(&v.to_string()).unwrap(), d);
}

#[test]
fn this_librarys_java_strategies_are_read_from_their_to_string() {
    // AVG_BY_CIRCLE over the sorted members a@1, b@1 gives a@1 queues 0 and 2, b@1 queues 1 and 3.
    let mut s = snapshot(vec![client("a@1", held(&[0, 2])), client("b@1", held(&[1, 3]))]);
    for c in &mut s.clients {
        let props = &mut c.running.as_mut().unwrap().properties;
        props.insert("allocateMessageQueueStrategy".into(), "io.github.rocketmqrebalance.NativeAllocateMessageQueueAveragelyByCircle@circle{}".into());
    }
    let d = diagnose_with(&s, &BTreeMap::new());
    assert!(d.healthy(), "{:?}", d.findings);
    assert_eq!(d.queues[1].expected, ["b@1"]);
    assert_eq!(d.strategies[0].source, StrategySource::Stated);
}
