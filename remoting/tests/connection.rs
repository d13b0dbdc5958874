//! The client against fake servers on loopback (ports chosen by the OS): every way an answer can
//! go wrong ends in a typed error within the request's timeout, never a hang or a panic.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::thread;
use std::time::{Duration, Instant};

use rocketmq_rebalance_remoting::{Connection, Error, ReadOnly, RemotingCommand};

/// A server that accepts one connection, reads one request frame, and hands it to `answer`.
fn serve(answer: impl FnOnce(&mut std::net::TcpStream, RemotingCommand) + Send + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut len = [0u8; 4];
        stream.read_exact(&mut len).unwrap();
        let mut content = vec![0u8; u32::from_be_bytes(len) as usize];
        stream.read_exact(&mut content).unwrap();
        answer(&mut stream, RemotingCommand::decode(&content).unwrap());
    });
    addr
}

fn frame(content: &[u8]) -> Vec<u8> {
    let mut out = (content.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(content);
    out
}

fn response_to(request: &RemotingCommand, body: &[u8]) -> Vec<u8> {
    let mut r = RemotingCommand { code: 0, flag: 1, opaque: request.opaque, language: "JAVA".into(), ..RemotingCommand::default() };
    r.body = body.to_vec();
    frame(&r.encode())
}

fn group(g: &str) -> BTreeMap<String, String> {
    [("consumerGroup".to_owned(), g.to_owned())].into()
}

const SHORT: Duration = Duration::from_millis(400);

#[test]
fn the_answer_with_our_opaque_is_returned_and_anything_else_skipped() {
    let addr = serve(|s, req| {
        assert_eq!(req.code, 38);
        assert_eq!(req.ext_fields.get("consumerGroup").map(String::as_str), Some("G"));
        // A request of the server's own, then a stale answer, then ours.
        let server_request = RemotingCommand { code: 40, opaque: 99, ..RemotingCommand::default() };
        s.write_all(&frame(&server_request.encode())).unwrap();
        let stale = RemotingCommand { flag: 1, opaque: req.opaque + 1000, ..RemotingCommand::default() };
        s.write_all(&frame(&stale.encode())).unwrap();
        s.write_all(&response_to(&req, br#"{"consumerIdList":["a"]}"#)).unwrap();
    });
    let mut c = Connection::open(&addr, SHORT).unwrap();
    let answer = c.request(ReadOnly::ConsumerListByGroup, group("G"), Duration::from_secs(5)).unwrap();
    assert_eq!(answer.body, br#"{"consumerIdList":["a"]}"#);
}

#[test]
fn a_server_that_never_answers_times_out() {
    let addr = serve(|_, _| thread::sleep(Duration::from_secs(3)));
    let mut c = Connection::open(&addr, SHORT).unwrap();
    let start = Instant::now();
    let err = c.request(ReadOnly::ConsumeStats, group("G"), SHORT).unwrap_err();
    assert!(matches!(err, Error::Timeout { .. }), "{err}");
    assert!(start.elapsed() < Duration::from_secs(3), "gave up at the deadline, not when the server did");
}

#[test]
fn a_server_that_drips_bytes_still_times_out_at_the_deadline() {
    let addr = serve(|s, _| {
        for b in [0u8, 0, 0, 100, 0, 0, 0] {
            if s.write_all(&[b]).is_err() {
                return;
            }
            thread::sleep(Duration::from_millis(150));
        }
    });
    let mut c = Connection::open(&addr, SHORT).unwrap();
    let start = Instant::now();
    let err = c.request(ReadOnly::ConsumeStats, group("G"), Duration::from_millis(500)).unwrap_err();
    assert!(matches!(err, Error::Timeout { .. }), "{err}");
    assert!(start.elapsed() < Duration::from_millis(1000), "{:?}", start.elapsed());
}

#[test]
fn a_close_in_the_middle_of_a_frame_is_said() {
    let addr = serve(|s, _| s.write_all(&[0, 0, 0, 50, 0, 0]).unwrap());
    let mut c = Connection::open(&addr, SHORT).unwrap();
    let err = c.request(ReadOnly::RouteInfoByTopic, BTreeMap::new(), Duration::from_secs(5)).unwrap_err();
    assert!(matches!(err, Error::Closed { mid_frame: true, .. }), "{err}");
}

#[test]
fn a_huge_length_prefix_is_refused() {
    let addr = serve(|s, _| s.write_all(&[0x7F, 0xFF, 0xFF, 0xFF]).unwrap());
    let mut c = Connection::open(&addr, SHORT).unwrap();
    let err = c.request(ReadOnly::RouteInfoByTopic, BTreeMap::new(), Duration::from_secs(5)).unwrap_err();
    assert!(matches!(err, Error::FrameTooLarge { .. }), "{err}");
    assert!(err.to_string().starts_with("127.0.0.1:"), "the error names the peer: {err}");
}

#[test]
fn an_http_server_is_named_and_recognised() {
    // What an HTTP server sends first: its 4 bytes read as a length of 1213486160.
    let addr = serve(|s, _| s.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n").unwrap());
    let mut c = Connection::open(&addr, SHORT).unwrap();
    let err = c.request(ReadOnly::RouteInfoByTopic, BTreeMap::new(), Duration::from_secs(5)).unwrap_err().to_string();
    assert!(err.starts_with(&format!("{addr} announced a frame of 1213486160 bytes")), "{err}");
    assert!(err.contains("\"HTTP\": not a RocketMQ remoting server?"), "{err}");
}

#[test]
fn a_garbage_frame_is_refused() {
    let addr = serve(|s, _| s.write_all(&frame(&[9, 0, 0, 2, b'{', b'}'])).unwrap());
    let mut c = Connection::open(&addr, SHORT).unwrap();
    let err = c.request(ReadOnly::RouteInfoByTopic, BTreeMap::new(), Duration::from_secs(5)).unwrap_err();
    assert!(matches!(err, Error::BadFrame(_)), "{err}");
}

#[test]
fn nobody_listening_is_a_connect_error() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port(); // bound, then closed
    let err = Connection::open(&format!("127.0.0.1:{port}"), SHORT).err().expect("nothing listens there");
    assert!(matches!(err, Error::Connect { .. }), "{err}");
    assert!(err.to_string().contains(&port.to_string()), "{err}");
}

#[test]
fn only_read_only_codes_exist() {
    let codes: Vec<i32> = ReadOnly::ALL.iter().map(|r| r.code()).collect();
    assert_eq!(codes, [105, 38, 203, 307, 208, 352, 106, 201]);
    assert!(!codes.contains(&41) && !codes.contains(&42), "LOCK_BATCH_MQ and UNLOCK_BATCH_MQ are not reads");
}

#[test]
fn a_success_without_a_body_says_the_clients_remark() {
    // rocketmq-client-go answers running info so when it cannot encode its statistics: code 0, no
    // body, the encoder's error in the remark (seen on the test command's cluster).
    let addr = serve(|s, req| {
        let r = RemotingCommand {
            flag: 1,
            opaque: req.opaque,
            remark: Some("json marshal error: json: unsupported value: NaN".into()),
            ..RemotingCommand::default()
        };
        s.write_all(&frame(&r.encode())).unwrap();
    });
    let mut c = Connection::open(&addr, SHORT).unwrap();
    let err = rocketmq_rebalance_remoting::requests::running_info(&mut c, "G", "192.0.2.2@1").unwrap_err();
    assert!(matches!(&err, Error::EmptyAnswer { remark, .. } if remark.ends_with("unsupported value: NaN")), "{err:?}");
    assert!(err.to_string().contains("has no body, and says: json marshal error"), "{err}");
}

/// A port nothing listens on (bound, then closed).
fn closed_port() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().to_string()
}

#[test]
fn every_nameserver_that_failed_is_named() {
    use rocketmq_rebalance_remoting::read::{read_group, Options};
    let (a, b) = (closed_port(), closed_port());
    let options = Options { timeout: SHORT, ..Options::default() };
    let err = read_group(&format!("{a};{b}"), "G", &[], &options).unwrap_err().to_string();
    assert!(err.contains("none of 2 NameServers answered"), "{err}");
    assert!(err.contains(&format!("cannot connect to {a}")) && err.contains(&format!("cannot connect to {b}")), "{err}");
}

#[test]
fn a_broker_that_does_not_answer_is_named_not_the_consumers() {
    use rocketmq_rebalance_remoting::read::{read_group, Options};
    // A broker that accepts and then says nothing (a frozen process keeps its socket open).
    let hung = TcpListener::bind("127.0.0.1:0").unwrap();
    let broker = hung.local_addr().unwrap().to_string();
    thread::spawn(move || {
        let connection = hung.accept();
        thread::sleep(Duration::from_secs(3));
        drop(connection);
    });
    let route = format!(
        r#"{{"brokerDatas":[{{"brokerAddrs":{{0:"{broker}"}},"brokerName":"broker-a","cluster":"c"}}],"queueDatas":[{{"brokerName":"broker-a","perm":6,"readQueueNums":1,"writeQueueNums":1}}]}}"#
    );
    let namesrv = serve(move |s, req| s.write_all(&response_to(&req, route.as_bytes())).unwrap());
    let options = Options { timeout: SHORT, ..Options::default() };
    let err = read_group(&namesrv, "G", &[], &options).unwrap_err().to_string();
    assert!(err.contains(&format!("broker-a at {broker}: {broker} did not answer within 400 ms")), "{err}");
    assert!(err.contains("0 of 1 brokers answered"), "{err}");
}

/// A broker with no member of the group online refuses the member list with `SYSTEM_ERROR` and
/// "no consumer for this group, G" (4.9 and 5.x): read as the empty list, any other refusal kept.
#[test]
fn no_consumer_for_this_group_is_an_empty_member_list() {
    let refuse = |remark: &'static str| {
        serve(move |s, req| {
            let r = RemotingCommand { code: 1, flag: 1, opaque: req.opaque, remark: Some(remark.into()), ..RemotingCommand::default() };
            s.write_all(&frame(&r.encode())).unwrap();
        })
    };
    let ids = |addr: String| rocketmq_rebalance_remoting::requests::consumer_ids(&mut Connection::open(&addr, SHORT).unwrap(), "G", SHORT);
    assert_eq!(ids(refuse("no consumer for this group, G")).unwrap(), Vec::<String>::new());
    let err = ids(refuse("something else")).unwrap_err();
    assert!(matches!(err, Error::Refused { code: 1, .. }), "{err}");
}

/// With an `Unreachable` list, an address that timed out is not asked again until the list is
/// cleared: a hung server costs one deadline, not one per request (watch clears it each round).
#[test]
fn an_address_that_timed_out_is_skipped_until_cleared() {
    use std::sync::Arc;

    use rocketmq_rebalance_remoting::read::{read_group, Options, Unreachable};
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    // Accepts every connection and never answers.
    thread::spawn(move || {
        let mut held = Vec::new();
        for s in listener.incoming() {
            held.push(s);
        }
    });
    let unreachable = Arc::new(Unreachable::default());
    let options = Options { timeout: SHORT, unreachable: Some(Arc::clone(&unreachable)), ..Options::default() };
    let first = read_group(&addr, "G", &[], &options).unwrap_err();
    assert!(matches!(first, Error::Timeout { .. }), "{first}");
    let second = read_group(&addr, "G", &[], &options).unwrap_err();
    assert!(matches!(second, Error::Skipped { .. }) && second.to_string().contains(&addr), "{second}");
    unreachable.clear();
    let third = read_group(&addr, "G", &[], &options).unwrap_err();
    assert!(matches!(third, Error::Timeout { .. }), "{third}");
}
