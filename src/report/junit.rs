//! JUnit XML, for CI test reports: one `<testsuite>` per peer.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::{RunInfo, Walk, case_line, escaped, human_report};
use crate::conformance::{Kind, Outcome, Report, Summary, Verdict};

/// Escape for XML text and attributes, replacing characters XML 1.0 cannot
/// hold (most control characters) with `\u{…}` escapes.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || matches!(c, '\u{FFFE}' | '\u{FFFF}') => {
                let _ = write!(out, "\\u{{{:04X}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// JUnit XML: one `<testsuite>` per peer (and one for the run's checks),
/// one `<testcase>` per trial, so a CI counts the tests the console does.
/// A failure's body is the human report; a failing seed's lists every
/// divergent call one line each (its title and kind of difference), then
/// the first in full, with its diff and replay command. `<testsuites>`
/// holds its suites' counts summed.
pub fn junit(info: &RunInfo, outcomes: &[Outcome], summary: &Summary) -> String {
    let mut out = Vec::new();
    let _ = junit_to(&mut out, info, &outcomes, summary);
    String::from_utf8(out).unwrap_or_default()
}

/// The suite an outcome is in: its peer, or the run's checks.
fn suite_of(o: &Outcome) -> &str {
    o.peer.as_deref().unwrap_or("checks")
}

/// [`junit()`] written to `out`: one walk of `outcomes` for the suites'
/// counts (the header gives them before any case), then one walk per
/// suite for its cases, so no outcome is held.
pub fn junit_to(
    out: &mut dyn Write,
    info: &RunInfo,
    outcomes: &dyn Walk,
    summary: &Summary,
) -> io::Result<()> {
    // The suites are counted first: `<testsuites>` gives their counts
    // summed, as JUnit readers expect (a broken trial is an error, not a
    // failure); their tests are the trials `summary` counts.
    let mut suites: Vec<(String, [usize; 4])> = Vec::new();
    outcomes.walk(&mut |o| {
        let name = suite_of(o);
        let at = match suites.iter().position(|(n, _)| n == name) {
            Some(at) => at,
            None => {
                suites.push((name.to_string(), [0; 4]));
                suites.len() - 1
            }
        };
        for (total, n) in suites[at].1.iter_mut().zip(counts(o)) {
            *total += n;
        }
        Ok(())
    })?;
    let mut totals = [0usize; 4];
    for (_, counts) in &suites {
        for (total, n) in totals.iter_mut().zip(counts) {
            *total += n;
        }
    }
    let [tests, failures, errors, skipped] = totals;
    writeln!(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")?;
    writeln!(
        out,
        "<testsuites name=\"lawsuite\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{:.3}\">",
        summary.seconds
    )?;
    writeln!(
        out,
        "  <!-- lawsuite {} · reference {} · {} -->",
        xml(&info.lawsuite),
        xml(&info.reference),
        xml(&info.machine).replace("--", "- -")
    )?;
    for warning in &info.warnings {
        writeln!(
            out,
            "  <!-- WARNING: {} -->",
            xml(warning).replace("--", "- -")
        )?;
    }
    for (suite, [tests, failures, errors, skipped]) in &suites {
        writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\">",
            xml(suite)
        )?;
        outcomes.walk(&mut |o| {
            if suite_of(o) == suite {
                out.write_all(cases(o, suite).as_bytes())?;
            }
            Ok(())
        })?;
        out.write_all(b"  </testsuite>\n")?;
    }
    out.write_all(b"</testsuites>\n")
}

/// What `o` adds to its suite: tests, failures, errors, skipped.
fn counts(o: &Outcome) -> [usize; 4] {
    match &o.verdict {
        Verdict::Pass => [1, 0, 0, 0],
        Verdict::Fail { .. } | Verdict::Flaky { .. } | Verdict::UnexpectedPass { .. } => {
            [1, 1, 0, 0]
        }
        Verdict::Broken { .. } => [1, 0, 1, 0],
        Verdict::ExpectedFailure { .. } | Verdict::Skipped { .. } => [1, 0, 0, 1],
    }
}

/// The one test case of `o`, in `suite`.
fn cases(o: &Outcome, suite: &str) -> String {
    let classname = xml(&format!("{}.{}", o.kind.name(), suite));
    let time = format!("{:.3}", o.seconds);
    let body = match &o.verdict {
        Verdict::Pass => String::new(),
        Verdict::Fail { report } => format!(
            "<failure message=\"{}\" type=\"{}\">{}</failure>",
            xml(&report.summary),
            if o.kind == Kind::Seed {
                "divergence"
            } else {
                "fail"
            },
            xml(&failure_text(report))
        ),
        Verdict::Flaky { report, .. } => format!(
            "<failure message=\"{}\" type=\"flaky\">{}</failure>",
            xml(&report.summary),
            xml(&failure_text(report))
        ),
        Verdict::UnexpectedPass { reason, source } => {
            let text =
                crate::conformance::sentence::unexpected_pass(None, reason, &source.to_string());
            format!(
                "<failure message=\"{}\" type=\"unexpected_pass\">{}</failure>",
                xml(&text),
                xml(&text)
            )
        }
        Verdict::Broken { why } => format!(
            "<error message=\"{}\" type=\"broken\">{}</error>",
            xml(why.lines().next().unwrap_or(why)),
            xml(why)
        ),
        Verdict::ExpectedFailure { reason, report, .. } => format!(
            "<skipped message=\"expected failure: {}\"/><system-out>{}</system-out>",
            xml(reason),
            xml(&failure_text(report))
        ),
        Verdict::Skipped { why } => format!("<skipped message=\"{}\"/>", xml(why)),
    };
    format!(
        "    <testcase classname=\"{classname}\" name=\"{}\" time=\"{time}\">{body}</testcase>\n",
        xml(o.id.as_str())
    )
}

/// The body of a failure: the human report of a one-case failure; of a
/// failure of several cases (a seed's divergent calls), every case one
/// line ([`case_line`]: its title and kind of difference), then the first
/// in full, with the seed's tree, its diff and replay command. Each line is
/// bounded, each value of a case too
/// ([`CASE_VALUE_BYTES`](crate::conformance::verdict::CASE_VALUE_BYTES)),
/// and a seed has at most its plan's calls.
fn failure_text(report: &Report) -> String {
    if report.cases.len() <= 1 {
        return human_report(report, false);
    }
    let mut out = format!(
        "{}\n  divergent calls ({}; the first in full below):\n",
        escaped(&report.summary, "  "),
        report.cases.len()
    );
    for case in &report.cases {
        let _ = writeln!(out, "  - {}", case_line(case));
    }
    let first = Report {
        summary: "the first divergent call:".into(),
        cases: report.cases.iter().take(1).cloned().collect(),
        health: report.health.clone(),
    };
    out.push('\n');
    out.push_str(&human_report(&first, false));
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::conformance::Case;

    fn outcome(id: &str, kind: Kind, peer: Option<&str>, verdict: Verdict) -> Outcome {
        Outcome {
            id: id.parse().expect("a trial id"),
            item: id.rsplit_once("::").map_or(id, |p| p.0).into(),
            kind,
            peer: peer.map(String::from),
            spec: None,
            verdict,
            documented: BTreeMap::new(),
            compared: 0,
            seconds: 0.1,
        }
    }

    fn report(cases: Vec<Case>) -> Report {
        Report {
            summary: "it differs".into(),
            cases,
            health: None,
        }
    }

    /// A run with every verdict: a seed with divergent calls, a
    /// failing law, an expected failure, an unexpected pass, a broken law,
    /// a skipped one, and a broken check.
    fn outcomes(seed_cases: Vec<Case>) -> Vec<Outcome> {
        let law = |name: &str, verdict| {
            outcome(&format!("law::a::{name}::p"), Kind::Law, Some("p"), verdict)
        };
        vec![
            law("pass", Verdict::Pass),
            law(
                "fail",
                Verdict::Fail {
                    report: report(vec![Case::default()]),
                },
            ),
            law(
                "expected",
                Verdict::ExpectedFailure {
                    reason: "known".into(),
                    source: "x.toml".into(),
                    report: report(vec![Case::default()]),
                },
            ),
            law(
                "stale",
                Verdict::UnexpectedPass {
                    reason: "known".into(),
                    source: "x.toml".into(),
                },
            ),
            law("broken", Verdict::Broken { why: "gone".into() }),
            law(
                "skipped",
                Verdict::Skipped {
                    why: "no grep".into(),
                },
            ),
            outcome(
                "seed::lawsuite::0003::p",
                Kind::Seed,
                Some("p"),
                Verdict::Fail {
                    report: report(seed_cases),
                },
            ),
            outcome(
                "law::coverage",
                Kind::Check,
                None,
                Verdict::Broken {
                    why: "a file".into(),
                },
            ),
        ]
    }

    fn attribute(node: roxmltree::Node, name: &str) -> usize {
        node.attribute(name)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {name} on {node:?}"))
    }

    /// `<testsuites>` counts what its suites count, summed: a failing seed
    /// one failure, broken trials as errors. It used to count trials, the
    /// broken ones among its failures (failures="5" over suites summing to
    /// 6, and no errors).
    #[test]
    fn the_totals_are_the_suites_summed() {
        let outcomes = outcomes(vec![Case::default(); 4]);
        let summary = Summary::of(&outcomes, std::time::Duration::ZERO, Vec::new());
        let xml = junit(&RunInfo::default(), &outcomes, &summary);
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let root = doc.root_element();
        let suites: Vec<_> = root
            .children()
            .filter(|n| n.has_tag_name("testsuite"))
            .collect();
        assert_eq!(suites.len(), 2, "{xml}");
        for name in ["failures", "tests", "errors", "skipped"] {
            let sum: usize = suites.iter().map(|s| attribute(*s, name)).sum();
            assert_eq!(attribute(root, name), sum, "{name}: {xml}");
        }
        // The seed, the failing law and the unexpected pass.
        assert_eq!(attribute(root, "failures"), 3, "{xml}");
        assert_eq!(attribute(root, "errors"), 2, "{xml}");
    }

    /// A seed's divergent call, as the seed's verdict makes it.
    fn divergent(index: usize, kind: &str) -> Case {
        Case {
            title: format!("lawsuite seed 3, call {index} (glob)"),
            call_index: Some(index),
            kind: Some(kind.into()),
            problems: vec![format!(
                "p answers differently from the reference portable: {kind}"
            )],
            replay: Some(format!(
                "lawsuite run seed::lawsuite::0003::p --exact --call {index}"
            )),
            ..Case::default()
        }
    }

    /// JUnit counts what the console counts: one test case per trial. A
    /// failing seed with three divergent calls is one test case (it was
    /// one a call: 3,761 test cases for a run of 2,227 trials), named by
    /// its trial id as the console names it, and the count in
    /// `<testsuites tests>` is the summary's count of trials.
    #[test]
    fn one_test_case_per_trial_as_the_console_counts() {
        let outcomes = outcomes(vec![
            divergent(4, "/paths: items lost"),
            divergent(15, "/paths: items lost"),
            divergent(21, "error code timeout vs answer"),
        ]);
        let summary = Summary::of(&outcomes, std::time::Duration::ZERO, Vec::new());
        let xml = junit(&RunInfo::default(), &outcomes, &summary);
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let cases: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .collect();
        let trials = summary.total().total();
        assert_eq!(trials, outcomes.len());
        assert_eq!(cases.len(), trials, "{xml}");
        assert_eq!(attribute(doc.root_element(), "tests"), trials, "{xml}");
        let names: Vec<&str> = cases.iter().filter_map(|n| n.attribute("name")).collect();
        let ids: Vec<&str> = outcomes.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(names, ids, "{xml}");
    }

    /// The one test case of a failing seed lists every divergent call,
    /// one line each with its kind of difference, and shows the first in
    /// full (its problem and replay command); the others are listed, not
    /// repeated in full.
    #[test]
    fn a_failing_seed_lists_its_divergent_calls_inside_its_one_test_case() {
        let outcomes = outcomes(vec![
            divergent(4, "/paths: items lost"),
            divergent(15, "/paths: items lost"),
            divergent(21, "error code timeout vs answer"),
        ]);
        let summary = Summary::of(&outcomes, std::time::Duration::ZERO, Vec::new());
        let xml = junit(&RunInfo::default(), &outcomes, &summary);
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let seed = doc
            .descendants()
            .find(|n| n.attribute("name") == Some("seed::lawsuite::0003::p"))
            .expect("the seed's test case");
        let failure = seed
            .children()
            .find(|n| n.has_tag_name("failure"))
            .expect("a failure");
        assert_eq!(failure.attribute("type"), Some("divergence"));
        assert_eq!(failure.attribute("message"), Some("it differs"));
        let body = failure.text().unwrap_or_default();
        for line in [
            "  - lawsuite seed 3, call 4 (glob): /paths: items lost\n",
            "  - lawsuite seed 3, call 15 (glob): /paths: items lost\n",
            "  - lawsuite seed 3, call 21 (glob): error code timeout vs answer\n",
        ] {
            assert!(body.contains(line), "{line:?} not in {body}");
        }
        assert!(body.contains("--exact --call 4\n"), "{body}");
        assert!(
            !body.contains("--call 15") && !body.contains("--call 21"),
            "{body}"
        );
    }
}
