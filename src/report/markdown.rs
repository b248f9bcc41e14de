//! Markdown, for a CI job summary.

use std::fmt::Write as _;

use super::RunInfo;
use crate::conformance::{Outcome, Summary};

/// A Markdown summary (for a CI job summary): a table per peer, the failing
/// spec sections, and the failures in full up to `max_reports` cases (a law's
/// failing call, a seed's divergent call; [`super::Shown`]), each in a
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
            "\n{} seeds of {}: {} divergent of {} calls compared.",
            summary.seeds,
            info.generator.as_deref().unwrap_or("?"),
            summary.divergent_calls,
            summary.compared_calls
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
    let mut shown = super::Shown::new(max_reports);
    for o in &failures {
        let Some(text) = shown.outcome(o, false) else {
            continue;
        };
        let _ = write!(
            out,
            "\n<details><summary><code>{}</code></summary>\n\n```text\n{}```\n\n</details>\n",
            o.id.replace('<', "&lt;"),
            text.replace("```", "` ` `")
        );
    }
    if shown.not_shown() > 0 {
        let _ = writeln!(out, "\n… and {} more failures.", shown.not_shown());
    }
    out
}
