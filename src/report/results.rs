//! A run's results as data: read back from `--format jsonl`, merged across
//! shards (`lawsuite run --shard K/N` on N machines, then `lawsuite
//! merge`), and rendered in any format, HTML included.
//!
//! Which items a shard holds is the engine's business
//! ([`crate::conformance::shard`]); this module only checks that merged
//! shards are all there, once.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{RunInfo, jsonl_line};
use crate::conformance::shard::parse_shard;
use crate::conformance::{Outcome, Summary};

/// The results of one run, or of merged shards.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Results {
    /// Who and what ran.
    pub info: RunInfo,
    /// Every outcome, each trial once.
    pub outcomes: Vec<Outcome>,
    /// Peers the harness stopped restarting: (peer, trial, why).
    pub stopped: Vec<(String, String, String)>,
    /// Seconds the run took: one run's wall-clock seconds, or, merged, the
    /// sum of the shards' (what the sweep cost; the longest shard hid
    /// the others' time, and shards need not run side by side).
    pub seconds: f64,
    /// Where they came from (file names), for messages.
    pub sources: Vec<String>,
    /// The problems [`Accept::Incomplete`] let through: empty for results
    /// that are whole.
    pub warnings: Vec<ResultsError>,
    /// The line of each outcome in its file, by trial id (for messages).
    lines: BTreeMap<String, usize>,
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
    /// JSON or not a known line, no run line, two runs in one file.
    Unreadable,
    /// Nothing to merge, or inputs that do not compare the same thing
    /// (another reference).
    Mismatch,
    /// The run did not finish: killed (no summary line), interrupted or
    /// stopped at the first failure, outcome lines missing, or a shard of
    /// the sweep missing or from another sweep.
    Incomplete,
    /// The last line is cut off mid-write.
    Cut,
    /// One trial twice, with the same verdict: it would count twice.
    Duplicate,
    /// One trial twice, with different verdicts.
    Conflict,
    /// Written by another version of lawsuite than the other inputs.
    Version,
}

impl ResultsErrorKind {
    /// Whether [`Accept::Incomplete`] lets it through (with a warning):
    /// every kind but an unreadable file and a mismatch, which leave
    /// nothing meaningful to report.
    pub fn acceptable(self) -> bool {
        !matches!(
            self,
            ResultsErrorKind::Unreadable | ResultsErrorKind::Mismatch
        )
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

/// What [`Results::read_jsonl`] and [`Results::merge`] accept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Accept {
    /// Only whole, consistent results: any problem is an error. A report
    /// that silently lost a shard's tail, or counted a trial twice, is
    /// worse than none.
    #[default]
    Complete,
    /// Also incomplete, cut, duplicate, conflicting and mixed-version
    /// results (`--allow-incomplete`): each problem goes to
    /// [`Results::warnings`], a cut last line is dropped, a duplicate
    /// counts once, and of two verdicts of one trial the one that fails
    /// the run counts, so accepting never hides a failure.
    Incomplete,
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

/// Reads one file, keeping what it needs to check the file as a whole.
struct Reader<'a> {
    source: &'a str,
    accept: Accept,
    out: Results,
    run_at: Option<usize>,
    summary_at: Option<usize>,
    closing: Option<Closing>,
    summary_total: usize,
    outcome_lines: usize,
}

impl Reader<'_> {
    /// A problem: an error, or with [`Accept::Incomplete`] (and a kind it
    /// accepts) a warning.
    fn problem(
        &mut self,
        kind: ResultsErrorKind,
        line: Option<usize>,
        message: String,
    ) -> Result<(), ResultsError> {
        let err = ResultsError {
            kind,
            source: self.source.to_string(),
            line,
            message,
        };
        if self.accept == Accept::Incomplete && kind.acceptable() {
            self.out.warnings.push(err);
            Ok(())
        } else {
            Err(err)
        }
    }

    fn unreadable(&self, line: usize, message: String) -> ResultsError {
        ResultsError {
            kind: ResultsErrorKind::Unreadable,
            source: self.source.to_string(),
            line: Some(line),
            message,
        }
    }

    fn line(&mut self, n: usize, value: Value) -> Result<(), ResultsError> {
        if let Some(at) = self.summary_at {
            return Err(self.unreadable(
                n,
                format!(
                    "a line after the summary line (line {at}): two runs were written into one file (`>>`?); give each run its own file"
                ),
            ));
        }
        match value.get("type").and_then(Value::as_str) {
            Some("run") => {
                if let Some(at) = self.run_at {
                    return Err(self.unreadable(
                        n,
                        format!(
                            "a second run line (the first is line {at}); give each run its own file"
                        ),
                    ));
                }
                self.out.info = serde_json::from_value(value)
                    .map_err(|e| self.unreadable(n, format!("not a run line: {e}")))?;
                self.run_at = Some(n);
            }
            Some("outcome") => {
                let o: Outcome = serde_json::from_value(value)
                    .map_err(|e| self.unreadable(n, format!("not an outcome: {e}")))?;
                self.outcome_lines += 1;
                self.outcome(n, o)?;
            }
            Some("peerStopped") => {
                let field = |k: &str| {
                    value
                        .get(k)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string()
                };
                self.out
                    .stopped
                    .push((field("peer"), field("at"), field("why")));
            }
            Some("summary") => {
                let summary: Summary = serde_json::from_value(value.clone())
                    .map_err(|e| self.unreadable(n, format!("not a summary: {e}")))?;
                // Read back as a `Duration` (`Results::summary`), which holds
                // no negative time and none past `u64::MAX` seconds.
                if std::time::Duration::try_from_secs_f64(summary.seconds).is_err() {
                    return Err(self.unreadable(
                        n,
                        format!(
                            "the summary's seconds, {:e}, are not a time a run can take (0 to 18446744073709551615)",
                            summary.seconds
                        ),
                    ));
                }
                self.out.seconds = summary.seconds;
                self.summary_total = summary.total().total();
                // A summary without `complete` is from a lawsuite that did
                // not write it; its summary line is all it can say.
                self.closing = Some(match value.get("complete").and_then(Value::as_bool) {
                    Some(false) => Closing::incomplete(
                        value
                            .get("incomplete")
                            .and_then(Value::as_str)
                            .unwrap_or("it says it is incomplete"),
                    ),
                    _ => Closing::complete(),
                });
                self.summary_at = Some(n);
            }
            other => {
                return Err(self.unreadable(
                    n,
                    format!(
                        "unknown line type {other:?}; is this a `lawsuite run --format jsonl` file?"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// One outcome: a trial already seen is a duplicate or a conflict.
    fn outcome(&mut self, n: usize, o: Outcome) -> Result<(), ResultsError> {
        let Some(&first) = self.out.lines.get(&o.id) else {
            self.out.lines.insert(o.id.clone(), n);
            self.out.outcomes.push(o);
            return Ok(());
        };
        let Some(i) = self.out.outcomes.iter().position(|k| k.id == o.id) else {
            return Ok(());
        };
        let (was, is) = (self.out.outcomes[i].verdict.tag(), o.verdict.tag());
        if was == is {
            return self.problem(
                ResultsErrorKind::Duplicate,
                Some(n),
                format!(
                    "trial {} again (first at line {first}, {is} both times): it would be counted twice",
                    o.id
                ),
            );
        }
        self.problem(
            ResultsErrorKind::Conflict,
            Some(n),
            format!(
                "trial {} is {is} here but {was} at line {first}: one trial, two verdicts",
                o.id
            ),
        )?;
        if o.verdict.is_failure() && !self.out.outcomes[i].verdict.is_failure() {
            self.out.lines.insert(o.id.clone(), n);
            self.out.outcomes[i] = o;
        }
        Ok(())
    }

    /// After the last line: did the run finish, with every outcome there?
    fn finish(mut self, last: usize) -> Result<Results, ResultsError> {
        if self.run_at.is_none() {
            return Err(ResultsError {
                kind: ResultsErrorKind::Unreadable,
                source: self.source.to_string(),
                line: None,
                message: "no run line; give the output of `lawsuite run --format jsonl`".into(),
            });
        }
        let reached = match self.out.info.trials {
            Some(trials) => format!("{} of {trials} trials", self.outcome_lines),
            None => format!("{} trials", self.outcome_lines),
        };
        match (self.closing.clone(), self.summary_at) {
            (Some(Closing {
                    complete: false,
                    incomplete,
                }), at) => self.problem(
                ResultsErrorKind::Incomplete,
                at,
                format!(
                    "the run did not finish ({}): {reached} ran",
                    incomplete.unwrap_or_default()
                ),
            )?,
            (Some(_), at) if self.summary_total != self.outcome_lines => self.problem(
                ResultsErrorKind::Incomplete,
                at,
                format!(
                    "the summary counts {} trials but the file holds {} outcome lines: lines were lost or added",
                    self.summary_total, self.outcome_lines
                ),
            )?,
            (Some(_), _) => {}
            (None, _) => self.problem(
                ResultsErrorKind::Incomplete,
                None,
                format!(
                    "no summary line after line {last}: the run was killed or is still running ({reached} reached the file)"
                ),
            )?,
        }
        Ok(self.out)
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

    /// [`Results::read_jsonl`] from a reader, a line at a time: only the
    /// parsed outcomes are held, never the file's text (`report` and
    /// `merge` read results files this way).
    pub fn read_jsonl_from(
        mut input: impl std::io::BufRead,
        source: &str,
        accept: Accept,
    ) -> Result<Results, ResultsError> {
        let mut reader = Reader {
            source,
            accept,
            out: Results {
                sources: vec![source.to_string()],
                ..Results::default()
            },
            run_at: None,
            summary_at: None,
            closing: None,
            summary_total: 0,
            outcome_lines: 0,
        };
        let mut last = 0;
        let mut line = Vec::new();
        for n in 1.. {
            line.clear();
            let read = input
                .read_until(b'\n', &mut line)
                .map_err(|e| reader.unreadable(n, format!("cannot be read: {e}")))?;
            if read == 0 {
                break;
            }
            let whole = line.ends_with(b"\n");
            let text = String::from_utf8_lossy(&line);
            if text.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Value>(&text) {
                Ok(value) => reader.line(n, value)?,
                // Only the last line can lack its newline.
                Err(_) if !whole => {
                    reader.problem(
                        ResultsErrorKind::Cut,
                        Some(n),
                        format!(
                            "the last line is cut off ({} bytes, no newline): the run was killed while writing it",
                            text.trim_end_matches('\r').len()
                        ),
                    )?;
                    break;
                }
                Err(e) => return Err(reader.unreadable(n, format!("not a JSON line: {e}"))),
            }
            last = n;
        }
        reader.finish(last)
    }

    /// Merge shards (or runs) into one: every outcome once, ordered by
    /// trial id within kind. The inputs must be of one lawsuite version
    /// and one reference, every shard of a sweep once (when they are
    /// shards), and each trial in one input only; [`Accept::Incomplete`]
    /// turns all but the reference into warnings.
    pub fn merge(parts: Vec<Results>, accept: Accept) -> Result<Results, ResultsError> {
        let mut iter = parts.into_iter();
        let Some(mut merged) = iter.next() else {
            return Err(ResultsError {
                kind: ResultsErrorKind::Mismatch,
                source: "(no files)".into(),
                line: None,
                message: "give at least one results file".into(),
            });
        };
        let first_source = merged.sources.first().cloned().unwrap_or_default();
        let mut problems = Vec::new();
        let mut shards = vec![(first_source.clone(), merged.info.shard.clone())];
        // id → (file, line, index in `merged.outcomes`)
        let mut seen: BTreeMap<String, (String, usize, usize)> = merged
            .outcomes
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let line = merged.lines.get(&o.id).copied().unwrap_or(0);
                (o.id.clone(), (first_source.clone(), line, i))
            })
            .collect();
        for part in iter {
            let source = part.sources.first().cloned().unwrap_or_default();
            let problem = |kind, line, message| ResultsError {
                kind,
                source: source.clone(),
                line,
                message,
            };
            if part.info.reference != merged.info.reference {
                return Err(problem(
                    ResultsErrorKind::Mismatch,
                    None,
                    format!(
                        "its reference is {:?}, not {:?}: these runs do not compare the same thing",
                        part.info.reference, merged.info.reference
                    ),
                ));
            }
            if part.info.lawsuite != merged.info.lawsuite {
                problems.push(problem(
                    ResultsErrorKind::Version,
                    None,
                    format!(
                        "written by lawsuite {:?}, but {first_source} by lawsuite {:?}: the laws, seeds and verdicts of two versions differ; run every shard with one version",
                        part.info.lawsuite, merged.info.lawsuite
                    ),
                ));
            }
            shards.push((source.clone(), part.info.shard.clone()));
            merged.info.trials = merged.info.trials.zip(part.info.trials).map(|(a, b)| a + b);
            merged.warnings.extend(part.warnings);
            for peer in part.info.peers {
                if !merged.info.peers.iter().any(|p| p.name == peer.name) {
                    merged.info.peers.push(peer);
                }
            }
            for o in part.outcomes {
                let line = part.lines.get(&o.id).copied();
                let Some((first, first_line, i)) = seen.get(&o.id).cloned() else {
                    seen.insert(
                        o.id.clone(),
                        (source.clone(), line.unwrap_or(0), merged.outcomes.len()),
                    );
                    merged.outcomes.push(o);
                    continue;
                };
                let (was, is) = (merged.outcomes[i].verdict.tag(), o.verdict.tag());
                if was == is {
                    problems.push(problem(
                        ResultsErrorKind::Duplicate,
                        line,
                        format!(
                            "trial {} is also in {first} line {first_line} ({is} both times): it would be counted twice; merge each shard once",
                            o.id
                        ),
                    ));
                    continue;
                }
                problems.push(problem(
                    ResultsErrorKind::Conflict,
                    line,
                    format!(
                        "trial {} is {is} here but {was} in {first} line {first_line}: one trial, two verdicts; merge the shards of one run",
                        o.id
                    ),
                ));
                if o.verdict.is_failure() && !merged.outcomes[i].verdict.is_failure() {
                    merged.outcomes[i] = o;
                }
            }
            for s in part.stopped {
                if !merged.stopped.contains(&s) {
                    merged.stopped.push(s);
                }
            }
            merged.seconds += part.seconds;
            merged.started_min(part.info.started);
            merged.sources.push(source);
        }
        // A shard given twice or left out says more than the trials it
        // duplicates or lacks: first.
        let problems: Vec<ResultsError> = shard_problems(&shards)
            .into_iter()
            .chain(problems)
            .collect();
        // The merge is the sweep, not one of its shards.
        merged.info.shard = None;
        for p in problems {
            if accept == Accept::Incomplete && p.kind.acceptable() {
                merged.warnings.push(p);
            } else {
                return Err(p);
            }
        }
        merged.lines.clear();
        merged
            .outcomes
            .sort_by(|a, b| (a.kind, &a.id).cmp(&(b.kind, &b.id)));
        Ok(merged)
    }

    fn started_min(&mut self, started: u64) {
        if started > 0 && (self.info.started == 0 || started < self.info.started) {
            self.info.started = started;
        }
    }

    /// The counts.
    pub fn summary(&self) -> Summary {
        // Each file's seconds were checked when read; their sum can still
        // pass what a `Duration` holds, and is then said as the most it
        // holds rather than a panic.
        let seconds = std::time::Duration::try_from_secs_f64(self.seconds.max(0.0))
            .unwrap_or(std::time::Duration::MAX);
        Summary::of(&self.outcomes, seconds, self.stopped.clone())
    }

    /// How these results end when written again (`merge --format jsonl`):
    /// complete unless a problem was accepted, so a later merge sees it.
    pub fn closing(&self) -> Closing {
        match self.warnings.first() {
            None => Closing::complete(),
            Some(first) => Closing::incomplete(format!(
                "merged despite {} problem(s), the first: {first}",
                self.warnings.len()
            )),
        }
    }
}

/// When every input is a shard (`run --shard K/N`): one N, and each K of
/// 1..=N exactly once, so no shard's results are lost or counted twice.
fn shard_problems(shards: &[(String, Option<String>)]) -> Vec<ResultsError> {
    let mut problems = Vec::new();
    let parsed: Option<Vec<(&String, (u64, u64))>> = shards
        .iter()
        .map(|(source, shard)| Some((source, parse_shard(shard.as_deref()?).ok()?)))
        .collect();
    let Some(parsed) = parsed else {
        return problems;
    };
    let Some(&(first, (_, n))) = parsed.first() else {
        return problems;
    };
    let mut have: BTreeMap<u64, &String> = BTreeMap::new();
    for &(source, (k, m)) in &parsed {
        let problem = |kind, message| ResultsError {
            kind,
            source: source.clone(),
            line: None,
            message,
        };
        if m != n {
            problems.push(problem(
                ResultsErrorKind::Incomplete,
                format!("shard {k}/{m}, but {first} is a shard of {n}: shards of two sweeps"),
            ));
        } else if let Some(other) = have.insert(k, source) {
            problems.push(problem(
                ResultsErrorKind::Duplicate,
                format!("shard {k}/{n} again (also {other}): merge each shard once"),
            ));
        }
    }
    let missing: Vec<String> = (1..=n)
        .filter(|k| !have.contains_key(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        let given: Vec<&str> = shards.iter().map(|(s, _)| s.as_str()).collect();
        problems.push(ResultsError {
            kind: ResultsErrorKind::Incomplete,
            source: given.join(", "),
            line: None,
            message: format!(
                "shard {} of the sweep is missing: merge all {n} shards",
                missing.join(", ")
            ),
        });
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{Kind, Verdict};

    fn outcome(id: &str, verdict: Verdict) -> String {
        let o = Outcome {
            id: id.into(),
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
        Results::read_jsonl(text, source, Accept::Complete)
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
        let merged = Results::merge(
            vec![read(&a, "a.jsonl").unwrap(), read(&b, "b.jsonl").unwrap()],
            Accept::Complete,
        )
        .unwrap();
        assert_eq!(merged.outcomes.len(), 2);
        assert_eq!(merged.summary().total().skipped, 1);
        assert_eq!(merged.closing(), Closing::complete());
        let c = whole(
            &run_line(),
            &[outcome("law::a::x::p", Verdict::Broken { why: "b".into() })],
        );
        let parts = || vec![read(&a, "a.jsonl").unwrap(), read(&c, "c.jsonl").unwrap()];
        let err = Results::merge(parts(), Accept::Complete).unwrap_err();
        assert_eq!(err.kind, ResultsErrorKind::Conflict);
        assert!(
            err.to_string().contains(
                "c.jsonl line 2: trial law::a::x::p is broken here but pass in a.jsonl line 2"
            ),
            "{err}"
        );
        // Accepted knowingly, the failing verdict counts, and the merged
        // results say they are not whole.
        let merged = Results::merge(parts(), Accept::Incomplete).unwrap();
        assert_eq!(merged.outcomes.len(), 1);
        assert_eq!(merged.summary().total().broken, 1);
        assert_eq!(merged.warnings.len(), 1);
        assert!(!merged.closing().complete);
        // The same trial in two files, even with one verdict, is a shard
        // merged twice.
        let err = Results::merge(
            vec![read(&a, "a.jsonl").unwrap(), read(&a, "a2.jsonl").unwrap()],
            Accept::Complete,
        )
        .unwrap_err();
        assert_eq!(err.kind, ResultsErrorKind::Duplicate, "{err}");
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
            let text = format!(
                "{}\n{o}\n{}\n",
                run_line_of("0.1.0", Some(shard)),
                summary_line(&summary, &Closing::complete())
            );
            read(&text, shard).unwrap()
        };
        let parts = vec![
            timed("1/2", "law::a::x::p", 1.5),
            timed("2/2", "law::b::y::p", 2.25),
        ];
        let merged = Results::merge(parts, Accept::Complete).unwrap();
        assert_eq!(merged.seconds, 3.75);
        assert_eq!(merged.summary().seconds, 3.75);
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
        let r = Results::read_jsonl(&text, "killed.jsonl", Accept::Incomplete).unwrap();
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
        let r = Results::read_jsonl(&text, "c.jsonl", Accept::Incomplete).unwrap();
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
        let merge = |files: &[(&str, String)], accept| {
            let parts = files
                .iter()
                .map(|(name, text)| read(text, name).unwrap())
                .collect();
            Results::merge(parts, accept)
        };
        let one = ("s1.jsonl", file("0.1.0", "1/2", "law::a::x::p"));
        let two = ("s2.jsonl", file("0.1.0", "2/2", "law::b::y::p"));
        assert!(merge(&[one.clone(), two.clone()], Accept::Complete).is_ok());
        let err = merge(std::slice::from_ref(&one), Accept::Complete).unwrap_err();
        assert_eq!(err.kind, ResultsErrorKind::Incomplete);
        assert!(
            err.to_string()
                .contains("shard 2/2 of the sweep is missing"),
            "{err}"
        );
        let other = ("s2.jsonl", file("0.2.0", "2/2", "law::b::y::p"));
        let err = merge(&[one.clone(), other.clone()], Accept::Complete).unwrap_err();
        assert_eq!(err.kind, ResultsErrorKind::Version);
        assert!(
            err.to_string().contains("written by lawsuite \"0.2.0\""),
            "{err}"
        );
        let merged = merge(&[one, other], Accept::Incomplete).unwrap();
        assert_eq!((merged.outcomes.len(), merged.warnings.len()), (2, 1));
    }
}
