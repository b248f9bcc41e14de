//! What changed between two runs: `lawsuite diff BASE.jsonl NEW.jsonl` and
//! the gate of `lawsuite run --baseline FILE`.
//!
//! A trial is compared by its id (`law::glob::matching::star::mine`). Each
//! falls in one class ([`Change`]): newly failing, newly passing, still
//! failing, added, removed, or the same. *Failing* is what fails a run
//! ([`Verdict::is_failure`](crate::conformance::Verdict::is_failure): a failure, an unexpected pass, a trial that
//! could not be judged); an expected failure or a skipped trial is not
//! failing. An added trial that fails counts as newly failing: the gate
//! exists to catch anything that fails now and did not before.
//!
//! ```
//! use lawsuite::conformance::{Kind, Outcome, Report, Verdict};
//! use lawsuite::report::diff::{Change, RunDiff};
//! use lawsuite::report::results::Results;
//!
//! let outcome = |id: &str, verdict: Verdict| Outcome {
//!     id: id.parse().unwrap(),
//!     item: id.rsplit_once("::").unwrap().0.into(),
//!     kind: Kind::Law,
//!     peer: Some("mine".into()),
//!     spec: Some("search-contract §8".into()),
//!     verdict,
//!     documented: Default::default(),
//!     compared: 0,
//!     seconds: 0.0,
//! };
//! let fail = || Verdict::Fail { report: Report { summary: "paths differ".into(), ..Report::default() } };
//! let base = Results::new(Default::default(), vec![outcome("law::a::mine", Verdict::Pass), outcome("law::b::mine", fail())], "base.jsonl");
//! let new = Results::new(Default::default(), vec![outcome("law::a::mine", fail()), outcome("law::b::mine", Verdict::Pass)], "new.jsonl");
//! let diff = RunDiff::between(&base, &new)?;
//! assert_eq!(diff.count(Change::NewlyFailing), 1);
//! assert_eq!(diff.count(Change::NewlyPassing), 1);
//! assert!(diff.regressed());
//! # Ok::<(), lawsuite::report::results::ResultsError>(())
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::ops::ControlFlow;

use serde::Serialize;

use super::escaped;
use super::results::index::{Index, Loc};
use super::results::line::Tag;
use super::results::side::{Trial, found_twice};
use super::results::{Results, ResultsError, ResultsErrorKind, Side};

/// How one trial changed between the two runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Failing now, not failing before (or not there before).
    NewlyFailing,
    /// Failing before, not now.
    NewlyPassing,
    /// Failing in both.
    StillFailing,
    /// Only in the new run, not failing.
    Added,
    /// Only in the base run.
    Removed,
    /// In both, not failing in either (its verdict may still differ: a
    /// pass that became skipped).
    Same,
}

impl Change {
    /// Every class, in report order.
    pub const ALL: [Change; 6] = [
        Change::NewlyFailing,
        Change::NewlyPassing,
        Change::StillFailing,
        Change::Added,
        Change::Removed,
        Change::Same,
    ];

    /// How a report titles it.
    pub fn title(self) -> &'static str {
        match self {
            Change::NewlyFailing => "newly failing",
            Change::NewlyPassing => "newly passing",
            Change::StillFailing => "still failing",
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Same => "unchanged",
        }
    }

    /// The class of a trial failing now (`now`) that was `was`
    /// (`Some(failing)`) or not there.
    fn of(was: Option<bool>, now: bool) -> Change {
        match was {
            None if now => Change::NewlyFailing,
            None => Change::Added,
            Some(false) if now => Change::NewlyFailing,
            Some(true) if now => Change::StillFailing,
            Some(true) => Change::NewlyPassing,
            Some(false) => Change::Same,
        }
    }
}

/// One trial whose class is not [`Change::Same`], or whose verdict changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Flip {
    /// The trial id.
    pub id: String,
    /// Its class.
    pub change: Change,
    /// The peer, when the trial is a peer's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peer: Option<String>,
    /// The spec section, for a law.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
    /// The verdict before (`pass`, `fail`, …), when it was there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<&'static str>,
    /// The verdict now, when it is there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<&'static str>,
    /// Why it fails now, as `run` says it (for a failing trial).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The changes between two runs' results: counted when the diff is made,
/// listed by walking the runs again ([`RunDiff::flips`]), so a diff of
/// two files of six million trials holds 24 bytes a trial of the base
/// and nothing of the new run (it held every outcome of both, 5 to 7 GB).
#[derive(Debug)]
pub struct RunDiff<'a> {
    /// The base run's source (a file name).
    pub base: String,
    /// The new run's source.
    pub new: String,
    /// How many trials of each class.
    pub counts: BTreeMap<Change, usize>,
    /// The trials of each class but [`Change::Same`], counted by spec
    /// section and peer (`(spec, peer)`; a trial without a section under
    /// `seeds and regressions`, one without a peer under `(checks)`).
    pub sections: BTreeMap<(String, String), BTreeMap<Change, usize>>,
    sides: [Side<'a>; 2],
    /// The base's trials, by key.
    index: Index,
    /// Which of them the new run has, by position in `index`.
    seen: Vec<u64>,
}

pub use super::results::side::reason;

/// The key of a section count: a trial's spec section and peer.
fn section(trial: &Trial) -> (String, String) {
    (
        trial
            .spec
            .clone()
            .unwrap_or_else(|| "seeds and regressions".into()),
        trial.peer.clone().unwrap_or_else(|| "(checks)".into()),
    )
}

impl<'a> RunDiff<'a> {
    /// Compare `new` with `base`, both held in memory. Both must come
    /// from one lawsuite version and compare against one reference:
    /// otherwise their trials do not mean the same thing
    /// ([`ResultsErrorKind::Version`], [`ResultsErrorKind::Mismatch`],
    /// naming the new file).
    pub fn between(base: &'a Results, new: &'a Results) -> Result<RunDiff<'a>, ResultsError> {
        RunDiff::of(Side::held(base), Side::held(new))
    }

    /// Compare `new` with `base`: files streamed (each checked whole: a
    /// comparison with part of a run would call the rest added or
    /// removed), or results held in memory.
    pub fn of(mut base: Side<'a>, mut new: Side<'a>) -> Result<RunDiff<'a>, ResultsError> {
        let base_name = base.name();
        let mut index = Index::default();
        base.check(0, |n, trial| {
            index.push(trial.key, Loc::new(0, n, trial.tag, &base_name)?);
            Ok(())
        })?;
        index.sort();
        if let Some(group) = index.repeats().next() {
            let (first, again) = (group[0].loc, group[1].loc);
            return Err(found_twice(
                &base,
                0,
                group[0].key,
                again.line(),
                (first.tag(), again.tag()),
            )?);
        }
        let mut seen = vec![0u64; index.len().div_ceil(64)];
        let mut counts: BTreeMap<Change, usize> = BTreeMap::new();
        let mut sections: BTreeMap<(String, String), BTreeMap<Change, usize>> = BTreeMap::new();
        let mut added = Index::default();
        // A trial twice in the new run: (its key, the line, both tags).
        let mut twice = None;
        let new_name = new.name();
        let checked = new.check(1, |n, trial| {
            let was = index.find(trial.key);
            if let Some(at) = was {
                let bit = 1u64 << (at % 64);
                if seen[at / 64] & bit != 0 {
                    twice = Some((trial.key, n, trial.tag));
                    return Err(ResultsError {
                        kind: ResultsErrorKind::Duplicate,
                        source: new_name.clone(),
                        line: None,
                        message: String::new(),
                    });
                }
                seen[at / 64] |= bit;
            } else {
                added.push(trial.key, Loc::new(1, n, trial.tag, &new_name)?);
            }
            let change = Change::of(
                was.map(|at| index.get(at).loc.tag().is_failure()),
                trial.tag.is_failure(),
            );
            *counts.entry(change).or_default() += 1;
            if change != Change::Same {
                *sections
                    .entry(section(&trial))
                    .or_default()
                    .entry(change)
                    .or_default() += 1;
            }
            Ok(())
        });
        if let Some((key, n, tag)) = twice {
            // The tag of its first time: the one the new run held first.
            let first = new.first_line_of(1, key)?;
            let first_tag = match first {
                Some(line) => {
                    let mut tag = tag;
                    new.walk(1, |at, t| {
                        Ok(if at == line {
                            tag = t.tag;
                            ControlFlow::Break(())
                        } else {
                            ControlFlow::Continue(())
                        })
                    })?;
                    tag
                }
                None => tag,
            };
            return Err(found_twice(&new, 1, key, n, (first_tag, tag))?);
        }
        checked?;
        added.sort();
        if let Some(group) = added.repeats().next() {
            let (first, again) = (group[0].loc, group[1].loc);
            return Err(found_twice(
                &new,
                1,
                group[0].key,
                again.line(),
                (first.tag(), again.tag()),
            )?);
        }
        drop(added);
        let diff = RunDiff {
            base: base_name,
            new: new_name,
            counts,
            sections,
            sides: [base, new],
            index,
            seen,
        };
        diff.same_sweep()?;
        let mut diff = diff;
        let removed = diff.index.len()
            - diff
                .seen
                .iter()
                .map(|w| w.count_ones() as usize)
                .sum::<usize>();
        if removed > 0 {
            diff.counts.insert(Change::Removed, removed);
            let mut sections = std::mem::take(&mut diff.sections);
            diff.sides[0].walk(0, |_, trial| {
                if !diff.seen_in_new(&trial) {
                    *sections
                        .entry(section(&trial))
                        .or_default()
                        .entry(Change::Removed)
                        .or_default() += 1;
                }
                Ok(ControlFlow::Continue(()))
            })?;
            diff.sections = sections;
        }
        Ok(diff)
    }

    /// One lawsuite version and one reference, or the error naming the
    /// new run.
    fn same_sweep(&self) -> Result<(), ResultsError> {
        let (base, new) = (self.sides[0].info(), self.sides[1].info());
        let refuse = |kind, message: String| ResultsError {
            kind,
            source: self.new.clone(),
            line: None,
            message,
        };
        if !base.lawsuite.is_empty() && !new.lawsuite.is_empty() && base.lawsuite != new.lawsuite {
            return Err(refuse(
                ResultsErrorKind::Version,
                format!(
                    "written by lawsuite {}, but {} by lawsuite {}: trial ids and verdicts may not mean the same; run both with one version",
                    new.lawsuite, self.base, base.lawsuite
                ),
            ));
        }
        if !base.reference.is_empty()
            && !new.reference.is_empty()
            && base.reference != new.reference
        {
            return Err(refuse(
                ResultsErrorKind::Mismatch,
                format!(
                    "its reference is {:?}, but {}'s is {:?}: the seeds' verdicts compare against different oracles",
                    new.reference, self.base, base.reference
                ),
            ));
        }
        Ok(())
    }

    /// Whether the new run has `trial`, one of the base's.
    fn seen_in_new(&self, trial: &Trial) -> bool {
        self.index
            .find(trial.key)
            .is_some_and(|at| self.seen[at / 64] & (1u64 << (at % 64)) != 0)
    }

    /// How many trials are of `change`.
    pub fn count(&self, change: Change) -> usize {
        self.counts.get(&change).copied().unwrap_or(0)
    }

    /// Whether anything fails now that did not before: `diff` exits 1,
    /// and `run --baseline` fails.
    pub fn regressed(&self) -> bool {
        self.count(Change::NewlyFailing) > 0
    }

    /// Every trial that changed class or verdict (of class `only`, when
    /// given), in the new run's order, then those only the base has in
    /// its order, until `each` breaks: the runs are read again.
    pub fn flips(
        &self,
        only: Option<Change>,
        mut each: impl FnMut(Flip) -> ControlFlow<()>,
    ) -> Result<(), ResultsError> {
        let wanted = |c: Change| only.is_none_or(|o| o == c);
        let mut stopped = false;
        if only != Some(Change::Removed) {
            self.sides[1].walk(1, |_, trial| {
                let was = self
                    .index
                    .find(trial.key)
                    .map(|at| self.index.get(at).loc.tag());
                let change = Change::of(was.map(Tag::is_failure), trial.tag.is_failure());
                let retagged = was.is_some_and(|w| w != trial.tag);
                if !wanted(change) || (change == Change::Same && !retagged) {
                    return Ok(ControlFlow::Continue(()));
                }
                let flow = each(Flip {
                    id: trial.id,
                    change,
                    peer: trial.peer,
                    spec: trial.spec,
                    before: was.map(Tag::name),
                    after: Some(trial.tag.name()),
                    reason: trial.reason,
                });
                stopped = flow.is_break();
                Ok(flow)
            })?;
        }
        if stopped || !wanted(Change::Removed) || self.count(Change::Removed) == 0 {
            return Ok(());
        }
        self.sides[0].walk(0, |_, trial| {
            if self.seen_in_new(&trial) {
                return Ok(ControlFlow::Continue(()));
            }
            Ok(each(Flip {
                id: trial.id,
                change: Change::Removed,
                peer: trial.peer,
                spec: trial.spec,
                before: Some(trial.tag.name()),
                after: None,
                reason: None,
            }))
        })
    }

    /// The first `max` trials of `change` (0: all).
    pub fn of_change(&self, change: Change, max: usize) -> Result<Vec<Flip>, ResultsError> {
        let mut out = Vec::new();
        self.flips(Some(change), |flip| {
            out.push(flip);
            if max > 0 && out.len() >= max {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })?;
        Ok(out)
    }

    /// The counts in one line: `1 newly failing, 2 newly passing, …`.
    pub fn headline(&self) -> String {
        Change::ALL
            .iter()
            .map(|c| format!("{} {}", self.count(*c), c.title()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// For people: the counts, each newly failing trial with its reason,
    /// then the other flips by spec section and peer. At most `max` trials
    /// are listed per class (0: all); the rest are counted. Ids, reasons
    /// and names are escaped as `run` escapes them ([`escaped`]).
    pub fn human(&self, max: usize) -> Result<String, ResultsError> {
        let mut out = Vec::new();
        self.human_to(&mut out, max).map_err(results_error)?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// [`RunDiff::human`] written to `out` as the runs are walked.
    pub fn human_to(&self, out: &mut dyn Write, max: usize) -> io::Result<()> {
        writeln!(
            out,
            "{} → {}",
            escaped(&self.base, "  "),
            escaped(&self.new, "  ")
        )?;
        writeln!(out, "{}", self.headline())?;
        for change in [
            Change::NewlyFailing,
            Change::NewlyPassing,
            Change::StillFailing,
            Change::Added,
            Change::Removed,
        ] {
            let count = self.count(change);
            if count == 0 {
                continue;
            }
            writeln!(out, "\n{} ({count}):", change.title().to_uppercase())?;
            let mut shown = 0;
            let mut failed = Ok(());
            self.flips(Some(change), |flip| {
                let verdicts = match (flip.before, flip.after) {
                    (Some(b), Some(a)) => format!("{b} → {a}"),
                    (None, Some(a)) => format!("new, {a}"),
                    (Some(b), None) => format!("{b}, gone"),
                    (None, None) => String::new(),
                };
                let spec = flip
                    .spec
                    .as_deref()
                    .map(|s| format!(" [{}]", escaped(s, "    ")))
                    .unwrap_or_default();
                let mut text = format!("  {}{spec}  ({verdicts})\n", escaped(&flip.id, "    "));
                if change == Change::NewlyFailing
                    && let Some(reason) = &flip.reason
                {
                    let _ = writeln!(text, "      {}", escaped(reason, "      "));
                }
                failed = out.write_all(text.as_bytes());
                shown += 1;
                if failed.is_err() || (max > 0 && shown >= max) {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
            .map_err(io::Error::other)?;
            failed?;
            if shown < count {
                writeln!(
                    out,
                    "  … and {} more (--max-reports 0 lists all)",
                    count - shown
                )?;
            }
        }
        if !self.sections.is_empty() {
            writeln!(out, "\nBY SPEC SECTION AND PEER:")?;
            for ((spec, peer), counts) in &self.sections {
                let counts = Change::ALL
                    .iter()
                    .filter_map(|c| {
                        let n = counts.get(c).copied().unwrap_or(0);
                        (n > 0).then(|| format!("{n} {}", c.title()))
                    })
                    .collect::<Vec<_>>()
                    .join(", ");
                writeln!(
                    out,
                    "  {} · {}: {counts}",
                    escaped(spec, "    "),
                    escaped(peer, "    ")
                )?;
            }
        }
        Ok(())
    }

    /// As a Markdown table, for a CI job summary.
    pub fn markdown(&self, max: usize) -> Result<String, ResultsError> {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "### lawsuite diff: `{}` → `{}`\n",
            cell(&self.base),
            cell(&self.new)
        );
        let _ = writeln!(out, "| change | trials |\n| --- | ---: |");
        for change in Change::ALL {
            let _ = writeln!(out, "| {} | {} |", change.title(), self.count(change));
        }
        let failing = self.count(Change::NewlyFailing);
        if failing > 0 {
            let _ = writeln!(
                out,
                "\n#### Newly failing\n\n| trial | spec | was | reason |\n| --- | --- | --- | --- |"
            );
            let listed = self.of_change(Change::NewlyFailing, max)?;
            for flip in &listed {
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} | {} |",
                    cell(&flip.id),
                    cell(flip.spec.as_deref().unwrap_or("")),
                    flip.before.unwrap_or("new"),
                    cell(flip.reason.as_deref().unwrap_or(""))
                );
            }
            if listed.len() < failing {
                let _ = writeln!(out, "\n… and {} more.", failing - listed.len());
            }
        }
        if !self.sections.is_empty() {
            let _ = writeln!(
                out,
                "\n#### By spec section and peer\n\n| section | peer | newly failing | newly passing | still failing | added | removed |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |"
            );
            for ((spec, peer), counts) in &self.sections {
                let n = |c: Change| counts.get(&c).copied().unwrap_or(0);
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} | {} |",
                    cell(spec),
                    cell(peer),
                    n(Change::NewlyFailing),
                    n(Change::NewlyPassing),
                    n(Change::StillFailing),
                    n(Change::Added),
                    n(Change::Removed)
                );
            }
        }
        Ok(out)
    }

    /// Every changed trial as one JSON document, for tools: `base`, `new`,
    /// `counts` and `flips` (in the new run's order, then the removed
    /// ones in the base's), written as the runs are walked.
    pub fn json_to(&self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(b"{\n  \"base\": ")?;
        super::json::pretty(out, &self.base, b"\n  ")?;
        out.write_all(b",\n  \"new\": ")?;
        super::json::pretty(out, &self.new, b"\n  ")?;
        out.write_all(b",\n  \"counts\": ")?;
        super::json::pretty(out, &self.counts, b"\n  ")?;
        out.write_all(b",\n  \"flips\": [")?;
        let mut any = false;
        let mut failed = Ok(());
        self.flips(None, |flip| {
            failed = out
                .write_all(if any { b",\n    " } else { b"\n    " })
                .and_then(|()| super::json::pretty(out, &flip, b"\n    "));
            any = true;
            if failed.is_err() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .map_err(io::Error::other)?;
        failed?;
        out.write_all(if any { b"\n  ]\n}\n" } else { b"]\n}\n" })
    }
}

/// A results error as the I/O error a writer passes on.
fn results_error(e: io::Error) -> ResultsError {
    match e.downcast::<ResultsError>() {
        Ok(e) => e,
        Err(e) => ResultsError {
            kind: ResultsErrorKind::Unreadable,
            source: "the output".into(),
            line: None,
            message: format!("cannot be written: {e}"),
        },
    }
}

/// Text from a results file as one Markdown table cell: escaped as every
/// report escapes a peer's text, on one line, `|` and backquotes quoted.
fn cell(text: &str) -> String {
    super::escaped(text, " ")
        .replace('\n', " ")
        .replace('|', "\\|")
        .replace('`', "\\`")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{Kind, Outcome, Report, TrialId, Verdict};
    use crate::report::RunInfo;

    fn outcome(id: &str, verdict: Verdict) -> Outcome {
        let trial: TrialId = id.parse().expect("a law's trial id");
        Outcome {
            id: id.parse().expect("a trial id"),
            item: trial.item().to_string(),
            kind: Kind::Law,
            peer: trial.peer().map(str::to_string),
            spec: Some("search-contract §8".into()),
            verdict,
            documented: BTreeMap::new(),
            compared: 0,
            seconds: 0.0,
        }
    }

    fn fail(why: &str) -> Verdict {
        Verdict::Fail {
            report: Report {
                summary: why.into(),
                ..Report::default()
            },
        }
    }

    fn results(version: &str, outcomes: Vec<Outcome>) -> Results {
        let info = RunInfo {
            lawsuite: version.into(),
            reference: "portable".into(),
            ..RunInfo::default()
        };
        Results::new(info, outcomes, &format!("{version}.jsonl"))
    }

    #[test]
    fn every_class_is_counted_and_an_added_failure_is_newly_failing() {
        let base = results(
            "0.1.0",
            vec![
                outcome("law::a::p", Verdict::Pass),
                outcome("law::b::p", fail("b")),
                outcome("law::c::p", fail("c")),
                outcome("law::d::p", Verdict::Pass),
                outcome("law::gone::p", Verdict::Pass),
                outcome("law::skip::p", Verdict::Pass),
            ],
        );
        let new = results(
            "0.1.0",
            vec![
                outcome("law::a::p", fail("now a")),
                outcome("law::b::p", Verdict::Pass),
                outcome("law::c::p", fail("c")),
                outcome("law::d::p", Verdict::Pass),
                outcome("law::fresh::p", fail("fresh")),
                outcome("law::fine::p", Verdict::Pass),
                outcome("law::skip::p", Verdict::Skipped { why: "x".into() }),
            ],
        );
        let diff = RunDiff::between(&base, &new).unwrap();
        assert_eq!(diff.count(Change::NewlyFailing), 2);
        assert_eq!(diff.count(Change::NewlyPassing), 1);
        assert_eq!(diff.count(Change::StillFailing), 1);
        assert_eq!(diff.count(Change::Added), 1);
        assert_eq!(diff.count(Change::Removed), 1);
        assert_eq!(diff.count(Change::Same), 2);
        assert!(diff.regressed());
        let reasons: Vec<_> = diff
            .of_change(Change::NewlyFailing, 0)
            .unwrap()
            .into_iter()
            .map(|f| f.reason.unwrap_or_default())
            .collect();
        assert_eq!(reasons, ["now a", "fresh"]);
        // A pass that became skipped is not a failure, but it is listed.
        let same = diff.of_change(Change::Same, 0).unwrap();
        let skip = same.iter().find(|f| f.id == "law::skip::p").unwrap();
        assert_eq!((skip.before, skip.after), (Some("pass"), Some("skipped")));
        let removed = diff.of_change(Change::Removed, 0).unwrap();
        assert_eq!(removed[0].id, "law::gone::p");
        let human = diff.human(0).unwrap();
        assert!(
            human.contains("NEWLY FAILING (2)") && human.contains("now a"),
            "{human}"
        );
        assert!(human.contains("search-contract §8 · p: 2 newly failing, 1 newly passing, 1 still failing, 1 added, 1 removed"), "{human}");
        let markdown = diff.markdown(0).unwrap();
        assert!(markdown.contains("| newly failing | 2 |"), "{markdown}");
    }

    #[test]
    fn nothing_new_failing_is_no_regression() {
        let base = results("0.1.0", vec![outcome("law::a::p", fail("a"))]);
        let new = results("0.1.0", vec![outcome("law::a::p", fail("a again"))]);
        let diff = RunDiff::between(&base, &new).unwrap();
        assert!(!diff.regressed());
        assert_eq!(diff.count(Change::StillFailing), 1);
    }

    #[test]
    fn runs_of_two_versions_or_references_are_refused() {
        let base = results("0.0.9", vec![]);
        let new = results("0.1.0", vec![]);
        let err = RunDiff::between(&base, &new).unwrap_err();
        assert_eq!(err.kind, ResultsErrorKind::Version);
        assert!(err.to_string().contains("0.0.9"), "{err}");
        let mut other = results("0.0.9", vec![]);
        other.info.reference = "model".into();
        let err = RunDiff::between(&base, &other).unwrap_err();
        assert_eq!(err.kind, ResultsErrorKind::Mismatch);
    }

    /// Ids, reasons and names from a results file are escaped as `run`
    /// escapes a peer's text: an ESC in a trial id used to reach the
    /// terminal.
    #[test]
    fn control_characters_are_escaped() {
        let base = results("0.1.0", vec![outcome("law::a::p", Verdict::Pass)]);
        let new = results(
            "0.1.0",
            vec![outcome(
                "law::a::p",
                Verdict::Broken {
                    why: "\u{1b}[2Jgone".into(),
                },
            )],
        );
        let mut base = base;
        base.outcomes[0].id = "law::a\u{1b}[31m::p".parse().expect("a trial id");
        let mut new = new;
        new.outcomes[0].id = "law::a\u{1b}[31m::p".parse().expect("a trial id");
        let diff = RunDiff::between(&base, &new).unwrap();
        let human = diff.human(0).unwrap();
        assert!(!human.contains('\u{1b}'), "{human:?}");
        assert!(
            human.contains(r"law::a\u{001B}[31m::p") && human.contains(r"\u{001B}[2Jgone"),
            "{human}"
        );
    }

    /// Flips stream in the new run's order, then the removed ones, and a
    /// listing stops where it is told to.
    #[test]
    fn a_listing_stops_at_its_bound() {
        let many: Vec<Outcome> = (0..10)
            .map(|i| outcome(&format!("law::t{i}::p"), fail("x")))
            .collect();
        let base = results("0.1.0", vec![]);
        let new = results("0.1.0", many);
        let diff = RunDiff::between(&base, &new).unwrap();
        assert_eq!(diff.count(Change::NewlyFailing), 10);
        let first = diff.of_change(Change::NewlyFailing, 3).unwrap();
        assert_eq!(
            first.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(),
            ["law::t0::p", "law::t1::p", "law::t2::p"]
        );
        let human = diff.human(3).unwrap();
        assert!(human.contains("… and 7 more"), "{human}");
    }

    /// A trial twice in either run is refused, naming its lines.
    #[test]
    fn a_trial_twice_in_a_run_is_refused() {
        let twice = results(
            "0.1.0",
            vec![
                outcome("law::a::p", Verdict::Pass),
                outcome("law::a::p", fail("x")),
            ],
        );
        let once = results("0.1.0", vec![outcome("law::a::p", Verdict::Pass)]);
        for (base, new) in [(&twice, &once), (&once, &twice)] {
            let err = RunDiff::between(base, new).unwrap_err();
            assert_eq!(err.kind, ResultsErrorKind::Conflict, "{err}");
            assert!(
                err.to_string()
                    .contains("line 2: trial law::a::p is fail here but pass at line 1"),
                "{err}"
            );
        }
    }
}
