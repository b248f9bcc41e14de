//! The human format: one failure as text (summary, spec section, tree,
//! call, problems, a diff, the replay command, the peer's faults), one
//! outcome that needs attention, and the run's closing summary. `cargo
//! test` prints [`human_report`] as a trial's failure; `lawsuite run`
//! streams [`human_outcome`] as each trial ends.

use std::fmt::Write as _;

use super::{RunInfo, compact, escaped};
use crate::conformance::sentence::unexpected_pass;
use crate::conformance::{Kind, Outcome, Report, Summary, Verdict};
use crate::kit::report::{bounded, json_diff, visible};

/// One failure (or an expected failure's detail) as text.
pub fn human_report(report: &Report, color: bool) -> String {
    report_with(report, color, usize::MAX, "")
}

/// [`human_report`] with at most `cases` of its cases in full, then how
/// many more there are and `how` to see them (`--max-reports 0 shows
/// all`).
pub fn human_report_within(report: &Report, cases: usize, how: &str) -> String {
    report_with(report, false, cases, how)
}

/// [`human_report`] with at most `cases` of its cases in full, then how
/// many more there are.
fn report_with(report: &Report, color: bool, cases: usize, how: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", escaped(&report.summary, "  "));
    for case in report.cases.iter().take(cases) {
        let _ = writeln!(out, "\n  {}", escaped(&case.title, "    "));
        if let Some(spec) = &case.spec {
            let _ = writeln!(out, "  spec: {}", escaped(spec, "    "));
        }
        if let Some(decision) = &case.decision {
            let _ = writeln!(out, "  why: {}", escaped(decision, "    "));
        }
        if !case.tree.is_empty() {
            let _ = writeln!(out, "  tree:");
            for entry in &case.tree {
                let _ = writeln!(
                    out,
                    "    {}: {}",
                    bounded(&visible(&entry.path)),
                    bounded(&visible(&entry.describe()))
                );
            }
            if let Some(note) = &case.tree_note {
                let _ = writeln!(out, "    … {}", escaped(note, "      "));
            }
        } else if let Some(note) = &case.tree_note {
            let _ = writeln!(out, "  tree: {}", escaped(note, "    "));
        }
        let _ = writeln!(out, "  call: {}", bounded(&visible(&compact(&case.call))));
        for problem in &case.problems {
            let _ = writeln!(out, "  {}", escaped(problem, "    "));
        }
        if case.expected != case.actual {
            let _ = writeln!(out, "  - expected, + actual:");
            let coloured;
            let diff = if color {
                coloured = json_diff(&case.expected, &case.actual, true);
                &coloured
            } else {
                &case.diff
            };
            for line in diff.lines() {
                let _ = writeln!(out, "    {}", bounded(line));
            }
        }
        if let Some(replay) = &case.replay {
            let _ = writeln!(out, "  replay: {}", escaped(replay, "    "));
        }
        if let Some(recorded) = &case.recorded {
            let _ = writeln!(out, "  {}", escaped(recorded, "    "));
        }
    }
    if report.cases.len() > cases {
        let _ = writeln!(
            out,
            "\n  … and {} more divergent calls of this trial not shown in full ({how})",
            report.cases.len() - cases
        );
    }
    if let Some(health) = &report.health {
        let _ = writeln!(
            out,
            "\n  the peer had {} fault(s) during this trial:",
            health.faults
        );
        for fault in &health.recent {
            let _ = writeln!(out, "  - {}", escaped(fault, "    "));
        }
        if let Some(stopped) = &health.stopped {
            let _ = writeln!(
                out,
                "  the harness stopped restarting it: {}",
                escaped(stopped, "    ")
            );
        }
    }
    out
}

/// One outcome that needs attention as text: a failure, an unexpected
/// pass, a broken trial; `None` for the others.
pub fn human_outcome(outcome: &Outcome, color: bool) -> Option<String> {
    let head = |what: &str| format!("{what} {}", outcome.id);
    match &outcome.verdict {
        Verdict::Fail { report } => {
            Some(format!("{}\n{}", head("FAIL"), human_report(report, color)))
        }
        Verdict::UnexpectedPass { reason, source } => Some(format!(
            "{}\n{}\n",
            head("UNEXPECTED PASS"),
            unexpected_pass(
                Some((&outcome.item, outcome.peer.as_deref().unwrap_or("the peer"))),
                &escaped(reason, "  "),
                &escaped(&source.to_string(), "  "),
            ),
        )),
        Verdict::Broken { why } => Some(format!("{}\n  {}\n", head("BROKEN"), escaped(why, "  "))),
        Verdict::Flaky { report, .. } => Some(format!(
            "{}\n{}",
            head("FLAKY"),
            human_report(report, color)
        )),
        _ => None,
    }
}

/// How much of a run's failures is printed in full: `--max-reports` counts
/// cases (a law's failing call, a seed's divergent call), so a seed with 16
/// divergent calls takes 16 of it, not one trial's worth of unbounded text.
///
/// One rule keeps a kind of trial from hiding another: the first failure of
/// each kind (law, regression, seed, check) is shown, with one case, even
/// once the budget is spent. Laws run first, so 20 law failures used to
/// spend the default budget before any seed ended, and a run whose seeds
/// all failed never showed one of them.
///
/// ```
/// use lawsuite::report::Shown;
/// let mut shown = Shown::new(0); // 0: everything
/// assert_eq!(shown.not_shown(), 0);
/// ```
#[derive(Debug)]
pub struct Shown {
    left: usize,
    not_shown: usize,
    /// The kinds of trial of which a failure was shown.
    kinds: Vec<Kind>,
}

impl Shown {
    /// At most `max_reports` cases in full, and the first failure of each
    /// kind of trial; 0 shows all.
    pub fn new(max_reports: usize) -> Shown {
        Shown {
            left: if max_reports == 0 {
                usize::MAX
            } else {
                max_reports
            },
            not_shown: 0,
            kinds: Vec::new(),
        }
    }

    /// [`human_outcome`] within what is left: a failure with more cases
    /// than that shows the first ones and counts the rest; once nothing is
    /// left, the first failure of a kind of trial not shown yet is shown
    /// with one case, and any other is `None`, counted in
    /// [`Shown::not_shown`].
    pub fn outcome(&mut self, outcome: &Outcome, color: bool) -> Option<String> {
        let first_of_its_kind = !self.kinds.contains(&outcome.kind);
        let text = match &outcome.verdict {
            Verdict::Fail { report } => {
                let cases = if self.left > 0 {
                    let cases = report.cases.len().clamp(1, self.left);
                    self.left -= cases;
                    cases
                } else if first_of_its_kind {
                    1
                } else {
                    self.not_shown += 1;
                    return None;
                };
                format!(
                    "FAIL {}\n{}",
                    outcome.id,
                    report_with(report, color, cases, "--max-reports 0 shows all")
                )
            }
            _ => {
                let text = human_outcome(outcome, color)?;
                if self.left > 0 {
                    self.left -= 1;
                } else if !first_of_its_kind {
                    self.not_shown += 1;
                    return None;
                }
                text
            }
        };
        if first_of_its_kind {
            self.kinds.push(outcome.kind);
        }
        Some(text)
    }

    /// Outcomes that needed attention and were not printed at all.
    pub fn not_shown(&self) -> usize {
        self.not_shown
    }
}

/// The end of a human run: counts by kind, by peer, failing spec
/// sections, stopped peers, time.
pub fn human_summary(info: &RunInfo, summary: &Summary) -> String {
    let mut out = String::new();
    let line = |c: &crate::conformance::Counts| {
        let mut parts = vec![format!("{} pass", c.pass)];
        for (n, one, many) in [
            (c.fail, "fail", "fail"),
            (c.expected_failure, "expected failure", "expected failures"),
            (c.unexpected_pass, "unexpected pass", "unexpected passes"),
            (c.broken, "broken", "broken"),
            (c.flaky, "flaky", "flaky"),
            (c.skipped, "skipped", "skipped"),
        ] {
            match n {
                0 => {}
                1 => parts.push(format!("1 {one}")),
                n => parts.push(format!("{n} {many}")),
            }
        }
        parts.join(", ")
    };
    for (kind, label) in [
        ("law", "laws (law × peer)"),
        ("regression", "regressions (file × peer)"),
        ("seed", "seeds (seed × subject)"),
        ("exhaustive", "exhaustive families (family × subject)"),
        ("check", "checks"),
    ] {
        if let Some(c) = summary.by_kind.get(kind) {
            let _ = write!(out, "{label}: {}", line(c));
            if kind == "seed" {
                let _ = write!(
                    out,
                    "; {} seeds of {}{}, {} divergent of {} calls compared",
                    summary.seeds,
                    info.generator.as_deref().unwrap_or("?"),
                    info.seeds
                        .as_ref()
                        .map(|s| format!(" ({s})"))
                        .unwrap_or_default(),
                    summary.divergent_calls,
                    summary.compared_calls
                );
            }
            out.push('\n');
            if kind == "seed" {
                out.push_str(&kinds_lines(summary));
            }
        }
    }
    if summary.by_peer.len() > 1 {
        for (peer, c) in &summary.by_peer {
            let _ = writeln!(out, "  {peer}: {}", line(c));
        }
    }
    let failing = summary.failing_sections();
    if !failing.is_empty() {
        let _ = writeln!(out, "failing laws by section: {}", failing.join(", "));
    }
    for (peer, at, why) in &summary.stopped {
        let _ = writeln!(
            out,
            "PEER STOPPED: the harness gave up restarting {peer} during {at}: {}; its later trials count as broken",
            escaped(why.lines().next().unwrap_or(why), "  ")
        );
    }
    for warning in &info.warnings {
        let _ = writeln!(out, "WARNING: {}", escaped(warning, "  "));
    }
    let total = summary.total();
    let _ = writeln!(
        out,
        "{} trials in {:.1} s: {} fail the run",
        total.total(),
        summary.seconds,
        total.failures()
    );
    out
}

/// How many kinds of difference the summary lists for one subject, the
/// most frequent first; the rest are counted on one line. A kind names the
/// answer's top-level fields that differ, which a wrong peer may invent
/// (one unknown key an answer makes one kind each), and the summary is the
/// last screen of a run: twelve lines keep it on a 24-line terminal with
/// the counts above them.
pub const SUMMARY_KINDS: usize = 12;

/// The seeds' divergences of each subject by kind, as `lawsuite survey`
/// counts them: `  mine diverges by kind: 900 …` then one line a kind.
fn kinds_lines(summary: &Summary) -> String {
    let mut out = String::new();
    for peer in summary.divergent_kinds.keys() {
        let kinds = summary.kinds_of(peer);
        let _ = writeln!(
            out,
            "  {} diverges by kind ({} calls):",
            escaped(peer, "    "),
            kinds.iter().map(|(_, n)| n).sum::<usize>()
        );
        for (kind, n) in kinds.iter().take(SUMMARY_KINDS) {
            let _ = writeln!(out, "    divergent {n}: {}", escaped(kind, "      "));
        }
        if kinds.len() > SUMMARY_KINDS {
            let rest = &kinds[SUMMARY_KINDS..];
            let _ = writeln!(
                out,
                "    … and {} more {}, {} calls (every one is in `--format json`'s summary)",
                rest.len(),
                if rest.len() == 1 { "kind" } else { "kinds" },
                rest.iter().map(|(_, n)| n).sum::<usize>()
            );
        }
    }
    out
}

/// Every line of `text` [`bounded`].
pub(crate) fn bounded_lines(text: &str) -> String {
    text.lines().map(bounded).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::Case;
    use crate::kit::report::LINE_BYTES;

    /// One law failure printed four lines of about 60 KB each (the call,
    /// the peer's message in its problem and in both sides of the diff):
    /// each is now its head and tail around the bytes left out.
    #[test]
    fn every_long_value_is_printed_head_and_tail() {
        let pattern = format!("{}é", "a".repeat(60_000));
        let message = format!("Invalid pattern: {pattern}");
        let expected = serde_json::json!({"failure": "invalid_pattern"});
        let actual = serde_json::json!({"failure": "internal", "message": message});
        let report = Report {
            summary: "law::grep::x fails".into(),
            cases: vec![Case {
                title: "the law".into(),
                call: serde_json::json!({"method": "grep", "input": {"pattern": pattern, "root": "/r"}}),
                diff: crate::kit::report::json_diff(&expected, &actual, false),
                problems: vec![format!("the peer says {message}")],
                expected,
                actual,
                ..Case::default()
            }],
            health: None,
        };
        let text = human_report(&report, false);
        let longest = text.lines().map(str::len).max().unwrap_or(0);
        assert!(longest < LINE_BYTES + 64, "{longest}");
        assert!(text.contains(" bytes left out] … "), "{text}");
        assert!(text.lines().any(|l| l.starts_with("  call: ")), "{text}");
        // The tail is kept: the value's last character is there.
        assert!(text.lines().any(|l| l.contains("aé")), "{text}");
        // A value that fits is printed whole.
        let short = Report {
            summary: "s".repeat(LINE_BYTES),
            cases: vec![],
            health: None,
        };
        assert!(human_report(&short, false).contains(&"s".repeat(LINE_BYTES)));
    }

    fn failing(id: &str, kind: Kind, cases: usize) -> Outcome {
        Outcome {
            id: id.parse().expect("a trial id"),
            item: id.rsplit_once("::").map_or(id, |p| p.0).into(),
            kind,
            peer: Some("p".into()),
            spec: None,
            verdict: Verdict::Fail {
                report: Report {
                    summary: format!("{id} fails"),
                    cases: (0..cases)
                        .map(|n| Case {
                            title: format!("{id} case {n}"),
                            kind: Some("/paths: items lost".into()),
                            ..Case::default()
                        })
                        .collect(),
                    health: None,
                },
            },
            documented: Default::default(),
            compared: 0,
            seconds: 0.0,
        }
    }

    /// With the budget spent by 20 law failures, the first failing seed
    /// is still shown, with one of its cases (it was not shown at all: a
    /// peer failing 73 of 76 seeds printed no seed report); the next seed,
    /// and a law past the budget, are counted instead. The first
    /// regression after them is shown too: each kind of trial has its one.
    #[test]
    fn the_first_failure_of_each_kind_is_shown_past_the_budget() {
        let mut shown = Shown::new(20);
        for n in 0..20 {
            let law = failing(&format!("law::grep::x::l{n}::p"), Kind::Law, 1);
            assert!(shown.outcome(&law, false).is_some(), "law {n}");
        }
        let law = failing("law::grep::x::late::p", Kind::Law, 1);
        assert!(shown.outcome(&law, false).is_none());
        let seed = failing("seed::lawsuite::0001::p", Kind::Seed, 5);
        let text = shown
            .outcome(&seed, false)
            .expect("the first seed is shown");
        assert!(text.contains("seed::lawsuite::0001::p case 0"), "{text}");
        assert!(!text.contains("case 1"), "{text}");
        assert!(text.contains("4 more divergent calls"), "{text}");
        let next = failing("seed::lawsuite::0002::p", Kind::Seed, 5);
        assert!(shown.outcome(&next, false).is_none());
        let regression = failing("regression::r1::p", Kind::Regression, 1);
        assert!(shown.outcome(&regression, false).is_some());
        assert_eq!(shown.not_shown(), 2);
        // Within the budget, a seed takes what is left of it as before.
        let mut shown = Shown::new(3);
        let text = shown.outcome(&seed, false).expect("shown");
        assert!(
            text.contains("case 2") && !text.contains("case 3"),
            "{text}"
        );
    }

    /// The summary counts a subject's seed divergences by kind, the most
    /// frequent first, as `lawsuite survey` does; it said only "1610
    /// divergent of 2516 calls".
    #[test]
    fn the_summary_counts_seed_divergences_by_kind() {
        let mut outcomes = vec![failing("seed::lawsuite::0001::p", Kind::Seed, 3)];
        let mut other = failing("seed::lawsuite::0002::p", Kind::Seed, 2);
        if let Verdict::Fail { report } = &mut other.verdict {
            report.cases[0].kind = Some("error code timeout vs answer".into());
            report.cases[1].kind = None;
        }
        outcomes.push(other);
        let summary = Summary::of(&outcomes, std::time::Duration::ZERO, Vec::new());
        let text = human_summary(&RunInfo::default(), &summary);
        let want = format!(
            "  p diverges by kind (5 calls):\n    divergent 3: /paths: items lost\n    divergent 1: error code timeout vs answer\n    divergent 1: {}\n",
            crate::conformance::verdict::UNCLASSIFIED
        );
        assert!(text.contains(&want), "{text}");
    }

    /// The summary lists [`SUMMARY_KINDS`] kinds of a subject whole; one
    /// more, and the last are counted on one line.
    #[test]
    fn the_kinds_listed_are_bounded_on_both_sides() {
        for (kinds, more) in [(SUMMARY_KINDS, false), (SUMMARY_KINDS + 1, true)] {
            let mut summary = Summary::default();
            let by_kind = summary.divergent_kinds.entry("p".into()).or_default();
            for k in 0..kinds {
                by_kind.insert(format!("/k{k:02}: not expected"), 100 - k);
            }
            let text = kinds_lines(&summary);
            let listed = text.matches("    divergent ").count();
            assert_eq!(listed, SUMMARY_KINDS, "{text}");
            assert_eq!(text.contains("… and 1 more kind, 88 calls"), more, "{text}");
        }
    }
}
