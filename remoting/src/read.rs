//! One inspection: every read-only request a group's diagnosis needs, in order, into a
//! [`Snapshot`]. A broker or client that does not answer is recorded as such; only a NameServer
//! that cannot be reached, or a group no broker knows, ends the inspection with an error.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rocketmq_rebalance::diagnose::{BrokerMembers, ClientConnection, ClientState, HeldQueue, QueueOffsets, RunningState, Snapshot, Subscription};
use rocketmq_rebalance::MessageQueue;

use crate::requests::{self, GroupConnections, Queue, TopicRoute, CONSUMER_NOT_ONLINE};
use crate::{Connection, Credentials, Error, RequestStats, Result};

/// `PermName.PERM_READ`: a queue data without it lends no readable queues.
const PERM_READ: i64 = 4;

#[derive(Clone, Debug)]
pub struct Options {
    /// Each request but running info (which waits for the broker's 10 s relay).
    pub timeout: Duration,
    /// Clients asked for their running info at once.
    pub parallel: usize,
    /// The keys every request is signed with (a cluster with ACL); none by default.
    pub credentials: Option<Credentials>,
    /// Where requests sent and failed are counted; none by default.
    pub stats: Option<Arc<RequestStats>>,
    /// A group no broker knows a consumer of is read as offline (no connections, its topics those
    /// it has offsets for) rather than refused; `watch` judges such groups, `inspect` refuses them.
    pub offline_groups: bool,
    /// Addresses that failed at the transport are not asked again while they are listed here
    /// (`watch` clears it each round); none by default, every request is tried.
    pub unreachable: Option<Arc<Unreachable>>,
}

/// Addresses that failed at the transport (no connection, no answer in time), with why.
#[derive(Debug, Default)]
pub struct Unreachable(Mutex<BTreeMap<String, String>>);

impl Unreachable {
    pub fn clear(&self) {
        self.0.lock().expect("not poisoned").clear();
    }

    fn get(&self, addr: &str) -> Option<String> {
        self.0.lock().expect("not poisoned").get(addr).cloned()
    }

    fn mark(&self, addr: &str, why: String) {
        self.0.lock().expect("not poisoned").insert(addr.to_owned(), why);
    }
}

impl Default for Options {
    fn default() -> Self {
        Options { timeout: Duration::from_secs(5), parallel: 8, credentials: None, stats: None, offline_groups: false, unreachable: None }
    }
}

/// Reads `group` from the cluster behind `namesrv` (`host:port`, several separated by `;`).
/// `topics` empty: the topics the group subscribes to, as the brokers list them.
pub fn read_group(namesrv: &str, group: &str, topics: &[String], options: &Options) -> Result<Snapshot> {
    read_group_since(namesrv, group, topics, options, None)
}

/// [`read_group`], reusing `previous`'s running infos (each marked with when it was read) when
/// nothing that decides what a client holds has changed since: the same connections, member lists
/// and queues. Running info is the one request relayed to every client, and the costliest.
pub fn read_group_since(namesrv: &str, group: &str, topics: &[String], options: &Options, previous: Option<&Snapshot>) -> Result<Snapshot> {
    let retry = format!("%RETRY%{group}");
    let retry_route = route(namesrv, &retry, options)?;
    let masters = masters(&retry_route);
    let (brokers, connections) = members(&masters, group, options);
    let Some(connections) = connections else {
        // A broker that did not answer may be the one that knows the group: name it, its address
        // and why, rather than blame the consumers.
        let failures: Vec<String> = brokers.iter().filter_map(|b| Some(format!("{} at {}: {}", b.broker, b.addr, b.error.as_ref()?))).collect();
        if !failures.is_empty() {
            let answered = brokers.len() - failures.len();
            let what = format!("the connections of group {group}: {answered} of {} brokers answered (none knows a consumer online), and", brokers.len());
            return Err(Error::NoAnswer { what, failures });
        }
        if options.offline_groups {
            return Ok(offline(namesrv, group, topics, &retry_route, &masters, brokers, options));
        }
        return Err(Error::Refused {
            what: "inspect",
            code: CONSUMER_NOT_ONLINE,
            remark: format!("no broker of {retry} knows a consumer of group {group} online"),
        });
    };
    let mut wanted: BTreeSet<String> = if topics.is_empty() { connections.subscriptions.keys().cloned().collect() } else { topics.iter().cloned().collect() };
    wanted.insert(retry.clone());
    let mut routes = BTreeMap::new();
    for topic in &wanted {
        let r = if *topic == retry { retry_route.clone() } else { route(namesrv, topic, options)? };
        routes.insert(topic.clone(), readable_queues(topic, &r));
    }
    let conns: Vec<ClientConnection> = connections
        .connections
        .iter()
        .map(|c| ClientConnection { client_id: c.client_id.clone(), client_addr: c.client_addr.clone(), language: c.language.clone(), version: c.version })
        .collect();
    let reusable = previous.filter(|p| sorted(&p.connections) == sorted(&conns) && p.topics == routes && member_lists(&p.brokers) == member_lists(&brokers));
    let clients = match reusable {
        Some(p) => p.clients.iter().cloned().map(read_then(p.taken_at_ms)).collect(),
        None => running_infos(&masters, group, &conns, options),
    };
    let taken_at_ms = now_ms();
    let offsets = offsets(&masters, group, options);
    let message_model = connections.message_model.clone();
    Ok(Snapshot { group: group.to_owned(), taken_at_ms, topics: routes, brokers, connections: conns, clients, message_model, offsets })
}

/// A group no broker knows a consumer of: its offsets (and so its topics, unless `topics` names
/// them), nobody connected.
fn offline(
    namesrv: &str,
    group: &str,
    topics: &[String],
    retry_route: &TopicRoute,
    masters: &[(String, String)],
    brokers: Vec<BrokerMembers>,
    options: &Options,
) -> Snapshot {
    let offsets = offsets(masters, group, options);
    let retry = format!("%RETRY%{group}");
    let mut wanted: BTreeSet<String> =
        if topics.is_empty() { offsets.iter().map(|o| o.queue.topic.to_string()).collect() } else { topics.iter().cloned().collect() };
    wanted.insert(retry.clone());
    // A topic whose route cannot be read (deleted since) keeps only the queues it has offsets for.
    let routes = wanted
        .into_iter()
        .map(|t| {
            let queues = match if t == retry { Ok(retry_route.clone()) } else { route(namesrv, &t, options) } {
                Ok(r) => readable_queues(&t, &r),
                Err(_) => offsets.iter().filter(|o| *o.queue.topic == *t).map(|o| o.queue.clone()).collect(),
            };
            (t, queues)
        })
        .collect();
    let message_model = None;
    Snapshot { group: group.to_owned(), taken_at_ms: now_ms(), topics: routes, brokers, connections: Vec::new(), clients: Vec::new(), message_model, offsets }
}

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

fn sorted(conns: &[ClientConnection]) -> Vec<(&str, &str)> {
    let mut out: Vec<(&str, &str)> = conns.iter().map(|c| (c.client_id.as_str(), c.client_addr.as_str())).collect();
    out.sort_unstable();
    out
}

/// Each broker's member list, sorted: what must not change for a reused running info to hold.
fn member_lists(brokers: &[BrokerMembers]) -> Vec<(&str, Option<Vec<&str>>)> {
    brokers
        .iter()
        .map(|b| {
            let ids = b.consumer_ids.as_ref().map(|ids| {
                let mut ids: Vec<&str> = ids.iter().map(String::as_str).collect();
                ids.sort_unstable();
                ids
            });
            (b.broker.as_str(), ids)
        })
        .collect()
}

/// A reused client state, stamped with when its running info was read (once, at first reuse).
fn read_then(taken_at_ms: i64) -> impl Fn(ClientState) -> ClientState {
    move |mut c| {
        if let Some(r) = &mut c.running {
            r.read_at_ms.get_or_insert(taken_at_ms);
        }
        c
    }
}

/// `ask` on a connection to `addr`, unless `addr` is listed unreachable; a transport failure lists it.
fn on<T>(addr: &str, options: &Options, ask: impl FnOnce(&mut Connection) -> Result<T>) -> Result<T> {
    if let Some(why) = options.unreachable.as_ref().and_then(|u| u.get(addr)) {
        return Err(Error::Skipped { addr: addr.to_owned(), why });
    }
    let result = connect(addr, options).and_then(|mut c| ask(&mut c));
    if let (Err(e), Some(u)) = (&result, &options.unreachable) {
        if e.is_transport() {
            u.mark(addr, e.to_string());
        }
    }
    result
}

/// A connection to `addr` that signs and counts its requests as `options` says.
fn connect(addr: &str, options: &Options) -> Result<Connection> {
    Ok(Connection::open(addr, options.timeout)?.signing(options.credentials.clone()).counting(options.stats.clone()))
}

fn message_queue(q: &Queue) -> MessageQueue {
    MessageQueue::new(q.topic.as_str(), q.broker_name.as_str(), q.queue_id.min(i32::MAX as u32) as i32)
}

/// Every master's offsets for the group's queues (lag). A broker that does not answer lends none:
/// lag is a figure beside the findings, not one of them.
fn offsets(masters: &[(String, String)], group: &str, options: &Options) -> Vec<QueueOffsets> {
    let mut out = Vec::new();
    for (_, addr) in masters {
        let Ok(stats) = on(addr, options, |c| requests::consume_stats(c, group, options.timeout)) else { continue };
        out.extend(stats.iter().map(|(q, o)| QueueOffsets { queue: message_queue(q), broker_offset: o.broker_offset, consumer_offset: o.consumer_offset }));
    }
    out
}

/// The route from the first NameServer that answers; when none does, every one's reason.
fn route(namesrv: &str, topic: &str, options: &Options) -> Result<TopicRoute> {
    first_namesrv(namesrv, &format!("the route of {topic}"), |c| requests::route(c, topic, options.timeout), options)
}

/// `ask`'s answer from the first NameServer of `namesrv` that gives one; when none does, every
/// one's reason, `what` saying what was asked.
fn first_namesrv<T>(namesrv: &str, what: &str, ask: impl Fn(&mut Connection) -> Result<T>, options: &Options) -> Result<T> {
    let mut failures = Vec::new();
    for addr in namesrv.split(';').map(str::trim).filter(|a| !a.is_empty()) {
        match on(addr, options, &ask) {
            Ok(r) => return Ok(r),
            Err(e) => failures.push(e),
        }
    }
    match failures.len() {
        0 => Err(Error::BadFrame(format!("no NameServer address in {namesrv:?}"))),
        1 => Err(failures.remove(0)),
        n => Err(Error::NoAnswer { what: format!("{what}: none of {n} NameServers answered"), failures: failures.iter().map(Error::to_string).collect() }),
    }
}

/// The consumer groups a cluster knows: every master's subscription groups (named by the broker
/// names of `GET_BROKER_CLUSTER_INFO`), system groups left out unless `system`. A master that does
/// not answer is listed in the second part with why; the groups of those that did are still found.
pub fn list_groups(namesrv: &str, system: bool, options: &Options) -> Result<(BTreeSet<String>, Vec<String>)> {
    let info = cluster_info(namesrv, options)?;
    let mut groups = BTreeSet::new();
    let mut failures = Vec::new();
    for b in &info.brokers {
        let Some(addr) = b.addrs.get(&0) else { continue };
        match on(addr, options, |c| requests::subscription_groups(c, options.timeout)) {
            Ok(names) => groups.extend(names.into_iter().filter(|g| system || !is_system_group(g))),
            Err(e) => failures.push(format!("{} at {addr}: {e}", b.broker_name)),
        }
    }
    Ok((groups, failures))
}

/// Every broker of every cluster, from the first NameServer that answers.
pub fn cluster_info(namesrv: &str, options: &Options) -> Result<requests::ClusterInfo> {
    first_namesrv(namesrv, "the brokers of the cluster", |c| requests::cluster_info(c, options.timeout), options)
}

/// The groups a broker creates for itself or its tools (`MixAll.isSysConsumerGroup`, which is the
/// `CID_RMQ_SYS_` prefix, and `MixAll`'s predefined groups).
pub fn is_system_group(group: &str) -> bool {
    const PREDEFINED: [&str; 13] = [
        "DEFAULT_CONSUMER",
        "DEFAULT_PRODUCER",
        "TOOLS_CONSUMER",
        "SCHEDULE_CONSUMER",
        "FILTERSRV_CONSUMER",
        "__MONITOR_CONSUMER",
        "CLIENT_INNER_PRODUCER",
        "SELF_TEST_P_GROUP",
        "SELF_TEST_C_GROUP",
        "CID_ONS-HTTP-PROXY",
        "CID_ONSAPI_PERMISSION",
        "CID_ONSAPI_OWNER",
        "CID_ONSAPI_PULL",
    ];
    group.starts_with("CID_RMQ_SYS_") || PREDEFINED.contains(&group)
}

/// (broker name, master address) of every broker of the route.
fn masters(route: &TopicRoute) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = route.broker_datas.iter().filter_map(|b| Some((b.broker_name.clone(), b.addrs.get(&0)?.clone()))).collect();
    out.sort();
    out
}

/// Readable queues as a client builds them: each readable queue data's `readQueueNums` ids.
fn readable_queues(topic: &str, route: &TopicRoute) -> Vec<MessageQueue> {
    let mut out = Vec::new();
    for q in route.queue_datas.iter().filter(|q| q.perm & PERM_READ != 0) {
        for id in 0..q.read_queue_nums.min(i32::MAX as u32) {
            out.push(MessageQueue::new(topic, q.broker_name.as_str(), id as i32));
        }
    }
    out
}

/// Every master's member list, and the connections from the first master that has the group.
fn members(masters: &[(String, String)], group: &str, options: &Options) -> (Vec<BrokerMembers>, Option<GroupConnections>) {
    let mut brokers = Vec::new();
    let mut connections = None;
    for (name, addr) in masters {
        let answer = on(addr, options, |c| {
            let ids = requests::consumer_ids(c, group, options.timeout)?;
            if connections.is_none() {
                connections = requests::connections(c, group, options.timeout)?;
            }
            Ok(ids)
        });
        let (consumer_ids, error) = match answer {
            Ok(ids) => (Some(ids), None),
            Err(e) => (None, Some(e.to_string())),
        };
        brokers.push(BrokerMembers { broker: name.clone(), addr: addr.clone(), consumer_ids, error });
    }
    (brokers, connections)
}

/// Each client's running info, through the first master that relays it; `parallel` at a time.
fn running_infos(masters: &[(String, String)], group: &str, conns: &[ClientConnection], options: &Options) -> Vec<ClientState> {
    let results: Mutex<Vec<Option<ClientState>>> = Mutex::new(vec![None; conns.len()]);
    let next = Mutex::new(0usize);
    thread::scope(|s| {
        for _ in 0..options.parallel.max(1).min(conns.len().max(1)) {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().expect("not poisoned");
                    let i = *n;
                    *n += 1;
                    i
                };
                let Some(c) = conns.get(i) else { return };
                let state = running_info(masters, group, &c.client_id, options);
                results.lock().expect("not poisoned")[i] = Some(state);
            });
        }
    });
    results.into_inner().expect("not poisoned").into_iter().flatten().collect()
}

fn running_info(masters: &[(String, String)], group: &str, client_id: &str, options: &Options) -> ClientState {
    let mut error = String::from("no broker to relay the request");
    for (_, addr) in masters {
        match on(addr, options, |c| requests::running_info(c, group, client_id)) {
            Ok(info) => {
                let held = info
                    .held
                    .iter()
                    .map(|(q, pq)| HeldQueue {
                        queue: message_queue(q),
                        dropped: pq.dropped,
                        locked: pq.locked,
                        last_lock_ms: pq.last_lock_timestamp,
                        last_pull_ms: pq.last_pull_timestamp,
                    })
                    .collect();
                let subscriptions = info
                    .subscriptions
                    .iter()
                    .map(|s| Subscription {
                        topic: s.topic.clone(),
                        expression: s.sub_string.clone(),
                        expression_type: s.expression_type.clone(),
                        sub_version: s.sub_version,
                    })
                    .collect();
                let pop_queues = info.pop_queues.iter().map(message_queue).collect();
                let running = RunningState { properties: info.properties, held, subscriptions, pop_queues, read_at_ms: None };
                return ClientState { client_id: client_id.to_owned(), running: Some(running), error: None };
            }
            Err(e) => error = e.to_string(),
        }
    }
    ClientState { client_id: client_id.to_owned(), running: None, error: Some(error) }
}
