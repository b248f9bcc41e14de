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

use std::collections::BTreeMap;
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
    /// The trials the run selected, so a reader can tell how many are
    /// missing from a run that did not finish.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trials: Option<usize>,
    /// `K/N` for `run --shard K/N`: `lawsuite merge` checks that every
    /// shard of the sweep is there, once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
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
    /// The language it is written in, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
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
    let failing = summary.failing_sections();
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
    let failing = summary.failing_sections();
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

/// Seconds since the Unix epoch as `YYYY-MM-DD HH:MM UTC` (the civil
/// calendar from a day count, as in Howard Hinnant's `civil_from_days`).
///
/// ```
/// assert_eq!(lawsuite::conformance::format::utc(1796161431), "2026-12-01 21:43 UTC");
/// ```
pub fn utc(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    let time = seconds % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        time / 3600,
        time % 3600 / 60
    )
}

/// Escape for HTML text and attribute values.
fn html_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An id for an HTML anchor: letters and digits, the rest `-`.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// The row of the matrix an outcome counts in: a law's spec section as
/// written (`search-contract §13.1`), else its kind.
fn matrix_row(o: &Outcome) -> String {
    match (&o.spec, o.kind) {
        (Some(spec), _) => spec.clone(),
        (None, Kind::Regression) => "regressions".into(),
        (None, Kind::Seed) => "seeds".into(),
        _ => "checks".into(),
    }
}

/// How many failures of one (row, peer) cell are shown in full; the rest
/// are listed by id (up to [`HTML_LISTED`]) and counted, so a run with
/// 10,000 divergences stays a page a browser opens.
pub const HTML_IN_FULL: usize = 20;

/// How many more failures of a cell are listed by id.
pub const HTML_LISTED: usize = 200;

const HTML_STYLE: &str = r#"
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1b1f24;background:#fff}
header{background:#24292f;color:#fff;padding:16px 24px}header h1{margin:0 0 4px;font-size:20px}
header .meta{opacity:.85;font-size:13px}main{padding:16px 24px;max-width:1600px}
h2{font-size:17px;border-bottom:1px solid #d0d7de;padding-bottom:4px;margin-top:28px}
table{border-collapse:collapse}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa;position:sticky;top:0}
table.matrix td.cell{text-align:center;white-space:nowrap;font-variant-numeric:tabular-nums}
table.matrix th[scope=row]{white-space:nowrap}
td.cell a{color:inherit;text-decoration:none;display:block}
.ok{background:#dafbe1}.bad{background:#ffd8d3;font-weight:600}.xf{background:#fff1c2}.skip{background:#eaeef2;color:#57606a}.none{color:#8c959f}
.counts span{display:inline-block;margin-right:12px}
details{border:1px solid #d0d7de;border-radius:6px;margin:6px 0;padding:4px 10px;background:#fff}
details>summary{cursor:pointer;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:13px}
pre{background:#f6f8fa;padding:8px;overflow:auto;font-size:12.5px;margin:6px 0}
pre .del{color:#a40e26;background:#ffebe9}pre .ins{color:#116329;background:#dafbe1}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12.5px}
.why{color:#57606a}.listed{columns:2;font-size:12.5px}.warn{background:#fff1c2;padding:8px;border-radius:6px}
"#;

/// The whole run as one self-contained HTML page (inline CSS, no script,
/// no network fetches): the run and its peers, a matrix of peers by spec
/// section (every section the laws cite, then regressions, seeds and
/// checks) whose cells count pass / fail / expected failure / skipped and
/// link to their failures, then each failure with its section, tree, call,
/// diff and replay command (the first [`HTML_IN_FULL`] of a cell in full).
pub fn html(info: &RunInfo, outcomes: &[Outcome], summary: &Summary) -> String {
    let e = html_escape;
    let mut peers: Vec<String> = info.peers.iter().map(|p| p.name.clone()).collect();
    for o in outcomes {
        if let Some(p) = &o.peer {
            if !peers.contains(p) {
                peers.push(p.clone());
            }
        }
    }
    // (row, peer) → counts and the failing outcomes.
    let mut cells: BTreeMap<(String, String), (super::Counts, Vec<&Outcome>)> = BTreeMap::new();
    let mut rows: Vec<String> = Vec::new();
    for o in outcomes {
        let row = matrix_row(o);
        if !rows.contains(&row) {
            rows.push(row.clone());
        }
        let peer = o.peer.clone().unwrap_or_else(|| "—".into());
        let cell = cells.entry((row, peer)).or_default();
        cell.0.add(&o.verdict);
        if o.verdict.is_failure() || matches!(o.verdict, Verdict::ExpectedFailure { .. }) {
            cell.1.push(o);
        }
    }
    // Spec sections in document order (by their numbers), then the rest.
    let key = |row: &String| -> (u8, String, Vec<u32>) {
        match row.split_once('§') {
            Some((doc, n)) => (
                0,
                doc.trim().to_string(),
                n.split('.')
                    .map(|p| p.trim().parse().unwrap_or(u32::MAX))
                    .collect(),
            ),
            None => (1, row.clone(), Vec::new()),
        }
    };
    rows.sort_by_key(key);
    // Checks of the run itself (coverage, broken files) belong to no peer.
    if cells.keys().any(|(_, p)| p == "—") {
        peers.push("—".into());
    }
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>lawsuite report</title><style>{HTML_STYLE}</style></head><body>\n"
    );
    let total = summary.total();
    let started = if info.started > 0 {
        format!("started {}", utc(info.started))
    } else {
        String::new()
    };
    let _ = write!(
        out,
        "<header><h1>lawsuite conformance report</h1><div class=\"meta\">lawsuite {} · reference <b>{}</b> · {} · {} · {}{}</div></header>\n<main>\n",
        e(&info.lawsuite),
        e(&info.reference),
        e(&info.project),
        e(&info.machine),
        e(&started),
        info.generator
            .as_ref()
            .map(|g| format!(
                " · seeds {} of {g}{}",
                e(info.seeds.as_deref().unwrap_or("")),
                info.ground
                    .as_ref()
                    .map(|x| format!(", {x} ground"))
                    .unwrap_or_default()
            ))
            .unwrap_or_default()
    );
    let _ = write!(
        out,
        "<section id=\"summary\"><div class=\"counts\"><span><b>{}</b> trials</span><span class=\"ok\">{} pass</span><span class=\"bad\">{} fail the run</span><span class=\"xf\">{} expected failures</span><span class=\"skip\">{} skipped</span><span>{:.1} s</span></div>",
        total.total(),
        total.pass,
        total.failures(),
        total.expected_failure,
        total.skipped,
        summary.seconds
    );
    for (peer, at, why) in &summary.stopped {
        let _ = write!(
            out,
            "<p class=\"warn\"><b>{}</b> was stopped during <code>{}</code>: {}. Its later trials count as broken.</p>",
            e(peer),
            e(at),
            e(why.lines().next().unwrap_or(why))
        );
    }
    out.push_str("</section>\n<h2>Peers</h2>\n<table id=\"peers\"><tr><th>name</th><th>version</th><th>built-in</th><th>language</th><th>ground</th><th>pass</th><th>fail the run</th><th>expected failures</th><th>skipped</th></tr>\n");
    for p in &info.peers {
        let c = summary.by_peer.get(&p.name).copied().unwrap_or_default();
        let _ = writeln!(
            out,
            "<tr><td><b>{}</b>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            e(&p.name),
            if p.name == info.reference {
                " (reference)"
            } else {
                ""
            },
            e(&p.version),
            e(p.builtin.as_deref().unwrap_or("")),
            e(p.language.as_deref().unwrap_or("")),
            e(&p.ground),
            c.pass,
            c.failures(),
            c.expected_failure,
            c.skipped
        );
    }
    out.push_str("</table>\n<h2>Matrix</h2>\n<p class=\"why\">Each cell: pass / fail (failures, unexpected passes and broken trials) / expected failures / skipped. A red cell links to its failures.</p>\n<table class=\"matrix\" id=\"matrix\"><tr><th>section</th>");
    for p in &peers {
        let _ = write!(out, "<th>{}</th>", e(p));
    }
    out.push_str("</tr>\n");
    for row in &rows {
        let _ = write!(out, "<tr><th scope=\"row\">{}</th>", e(row));
        for p in &peers {
            match cells.get(&(row.clone(), p.clone())) {
                None => out.push_str("<td class=\"cell none\">·</td>"),
                Some((c, failing)) => {
                    let class = if c.failures() > 0 {
                        "bad"
                    } else if c.expected_failure > 0 {
                        "xf"
                    } else if c.pass > 0 {
                        "ok"
                    } else {
                        "skip"
                    };
                    let text = format!(
                        "{} / {} / {} / {}",
                        c.pass,
                        c.failures(),
                        c.expected_failure,
                        c.skipped
                    );
                    if failing.is_empty() {
                        let _ = write!(
                            out,
                            "<td class=\"cell {class}\" data-row=\"{}\" data-peer=\"{}\" data-pass=\"{}\" data-fail=\"{}\" data-xfail=\"{}\" data-skipped=\"{}\">{text}</td>",
                            e(row),
                            e(p),
                            c.pass,
                            c.failures(),
                            c.expected_failure,
                            c.skipped
                        );
                    } else {
                        let _ = write!(
                            out,
                            "<td class=\"cell {class}\" data-row=\"{}\" data-peer=\"{}\" data-pass=\"{}\" data-fail=\"{}\" data-xfail=\"{}\" data-skipped=\"{}\"><a href=\"#{}\">{text}</a></td>",
                            e(row),
                            e(p),
                            c.pass,
                            c.failures(),
                            c.expected_failure,
                            c.skipped,
                            slug(&format!("cell {row} {p}"))
                        );
                    }
                }
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n<h2>Failures</h2>\n");
    let mut any = false;
    for row in &rows {
        for p in &peers {
            let Some((_, failing)) = cells.get(&(row.clone(), p.clone())) else {
                continue;
            };
            if failing.is_empty() {
                continue;
            }
            any = true;
            let _ = writeln!(
                out,
                "<section class=\"cell-detail\" id=\"{}\"><h3>{} · {} <span class=\"why\">({} listed)</span></h3>",
                slug(&format!("cell {row} {p}")),
                e(row),
                e(p),
                failing.len()
            );
            for o in failing.iter().take(HTML_IN_FULL) {
                html_failure(&mut out, o);
            }
            if failing.len() > HTML_IN_FULL {
                let _ = write!(
                    out,
                    "<p>{} more, by id:</p><ul class=\"listed\">",
                    failing.len() - HTML_IN_FULL
                );
                for o in failing.iter().skip(HTML_IN_FULL).take(HTML_LISTED) {
                    let _ = write!(
                        out,
                        "<li><code>{}</code> {}</li>",
                        e(&o.id),
                        o.verdict.tag()
                    );
                }
                out.push_str("</ul>");
                let rest = failing.len().saturating_sub(HTML_IN_FULL + HTML_LISTED);
                if rest > 0 {
                    let _ = write!(
                        out,
                        "<p>… and {rest} more (every one is in the JSON lines results).</p>"
                    );
                }
            }
            out.push_str("</section>\n");
        }
    }
    if !any {
        out.push_str("<p>None: every trial passed, was an expected failure, or was skipped.</p>\n");
    }
    out.push_str("</main></body></html>\n");
    out
}

/// One failing (or expected-failing) trial as a collapsed block.
fn html_failure(out: &mut String, o: &Outcome) {
    let e = html_escape;
    let what = match &o.verdict {
        // The id names the law; say what is wrong with it.
        Verdict::Fail { report } if o.kind == Kind::Law => e(report
            .cases
            .first()
            .and_then(|c| c.problems.first())
            .unwrap_or(&report.summary)),
        Verdict::Fail { report } => e(&report.summary),
        Verdict::ExpectedFailure { reason, .. } => format!("expected failure: {}", e(reason)),
        Verdict::UnexpectedPass { reason, source } => {
            format!(
                "passes, but {} lists it as an expected failure ({}); remove that entry",
                e(source),
                e(reason)
            )
        }
        Verdict::Broken { why } => format!("broken: {}", e(why.lines().next().unwrap_or(why))),
        _ => String::new(),
    };
    let _ = write!(
        out,
        "<details class=\"failure\" data-trial=\"{}\" data-verdict=\"{}\"><summary>{} <span class=\"why\">{}</span></summary>",
        e(&o.id),
        o.verdict.tag(),
        e(&o.id),
        what
    );
    match &o.verdict {
        Verdict::Broken { why } => {
            let _ = write!(out, "<pre>{}</pre>", e(why));
        }
        _ => {
            if let Some(report) = o.verdict.report() {
                for case in &report.cases {
                    let _ = write!(out, "<h4>{}</h4>", e(&case.title));
                    if let Some(spec) = &case.spec {
                        let _ = write!(out, "<p>spec: <b>{}</b></p>", e(spec));
                    }
                    if let Some(d) = &case.decision {
                        let _ = write!(out, "<p class=\"why\">{}</p>", e(d));
                    }
                    if !case.tree.is_empty() {
                        out.push_str(
                            "<table class=\"tree\"><tr><th>path</th><th>content</th></tr>",
                        );
                        for t in &case.tree {
                            let _ = write!(
                                out,
                                "<tr><td><code>{}</code></td><td><code>{}</code></td></tr>",
                                e(&visible(&t.path)),
                                e(&visible(&t.content))
                            );
                        }
                        out.push_str("</table>");
                    }
                    let _ = write!(
                        out,
                        "<p>call:</p><pre>{}</pre>",
                        e(&visible(&compact(&case.call)))
                    );
                    for p in &case.problems {
                        let _ = write!(out, "<p>{}</p>", e(p));
                    }
                    if !case.diff.is_empty() {
                        out.push_str("<pre class=\"diff\">");
                        for line in case.diff.lines() {
                            let class = match line.chars().next() {
                                Some('-') => " class=\"del\"",
                                Some('+') => " class=\"ins\"",
                                _ => "",
                            };
                            let _ = writeln!(out, "<span{class}>{}</span>", e(line));
                        }
                        out.push_str("</pre>");
                    }
                    if let Some(r) = &case.replay {
                        let _ = write!(out, "<p>replay: <code>{}</code></p>", e(r));
                    }
                    if let Some(r) = &case.recorded {
                        let _ = write!(out, "<p>{}</p>", e(r));
                    }
                }
                if let Some(h) = &report.health {
                    let _ = write!(
                        out,
                        "<p>the peer had {} fault(s) during this trial:</p><pre>{}</pre>",
                        h.faults,
                        e(&h.recent.join("\n"))
                    );
                }
            }
        }
    }
    out.push_str("</details>\n");
}
