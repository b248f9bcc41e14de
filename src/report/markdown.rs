//! Markdown, for a CI job summary.

use std::fmt::Write as _;
use std::io;

use super::{RunInfo, Walk, escaped};
use crate::conformance::{Outcome, Summary};

/// A Markdown summary (for a CI job summary): a table row per peer with
/// trials (the run's other peers named below it), the failing spec
/// sections, and the failures in full up to `max_reports` cases (a law's
/// failing call, a seed's divergent call; [`super::Shown`]), each in a
/// collapsed block (the rest counted).
pub fn markdown(
    info: &RunInfo,
    outcomes: &[Outcome],
    summary: &Summary,
    max_reports: usize,
) -> String {
    let mut out = Vec::new();
    let _ = markdown_to(&mut out, info, &outcomes, summary, max_reports);
    String::from_utf8(out).unwrap_or_default()
}

/// [`markdown()`] written to `out`, the failures as `outcomes` walks them.
pub fn markdown_to(
    to: &mut dyn io::Write,
    info: &RunInfo,
    outcomes: &dyn Walk,
    summary: &Summary,
    max_reports: usize,
) -> io::Result<()> {
    // The header counts the table's rows, the peers with trials: the
    // reference has none in a seeds-only run (seeds compare the others to
    // it), and counting it said "3 peers" over 2 rows.
    let shown = summary.by_peer.len();
    // A flaky column only when something was flaky (`--repeat`), so the
    // summary of an ordinary run reads as it always has.
    let flaky = summary.by_peer.values().any(|c| c.flaky > 0);
    let mut out = format!(
        "## lawsuite: reference {}, {shown} {} with trials\n\n| peer | pass | fail | expected failures | unexpected passes | broken | skipped |{}\n| --- | --- | --- | --- | --- | --- | --- |{}\n",
        info.reference,
        if shown == 1 { "peer" } else { "peers" },
        if flaky { " flaky |" } else { "" },
        if flaky { " --- |" } else { "" },
    );
    for (peer, c) in &summary.by_peer {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |{}",
            escaped(peer, " ").replace('|', "\\|"),
            c.pass,
            c.fail,
            c.expected_failure,
            c.unexpected_pass,
            c.broken,
            c.skipped,
            if flaky {
                format!(" {} |", c.flaky)
            } else {
                String::new()
            }
        );
    }
    if let Some(c) = summary.by_kind.get("check") {
        let _ = writeln!(
            out,
            "| (checks) | {} | {} | | | {} | {} |",
            c.pass, c.fail, c.broken, c.skipped
        );
    }
    let idle: Vec<&str> = info
        .peers
        .iter()
        .map(|p| p.name.as_str())
        .filter(|name| !summary.by_peer.contains_key(*name))
        .collect();
    if !idle.is_empty() {
        let _ = writeln!(out, "\nNo trials in this run: {}.", idle.join(", "));
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
            escaped(why.lines().next().unwrap_or(why), " ")
        );
    }
    for warning in &info.warnings {
        let _ = writeln!(out, "\n**WARNING**: {}", escaped(warning, " "));
    }
    to.write_all(out.as_bytes())?;
    let mut any = false;
    let mut shown = super::Shown::new(max_reports);
    outcomes.walk(&mut |o| {
        if !o.verdict.is_failure() {
            return Ok(());
        }
        if !any {
            to.write_all(b"\n### Failures\n")?;
            any = true;
        }
        let Some(text) = shown.outcome(o, false) else {
            return Ok(());
        };
        write!(
            to,
            "\n<details><summary><code>{}</code></summary>\n\n```text\n{}```\n\n</details>\n",
            o.id.as_str().replace('<', "&lt;"),
            text.replace("```", "` ` `")
        )
    })?;
    if shown.not_shown() > 0 {
        writeln!(
            to,
            "\n{}",
            crate::conformance::sentence::not_shown(
                shown.not_shown(),
                crate::conformance::sentence::FrontDoor::Report
            )
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::conformance::{Kind, Verdict};
    use crate::report::PeerInfo;

    /// The header counts the peers the table has a row for. A seeds-only
    /// run of three peers has no trial of the reference's: the header
    /// used to say "3 peers" over a table of 2.
    #[test]
    fn the_header_counts_the_peers_the_table_shows() {
        let info = RunInfo {
            reference: "portable".into(),
            peers: ["portable", "mine", "ext"]
                .map(|name| PeerInfo {
                    name: name.into(),
                    ..PeerInfo::default()
                })
                .to_vec(),
            ..RunInfo::default()
        };
        let outcomes: Vec<Outcome> = ["mine", "ext"]
            .map(|peer| Outcome {
                id: format!("seed::lawsuite::0001::{peer}")
                    .parse()
                    .expect("a trial id"),
                item: "seed::lawsuite::0001".into(),
                kind: Kind::Seed,
                peer: Some(peer.into()),
                spec: None,
                verdict: Verdict::Pass,
                documented: BTreeMap::new(),
                compared: 0,
                seconds: 0.1,
            })
            .to_vec();
        let summary = Summary::of(&outcomes, std::time::Duration::ZERO, Vec::new());
        let text = markdown(&info, &outcomes, &summary, 0);
        let header = text.lines().next().unwrap_or_default();
        let counted: Option<usize> = header
            .split(", ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok());
        let rows = text
            .lines()
            .filter(|l| l.starts_with("| ") && !l.starts_with("| peer") && !l.starts_with("| ---"))
            .count();
        assert_eq!(rows, 2, "{text}");
        assert_eq!(counted, Some(rows), "{text}");
        // The peer left out is named, and why.
        assert!(text.contains("No trials in this run: portable."), "{text}");
    }
}
