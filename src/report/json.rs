//! JSON: the whole run as one document ([`json()`]), and JSON lines
//! ([`jsonl_line`]), written as each result arrives (`--format jsonl`) so a
//! stopped run keeps what it reached.

use serde::Serialize;
use serde_json::Value;

use super::RunInfo;
use crate::conformance::{Outcome, Summary};

/// One line of `--format jsonl`: `{"type": "run", …}` first, then
/// `{"type": "outcome", …}` per trial, `{"type": "peerStopped", …}` when
/// one stops, and `{"type": "summary", …}` last.
pub fn jsonl_line(kind: &str, value: &impl Serialize) -> String {
    // `type` first, so a reader can dispatch on the line's start.
    let mut line = serde_json::Map::new();
    line.insert("type".into(), Value::String(kind.into()));
    match serde_json::to_value(value).unwrap_or(Value::Null) {
        Value::Object(map) => line.extend(map),
        other => {
            line.insert("value".into(), other);
        }
    }
    serde_json::to_string(&line).unwrap_or_default()
}

/// The whole run as one JSON document.
pub fn json(info: &RunInfo, outcomes: &[Outcome], summary: &Summary) -> String {
    let doc = serde_json::json!({
        "run": info,
        "summary": summary,
        "outcomes": outcomes,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}
