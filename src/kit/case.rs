//! One differential case: a tree, one call, and the answers of every peer
//! (conformance-kit §4, widened to N peers).
//!
//! Answers are compared as JSON *values*: object key order is ignored,
//! array order matters, and a typed failure is reduced to its code
//! (`{"failure": "<code>"}`, §4), because messages are allowed to differ
//! between peers. A peer that panics is caught and answers
//! `{"panic": "<message>"}`, so one broken peer never stops a run.
//!
//! Trees are generated under a symbolic root (e.g. `/r`) and materialised
//! under a fresh temporary directory; [`rebase`] swaps one for the other in
//! calls and answers, so plans, reports and regression files are the same
//! bytes on every machine.

use std::panic::{AssertUnwindSafe, catch_unwind};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::contract::{GlobInput, GrepInput, StdError};
use crate::flows::{LsRequest, ReadRequest};
use crate::peer::{Search, method};

/// One peer-level call: a method of the [`Search`] seam and its input.
///
/// In JSON, `{"method": …, "input": …}` with the protocol's method names
/// (`grep`, `glob`, `flow/read`, `flow/ls`).
///
/// ```
/// use lawsuite::flows::ReadRequest;
/// use lawsuite::kit::case::Call;
/// let call = Call::Read(ReadRequest::new("/r/a.txt").offset(2));
/// assert_eq!(
///     serde_json::to_string(&call)?,
///     r#"{"method":"flow/read","input":{"path":"/r/a.txt","offset":2}}"#,
/// );
/// assert_eq!(call.rebased("/r", "/tmp/t").root(), "/tmp/t/a.txt");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "method", content = "input")]
pub enum Call {
    /// `Search.grep`.
    #[serde(rename = "grep")]
    Grep(GrepInput),
    /// `Search.glob`.
    #[serde(rename = "glob")]
    Glob(GlobInput),
    /// The `read` flow (read-ls-flows §1).
    #[serde(rename = "flow/read")]
    Read(ReadRequest),
    /// The `ls` flow (read-ls-flows §2).
    #[serde(rename = "flow/ls")]
    Ls(LsRequest),
}

impl Call {
    /// The root the call searches, or the path it reads or lists.
    pub fn root(&self) -> &str {
        match self {
            Call::Grep(i) => &i.root,
            Call::Glob(i) => &i.root,
            Call::Read(i) => &i.path,
            Call::Ls(i) => &i.path,
        }
    }

    /// The root (or, for `flow/read` and `flow/ls`, the path) to change.
    pub fn root_mut(&mut self) -> &mut String {
        match self {
            Call::Grep(i) => &mut i.root,
            Call::Glob(i) => &mut i.root,
            Call::Read(i) => &mut i.path,
            Call::Ls(i) => &mut i.path,
        }
    }

    /// The same call with a leading `from` in its root (or path) replaced
    /// by `to` (see [`rebase`]).
    pub fn rebased(&self, from: &str, to: &str) -> Call {
        let mut call = self.clone();
        let root = call.root_mut();
        if let Some(rest) = root.strip_prefix(from) {
            *root = format!("{to}{rest}");
        }
        call
    }

    /// The method name: `grep`, `glob`, `flow/read` or `flow/ls` (what
    /// [`Search::supports`] is asked).
    pub fn method(&self) -> &'static str {
        match self {
            Call::Grep(_) => method::GREP,
            Call::Glob(_) => method::GLOB,
            Call::Read(_) => method::FLOW_READ,
            Call::Ls(_) => method::FLOW_LS,
        }
    }
}

/// Run `call` on `peer` and render the answer as a comparable value.
pub fn answer(peer: &dyn Search, call: &Call) -> Value {
    let result = catch_unwind(AssertUnwindSafe(|| match call {
        Call::Grep(input) => render(peer.grep(input)),
        Call::Glob(input) => render(peer.glob(input)),
        Call::Read(input) => render(peer.read(input)),
        Call::Ls(input) => render(peer.ls(input)),
    }));
    result.unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic with no message".to_string());
        json!({ "panic": message })
    })
}

/// Success → the output as JSON; failure → `{"failure": "<code>"}` (§4).
pub fn render<T: Serialize>(result: Result<T, StdError>) -> Value {
    match result {
        Ok(value) => serde_json::to_value(value)
            .unwrap_or_else(|e| json!({ "panic": format!("answer is not serialisable: {e}") })),
        Err(err) => json!({ "failure": err.code }),
    }
}

/// Replace every occurrence of `from` by `to` in every string of `value`
/// (paths and notices both spell the root).
pub fn rebase(value: &Value, from: &str, to: &str) -> Value {
    if from.is_empty() || from == to {
        return value.clone();
    }
    match value {
        Value::String(s) => Value::String(s.replace(from, to)),
        Value::Array(items) => Value::Array(items.iter().map(|v| rebase(v, from, to)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), rebase(v, from, to)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::ErrorCode;

    #[test]
    fn failures_compare_by_code_only() {
        let a = render::<()>(Err(StdError::new(ErrorCode::InvalidPattern, "one")));
        let b = render::<()>(Err(StdError::new(ErrorCode::InvalidPattern, "two")));
        assert_eq!(a, b);
        assert_eq!(a, json!({"failure": "invalid_pattern"}));
    }

    #[test]
    fn key_order_is_ignored_array_order_is_not() {
        let a: Value = serde_json::from_str(r#"{"a":1,"b":[1,2]}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"b":[1,2],"a":1}"#).unwrap();
        let c: Value = serde_json::from_str(r#"{"b":[2,1],"a":1}"#).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn rebase_swaps_roots_in_paths_and_notices() {
        let v = json!({"paths":["/tmp/x/a"],"notice":"No file under /tmp/x can match"});
        assert_eq!(
            rebase(&v, "/tmp/x", "/r"),
            json!({"paths":["/r/a"],"notice":"No file under /r can match"})
        );
        let call = Call::Glob(GlobInput::new("*", "/r/sub"));
        assert_eq!(call.rebased("/r", "/tmp/x").root(), "/tmp/x/sub");
        assert_eq!(
            serde_json::to_string(&call).unwrap(),
            r#"{"method":"glob","input":{"pattern":"*","root":"/r/sub","hidden":false,"noIgnore":false,"limit":1000}}"#
        );
    }
}
