//! A run's results as data: read back from `--format jsonl`, merged across
//! shards (`lawsuite run --shard K/N` on N machines, then `lawsuite
//! merge`), and rendered in any format, HTML included.
//!
//! A shard takes the items whose id hashes to it ([`in_shard`]), the way
//! `cargo nextest run --partition hash:K/N` takes tests: stable across
//! machines and runs, whatever else is selected, and an item's trials (a
//! seed on every subject) stay together.
//!
//! ```
//! use lawsuite::conformance::results::in_shard;
//! let ids = ["law::a::x", "law::b::y", "seed::smthrs::0001", "regression::r"];
//! for id in ids {
//!     // Every item is in exactly one of the N shards.
//!     assert_eq!((1..=3).filter(|k| in_shard(id, *k, 3)).count(), 1);
//! }
//! ```

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use super::format::RunInfo;
use super::{Outcome, Summary};

/// Whether item `id` is in shard `k` of `n` (1-based): FNV-1a of the id,
/// modulo `n`.
pub fn in_shard(id: &str, k: u64, n: u64) -> bool {
    let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    n > 0 && hash % n == k.wrapping_sub(1)
}

/// `K/N` with `1 <= K <= N`.
///
/// ```
/// use lawsuite::conformance::results::parse_shard;
/// assert_eq!(parse_shard("2/8"), Ok((2, 8)));
/// assert!(parse_shard("0/8").is_err() && parse_shard("9/8").is_err());
/// ```
pub fn parse_shard(text: &str) -> Result<(u64, u64), String> {
    let bad = || format!("--shard takes K/N with 1 <= K <= N (e.g. 2/8), not {text:?}");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (u64, u64) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// The results of one run, or of merged shards.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Results {
    /// Who and what ran.
    pub info: RunInfo,
    /// Every outcome.
    pub outcomes: Vec<Outcome>,
    /// Peers the harness stopped restarting: (peer, trial, why).
    pub stopped: Vec<(String, String, String)>,
    /// Wall-clock seconds (the longest shard's, when merged).
    pub seconds: f64,
    /// Where they came from (file names), for messages.
    pub sources: Vec<String>,
}

/// A results file that cannot be read or merged.
#[derive(Debug, PartialEq, Eq)]
pub struct ResultsError {
    /// The file.
    pub source: String,
    /// Its line, when the problem is one.
    pub line: Option<usize>,
    /// What is wrong and what to do.
    pub message: String,
}

impl fmt::Display for ResultsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{} line {line}: {}", self.source, self.message),
            None => write!(f, "{}: {}", self.source, self.message),
        }
    }
}

impl std::error::Error for ResultsError {}

impl Results {
    /// Read a `--format jsonl` file. A truncated last line (a run that was
    /// killed mid-write) is ignored; every other line must be valid.
    pub fn read_jsonl(text: &str, source: &str) -> Result<Results, ResultsError> {
        let err = |line: usize, message: String| ResultsError {
            source: source.to_string(),
            line: Some(line),
            message,
        };
        let mut out = Results {
            sources: vec![source.to_string()],
            ..Results::default()
        };
        let mut saw_run = false;
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let value: Value = match serde_json::from_str(line) {
                Ok(v) => v,
                Err(_) if i + 1 == lines.len() && !text.ends_with('\n') => break,
                Err(e) => return Err(err(i + 1, format!("not a JSON line: {e}"))),
            };
            match value.get("type").and_then(Value::as_str) {
                Some("run") => {
                    out.info = serde_json::from_value(value)
                        .map_err(|e| err(i + 1, format!("not a run line: {e}")))?;
                    saw_run = true;
                }
                Some("outcome") => out.outcomes.push(
                    serde_json::from_value(value)
                        .map_err(|e| err(i + 1, format!("not an outcome: {e}")))?,
                ),
                Some("peerStopped") => {
                    let field = |k: &str| {
                        value
                            .get(k)
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string()
                    };
                    out.stopped.push((field("peer"), field("at"), field("why")));
                }
                Some("summary") => {
                    let summary: Summary = serde_json::from_value(value)
                        .map_err(|e| err(i + 1, format!("not a summary: {e}")))?;
                    out.seconds = summary.seconds;
                }
                other => {
                    return Err(err(
                        i + 1,
                        format!(
                            "unknown line type {other:?}; is this a `lawsuite run --format jsonl` file?"
                        ),
                    ));
                }
            }
        }
        if !saw_run {
            return Err(ResultsError {
                source: source.to_string(),
                line: None,
                message: "no run line; give the output of `lawsuite run --format jsonl`".into(),
            });
        }
        Ok(out)
    }

    /// Merge shards (or runs) into one: every outcome once, ordered by
    /// trial id within kind. The same trial in two inputs must have the
    /// same verdict.
    pub fn merge(parts: Vec<Results>) -> Result<Results, ResultsError> {
        let mut iter = parts.into_iter();
        let Some(mut merged) = iter.next() else {
            return Err(ResultsError {
                source: "(no files)".into(),
                line: None,
                message: "give at least one results file".into(),
            });
        };
        let mut seen: BTreeMap<String, (String, &'static str)> = merged
            .outcomes
            .iter()
            .map(|o| (o.id.clone(), (merged.sources[0].clone(), o.verdict.tag())))
            .collect();
        for part in iter {
            let source = part.sources.first().cloned().unwrap_or_default();
            if part.info.reference != merged.info.reference {
                return Err(ResultsError {
                    source,
                    line: None,
                    message: format!(
                        "its reference is {:?}, not {:?}: these runs do not compare the same thing",
                        part.info.reference, merged.info.reference
                    ),
                });
            }
            for peer in part.info.peers {
                if !merged.info.peers.iter().any(|p| p.name == peer.name) {
                    merged.info.peers.push(peer);
                }
            }
            for o in part.outcomes {
                match seen.get(&o.id) {
                    Some((_, tag)) if *tag == o.verdict.tag() => continue,
                    Some((first, tag)) => {
                        return Err(ResultsError {
                            source,
                            line: None,
                            message: format!(
                                "trial {} is {} here but {tag} in {first}; merge shards of one run",
                                o.id,
                                o.verdict.tag()
                            ),
                        });
                    }
                    None => {
                        seen.insert(o.id.clone(), (source.clone(), o.verdict.tag()));
                        merged.outcomes.push(o);
                    }
                }
            }
            for s in part.stopped {
                if !merged.stopped.contains(&s) {
                    merged.stopped.push(s);
                }
            }
            merged.seconds = merged.seconds.max(part.seconds);
            merged.started_min(part.info.started);
            merged.sources.push(source);
        }
        merged
            .outcomes
            .sort_by(|a, b| (a.kind, &a.id).cmp(&(b.kind, &b.id)));
        Ok(merged)
    }

    fn started_min(&mut self, started: u64) {
        if started > 0 && (self.info.started == 0 || started < self.info.started) {
            self.info.started = started;
        }
    }

    /// The counts.
    pub fn summary(&self) -> Summary {
        Summary::of(
            &self.outcomes,
            std::time::Duration::from_secs_f64(self.seconds.max(0.0)),
            self.stopped.clone(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{Kind, Verdict};

    fn outcome(id: &str, verdict: Verdict) -> String {
        let o = Outcome {
            id: id.into(),
            item: id.rsplit_once("::").map_or(id, |p| p.0).into(),
            kind: Kind::Law,
            peer: Some("p".into()),
            spec: Some("search-contract §8".into()),
            verdict,
            documented: BTreeMap::new(),
            seconds: 0.1,
        };
        crate::conformance::format::jsonl_line("outcome", &o)
    }

    fn run_line() -> String {
        let info = RunInfo {
            reference: "portable".into(),
            ..RunInfo::default()
        };
        crate::conformance::format::jsonl_line("run", &info)
    }

    #[test]
    fn shards_merge_into_one_run_and_conflicts_are_refused() {
        let a = format!(
            "{}\n{}\n",
            run_line(),
            outcome("law::a::x::p", Verdict::Pass)
        );
        let b = format!(
            "{}\n{}\n{}\n",
            run_line(),
            outcome("law::b::y::p", Verdict::Skipped { why: "w".into() }),
            outcome("law::a::x::p", Verdict::Pass)
        );
        let merged = Results::merge(vec![
            Results::read_jsonl(&a, "a.jsonl").unwrap(),
            Results::read_jsonl(&b, "b.jsonl").unwrap(),
        ])
        .unwrap();
        assert_eq!(merged.outcomes.len(), 2);
        assert_eq!(merged.summary().total().skipped, 1);
        let c = format!(
            "{}\n{}\n",
            run_line(),
            outcome("law::a::x::p", Verdict::Broken { why: "b".into() })
        );
        let err = Results::merge(vec![
            Results::read_jsonl(&a, "a.jsonl").unwrap(),
            Results::read_jsonl(&c, "c.jsonl").unwrap(),
        ])
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("is broken here but pass in a.jsonl"),
            "{err}"
        );
    }

    #[test]
    fn a_killed_run_keeps_what_it_reached() {
        let text = format!(
            "{}\n{}\n{{\"type\":\"outc",
            run_line(),
            outcome("law::a::x::p", Verdict::Pass)
        );
        let r = Results::read_jsonl(&text, "killed.jsonl").unwrap();
        assert_eq!(r.outcomes.len(), 1);
        assert!(Results::read_jsonl("{\"type\":\"outcome\"}\n", "x").is_err());
        assert!(
            Results::read_jsonl("nonsense\n", "x")
                .unwrap_err()
                .to_string()
                .contains("line 1")
        );
    }
}
