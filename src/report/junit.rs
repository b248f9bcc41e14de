//! JUnit XML, for CI test reports: one `<testsuite>` per peer.

use std::fmt::Write as _;

use super::{RunInfo, human_report};
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
/// are the human report.
pub fn junit(info: &RunInfo, outcomes: &[Outcome], summary: &Summary) -> String {
    let mut suites: Vec<(String, Vec<&Outcome>)> = Vec::new();
    for o in outcomes {
        let name = o.peer.clone().unwrap_or_else(|| "checks".into());
        match suites.iter_mut().find(|(n, _)| *n == name) {
            Some((_, list)) => list.push(o),
            None => suites.push((name, vec![o])),
        }
    }
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let total = summary.total();
    let _ = writeln!(
        out,
        "<testsuites name=\"lawsuite\" tests=\"{}\" failures=\"{}\" time=\"{:.3}\">",
        total.total(),
        total.failures(),
        summary.seconds
    );
    let _ = writeln!(
        out,
        "  <!-- lawsuite {} · reference {} · {} -->",
        xml(&info.lawsuite),
        xml(&info.reference),
        xml(&info.machine).replace("--", "- -")
    );
    for (suite, list) in suites {
        let mut cases = String::new();
        let (mut tests, mut failures, mut errors, mut skipped) = (0, 0, 0, 0);
        for o in list {
            let classname = xml(&format!("{}.{}", o.kind.name(), suite));
            let time = format!("{:.3}", o.seconds);
            match &o.verdict {
                Verdict::Fail { report } if o.kind == Kind::Seed => {
                    for (n, case) in report.cases.iter().enumerate() {
                        tests += 1;
                        failures += 1;
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
                        let _ = writeln!(
                            cases,
                            "    <testcase classname=\"{classname}\" name=\"{}::call-{n}\" time=\"{time}\"><failure message=\"{}\" type=\"divergence\">{}</failure></testcase>",
                            xml(&o.id),
                            xml(&case.title),
                            xml(&human_report(&one, false)),
                        );
                    }
                }
                verdict => {
                    tests += 1;
                    let body = match verdict {
                        Verdict::Pass => String::new(),
                        Verdict::Fail { report } => {
                            failures += 1;
                            format!(
                                "<failure message=\"{}\" type=\"fail\">{}</failure>",
                                xml(&report.summary),
                                xml(&human_report(report, false))
                            )
                        }
                        Verdict::UnexpectedPass { reason, source } => {
                            failures += 1;
                            let text = format!(
                                "passes, but {source} lists it as an expected failure ({reason}); remove that entry"
                            );
                            format!(
                                "<failure message=\"{}\" type=\"unexpected_pass\">{}</failure>",
                                xml(&text),
                                xml(&text)
                            )
                        }
                        Verdict::Broken { why } => {
                            errors += 1;
                            format!(
                                "<error message=\"{}\" type=\"broken\">{}</error>",
                                xml(why.lines().next().unwrap_or(why)),
                                xml(why)
                            )
                        }
                        Verdict::ExpectedFailure { reason, report, .. } => {
                            skipped += 1;
                            format!(
                                "<skipped message=\"expected failure: {}\"/><system-out>{}</system-out>",
                                xml(reason),
                                xml(&human_report(report, false))
                            )
                        }
                        Verdict::Skipped { why } => {
                            skipped += 1;
                            format!("<skipped message=\"{}\"/>", xml(why))
                        }
                    };
                    let _ = writeln!(
                        cases,
                        "    <testcase classname=\"{classname}\" name=\"{}\" time=\"{time}\">{body}</testcase>",
                        xml(&o.id)
                    );
                }
            }
        }
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\">",
            xml(&suite)
        );
        out.push_str(&cases);
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}
