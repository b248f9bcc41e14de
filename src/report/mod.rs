//! A run's results for people and for machines: the same facts in every
//! [`Format`], so a failure carries its reason wherever it is read. Both
//! front doors write through here: `cargo test` prints
//! [`human::human_report`] as a trial's failure, `lawsuite run`, `merge`
//! and `report` [`render`] whole runs.
//!
//! | format | file | for |
//! | --- | --- | --- |
//! | human | [`human`] | people at a terminal: each failure with its diff and replay command, then a summary |
//! | json | [`json`](mod@json) | one document: the run, its summary, every outcome |
//! | jsonl | [`json`](mod@json) | one object a line as results arrive; the input of `merge` and `report` ([`results`]) |
//! | junit | [`junit`](mod@junit) | CI test reports |
//! | markdown | [`markdown`](mod@markdown) | a CI job summary |
//! | html | [`html`](mod@html) | one self-contained page |
//!
//! [`live`] writes a run as it happens, fed the engine's events (`lawsuite
//! run`). [`diff`] compares two runs' results (`lawsuite diff`, `run --baseline`);
//! [`history`] follows each trial's verdict over many (`lawsuite history`).

pub mod diff;
pub mod history;
pub mod html;
pub mod human;
pub mod json;
pub mod junit;
pub mod live;
pub mod markdown;
pub mod results;
pub mod sweep;

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::conformance::{Outcome, Summary, Verdict};
pub use html::{HTML_IN_FULL, HTML_LISTED, html};
pub use human::{Shown, human_outcome, human_report, human_report_within, human_summary};
pub use json::{json, json_to, jsonl_line};
pub use junit::junit;
pub use markdown::markdown;

/// The one escaping of text that may come from a peer (its name and
/// version, its messages and stderr, its answers) for every human and
/// Markdown writer: [`visible`](crate::kit::report::visible) writes control
/// characters (ESC, BEL, CR and the rest, tabs and line ends aside) and
/// look-alikes as `\u{…}`, so a peer cannot colour, retitle or clear the
/// terminal; every line after the first is indented by `indent`, so the
/// caller's prefix starts each of them; and a line that would begin with
/// `::`, which a GitHub runner reads as a workflow command
/// (`::add-mask::`, `::error::`) even after leading spaces, has its first
/// `:` escaped. A line longer than 480 bytes is shown as its head and tail
/// with the count of bytes left out between them.
///
/// ```
/// use lawsuite::report::escaped;
/// assert_eq!(escaped("ok\x1b[31m\x07", "  "), r"ok\u{001B}[31m\u{0007}");
/// assert_eq!(escaped("a\r\n::add-mask::x", "  "), "a\\u{000D}\n  \\u{003A}:add-mask::x");
/// ```
pub fn escaped(text: &str, indent: &str) -> String {
    let shown = crate::kit::report::visible(text);
    let mut out = String::with_capacity(shown.len());
    for (i, line) in shown.split('\n').enumerate() {
        // A long line is shown as its head and tail (kit::report::bounded):
        // a 64 KiB value must not bury the report it is in.
        let line = crate::kit::report::bounded(line);
        let line = line.as_ref();
        if i > 0 {
            out.push('\n');
            out.push_str(indent);
        }
        let body = line.trim_start();
        if body.starts_with("::") {
            out.push_str(&line[..line.len() - body.len()]);
            out.push_str("\\u{003A}");
            out.push_str(&body[1..]);
        } else {
            out.push_str(line);
        }
    }
    out
}
use results::{Closing, summary_line};

/// One case as one line: its title and kind of difference, escaped and
/// bounded as [`escaped`] does (`smthrs seed 51, call 3 (grep): /paths:
/// items added`).
pub(crate) fn case_line(case: &crate::conformance::Case) -> String {
    let line = match &case.kind {
        Some(kind) => format!("{}: {kind}", case.title),
        None => case.title.clone(),
    };
    // One line: a title or kind with a line end in it stays on it.
    escaped(&line.replace(['\n', '\r'], " "), "")
}

/// A report format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Reports with diffs, for people.
    Human,
    /// One JSON document.
    Json,
    /// One JSON object per line, each result as it happens (a stopped run
    /// keeps every result it reached).
    Jsonl,
    /// JUnit XML: one test suite per peer, one test case per trial (a
    /// failing seed's divergent calls listed inside its one), with the
    /// reason (for CI test reports).
    Junit,
    /// A Markdown summary per peer (for a CI job summary).
    Markdown,
    /// One self-contained HTML page (see `lawsuite report`).
    Html,
}

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
    /// Each generator that ran, with its version, ground and seeds
    /// (`lawsuite v5 shared 0..64`, [`sweep::seed_set`]): the seeds the
    /// run asked, however they were given (`--seeds`, `LAWSUITE_SEEDS`,
    /// the default), where [`RunInfo::seeds`] repeats the flag.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seed_sets: Vec<String>,
    /// The run's law set: how many laws and a digest of their ids and
    /// contents ([`sweep::laws_of`]). `None` only in results written
    /// before results named their sweep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub laws: Option<String>,
    /// The run's regressions, as [`RunInfo::laws`] says laws
    /// ([`sweep::regressions_of`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regressions: Option<String>,
    /// The trial filter, as given (`FILTER`s, `--exact`, `--skip`,
    /// `--law`, `--call`, `--rerun-failed`), when the run had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// The problems a merge was told to accept (`--allow-incomplete`,
    /// `--allow-mixed`), one sentence each: every report of merged
    /// results says them, and merging them again keeps them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
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

fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Seconds since the Unix epoch as `YYYY-MM-DD HH:MM UTC` (the civil
/// calendar from a day count, as in Howard Hinnant's `civil_from_days`).
///
/// ```
/// assert_eq!(lawsuite::report::utc(1796161431), "2026-12-01 21:43 UTC");
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

/// Outcomes a report walks, once or more: a run's, held in memory, or
/// merged results files', read again for each walk
/// ([`results::Merge::walk`]), so no report needs them all at once.
pub trait Walk {
    /// Call `each` with every outcome, in order; its first error ends
    /// the walk.
    fn walk(&self, each: &mut dyn FnMut(&Outcome) -> io::Result<()>) -> io::Result<()>;
}

impl Walk for &[Outcome] {
    fn walk(&self, each: &mut dyn FnMut(&Outcome) -> io::Result<()>) -> io::Result<()> {
        self.iter().try_for_each(each)
    }
}

impl Walk for Vec<Outcome> {
    fn walk(&self, each: &mut dyn FnMut(&Outcome) -> io::Result<()>) -> io::Result<()> {
        self.iter().try_for_each(each)
    }
}

/// The end-of-run text of `format`: for `human`, what was not streamed
/// (or, with `all_failures`, every failure too); for the document formats,
/// the whole document. `max_reports` caps the failures shown in full (0:
/// all).
pub fn render(
    format: Format,
    info: &RunInfo,
    outcomes: &[Outcome],
    summary: &Summary,
    closing: &Closing,
    max_reports: usize,
    all_failures: bool,
) -> String {
    let mut out = Vec::new();
    let _ = render_to(
        &mut out,
        format,
        info,
        &outcomes,
        summary,
        closing,
        max_reports,
        all_failures,
    );
    String::from_utf8(out).unwrap_or_default()
}

/// [`render`] written to `out` as `outcomes` are walked: what `merge` and
/// `report` write of results they never hold whole.
#[allow(clippy::too_many_arguments)]
pub fn render_to(
    out: &mut dyn Write,
    format: Format,
    info: &RunInfo,
    outcomes: &dyn Walk,
    summary: &Summary,
    closing: &Closing,
    max_reports: usize,
    all_failures: bool,
) -> io::Result<()> {
    match format {
        Format::Human => {
            let mut shown = Shown::new(max_reports);
            let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
            let mut documented: BTreeMap<String, usize> = BTreeMap::new();
            outcomes.walk(&mut |o| {
                if all_failures && let Some(text) = shown.outcome(o, false) {
                    writeln!(out, "{text}")?;
                }
                if let Verdict::Skipped { why } = &o.verdict {
                    *skipped.entry(why.clone()).or_default() += 1;
                }
                for (why, n) in &o.documented {
                    *documented
                        .entry(format!("{}: {why}", o.peer.as_deref().unwrap_or("?")))
                        .or_default() += n;
                }
                Ok(())
            })?;
            if all_failures && shown.not_shown() > 0 {
                writeln!(
                    out,
                    "{}",
                    crate::conformance::sentence::not_shown(
                        shown.not_shown(),
                        crate::conformance::sentence::FrontDoor::Report
                    )
                )?;
            }
            let mut skipped: Vec<(String, usize)> = skipped.into_iter().collect();
            skipped.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            for (why, n) in skipped {
                writeln!(out, "skipped {n}: {why}")?;
            }
            for (why, n) in documented {
                writeln!(out, "documented difference {why}: {n} calls")?;
            }
            out.write_all(human_summary(info, summary).as_bytes())
        }
        Format::Jsonl => {
            if all_failures {
                writeln!(out, "{}", jsonl_line("run", info))?;
                outcomes.walk(&mut |o| json::write_jsonl_line(out, "outcome", o))?;
            }
            writeln!(out, "{}", summary_line(summary, closing))
        }
        Format::Json => {
            json_to(out, info, outcomes, summary)?;
            out.write_all(b"\n")
        }
        Format::Junit => junit::junit_to(out, info, outcomes, summary),
        Format::Markdown => markdown::markdown_to(out, info, outcomes, summary, max_reports),
        Format::Html => html::html_to(out, info, outcomes, summary),
    }
}
