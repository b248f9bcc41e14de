//! A benchmark's results, and their three renderings: a terminal table,
//! JSON and Markdown.
//!
//! Every cell of the ratio table is one peer on one call: the median time,
//! the spread (`±`, see [`crate::bench::stats`]) and the ratio of the
//! median to the baseline's (below 1 is faster than the baseline). A `!`
//! marks a spread above [`SPREAD_WARNING`]; `DISAGREES` a peer whose answer
//! differed from the baseline's, so it has no time and no ratio, or, timed
//! anyway (`--time-disagreeing`), `DISAGREES (timed)` with its median and
//! spread but still no ratio and no rank; `FAULTED` a peer whose answer
//! changed during the warm-up or the timed rounds (it crashed, timed out or
//! answered otherwise), or whose first answer was a fault, likewise
//! untimed; `NOT STARTED` a peer that could not be started (its process
//! did not start or never completed its handshake), asked nothing; `-` a
//! peer that does not answer the method.
//!
//! The notes under the table cite each call that disagreed or faulted by
//! its position and as a line of a calls file, roots relative to the
//! corpus, so the call can be asked again after a generated corpus is
//! gone.

use std::fmt::Write as _;

use serde::Serialize;

use crate::bench::corpus::Stats;
use crate::bench::stats::{SPREAD_WARNING, TimingSummary};

/// How many noisy timings the warning names (the worst ones).
const NOISY_NAMED: usize = 5;

/// What a benchmark found.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BenchReport {
    /// The corpus searched (`generated:S`, or a path).
    pub corpus: String,
    /// What a generated corpus holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corpus_stats: Option<Stats>,
    /// Where and when it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine: Option<Machine>,
    /// The peer ratios are taken against (the first available one).
    pub baseline: String,
    /// The peers that ran, in order.
    pub peers: Vec<String>,
    /// Peers asked for that could not run, and why.
    pub unavailable: Vec<Unavailable>,
    /// Timed rounds per call and peer.
    pub rounds: usize,
    /// Untimed runs before them.
    pub warmup: usize,
    /// The spread above which a timing is flagged.
    pub spread_warning: f64,
    /// One entry per call, in order.
    pub calls: Vec<CallReport>,
}

/// A peer that was asked for and cannot run here (the one
/// [`Unavailable`] of every runner).
pub use crate::peer::Unavailable;

/// The machine a report was taken on.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Machine {
    /// Available parallelism (`nproc`).
    pub cpus: usize,
    /// The CPU's model name from `/proc/cpuinfo`, when readable.
    pub cpu_model: Option<String>,
    /// `/proc/loadavg`'s three load averages when the run started.
    pub load_before: Option<[f64; 3]>,
    /// The same when it ended.
    pub load_after: Option<[f64; 3]>,
    /// The UTC date and time it started, `YYYY-MM-DD HH:MM UTC`.
    pub started: String,
}

impl Machine {
    /// This machine, now.
    pub fn here() -> Machine {
        let cpu_model = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|text| {
                text.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            });
        Machine {
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            cpu_model,
            load_before: load_average(),
            load_after: None,
            started: utc_now(),
        }
    }

    /// Record the load average at the end of the run.
    pub fn finish(&mut self) {
        self.load_after = load_average();
    }
}

/// `/proc/loadavg`'s first three fields (Linux only; `None` elsewhere).
pub fn load_average() -> Option<[f64; 3]> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut fields = text.split_whitespace().map(|f| f.parse::<f64>().ok());
    Some([fields.next()??, fields.next()??, fields.next()??])
}

/// The current UTC time as `YYYY-MM-DD HH:MM UTC`.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    crate::report::utc(secs)
}

/// One call's results.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallReport {
    /// The call's name.
    pub name: String,
    /// Its position in the calls run, from 1.
    pub index: usize,
    /// The call as a line of a calls file (`--call-file`): its name, method and
    /// input, the root relative to the corpus when the run knew the
    /// corpus ([`crate::bench::run::Options::corpus`]).
    pub call: serde_json::Value,
    /// `grep` or `glob`.
    pub method: String,
    /// The peer this call's answers and ratios are measured against: the
    /// first that answers the method (`None` if none does).
    pub baseline: Option<String>,
    /// One entry per peer, in peer order.
    pub results: Vec<PeerResult>,
}

impl CallReport {
    /// The call as the notes cite it: `call 3 (...)` with the call as a
    /// calls-file line, which names the call whatever became of the corpus.
    pub fn cited(&self) -> String {
        format!("{} (call {}: {})", self.name, self.index, self.call)
    }
}

/// One peer on one call.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PeerResult {
    /// The peer's name.
    pub peer: String,
    /// What happened.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// What happened to one peer on one call.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(
    tag = "status",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum Outcome {
    /// Agreed with the baseline and was timed.
    Timed {
        /// Its samples.
        summary: TimingSummary,
        /// Median over the baseline's median.
        ratio: Option<f64>,
        /// 1 for the fastest agreeing peer on this call.
        rank: usize,
    },
    /// Answered differently from the baseline: not ranked, no ratio, and
    /// not timed unless asked to be (`--time-disagreeing`).
    Disagrees {
        /// The first difference (a JSON pointer, then the two values).
        difference: String,
        /// Its samples, when timed anyway.
        #[serde(skip_serializing_if = "Option::is_none")]
        summary: Option<TimingSummary>,
        /// When timed anyway, the run in which its answer changed from its
        /// own first one, and how: it was timed no more on the call.
        #[serde(skip_serializing_if = "Option::is_none")]
        fault: Option<String>,
    },
    /// Agreed, then answered otherwise in a later run (a crash, a timeout,
    /// a wrong answer), or faulted on its first answer: not timed, not
    /// ranked, no more runs of the call.
    Faulted {
        /// The run: `the agreement check`, `warm-up 1/1` or `round 2/5`.
        during: String,
        /// The first difference from the agreed answer, or the fault.
        difference: String,
    },
    /// Could not be started (its process did not start or never completed
    /// its handshake): asked nothing, on this call or any other.
    NotStarted {
        /// The fault that stopped it, as its fault log says it.
        fault: String,
    },
    /// Does not answer this method.
    Unsupported,
}

impl BenchReport {
    /// Whether any peer disagreed with the baseline on any call.
    pub fn has_disagreement(&self) -> bool {
        self.calls
            .iter()
            .flat_map(|c| &c.results)
            .any(|r| matches!(r.outcome, Outcome::Disagrees { .. }))
    }

    /// Whether any peer faulted on any call, or could not be started.
    pub fn has_fault(&self) -> bool {
        self.calls.iter().flat_map(|c| &c.results).any(|r| {
            matches!(
                r.outcome,
                Outcome::Faulted { .. } | Outcome::NotStarted { .. }
            )
        })
    }

    /// The peers that could not be started, each once, with the fault.
    pub fn not_started(&self) -> Vec<(&str, &str)> {
        let mut out: Vec<(&str, &str)> = Vec::new();
        for result in self.calls.iter().flat_map(|c| &c.results) {
            if let Outcome::NotStarted { fault } = &result.outcome
                && !out.iter().any(|(peer, _)| *peer == result.peer)
            {
                out.push((&result.peer, fault));
            }
        }
        out
    }

    /// The noisy timings: `(call, peer, spread)`.
    pub fn noisy(&self) -> Vec<(&str, &str, f64)> {
        let mut out = Vec::new();
        for call in &self.calls {
            for result in &call.results {
                if let Outcome::Timed { summary, .. } = &result.outcome
                    && summary.is_noisy()
                {
                    out.push((call.name.as_str(), result.peer.as_str(), summary.spread));
                }
            }
        }
        out
    }

    fn heading(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let stats = self.corpus_stats.as_ref().map_or_else(String::new, |s| {
            format!(
                " ({} searched files, {:.1} MB)",
                thousands(s.files),
                s.bytes as f64 / 1e6
            )
        });
        lines.push(format!(
            "corpus {}{stats}; {} timed round{} after {} warm-up, interleaved; baseline {}",
            self.corpus,
            self.rounds,
            if self.rounds == 1 { "" } else { "s" },
            self.warmup,
            self.baseline
        ));
        if let Some(m) = &self.machine {
            let load = |l: &Option<[f64; 3]>| {
                l.map_or("?".to_string(), |[a, b, c]| format!("{a:.2} {b:.2} {c:.2}"))
            };
            lines.push(format!(
                "machine: {} CPUs, {}; load average {} at the start, {} at the end; {}",
                m.cpus,
                m.cpu_model.as_deref().unwrap_or("unknown CPU"),
                load(&m.load_before),
                load(&m.load_after),
                m.started
            ));
        }
        lines
    }

    fn cell(outcome: &Outcome) -> String {
        match outcome {
            Outcome::Timed { summary, ratio, .. } => format!(
                "{} ±{:.0}% {}{}",
                millis(summary.median_ms),
                summary.spread * 100.0,
                ratio.map_or("-".to_string(), |r| format!("{r:.2}x")),
                if summary.is_noisy() { " !" } else { "" }
            ),
            Outcome::Disagrees {
                summary: Some(summary),
                ..
            } => format!(
                "DISAGREES (timed) {} ±{:.0}%",
                millis(summary.median_ms),
                summary.spread * 100.0
            ),
            Outcome::Disagrees { fault: Some(_), .. } => "DISAGREES (faulted)".to_string(),
            Outcome::Disagrees { .. } => "DISAGREES".to_string(),
            Outcome::Faulted { .. } => "FAULTED".to_string(),
            Outcome::NotStarted { .. } => "NOT STARTED".to_string(),
            Outcome::Unsupported => "-".to_string(),
        }
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = vec![format!(
            "ratio = median / the baseline's median (below 1 is faster); ±spread = (p90 − p10) / median; ! = spread above {:.0}%",
            SPREAD_WARNING * 100.0
        )];
        let mut noisy = self.noisy();
        if !noisy.is_empty() {
            // The worst first, and no more than a handful named: on a busy
            // machine every timing can be noisy, and a wall of names hides
            // the one that matters.
            noisy.sort_by(|a, b| b.2.total_cmp(&a.2));
            let timed = self
                .calls
                .iter()
                .flat_map(|c| &c.results)
                .filter(|r| matches!(r.outcome, Outcome::Timed { .. }))
                .count();
            let mut list: Vec<String> = noisy
                .iter()
                .take(NOISY_NAMED)
                .map(|(call, peer, spread)| format!("{peer} on {call} ({:.0}%)", spread * 100.0))
                .collect();
            if noisy.len() > NOISY_NAMED {
                list.push(format!("{} more", noisy.len() - NOISY_NAMED));
            }
            notes.push(format!(
                "warning: high spread on {} of {timed} timings: {}; those ratios are no better than the spread; rerun with more --rounds or on a quieter machine",
                noisy.len(),
                list.join(", ")
            ));
        }
        for call in &self.calls {
            for result in &call.results {
                match &result.outcome {
                    Outcome::Disagrees {
                        difference,
                        summary,
                        fault,
                    } => {
                        let timing = match (summary, fault) {
                            (Some(s), _) => format!(
                                "timed anyway (--time-disagreeing): {} ±{:.0}% over {} rounds, not ranked, no ratio",
                                millis(s.median_ms),
                                s.spread * 100.0,
                                s.samples
                            ),
                            (None, Some(fault)) => format!(
                                "timed anyway until its answer changed {fault}; not ranked"
                            ),
                            (None, None) => "not timed, not ranked".to_string(),
                        };
                        notes.push(format!(
                            "DISAGREES: {} on {} answers differently from {} ({difference}); {timing}",
                            result.peer,
                            call.cited(),
                            call.baseline.as_deref().unwrap_or("the baseline")
                        ));
                    }
                    Outcome::Faulted { during, difference } => notes.push(format!(
                        "FAULTED: {} on {} faulted in {during} ({difference}); not timed, not ranked",
                        result.peer,
                        call.cited()
                    )),
                    _ => {}
                }
            }
        }
        // Once a peer, not once a call: it was asked nothing.
        for (peer, fault) in self.not_started() {
            notes.push(format!(
                "NOT STARTED: {peer} could not be started: {}; asked nothing, not timed, not ranked",
                fault.lines().next().unwrap_or_default()
            ));
        }
        for u in &self.unavailable {
            notes.push(format!("unavailable: {}: {}", u.name, u.why));
        }
        notes
    }

    fn header_row(&self) -> Vec<String> {
        let mut row = vec!["call".to_string()];
        row.extend(self.peers.iter().map(|p| {
            if *p == self.baseline {
                format!("{p} (baseline)")
            } else {
                p.clone()
            }
        }));
        row
    }

    fn rows(&self) -> Vec<Vec<String>> {
        self.calls
            .iter()
            .map(|call| {
                let mut row = vec![call.name.clone()];
                row.extend(call.results.iter().map(|r| BenchReport::cell(&r.outcome)));
                row
            })
            .collect()
    }

    /// The report as an aligned terminal table with notes below.
    pub fn table(&self) -> String {
        let mut rows = vec![self.header_row()];
        rows.extend(self.rows());
        let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
        let widths: Vec<usize> = (0..columns)
            .map(|c| {
                rows.iter()
                    .filter_map(|r| r.get(c))
                    .map(|s| s.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        for line in self.heading() {
            let _ = writeln!(out, "{line}");
        }
        out.push('\n');
        for row in &rows {
            let cells: Vec<String> = row
                .iter()
                .zip(&widths)
                .map(|(cell, &w)| format!("{cell:<w$}"))
                .collect();
            let _ = writeln!(out, "{}", cells.join("  ").trim_end());
        }
        out.push('\n');
        for note in self.notes() {
            let _ = writeln!(out, "{note}");
        }
        out
    }

    /// The report as Markdown: a heading paragraph, the ratio table, and the
    /// notes as a list.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        for line in self.heading() {
            let _ = writeln!(out, "{line}  ");
        }
        out.push('\n');
        let header = self.header_row();
        let _ = writeln!(out, "| {} |", header.join(" | "));
        let _ = writeln!(out, "|{}", " --- |".repeat(header.len()));
        for row in self.rows() {
            let _ = writeln!(out, "| {} |", row.join(" | "));
        }
        out.push('\n');
        for note in self.notes() {
            let _ = writeln!(out, "* {note}");
        }
        out
    }

    /// The report as one self-contained HTML page (inline CSS and SVG, no
    /// script): per query, a bar of each timed peer's median with its
    /// p10–p90 spread as a whisker and its ratio to the baseline; a peer
    /// that disagreed or faulted is marked, with the difference, and never
    /// drawn or ranked.
    pub fn html(&self) -> String {
        fn esc(text: &str) -> String {
            text.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
        }
        let mut out = String::from(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>lawsuite bench</title><style>\
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1b1f24}h1{font-size:20px}h2{font-size:15px;margin:22px 0 4px}\
.meta{color:#57606a}.bad{color:#a40e26;font-weight:600}svg text{font:12px system-ui,sans-serif}\
</style></head><body>\n<h1>lawsuite bench</h1>\n",
        );
        for line in self.heading() {
            let _ = writeln!(out, "<p class=\"meta\">{}</p>", esc(&line));
        }
        const WIDTH: f64 = 640.0;
        const LABEL: f64 = 150.0;
        const ROW: f64 = 26.0;
        for call in &self.calls {
            let _ = writeln!(
                out,
                "<h2 data-query=\"{}\">{} <span class=\"meta\">({})</span></h2>",
                esc(&call.name),
                esc(&call.name),
                esc(&call.method)
            );
            let scale = call
                .results
                .iter()
                .filter_map(|r| match &r.outcome {
                    Outcome::Timed { summary, .. } => Some(summary.p90_ms.max(summary.median_ms)),
                    _ => None,
                })
                .fold(0.0_f64, f64::max)
                .max(1e-9);
            let height = ROW * call.results.len() as f64 + 6.0;
            let _ = writeln!(
                out,
                "<svg width=\"{}\" height=\"{height}\" role=\"img\">",
                LABEL + WIDTH + 230.0
            );
            for (i, r) in call.results.iter().enumerate() {
                let y = ROW * i as f64 + 4.0;
                let _ = write!(
                    out,
                    "<text x=\"0\" y=\"{}\">{}</text>",
                    y + 15.0,
                    esc(&r.peer)
                );
                match &r.outcome {
                    Outcome::Timed {
                        summary,
                        ratio,
                        rank,
                    } => {
                        let x = |ms: f64| LABEL + ms / scale * WIDTH;
                        let _ = write!(
                            out,
                            "<rect class=\"bar\" data-peer=\"{}\" data-median-ms=\"{:.3}\" x=\"{LABEL}\" y=\"{y}\" width=\"{:.1}\" height=\"18\" fill=\"{}\"/>\
<line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{}\" y2=\"{}\" stroke=\"#1b1f24\"/><line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{}\" y2=\"{}\" stroke=\"#1b1f24\"/><line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{}\" y2=\"{}\" stroke=\"#1b1f24\"/>\
<text x=\"{:.1}\" y=\"{}\">{}{} #{rank}</text>",
                            esc(&r.peer),
                            summary.median_ms,
                            x(summary.median_ms) - LABEL,
                            if *rank == 1 { "#2da44e" } else { "#54aeff" },
                            x(summary.p10_ms),
                            x(summary.p90_ms),
                            y + 9.0,
                            y + 9.0,
                            x(summary.p10_ms),
                            x(summary.p10_ms),
                            y + 4.0,
                            y + 14.0,
                            x(summary.p90_ms),
                            x(summary.p90_ms),
                            y + 4.0,
                            y + 14.0,
                            LABEL + WIDTH + 8.0,
                            y + 15.0,
                            esc(&millis(summary.median_ms)),
                            ratio.map(|r| format!(" · {r:.2}x")).unwrap_or_default(),
                        );
                    }
                    Outcome::Disagrees {
                        difference,
                        summary,
                        ..
                    } => {
                        // Timed anyway, its median is said, never drawn
                        // beside the agreeing peers' bars.
                        let what = match summary {
                            Some(s) => format!(
                                "DISAGREES (timed) {} ±{:.0}%, not ranked",
                                millis(s.median_ms),
                                s.spread * 100.0
                            ),
                            None => "DISAGREES, not timed or ranked".to_string(),
                        };
                        let _ = write!(
                            out,
                            "<text class=\"bad\" data-peer=\"{}\" data-status=\"disagrees\" x=\"{LABEL}\" y=\"{}\" fill=\"#a40e26\">{}: {}</text>",
                            esc(&r.peer),
                            y + 15.0,
                            esc(&what),
                            esc(difference)
                        );
                    }
                    Outcome::Faulted { during, difference } => {
                        let _ = write!(
                            out,
                            "<text class=\"bad\" data-peer=\"{}\" data-status=\"faulted\" x=\"{LABEL}\" y=\"{}\" fill=\"#a40e26\">FAULTED in {}, not timed or ranked: {}</text>",
                            esc(&r.peer),
                            y + 15.0,
                            esc(during),
                            esc(difference)
                        );
                    }
                    Outcome::NotStarted { fault } => {
                        let _ = write!(
                            out,
                            "<text class=\"bad\" data-peer=\"{}\" data-status=\"not_started\" x=\"{LABEL}\" y=\"{}\" fill=\"#a40e26\">NOT STARTED, asked nothing: {}</text>",
                            esc(&r.peer),
                            y + 15.0,
                            esc(fault.lines().next().unwrap_or_default())
                        );
                    }
                    Outcome::Unsupported => {
                        let _ = write!(
                            out,
                            "<text x=\"{LABEL}\" y=\"{}\" fill=\"#57606a\">does not answer {}</text>",
                            y + 15.0,
                            esc(&call.method)
                        );
                    }
                }
                out.push('\n');
            }
            out.push_str("</svg>\n");
        }
        out.push_str("<ul>\n");
        for note in self.notes() {
            let _ = writeln!(out, "<li>{}</li>", esc(&note));
        }
        out.push_str("</ul>\n<p class=\"meta\">Bars: the median; whiskers: p10 to p90; ratio: median over the baseline's; #n: rank among the peers that agreed.</p>\n</body></html>\n");
        out
    }

    /// The report as pretty JSON.
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}

/// `12.3 ms`, `1.23 ms`, `1234 ms`.
fn millis(ms: f64) -> String {
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.0} ms")
    }
}

/// `20000` → `20,000`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn report() -> BenchReport {
        let ms = |v: &[u64]| {
            TimingSummary::of(
                &v.iter()
                    .map(|&m| Duration::from_millis(m))
                    .collect::<Vec<_>>(),
            )
            .unwrap()
        };
        BenchReport {
            corpus: "generated:S".into(),
            baseline: "a".into(),
            peers: vec!["a".into(), "b".into(), "c".into()],
            rounds: 3,
            warmup: 1,
            spread_warning: SPREAD_WARNING,
            calls: vec![CallReport {
                name: "rare".into(),
                index: 1,
                call: serde_json::json!({"name": "rare", "method": "grep"}),
                method: "grep".into(),
                baseline: Some("a".into()),
                results: vec![
                    PeerResult {
                        peer: "a".into(),
                        outcome: Outcome::Timed {
                            summary: ms(&[10, 10, 10]),
                            ratio: Some(1.0),
                            rank: 1,
                        },
                    },
                    PeerResult {
                        peer: "b".into(),
                        outcome: Outcome::Timed {
                            summary: ms(&[20, 30, 40]),
                            ratio: Some(3.0),
                            rank: 2,
                        },
                    },
                    PeerResult {
                        peer: "c".into(),
                        outcome: Outcome::Disagrees {
                            difference: "/matches: 0 items, expected 1".into(),
                            summary: None,
                            fault: None,
                        },
                    },
                ],
            }],
            ..BenchReport::default()
        }
    }

    #[test]
    fn table_flags_noise_and_disagreement() {
        let table = report().table();
        assert!(table.contains("a (baseline)"), "{table}");
        assert!(table.contains("10.0 ms ±0% 1.00x"), "{table}");
        assert!(table.contains("30.0 ms ±53% 3.00x !"), "{table}");
        assert!(table.contains("DISAGREES: c on rare"), "{table}");
        assert!(
            table.contains("warning: high spread on 1 of 2 timings: b on rare (53%);"),
            "{table}"
        );
    }

    #[test]
    fn markdown_and_json() {
        let md = report().markdown();
        assert!(md.contains("| call | a (baseline) | b | c |\n| --- | --- | --- | --- |\n| rare | 10.0 ms ±0% 1.00x |"), "{md}");
        let json: serde_json::Value = serde_json::from_str(&report().json()).unwrap();
        assert_eq!(json["calls"][0]["results"][2]["status"], "disagrees");
        assert_eq!(json["calls"][0]["results"][1]["ratio"], 3.0);
        assert_eq!(json["calls"][0]["results"][1]["summary"]["medianMs"], 30.0);
    }

    #[test]
    fn numbers_read_well() {
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(200_000), "200,000");
        assert_eq!(thousands(12), "12");
        assert_eq!(millis(1.234), "1.23 ms");
        assert_eq!(millis(1234.4), "1234 ms");
        let date = utc_now();
        assert_eq!(date.len(), "2026-12-01 03:40 UTC".len(), "{date}");
    }
}
