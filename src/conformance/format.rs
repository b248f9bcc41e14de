//! A run's results for people and for machines: the same facts in every
//! format (human text, JSON, JSON lines, JUnit XML, Markdown), so a failure
//! carries its reason wherever it is read.
//!
//! * [`human_report`]: one failure as text (summary, spec section, tree,
//!   call, problems, a diff, replay command, the peer's faults). `cargo
//!   test` prints it as the trial's failure; `lawsuite run` prints it too.
//! * [`jsonl_line`]: one JSON object per line, written as each result
//!   arrives (`--format jsonl`), so a stopped run keeps what it reached.
//! * [`json`], [`junit`], [`markdown`]: whole-run documents.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Kind, Outcome, Report, Summary, Verdict};
use crate::kit::report::{json_diff, visible};

/// Who and what a run was, for the head of every report.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunInfo {
    /// lawsuite's version.
    pub lawsuite: String,
    /// The project file, or the directory taken as the project.
    pub project: String,
    /// The reference's registered name.
    pub reference: String,
    /// Every peer of the run.
    pub peers: Vec<PeerInfo>,
    /// The seeds' generator, when seeds run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<String>,
    /// The seeds, as given (`0..1000`), when seeds run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seeds: Option<String>,
    /// The generator's ground.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ground: Option<String>,
    /// When the run started, seconds since the Unix epoch.
    pub started: u64,
    /// The machine: operating system, architecture, cores.
    pub machine: String,
}

/// One peer of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PeerInfo {
    /// Its registered name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// The built-in it is, if it is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builtin: Option<String>,
    /// The ground it claims.
    pub ground: String,
}

/// The machine, for [`RunInfo::machine`].
pub fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!(
        "{} {}, {cores} cores",
        std::env::consts::OS,
        std::env::consts::ARCH
    )
}

/// One failure (or an expected failure's detail) as text.
pub fn human_report(report: &Report, color: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", report.summary);
    for case in &report.cases {
        let _ = writeln!(out, "\n  {}", case.title);
        if let Some(spec) = &case.spec {
            let _ = writeln!(out, "  spec: {spec}");
        }
        if let Some(decision) = &case.decision {
            let _ = writeln!(out, "  why: {decision}");
        }
        if !case.tree.is_empty() {
            let _ = writeln!(out, "  tree:");
            for entry in &case.tree {
                let _ = writeln!(
                    out,
                    "    {}: {}",
                    visible(&entry.path),
                    visible(&entry.content)
                );
            }
        }
        let _ = writeln!(out, "  call: {}", visible(&compact(&case.call)));
        for problem in &case.problems {
            let _ = writeln!(out, "  {problem}");
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
                let _ = writeln!(out, "    {line}");
            }
        }
        if let Some(replay) = &case.replay {
            let _ = writeln!(out, "  replay: {replay}");
        }
        if let Some(recorded) = &case.recorded {
            let _ = writeln!(out, "  {recorded}");
        }
    }
    if let Some(health) = &report.health {
        let _ = writeln!(
            out,
            "\n  the peer had {} fault(s) during this trial:",
            health.faults
        );
        for fault in &health.recent {
            for (i, line) in fault.lines().enumerate() {
                let _ = writeln!(out, "  {} {line}", if i == 0 { "-" } else { " " });
            }
        }
        if let Some(stopped) = &health.stopped {
            let _ = writeln!(out, "  the harness stopped restarting it: {stopped}");
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
            "{}\n{} passes on {}, but {source} lists it as an expected failure ({reason}); remove that entry\n",
            head("UNEXPECTED PASS"),
            outcome.item,
            outcome.peer.as_deref().unwrap_or("the peer"),
        )),
        Verdict::Broken { why } => Some(format!("{}\n{why}\n", head("BROKEN"))),
        _ => None,
    }
}

/// The end of a human run: counts by kind, by peer, failing spec
/// sections, stopped peers, time.
pub fn human_summary(info: &RunInfo, summary: &Summary) -> String {
    let mut out = String::new();
    let line = |c: &super::Counts| {
        let mut parts = vec![format!("{} pass", c.pass)];
        for (n, what) in [
            (c.fail, "fail"),
            (c.expected_failure, "expected failures"),
            (c.unexpected_pass, "unexpected passes"),
            (c.broken, "broken"),
            (c.skipped, "skipped"),
        ] {
            if n > 0 {
                parts.push(format!("{n} {what}"));
            }
        }
        parts.join(", ")
    };
    for (kind, label) in [
        ("law", "laws (law × peer)"),
        ("regression", "regressions (file × peer)"),
        ("seed", "seeds (seed × subject)"),
        ("check", "checks"),
    ] {
        if let Some(c) = summary.by_kind.get(kind) {
            let _ = write!(out, "{label}: {}", line(c));
            if kind == "seed" {
                let _ = write!(
                    out,
                    "; {} seeds of {}{}, {} divergent calls",
                    summary.seeds,
                    info.generator.as_deref().unwrap_or("?"),
                    info.seeds
                        .as_ref()
                        .map(|s| format!(" ({s})"))
                        .unwrap_or_default(),
                    summary.divergent_calls
                );
            }
            out.push('\n');
        }
    }
    if summary.by_peer.len() > 1 {
        for (peer, c) in &summary.by_peer {
            let _ = writeln!(out, "  {peer}: {}", line(c));
        }
    }
    let failing: Vec<String> = summary
        .by_section
        .iter()
        .filter(|(_, c)| c.failures() > 0)
        .map(|(s, c)| format!("{s} ({})", c.failures()))
        .collect();
    if !failing.is_empty() {
        let _ = writeln!(out, "failing laws by section: {}", failing.join(", "));
    }
    for (peer, at, why) in &summary.stopped {
        let _ = writeln!(
            out,
            "PEER STOPPED: the harness gave up restarting {peer} during {at}: {}; its later trials count as broken",
            why.lines().next().unwrap_or(why)
        );
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

/// One line of `--format jsonl`: `{"type": "run", …}` first, then
/// `{"type": "outcome", …}` per trial, `{"type": "peerStopped", …}` when
/// one stops, and `{"type": "summary", …}` last.
pub fn jsonl_line(kind: &str, value: &impl Serialize) -> String {
    // `type` first, so a reader can dispatch on the line's start.
    let mut line = serde_json::Map::new();
    line.insert("type".into(), Value::String(kind.into()));
    match serde_json::to_value(value).unwrap_or(Value::Null) {
        Value::Object(map) => line.extend(map),
        other => {
            line.insert("value".into(), other);
        }
    }
    serde_json::to_string(&line).unwrap_or_default()
}

/// The whole run as one JSON document.
pub fn json(info: &RunInfo, outcomes: &[Outcome], summary: &Summary) -> String {
    let doc = serde_json::json!({
        "run": info,
        "summary": summary,
        "outcomes": outcomes,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

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

/// A Markdown summary (for a CI job summary): a table per peer, the failing
/// spec sections, and the first `max_reports` failures in full, each in a
/// collapsed block (the rest counted).
pub fn markdown(
    info: &RunInfo,
    outcomes: &[Outcome],
    summary: &Summary,
    max_reports: usize,
) -> String {
    let mut out = format!(
        "## lawsuite: reference {}, {} peers\n\n| peer | pass | fail | expected failures | unexpected passes | broken | skipped |\n| --- | --- | --- | --- | --- | --- | --- |\n",
        info.reference,
        info.peers.len()
    );
    for (peer, c) in &summary.by_peer {
        let _ = writeln!(
            out,
            "| {peer} | {} | {} | {} | {} | {} | {} |",
            c.pass, c.fail, c.expected_failure, c.unexpected_pass, c.broken, c.skipped
        );
    }
    if let Some(c) = summary.by_kind.get("check") {
        let _ = writeln!(
            out,
            "| (checks) | {} | {} | | | {} | {} |",
            c.pass, c.fail, c.broken, c.skipped
        );
    }
    if summary.seeds > 0 {
        let _ = writeln!(
            out,
            "\n{} seeds of {}: {} divergent calls.",
            summary.seeds,
            info.generator.as_deref().unwrap_or("?"),
            summary.divergent_calls
        );
    }
    let failing: Vec<String> = summary
        .by_section
        .iter()
        .filter(|(_, c)| c.failures() > 0)
        .map(|(s, c)| format!("{s} ({})", c.failures()))
        .collect();
    if !failing.is_empty() {
        let _ = writeln!(out, "\nFailing laws by section: {}.", failing.join(", "));
    }
    for (peer, at, why) in &summary.stopped {
        let _ = writeln!(
            out,
            "\n**{peer} stopped** during `{at}`: {}",
            why.lines().next().unwrap_or(why)
        );
    }
    let failures: Vec<&Outcome> = outcomes.iter().filter(|o| o.verdict.is_failure()).collect();
    if !failures.is_empty() {
        out.push_str("\n### Failures\n");
    }
    for o in failures.iter().take(max_reports) {
        let text = human_outcome(o, false).unwrap_or_default();
        let _ = write!(
            out,
            "\n<details><summary><code>{}</code></summary>\n\n```text\n{}```\n\n</details>\n",
            o.id.replace('<', "&lt;"),
            text.replace("```", "` ` `")
        );
    }
    if failures.len() > max_reports {
        let _ = writeln!(
            out,
            "\n… and {} more failures.",
            failures.len() - max_reports
        );
    }
    out
}

fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}
