//! What a peer answered to one call (conformance-kit §4), as one type from
//! the call to the verdict.
//!
//! Four things can come back from a peer asked a call:
//!
//! * the method's output, a **value** (its JSON, as the wire spells it);
//! * a typed **failure** of the contract (§17): its code and message;
//! * no answer at all, a **fault**: a failure lawsuite made for a peer that
//!   crashed, timed out, answered past its bounds or changed the tree it
//!   was asked about ([`StdError::fault`]);
//! * a **panic** of an in-process peer, caught so one broken peer never
//!   stops a run.
//!
//! [`Answer::agrees`] is what agreement means: two values equal as JSON
//! values (key order ignored, array order kept), two failures of one code
//! (messages may differ between peers, §4, except where the spec fixes
//! both word for word: [`message_is_fixed`]). A fault or a panic agrees
//! with nothing, not even another fault: two peers that both faulted
//! compared nothing.
//!
//! The spec's wire form of a compared answer (`{"failure": "<code>"}` for
//! a failure) is written only at the edges that keep an answer outside the
//! process, a report's case ([`Answer::shown`], the failure's message
//! beside its code) and a regression file ([`Answer::to_wire`]), and read
//! only where those are read ([`Answer::from_wire`]).
//!
//! ```
//! use lawsuite::contract::{ErrorCode, GlobOutput, StdError};
//! use lawsuite::kit::answer::Answer;
//!
//! let a = Answer::from_result(Err(StdError::new(ErrorCode::InvalidPattern, "one")));
//! let b = Answer::from_result(Err(StdError::new(ErrorCode::InvalidPattern, "two")));
//! assert!(a.agrees(&b), "failures agree by code");
//! // …unless the spec fixes both messages (read-ls-flows §1.6's hint).
//! let hinted = Answer::from_result(Err(StdError::file_not_found("b.ts", ". The working directory holds: a.ts.")));
//! let bare = Answer::from_result(Err(StdError::file_not_found("b.ts", "")));
//! assert!(!hinted.agrees(&bare));
//! // A regression file keeps a failure's code alone: compared by code.
//! let kept = Answer::from_wire(&serde_json::json!({"failure": "not_found"}))?;
//! assert!(kept.agrees(&hinted) && hinted.agrees(&kept));
//! assert_eq!(a.to_wire(), serde_json::json!({"failure": "invalid_pattern"}));
//! assert_eq!(a.shown()["message"], "one");
//!
//! let crash = Answer::fault("peer mine exited with status 3");
//! assert!(!crash.agrees(&crash.clone()), "a fault compares nothing");
//! assert_eq!(Answer::from_wire(&crash.to_wire())?, crash);
//! # Ok::<(), lawsuite::kit::answer::UnknownCode>(())
//! ```

use std::panic::{AssertUnwindSafe, catch_unwind};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::call::{Budget, Call, TreeSize};
use crate::contract::{ErrorCode, StdError, message_is_fixed};
use crate::peer::Search;

/// What a peer answered to one call.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// The method's output, as JSON.
    Value(Value),
    /// A typed failure of the contract.
    Failure {
        /// Its code, what is compared.
        code: ErrorCode,
        /// Its message, what a report shows.
        message: String,
    },
    /// No answer: a failure lawsuite made for the peer ([`StdError::fault`]).
    Fault {
        /// The code it carries (`request_failed`, `timeout`, …).
        code: ErrorCode,
        /// What happened; its first line is what a report's answer shows,
        /// and the rest (a peer's stderr) the fault log beside the trial.
        what: String,
    },
    /// The peer panicked.
    Panic(String),
}

/// A wire answer whose failure code is none of the contract's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownCode(pub String);

impl std::fmt::Display for UnknownCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:?} is not an error code of the contract (search-contract §17)",
            self.0
        )
    }
}

impl std::error::Error for UnknownCode {}

impl Answer {
    /// Ask `peer` `call` and take what comes back, a panic included.
    pub fn of(peer: &dyn Search, call: &Call) -> Answer {
        catch_unwind(AssertUnwindSafe(|| Answer::from_result(call.run(peer))))
            .unwrap_or_else(|payload| Answer::Panic(panic_message(&*payload)))
    }

    /// A call's result as an answer: a harness-made failure is a fault.
    pub fn from_result(result: Result<Value, StdError>) -> Answer {
        match result {
            Ok(value) => Answer::Value(value),
            Err(err) if err.is_fault() => Answer::Fault {
                code: err.code,
                what: err.message,
            },
            Err(err) => Answer::Failure {
                code: err.code,
                message: err.message,
            },
        }
    }

    /// A fault lawsuite gives a peer it could not take an answer from
    /// (`request_failed`, saying `what`).
    pub fn fault(what: impl Into<String>) -> Answer {
        Answer::Fault {
            code: ErrorCode::RequestFailed,
            what: what.into(),
        }
    }

    /// Whether the two are the same answer: equal values, or failures of
    /// one code whose messages are equal where the spec fixes both
    /// ([`message_is_fixed`]). A fault or a panic agrees with nothing.
    ///
    /// A message in no template of the spec (a host's reason, `rg`'s
    /// stderr, a regression file's failure, which keeps no message) is
    /// compared by its code alone, as conformance-kit §4 compares.
    pub fn agrees(&self, other: &Answer) -> bool {
        match (self, other) {
            (Answer::Value(a), Answer::Value(b)) => a == b,
            (
                Answer::Failure {
                    code: a,
                    message: m,
                },
                Answer::Failure {
                    code: b,
                    message: n,
                },
            ) => a == b && (m == n || !message_is_fixed(*a, m) || !message_is_fixed(*b, n)),
            _ => false,
        }
    }

    /// Whether it is no answer at all: a fault or a panic.
    pub fn is_fault(&self) -> bool {
        matches!(self, Answer::Fault { .. } | Answer::Panic(_))
    }

    /// What a fault or a panic says, its first line.
    pub fn fault_text(&self) -> Option<&str> {
        match self {
            Answer::Fault { what, .. } => Some(first_line(what)),
            Answer::Panic(message) => Some(message),
            _ => None,
        }
    }

    /// The code of a failure or a fault.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            Answer::Failure { code, .. } | Answer::Fault { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// The output, when it is one.
    pub fn value(&self) -> Option<&Value> {
        match self {
            Answer::Value(value) => Some(value),
            _ => None,
        }
    }

    /// The answer, unless it holds more bytes than a correct answer to
    /// `call` on a tree of `size` could ([`Budget`]): then a fault saying
    /// so, and the oversized answer is dropped here, before it is compared,
    /// reported or kept (one 60 MiB path an answer used to cost gigabytes
    /// of reports and results).
    ///
    /// ```
    /// use lawsuite::call::{Call, TreeSize};
    /// use lawsuite::contract::GlobInput;
    /// use lawsuite::kit::answer::Answer;
    /// use serde_json::json;
    ///
    /// let call = Call::Glob(GlobInput::new("*", "/r"));
    /// let tree = TreeSize { longest_path: 5, longest_name: 5, longest_line: 3 };
    /// let fine = Answer::Value(json!({"paths": ["/r/a.txt"], "total": 1, "truncated": false}));
    /// assert_eq!(fine.clone().within_budget("p", &call, &tree), fine);
    /// let huge = Answer::Value(json!({"paths": ["x".repeat(4 << 20)], "total": 1, "truncated": false}));
    /// assert!(huge.within_budget("p", &call, &tree).is_fault());
    /// ```
    pub fn within_budget(self, peer: &str, call: &Call, size: &TreeSize) -> Answer {
        let Some(budget) = Budget::of(call, size) else {
            return self;
        };
        match budget.check(self.json_len()) {
            Ok(()) => self,
            Err(why) => Answer::fault(format!("contract violation: {peer} {why}")),
        }
    }

    /// Its length as compact JSON, counted without writing it.
    fn json_len(&self) -> usize {
        struct Count(usize);
        impl std::io::Write for Count {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0 += buf.len();
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut count = Count(0);
        // Writing a `Value` to a writer that never fails cannot fail.
        let _ = match self {
            Answer::Value(value) => serde_json::to_writer(&mut count, value),
            Answer::Failure { message: text, .. }
            | Answer::Fault { what: text, .. }
            | Answer::Panic(text) => serde_json::to_writer(&mut count, text),
        };
        count.0
    }

    /// The same answer with every occurrence of `from` replaced by `to` in
    /// its strings (paths, notices and messages spell a tree's root).
    pub fn rebased(&self, from: &str, to: &str) -> Answer {
        if from.is_empty() || from == to {
            return self.clone();
        }
        match self {
            Answer::Value(value) => Answer::Value(rebase(value, from, to)),
            Answer::Failure { code, message } => Answer::Failure {
                code: *code,
                message: replace_root(message, from, to),
            },
            Answer::Fault { code, what } => Answer::Fault {
                code: *code,
                what: replace_root(what, from, to),
            },
            Answer::Panic(message) => Answer::Panic(replace_root(message, from, to)),
        }
    }

    /// The answer as it is compared and kept (a regression's `expected`):
    /// the value, `{"failure": code}` for a failure (§4), `{"failure":
    /// code, "fault": first line}` for a fault and `{"panic": message}` for
    /// a panic.
    pub fn to_wire(&self) -> Value {
        match self {
            Answer::Value(value) => value.clone(),
            Answer::Failure { code, .. } => json!({ "failure": code }),
            Answer::Fault { code, what } => json!({ "failure": code, "fault": first_line(what) }),
            Answer::Panic(message) => json!({ "panic": message }),
        }
    }

    /// The answer as a report shows it: [`Answer::to_wire`], and beside a
    /// failure's (or a fault's) code its message, its first line and how
    /// many lines follow (a fault's message carries the peer's whole
    /// stderr, which the fault log beside the trial shows in full).
    pub fn shown(&self) -> Value {
        let mut wire = self.to_wire();
        let message = match self {
            Answer::Failure { message, .. } => message,
            Answer::Fault { what, .. } => what,
            _ => return wire,
        };
        if let Value::Object(map) = &mut wire {
            map.insert("message".into(), Value::String(report_line(message)));
        }
        wire
    }

    /// An answer kept in its wire form ([`Answer::to_wire`] or
    /// [`Answer::shown`]) read back; a failure's code must be one of the
    /// contract's.
    pub fn from_wire(wire: &Value) -> Result<Answer, UnknownCode> {
        if let Some(message) = wire.get("panic") {
            return Ok(Answer::Panic(
                message
                    .as_str()
                    .map_or_else(|| message.to_string(), str::to_string),
            ));
        }
        let Some(code) = wire.get("failure") else {
            return Ok(Answer::Value(wire.clone()));
        };
        let code: ErrorCode = serde_json::from_value(code.clone()).map_err(|_| {
            UnknownCode(
                code.as_str()
                    .map_or_else(|| code.to_string(), str::to_string),
            )
        })?;
        let text = |key: &str| wire.get(key).and_then(Value::as_str).map(str::to_string);
        Ok(match text("fault") {
            Some(what) => Answer::Fault { code, what },
            None => Answer::Failure {
                code,
                message: text("message").unwrap_or_default(),
            },
        })
    }
}

/// Written as a report shows it ([`Answer::shown`]).
impl Serialize for Answer {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.shown().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Answer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Answer, D::Error> {
        let wire = Value::deserialize(d)?;
        Answer::from_wire(&wire).map_err(serde::de::Error::custom)
    }
}

/// A message as a report's answer shows it: its first line, and how many
/// lines follow.
fn report_line(message: &str) -> String {
    let more = message.lines().count().saturating_sub(1);
    if more > 0 {
        format!("{} [… {more} more lines]", first_line(message))
    } else {
        message.to_string()
    }
}

/// The first line of `message`.
fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or_default()
}

/// The message of a caught panic's payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with no message".to_string())
}

/// Replace every occurrence of `from` by `to` in every string of `value`
/// (paths and notices both spell the root): trees are generated under a
/// symbolic root and written under a temporary directory, and answers are
/// spelled with the symbolic root again, so plans, reports and regression
/// files are the same bytes on every machine.
///
/// ```
/// use lawsuite::kit::answer::rebase;
/// use serde_json::json;
/// let v = json!({"paths": ["/tmp/x/a"], "notice": "No file under /tmp/x can match"});
/// assert_eq!(rebase(&v, "/tmp/x", "/r"), json!({"paths": ["/r/a"], "notice": "No file under /r can match"}));
/// ```
pub fn rebase(value: &Value, from: &str, to: &str) -> Value {
    if from.is_empty() || from == to {
        return value.clone();
    }
    match value {
        Value::String(s) => Value::String(replace_root(s, from, to)),
        Value::Array(items) => Value::Array(items.iter().map(|v| rebase(v, from, to)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), rebase(v, from, to)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `text` with each place that spells the root `from` replaced by `to`:
/// an occurrence counts where it starts a path (at the start, or after a
/// character no name holds: a space, a quote, a bracket) and, unless
/// `from` ends with `/`, ends one. A plain replace also rewrote names
/// that merely hold the root's spelling: under the root `/r`, the path
/// `corners/rules/a` became `corners.ules/a` when a drafted law spelled
/// the root `.`.
///
/// ```
/// use lawsuite::kit::answer::replace_root;
/// assert_eq!(replace_root("/r/corners/rules/a", "/r/", ""), "corners/rules/a");
/// assert_eq!(replace_root("corners/rules/a", "/r", "."), "corners/rules/a");
/// assert_eq!(replace_root("No file under /r can match", "/r", "."), "No file under . can match");
/// assert_eq!(replace_root("'/r/a/r/b'", "/r/", "./"), "'./a/r/b'");
/// ```
pub fn replace_root(text: &str, from: &str, to: &str) -> String {
    if from.is_empty() {
        return text.to_string();
    }
    // A character a file or directory name may hold (or the separator):
    // next to one, `from` is part of a longer path, not the root.
    let in_name = |c: char| !c.is_whitespace() && !"\"'`()[]{}<>,;:=".contains(c);
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(from) {
        // The character before: in what is left, or else the last kept.
        let before = rest[..at].chars().last().or_else(|| out.chars().last());
        let after = rest[at + from.len()..].chars().next();
        let starts = before.is_none_or(|c| !in_name(c));
        let ends = from.ends_with('/') || after.is_none_or(|c| !in_name(c) || c == '/');
        out.push_str(&rest[..at]);
        if starts && ends {
            out.push_str(to);
            rest = &rest[at + from.len()..];
        } else {
            // Not the root here: keep its first character and look on.
            let first = rest[at..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&rest[at..at + first]);
            rest = &rest[at + first..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::GlobInput;

    #[test]
    fn failures_agree_by_code_and_faults_never() {
        let a = Answer::from_result(Err(StdError::new(ErrorCode::InvalidPattern, "one")));
        let b = Answer::from_result(Err(StdError::new(ErrorCode::InvalidPattern, "two")));
        let c = Answer::from_result(Err(StdError::new(ErrorCode::NotFound, "one")));
        assert!(a.agrees(&b) && !a.agrees(&c));
        let fault = Answer::from_result(Err(StdError::fault(ErrorCode::Timeout, "slow")));
        assert!(fault.is_fault() && !fault.agrees(&fault));
        let panic = Answer::Panic("boom".into());
        assert!(panic.is_fault() && !panic.agrees(&panic));
        let v = Answer::Value(json!({"a": 1, "b": [1, 2]}));
        let w = Answer::Value(serde_json::from_str(r#"{"b": [1, 2], "a": 1}"#).unwrap());
        let x = Answer::Value(json!({"a": 1, "b": [2, 1]}));
        assert!(
            v.agrees(&w) && !v.agrees(&x),
            "key order ignored, array order not"
        );
    }

    #[test]
    fn every_answer_survives_its_wire_form() {
        for answer in [
            Answer::Value(json!({"paths": [], "total": 0, "truncated": false})),
            Answer::Failure {
                code: ErrorCode::NotFound,
                message: "gone".into(),
            },
            Answer::fault("peer mine exited"),
            Answer::Panic("index out of bounds".into()),
        ] {
            let again = Answer::from_wire(&answer.shown()).unwrap();
            assert_eq!(again, answer);
            let json = serde_json::to_string(&answer).unwrap();
            assert_eq!(serde_json::from_str::<Answer>(&json).unwrap(), answer);
        }
        let compared = Answer::from_wire(&json!({"failure": "not_found"})).unwrap();
        assert_eq!(compared.code(), Some(ErrorCode::NotFound));
        assert!(Answer::from_wire(&json!({"failure": "no_such_code"})).is_err());
    }

    #[test]
    fn a_report_shows_the_first_line_of_a_long_message() {
        let long = Answer::Failure {
            code: ErrorCode::Timeout,
            message: "one\ntwo\nthree".into(),
        };
        assert_eq!(long.shown()["message"], "one [… 2 more lines]");
        assert_eq!(long.to_wire(), json!({"failure": "timeout"}));
        let fault = Answer::fault("peer exited\nstderr line");
        assert_eq!(fault.to_wire()["fault"], "peer exited");
        assert_eq!(fault.fault_text(), Some("peer exited"));
    }

    #[test]
    fn a_panicking_peer_answers_a_panic() {
        struct Panics;
        impl Search for Panics {
            fn name(&self) -> &str {
                "panics"
            }
            fn version(&self) -> String {
                "0".into()
            }
            fn grep(
                &self,
                _: &crate::contract::GrepInput,
            ) -> Result<crate::contract::GrepOutput, StdError> {
                panic!("grep is not written yet")
            }
            fn glob(&self, _: &GlobInput) -> Result<crate::contract::GlobOutput, StdError> {
                panic!("glob is not written yet")
            }
        }
        let answer = Answer::of(&Panics, &Call::Glob(GlobInput::new("*", "/r")));
        assert_eq!(answer, Answer::Panic("glob is not written yet".into()));
    }

    #[test]
    fn rebase_swaps_roots_in_values_and_messages() {
        let failure = Answer::Failure {
            code: ErrorCode::NotFound,
            message: "/tmp/x/a: no such file".into(),
        };
        assert_eq!(
            failure.rebased("/tmp/x", "/r").shown()["message"],
            "/r/a: no such file"
        );
    }
}
