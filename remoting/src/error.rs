use std::io;

/// Everything that can go wrong between this client and a NameServer, a broker or a client
/// relayed by a broker. Each says what was being read, so a user sees which answer was bad.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot connect to {addr}: {source}")]
    Connect { addr: String, source: io::Error },
    #[error("{addr} did not answer within {timeout_ms} ms")]
    Timeout { addr: String, timeout_ms: u64 },
    #[error("{addr} closed the connection{}", if *.mid_frame { " in the middle of a frame" } else { "" })]
    Closed { addr: String, mid_frame: bool },
    #[error("talking to {addr}: {source}")]
    Io { addr: String, source: io::Error },
    #[error("{addr} announced a frame of {len} bytes; at most {max} are accepted{}", not_remoting(*.len))]
    FrameTooLarge { addr: String, len: u64, max: u64 },
    #[error("bad frame: {0}")]
    BadFrame(String),
    #[error("bad JSON at byte {at}: {what}")]
    BadJson { at: usize, what: String },
    #[error("{what}: the answer lacks {field}")]
    MissingField { what: &'static str, field: String },
    /// A success with no body: a Go client that fails to encode its running info answers so,
    /// its reason in the remark.
    #[error("{what}: the answer has no body{}", if .remark.is_empty() { String::new() } else { format!(", and says: {remark}") })]
    EmptyAnswer { what: &'static str, remark: String },
    #[error("{what} refused with code {code}: {remark}")]
    Refused { what: &'static str, code: i32, remark: String },
    /// Not asked: the address failed at the transport earlier in the same round (`watch`), and one
    /// deadline per round is all a hung server may cost.
    #[error("{addr} not asked: it failed earlier in this round ({why})")]
    Skipped { addr: String, why: String },
    /// Nothing that answered could say: every place asked failed, each for its own reason.
    #[error("{what}: {}", .failures.join("; "))]
    NoAnswer { what: String, failures: Vec<String> },
}

/// A length word that reads as four printable ASCII bytes is the start of another protocol's
/// text ("HTTP" is 1213486160): say so, since the address is then most likely not a RocketMQ port.
fn not_remoting(len: u64) -> String {
    let bytes = (len as u32).to_be_bytes();
    if bytes.iter().all(|b| b.is_ascii_graphic()) {
        format!(" (its first bytes read {:?}: not a RocketMQ remoting server?)", String::from_utf8_lossy(&bytes))
    } else {
        String::new()
    }
}

impl Error {
    /// The server could not be reached or did not answer in time (as opposed to an answer that
    /// refused or did not decode): worth not asking again at once.
    pub fn is_transport(&self) -> bool {
        matches!(self, Error::Connect { .. } | Error::Timeout { .. } | Error::Closed { .. } | Error::Io { .. } | Error::FrameTooLarge { .. })
    }
}

pub type Result<T> = std::result::Result<T, Error>;
