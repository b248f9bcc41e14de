//! A run's results as data: read back from `--format jsonl`, merged across
//! shards (`lawsuite run --shard K/N` on N machines, then `lawsuite
//! merge`), and rendered in any format, HTML included.
//!
//! Results files are read as streams: `merge`, `report`, `diff` and
//! `history` check a file line by line (a line past [`LINE_BUFFER`] is
//! parsed as it is read), keep of each trial only its key and place (24
//! bytes a trial), and read a file again for what a report shows, one
//! outcome at a time ([`Merge`], [`Side`]). A results file of six million trials, which took 5 to 7 GB
//! read whole, takes a few hundred megabytes; a line of any length is read
//! without being held.
//!
//! Which items a shard holds is the engine's business
//! ([`crate::conformance::shard`]); [`Merge`] checks that merged shards
//! are all there, once, and of one sweep ([`crate::report::sweep`]).

pub(crate) mod check;
pub(crate) mod index;
pub(crate) mod line;
mod merge;
pub(crate) mod side;

use std::collections::HashMap;
use std::fmt;
use std::io::{self, BufRead, Read};
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use check::LISTED_PROBLEMS;
pub use index::MAX_FILES;
pub use line::{KEPT_STRING, LINE_BUFFER};
pub use merge::Merge;
pub use side::Side;

use super::{RunInfo, jsonl_line};
use crate::conformance::{Outcome, Summary, TrialId};
use check::{Check, Problems, Step};
use line::Lines;

/// The results of one run, held whole: a run's own, or one file read
/// back with [`Results::read_jsonl`]. Commands that read results files
/// stream them instead ([`Merge`], [`crate::report::diff`],
/// [`crate::report::history`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Results {
    /// Who and what ran.
    pub info: RunInfo,
    /// Every outcome, each trial once.
    pub outcomes: Vec<Outcome>,
    /// Peers the harness stopped restarting: (peer, trial, why).
    pub stopped: Vec<(String, String, String)>,
    /// Seconds the run took.
    pub seconds: f64,
    /// Where they came from (file names), for messages.
    pub sources: Vec<String>,
    /// The problems [`Accept`] let through: empty for results that are
    /// whole.
    pub warnings: Vec<ResultsError>,
}

/// A results file that cannot be read or merged as it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultsError {
    /// What kind of problem.
    pub kind: ResultsErrorKind,
    /// The file.
    pub source: String,
    /// Its line, when the problem is one.
    pub line: Option<usize>,
    /// What is wrong and what to do.
    pub message: String,
}

/// What is wrong with a results file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultsErrorKind {
    /// Not the output of `lawsuite run --format jsonl`: a line that is not
    /// JSON or not a known line, no run line, two runs in one file, a
    /// file that changed while it was read.
    Unreadable,
    /// Nothing to merge, or inputs that do not compare the same thing
    /// (another reference).
    Mismatch,
    /// The run did not finish: killed (no summary line), interrupted or
    /// stopped at the first failure, outcome lines missing, or a shard of
    /// the sweep missing.
    Incomplete,
    /// The last line is cut off mid-write.
    Cut,
    /// One trial twice, with the same verdict: it would count twice; or
    /// one shard twice.
    Duplicate,
    /// One trial twice, with different verdicts.
    Conflict,
    /// Written by another version of lawsuite than the other inputs.
    Version,
    /// Of another sweep than the other inputs: other seeds, generators or
    /// generator versions, ground, law set, regressions, filter, or shard
    /// count ([`crate::report::sweep`]).
    Mixed,
}

impl ResultsErrorKind {
    /// Whether some [`Accept`] lets it through (with a warning): every
    /// kind but an unreadable file and a mismatch, which leave nothing
    /// meaningful to report.
    pub fn acceptable(self) -> bool {
        !matches!(
            self,
            ResultsErrorKind::Unreadable | ResultsErrorKind::Mismatch
        )
    }

    /// The flag that lets it through: `--allow-mixed` for results of
    /// another sweep, `--allow-incomplete` for the others that can be.
    pub fn flag(self) -> Option<&'static str> {
        match self {
            ResultsErrorKind::Unreadable | ResultsErrorKind::Mismatch => None,
            ResultsErrorKind::Mixed => Some("--allow-mixed"),
            _ => Some("--allow-incomplete"),
        }
    }
}

impl fmt::Display for ResultsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{} line {line}: {}", self.source, self.message),
            None => write!(f, "{}: {}", self.source, self.message),
        }
    }
}

impl std::error::Error for ResultsError {}

/// What a read or a merge accepts: by default only whole results of one
/// sweep; any problem is an error. A report that silently lost a shard's
/// tail, counted a trial twice or mixed two sweeps is worse than none.
///
/// Two switches, because they are two mistakes: results that are not
/// whole (a killed shard, a cut line, a trial twice) are one sweep with
/// holes, and `--allow-incomplete` reports what is there; results of
/// another sweep (`--seeds 0..6` beside `--seeds 0..12`, another
/// generator or law set) are not one sweep at all, and only
/// `--allow-mixed` merges them. Another lawsuite version is let through
/// by either (it is both).
///
/// ```
/// use lawsuite::report::results::{Accept, ResultsErrorKind};
/// let accept = Accept::WHOLE.incomplete(true);
/// assert!(accept.lets(ResultsErrorKind::Cut));
/// assert!(!accept.lets(ResultsErrorKind::Mixed));
/// assert!(Accept::WHOLE.mixed(true).lets(ResultsErrorKind::Mixed));
/// assert!(!Accept::WHOLE.incomplete(true).mixed(true).lets(ResultsErrorKind::Mismatch));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Accept {
    incomplete: bool,
    mixed: bool,
}

impl Accept {
    /// Only whole results of one sweep.
    pub const WHOLE: Accept = Accept {
        incomplete: false,
        mixed: false,
    };

    /// Also incomplete, cut, duplicate and conflicting results
    /// (`--allow-incomplete`): each problem is a warning, a cut last line
    /// is dropped, a duplicate counts once, and of two verdicts of one
    /// trial the one that fails the run counts, so accepting never hides
    /// a failure.
    pub fn incomplete(mut self, yes: bool) -> Accept {
        self.incomplete = yes;
        self
    }

    /// Also results of several sweeps (`--allow-mixed`), each difference
    /// a warning carried into the merged report.
    pub fn mixed(mut self, yes: bool) -> Accept {
        self.mixed = yes;
        self
    }

    /// Whether a problem of `kind` is let through.
    pub fn lets(self, kind: ResultsErrorKind) -> bool {
        match kind {
            ResultsErrorKind::Unreadable | ResultsErrorKind::Mismatch => false,
            ResultsErrorKind::Mixed => self.mixed,
            ResultsErrorKind::Version => self.mixed || self.incomplete,
            _ => self.incomplete,
        }
    }
}

/// How a run ended, written into its summary line so that a reader can
/// tell a finished run from a stopped one (a killed run has no summary
/// line at all).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Closing {
    /// Every trial the run selected has its outcome in the file.
    pub complete: bool,
    /// Why not, when not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<String>,
}

impl Closing {
    /// A run that ran every trial it selected.
    pub fn complete() -> Closing {
        Closing {
            complete: true,
            incomplete: None,
        }
    }

    /// A run that stopped early, and why.
    pub fn incomplete(why: impl Into<String>) -> Closing {
        Closing {
            complete: false,
            incomplete: Some(why.into()),
        }
    }
}

/// The last line of `--format jsonl`: the summary's counts and how the run
/// ended ([`Closing`]).
pub fn summary_line(summary: &Summary, closing: &Closing) -> String {
    #[derive(Serialize)]
    struct Line<'a> {
        #[serde(flatten)]
        summary: &'a Summary,
        #[serde(flatten)]
        closing: &'a Closing,
    }
    jsonl_line("summary", &Line { summary, closing })
}

/// Where a results file's bytes come from, each time a command reads it:
/// a file (read again, up to the bytes first checked, for each walk of a
/// report), or bytes in memory.
///
/// ```
/// use lawsuite::report::results::Source;
/// let source = Source::bytes("a.jsonl", "{\"type\":\"run\"}\n");
/// assert_eq!(source.name(), "a.jsonl");
/// ```
#[derive(Clone, Debug)]
pub enum Source {
    /// A file, which must be a regular file
    /// ([`crate::regular_file`]: a FIFO is refused, never opened).
    File(PathBuf),
    /// Bytes, named for messages.
    Bytes {
        /// The name messages give it.
        name: String,
        /// The results.
        bytes: Arc<[u8]>,
    },
}

impl Source {
    /// The file at `path`.
    pub fn file(path: impl Into<PathBuf>) -> Source {
        Source::File(path.into())
    }

    /// `bytes`, named `name`.
    pub fn bytes(name: impl Into<String>, bytes: impl AsRef<[u8]>) -> Source {
        Source::Bytes {
            name: name.into(),
            bytes: Arc::from(bytes.as_ref()),
        }
    }

    /// Its name, for messages.
    pub fn name(&self) -> String {
        match self {
            Source::File(path) => path.display().to_string(),
            Source::Bytes { name, .. } => name.clone(),
        }
    }

    /// Its bytes from the start, the first `len` of them when given.
    pub(crate) fn open(&self, len: Option<u64>) -> io::Result<Box<dyn BufRead + Send + '_>> {
        let len = len.unwrap_or(u64::MAX);
        Ok(match self {
            Source::File(path) => {
                let file = crate::regular_file::open(path)?;
                Box::new(io::BufReader::with_capacity(1 << 16, file.take(len)))
            }
            Source::Bytes { bytes, .. } => Box::new(io::BufReader::new(bytes.as_ref().take(len))),
        })
    }

    /// Its bytes from the start, or the error naming it.
    pub(crate) fn read(
        &self,
        len: Option<u64>,
    ) -> Result<Box<dyn BufRead + Send + '_>, ResultsError> {
        self.open(len).map_err(|e| ResultsError {
            kind: ResultsErrorKind::Unreadable,
            source: self.name(),
            line: None,
            message: format!("cannot be read: {e}"),
        })
    }
}

impl Results {
    /// The whole results of one run from `source` (a file name, for
    /// messages): its outcomes, as a run that finished wrote them.
    pub fn new(info: RunInfo, outcomes: Vec<Outcome>, source: &str) -> Results {
        Results {
            info,
            outcomes,
            sources: vec![source.to_string()],
            ..Results::default()
        }
    }

    /// Read a `--format jsonl` file, which must be whole (see [`Accept`]):
    /// one run line, each trial's outcome once, and the summary line last,
    /// saying the run finished. A cut last line (a run killed mid-write)
    /// is reported at its line; every other line must be valid.
    pub fn read_jsonl(text: &str, source: &str, accept: Accept) -> Result<Results, ResultsError> {
        Results::read_jsonl_from(text.as_bytes(), source, accept)
    }

    /// [`Results::read_jsonl`] from a reader, a line at a time: the
    /// outcomes are held, never the file's text. Commands that read
    /// results files do not hold their outcomes ([`Merge`]).
    pub fn read_jsonl_from(
        input: impl BufRead,
        source: &str,
        accept: Accept,
    ) -> Result<Results, ResultsError> {
        let mut out = Results {
            sources: vec![source.to_string()],
            ..Results::default()
        };
        let mut problems = Problems::default();
        let mut check = Check::new(source, 0);
        let mut lines = Lines::new(input);
        // id → (line, index in `out.outcomes`)
        let mut seen: HashMap<TrialId, (u64, usize)> = HashMap::new();
        let mut twice = Vec::new();
        while let Some(got) = lines.next::<Outcome>() {
            match check.line(got, &mut problems)? {
                Step::Run(info) => out.info = *info,
                Step::Outcome(n, o) => match seen.get(&o.id) {
                    None => {
                        seen.insert(o.id.clone(), (n, out.outcomes.len()));
                        out.outcomes.push(o);
                    }
                    Some(&(first, i)) => {
                        let at = index::Loc::new(0, n, tag(&o), source)?;
                        let was = index::Loc::new(0, first, tag(&out.outcomes[i]), source)?;
                        problems.twice(at, was);
                        // Of two verdicts, the one that fails the run.
                        let id = o.id.to_string();
                        if o.verdict.is_failure() && !out.outcomes[i].verdict.is_failure() {
                            seen.insert(o.id.clone(), (n, i));
                            out.outcomes[i] = o;
                        }
                        twice.push((n, id));
                    }
                },
                Step::Other => {}
                Step::End => break,
            }
        }
        check.finish(&mut problems)?;
        out.stopped = std::mem::take(&mut check.stopped);
        out.seconds = check.seconds;
        let names = [source.to_string()];
        let (warnings, _) = problems.settle(accept, |pairs| {
            Ok(pairs
                .iter()
                .map(|(at, first)| {
                    let id = twice
                        .iter()
                        .find(|(n, _)| *n == at.line())
                        .map_or("?", |(_, id)| id.as_str());
                    merge::twice(&names, *at, *first, &line::kept(id))
                })
                .collect())
        })?;
        out.warnings = warnings;
        Ok(out)
    }

    /// The counts.
    pub fn summary(&self) -> Summary {
        // The seconds were checked when read; a sum of them can still
        // pass what a `Duration` holds, and is then said as the most it
        // holds rather than a panic.
        let seconds = std::time::Duration::try_from_secs_f64(self.seconds.max(0.0))
            .unwrap_or(std::time::Duration::MAX);
        Summary::of(&self.outcomes, seconds, self.stopped.clone())
    }

    /// How these results end when written again: complete unless a
    /// problem was accepted, so a later merge sees it.
    pub fn closing(&self) -> Closing {
        closing_of(&self.warnings, self.warnings.len())
    }
}

/// Complete, or incomplete naming the first of `count` accepted problems.
pub(crate) fn closing_of(warnings: &[ResultsError], count: usize) -> Closing {
    match warnings.first() {
        None => Closing::complete(),
        Some(first) => Closing::incomplete(format!(
            "merged despite {count} problem(s), the first: {first}"
        )),
    }
}

/// The tag of an outcome's verdict.
fn tag(o: &Outcome) -> line::Tag {
    line::Tag::ALL
        .into_iter()
        .find(|t| t.name() == o.verdict.tag())
        .unwrap_or(line::Tag::Broken)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{Kind, Verdict};
    use crate::report::Walk;
    use std::collections::BTreeMap;

    fn outcome(id: &str, verdict: Verdict) -> String {
        let o = Outcome {
            id: id.parse().expect("a trial id"),
            item: id.rsplit_once("::").map_or(id, |p| p.0).into(),
            kind: Kind::Law,
            peer: Some("p".into()),
            spec: Some("search-contract §8".into()),
            verdict,
            documented: BTreeMap::new(),
            compared: 0,
            seconds: 0.1,
        };
        jsonl_line("outcome", &o)
    }

    fn run_line_of(version: &str, shard: Option<&str>) -> String {
        let info = RunInfo {
            lawsuite: version.into(),
            reference: "portable".into(),
            shard: shard.map(String::from),
            ..RunInfo::default()
        };
        jsonl_line("run", &info)
    }

    fn run_line() -> String {
        run_line_of("0.1.0", None)
    }

    /// A whole file: the run line, `outcomes`, and a summary that counts
    /// them and says the run finished.
    fn whole(head: &str, outcomes: &[String]) -> String {
        let parsed: Vec<Outcome> = outcomes
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let summary = Summary::of(&parsed, std::time::Duration::ZERO, Vec::new());
        let mut text = format!("{head}\n");
        for o in outcomes {
            text.push_str(o);
            text.push('\n');
        }
        text + &summary_line(&summary, &Closing::complete()) + "\n"
    }

    fn read(text: &str, source: &str) -> Result<Results, ResultsError> {
        Results::read_jsonl(text, source, Accept::WHOLE)
    }

    /// `files` (name, text) merged as `merge` merges them.
    fn merge(files: &[(&str, &str)], accept: Accept) -> Result<Merge, ResultsError> {
        Merge::check(
            files
                .iter()
                .map(|(name, text)| Source::bytes(*name, text))
                .collect(),
            accept,
        )
    }

    /// The outcomes a merge counts, in order.
    fn outcomes(merged: &Merge) -> Vec<Outcome> {
        let mut out = Vec::new();
        merged
            .walk(true)
            .walk(&mut |o| {
                out.push(o.clone());
                Ok(())
            })
            .unwrap();
        out
    }

    #[test]
    fn shards_merge_into_one_run_and_conflicts_are_refused() {
        let a = whole(&run_line(), &[outcome("law::a::x::p", Verdict::Pass)]);
        let b = whole(
            &run_line(),
            &[outcome(
                "law::b::y::p",
                Verdict::Skipped { why: "w".into() },
            )],
        );
        let merged = merge(&[("a.jsonl", &a), ("b.jsonl", &b)], Accept::WHOLE).unwrap();
        assert_eq!(merged.outcomes(), 2);
        assert_eq!(outcomes(&merged).len(), 2);
        assert_eq!(merged.summary().unwrap().total().skipped, 1);
        assert_eq!(merged.closing(), Closing::complete());
        let c = whole(
            &run_line(),
            &[outcome("law::a::x::p", Verdict::Broken { why: "b".into() })],
        );
        let parts = [("a.jsonl", a.as_str()), ("c.jsonl", c.as_str())];
        let err = merge(&parts, Accept::WHOLE).unwrap_err();
        assert_eq!(err.kind, ResultsErrorKind::Conflict);
        assert!(
            err.to_string().contains(
                "c.jsonl line 2: trial law::a::x::p is broken here but pass in a.jsonl line 2"
            ),
            "{err}"
        );
        // Accepted knowingly, the failing verdict counts, and the merged
        // results say they are not whole.
        let merged = merge(&parts, Accept::WHOLE.incomplete(true)).unwrap();
        assert_eq!(merged.outcomes(), 1);
        assert_eq!(outcomes(&merged)[0].verdict.tag(), "broken");
        assert_eq!(merged.summary().unwrap().total().broken, 1);
        assert_eq!(merged.warnings().len(), 1);
        assert!(!merged.closing().complete);
        assert_eq!(merged.info().warnings.len(), 1, "carried into every report");
        // The same trial in two files, even with one verdict, is a shard
        // merged twice.
        let err = merge(&[("a.jsonl", &a), ("a2.jsonl", &a)], Accept::WHOLE).unwrap_err();
        assert_eq!(err.kind, ResultsErrorKind::Duplicate, "{err}");
        assert!(
            err.to_string()
                .contains("a2.jsonl line 2: trial law::a::x::p is also in a.jsonl line 2"),
            "{err}"
        );
    }

    /// Merged shards take the sum of their run seconds: what the sweep
    /// cost, as one machine running every shard would take. It used to be
    /// the longest shard's, 2.25 here.
    #[test]
    fn merged_seconds_are_the_sum_of_the_shards() {
        let timed = |shard: &str, id: &str, seconds: f64| {
            let o = outcome(id, Verdict::Pass);
            let parsed: Outcome = serde_json::from_str(&o).unwrap();
            let summary = Summary::of(
                &[parsed],
                std::time::Duration::from_secs_f64(seconds),
                Vec::new(),
            );
            format!(
                "{}\n{o}\n{}\n",
                run_line_of("0.1.0", Some(shard)),
                summary_line(&summary, &Closing::complete())
            )
        };
        let one = timed("1/2", "law::a::x::p", 1.5);
        let two = timed("2/2", "law::b::y::p", 2.25);
        let merged = merge(&[("1/2", &one), ("2/2", &two)], Accept::WHOLE).unwrap();
        assert_eq!(merged.summary().unwrap().seconds, 3.75);
    }

    /// `merge` and `report` count seed divergences by kind from the
    /// results, as the run did from its outcomes: the merged summary's
    /// `divergent_kinds` is the run's (a case without a kind, from an
    /// older lawsuite, counted as not classified).
    #[test]
    fn merged_results_count_seed_divergences_by_kind() {
        use crate::conformance::{Case, Report};
        let case = |kind: Option<&str>| Case {
            title: "lawsuite seed 1, call 2 (glob)".into(),
            kind: kind.map(String::from),
            ..Case::default()
        };
        let seed = Outcome {
            id: "seed::lawsuite::0001::p".parse().expect("a trial id"),
            item: "seed::lawsuite::0001".into(),
            kind: Kind::Seed,
            peer: Some("p".into()),
            spec: None,
            verdict: Verdict::Fail {
                report: Report {
                    summary: "3 of 9 calls diverge".into(),
                    cases: vec![
                        case(Some("/paths: items lost")),
                        case(Some("/paths: items lost")),
                        case(None),
                    ],
                    health: None,
                },
            },
            documented: BTreeMap::new(),
            compared: 9,
            seconds: 0.1,
        };
        let text = whole(&run_line(), &[jsonl_line("outcome", &seed)]);
        let merged = merge(&[("a.jsonl", &text)], Accept::WHOLE).unwrap();
        let summary = merged.summary().unwrap();
        let run = Summary::of(&[seed], std::time::Duration::ZERO, Vec::new());
        assert_eq!(summary.divergent_kinds, run.divergent_kinds);
        assert_eq!(
            summary.kinds_of("p"),
            [
                ("/paths: items lost", 2),
                (crate::conformance::verdict::UNCLASSIFIED, 1)
            ]
        );
        assert_eq!(summary.divergent_calls, 3);
    }

    #[test]
    fn a_killed_run_is_refused_or_kept_knowingly() {
        let text = format!(
            "{}\n{}\n{{\"type\":\"outc",
            run_line(),
            outcome("law::a::x::p", Verdict::Pass)
        );
        let err = read(&text, "killed.jsonl").unwrap_err();
        assert_eq!(err.kind, ResultsErrorKind::Cut);
        assert!(
            err.to_string()
                .starts_with("killed.jsonl line 3: the last line is cut"),
            "{err}"
        );
        let r = Results::read_jsonl(&text, "killed.jsonl", Accept::WHOLE.incomplete(true)).unwrap();
        assert_eq!(r.outcomes.len(), 1);
        let kinds: Vec<_> = r.warnings.iter().map(|w| w.kind).collect();
        assert_eq!(kinds, [ResultsErrorKind::Cut, ResultsErrorKind::Incomplete]);
        // Killed between two lines: no summary line.
        let text = format!(
            "{}\n{}\n",
            run_line(),
            outcome("law::a::x::p", Verdict::Pass)
        );
        let err = read(&text, "killed.jsonl").unwrap_err();
        assert_eq!(err.kind, ResultsErrorKind::Incomplete);
        assert!(
            err.to_string().contains("no summary line after line 2"),
            "{err}"
        );
        assert!(read("{\"type\":\"outcome\"}\n", "x").is_err());
        let err = read("nonsense\n", "x").unwrap_err();
        assert!(err.to_string().contains("line 1"), "{err}");
        assert!(!err.kind.acceptable());
    }

    #[test]
    fn an_interrupted_run_says_so_and_lost_lines_are_seen() {
        let o = outcome("law::a::x::p", Verdict::Pass);
        let parsed: Outcome = serde_json::from_str(&o).unwrap();
        let summary = Summary::of(&[parsed], std::time::Duration::ZERO, Vec::new());
        let text = format!(
            "{}\n{o}\n{}\n",
            run_line(),
            summary_line(&summary, &Closing::incomplete("interrupted"))
        );
        let err = read(&text, "i.jsonl").unwrap_err();
        assert_eq!(err.kind, ResultsErrorKind::Incomplete);
        assert!(
            err.to_string()
                .contains("line 3: the run did not finish (interrupted)"),
            "{err}"
        );
        // The summary counts one trial; the file lost its outcome line.
        let text = format!(
            "{}\n{}\n",
            run_line(),
            summary_line(&summary, &Closing::complete())
        );
        let err = read(&text, "lost.jsonl").unwrap_err();
        assert!(
            err.to_string()
                .contains("counts 1 trials but the file holds 0"),
            "{err}"
        );
    }

    #[test]
    fn a_trial_twice_in_one_file_is_refused() {
        let pass = outcome("law::a::x::p", Verdict::Pass);
        let fail = outcome("law::a::x::p", Verdict::Broken { why: "b".into() });
        let err = read(
            &whole(&run_line(), &[pass.clone(), pass.clone()]),
            "d.jsonl",
        )
        .unwrap_err();
        assert_eq!(err.kind, ResultsErrorKind::Duplicate);
        assert!(
            err.to_string()
                .contains("d.jsonl line 3: trial law::a::x::p again (first at line 2"),
            "{err}"
        );
        let text = whole(&run_line(), &[pass.clone(), fail]);
        let err = read(&text, "c.jsonl").unwrap_err();
        assert_eq!(err.kind, ResultsErrorKind::Conflict);
        let r = Results::read_jsonl(&text, "c.jsonl", Accept::WHOLE.incomplete(true)).unwrap();
        assert_eq!(r.outcomes.len(), 1);
        assert!(r.outcomes[0].verdict.is_failure());
        let text = format!("{}\n{}\n", whole(&run_line(), &[]), run_line());
        assert!(
            read(&text, "two.jsonl")
                .unwrap_err()
                .to_string()
                .contains("after the summary line")
        );
    }

    #[test]
    fn versions_and_shards_must_make_one_sweep() {
        let file = |version: &str, shard: &str, id: &str| {
            whole(
                &run_line_of(version, Some(shard)),
                &[outcome(id, Verdict::Pass)],
            )
        };
        let one = file("0.1.0", "1/2", "law::a::x::p");
        let two = file("0.1.0", "2/2", "law::b::y::p");
        assert!(merge(&[("s1.jsonl", &one), ("s2.jsonl", &two)], Accept::WHOLE).is_ok());
        let err = merge(&[("s1.jsonl", &one)], Accept::WHOLE).unwrap_err();
        assert_eq!(err.kind, ResultsErrorKind::Incomplete);
        assert!(
            err.to_string()
                .contains("shard 2/2 of the sweep is missing"),
            "{err}"
        );
        let other = file("0.2.0", "2/2", "law::b::y::p");
        let parts = [("s1.jsonl", one.as_str()), ("s2.jsonl", other.as_str())];
        let err = merge(&parts, Accept::WHOLE).unwrap_err();
        assert_eq!(err.kind, ResultsErrorKind::Version);
        assert!(
            err.to_string().contains("written by lawsuite \"0.2.0\""),
            "{err}"
        );
        let merged = merge(&parts, Accept::WHOLE.incomplete(true)).unwrap();
        assert_eq!((merged.outcomes(), merged.warnings().len()), (2, 1));
        // A shard of three beside shards of two: two sweeps.
        let three = file("0.1.0", "3/3", "law::c::z::p");
        let err = merge(
            &[("s1.jsonl", &one), ("s2.jsonl", &two), ("s3.jsonl", &three)],
            Accept::WHOLE.incomplete(true),
        )
        .unwrap_err();
        assert_eq!(err.kind, ResultsErrorKind::Mixed, "{err}");
    }

    /// A run line naming its sweep, as `run` writes it.
    fn sweep_line(shard: &str, seeds: &str, laws: &str) -> String {
        let info = RunInfo {
            lawsuite: "0.1.0".into(),
            reference: "portable".into(),
            shard: Some(shard.into()),
            seed_sets: vec![format!("lawsuite v5 shared {seeds}")],
            laws: Some(laws.into()),
            regressions: Some("0 regressions, digest cbf29ce484222325".into()),
            ..RunInfo::default()
        };
        jsonl_line("run", &info)
    }

    /// Shards of two sweeps (other seeds, another law set) are refused,
    /// naming both files and the field; `--allow-mixed` merges them with
    /// the difference at the head of the merged report, and
    /// `--allow-incomplete` alone does not.
    #[test]
    fn shards_of_two_sweeps_are_refused_by_field() {
        let shard = |k: &str, seeds: &str, laws: &str, id: &str| {
            whole(&sweep_line(k, seeds, laws), &[outcome(id, Verdict::Pass)])
        };
        let one = shard("1/2", "0..6", "3 laws, digest 1", "seed::smthrs::0001::p");
        let two = shard("2/2", "0..6", "3 laws, digest 1", "seed::smthrs::0002::p");
        assert!(merge(&[("1.jsonl", &one), ("2.jsonl", &two)], Accept::WHOLE).is_ok());
        for (other, field) in [
            (
                shard("2/2", "0..12", "3 laws, digest 1", "seed::smthrs::0002::p"),
                "seeds",
            ),
            (
                shard("2/2", "0..6", "4 laws, digest 2", "seed::smthrs::0002::p"),
                "law set",
            ),
        ] {
            let parts = [("1.jsonl", one.as_str()), ("2.jsonl", other.as_str())];
            let err = merge(&parts, Accept::WHOLE.incomplete(true)).unwrap_err();
            assert_eq!(err.kind, ResultsErrorKind::Mixed, "{err}");
            let said = err.to_string();
            assert!(
                said.starts_with(&format!("2.jsonl: its {field} is "))
                    && said.contains("but 1.jsonl's is"),
                "{said}"
            );
            let merged = merge(&parts, Accept::WHOLE.mixed(true)).unwrap();
            assert_eq!(merged.outcomes(), 2);
            assert!(
                merged.info().warnings[0].contains(field),
                "{:?}",
                merged.info().warnings
            );
            assert!(!merged.closing().complete);
        }
        // A file written before results named their sweep, beside one
        // that does: of another sweep; two such files: compared on what
        // they say, with a note.
        let old = whole(
            &run_line_of("0.1.0", Some("2/2")),
            &[outcome("seed::smthrs::0002::p", Verdict::Pass)],
        );
        let err = merge(&[("1.jsonl", &one), ("old.jsonl", &old)], Accept::WHOLE).unwrap_err();
        assert_eq!(err.kind, ResultsErrorKind::Mixed, "{err}");
        assert!(err.to_string().contains("not named"), "{err}");
        let old_one = whole(
            &run_line_of("0.1.0", Some("1/2")),
            &[outcome("seed::smthrs::0001::p", Verdict::Pass)],
        );
        let merged = merge(&[("o1.jsonl", &old_one), ("o2.jsonl", &old)], Accept::WHOLE).unwrap();
        assert!(merged.notes()[0].contains("written before results named their sweep"));
    }

    /// Past `LISTED_PROBLEMS` accepted problems, the rest are counted,
    /// not listed: one file merged with itself is one duplicate a trial.
    #[test]
    fn accepted_problems_are_listed_up_to_the_bound_then_counted() {
        for (n, more) in [(LISTED_PROBLEMS, 0), (LISTED_PROBLEMS + 1, 1)] {
            let lines: Vec<String> = (0..n)
                .map(|i| outcome(&format!("law::a::{i}::p"), Verdict::Pass))
                .collect();
            let text = whole(&run_line(), &lines);
            let merged = merge(
                &[("a", &text), ("b", &text)],
                Accept::WHOLE.incomplete(true),
            )
            .unwrap();
            assert_eq!(merged.warnings().len(), LISTED_PROBLEMS);
            assert_eq!(merged.problems(), n);
            assert_eq!(merged.problems() - merged.warnings().len(), more);
            assert_eq!(merged.outcomes(), n);
        }
    }

    /// Only the last line may lack its line end; a line of any length is
    /// read; the order of the problems is the order a reader meets them.
    #[test]
    fn a_trial_twice_is_told_before_what_the_summary_counts() {
        let pass = outcome("law::a::x::p", Verdict::Pass);
        let mut text = whole(&run_line(), std::slice::from_ref(&pass));
        // One outcome line more than the summary counts, and it is the
        // same trial: the duplicate (line 3) is what a reader meets first.
        text = text.replacen(&format!("{pass}\n"), &format!("{pass}\n{pass}\n"), 1);
        let err = merge(&[("d.jsonl", &text)], Accept::WHOLE).unwrap_err();
        assert_eq!(err.kind, ResultsErrorKind::Duplicate, "{err}");
        assert!(
            err.to_string()
                .starts_with("d.jsonl line 3: trial law::a::x::p again (first at line 2"),
            "{err}"
        );
    }
}
