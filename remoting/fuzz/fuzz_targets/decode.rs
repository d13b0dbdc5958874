//! One input, every decoder: as a stream of frames, as one frame's content (both header
//! encodings), and as a body (the tolerant JSON reader, then each typed decoder on what it read).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rocketmq_rebalance_remoting::fastjson::Json;
use rocketmq_rebalance_remoting::frame::{read_frame, MAX_FRAME};
use rocketmq_rebalance_remoting::requests::{
    decode_cluster_info, decode_connections, decode_consume_stats, decode_route, decode_running_info, decode_subscription_groups,
};
use rocketmq_rebalance_remoting::RemotingCommand;

fuzz_target!(|data: &[u8]| {
    let mut stream = data;
    while let Ok(content) = read_frame(&mut stream, MAX_FRAME) {
        let _ = RemotingCommand::decode(&content);
    }
    if let Ok(cmd) = RemotingCommand::decode(data) {
        let _ = Json::parse(&cmd.body);
    }
    if let Ok(v) = Json::parse(data) {
        let _ = decode_route(&v);
        let _ = decode_connections(&v);
        let _ = decode_running_info(&v);
        let _ = decode_consume_stats(&v);
        let _ = decode_cluster_info(&v);
        let _ = decode_subscription_groups(&v);
    }
});
