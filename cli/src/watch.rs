//! `inspect --watch INTERVAL`: inspect again every INTERVAL seconds, print each round as one JSON
//! line on stdout, and serve the latest round as Prometheus gauges (prometheus-client encodes them,
//! tiny_http serves `GET /metrics`; nothing here writes HTTP by hand). Loopback by default: the
//! metrics name client ids and addresses, which an operator may not want on every interface.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use rocketmq_rebalance::diagnose::{Diagnosis, FindingKind};

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct GroupLabel {
    group: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TopicLabels {
    group: String,
    topic: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabels {
    group: String,
    kind: String,
}

/// The gauges, registered once; each round sets every series it knows (to 0 when healthy).
struct Gauges {
    up: Family<GroupLabel, Gauge>,
    findings: Family<KindLabels, Gauge>,
    per_topic: Vec<(FindingKind, Family<TopicLabels, Gauge>)>,
    orphaned_lag: Family<TopicLabels, Gauge>,
    foreign_members: Family<GroupLabel, Gauge>,
    registry: Registry,
}

/// Per-topic gauges: (kind counted, metric name, help).
const PER_TOPIC: [(FindingKind, &str, &str); 5] = [
    (FindingKind::Orphaned, "orphaned_queues", "Queues of the topic nobody holds"),
    (FindingKind::DoubleHeld, "double_held_queues", "Queues of the topic held by two or more clients"),
    (FindingKind::UnexpectedHolder, "unexpected_holders", "Queues held by a client its own strategy does not give them"),
    (FindingKind::OrderlyLockStuck, "stuck_orderly_locks", "Orderly queues held without their lock past the broker's expiry"),
    (FindingKind::NotPulled, "not_pulled_queues", "Held queues not pulled for more than 60 s"),
];

impl Gauges {
    fn new() -> Self {
        let mut registry = Registry::with_prefix("rmq_rebalance");
        let up = Family::<GroupLabel, Gauge>::default();
        registry.register("inspect_up", "1 if the last inspection of the group read the cluster, 0 if it failed", up.clone());
        let findings = Family::<KindLabels, Gauge>::default();
        registry.register("findings", "Findings of the last inspection, by kind (docs/inspect.md)", findings.clone());
        let per_topic = PER_TOPIC
            .iter()
            .map(|(kind, name, help)| {
                let family = Family::<TopicLabels, Gauge>::default();
                registry.register(*name, *help, family.clone());
                (*kind, family)
            })
            .collect();
        let orphaned_lag = Family::<TopicLabels, Gauge>::default();
        registry.register("orphaned_lag", "Messages waiting on the topic's orphaned queues", orphaned_lag.clone());
        let foreign_members = Family::<GroupLabel, Gauge>::default();
        registry.register("foreign_strategy_members", "Members not on the strategy most members run", foreign_members.clone());
        Gauges { up, findings, per_topic, orphaned_lag, foreign_members, registry }
    }

    fn failed(&self, group: &str) {
        self.up.get_or_create(&GroupLabel { group: group.to_owned() }).set(0);
    }

    fn set(&self, group: &str, d: &Diagnosis) {
        let g = GroupLabel { group: group.to_owned() };
        self.up.get_or_create(&g).set(1);
        for kind in FindingKind::ALL {
            let n = d.findings.iter().filter(|f| f.kind == kind).count();
            self.findings.get_or_create(&KindLabels { group: group.to_owned(), kind: kind.name().to_owned() }).set(n as i64);
        }
        // Queue counts per topic: every judged topic gets a series, so a healed topic reads 0.
        let mut topics: BTreeMap<&str, ()> = d.queues.iter().map(|r| (&*r.queue.topic, ())).collect();
        topics.extend(d.findings.iter().filter_map(|f| f.topic.as_deref()).map(|t| (t, ())));
        for topic in topics.keys() {
            let labels = TopicLabels { group: group.to_owned(), topic: (*topic).to_owned() };
            let on_topic = |kind| d.findings.iter().filter(move |f| f.kind == kind && f.topic.as_deref() == Some(*topic));
            for (kind, family) in &self.per_topic {
                family.get_or_create(&labels).set(on_topic(*kind).map(|f| f.queues.len().max(1)).sum::<usize>() as i64);
            }
            self.orphaned_lag.get_or_create(&labels).set(on_topic(FindingKind::Orphaned).filter_map(|f| f.lag).sum());
        }
        let mut counts: BTreeMap<&str, i64> = BTreeMap::new();
        for s in d.strategies.iter().filter_map(|s| s.strategy.as_deref()) {
            *counts.entry(s).or_default() += 1;
        }
        let known: i64 = counts.values().sum();
        self.foreign_members.get_or_create(&g).set(known - counts.values().max().copied().unwrap_or(0));
    }

    fn text(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }
}

/// One round: a diagnosis, or why the cluster could not be read.
pub type Round<'a> = dyn FnMut() -> Result<Diagnosis, String> + 'a;

/// Serves `/metrics` on `addr` and runs `round` every `interval` until `rounds` (None: forever).
pub fn watch(group: &str, addr: &str, interval: Duration, rounds: Option<u64>, round: &mut Round<'_>) -> Result<(), String> {
    let server = tiny_http::Server::http(addr).map_err(|e| format!("--metrics-addr {addr}: {e}"))?;
    let bound = server.server_addr().to_ip().map_or_else(|| addr.to_owned(), |a| a.to_string());
    eprintln!("serving metrics on http://{bound}/metrics");
    let gauges = Arc::new(Mutex::new(Gauges::new()));
    let served = Arc::clone(&gauges);
    std::thread::spawn(move || {
        for request in server.incoming_requests() {
            let response = if request.url() == "/metrics" {
                let body = served.lock().map(|g| g.text()).unwrap_or_default();
                let kind = tiny_http::Header::from_bytes(&b"Content-Type"[..], &b"text/plain; version=0.0.4; charset=utf-8"[..]).expect("a valid header");
                tiny_http::Response::from_string(body).with_header(kind)
            } else {
                tiny_http::Response::from_string("only /metrics is served\n").with_status_code(404)
            };
            let _ = request.respond(response);
        }
    });
    let mut n = 0;
    loop {
        let at_ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
        let line = match round() {
            Ok(d) => {
                gauges.lock().map_err(|_| "the metrics lock was poisoned".to_owned())?.set(&d.group, &d);
                // The diagnosis's own schema, without the per-queue table and the strategies.
                let mut line = serde_json::to_value(&d).map_err(|e| e.to_string())?;
                if let Some(fields) = line.as_object_mut() {
                    fields.retain(|k, _| matches!(k.as_str(), "schema_version" | "group" | "healthy" | "findings"));
                    fields.insert("at_ms".into(), at_ms.into());
                }
                line
            }
            Err(e) => {
                gauges.lock().map_err(|_| "the metrics lock was poisoned".to_owned())?.failed(group);
                serde_json::json!({"at_ms": at_ms, "group": group, "error": e})
            }
        };
        println!("{line}");
        n += 1;
        if rounds.is_some_and(|r| n >= r) {
            return Ok(());
        }
        std::thread::sleep(interval);
    }
}
