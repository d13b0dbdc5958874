//! The read-only requests, each with its decoder. Field names are the Java classes' (the bodies
//! are fastjson output of `TopicRouteData`, `GetConsumerListByGroupResponseBody`,
//! `ConsumerConnection` and `ConsumerRunningInfo`); a missing optional field reads as its default,
//! a missing required one is an error naming it.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::fastjson::Json;
use crate::{Connection, Error, ReadOnly, Result};

/// A queue as the bodies key it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Queue {
    pub topic: String,
    pub broker_name: String,
    pub queue_id: u32,
}

/// `TopicRouteData`: the brokers of a topic and their queue counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicRoute {
    pub queue_datas: Vec<QueueData>,
    pub broker_datas: Vec<BrokerData>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueData {
    pub broker_name: String,
    pub read_queue_nums: u32,
    pub write_queue_nums: u32,
    pub perm: i64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokerData {
    pub cluster: String,
    pub broker_name: String,
    /// Broker id (0 is the master) to address.
    pub addrs: BTreeMap<i64, String>,
}

/// One connection of a group (`Connection`): no subscriptions, those are the group's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientConnection {
    pub client_id: String,
    pub client_addr: String,
    pub language: String,
    pub version: i64,
}

/// `ConsumerConnection`.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupConnections {
    pub connections: Vec<ClientConnection>,
    /// Topic to its subscription, group-level: replaced by each member's heartbeat.
    pub subscriptions: BTreeMap<String, Json>,
    pub consume_type: Option<String>,
    pub message_model: Option<String>,
}

/// One entry of a running client's `mqTable` (`ProcessQueueInfo`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProcessQueue {
    pub commit_offset: i64,
    pub locked: bool,
    pub last_lock_timestamp: i64,
    /// Java spells it `droped`, Go `dropped`; either is read.
    pub dropped: bool,
    pub try_unlock_times: i64,
    pub last_pull_timestamp: i64,
    pub last_consume_timestamp: i64,
    pub cached_msg_count: i64,
}

/// `ConsumerRunningInfo`, the parts a diagnosis reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunningInfo {
    pub properties: BTreeMap<String, String>,
    /// Its `subscriptionSet`.
    pub subscriptions: Vec<SubscriptionData>,
    pub held: BTreeMap<Queue, ProcessQueue>,
    /// The keys of its `mqPopTable` (queues consumed by POP; 5.x clients).
    pub pop_queues: Vec<Queue>,
}

/// `SubscriptionData`, the parts a diagnosis compares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubscriptionData {
    pub topic: String,
    pub sub_string: String,
    pub expression_type: String,
    /// Milliseconds from Java, nanoseconds from Go.
    pub sub_version: i64,
}

/// One queue's `OffsetWrapper` in `ConsumeStats`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Offsets {
    pub broker_offset: i64,
    pub consumer_offset: i64,
    pub last_timestamp: i64,
}

/// A broker relays running info to its client with a 10 s timeout: wait a little longer.
pub const RUNNING_INFO_TIMEOUT: Duration = Duration::from_secs(15);

fn fields(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

/// Sends `request` and parses the body of a successful answer.
fn ask(conn: &mut Connection, request: ReadOnly, pairs: &[(&str, &str)], timeout: Duration) -> Result<Json> {
    ask_unless(conn, request, pairs, timeout, |_, _| false).map(|v| v.unwrap_or(Json::Null))
}

/// [`ask`], except that a refusal `expected` accepts (by code and remark) is `None`, an answer
/// rather than a failure: not counted as one either.
fn ask_unless(
    conn: &mut Connection,
    request: ReadOnly,
    pairs: &[(&str, &str)],
    timeout: Duration,
    expected: impl Fn(i32, &str) -> bool,
) -> Result<Option<Json>> {
    let answer = conn.request(request, fields(pairs), timeout)?;
    if answer.code != 0 && expected(answer.code, answer.remark.as_deref().unwrap_or_default()) {
        return Ok(None);
    }
    if answer.code != 0 {
        conn.refused(request);
        return Err(Error::Refused { what: request.name(), code: answer.code, remark: answer.remark.unwrap_or_default() });
    }
    if answer.body.is_empty() {
        return Err(Error::EmptyAnswer { what: request.name(), remark: answer.remark.unwrap_or_default() });
    }
    Json::parse(&answer.body).map(Some)
}

fn text(v: &Json, key: &str) -> String {
    v.get(key).and_then(Json::as_str).unwrap_or_default().to_owned()
}

fn int(v: &Json, key: &str) -> i64 {
    v.get(key).and_then(Json::as_i64).unwrap_or(0)
}

fn flag(v: &Json, key: &str) -> bool {
    v.get(key).and_then(Json::as_bool).unwrap_or(false)
}

fn required<'a>(v: &'a Json, what: &'static str, key: &str) -> Result<&'a Json> {
    v.get(key).ok_or_else(|| Error::MissingField { what, field: key.to_owned() })
}

/// `GET_ROUTEINFO_BY_TOPIC` to a NameServer.
pub fn route(conn: &mut Connection, topic: &str, timeout: Duration) -> Result<TopicRoute> {
    decode_route(&ask(conn, ReadOnly::RouteInfoByTopic, &[("topic", topic)], timeout)?)
}

pub fn decode_route(v: &Json) -> Result<TopicRoute> {
    let what = ReadOnly::RouteInfoByTopic.name();
    let queue_datas = required(v, what, "queueDatas")?
        .items()
        .iter()
        .map(|q| QueueData {
            broker_name: text(q, "brokerName"),
            read_queue_nums: int(q, "readQueueNums").clamp(0, i64::from(u32::MAX)) as u32,
            write_queue_nums: int(q, "writeQueueNums").clamp(0, i64::from(u32::MAX)) as u32,
            perm: int(q, "perm"),
        })
        .collect();
    let broker_datas = required(v, what, "brokerDatas")?.items().iter().map(broker_data).collect();
    Ok(TopicRoute { queue_datas, broker_datas })
}

fn broker_data(b: &Json) -> BrokerData {
    BrokerData {
        cluster: text(b, "cluster"),
        broker_name: text(b, "brokerName"),
        // Bare-number keys before V4_9_4, string keys after: key_text reads both.
        addrs: b
            .get("brokerAddrs")
            .map(|a| a.members().iter().filter_map(|(id, addr)| Some((id.key_text()?.parse().ok()?, addr.as_str()?.to_owned()))).collect())
            .unwrap_or_default(),
    }
}

/// `GET_CONSUMER_LIST_BY_GROUP` to a broker: the ids a member allocates with, duplicates kept.
/// A broker with no member of the group online says so as a refusal (`SYSTEM_ERROR`, "no consumer
/// for this group, G", 4.9 and 5.x alike): that is an answer, the empty list, not a failure.
pub fn consumer_ids(conn: &mut Connection, group: &str, timeout: Duration) -> Result<Vec<String>> {
    let none_online = |code, remark: &str| code == 1 && remark.starts_with("no consumer for this group");
    let Some(v) = ask_unless(conn, ReadOnly::ConsumerListByGroup, &[("consumerGroup", group)], timeout, none_online)? else {
        return Ok(Vec::new());
    };
    let ids = required(&v, ReadOnly::ConsumerListByGroup.name(), "consumerIdList")?;
    Ok(ids.items().iter().filter_map(|i| i.as_str().map(str::to_owned)).collect())
}

/// `GET_CONSUMER_CONNECTION_LIST` to a broker.
/// `None`: the broker has no consumer of the group online (`CONSUMER_NOT_ONLINE`, 206), an answer.
pub fn connections(conn: &mut Connection, group: &str, timeout: Duration) -> Result<Option<GroupConnections>> {
    let offline = |code, _: &str| code == CONSUMER_NOT_ONLINE;
    ask_unless(conn, ReadOnly::ConsumerConnectionList, &[("consumerGroup", group)], timeout, offline)?.map(|v| decode_connections(&v)).transpose()
}

/// The broker's answer when it has no consumer of the group online.
pub const CONSUMER_NOT_ONLINE: i32 = 206;

pub fn decode_connections(v: &Json) -> Result<GroupConnections> {
    let what = ReadOnly::ConsumerConnectionList.name();
    let connections = required(v, what, "connectionSet")?
        .items()
        .iter()
        .map(|c| ClientConnection {
            client_id: text(c, "clientId"),
            client_addr: text(c, "clientAddr"),
            language: text(c, "language"),
            version: int(c, "version"),
        })
        .collect();
    let subscriptions =
        v.get("subscriptionTable").map(|t| t.members().iter().filter_map(|(k, s)| Some((k.key_text()?.to_owned(), s.clone()))).collect()).unwrap_or_default();
    Ok(GroupConnections {
        connections,
        subscriptions,
        consume_type: v.get("consumeType").and_then(Json::as_str).map(str::to_owned),
        message_model: v.get("messageModel").and_then(Json::as_str).map(str::to_owned),
    })
}

/// `GET_CONSUMER_RUNNING_INFO` to a broker, which relays it to the client (never with jstack: a
/// Go client splices the stack into its JSON unescaped).
pub fn running_info(conn: &mut Connection, group: &str, client_id: &str) -> Result<RunningInfo> {
    let pairs = [("consumerGroup", group), ("clientId", client_id), ("jstackEnable", "false")];
    decode_running_info(&ask(conn, ReadOnly::ConsumerRunningInfo, &pairs, RUNNING_INFO_TIMEOUT)?)
}

pub fn decode_running_info(v: &Json) -> Result<RunningInfo> {
    let what = ReadOnly::ConsumerRunningInfo.name();
    let properties = v
        .get("properties")
        .map(|p| p.members().iter().filter_map(|(k, val)| Some((k.key_text()?.to_owned(), val.key_text().map_or_else(String::new, str::to_owned)))).collect())
        .unwrap_or_default();
    let subscriptions = v
        .get("subscriptionSet")
        .map(|s| {
            s.items()
                .iter()
                .map(|sub| SubscriptionData {
                    topic: text(sub, "topic"),
                    sub_string: text(sub, "subString"),
                    expression_type: sub.get("expressionType").and_then(Json::as_str).unwrap_or("TAG").to_owned(),
                    sub_version: int(sub, "subVersion"),
                })
                .collect()
        })
        .unwrap_or_default();
    let mut held = BTreeMap::new();
    for (key, info) in required(v, what, "mqTable")?.members() {
        let queue = queue_key(key, what, "mqTable")?;
        held.insert(
            queue,
            ProcessQueue {
                commit_offset: int(info, "commitOffset"),
                locked: flag(info, "locked"),
                last_lock_timestamp: int(info, "lastLockTimestamp"),
                dropped: flag(info, "droped") || flag(info, "dropped"),
                try_unlock_times: int(info, "tryUnlockTimes"),
                last_pull_timestamp: int(info, "lastPullTimestamp"),
                last_consume_timestamp: int(info, "lastConsumeTimestamp"),
                cached_msg_count: int(info, "cachedMsgCount"),
            },
        );
    }
    let pop_queues = match v.get("mqPopTable") {
        Some(t) => t.members().iter().map(|(key, _)| queue_key(key, what, "mqPopTable")).collect::<Result<_>>()?,
        None => Vec::new(),
    };
    Ok(RunningInfo { properties, subscriptions, held, pop_queues })
}

/// A `MessageQueue` used as a map key (fastjson writes the object itself as the key).
fn queue_key(key: &Json, what: &'static str, table: &str) -> Result<Queue> {
    let queue_id = key.get("queueId").and_then(Json::as_i64).and_then(|q| u32::try_from(q).ok());
    let Some(queue_id) = queue_id else {
        return Err(Error::MissingField { what, field: format!("a queueId in an {table} key") });
    };
    Ok(Queue { topic: text(key, "topic"), broker_name: text(key, "brokerName"), queue_id })
}

/// `GET_CONSUME_STATS` to a broker, no topic: the offsets of every queue of the group it keeps.
pub fn consume_stats(conn: &mut Connection, group: &str, timeout: Duration) -> Result<BTreeMap<Queue, Offsets>> {
    decode_consume_stats(&ask(conn, ReadOnly::ConsumeStats, &[("consumerGroup", group)], timeout)?)
}

pub fn decode_consume_stats(v: &Json) -> Result<BTreeMap<Queue, Offsets>> {
    let what = ReadOnly::ConsumeStats.name();
    let mut out = BTreeMap::new();
    for (key, o) in required(v, what, "offsetTable")?.members() {
        let offsets = Offsets { broker_offset: int(o, "brokerOffset"), consumer_offset: int(o, "consumerOffset"), last_timestamp: int(o, "lastTimestamp") };
        out.insert(queue_key(key, what, "offsetTable")?, offsets);
    }
    Ok(out)
}

/// `ClusterInfo`: every broker name with its addresses, and the clusters' broker names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClusterInfo {
    pub brokers: Vec<BrokerData>,
    /// Cluster name to its broker names.
    pub clusters: BTreeMap<String, Vec<String>>,
}

/// `GET_BROKER_CLUSTER_INFO` to a NameServer.
pub fn cluster_info(conn: &mut Connection, timeout: Duration) -> Result<ClusterInfo> {
    decode_cluster_info(&ask(conn, ReadOnly::BrokerClusterInfo, &[], timeout)?)
}

pub fn decode_cluster_info(v: &Json) -> Result<ClusterInfo> {
    let table = required(v, ReadOnly::BrokerClusterInfo.name(), "brokerAddrTable")?;
    let brokers = table.members().iter().map(|(_, b)| broker_data(b)).collect();
    let clusters = v
        .get("clusterAddrTable")
        .map(|t| {
            t.members()
                .iter()
                .filter_map(|(name, names)| Some((name.key_text()?.to_owned(), names.items().iter().filter_map(|n| n.as_str().map(str::to_owned)).collect())))
                .collect()
        })
        .unwrap_or_default();
    Ok(ClusterInfo { brokers, clusters })
}

/// `GET_ALL_SUBSCRIPTIONGROUP_CONFIG` to a broker: the names of its subscription groups (every
/// group that ever sent it a heartbeat, while the broker creates them on the fly as by default).
pub fn subscription_groups(conn: &mut Connection, timeout: Duration) -> Result<Vec<String>> {
    decode_subscription_groups(&ask(conn, ReadOnly::AllSubscriptionGroups, &[], timeout)?)
}

pub fn decode_subscription_groups(v: &Json) -> Result<Vec<String>> {
    let table = required(v, ReadOnly::AllSubscriptionGroups.name(), "subscriptionGroupTable")?;
    Ok(table.members().iter().filter_map(|(name, _)| name.key_text().map(str::to_owned)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shapes the spec's wire notes describe: numeric broker ids, object keys in mqTable, Go's
    /// `dropped` beside Java's `droped`.
    #[test]
    fn bodies_in_both_spellings_decode() {
        let route = Json::parse(br#"{"queueDatas":[{"brokerName":"b","readQueueNums":4,"writeQueueNums":4,"perm":6}],"brokerDatas":[{"cluster":"c","brokerName":"b","brokerAddrs":{0:"127.0.0.1:10911"}}]}"#).unwrap();
        let r = decode_route(&route).unwrap();
        assert_eq!(r.queue_datas[0].read_queue_nums, 4);
        assert_eq!(r.broker_datas[0].addrs.get(&0).map(String::as_str), Some("127.0.0.1:10911"));
        let info = Json::parse(
            br#"{"properties":{"allocateMessageQueueStrategy":"X@1"},"subscriptionSet":[{"topic":"T","subVersion":17}],
                "mqTable":{{"topic":"T","brokerName":"b","queueId":1}:{"locked":true,"droped":true},
                           {"topic":"T","brokerName":"b","queueId":2}:{"dropped":true,"commitOffset":"5"}}}"#,
        )
        .unwrap();
        let i = decode_running_info(&info).unwrap();
        assert_eq!(i.properties["allocateMessageQueueStrategy"], "X@1");
        assert_eq!((i.subscriptions[0].topic.as_str(), i.subscriptions[0].sub_version), ("T", 17));
        let stats = Json::parse(
            br#"{"consumeTps":0.0,"offsetTable":{{"brokerName":"b","queueId":3,"topic":"T"}:{"brokerOffset":9,"consumerOffset":4,"lastTimestamp":1}}}"#,
        )
        .unwrap();
        let stats = decode_consume_stats(&stats).unwrap();
        assert_eq!(stats[&Queue { topic: "T".into(), broker_name: "b".into(), queue_id: 3 }].broker_offset, 9);
        let q = |id| Queue { topic: "T".into(), broker_name: "b".into(), queue_id: id };
        assert!(i.held[&q(1)].locked && i.held[&q(1)].dropped);
        assert!(i.held[&q(2)].dropped && i.held[&q(2)].commit_offset == 5);
    }

    /// The shapes of a 5.3 NameServer's `ClusterInfo` and a broker's `SubscriptionGroupWrapper`
    /// (string-keyed broker ids; a group table keyed by name, with a data version beside it).
    #[test]
    fn cluster_info_and_subscription_groups_decode() {
        let info = Json::parse(
            br#"{"brokerAddrTable":{"broker-a":{"cluster":"C","brokerName":"broker-a","brokerAddrs":{"0":"127.0.0.1:10911","1":"127.0.0.1:10921"}}},"clusterAddrTable":{"C":["broker-a"]}}"#,
        )
        .unwrap();
        let info = decode_cluster_info(&info).unwrap();
        assert_eq!(info.brokers[0].addrs.get(&1).map(String::as_str), Some("127.0.0.1:10921"));
        assert_eq!(info.clusters["C"], ["broker-a"]);
        let groups =
            Json::parse(br#"{"subscriptionGroupTable":{"G1":{"groupName":"G1"},"TOOLS_CONSUMER":{"groupName":"TOOLS_CONSUMER"}},"dataVersion":{"counter":3}}"#)
                .unwrap();
        assert_eq!(decode_subscription_groups(&groups).unwrap(), ["G1", "TOOLS_CONSUMER"]);
        let err = decode_subscription_groups(&Json::parse(b"{}").unwrap()).unwrap_err();
        assert!(err.to_string().contains("subscriptionGroupTable"), "{err}");
    }

    #[test]
    fn a_missing_required_field_is_named() {
        let err = decode_route(&Json::parse(br#"{"brokerDatas":[]}"#).unwrap()).unwrap_err();
        assert!(err.to_string().contains("queueDatas"), "{err}");
        let err = decode_running_info(&Json::parse(br#"{"mqTable":{{"topic":"T"}:{}}}"#).unwrap()).unwrap_err();
        assert!(err.to_string().contains("queueId"), "{err}");
    }
}
