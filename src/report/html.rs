//! One self-contained HTML page (no network fetches): a matrix of peers
//! by spec section, every failure with its call and diff, and the trees
//! of the failures, each written once and linked from every failure that
//! has it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{RunInfo, Walk, case_line, compact, utc};
use crate::conformance::{Case, Kind, Outcome, Summary, TreeEntry, Verdict};
use crate::kit::report::visible;

/// Escape for element text: `&`, `<` and `>`. Quotes need no escape
/// outside attributes, and a failure's diff is mostly JSON: `&quot;` for
/// each of its quotes was a tenth of the page of a skeleton's first run.
fn text_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// Escape for HTML text and attribute values: element text's escapes,
/// and the quotes that would end an attribute.
fn html_escape(text: &str) -> String {
    text_escape(text)
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
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
        (None, Kind::Exhaustive) => "exhaustive families".into(),
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

/// The matrix column of the trials that belong to no peer.
const RUN_COLUMN: &str = "the run";

/// The whole run as one self-contained HTML page (inline CSS, no script,
/// no network fetches): the run and its peers, a matrix of peers by spec
/// section (every section the laws cite, then regressions, seeds and
/// checks) whose cells count pass / fail / expected failure / skipped and
/// link to their failures, then each failure with its section, call, diff
/// and replay command (the first [`HTML_IN_FULL`] of a cell in full; of a
/// failing seed, every divergent call one line with its kind of difference
/// and the first in full), then the failures' trees, each written once and
/// linked from every failure that has it.
pub fn html(info: &RunInfo, outcomes: &[Outcome], summary: &Summary) -> String {
    let mut out = Vec::new();
    let _ = html_to(&mut out, info, &outcomes, summary);
    String::from_utf8(out).unwrap_or_default()
}

/// The trees of a page, each written once ([`Trees::link`]), in the order
/// they were first met: a tree is often met more than once (a seed's
/// subjects, a flaky trial and its listing, the laws of one file), and a
/// page wrote it again with each failure.
#[derive(Default)]
struct Trees {
    /// Each tree's entries as JSON → its number.
    numbers: std::collections::HashMap<String, usize>,
    /// Each tree written, with the trial it was first met in.
    written: Vec<String>,
}

impl Trees {
    /// A link to `tree` (with its `note`) in the page's trees, which gets
    /// it when it is not there yet.
    fn link(&mut self, tree: &[TreeEntry], note: Option<&str>, trial: &str) -> String {
        let e = html_escape;
        let key = serde_json::to_string(&(tree, note)).unwrap_or_default();
        let next = self.written.len() + 1;
        let n = *self.numbers.entry(key).or_insert(next);
        if n == next {
            let mut table = format!(
                "<div class=\"tree\" id=\"tree-{n}\"><h3>tree {n} <span class=\"why\">({} entries, first met in <code>{}</code>)</span></h3><table><tr><th>path</th><th>content</th></tr>",
                tree.len(),
                e(trial)
            );
            for t in tree {
                let _ = write!(
                    table,
                    "<tr><td><code>{}</code></td><td><code>{}</code></td></tr>",
                    text_escape(&visible(&t.path)),
                    text_escape(&visible(&t.describe()))
                );
            }
            table.push_str("</table>");
            if let Some(note) = note {
                let _ = write!(table, "<p class=\"tree-note\">{}</p>", e(note));
            }
            table.push_str("</div>\n");
            self.written.push(table);
        }
        format!(
            "<p class=\"tree-link\">tree: <a href=\"#tree-{n}\">tree {n}</a> ({} entries)</p>",
            tree.len()
        )
    }
}

/// One cell of the matrix: its counts, how many of its trials need
/// attention, the first [`HTML_IN_FULL`] of them written, the next
/// [`HTML_LISTED`] by id and verdict.
#[derive(Default)]
struct Cell {
    counts: crate::conformance::Counts,
    failing: usize,
    in_full: String,
    listed: Vec<(String, &'static str)>,
}

/// [`html()`] written to `out` after one walk of `outcomes`, which keeps
/// of each cell what the page shows of it: its counts, its first failures
/// written out, the next ones' ids.
pub fn html_to(
    to: &mut dyn std::io::Write,
    info: &RunInfo,
    outcomes: &dyn Walk,
    summary: &Summary,
) -> std::io::Result<()> {
    let e = html_escape;
    let mut peers: Vec<String> = info.peers.iter().map(|p| p.name.clone()).collect();
    // (row, peer) → counts and the failing outcomes.
    let mut cells: BTreeMap<(String, String), Cell> = BTreeMap::new();
    let mut rows: Vec<String> = Vec::new();
    let mut trees = Trees::default();
    outcomes.walk(&mut |o| {
        if let Some(p) = &o.peer
            && !peers.contains(p)
        {
            peers.push(p.clone());
        }
        let row = matrix_row(o);
        if !rows.contains(&row) {
            rows.push(row.clone());
        }
        let peer = o.peer.clone().unwrap_or_else(|| RUN_COLUMN.into());
        let cell = cells.entry((row, peer)).or_default();
        cell.counts.add(&o.verdict);
        if o.verdict.is_failure() || matches!(o.verdict, Verdict::ExpectedFailure { .. }) {
            if cell.failing < HTML_IN_FULL {
                html_failure(&mut cell.in_full, o, &mut trees);
            } else if cell.failing < HTML_IN_FULL + HTML_LISTED {
                cell.listed.push((o.id.to_string(), o.verdict.tag()));
            }
            cell.failing += 1;
        }
        Ok(())
    })?;
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
    if cells.keys().any(|(_, p)| p == RUN_COLUMN) {
        peers.push(RUN_COLUMN.into());
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
    for warning in &info.warnings {
        let _ = write!(out, "<p class=\"warn\"><b>WARNING</b>: {}</p>", e(warning));
    }
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
    out.push_str("</table>\n<h2>Matrix</h2>\n<p class=\"why\">Each cell: pass / fail (failures, unexpected passes and broken trials) / expected failures / skipped. A red cell links to its failures. The column “the run” holds the checks of the run itself (law coverage, files that do not load, peers that cannot run), which belong to no peer.</p>\n<table class=\"matrix\" id=\"matrix\"><tr><th>section</th>");
    for p in &peers {
        let _ = write!(out, "<th>{}</th>", e(p));
    }
    out.push_str("</tr>\n");
    for row in &rows {
        let _ = write!(out, "<tr><th scope=\"row\">{}</th>", e(row));
        for p in &peers {
            match cells.get(&(row.clone(), p.clone())) {
                None => out.push_str("<td class=\"cell none\">·</td>"),
                Some(Cell {
                    counts: c, failing, ..
                }) => {
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
                    if *failing == 0 {
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
            let Some(cell) = cells.get(&(row.clone(), p.clone())) else {
                continue;
            };
            if cell.failing == 0 {
                continue;
            }
            any = true;
            let _ = writeln!(
                out,
                "<section class=\"cell-detail\" id=\"{}\"><h3>{} · {} <span class=\"why\">({} listed)</span></h3>",
                slug(&format!("cell {row} {p}")),
                e(row),
                e(p),
                cell.failing
            );
            out.push_str(&cell.in_full);
            if cell.failing > HTML_IN_FULL {
                let _ = write!(
                    out,
                    "<p>{} more, by id:</p><ul class=\"listed\">",
                    cell.failing - HTML_IN_FULL
                );
                for (id, tag) in &cell.listed {
                    let _ = write!(out, "<li><code>{}</code> {tag}</li>", e(id));
                }
                out.push_str("</ul>");
                let rest = cell.failing.saturating_sub(HTML_IN_FULL + HTML_LISTED);
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
    if !trees.written.is_empty() {
        out.push_str("<h2 id=\"trees\">Trees</h2>\n<p class=\"why\">The tree of each failure above, each written once however many failures share it.</p>\n");
        for tree in &trees.written {
            out.push_str(tree);
        }
    }
    out.push_str("</main></body></html>\n");
    to.write_all(out.as_bytes())
}

/// One failing (or expected-failing) trial as a collapsed block. A
/// failure of several cases (a seed's divergent calls) lists each of them
/// one line with its kind of difference, and shows the first in full; a
/// case's tree is a link to the page's trees.
fn html_failure(out: &mut String, o: &Outcome, trees: &mut Trees) {
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
        Verdict::UnexpectedPass { reason, source } => e(
            &crate::conformance::sentence::unexpected_pass(None, reason, &source.to_string()),
        ),
        Verdict::Broken { why } => format!("broken: {}", e(why.lines().next().unwrap_or(why))),
        Verdict::Flaky { report, .. } => e(&report.summary),
        _ => String::new(),
    };
    let _ = write!(
        out,
        "<details class=\"failure\" data-trial=\"{}\" data-verdict=\"{}\"><summary>{} <span class=\"why\">{}</span></summary>",
        e(o.id.as_str()),
        o.verdict.tag(),
        e(o.id.as_str()),
        what
    );
    match &o.verdict {
        Verdict::Broken { why } => {
            let _ = write!(out, "<pre>{}</pre>", e(why));
        }
        _ => {
            if let Some(report) = o.verdict.report() {
                if report.cases.len() > 1 {
                    let _ = write!(
                        out,
                        "<p>{} divergent calls, each with its kind of difference; the first in full below:</p><ul class=\"calls\">",
                        report.cases.len(),
                    );
                    for case in &report.cases {
                        let _ = write!(out, "<li><code>{}</code></li>", e(&case_line(case)));
                    }
                    out.push_str("</ul>");
                }
                // The first case carries a seed's tree; its replay command
                // names the others with their `--call N`.
                if let Some(case) = report.cases.first() {
                    html_case(out, case, o.id.as_str(), trees);
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

/// One case in full: its section, tree (a link), call, problems, diff and
/// replay command.
fn html_case(out: &mut String, case: &Case, trial: &str, trees: &mut Trees) {
    let e = html_escape;
    let _ = write!(out, "<h4>{}</h4>", e(&case.title));
    if let Some(spec) = &case.spec {
        let _ = write!(out, "<p>spec: <b>{}</b></p>", e(spec));
    }
    if let Some(d) = &case.decision {
        let _ = write!(out, "<p class=\"why\">{}</p>", e(d));
    }
    if !case.tree.is_empty() {
        out.push_str(&trees.link(&case.tree, case.tree_note.as_deref(), trial));
    } else if let Some(note) = &case.tree_note {
        let _ = write!(out, "<p class=\"tree-note\">tree: {}</p>", e(note));
    }
    let _ = write!(
        out,
        "<p>call:</p><pre>{}</pre>",
        text_escape(&visible(&compact(&case.call)))
    );
    for p in &case.problems {
        let _ = write!(out, "<p>{}</p>", e(p));
    }
    if !case.diff.is_empty() {
        out.push_str("<p class=\"why\">- expected, + actual:</p><pre class=\"diff\">");
        for line in case.diff.lines() {
            // A line both sides share is plain text: only the changed
            // ones need a span to be coloured.
            let class = match line.chars().next() {
                Some('-') => Some("del"),
                Some('+') => Some("ins"),
                _ => None,
            };
            let _ = match class {
                Some(class) => {
                    writeln!(out, "<span class=\"{class}\">{}</span>", text_escape(line))
                }
                None => writeln!(out, "{}", text_escape(line)),
            };
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::Report;

    /// Element text escapes what HTML reads as markup and nothing more;
    /// attributes escape quotes too.
    #[test]
    fn text_keeps_its_quotes_and_attributes_do_not() {
        let text = r#""<a href='x'>" & more"#;
        assert_eq!(text_escape(text), r#""&lt;a href='x'&gt;" &amp; more"#);
        assert_eq!(
            html_escape(text),
            "&quot;&lt;a href=&#39;x&#39;&gt;&quot; &amp; more"
        );
    }

    /// The matrix's column of checks is named and explained (it was `—`),
    /// and a diff says which side is which.
    #[test]
    fn the_run_column_and_the_diff_are_explained() {
        let outcome = |id: &str, peer: Option<&str>, verdict: Verdict| Outcome {
            id: id.parse().expect("a trial id"),
            item: id.into(),
            kind: if peer.is_some() {
                Kind::Law
            } else {
                Kind::Check
            },
            peer: peer.map(str::to_string),
            spec: peer.map(|_| "search-contract §8".to_string()),
            verdict,
            documented: Default::default(),
            compared: 0,
            seconds: 0.0,
        };
        let expected = serde_json::json!({"paths": ["a"]});
        let actual = serde_json::json!({"paths": ["b"]});
        let fail = Verdict::Fail {
            report: Report {
                summary: "law::glob::x fails".into(),
                cases: vec![Case {
                    title: "x".into(),
                    diff: crate::kit::report::json_diff(&expected, &actual, false),
                    expected,
                    actual,
                    ..Case::default()
                }],
                health: None,
            },
        };
        let outcomes = [
            outcome("law::coverage", None, Verdict::Pass),
            outcome("law::glob::x::mine", Some("mine"), fail),
        ];
        let summary = Summary::of(&outcomes, std::time::Duration::ZERO, Vec::new());
        let page = html(&RunInfo::default(), &outcomes, &summary);
        assert!(!page.contains("<th>—</th>"), "an unexplained column");
        assert!(page.contains("<th>the run</th>"));
        assert!(page.contains("The column “the run” holds the checks"));
        assert!(page.contains("- expected, + actual:</p><pre class=\"diff\">"));
    }
}
