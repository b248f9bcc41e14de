//! JUnit XML, for CI test reports: one `<testsuite>` per peer.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::{RunInfo, Walk, human_report};
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
/// one `<testcase>` per trial; a failing seed gives one test case per
/// divergent call, each with its diff and replay command. Failure bodies
/// are the human report. `<testsuites>` holds its suites' counts summed.
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
    // summed, as JUnit readers expect, not the trial counts of `summary`
    // (a seed is one trial but one test case per divergent call, and a
    // broken trial is an error, not a failure).
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
        Verdict::Fail { report } if o.kind == Kind::Seed => {
            [report.cases.len(), report.cases.len(), 0, 0]
        }
        Verdict::Pass => [1, 0, 0, 0],
        Verdict::Fail { .. } | Verdict::Flaky { .. } | Verdict::UnexpectedPass { .. } => {
            [1, 1, 0, 0]
        }
        Verdict::Broken { .. } => [1, 0, 1, 0],
        Verdict::ExpectedFailure { .. } | Verdict::Skipped { .. } => [1, 0, 0, 1],
    }
}

/// The test cases of `o`, in `suite`.
fn cases(o: &Outcome, suite: &str) -> String {
    let mut cases = String::new();
    let classname = xml(&format!("{}.{}", o.kind.name(), suite));
    let time = format!("{:.3}", o.seconds);
    match &o.verdict {
        Verdict::Fail { report } if o.kind == Kind::Seed => {
            for (n, case) in report.cases.iter().enumerate() {
                let one = Report {
                    summary: format!(
                        "{} (divergent call {} of {})",
                        report.summary,
                        n + 1,
                        report.cases.len()
                    ),
                    cases: vec![case.clone()],
                    health: report.health.clone(),
                };
                // Named by the plan's call index, as `--call N` replays
                // it; a case without one (results of an older lawsuite)
                // by its position, under another word so it is never
                // taken for a call index.
                let name = match case.call_index {
                    Some(index) => format!("{}::call-{index}", o.id),
                    None => format!("{}::divergent-{}", o.id, n + 1),
                };
                let _ = writeln!(
                    cases,
                    "    <testcase classname=\"{classname}\" name=\"{}\" time=\"{time}\"><failure message=\"{}\" type=\"divergence\">{}</failure></testcase>",
                    xml(&name),
                    xml(&case.title),
                    xml(&human_report(&one, false)),
                );
            }
        }
        verdict => {
            let body = match verdict {
                Verdict::Pass => String::new(),
                Verdict::Fail { report } => format!(
                    "<failure message=\"{}\" type=\"fail\">{}</failure>",
                    xml(&report.summary),
                    xml(&human_report(report, false))
                ),
                Verdict::Flaky { report, .. } => format!(
                    "<failure message=\"{}\" type=\"flaky\">{}</failure>",
                    xml(&report.summary),
                    xml(&human_report(report, false))
                ),
                Verdict::UnexpectedPass { reason, source } => {
                    let text = crate::conformance::sentence::unexpected_pass(
                        None,
                        reason,
                        &source.to_string(),
                    );
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
                    xml(&human_report(report, false))
                ),
                Verdict::Skipped { why } => format!("<skipped message=\"{}\"/>", xml(why)),
            };
            let _ = writeln!(
                cases,
                "    <testcase classname=\"{classname}\" name=\"{}\" time=\"{time}\">{body}</testcase>",
                xml(o.id.as_str())
            );
        }
    }
    cases
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

    /// `<testsuites>` counts what its suites count, summed: a seed's
    /// divergent calls one failure each, broken trials as errors. It used
    /// to count trials, the broken ones among its failures (failures="5"
    /// over suites summing to 6, and no errors).
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
        // The seed's 4 calls, the failing law and the unexpected pass.
        assert_eq!(attribute(root, "failures"), 6, "{xml}");
        assert_eq!(attribute(root, "errors"), 2, "{xml}");
    }

    /// A seed's cases are named by the plan's call index; one without it
    /// (an older results file) by its position, as `divergent-N`.
    #[test]
    fn seed_cases_are_named_by_call_index() {
        let case = |index| Case {
            call_index: index,
            ..Case::default()
        };
        let outcomes = outcomes(vec![case(Some(4)), case(Some(15)), case(None)]);
        let summary = Summary::of(&outcomes, std::time::Duration::ZERO, Vec::new());
        let xml = junit(&RunInfo::default(), &outcomes, &summary);
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let names: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .filter_map(|n| n.attribute("name"))
            .filter_map(|n| n.strip_prefix("seed::lawsuite::0003::p::"))
            .collect();
        assert_eq!(names, ["call-4", "call-15", "divergent-3"], "{xml}");
    }
}
