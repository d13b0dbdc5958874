//! One TCP connection to a NameServer or a broker: blocking, one request in flight, every read
//! bounded by the request's deadline (a server that never answers, or drips bytes, cannot hang
//! us), answers matched by `opaque` (anything else the server sends is skipped).

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::command::RemotingCommand;
use crate::frame::{self, ReadError, MAX_FRAME};
use crate::signing::Credentials;
use crate::stats::RequestStats;
use crate::{Error, Result};

/// The only requests this client can send: all read-only. Never `LOCK_BATCH_MQ` (41: a "probe"
/// would take every free lock) or `UNLOCK_BATCH_MQ` (42), never running info with `jstackEnable`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadOnly {
    /// NameServer: a topic's brokers and queue counts (`topic`).
    RouteInfoByTopic,
    /// Broker: the member list a client allocates with (`consumerGroup`).
    ConsumerListByGroup,
    /// Broker: the group's connections and its group-level subscriptions (`consumerGroup`).
    ConsumerConnectionList,
    /// Broker, relayed to one client: what it holds (`consumerGroup`, `clientId`).
    ConsumerRunningInfo,
    /// Broker: offsets and lag of its own queues (`consumerGroup`, `topic`).
    ConsumeStats,
    /// Broker: the group's configuration (`group`).
    SubscriptionGroupConfig,
    /// NameServer: every broker of every cluster (no fields).
    BrokerClusterInfo,
    /// Broker: every consumer group it has a subscription group for (no fields).
    AllSubscriptionGroups,
}

impl ReadOnly {
    pub const ALL: [ReadOnly; 8] = [
        ReadOnly::RouteInfoByTopic,
        ReadOnly::ConsumerListByGroup,
        ReadOnly::ConsumerConnectionList,
        ReadOnly::ConsumerRunningInfo,
        ReadOnly::ConsumeStats,
        ReadOnly::SubscriptionGroupConfig,
        ReadOnly::BrokerClusterInfo,
        ReadOnly::AllSubscriptionGroups,
    ];

    /// Its place in [`ReadOnly::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The request code (`RequestCode` in the Java sources).
    pub fn code(self) -> i32 {
        match self {
            ReadOnly::RouteInfoByTopic => 105,
            ReadOnly::ConsumerListByGroup => 38,
            ReadOnly::ConsumerConnectionList => 203,
            ReadOnly::ConsumerRunningInfo => 307,
            ReadOnly::ConsumeStats => 208,
            ReadOnly::SubscriptionGroupConfig => 352,
            ReadOnly::BrokerClusterInfo => 106,
            ReadOnly::AllSubscriptionGroups => 201,
        }
    }

    /// Its name in the Java sources, for messages.
    pub fn name(self) -> &'static str {
        match self {
            ReadOnly::RouteInfoByTopic => "GET_ROUTEINFO_BY_TOPIC",
            ReadOnly::ConsumerListByGroup => "GET_CONSUMER_LIST_BY_GROUP",
            ReadOnly::ConsumerConnectionList => "GET_CONSUMER_CONNECTION_LIST",
            ReadOnly::ConsumerRunningInfo => "GET_CONSUMER_RUNNING_INFO",
            ReadOnly::ConsumeStats => "GET_CONSUME_STATS",
            ReadOnly::SubscriptionGroupConfig => "GET_SUBSCRIPTIONGROUP_CONFIG",
            ReadOnly::BrokerClusterInfo => "GET_BROKER_CLUSTER_INFO",
            ReadOnly::AllSubscriptionGroups => "GET_ALL_SUBSCRIPTIONGROUP_CONFIG",
        }
    }
}

pub struct Connection {
    addr: String,
    stream: TcpStream,
    next_opaque: i32,
    max_frame: u64,
    credentials: Option<Credentials>,
    stats: Option<Arc<RequestStats>>,
}

impl Connection {
    /// Connects to `addr` (`host:port`), trying each address it resolves to for up to `timeout`.
    pub fn open(addr: &str, timeout: Duration) -> Result<Self> {
        let connect_error = |source| Error::Connect { addr: addr.to_owned(), source };
        let mut last = io::Error::new(io::ErrorKind::NotFound, "the address resolves to nothing");
        for sock in addr.to_socket_addrs().map_err(connect_error)? {
            match TcpStream::connect_timeout(&sock, timeout) {
                Ok(stream) => {
                    stream.set_nodelay(true).map_err(connect_error)?;
                    return Ok(Connection { addr: addr.to_owned(), stream, next_opaque: 1, max_frame: MAX_FRAME, credentials: None, stats: None });
                }
                Err(e) => last = e,
            }
        }
        Err(connect_error(last))
    }

    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// Signs every request from now on with `credentials` (a cluster with ACL), or none.
    pub fn signing(mut self, credentials: Option<Credentials>) -> Self {
        self.credentials = credentials;
        self
    }

    /// Counts every request from now on, and every failure (no answer, or a refusal), in `stats`.
    pub fn counting(mut self, stats: Option<Arc<RequestStats>>) -> Self {
        self.stats = stats;
        self
    }

    /// Notes a refusal of `request` (an answer with a code other than success).
    pub(crate) fn refused(&self, request: ReadOnly) {
        if let Some(stats) = &self.stats {
            stats.failed(request);
        }
    }

    /// Sends `request` with these header fields and waits up to `timeout` for its answer
    /// (running info needs more than the broker's own 10 s relay timeout).
    pub fn request(&mut self, request: ReadOnly, fields: BTreeMap<String, String>, timeout: Duration) -> Result<RemotingCommand> {
        if let Some(stats) = &self.stats {
            stats.sent(request);
        }
        let answer = self.exchange(request, fields, timeout);
        if answer.is_err() {
            self.refused(request);
        }
        answer
    }

    fn exchange(&mut self, request: ReadOnly, fields: BTreeMap<String, String>, timeout: Duration) -> Result<RemotingCommand> {
        let deadline = Instant::now() + timeout;
        let opaque = self.next_opaque;
        self.next_opaque = self.next_opaque.wrapping_add(1);
        let mut cmd = RemotingCommand::request(request.code(), opaque, fields);
        if let Some(credentials) = &self.credentials {
            credentials.sign(&mut cmd.ext_fields, &cmd.body);
        }
        self.stream.set_write_timeout(Some(timeout)).map_err(|e| self.io(e))?;
        frame::write_frame(&mut self.stream, &cmd.encode()).map_err(|e| self.io(e))?;
        loop {
            let mut reader = DeadlineReader { stream: &self.stream, deadline };
            let content = frame::read_frame(&mut reader, self.max_frame).map_err(|e| self.read_error(e, timeout))?;
            let answer = RemotingCommand::decode(&content)?;
            if answer.is_response() && answer.opaque == opaque {
                return Ok(answer);
            }
            // A late answer to an earlier request, or a request of the server's: not ours.
        }
    }

    fn io(&self, source: io::Error) -> Error {
        Error::Io { addr: self.addr.clone(), source }
    }

    fn read_error(&self, e: ReadError, timeout: Duration) -> Error {
        match e {
            ReadError::Closed { mid_frame } => Error::Closed { addr: self.addr.clone(), mid_frame },
            ReadError::TooLarge { len, max } => Error::FrameTooLarge { addr: self.addr.clone(), len, max },
            ReadError::Short(len) => Error::BadFrame(format!("a frame of {len} bytes cannot hold its header-length word")),
            ReadError::Io(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                Error::Timeout { addr: self.addr.clone(), timeout_ms: timeout.as_millis() as u64 }
            }
            ReadError::Io(e) => self.io(e),
        }
    }
}

/// Reads from the stream with each read bounded by what is left until the deadline.
struct DeadlineReader<'a> {
    stream: &'a TcpStream,
    deadline: Instant,
}

impl Read for DeadlineReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "deadline passed"));
        }
        self.stream.set_read_timeout(Some(left))?;
        let mut stream: &TcpStream = self.stream;
        stream.read(buf)
    }
}
