//! One differential case: a tree, one call, and the answers of every peer
//! (conformance-kit §4, widened to N peers).
//!
//! Answers are compared as JSON *values*: object key order is ignored,
//! array order matters, and a typed failure is reduced to its code
//! (`{"failure": "<code>"}`, §4), because messages are allowed to differ
//! between peers. A peer that panics is caught and answers
//! `{"panic": "<message>"}`, so one broken peer never stops a run. A
//! failure the harness made for a peer that did not answer (a crash, a
//! timeout, an answer past its bounds: [`StdError::fault`]) is marked
//! `{"failure": "<code>", "fault": "<what happened>"}`: it is not the
//! peer's answer, so it never equals one, and [`is_fault`] tells the
//! comparison that nothing was answered.
//!
//! Trees are generated under a symbolic root (e.g. `/r`) and materialised
//! under a fresh temporary directory; [`rebase`] swaps one for the other in
//! calls and answers, so plans, reports and regression files are the same
//! bytes on every machine.

use std::panic::{AssertUnwindSafe, catch_unwind};

use serde::Serialize;
use serde_json::{Value, json};

use crate::call::{Budget, TreeSize};
use crate::contract::StdError;
use crate::peer::Search;

pub use crate::call::Call;

/// Run `call` on `peer` and render the answer as a comparable value.
pub fn answer(peer: &dyn Search, call: &Call) -> Value {
    let result = catch_unwind(AssertUnwindSafe(|| render(call.run(peer))));
    result.unwrap_or_else(|payload| json!({ "panic": panic_message(&*payload) }))
}

/// `answer` to `call`, unless it holds more bytes than a correct answer
/// on a tree of `size` could ([`Budget`]): then a fault saying so, which
/// never equals an answer, and the oversized answer is dropped here,
/// before it is compared, reported or kept (one 60 MiB path an answer
/// used to cost gigabytes of reports and results).
///
/// ```
/// use lawsuite::call::{Call, TreeSize};
/// use lawsuite::contract::GlobInput;
/// use lawsuite::kit::case::{is_fault, within_budget};
/// use serde_json::json;
///
/// let call = Call::Glob(GlobInput::new("*", "/r"));
/// let tree = TreeSize { longest_path: 5, longest_name: 5, longest_line: 3 };
/// let fine = json!({"paths": ["/r/a.txt"], "total": 1, "truncated": false});
/// assert_eq!(within_budget("p", &call, &tree, fine.clone()), fine);
/// let huge = json!({"paths": ["x".repeat(4 << 20)], "total": 1, "truncated": false});
/// assert!(is_fault(&within_budget("p", &call, &tree, huge)));
/// ```
pub fn within_budget(peer: &str, call: &Call, size: &TreeSize, answer: Value) -> Value {
    let Some(budget) = Budget::of(call, size) else {
        return answer;
    };
    match budget.check(json_len(&answer)) {
        Ok(()) => answer,
        Err(why) => json!({
            "failure": crate::contract::ErrorCode::RequestFailed,
            "fault": format!("contract violation: {peer} {why}"),
        }),
    }
}

/// The length of `value` as compact JSON, counted without writing it.
fn json_len(value: &Value) -> usize {
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
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// The message of a caught panic's payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with no message".to_string())
}

/// Success → the output as JSON; failure → `{"failure": "<code>"}` (§4).
pub fn render<T: Serialize>(result: Result<T, StdError>) -> Value {
    match result {
        Ok(value) => serde_json::to_value(value)
            .unwrap_or_else(|e| json!({ "panic": format!("answer is not serialisable: {e}") })),
        Err(err) if err.is_fault() => {
            json!({ "failure": err.code, "fault": first_line(&err.message) })
        }
        Err(err) => json!({ "failure": err.code }),
    }
}

/// [`answer`] for a report: a failure keeps its message beside its code,
/// `{"failure": "<code>", "message": "…"}`, so a report says what the peer
/// said (an external peer's `data.message`), not only its code. Compare
/// it through [`comparable`].
pub fn answer_with_message(peer: &dyn Search, call: &Call) -> Value {
    let result = catch_unwind(AssertUnwindSafe(|| match call.run(peer) {
        Err(err) if err.is_fault() => for_report(json!({
            "failure": err.code,
            "fault": first_line(&err.message),
            "message": err.message,
        })),
        Err(err) => for_report(json!({ "failure": err.code, "message": err.message })),
        ok => render(ok),
    }));
    result.unwrap_or_else(|payload| json!({ "panic": panic_message(&*payload) }))
}

/// A failure's message as a report shows it in an answer: its first line,
/// and how many lines follow. A fault's message carries the peer's whole
/// stderr, which the fault log beside the trial shows in full; in an
/// answer and its diff it would be one enormous string.
pub fn for_report(mut answer: Value) -> Value {
    if let Some(Value::String(message)) = answer.get_mut("message") {
        let more = message.lines().count().saturating_sub(1);
        if more > 0 {
            let first = message.lines().next().unwrap_or_default();
            *message = format!("{first} [… {more} more lines]");
        }
    }
    answer
}

/// An answer as it is compared: a failure by its code alone (§4), a
/// harness-made one ([`is_fault`]) still marked as such.
pub fn comparable(answer: &Value) -> Value {
    match answer.get("failure") {
        Some(code) if is_fault(answer) => json!({ "failure": code, "fault": answer["fault"] }),
        Some(code) => json!({ "failure": code }),
        None => answer.clone(),
    }
}

/// Whether `answer` (as [`answer`] renders one) is no answer at all: the
/// peer panicked, or the harness made its failure ([`StdError::fault`]).
/// Such a value never stands for the reference's answer, and two of them
/// never agree.
///
/// ```
/// use lawsuite::kit::case::is_fault;
/// use serde_json::json;
///
/// assert!(is_fault(&json!({"failure": "request_failed", "fault": "peer mine exited"})));
/// assert!(is_fault(&json!({"panic": "index out of bounds"})));
/// assert!(!is_fault(&json!({"failure": "request_failed"})));
/// assert!(!is_fault(&json!({"paths": [], "total": 0, "truncated": false})));
/// ```
pub fn is_fault(answer: &Value) -> bool {
    answer.get("panic").is_some() || answer.get("fault").is_some()
}

/// What a fault says, for a report: its `fault` or `panic` text.
pub fn fault_text(answer: &Value) -> Option<&str> {
    answer
        .get("fault")
        .or_else(|| answer.get("panic"))
        .and_then(Value::as_str)
}

/// A fault's message carries the peer's stderr after its first line; the
/// fault log beside the trial shows it whole.
fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or_default()
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
    use crate::contract::{ErrorCode, GlobInput};

    #[test]
    fn failures_compare_by_code_only() {
        let a = render::<()>(Err(StdError::new(ErrorCode::InvalidPattern, "one")));
        let b = render::<()>(Err(StdError::new(ErrorCode::InvalidPattern, "two")));
        assert_eq!(a, b);
        assert_eq!(a, json!({"failure": "invalid_pattern"}));
    }

    #[test]
    fn a_report_keeps_the_message_a_comparison_drops() {
        struct Refuses;
        impl Search for Refuses {
            fn name(&self) -> &str {
                "refuses"
            }
            fn version(&self) -> String {
                "0".into()
            }
            fn grep(
                &self,
                _: &crate::contract::GrepInput,
            ) -> Result<crate::contract::GrepOutput, StdError> {
                Err(StdError::new(ErrorCode::NotFound, "the peer's own words"))
            }
            fn glob(&self, _: &GlobInput) -> Result<crate::contract::GlobOutput, StdError> {
                Err(StdError::new(ErrorCode::NotFound, "the peer's own words"))
            }
        }
        let call = Call::Glob(GlobInput::new("*", "/r"));
        let shown = answer_with_message(&Refuses, &call);
        assert_eq!(shown["message"], "the peer's own words");
        assert_eq!(comparable(&shown), answer(&Refuses, &call));
        let long = for_report(json!({"failure": "timeout", "message": "one\ntwo\nthree"}));
        assert_eq!(long["message"], "one [… 2 more lines]");
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
