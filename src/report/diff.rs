//! What changed between two runs: `lawsuite diff BASE.jsonl NEW.jsonl` and
//! the gate of `lawsuite run --baseline FILE`.
//!
//! A trial is compared by its id (`law::glob::matching::star::mine`). Each
//! falls in one class ([`Change`]): newly failing, newly passing, still
//! failing, added, removed, or the same. *Failing* is what fails a run
//! ([`Verdict::is_failure`]: a failure, an unexpected pass, a trial that
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
//!     id: id.into(),
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

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde::Serialize;

use super::results::{Results, ResultsError, ResultsErrorKind};
use crate::conformance::{Outcome, Verdict};

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

/// The changes between two runs' results.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunDiff {
    /// The base run's source (a file name).
    pub base: String,
    /// The new run's source.
    pub new: String,
    /// How many trials of each class.
    pub counts: BTreeMap<Change, usize>,
    /// Every trial that changed class or verdict, in trial-id order.
    pub flips: Vec<Flip>,
}

/// Why a trial fails, in one line: its report's summary, or what the
/// verdict says.
pub fn reason(verdict: &Verdict) -> Option<String> {
    match verdict {
        // What is wrong, as the report's first problem says it ("/paths:
        // expected 2 entries, got 1"), else its one-line summary.
        Verdict::Fail { report } => Some(
            report
                .cases
                .first()
                .and_then(|c| c.problems.first())
                .map_or_else(
                    || report.summary.clone(),
                    |p| format!("{}: {p}", report.summary),
                ),
        ),
        Verdict::UnexpectedPass { reason, source } => Some(format!(
            "passed, but {source} lists it as failing ({reason}): remove the listing"
        )),
        Verdict::Broken { why } => Some(why.clone()),
        _ => None,
    }
}

impl RunDiff {
    /// Compare `new` with `base`. Both must come from one lawsuite version
    /// and compare against one reference: otherwise their trials do not
    /// mean the same thing ([`ResultsErrorKind::Version`],
    /// [`ResultsErrorKind::Mismatch`], naming the new file).
    pub fn between(base: &Results, new: &Results) -> Result<RunDiff, ResultsError> {
        let name = |r: &Results| r.sources.first().cloned().unwrap_or_default();
        let refuse = |kind, message: String| ResultsError {
            kind,
            source: name(new),
            line: None,
            message,
        };
        if !base.info.lawsuite.is_empty()
            && !new.info.lawsuite.is_empty()
            && base.info.lawsuite != new.info.lawsuite
        {
            return Err(refuse(
                ResultsErrorKind::Version,
                format!(
                    "written by lawsuite {}, but {} by lawsuite {}: trial ids and verdicts may not mean the same; run both with one version",
                    new.info.lawsuite,
                    name(base),
                    base.info.lawsuite
                ),
            ));
        }
        if !base.info.reference.is_empty()
            && !new.info.reference.is_empty()
            && base.info.reference != new.info.reference
        {
            return Err(refuse(
                ResultsErrorKind::Mismatch,
                format!(
                    "its reference is {:?}, but {}'s is {:?}: the seeds' verdicts compare against different oracles",
                    new.info.reference,
                    name(base),
                    base.info.reference
                ),
            ));
        }
        let before: HashMap<&str, &Outcome> =
            base.outcomes.iter().map(|o| (o.id.as_str(), o)).collect();
        let mut diff = RunDiff {
            base: name(base),
            new: name(new),
            ..RunDiff::default()
        };
        let mut flips = Vec::new();
        let mut seen = std::collections::HashSet::with_capacity(new.outcomes.len());
        for now in &new.outcomes {
            seen.insert(now.id.as_str());
            let was = before.get(now.id.as_str()).copied();
            let failing = now.verdict.is_failure();
            let change = match was.map(|w| w.verdict.is_failure()) {
                None if failing => Change::NewlyFailing,
                None => Change::Added,
                Some(false) if failing => Change::NewlyFailing,
                Some(true) if failing => Change::StillFailing,
                Some(true) => Change::NewlyPassing,
                Some(false) => Change::Same,
            };
            *diff.counts.entry(change).or_default() += 1;
            let retagged = was.is_some_and(|w| w.verdict.tag() != now.verdict.tag());
            if change != Change::Same || retagged {
                flips.push(Flip {
                    id: now.id.clone(),
                    change,
                    peer: now.peer.clone(),
                    spec: now.spec.clone(),
                    before: was.map(|w| w.verdict.tag()),
                    after: Some(now.verdict.tag()),
                    reason: reason(&now.verdict),
                });
            }
        }
        for was in base
            .outcomes
            .iter()
            .filter(|o| !seen.contains(o.id.as_str()))
        {
            *diff.counts.entry(Change::Removed).or_default() += 1;
            flips.push(Flip {
                id: was.id.clone(),
                change: Change::Removed,
                peer: was.peer.clone(),
                spec: was.spec.clone(),
                before: Some(was.verdict.tag()),
                after: None,
                reason: None,
            });
        }
        flips.sort_by(|a, b| a.id.cmp(&b.id));
        diff.flips = flips;
        Ok(diff)
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

    /// The flips of `change`.
    pub fn of(&self, change: Change) -> impl Iterator<Item = &Flip> {
        self.flips.iter().filter(move |f| f.change == change)
    }

    /// The flips grouped by spec section and peer (`(spec, peer) → flips`),
    /// a trial without a section under `seeds and regressions`.
    pub fn by_section(&self) -> BTreeMap<(String, String), Vec<&Flip>> {
        let mut out: BTreeMap<(String, String), Vec<&Flip>> = BTreeMap::new();
        for flip in self.flips.iter().filter(|f| f.change != Change::Same) {
            let spec = flip
                .spec
                .clone()
                .unwrap_or_else(|| "seeds and regressions".into());
            let peer = flip.peer.clone().unwrap_or_else(|| "(checks)".into());
            out.entry((spec, peer)).or_default().push(flip);
        }
        out
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
    /// are listed per class (0: all); the rest are counted.
    pub fn human(&self, max: usize) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{} → {}", self.base, self.new);
        let _ = writeln!(out, "{}", self.headline());
        for change in [
            Change::NewlyFailing,
            Change::NewlyPassing,
            Change::StillFailing,
            Change::Added,
            Change::Removed,
        ] {
            let flips: Vec<&Flip> = self.of(change).collect();
            if flips.is_empty() {
                continue;
            }
            let _ = writeln!(
                out,
                "\n{} ({}):",
                change.title().to_uppercase(),
                flips.len()
            );
            let shown = if max == 0 {
                flips.len()
            } else {
                max.min(flips.len())
            };
            for flip in &flips[..shown] {
                let verdicts = match (flip.before, flip.after) {
                    (Some(b), Some(a)) => format!("{b} → {a}"),
                    (None, Some(a)) => format!("new, {a}"),
                    (Some(b), None) => format!("{b}, gone"),
                    (None, None) => String::new(),
                };
                let spec = flip
                    .spec
                    .as_deref()
                    .map(|s| format!(" [{s}]"))
                    .unwrap_or_default();
                let _ = writeln!(out, "  {}{spec}  ({verdicts})", flip.id);
                if change == Change::NewlyFailing
                    && let Some(reason) = &flip.reason
                {
                    let _ = writeln!(out, "      {}", super::escaped(reason, "      "));
                }
            }
            if shown < flips.len() {
                let _ = writeln!(
                    out,
                    "  … and {} more (--max-reports 0 lists all)",
                    flips.len() - shown
                );
            }
        }
        let sections = self.by_section();
        if !sections.is_empty() {
            let _ = writeln!(out, "\nBY SPEC SECTION AND PEER:");
            for ((spec, peer), flips) in &sections {
                let counts = Change::ALL
                    .iter()
                    .filter_map(|c| {
                        let n = flips.iter().filter(|f| f.change == *c).count();
                        (n > 0).then(|| format!("{n} {}", c.title()))
                    })
                    .collect::<Vec<_>>()
                    .join(", ");
                let _ = writeln!(out, "  {spec} · {peer}: {counts}");
            }
        }
        out
    }

    /// As a Markdown table, for a CI job summary.
    pub fn markdown(&self, max: usize) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "### lawsuite diff: `{}` → `{}`\n", self.base, self.new);
        let _ = writeln!(out, "| change | trials |\n| --- | ---: |");
        for change in Change::ALL {
            let _ = writeln!(out, "| {} | {} |", change.title(), self.count(change));
        }
        let failing: Vec<&Flip> = self.of(Change::NewlyFailing).collect();
        if !failing.is_empty() {
            let _ = writeln!(
                out,
                "\n#### Newly failing\n\n| trial | spec | was | reason |\n| --- | --- | --- | --- |"
            );
            let shown = if max == 0 {
                failing.len()
            } else {
                max.min(failing.len())
            };
            for flip in &failing[..shown] {
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} | {} |",
                    cell(&flip.id),
                    cell(flip.spec.as_deref().unwrap_or("")),
                    flip.before.unwrap_or("new"),
                    cell(flip.reason.as_deref().unwrap_or(""))
                );
            }
            if shown < failing.len() {
                let _ = writeln!(out, "\n… and {} more.", failing.len() - shown);
            }
        }
        let sections = self.by_section();
        if !sections.is_empty() {
            let _ = writeln!(
                out,
                "\n#### By spec section and peer\n\n| section | peer | newly failing | newly passing | still failing | added | removed |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |"
            );
            for ((spec, peer), flips) in &sections {
                let n = |c: Change| flips.iter().filter(|f| f.change == c).count();
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
        out
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
    use crate::conformance::{Kind, Report, TrialId};
    use crate::report::RunInfo;

    fn outcome(id: &str, verdict: Verdict) -> Outcome {
        let trial: TrialId = id.parse().expect("a law's trial id");
        Outcome {
            id: id.into(),
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
            .of(Change::NewlyFailing)
            .map(|f| f.reason.clone().unwrap_or_default())
            .collect();
        assert_eq!(reasons, ["now a", "fresh"]);
        // A pass that became skipped is not a failure, but it is listed.
        let skip = diff.flips.iter().find(|f| f.id == "law::skip::p").unwrap();
        assert_eq!((skip.before, skip.after), (Some("pass"), Some("skipped")));
        let human = diff.human(0);
        assert!(
            human.contains("NEWLY FAILING (2)") && human.contains("now a"),
            "{human}"
        );
        let markdown = diff.markdown(0);
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
}
