//! Strict parsing of `rg --json` (native-peer §2.4).
//!
//! Any shape violation fails the whole call with `request_failed`,
//! «`rg returned malformed JSON`»: partial results are never returned.

use serde_json::Value;

use crate::contract::grouping::RowKind;
use crate::contract::{ErrorCode, StdError};

/// The failure of every malformed stream.
pub fn malformed() -> StdError {
    StdError::new(ErrorCode::RequestFailed, "rg returned malformed JSON")
}

/// One `match` or `context` message.
#[derive(Debug, PartialEq, Eq)]
pub struct RgRow {
    /// `data.path.text`, relative to rg's working directory.
    pub path: String,
    /// `data.line_number`.
    pub line: u64,
    /// `data.lines.text`, terminator included.
    pub text: String,
    /// Which message it was.
    pub kind: RowKind,
}

/// Drift 5: a `match` message whose `submatches` is an empty array, on a
/// line that ends with its terminator, is a line rg did not match. With
/// `--crlf`, `--max-count` and after-context, rg 15 classifies an
/// after-context line as a match when the pattern matches the empty text
/// after the line's `\n` (`^$` on `first\n`), then finds no submatch in the
/// line when it prints it. Counted as a hit, such a line would move
/// `maxCount`'s cut (native-peer §2.6 step 3).
///
/// The terminator decides because rg 15 has a second submatch-less match
/// that *is* a hit: an empty match at the very end of a last line with no
/// terminator (`$` on `a` with no `\n`, or on a lone invalid byte) is found
/// by the line search but not by the submatch search, so `printf a | rg
/// --json '$'` prints a `match` with `submatches: []`. Drift 5 never labels
/// such a line: rg's after-context of an unterminated last line is a
/// `context` message (`printf 'a\n\nb' | rg --json --crlf -m1 -A2 '^$'`).
/// Every other real match has at least one submatch, an empty one included
/// (`^` on `one` is `[{start: 0, end: 0}]`); a message without the key keeps
/// its type.
fn is_drift_5_context(data: &Value, text: &str) -> bool {
    text.ends_with('\n')
        && data
            .get("submatches")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
}

/// Parse a whole `--json` stdout into its rows, checking every message.
pub fn parse_stream(stdout: &[u8]) -> Result<Vec<RgRow>, StdError> {
    let mut rows = Vec::new();
    let mut summary = false;
    for piece in stdout.split(|&b| b == b'\n') {
        if piece.is_empty() {
            continue;
        }
        let value: Value = serde_json::from_slice(piece).map_err(|_| malformed())?;
        let Value::Object(obj) = &value else {
            return Err(malformed());
        };
        let kind = obj
            .get("type")
            .and_then(Value::as_str)
            .ok_or_else(malformed)?;
        let data = obj.get("data");
        match kind {
            "match" | "context" => {
                let data = data.ok_or_else(malformed)?;
                let path = text_field(data.get("path"))?;
                let text = text_field(data.get("lines"))?;
                let line = data
                    .get("line_number")
                    .and_then(Value::as_f64)
                    .ok_or_else(malformed)?;
                let kind = if kind == "match" && !is_drift_5_context(data, &text) {
                    RowKind::Match
                } else {
                    RowKind::Context
                };
                rows.push(RgRow {
                    path,
                    // rg prints positive integers; anything else is no line we can use.
                    line: if line.fract() == 0.0 && line >= 1.0 {
                        line as u64
                    } else {
                        return Err(malformed());
                    },
                    text,
                    kind,
                });
            }
            "begin" => {
                text_field(data.and_then(|d| d.get("path")))?;
            }
            "end" => {
                let data = data.ok_or_else(malformed)?;
                text_field(data.get("path"))?;
                match data.get("binary_offset") {
                    Some(Value::Null) | Some(Value::Number(_)) => {}
                    _ => return Err(malformed()),
                }
            }
            "summary" => {
                let searches = data
                    .and_then(|d| d.get("stats"))
                    .and_then(|s| s.as_object())
                    .and_then(|s| s.get("searches"));
                if !matches!(searches, Some(Value::Number(_))) {
                    return Err(malformed());
                }
                summary = true;
            }
            _ => return Err(malformed()),
        }
    }
    if !summary {
        return Err(malformed());
    }
    Ok(rows)
}

/// `{"text": "..."}`; `{"bytes": ...}` or anything else is malformed.
fn text_field(value: Option<&Value>) -> Result<String, StdError> {
    value
        .and_then(|v| v.get("text"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(malformed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUMMARY: &str = r#"{"type":"summary","data":{"stats":{"searches":1}}}"#;

    /// Drift 5, as rg 15.2 prints it for `rg --json --crlf -m2 -A1 '^$'`
    /// on `"\n\nfirst\n"`: line 3 is a `match` with no submatch.
    #[test]
    fn a_match_without_a_submatch_is_context() {
        let stream = format!(
            "{}\n{}\n{SUMMARY}\n",
            r#"{"type":"match","data":{"path":{"text":"b.txt"},"lines":{"text":"\n"},"line_number":2,"absolute_offset":1,"submatches":[{"match":{"text":""},"start":0,"end":0}]}}"#,
            r#"{"type":"match","data":{"path":{"text":"b.txt"},"lines":{"text":"first\n"},"line_number":3,"absolute_offset":2,"submatches":[]}}"#,
        );
        let kinds: Vec<RowKind> = parse_stream(stream.as_bytes())
            .unwrap()
            .into_iter()
            .map(|row| row.kind)
            .collect();
        assert_eq!(kinds, [RowKind::Match, RowKind::Context]);
    }

    /// rg 15.2's `printf 'a\n\x80' | rg --json --crlf '$'`: the empty
    /// match at the end of the unterminated last line has no submatch, and
    /// it is a hit all the same.
    #[test]
    fn a_match_without_a_submatch_on_an_unterminated_last_line_is_a_match() {
        let stream = format!(
            "{}\n{}\n{SUMMARY}\n",
            r#"{"type":"match","data":{"path":{"text":"a.txt"},"lines":{"text":"a\n"},"line_number":1,"absolute_offset":0,"submatches":[{"match":{"text":""},"start":1,"end":1}]}}"#,
            r#"{"type":"match","data":{"path":{"text":"a.txt"},"lines":{"text":"\ufffd"},"line_number":2,"absolute_offset":2,"submatches":[]}}"#,
        );
        let kinds: Vec<RowKind> = parse_stream(stream.as_bytes())
            .unwrap()
            .into_iter()
            .map(|row| row.kind)
            .collect();
        assert_eq!(kinds, [RowKind::Match, RowKind::Match]);
    }

    #[test]
    fn accepts_a_well_formed_stream() {
        let stream = format!(
            "{}\n{}\n{}\n{SUMMARY}\n",
            r#"{"type":"begin","data":{"path":{"text":"a.txt"}}}"#,
            r#"{"type":"match","data":{"path":{"text":"a.txt"},"lines":{"text":"needle\n"},"line_number":2,"absolute_offset":4,"submatches":[{"match":{"text":"needle"},"start":0,"end":6}]}}"#,
            r#"{"type":"end","data":{"path":{"text":"a.txt"},"binary_offset":null,"stats":{}}}"#,
        );
        let rows = parse_stream(stream.as_bytes()).unwrap();
        assert_eq!(
            rows,
            [RgRow {
                path: "a.txt".into(),
                line: 2,
                text: "needle\n".into(),
                kind: RowKind::Match
            }]
        );
    }

    #[test]
    fn every_listed_violation_is_malformed() {
        // native-peer §2.4's tested violations.
        let cases = [
            "not json",
            "null",
            "1",
            r#"{"data":{}}"#,
            r#"{"type":"progress","data":{}}"#,
            r#"{"type":"match"}"#,
            r#"{"type":"match","data":{"lines":{"text":"x"},"line_number":1}}"#,
            r#"{"type":"match","data":{"path":{"bytes":"eA=="},"lines":{"text":"x"},"line_number":1}}"#,
            r#"{"type":"match","data":{"path":{"text":"a"},"line_number":1}}"#,
            r#"{"type":"match","data":{"path":{"text":"a"},"lines":{"text":1},"line_number":1}}"#,
            r#"{"type":"match","data":{"path":{"text":"a"},"lines":{"text":"x"},"line_number":"1"}}"#,
            r#"{"type":"begin","data":{}}"#,
            r#"{"type":"end","data":{"binary_offset":null}}"#,
            r#"{"type":"end","data":{"path":{"text":"a"}}}"#,
            r#"{"type":"end","data":{"path":{"text":"a"},"binary_offset":"3"}}"#,
            r#"{"type":"summary","data":{}}"#,
            r#"{"type":"summary","data":{"stats":null}}"#,
            r#"{"type":"summary","data":{"stats":{"searches":"1"}}}"#,
        ];
        for case in cases {
            let stream = format!("{case}\n{SUMMARY}\n");
            assert_eq!(parse_stream(stream.as_bytes()), Err(malformed()), "{case}");
        }
        let no_summary = r#"{"type":"begin","data":{"path":{"text":"a"}}}"#;
        assert_eq!(parse_stream(no_summary.as_bytes()), Err(malformed()));
        assert_eq!(parse_stream(b""), Err(malformed()));
        assert_eq!(parse_stream(b"{}\n"), Err(malformed()));
    }
}
