//! A peer's history across runs: `lawsuite history A.jsonl B.jsonl …`
//! (the results of its successive versions, oldest first) shows, for each
//! trial whose verdict changed along the way, its verdict in every run, as
//! wpt.fyi shows a test's results across browser releases. Trials that
//! never changed are counted, not listed.
//!
//! The runs are streamed: a history keeps 16 bytes and one byte a run per
//! trial, and reads the files again for the ids it lists.
//!
//! ```
//! use lawsuite::conformance::{Kind, Outcome, Verdict};
//! use lawsuite::report::history::History;
//! use lawsuite::report::results::{Results, Side};
//!
//! let run = |verdict: Verdict| {
//!     let outcome = Outcome {
//!         id: "law::a::mine".parse().unwrap(),
//!         item: "law::a".into(),
//!         kind: Kind::Law,
//!         peer: Some("mine".into()),
//!         spec: None,
//!         verdict,
//!         documented: Default::default(),
//!         compared: 0,
//!         seconds: 0.0,
//!     };
//!     Results::new(Default::default(), vec![outcome], "run.jsonl")
//! };
//! let (one, two) = (run(Verdict::Pass), run(Verdict::Skipped { why: "not declared".into() }));
//! let history = History::of(vec![Side::held(&one), Side::held(&two)])?;
//! assert_eq!(history.changed(), 1);
//! # Ok::<(), lawsuite::report::results::ResultsError>(())
//! ```

use std::fmt::Write as _;
use std::io::{self, Write};
use std::ops::ControlFlow;

use serde::Serialize;

use super::escaped;
use super::results::index::{Index, Loc};
use super::results::line::{Key, Tag};
use super::results::side::found_twice;
use super::results::{ResultsError, ResultsErrorKind, Side};

/// One run of a history: where it came from and what ran.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    /// The results file.
    pub source: String,
    /// The peers' versions, `name version` each (the reference's too).
    pub peers: Vec<String>,
    /// When it started, seconds since the Unix epoch.
    pub started: u64,
}

/// The verdicts of every trial over a series of runs.
#[derive(Debug)]
pub struct History<'a> {
    /// The runs, in the order given.
    pub runs: Vec<Run>,
    sides: Vec<Side<'a>>,
    /// Every trial, by key.
    keys: Vec<Key>,
    /// Each trial's verdict per run, a row of `runs.len()` a trial: the
    /// tag's number + 1, or 0 where the trial is not in that run.
    rows: Vec<u8>,
    changed: usize,
}

impl<'a> History<'a> {
    /// The history of `sides`, oldest first: each read whole (any problem
    /// is an error), only each trial's verdict kept.
    pub fn of(mut sides: Vec<Side<'a>>) -> Result<History<'a>, ResultsError> {
        let k = sides.len();
        let mut keys: Vec<Key> = Vec::new();
        let mut rows: Vec<u8> = Vec::new();
        for (j, side) in sides.iter_mut().enumerate() {
            let name = side.name();
            let mut added = Index::default();
            // A trial twice in this run: its key, line and both tags.
            let mut twice = None;
            let checked = side.check(j, |n, trial| {
                match keys.binary_search(&trial.key) {
                    Ok(at) => {
                        let cell = &mut rows[at * k + j];
                        if *cell != 0 {
                            twice = Some((trial.key, n, Tag::from_number(*cell - 1), trial.tag));
                            return Err(ResultsError {
                                kind: ResultsErrorKind::Duplicate,
                                source: name.clone(),
                                line: None,
                                message: String::new(),
                            });
                        }
                        *cell = trial.tag.number() + 1;
                    }
                    Err(_) => added.push(trial.key, Loc::new(j, n, trial.tag, &name)?),
                }
                Ok(())
            });
            if let Some((key, n, first, again)) = twice {
                return Err(found_twice(side, j, key, n, (first, again))?);
            }
            checked?;
            added.sort();
            if let Some(group) = added.repeats().next() {
                let (first, again) = (group[0].loc, group[1].loc);
                return Err(found_twice(
                    side,
                    j,
                    group[0].key,
                    again.line(),
                    (first.tag(), again.tag()),
                )?);
            }
            // The new trials put in key order beside the others.
            let entries = added.entries();
            let mut merged_keys = Vec::with_capacity(keys.len() + entries.len());
            let mut merged_rows = Vec::with_capacity((keys.len() + entries.len()) * k);
            let mut old = keys.iter().zip(rows.chunks_exact(k)).peekable();
            for entry in entries {
                while let Some((key, row)) = old.next_if(|(key, _)| **key < entry.key) {
                    merged_keys.push(*key);
                    merged_rows.extend_from_slice(row);
                }
                merged_keys.push(entry.key);
                let start = merged_rows.len();
                merged_rows.resize(start + k, 0);
                merged_rows[start + j] = entry.loc.tag().number() + 1;
            }
            for (key, row) in old {
                merged_keys.push(*key);
                merged_rows.extend_from_slice(row);
            }
            drop(added);
            keys = merged_keys;
            rows = merged_rows;
        }
        let runs = sides
            .iter()
            .map(|side| Run {
                source: side.name(),
                peers: side
                    .info()
                    .peers
                    .iter()
                    .map(|p| format!("{} {}", p.name, p.version))
                    .collect(),
                started: side.info().started,
            })
            .collect();
        let changed = if k == 0 {
            0
        } else {
            rows.chunks_exact(k).filter(|row| is_changed(row)).count()
        };
        Ok(History {
            runs,
            sides,
            keys,
            rows,
            changed,
        })
    }

    /// How many trials changed verdict (a trial missing from a run counts
    /// as a change).
    pub fn changed(&self) -> usize {
        self.changed
    }

    /// How many trials in all.
    pub fn trials(&self) -> usize {
        self.keys.len()
    }

    /// Each trial (each that changed, with `only_changed`) with its
    /// verdict in every run (`None`: not in that run), in the order the
    /// runs first have them, until `each` breaks: the runs are read again
    /// for the ids.
    pub fn each(
        &self,
        only_changed: bool,
        mut each: impl FnMut(&str, Vec<Option<&'static str>>) -> ControlFlow<()>,
    ) -> Result<(), ResultsError> {
        let k = self.sides.len();
        for (j, side) in self.sides.iter().enumerate() {
            let mut stopped = false;
            side.walk(j, |_, trial| {
                let Ok(at) = self.keys.binary_search(&trial.key) else {
                    return Ok(ControlFlow::Continue(()));
                };
                let row = &self.rows[at * k..at * k + k];
                // Listed once: from the first run that has it.
                if row.iter().position(|c| *c != 0) != Some(j) || (only_changed && !is_changed(row))
                {
                    return Ok(ControlFlow::Continue(()));
                }
                let tags = row
                    .iter()
                    .map(|c| (*c != 0).then(|| Tag::from_number(*c - 1).name()))
                    .collect();
                let flow = each(&trial.id, tags);
                stopped = flow.is_break();
                Ok(flow)
            })?;
            if stopped {
                break;
            }
        }
        Ok(())
    }

    /// The first `max` changed trials (0: all), with their verdicts.
    fn listed(&self, max: usize) -> Result<Vec<(String, Row)>, ResultsError> {
        let mut out = Vec::new();
        self.each(true, |id, row| {
            out.push((id.to_string(), row));
            if max > 0 && out.len() >= max {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })?;
        Ok(out)
    }

    /// For people: the runs, then each changed trial's verdicts
    /// (`pass → fail → pass`), at most `max` of them (0: all). Ids and
    /// names are escaped as `run` escapes them ([`escaped`]).
    pub fn human(&self, max: usize) -> Result<String, ResultsError> {
        let mut out = String::new();
        let _ = writeln!(out, "history of {} runs:", self.runs.len());
        for (i, run) in self.runs.iter().enumerate() {
            let _ = writeln!(
                out,
                "  {} {}  ({})",
                i + 1,
                escaped(&run.source, "    "),
                escaped(&run.peers.join(", "), "    ")
            );
        }
        let _ = writeln!(
            out,
            "{} of {} trials changed verdict:",
            self.changed,
            self.trials()
        );
        let listed = self.listed(max)?;
        for (id, row) in &listed {
            let path: Vec<&str> = row.iter().map(|v| v.unwrap_or("—")).collect();
            let _ = writeln!(out, "  {}  {}", escaped(id, "    "), path.join(" → "));
        }
        if listed.len() < self.changed {
            let _ = writeln!(
                out,
                "  … and {} more (--max-reports 0 lists all)",
                self.changed - listed.len()
            );
        }
        Ok(out)
    }

    /// A Markdown table: one column per run, one row per changed trial.
    pub fn markdown(&self, max: usize) -> Result<String, ResultsError> {
        let mut out = String::from("### lawsuite history\n\n| trial |");
        for i in 1..=self.runs.len() {
            let _ = write!(out, " {i} |");
        }
        out.push_str("\n| --- |");
        out.push_str(&" --- |".repeat(self.runs.len()));
        out.push('\n');
        let listed = self.listed(max)?;
        for (id, row) in &listed {
            let _ = write!(out, "| `{}` |", escaped(id, " ").replace('|', "\\|"));
            for v in row {
                let _ = write!(out, " {} |", v.unwrap_or("—"));
            }
            out.push('\n');
        }
        let _ = writeln!(out, "\nRuns (— where a trial is not in a run):\n");
        for (i, run) in self.runs.iter().enumerate() {
            let _ = writeln!(
                out,
                "{}. `{}` ({})",
                i + 1,
                escaped(&run.source, " "),
                escaped(&run.peers.join(", "), " ")
            );
        }
        if listed.len() < self.changed {
            let _ = writeln!(
                out,
                "\n… and {} more changed trials.",
                self.changed - listed.len()
            );
        }
        Ok(out)
    }

    /// The whole history as one JSON document, for tools: `runs`, and
    /// `trials`, every trial with its verdict in each run (`null`: not in
    /// it), in the order the runs first have them; written as the runs
    /// are read again.
    pub fn json_to(&self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(b"{\n  \"runs\": ")?;
        super::json::pretty(out, &self.runs, b"\n  ")?;
        out.write_all(b",\n  \"trials\": {")?;
        let mut any = false;
        let mut failed = Ok(());
        self.each(false, |id, row| {
            failed = out
                .write_all(if any { b",\n    " } else { b"\n    " })
                .and_then(|()| serde_json::to_writer(&mut *out, id).map_err(io::Error::other))
                .and_then(|()| out.write_all(b": "))
                .and_then(|()| super::json::pretty(out, &row, b"\n    "));
            any = true;
            if failed.is_err() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .map_err(io::Error::other)?;
        failed?;
        out.write_all(if any { b"\n  }\n}\n" } else { b"}\n}\n" })
    }
}

/// A trial's verdict in each run (`None`: not in that run).
type Row = Vec<Option<&'static str>>;

/// Whether a row's verdicts are not all the same.
fn is_changed(row: &[u8]) -> bool {
    row.windows(2).any(|w| w[0] != w[1])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{Kind, Outcome, Report, Verdict};
    use crate::report::results::Results;

    fn run(verdicts: &[(&str, Verdict)]) -> Results {
        let outcomes = verdicts
            .iter()
            .map(|(id, v)| Outcome {
                id: id.parse().expect("a trial id"),
                item: (*id).into(),
                kind: Kind::Law,
                peer: Some("mine".into()),
                spec: None,
                verdict: v.clone(),
                documented: Default::default(),
                compared: 0,
                seconds: 0.0,
            })
            .collect();
        Results::new(Default::default(), outcomes, "r.jsonl")
    }

    #[test]
    fn only_the_trials_that_changed_are_listed_each_with_every_verdict() {
        let fail = Verdict::Fail {
            report: Report::default(),
        };
        let runs = [
            run(&[
                ("law::a::p", Verdict::Pass),
                ("law::b::p", Verdict::Pass),
                ("law::c::p", fail.clone()),
            ]),
            run(&[("law::a::p", fail.clone()), ("law::b::p", Verdict::Pass)]),
            run(&[
                ("law::a::p", Verdict::Pass),
                ("law::b::p", Verdict::Pass),
                ("law::d::p", Verdict::Pass),
            ]),
        ];
        let history = History::of(runs.iter().map(Side::held).collect()).unwrap();
        assert_eq!((history.changed(), history.trials()), (3, 4));
        let text = history.human(0).unwrap();
        assert!(text.contains("law::a::p  pass → fail → pass"), "{text}");
        assert!(text.contains("law::c::p  fail → — → —"), "{text}");
        assert!(text.contains("law::d::p  — → — → pass"), "{text}");
        assert!(text.contains("3 of 4 trials changed verdict"), "{text}");
        let markdown = history.markdown(0).unwrap();
        assert!(
            markdown.contains("| `law::a::p` | pass | fail | pass |"),
            "{markdown}"
        );
        let one = history.human(1).unwrap();
        assert!(one.contains("… and 2 more"), "{one}");
        let mut json = Vec::new();
        history.json_to(&mut json).unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&json).unwrap();
        assert_eq!(
            doc["trials"]["law::d::p"],
            serde_json::json!([null, null, "pass"])
        );
        assert_eq!(doc["trials"].as_object().unwrap().len(), 4);
    }

    /// An id holding ESC is printed escaped, as `run` prints one.
    #[test]
    fn control_characters_are_escaped() {
        let runs = [
            run(&[("law::a\u{1b}[2J::p", Verdict::Pass)]),
            run(&[("law::a\u{1b}[2J::p", Verdict::Broken { why: "x".into() })]),
        ];
        let history = History::of(runs.iter().map(Side::held).collect()).unwrap();
        for text in [history.human(0).unwrap(), history.markdown(0).unwrap()] {
            assert!(!text.contains('\u{1b}'), "{text:?}");
            assert!(text.contains(r"law::a\u{001B}[2J::p"), "{text}");
        }
    }
}
