//! The rules one results file keeps on its own, checked line by line as
//! it is read: one run line, the summary line last and saying the run
//! finished, as many outcome lines as it counts, no line cut off, no line
//! that is not a results line. Every command that reads results files
//! (`merge`, `report`, `diff`, `history`, `run --baseline`) reads them
//! through here, holding nothing of a line once it is checked.

use super::line::{Fault, Got, Line, SummaryLine};
use super::{Accept, Closing, ResultsError, ResultsErrorKind};
use crate::report::RunInfo;

/// How many problems of inputs a command lists when it is told to accept
/// them (`--allow-incomplete`, `--allow-mixed`): 200, as many as a report
/// lists of one cell's failures ([`crate::report::HTML_LISTED`]); the rest
/// are counted. Merging one 6-million-trial file twice finds 6 million
/// duplicates: listed, they took gigabytes and a screen no one reads.
pub const LISTED_PROBLEMS: usize = crate::report::HTML_LISTED;

/// Where a problem sorts among the others: its class (the inputs'
/// sweep, then their shards, then what their lines hold), then its file
/// and line (a problem of a whole file after its lines).
pub(crate) type Order = (u8, u64, u64);

/// The class of a problem of the inputs' run lines (a sweep, a version).
pub(crate) const SWEEP: u8 = 0;
/// The class of a shard missing or given twice.
pub(crate) const SHARDS: u8 = 1;
/// The class of a problem of a file's lines.
pub(crate) const LINES: u8 = 2;

/// A problem found, not yet told: one whose message is written, or a
/// trial found twice, whose id is read again only if the problem is
/// told (one 6-million-trial file merged twice holds 6 million).
#[derive(Debug)]
pub(crate) enum Found {
    Told(ResultsError),
    Twice {
        at: super::index::Loc,
        first: super::index::Loc,
    },
}

/// The problems found in the inputs, each with where it sorts. They are
/// settled once every input is read ([`Problems::settle`]): the first
/// that [`Accept`] does not let through is the error, so the message is
/// the one a reader meets first whatever the order they were found in.
#[derive(Debug, Default)]
pub(crate) struct Problems {
    found: Vec<(Order, Found)>,
}

impl Problems {
    /// One problem, told.
    pub(crate) fn add(&mut self, order: Order, err: ResultsError) {
        self.found.push((order, Found::Told(err)));
    }

    /// A trial found again at `at`, first found at `first`.
    pub(crate) fn twice(&mut self, at: super::index::Loc, first: super::index::Loc) {
        let order = (LINES, at.file() as u64, at.line());
        self.found.push((order, Found::Twice { at, first }));
    }

    /// The error of the first problem `accept` does not let through; else
    /// the first [`LISTED_PROBLEMS`] problems told (`tell` writes those of
    /// trials found twice) and how many more there are.
    pub(crate) fn settle(
        mut self,
        accept: Accept,
        mut tell: impl FnMut(
            &[(super::index::Loc, super::index::Loc)],
        ) -> Result<Vec<ResultsError>, ResultsError>,
    ) -> Result<(Vec<ResultsError>, usize), ResultsError> {
        self.found.sort_by_key(|(order, _)| *order);
        let kind = |found: &Found| match found {
            Found::Told(err) => err.kind,
            // Which of the two is only known from the tags; both need
            // `--allow-incomplete`.
            Found::Twice { .. } => ResultsErrorKind::Duplicate,
        };
        let refused = self.found.iter().position(|(_, f)| !accept.lets(kind(f)));
        let keep = match refused {
            Some(at) => at..at + 1,
            None => 0..self.found.len().min(LISTED_PROBLEMS),
        };
        let more = self.found.len() - keep.len();
        let twice: Vec<_> = self.found[keep.clone()]
            .iter()
            .filter_map(|(_, f)| match f {
                Found::Twice { at, first } => Some((*at, *first)),
                Found::Told(_) => None,
            })
            .collect();
        let mut told = tell(&twice)?.into_iter();
        let mut listed = Vec::with_capacity(keep.len());
        for (_, found) in self.found.drain(keep) {
            match found {
                Found::Told(err) => listed.push(err),
                Found::Twice { .. } => listed.extend(told.next()),
            }
        }
        match refused {
            Some(_) => Err(listed.into_iter().next().unwrap_or_else(|| ResultsError {
                kind: ResultsErrorKind::Unreadable,
                source: String::new(),
                line: None,
                message: "a problem that could not be told".into(),
            })),
            None => Ok((listed, more)),
        }
    }
}

/// What a checked line is, for the reader that walks the file.
#[derive(Debug)]
pub(crate) enum Step<O> {
    /// The run line.
    Run(Box<RunInfo>),
    /// An outcome, at its line.
    Outcome(u64, O),
    /// A line the file's rules took (a peer stopped, the summary).
    Other,
    /// The file ends here: its last line is cut off (and accepted).
    End,
}

/// One file's rules, as its lines come.
#[derive(Debug)]
pub(crate) struct Check {
    pub(crate) source: String,
    file: u64,
    run_at: Option<u64>,
    summary_at: Option<u64>,
    closing: Option<Closing>,
    summary_total: usize,
    pub(crate) trials: Option<usize>,
    /// Outcome lines read.
    pub(crate) outcome_lines: usize,
    /// Peers the harness stopped restarting: (peer, trial, why).
    pub(crate) stopped: Vec<(String, String, String)>,
    /// The run's seconds, from its summary line.
    pub(crate) seconds: f64,
    /// The last line read whole.
    pub(crate) last: u64,
}

impl Check {
    /// The rules of the file `source` (its name, for messages).
    pub(crate) fn new(source: &str, file: usize) -> Check {
        Check {
            source: source.to_string(),
            file: file as u64,
            run_at: None,
            summary_at: None,
            closing: None,
            summary_total: 0,
            trials: None,
            outcome_lines: 0,
            stopped: Vec::new(),
            seconds: 0.0,
            last: 0,
        }
    }

    fn problem(&self, kind: ResultsErrorKind, line: Option<u64>, message: String) -> ResultsError {
        ResultsError {
            kind,
            source: self.source.clone(),
            line: line.map(saturate),
            message,
        }
    }

    fn unreadable(&self, line: u64, message: String) -> ResultsError {
        self.problem(ResultsErrorKind::Unreadable, Some(line), message)
    }

    /// Take one line read through the file's rules.
    pub(crate) fn line<O>(
        &mut self,
        got: Got<O>,
        problems: &mut Problems,
    ) -> Result<Step<O>, ResultsError> {
        let n = got.n;
        let line = match got.got {
            Ok(line) => line,
            Err(Fault::Io(e)) => return Err(self.unreadable(n, format!("cannot be read: {e}"))),
            // Only the last line can lack its line end.
            Err(Fault::Syntax(_)) if !got.whole => {
                problems.add(
                    (LINES, self.file, n),
                    self.problem(
                        ResultsErrorKind::Cut,
                        Some(n),
                        format!(
                            "the last line is cut off ({} bytes, no newline): the run was killed while writing it",
                            got.bytes
                        ),
                    ),
                );
                return Ok(Step::End);
            }
            Err(Fault::Syntax(e)) => {
                return Err(self.unreadable(n, format!("not a JSON line: {e}")));
            }
            Err(Fault::Data { ty, err }) => {
                let what = match ty.as_deref() {
                    Some("run") => "a run line",
                    Some("outcome") => "an outcome",
                    Some("summary") => "a summary",
                    Some("peerStopped") => "a peerStopped line",
                    _ => "a results line",
                };
                return Err(self.unreadable(n, format!("not {what}: {err}")));
            }
        };
        if let Some(at) = self.summary_at {
            return Err(self.unreadable(
                n,
                format!(
                    "a line after the summary line (line {at}): two runs were written into one file (`>>`?); give each run its own file"
                ),
            ));
        }
        self.last = n;
        match line {
            Line::Run(info) => {
                if let Some(at) = self.run_at {
                    return Err(self.unreadable(
                        n,
                        format!(
                            "a second run line (the first is line {at}); give each run its own file"
                        ),
                    ));
                }
                self.run_at = Some(n);
                self.trials = info.trials;
                Ok(Step::Run(info))
            }
            Line::Outcome(o) => {
                self.outcome_lines += 1;
                Ok(Step::Outcome(n, o))
            }
            Line::Stopped(s) => {
                self.stopped.push((s.peer, s.at, s.why));
                Ok(Step::Other)
            }
            Line::Summary(summary) => {
                self.summary(n, *summary)?;
                Ok(Step::Other)
            }
            Line::Unknown(other) => Err(self.unreadable(
                n,
                format!(
                    "unknown line type {:?}; is this a `lawsuite run --format jsonl` file?",
                    other.as_deref()
                ),
            )),
        }
    }

    fn summary(&mut self, n: u64, line: SummaryLine) -> Result<(), ResultsError> {
        let SummaryLine {
            summary,
            complete,
            incomplete,
        } = line;
        // Read back as a `Duration` (`Results::summary`), which holds no
        // negative time and none past `u64::MAX` seconds.
        if std::time::Duration::try_from_secs_f64(summary.seconds).is_err() {
            return Err(self.unreadable(
                n,
                format!(
                    "the summary's seconds, {:e}, are not a time a run can take (0 to 18446744073709551615)",
                    summary.seconds
                ),
            ));
        }
        self.seconds = summary.seconds;
        self.summary_total = summary.total().total();
        // A summary without `complete` is from a lawsuite that did not
        // write it; its summary line is all it can say.
        self.closing = Some(match complete {
            Some(false) => Closing::incomplete(
                incomplete.unwrap_or_else(|| "it says it is incomplete".to_string()),
            ),
            _ => Closing::complete(),
        });
        self.summary_at = Some(n);
        Ok(())
    }

    /// After the last line: did the run finish, with every outcome there?
    pub(crate) fn finish(&self, problems: &mut Problems) -> Result<(), ResultsError> {
        if self.run_at.is_none() {
            return Err(self.problem(
                ResultsErrorKind::Unreadable,
                None,
                "no run line; give the output of `lawsuite run --format jsonl`".into(),
            ));
        }
        let reached = match self.trials {
            Some(trials) => format!("{} of {trials} trials", self.outcome_lines),
            None => format!("{} trials", self.outcome_lines),
        };
        let (at, message) = match (&self.closing, self.summary_at) {
            (
                Some(Closing {
                    complete: false,
                    incomplete,
                }),
                at,
            ) => (
                at,
                format!(
                    "the run did not finish ({}): {reached} ran",
                    incomplete.clone().unwrap_or_default()
                ),
            ),
            (Some(_), at) if self.summary_total != self.outcome_lines => (
                at,
                format!(
                    "the summary counts {} trials but the file holds {} outcome lines: lines were lost or added",
                    self.summary_total, self.outcome_lines
                ),
            ),
            (Some(_), _) => return Ok(()),
            (None, _) => (
                None,
                format!(
                    "no summary line after line {}: the run was killed or is still running ({reached} reached the file)",
                    self.last
                ),
            ),
        };
        problems.add(
            (LINES, self.file, at.unwrap_or(u64::MAX)),
            self.problem(ResultsErrorKind::Incomplete, at, message),
        );
        Ok(())
    }
}

/// A line number as messages hold it.
pub(crate) fn saturate(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}
