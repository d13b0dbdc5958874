//! The compact queue notation of the human form: `TOPIC@BROKER:IDS`, IDS a list of ids and
//! ranges (`0-7`, `0-3,8`). The topic ends at the first `@` (RocketMQ topics cannot contain one;
//! broker names can, e.g. `idc1@broker-a`), the broker at the last `:`.

use rocketmq_rebalance::MessageQueue;

pub fn parse(spec: &str) -> Result<Vec<MessageQueue>, String> {
    let bad = |why: &str| format!("bad queue spec {spec:?}: {why} (expected TOPIC@BROKER:IDS, e.g. TopicA@broker-a:0-7)");
    let (topic, rest) = spec.split_once('@').ok_or_else(|| bad("no '@' after the topic"))?;
    let (broker, ids) = rest.rsplit_once(':').ok_or_else(|| bad("no ':' before the queue ids"))?;
    if topic.is_empty() || broker.is_empty() {
        return Err(bad("empty topic or broker"));
    }
    let mut queues = Vec::new();
    for part in ids.split(',') {
        let part = part.trim();
        // Queue ids are Java ints from 0: a leading '-' is a negative id, not an empty range start.
        if part.starts_with('-') {
            return Err(bad(&format!("{part:?}: queue ids are not negative (0 to {})", i32::MAX)));
        }
        let number = |s: &str| match s.trim().parse::<u64>() {
            Ok(n) => i32::try_from(n).map_err(|_| bad(&format!("queue id {n} is above {}, the largest Java int", i32::MAX))),
            Err(_) => Err(bad(&format!("{:?} is not a queue id (a whole number 0 to {}; a range is LO-HI)", s.trim(), i32::MAX))),
        };
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => (number(part)?, number(part)?),
        };
        if hi < lo {
            return Err(bad(&format!("range {part:?} is empty: LO-HI needs LO <= HI")));
        }
        if i64::from(hi) - i64::from(lo) >= 1_000_000 {
            return Err(bad(&format!("range {part:?} has more than 1,000,000 ids")));
        }
        queues.extend((lo..=hi).map(|id| MessageQueue::new(topic, broker, id)));
    }
    Ok(queues)
}

/// The inverse, for display: consecutive ids of one topic and broker folded into ranges.
pub fn format(queues: &[&MessageQueue]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < queues.len() {
        let q = queues[i];
        let mut ids: Vec<String> = Vec::new();
        let mut j = i;
        while j < queues.len() && queues[j].topic == q.topic && queues[j].broker_name == q.broker_name {
            let start = queues[j].queue_id;
            let mut end = start;
            while j + 1 < queues.len()
                && queues[j + 1].topic == q.topic
                && queues[j + 1].broker_name == q.broker_name
                && Some(queues[j + 1].queue_id) == end.checked_add(1)
            {
                j += 1;
                end = queues[j].queue_id;
            }
            ids.push(if start == end { start.to_string() } else { format!("{start}-{end}") });
            j += 1;
        }
        out.push(format!("{}@{}:{}", q.topic, q.broker_name, ids.join(",")));
        i = j;
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ranges_and_lists() {
        let qs = parse("TopicA@idc1@broker-a:0-2,5").unwrap();
        assert_eq!(qs.len(), 4);
        assert_eq!(qs[0], MessageQueue::new("TopicA", "idc1@broker-a", 0));
        assert_eq!(qs[3].queue_id, 5);
        assert!(parse("TopicA:0").is_err());
        assert!(parse("TopicA@b:3-1").is_err());
        assert!(parse("TopicA@b:x").is_err());
    }

    #[test]
    fn says_what_is_wrong_with_an_id() {
        let negative = parse("T@b:-3-2").unwrap_err();
        assert!(negative.contains("not negative"), "{negative}");
        let too_big = parse("T@b:0-2147483648").unwrap_err();
        assert!(too_big.contains("2147483647"), "{too_big}");
        assert!(parse("T@b:2147483647").is_ok());
        let reversed = parse("T@b:5-3").unwrap_err();
        assert!(reversed.contains("LO <= HI"), "{reversed}");
    }

    #[test]
    fn formats_back_to_ranges() {
        let qs = parse("T@b:0-2,5").unwrap();
        let refs: Vec<&MessageQueue> = qs.iter().collect();
        assert_eq!(format(&refs), "T@b:0-2,5");
    }
}
