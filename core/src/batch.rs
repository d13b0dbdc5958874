//! The JSON Lines case format shared by the CLI batch form, the conformance vectors and the Java
//! oracle: one case in, one answer out.
//!
//! In: `{"id": .., "strategy": "averagely", "group": "g", "current": "c1",
//! "mq_all": [["topic","broker",0], ..], "cid_all": ["c1", ..], "params": {..}}`; `current`,
//! `mq_all` and `cid_all` may be null (Java's null). Out: `{"id": .., "result": [..]}` (null where
//! Java returns null) or `{"id": .., "error": "<Java exception simple name>: <message>"}`.

use serde::Deserialize;
use serde_json::{json, Value};

use crate::config::StrategyConfig;
use crate::error::Error;
use crate::queue::MessageQueue;

/// One allocation question.
#[derive(Clone, Debug, Deserialize)]
pub struct Case {
    #[serde(default)]
    pub id: Value,
    pub strategy: String,
    #[serde(default)]
    pub group: Option<String>,
    #[serde(default)]
    pub current: Option<String>,
    #[serde(default)]
    pub mq_all: Option<Vec<MessageQueue>>,
    #[serde(default)]
    pub cid_all: Option<Vec<String>>,
    #[serde(default)]
    pub params: Value,
}

/// What Java does with a case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Java's return value; `None` is a null list.
    Allocated(Option<Vec<MessageQueue>>),
    /// Java threw: the exception's simple name and our message.
    Threw { exception: String, message: String },
}

impl Outcome {
    pub fn from_error(e: &Error) -> Outcome {
        if *e == Error::NoConfiguredQueues {
            return Outcome::Allocated(None);
        }
        Outcome::Threw { exception: e.java_exception().to_owned(), message: e.to_string() }
    }

    /// The output fields (`result` or `error`) of this outcome for case `id`.
    pub fn to_line(&self, id: &Value) -> Value {
        match self {
            Outcome::Allocated(result) => json!({ "id": id, "result": result }),
            Outcome::Threw { exception, message } => json!({ "id": id, "error": format!("{exception}: {message}") }),
        }
    }
}

impl Case {
    /// Runs the case as the Java client would. `Err` is a configuration error (an unknown strategy
    /// name, a parameter of the wrong type): a malformed case, not a Java outcome.
    pub fn run(&self) -> Result<Outcome, Error> {
        let config = StrategyConfig::from_name(&self.strategy, &self.params)?;
        let strategy = match config.build() {
            Ok(s) => s,
            // Java's constructors throw too (a negative virtual node count): that is an outcome.
            Err(e @ (Error::InvalidParameters { .. } | Error::UnknownStrategy { .. })) => return Err(e),
            Err(e) => return Ok(Outcome::from_error(&e)),
        };
        let empty_q: Vec<MessageQueue> = Vec::new();
        let empty_c: Vec<String> = Vec::new();
        let result = strategy.allocate(
            self.group.as_deref().unwrap_or(""),
            self.current.as_deref().unwrap_or(""),
            self.mq_all.as_ref().unwrap_or(&empty_q),
            self.cid_all.as_ref().unwrap_or(&empty_c),
        );
        Ok(match result {
            Ok(queues) => Outcome::Allocated(Some(queues)),
            Err(e) => Outcome::from_error(&e),
        })
    }
}

/// Answers one input line (1-based `line_no`). The flag is true when the line was malformed; the
/// answer then carries an error naming the line.
pub fn answer_line(line: &str, line_no: usize) -> (Value, bool) {
    let malformed = |id: &Value, why: String| (json!({ "id": id, "error": format!("malformed input line {line_no}: {why}") }), true);
    let value: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return malformed(&Value::Null, e.to_string()),
    };
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    let case: Case = match serde_json::from_value(value) {
        Ok(c) => c,
        Err(e) => return malformed(&id, e.to_string()),
    };
    match case.run() {
        Ok(outcome) => (outcome.to_line(&id), false),
        Err(e) => malformed(&id, e.to_string()),
    }
}
