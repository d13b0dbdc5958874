//! A loopback stand-in for a whole RocketMQ cluster, speaking the remoting protocol: one NameServer
//! and two brokers (`broker-a`, `broker-b`), each on a port of its own, answering the read-only
//! requests `rmq-rebalance watch` and `inspect` send, with the bodies a 5.x broker writes. It is
//! the scale benchmark's cluster (scripts/bench/watch_scale.py): thousands of groups cost nothing
//! to set up, and every answer is known.
//!
//! Group `g<N>` consumes topic `T<N>` (16 queues, 8 on each broker) with `--clients` Java members
//! `10.0.0.1@<N>-<i>` on AVG, each holding exactly its AVG share, plus the retry topic
//! `%RETRY%g<N>` (1 queue on each broker); nothing waits. Every `--faulty`th group (0: none) is made
//! wrong the same way: its first member also holds its second member's first queue (double held).
//! A relayed running-info request waits `--relay-ms` before its answer (the broker's hop to the
//! client), every other request `--latency-ms`.
//!
//! usage: standin_cluster --groups N [--clients C] [--faulty K] [--latency-ms L] [--relay-ms R]
//!        [--relay-timeout-ms T]
//! Prints `namesrv 127.0.0.1:PORT` on stdout, then serves until stdin closes, and then writes on
//! stderr, as JSON, the requests it served by code and the most it was answering at once.
//!
//! Faults, one command a line on stdin (the fault test, scripts/lib/check_watch_faults.py):
//! `refuse|hang|garbage|ok namesrv|broker-a|broker-b` (close every connection at once; read
//! requests and never answer; answer with bytes that are not a frame; back to normal),
//! `drop N` (group gN is deleted: no broker lists it or knows a consumer of it), `mute CLIENT`
//! (the client never answers its running info: the broker gives up after `--relay-timeout-ms`,
//! 10,000 by default, and says so, as a 5.x broker does).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rocketmq_rebalance_remoting::frame::{read_frame, write_frame, MAX_FRAME};
use rocketmq_rebalance_remoting::RemotingCommand;
use serde_json::{json, Value};

const QUEUES_PER_BROKER: u32 = 8;
const BROKERS: [&str; 2] = ["broker-a", "broker-b"];
const AVG: &str = "org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely@1a2b3c";

struct Cluster {
    groups: usize,
    clients: usize,
    faulty: usize,
    latency: Duration,
    relay: Duration,
    /// Broker name to address, once listening.
    brokers: BTreeMap<&'static str, String>,
    counts: BTreeMap<i32, AtomicU64>,
    relay_timeout: Duration,
    /// Servers (`namesrv`, `broker-a`, `broker-b`) not answering as they should, and how.
    faults: Mutex<BTreeMap<String, Fault>>,
    dropped: Mutex<BTreeSet<usize>>,
    muted: Mutex<BTreeSet<String>>,
    /// Requests being answered now, and the most at once: what `--max-in-flight` bounds.
    in_flight: AtomicU64,
    most_in_flight: AtomicU64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Fault {
    Refuse,
    Hang,
    Garbage,
}

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map_or(default, |v| v.parse().unwrap_or_else(|_| panic!("{name} takes a number")))
}

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// A queue as fastjson writes a `MessageQueue` map key: the object itself.
fn queue_key(topic: &str, broker: &str, id: u32) -> String {
    json!({"brokerName": broker, "queueId": id, "topic": topic}).to_string()
}

/// A fastjson object whose keys are objects (already JSON text) and values JSON values.
fn object_keyed(entries: &[(String, Value)]) -> String {
    let body: Vec<String> = entries.iter().map(|(k, v)| format!("{k}:{v}")).collect();
    format!("{{{}}}", body.join(","))
}

impl Cluster {
    fn group_of<'a>(&self, fields: &'a BTreeMap<String, String>) -> Option<(usize, &'a str)> {
        let g = fields.get("consumerGroup")?;
        let n: usize = g.strip_prefix('g')?.parse().ok()?;
        (n < self.groups && !self.dropped.lock().expect("dropped").contains(&n)).then_some((n, g.as_str()))
    }

    fn ids(&self, n: usize) -> Vec<String> {
        // Zero-padded, so that the broker's order and a client's sorted order are the same.
        (0..self.clients).map(|i| format!("10.0.0.1@{n}-{i:03}")).collect()
    }

    /// The queues of one topic a client holds: Java's AVG over the sorted queues and ids.
    fn share(&self, topic: &str, per_broker: u32, index: usize) -> Vec<(String, &'static str, u32)> {
        let all: Vec<(String, &'static str, u32)> = BROKERS.iter().flat_map(|b| (0..per_broker).map(move |q| (topic.to_owned(), *b, q))).collect();
        let (m, n) = (all.len(), self.clients);
        let rest = m % n;
        let size = if m <= n { usize::from(index < m) } else { m / n + usize::from(index < rest) };
        let start = if index < rest { index * size } else { index * size + rest };
        all.into_iter().skip(start).take(size.min(m.saturating_sub(start))).collect()
    }

    fn route(&self, topic: &str) -> Option<Value> {
        let per_broker = if topic.starts_with("%RETRY%g") {
            1
        } else {
            let n: usize = topic.strip_prefix('T')?.parse().ok()?;
            if n >= self.groups {
                return None;
            }
            QUEUES_PER_BROKER
        };
        let queue_datas: Vec<Value> =
            BROKERS.iter().map(|b| json!({"brokerName": b, "readQueueNums": per_broker, "writeQueueNums": per_broker, "perm": 6})).collect();
        Some(json!({"queueDatas": queue_datas, "brokerDatas": self.broker_datas()}))
    }

    fn broker_datas(&self) -> Vec<Value> {
        self.brokers.iter().map(|(name, addr)| json!({"cluster": "standin", "brokerName": name, "brokerAddrs": {"0": addr}})).collect()
    }

    fn running_info(&self, n: usize, client: &str) -> Option<String> {
        let index = self.ids(n).iter().position(|c| c == client)?;
        let topic = format!("T{n}");
        let mut held = self.share(&topic, QUEUES_PER_BROKER, index);
        held.extend(self.share(&format!("%RETRY%g{n}"), 1, index));
        if self.faulty > 0 && n.is_multiple_of(self.faulty) && index == 0 {
            held.extend(self.share(&topic, QUEUES_PER_BROKER, 1).into_iter().take(1));
        }
        let now = now_ms();
        let table: Vec<(String, Value)> = held
            .iter()
            .map(|(t, b, q)| {
                let info =
                    json!({"commitOffset": 1000, "locked": false, "droped": false, "lastPullTimestamp": now, "lastConsumeTimestamp": now, "cachedMsgCount": 0});
                (queue_key(t, b, *q), info)
            })
            .collect();
        let properties = json!({"allocateMessageQueueStrategy": AVG, "PROP_CONSUMEORDERLY": "false", "PROP_CONSUME_TYPE": "CONSUME_PASSIVELY"});
        let subs = json!([{"topic": topic, "subString": "*", "subVersion": 1}, {"topic": format!("%RETRY%g{n}"), "subString": "*", "subVersion": 1}]);
        Some(format!(r#"{{"properties":{properties},"subscriptionSet":{subs},"mqTable":{}}}"#, object_keyed(&table)))
    }

    fn consume_stats(&self, n: usize, broker: &str) -> String {
        let mut table = Vec::new();
        for (topic, per_broker) in [(format!("T{n}"), QUEUES_PER_BROKER), (format!("%RETRY%g{n}"), 1)] {
            for q in 0..per_broker {
                table.push((queue_key(&topic, broker, q), json!({"brokerOffset": 1000, "consumerOffset": 1000, "lastTimestamp": now_ms()})));
            }
        }
        format!(r#"{{"offsetTable":{},"consumeTps":0.0}}"#, object_keyed(&table))
    }

    /// (code, body) of the answer to `request`, asked of the NameServer (`broker` None) or a broker.
    fn answer(&self, broker: Option<&'static str>, request: &RemotingCommand) -> (i32, String) {
        let fields = &request.ext_fields;
        let not_found = (17, String::new());
        match (request.code, broker) {
            (105, None) => fields.get("topic").and_then(|t| self.route(t)).map_or(not_found, |r| (0, r.to_string())),
            (106, None) => {
                let table: serde_json::Map<String, Value> = self.broker_datas().into_iter().map(|b| (b["brokerName"].as_str().unwrap_or("").to_owned(), b)).collect();
                (0, json!({"brokerAddrTable": table, "clusterAddrTable": {"standin": BROKERS}}).to_string())
            }
            (201, Some(_)) => {
                let dropped = self.dropped.lock().expect("dropped").clone();
                let table: serde_json::Map<String, Value> =
                    (0..self.groups).filter(|n| !dropped.contains(n)).map(|n| (format!("g{n}"), json!({"groupName": format!("g{n}")}))).collect();
                (0, json!({"subscriptionGroupTable": table}).to_string())
            }
            // A broker with no consumer of the group online refuses both, as a 5.x broker does.
            (38, Some(_)) => self.group_of(fields).map_or((1, "no consumer for this group".into()), |(n, _)| (0, json!({"consumerIdList": self.ids(n)}).to_string())),
            (203, Some(_)) => self.group_of(fields).map_or((206, String::new()), |(n, g)| {
                let set: Vec<Value> =
                    self.ids(n).iter().enumerate().map(|(i, c)| json!({"clientId": c, "clientAddr": format!("10.0.{}.{}:5{i:04}", n / 250, n % 250), "language": "JAVA", "version": 479})).collect();
                let subs = json!({format!("T{n}"): {"topic": format!("T{n}"), "subString": "*"}, format!("%RETRY%{g}"): {"topic": format!("%RETRY%{g}"), "subString": "*"}});
                (0, json!({"connectionSet": set, "subscriptionTable": subs, "consumeType": "CONSUME_PASSIVELY", "messageModel": "CLUSTERING"}).to_string())
            }),
            (307, Some(_)) => {
                let client = fields.get("clientId").cloned().unwrap_or_default();
                if self.muted.lock().expect("muted").contains(&client) {
                    thread::sleep(self.relay_timeout);
                    let ms = self.relay_timeout.as_millis();
                    return (1, format!("invokeSync call the addr[{client}] timeout, {ms}(ms)"));
                }
                thread::sleep(self.relay);
                let info = self.group_of(fields).and_then(|(n, _)| self.running_info(n, fields.get("clientId")?));
                info.map_or((1, String::new()), |body| (0, body))
            }
            (208, Some(b)) => self.group_of(fields).map_or(not_found, |(n, _)| (0, self.consume_stats(n, b))),
            _ => (1, String::new()),
        }
    }
}

fn fault(cluster: &Cluster, broker: Option<&'static str>) -> Option<Fault> {
    cluster.faults.lock().expect("faults").get(broker.unwrap_or("namesrv")).copied()
}

fn serve(cluster: Arc<Cluster>, broker: Option<&'static str>, mut stream: TcpStream) {
    while let Ok(content) = read_frame(&mut stream, MAX_FRAME) {
        let Ok(request) = RemotingCommand::decode(&content) else { return };
        match fault(&cluster, broker) {
            Some(Fault::Refuse) => return,
            Some(Fault::Garbage) => {
                // An HTTP server's answer: its first four bytes read as a frame of 1.2 GB.
                let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
                return;
            }
            Some(Fault::Hang) => {
                while fault(&cluster, broker) == Some(Fault::Hang) {
                    thread::sleep(Duration::from_millis(50));
                }
                return;
            }
            None => {}
        }
        if let Some(c) = cluster.counts.get(&request.code) {
            c.fetch_add(1, Ordering::Relaxed);
        }
        let now = cluster.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        cluster.most_in_flight.fetch_max(now, Ordering::SeqCst);
        thread::sleep(cluster.latency);
        let (code, body) = cluster.answer(broker, &request);
        cluster.in_flight.fetch_sub(1, Ordering::SeqCst);
        // A refusal's text is its remark, with no body.
        let (remark, body) = match code {
            0 => (None, body),
            _ if body.is_empty() => (Some(format!("the stand-in does not answer code {} here", request.code)), String::new()),
            _ => (Some(body), String::new()),
        };
        let response =
            RemotingCommand { code, flag: 1, opaque: request.opaque, language: "JAVA".into(), remark, body: body.into_bytes(), ..RemotingCommand::default() };
        if write_frame(&mut stream, &response.encode()).is_err() {
            return;
        }
    }
}

fn listen() -> TcpListener {
    TcpListener::bind("127.0.0.1:0").expect("a loopback port")
}

fn accept_on(listener: TcpListener, cluster: Arc<Cluster>, broker: Option<&'static str>) {
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            if fault(&cluster, broker) == Some(Fault::Refuse) {
                continue; // dropped: closed at once
            }
            let cluster = Arc::clone(&cluster);
            thread::spawn(move || serve(cluster, broker, stream));
        }
    });
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let listeners: Vec<(&'static str, TcpListener)> = BROKERS.iter().map(|b| (*b, listen())).collect();
    let brokers = listeners.iter().map(|(b, l)| (*b, l.local_addr().expect("bound").to_string())).collect();
    let cluster = Arc::new(Cluster {
        groups: arg(&args, "--groups", 50) as usize,
        clients: arg(&args, "--clients", 10).max(1) as usize,
        faulty: arg(&args, "--faulty", 0) as usize,
        latency: Duration::from_millis(arg(&args, "--latency-ms", 1)),
        relay: Duration::from_millis(arg(&args, "--relay-ms", 20)),
        relay_timeout: Duration::from_millis(arg(&args, "--relay-timeout-ms", 10_000)),
        faults: Mutex::default(),
        dropped: Mutex::default(),
        muted: Mutex::default(),
        brokers,
        counts: [105, 106, 201, 38, 203, 307, 208].into_iter().map(|c| (c, AtomicU64::new(0))).collect(),
        in_flight: AtomicU64::new(0),
        most_in_flight: AtomicU64::new(0),
    });
    let namesrv = listen();
    println!("namesrv {}", namesrv.local_addr().expect("bound"));
    std::io::stdout().flush().expect("stdout");
    accept_on(namesrv, Arc::clone(&cluster), None);
    for (b, l) in listeners {
        accept_on(l, Arc::clone(&cluster), Some(b));
    }
    // Faults until stdin closes; then the requests served, by code, for the bench's record.
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [mode @ ("refuse" | "hang" | "garbage" | "ok"), server] => {
                let fault = match *mode {
                    "refuse" => Some(Fault::Refuse),
                    "hang" => Some(Fault::Hang),
                    "garbage" => Some(Fault::Garbage),
                    _ => None,
                };
                let mut faults = cluster.faults.lock().expect("faults");
                match fault {
                    Some(f) => faults.insert((*server).to_owned(), f),
                    None => faults.remove(*server),
                };
            }
            ["drop", n] => {
                cluster.dropped.lock().expect("dropped").insert(n.parse().expect("drop takes a group number"));
            }
            ["mute", client] => {
                cluster.muted.lock().expect("muted").insert((*client).to_owned());
            }
            _ => eprintln!("unknown command: {line}"),
        }
        println!("done {line}");
        std::io::stdout().flush().expect("stdout");
    }
    let counts: BTreeMap<i32, u64> = cluster.counts.iter().map(|(c, n)| (*c, n.load(Ordering::Relaxed))).collect();
    let most = cluster.most_in_flight.load(Ordering::SeqCst);
    eprintln!("{}", json!({"served": counts, "most_in_flight": most}));
}
