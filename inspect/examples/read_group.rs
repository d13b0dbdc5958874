//! Reads one consumer group from a live cluster and prints what it read as JSON: the topic's
//! route, each master's member list and connections, and every client's held queues from its
//! running info. The real-cluster test (tests/e2e/mixed_group.py) checks it against what each
//! consumer says it holds; `rmq-rebalance inspect` will be built on the same requests.
//!
//!   cargo run -p rocketmq-rebalance-inspect --example read_group -- NAMESRV GROUP TOPIC

use std::process::ExitCode;
use std::time::Duration;

use rocketmq_rebalance_inspect::requests::{connections, consumer_ids, route, running_info};
use rocketmq_rebalance_inspect::{Connection, Result};
use serde_json::{json, Value};

const TIMEOUT: Duration = Duration::from_secs(5);

fn read(namesrv: &str, group: &str, topic: &str) -> Result<Value> {
    let r = route(&mut Connection::open(namesrv, TIMEOUT)?, topic, TIMEOUT)?;
    let mut brokers = Vec::new();
    for b in &r.broker_datas {
        let Some(addr) = b.addrs.get(&0) else { continue };
        let mut conn = Connection::open(addr, TIMEOUT)?;
        let ids = consumer_ids(&mut conn, group, TIMEOUT)?;
        let group_connections = connections(&mut conn, group, TIMEOUT)?;
        let mut clients = Vec::new();
        for c in &group_connections.connections {
            let held = match running_info(&mut conn, group, &c.client_id) {
                Ok(info) => json!(info
                    .held
                    .iter()
                    .filter(|(q, pq)| q.topic == topic && !pq.dropped)
                    .map(|(q, pq)| json!({"broker": q.broker_name, "queue_id": q.queue_id, "locked": pq.locked}))
                    .collect::<Vec<_>>()),
                Err(e) => json!({"error": e.to_string()}),
            };
            clients.push(json!({"client_id": c.client_id, "addr": c.client_addr, "language": c.language, "version": c.version, "held": held}));
        }
        brokers.push(json!({"broker": b.broker_name, "addr": addr, "consumer_ids": ids, "clients": clients,
                            "subscribed_topics": group_connections.subscriptions.keys().collect::<Vec<_>>()}));
    }
    let queues: Vec<Value> = r.queue_datas.iter().map(|q| json!({"broker": q.broker_name, "read_queue_nums": q.read_queue_nums})).collect();
    Ok(json!({"topic": topic, "group": group, "queues": queues, "brokers": brokers}))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [namesrv, group, topic] = args.as_slice() else {
        eprintln!("usage: read_group NAMESRV GROUP TOPIC");
        return ExitCode::from(2);
    };
    match read(namesrv, group, topic) {
        Ok(v) => {
            println!("{}", serde_json::to_string_pretty(&v).expect("a JSON value serialises"));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("read_group: {e}");
            ExitCode::from(2)
        }
    }
}
