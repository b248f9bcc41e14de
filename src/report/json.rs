//! JSON: the whole run as one document ([`json()`], [`json_to`]), and JSON
//! lines ([`jsonl_line`]), written as each result arrives (`--format
//! jsonl`) so a stopped run keeps what it reached.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::Value;

use super::{RunInfo, Walk};
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

/// [`jsonl_line`] of an object, written to `out` as it is serialized (a
/// merge writes millions of them; an outcome is never held as a `Value`
/// beside itself), and its line end.
pub(crate) fn write_jsonl_line(
    out: &mut dyn Write,
    kind: &str,
    value: &impl Serialize,
) -> io::Result<()> {
    let mut typed = Typed {
        out: &mut *out,
        kind,
        state: Typing::Start,
    };
    serde_json::to_writer(&mut typed, value).map_err(io::Error::other)?;
    if typed.state == Typing::Value {
        typed.out.write_all(b"}")?;
    }
    out.write_all(b"\n")
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Typing {
    /// Nothing written yet.
    Start,
    /// `{"type":KIND` written; the object's own fields come next.
    Fields,
    /// The rest, as it comes.
    Through,
    /// Not an object: written as `"value"`.
    Value,
}

/// Puts `"type":KIND` first in the object written through it, as
/// [`jsonl_line`] does.
struct Typed<'a> {
    out: &'a mut dyn Write,
    kind: &'a str,
    state: Typing,
}

impl Write for Typed<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Some((&first, rest)) = buf.split_first() else {
            return Ok(0);
        };
        match self.state {
            Typing::Through | Typing::Value => self.out.write_all(buf)?,
            Typing::Start => {
                write!(self.out, "{{\"type\":{}", Value::String(self.kind.into()))?;
                if first == b'{' {
                    self.state = Typing::Fields;
                    self.write_all(rest)?;
                } else {
                    self.state = Typing::Value;
                    self.out.write_all(b",\"value\":")?;
                    self.out.write_all(buf)?;
                }
            }
            Typing::Fields => {
                self.state = Typing::Through;
                if first != b'}' {
                    self.out.write_all(b",")?;
                }
                self.out.write_all(buf)?;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The whole run as one JSON document.
pub fn json(info: &RunInfo, outcomes: &[Outcome], summary: &Summary) -> String {
    let mut out = Vec::new();
    let _ = json_to(&mut out, info, &outcomes, summary);
    String::from_utf8(out).unwrap_or_default()
}

/// [`json()`] written to `out`, each outcome as `outcomes` walks it: the
/// same bytes, never the whole document held.
pub fn json_to(
    out: &mut dyn Write,
    info: &RunInfo,
    outcomes: &dyn Walk,
    summary: &Summary,
) -> io::Result<()> {
    out.write_all(b"{\n  \"run\": ")?;
    pretty(out, info, b"\n  ")?;
    out.write_all(b",\n  \"summary\": ")?;
    pretty(out, summary, b"\n  ")?;
    out.write_all(b",\n  \"outcomes\": [")?;
    let mut any = false;
    outcomes.walk(&mut |o| {
        out.write_all(if any { b",\n    " } else { b"\n    " })?;
        any = true;
        pretty(out, o, b"\n    ")
    })?;
    out.write_all(if any { b"\n  ]\n}" } else { b"]\n}" })
}

/// `value` as pretty JSON nested where `newline` (a line end and the
/// indentation of where it is written) says. A JSON string holds no raw
/// line end, so every line end written is the printer's own.
pub(crate) fn pretty(
    out: &mut dyn Write,
    value: &impl Serialize,
    newline: &[u8],
) -> io::Result<()> {
    let mut nested = Nested { out, newline };
    serde_json::to_writer_pretty(&mut nested, value).map_err(io::Error::other)
}

struct Nested<'a> {
    out: &'a mut dyn Write,
    newline: &'a [u8],
}

impl Write for Nested<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        while let Some(at) = memchr::memchr(b'\n', rest) {
            self.out.write_all(&rest[..at])?;
            self.out.write_all(self.newline)?;
            rest = &rest[at + 1..];
        }
        self.out.write_all(rest)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{Kind, Report, Verdict};

    fn outcomes() -> Vec<Outcome> {
        let outcome = |id: &str, verdict: Verdict| Outcome {
            id: id.parse().expect("a trial id"),
            item: "law::a".into(),
            kind: Kind::Law,
            peer: Some("p".into()),
            spec: Some("search-contract §8".into()),
            verdict,
            documented: [("doc".to_string(), 2)].into_iter().collect(),
            compared: 3,
            seconds: 0.125,
        };
        vec![
            outcome("law::a::p", Verdict::Pass),
            outcome(
                "law::b::p",
                Verdict::Fail {
                    report: Report {
                        summary: "paths \"differ\"\nhere".into(),
                        cases: vec![crate::conformance::Case {
                            actual: serde_json::json!({"paths": [], "n": 1.5}),
                            ..Default::default()
                        }],
                        health: None,
                    },
                },
            ),
        ]
    }

    /// The document written a piece at a time is the one `to_string_pretty`
    /// of the whole gives (what `--format json` always wrote), with
    /// outcomes and without.
    #[test]
    fn the_streamed_document_is_the_whole_one() {
        let info = RunInfo {
            lawsuite: "0.1.0".into(),
            seed_sets: vec!["smthrs v1 shared 0..12".into()],
            ..RunInfo::default()
        };
        for outcomes in [outcomes(), Vec::new()] {
            let summary = Summary::of(&outcomes, std::time::Duration::from_millis(1500), vec![]);
            let whole = serde_json::to_string_pretty(&serde_json::json!({
                "run": info,
                "summary": summary,
                "outcomes": outcomes,
            }))
            .unwrap();
            assert_eq!(json(&info, &outcomes, &summary), whole);
        }
    }

    /// A line written through `Typed` is the line `jsonl_line` makes.
    #[test]
    fn a_typed_line_is_a_jsonl_line() {
        for o in outcomes() {
            let mut out = Vec::new();
            write_jsonl_line(&mut out, "outcome", &o).unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                jsonl_line("outcome", &o) + "\n"
            );
        }
        for value in [
            serde_json::json!({}),
            serde_json::json!([1, 2]),
            serde_json::json!("x"),
        ] {
            let mut out = Vec::new();
            write_jsonl_line(&mut out, "k", &value).unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                jsonl_line("k", &value) + "\n"
            );
        }
    }
}
