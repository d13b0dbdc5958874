//! Burrow's per-partition evaluation, on a RocketMQ queue: a window of the last rounds' offsets,
//! judged without thresholds. Burrow keeps one entry per offset commit; a RocketMQ broker does not
//! say when a group last committed, but every client that holds a queue commits it every few
//! seconds (Java's `persistConsumerOffsetInterval`, 5 s; Go likewise), so a round's sample counts
//! as a commit when a live client holds the queue or the committed offset moved. A queue nobody
//! holds, or whose holder went silent, stops committing, which is what Burrow calls STOP.

use serde::{Deserialize, Serialize};

/// A queue's state over the window, worst last as Burrow orders them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum QueueStatus {
    /// Caught up at some point of the window, or keeping up.
    Ok,
    /// Committing, but the lag never went down over the window: a consumer falling behind.
    Warn,
    /// Committing the same offset over the whole window while messages wait.
    Stall,
    /// Nobody committed for longer than the window's committed span, with messages waiting.
    Stop,
    /// The committed offset went backwards: messages are consumed again (an offset reset, or a
    /// stale commit from a client that lost the queue).
    Rewind,
}

impl QueueStatus {
    /// Every status, in the order above (the order of the exported state set).
    pub const ALL: [QueueStatus; 5] = [QueueStatus::Ok, QueueStatus::Warn, QueueStatus::Stall, QueueStatus::Stop, QueueStatus::Rewind];

    /// Its name as Burrow writes it, which is also the exported label value.
    pub fn name(self) -> &'static str {
        match self {
            QueueStatus::Ok => "OK",
            QueueStatus::Warn => "WARN",
            QueueStatus::Stall => "STALL",
            QueueStatus::Stop => "STOP",
            QueueStatus::Rewind => "REWIND",
        }
    }

    /// How bad, for "the group's status is its worst queue's": OK < WARN < STALL < STOP < REWIND.
    pub fn severity(self) -> u8 {
        self as u8
    }
}

/// One round's reading of one queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// When the round read it (ms since the epoch).
    pub at_ms: i64,
    /// The group's committed offset (negative: nothing committed yet).
    pub consumer_offset: i64,
    /// The queue's max offset on its broker.
    pub broker_offset: i64,
    /// A live client held the queue, or its committed offset moved: the round saw a commit.
    pub committed: bool,
}

impl Sample {
    pub fn lag(&self) -> i64 {
        super::super::snapshot::lag(self.broker_offset, self.consumer_offset)
    }
}

/// The window's size and how full it must be before anything but OK is said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowRules {
    /// Samples kept per queue (Burrow's `intervals`, 10 by default there and here).
    pub samples: usize,
    /// Samples needed before a queue is judged at all (Burrow's `minimum-complete`): with one
    /// sample every "over the window" rule is trivially true, so 3 by default.
    pub min_samples: usize,
}

impl Default for WindowRules {
    fn default() -> Self {
        WindowRules { samples: 10, min_samples: 3 }
    }
}

/// The last samples of one queue, oldest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Window {
    samples: Vec<Sample>,
}

impl Window {
    /// Adds this round's sample, dropping the oldest beyond `rules.samples`.
    pub fn push(&mut self, sample: Sample, rules: WindowRules) {
        self.samples.push(sample);
        let excess = self.samples.len().saturating_sub(rules.samples.max(1));
        self.samples.drain(..excess);
    }

    pub fn samples(&self) -> &[Sample] {
        &self.samples
    }

    /// The status at `now_ms` (normally the last sample's time).
    pub fn status(&self, rules: WindowRules, now_ms: i64) -> QueueStatus {
        if self.samples.len() < rules.min_samples.max(1) {
            return QueueStatus::Ok;
        }
        evaluate(&self.samples, now_ms)
    }
}

/// Burrow's rules, evaluated in this order on a window (oldest first, not empty):
/// 1. the current lag is 0: OK;
/// 2. STOP: nothing committed in the window, or the time since the last commit is longer than the
///    span from the window's first sample to that commit; unless the broker's offset was at or
///    below the last committed offset somewhere in the window (caught up recently, Burrow's own
///    exemption);
/// 3. REWIND: the committed offset went down between two samples;
/// 4. OK if the lag was 0 at any sample;
/// 5. STALL: the committed offset is the same at every sample;
/// 6. WARN: the lag never went down from one sample to the next;
/// 7. otherwise OK.
///
/// Burrow's current code checks REWIND after "lag was once 0"; here a rewind is said even in a
/// window where the queue was caught up, because in RocketMQ it means messages delivered again
/// (a stale commit from a client that lost the queue), which no later catch-up undoes.
pub fn evaluate(samples: &[Sample], now_ms: i64) -> QueueStatus {
    let Some(last) = samples.last() else { return QueueStatus::Ok };
    if last.lag() == 0 {
        return QueueStatus::Ok;
    }
    if stopped(samples, now_ms) {
        return QueueStatus::Stop;
    }
    if samples.windows(2).any(|p| p[1].consumer_offset < p[0].consumer_offset) {
        return QueueStatus::Rewind;
    }
    if samples.iter().any(|s| s.lag() == 0) {
        return QueueStatus::Ok;
    }
    if samples.windows(2).all(|p| p[1].consumer_offset == p[0].consumer_offset) {
        return QueueStatus::Stall;
    }
    if samples.windows(2).all(|p| p[1].lag() >= p[0].lag()) {
        return QueueStatus::Warn;
    }
    QueueStatus::Ok
}

fn stopped(samples: &[Sample], now_ms: i64) -> bool {
    let first = samples[0].at_ms;
    let Some(last_commit) = samples.iter().rev().find(|s| s.committed) else {
        // Nobody committed in the whole window: stopped, unless it was caught up in it.
        return !samples.iter().any(|s| s.lag() == 0);
    };
    let caught_up_recently = samples.iter().any(|s| s.broker_offset <= last_commit.consumer_offset);
    now_ms - last_commit.at_ms > last_commit.at_ms - first && !caught_up_recently
}
