//! A peer's history across runs: `lawsuite history A.jsonl B.jsonl …`
//! (the results of its successive versions, oldest first) shows, for each
//! trial whose verdict changed along the way, its verdict in every run, as
//! wpt.fyi shows a test's results across browser releases. Trials that
//! never changed are counted, not listed.
//!
//! ```
//! use lawsuite::conformance::{Kind, Outcome, Verdict};
//! use lawsuite::report::history::History;
//! use lawsuite::report::results::Results;
//!
//! let run = |verdict: Verdict| {
//!     let outcome = Outcome {
//!         id: "law::a::mine".into(),
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
//! let mut history = History::default();
//! history.push(&run(Verdict::Pass));
//! history.push(&run(Verdict::Skipped { why: "not declared".into() }));
//! assert_eq!(history.changed().count(), 1);
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::results::Results;

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
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct History {
    /// The runs, in the order given.
    pub runs: Vec<Run>,
    /// Each trial's verdict tag per run (`None`: not in that run).
    pub trials: BTreeMap<String, Vec<Option<&'static str>>>,
}

impl History {
    /// Add the next run. Only each trial's verdict is kept, not its report,
    /// so a long series costs a map of ids and tags.
    pub fn push(&mut self, results: &Results) {
        let at = self.runs.len();
        self.runs.push(Run {
            source: results.sources.first().cloned().unwrap_or_default(),
            peers: results
                .info
                .peers
                .iter()
                .map(|p| format!("{} {}", p.name, p.version))
                .collect(),
            started: results.info.started,
        });
        for outcome in &results.outcomes {
            let row = self
                .trials
                .entry(outcome.id.clone())
                .or_insert_with(|| vec![None; at]);
            row.resize(at, None);
            row.push(Some(outcome.verdict.tag()));
        }
        for row in self.trials.values_mut() {
            row.resize(at + 1, None);
        }
    }

    /// The trials whose verdict is not the same in every run (a trial
    /// missing from a run counts as a change).
    pub fn changed(&self) -> impl Iterator<Item = (&String, &Vec<Option<&'static str>>)> {
        self.trials
            .iter()
            .filter(|(_, row)| row.windows(2).any(|w| w[0] != w[1]))
    }

    /// For people: the runs, then each changed trial's verdicts
    /// (`pass → fail → pass`), at most `max` of them (0: all).
    pub fn human(&self, max: usize) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "history of {} runs:", self.runs.len());
        for (i, run) in self.runs.iter().enumerate() {
            let _ = writeln!(
                out,
                "  {} {}  ({})",
                i + 1,
                run.source,
                run.peers.join(", ")
            );
        }
        let changed: Vec<_> = self.changed().collect();
        let _ = writeln!(
            out,
            "{} of {} trials changed verdict:",
            changed.len(),
            self.trials.len()
        );
        let shown = if max == 0 {
            changed.len()
        } else {
            max.min(changed.len())
        };
        for (id, row) in &changed[..shown] {
            let path: Vec<&str> = row.iter().map(|v| v.unwrap_or("—")).collect();
            let _ = writeln!(out, "  {id}  {}", path.join(" → "));
        }
        if shown < changed.len() {
            let _ = writeln!(
                out,
                "  … and {} more (--max-reports 0 lists all)",
                changed.len() - shown
            );
        }
        out
    }

    /// A Markdown table: one column per run, one row per changed trial.
    pub fn markdown(&self, max: usize) -> String {
        let mut out = String::from("### lawsuite history\n\n| trial |");
        for i in 1..=self.runs.len() {
            let _ = write!(out, " {i} |");
        }
        out.push_str("\n| --- |");
        out.push_str(&" --- |".repeat(self.runs.len()));
        out.push('\n');
        let changed: Vec<_> = self.changed().collect();
        let shown = if max == 0 {
            changed.len()
        } else {
            max.min(changed.len())
        };
        for (id, row) in &changed[..shown] {
            let _ = write!(out, "| `{}` |", super::escaped(id, " ").replace('|', "\\|"));
            for v in row.iter() {
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
                run.source,
                super::escaped(&run.peers.join(", "), " ")
            );
        }
        if shown < changed.len() {
            let _ = writeln!(
                out,
                "\n… and {} more changed trials.",
                changed.len() - shown
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{Kind, Outcome, Report, Verdict};

    fn run(verdicts: &[(&str, Verdict)]) -> Results {
        let outcomes = verdicts
            .iter()
            .map(|(id, v)| Outcome {
                id: (*id).into(),
                item: (*id).into(),
                kind: Kind::Law,
                peer: Some("mine".into()),
                spec: None,
                verdict: v.clone(),
                documented: BTreeMap::new(),
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
        let mut history = History::default();
        history.push(&run(&[
            ("a", Verdict::Pass),
            ("b", Verdict::Pass),
            ("c", fail.clone()),
        ]));
        history.push(&run(&[("a", fail.clone()), ("b", Verdict::Pass)]));
        history.push(&run(&[
            ("a", Verdict::Pass),
            ("b", Verdict::Pass),
            ("d", Verdict::Pass),
        ]));
        let changed: Vec<_> = history.changed().map(|(id, _)| id.as_str()).collect();
        assert_eq!(changed, ["a", "c", "d"]);
        let text = history.human(0);
        assert!(text.contains("a  pass → fail → pass"), "{text}");
        assert!(text.contains("c  fail → — → —"), "{text}");
        assert!(text.contains("d  — → — → pass"), "{text}");
        assert!(text.contains("3 of 4 trials changed verdict"), "{text}");
        let markdown = history.markdown(0);
        assert!(
            markdown.contains("| `a` | pass | fail | pass |"),
            "{markdown}"
        );
    }
}
