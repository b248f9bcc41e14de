//! Running a benchmark: the agreement check, warm-up and interleaved
//! rounds.
//!
//! For every call, in order:
//!
//! 1. **Agreement.** Every peer answers once and the answer is compared as a
//!    JSON value ([`crate::kit::answer::Answer::agrees`]: key order ignored,
//!    a failure by its code, and by its message where the spec fixes it)
//!    with the call's baseline, the first peer that
//!    answers the method. A peer that answers differently is reported as
//!    disagreeing, with the first difference, and is never ranked or given
//!    a ratio: a fast wrong answer must not look like a win. Nor is it
//!    timed, unless [`Options::time_disagreeing`] asks for its times anyway
//!    (a peer still being written): then it makes the warm-up and the
//!    rounds with the others, and its times are reported beside its
//!    disagreement, never beside the agreeing peers' ranks.
//! 2. **Warm-up.** Each timed peer makes the call `warmup` times,
//!    untimed (page cache, an external peer's first start).
//! 3. **Rounds.** `rounds` times, each timed peer makes the call once,
//!    timed; the starting peer rotates every round (A B C, B C A, C A B),
//!    so a slow drift of the machine's load falls on every peer alike.
//!
//! Every answer of steps 2 and 3 is checked against the agreed answer too
//! (a disagreeing peer's against its own first answer).
//! A peer whose answer changes — an external peer that crashed, hung into
//! its timeout or started answering wrongly — is reported as faulted, with
//! the round and the first difference, and is not timed or ranked on that
//! call and makes no more rounds of it: an error answered fast, or a
//! timeout averaged in, must not look like a time.
//!
//! A first answer that is a fault (the harness's failure for a peer that
//! did not answer, or a panic) is no answer to compare: the peer is
//! faulted in the agreement check, and the next peer is the baseline. A
//! peer that cannot be started at all (its process does not start, or
//! never completes its handshake) is named once with its fault and asked
//! nothing ([`run`]).
//!
//! Only the peer call is timed (not the rendering of its answer for the
//! check, which happens after the clock stops).
//!
//! A report cites each call by its position and as a line of a calls file
//! (`--call-file`), and every difference, with the corpus's root spelt `.`
//! ([`Options::corpus`]): a generated corpus is removed after the run, and
//! a path into it would name nothing.
//!
//! ```
//! use lawsuite::bench::calls::BenchCall;
//! use lawsuite::bench::report::Outcome;
//! use lawsuite::bench::run::{Options, run};
//! use lawsuite::peer::Subject;
//! use lawsuite::contract::GlobInput;
//! use lawsuite::call::Call;
//! use lawsuite::peer::Noop;
//! use lawsuite::portable::Portable;
//!
//! let dir = lawsuite::kit::materialize::TempTree::new()?;
//! std::fs::write(dir.path().join("a.rs"), "fn main() {}\n")?;
//! let root = dir.path().to_str().unwrap();
//! let calls = [BenchCall { name: "listing".into(), call: Call::Glob(GlobInput::new("*.rs", root)) }];
//! let peers = [
//!     Subject::new("portable", Portable::with_threads(1)),
//!     Subject::new("noop", Noop),
//! ];
//! let options = Options { rounds: 3, warmup: 1, ..Options::default() };
//! let report = run(&calls, &peers, &options, &mut |_| {});
//! let results = &report.calls[0].results;
//! assert!(matches!(results[0].outcome, Outcome::Timed { rank: 1, .. }));
//! assert!(matches!(results[1].outcome, Outcome::Disagrees { .. }));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::hint::black_box;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use crate::bench::calls::BenchCall;
use crate::bench::report::{BenchReport, CallReport, Outcome, PeerResult};
use crate::bench::stats::TimingSummary;
use crate::call::Call;
use crate::contract::StdError;
use crate::kit::answer::{Answer, rebase};
/// Moved to [`crate::kit::compare`], where the differential compares
/// answers too; kept here for callers of the old path.
pub use crate::kit::compare::first_difference;
use crate::kit::difference::shorten;
use crate::peer::{Search, Subject};

/// How many untimed and timed runs per peer and call, and who is timed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Timed rounds (at least one is made).
    pub rounds: usize,
    /// Untimed runs before them.
    pub warmup: usize,
    /// Time a peer that disagrees with the baseline anyway (its times are
    /// reported with its disagreement, never ranked or given a ratio).
    pub time_disagreeing: bool,
    /// The root of the corpus the calls search: a report cites calls and
    /// differences with it spelt `.` (the calls file's form). `None`: as
    /// they are.
    pub corpus: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            rounds: 5,
            warmup: 1,
            time_disagreeing: false,
            corpus: None,
        }
    }
}

/// Benchmark `calls` on `peers` (the first that starts is the baseline);
/// `progress` gets one line per step, for stderr.
///
/// A peer that cannot be started ([`start_fault`]) is named once, with
/// its fault, and asked nothing more: each of its cells is
/// [`Outcome::NotStarted`]. Asked every call, it cost a timeout each, and
/// its answers, faults, read as disagreements (`/matches: missing`).
pub fn run(
    calls: &[BenchCall],
    peers: &[Subject],
    options: &Options,
    progress: &mut dyn FnMut(&str),
) -> BenchReport {
    let not_started: Vec<Option<String>> = peers
        .iter()
        .map(|subject| {
            let fault = start_fault(subject.peer().as_ref());
            if let Some(fault) = &fault {
                progress(&format!(
                    "{} could not be started: {}; it is asked nothing",
                    subject.name(),
                    first_line(fault)
                ));
            }
            fault
        })
        .collect();
    let baseline = peers
        .iter()
        .zip(&not_started)
        .find(|(_, fault)| fault.is_none())
        .or(peers.first().zip(not_started.first()))
        .map(|(p, _)| p.name().to_string());
    let mut report = BenchReport {
        baseline: baseline.unwrap_or_default(),
        peers: peers.iter().map(|p| p.name().to_string()).collect(),
        rounds: options.rounds.max(1),
        warmup: options.warmup,
        calls: Vec::new(),
        ..BenchReport::default()
    };
    for (i, bench_call) in calls.iter().enumerate() {
        progress(&format!(
            "[{}/{}] {}: checking answers",
            i + 1,
            calls.len(),
            bench_call.name
        ));
        let call_report = run_call(
            i + 1,
            bench_call,
            peers,
            &not_started,
            options,
            &mut |line| {
                progress(&format!(
                    "[{}/{}] {}: {line}",
                    i + 1,
                    calls.len(),
                    bench_call.name
                ))
            },
        );
        report.calls.push(call_report);
    }
    report
}

/// Why `peer` could not be started, when it could not: its process did
/// not start, or never completed its handshake. An external peer starts
/// on its first request, the handshake, which also says its version; a
/// fault by the time the version is known is the start's. A peer without
/// a fault log ([`Search::health`]: an in-process one) always starts.
pub fn start_fault(peer: &dyn Search) -> Option<String> {
    let before = peer.health()?;
    if before.stopped.is_some() {
        return before.stopped;
    }
    peer.version();
    let after = peer.health()?;
    if after.faults <= before.faults && after.stopped.is_none() {
        return None;
    }
    let said = after.stopped.or_else(|| after.recent.last().cloned());
    Some(said.unwrap_or_else(|| {
        format!(
            "{} fault(s) while starting, none recorded",
            after.faults - before.faults
        )
    }))
}

/// The first line of `text`: a fault's message, without the stderr the
/// JSON report keeps beside it.
fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// What [`Outcome::Faulted::during`] says of a fault on the first answer,
/// the one compared with the baseline's.
const AGREEMENT: &str = "the agreement check";

/// One call, the `index`th (from 1), on every peer that started
/// (`not_started[i]` is why peer `i` did not).
fn run_call(
    index: usize,
    bench_call: &BenchCall,
    peers: &[Subject],
    not_started: &[Option<String>],
    options: &Options,
    progress: &mut dyn FnMut(&str),
) -> CallReport {
    let call = &bench_call.call;
    // Decided on the answers as they are ([`Answer::agrees`]); only what is
    // shown is rebased.
    let difference = |expected: &Answer, actual: &Answer| -> Option<String> {
        if expected.agrees(actual) {
            return None;
        }
        let (expected, actual) = (expected.to_wire(), actual.to_wire());
        let raw = first_difference(&expected, &actual, "")?;
        Some(match &options.corpus {
            Some(root) => first_difference(
                &rebase(&expected, root, "."),
                &rebase(&actual, root, "."),
                "",
            )
            .unwrap_or(raw),
            None => raw,
        })
    };
    let mut supported = vec![true; peers.len()];
    let mut disagreement: Vec<Option<String>> = vec![None; peers.len()];
    // A disagreeing peer timed anyway is checked against its own first
    // answer; only those are kept (an answer can be large).
    let mut own: Vec<Option<Answer>> = vec![None; peers.len()];
    let mut baseline: Option<(usize, Answer)> = None;
    // The run and the difference of a peer whose answer changed, or that
    // faulted on its first answer.
    let mut faults: Vec<Option<(String, String)>> = vec![None; peers.len()];
    for (i, subject) in peers.iter().enumerate() {
        if not_started[i].is_some() {
            continue;
        }
        if !subject.peer().supports(call.method()) {
            supported[i] = false;
            continue;
        }
        let value = Answer::of(subject.peer().as_ref(), call);
        // A fault (the harness's failure for a peer that did not answer,
        // or a panic) is no answer to agree or disagree with, nor to take
        // as the baseline: `/matches: missing` said nothing of a crash.
        if value.is_fault() {
            let d = format!("answered {} instead", shorten(&value.shown()));
            progress(&format!("{} FAULTED in {AGREEMENT}: {d}", subject.name()));
            faults[i] = Some((AGREEMENT.to_string(), d));
            continue;
        }
        match &baseline {
            None => baseline = Some((i, value)),
            Some((_, expected)) => {
                if let Some(d) = difference(expected, &value) {
                    progress(&format!("{} DISAGREES: {d}", subject.name()));
                    disagreement[i] = Some(d);
                    if options.time_disagreeing {
                        own[i] = Some(value);
                    }
                }
            }
        }
    }
    let timed: Vec<usize> = (0..peers.len())
        .filter(|&i| not_started[i].is_none() && supported[i] && faults[i].is_none())
        .filter(|&i| disagreement[i].is_none() || options.time_disagreeing)
        .collect();
    let expected = baseline.as_ref().map(|(_, value)| value);
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); peers.len()];
    // One run after the agreement: its time while the answer is still the
    // one it gave first; otherwise the peer is marked faulted and makes no
    // more.
    let run_once = |i: usize, during: String, faults: &mut [Option<(String, String)>]| {
        if faults[i].is_some() {
            return (None, None); // faulted earlier on this call
        }
        let (elapsed, value) = timed_answer(peers[i].peer().as_ref(), call);
        let first = own[i].as_ref().or(expected);
        match first.and_then(|e| difference(e, &value)) {
            None => (Some(elapsed), None),
            Some(d) => {
                // A failure, a fault or a panic is the news, not the first
                // key it lacks.
                let d = match &value {
                    Answer::Value(_) => d,
                    _ => format!("answered {} instead", shorten(&value.to_wire())),
                };
                let line = format!("{} FAULTED in {during}: {d}", peers[i].name());
                faults[i] = Some((during, d));
                (None, Some(line))
            }
        }
    };
    if !timed.is_empty() {
        if options.warmup > 0 {
            progress(&format!("warm-up ({} per peer)", options.warmup));
        }
        for round in 0..options.warmup {
            for k in 0..timed.len() {
                let i = timed[(round + k) % timed.len()];
                let during = format!("warm-up {}/{}", round + 1, options.warmup);
                if let (_, Some(line)) = run_once(i, during, &mut faults) {
                    progress(&line);
                }
            }
        }
        let rounds = options.rounds.max(1);
        for round in 0..rounds {
            progress(&format!("round {}/{rounds}", round + 1));
            for k in 0..timed.len() {
                let i = timed[(round + k) % timed.len()];
                let during = format!("round {}/{rounds}", round + 1);
                match run_once(i, during, &mut faults) {
                    (Some(elapsed), _) => samples[i].push(elapsed),
                    (None, Some(line)) => progress(&line),
                    (None, None) => {}
                }
            }
        }
    }
    // A faulted peer's samples are not a time.
    let summaries: Vec<Option<TimingSummary>> = (0..peers.len())
        .map(|i| {
            if timed.contains(&i) && faults[i].is_none() {
                TimingSummary::of(&samples[i])
            } else {
                None
            }
        })
        .collect();
    let base = baseline.as_ref().and_then(|(i, _)| summaries[*i].clone());
    // Only agreeing peers are ranked and given a ratio.
    let mut order: Vec<usize> = timed
        .iter()
        .copied()
        .filter(|&i| disagreement[i].is_none() && summaries[i].is_some())
        .collect();
    order.sort_by(|&a, &b| {
        let median = |i: usize| summaries[i].as_ref().map_or(f64::INFINITY, |s| s.median_ms);
        median(a).total_cmp(&median(b))
    });
    let mut outcomes: Vec<Outcome> = (0..peers.len())
        .map(|i| {
            let fault = faults[i].take();
            if let Some(fault) = &not_started[i] {
                return Outcome::NotStarted {
                    fault: fault.clone(),
                };
            }
            match (supported[i], disagreement[i].take(), fault) {
                (false, ..) => Outcome::Unsupported,
                (true, Some(difference), fault) => Outcome::Disagrees {
                    difference,
                    summary: summaries[i].clone(),
                    fault: fault.map(|(during, d)| format!("in {during}: {d}")),
                },
                (true, None, Some((during, difference))) => Outcome::Faulted { during, difference },
                // Ranked below; a peer never timed stays unsupported.
                (true, None, None) => Outcome::Unsupported,
            }
        })
        .collect();
    for (rank, &i) in order.iter().enumerate() {
        if let Some(summary) = summaries[i].clone() {
            outcomes[i] = Outcome::Timed {
                ratio: base.as_ref().and_then(|b| summary.ratio_to(b)),
                rank: rank + 1,
                summary,
            };
        }
    }
    let cited = match &options.corpus {
        Some(root) => call.rebased(root, "."),
        None => call.clone(),
    };
    // The calls file's form: the name first, then the call.
    let mut line = serde_json::Map::new();
    line.insert("name".to_string(), Value::String(bench_call.name.clone()));
    if let Ok(Value::Object(fields)) = serde_json::to_value(&cited) {
        line.extend(fields);
    }
    CallReport {
        name: bench_call.name.clone(),
        index,
        call: Value::Object(line),
        method: call.method().to_string(),
        baseline: baseline.map(|(i, _)| peers[i].name().to_string()),
        results: peers
            .iter()
            .zip(outcomes)
            .map(|(subject, outcome)| PeerResult {
                peer: subject.name().to_string(),
                outcome,
            })
            .collect(),
    }
}

/// One call, timed, and its [`Answer`]. Turning the output into JSON, and
/// dropping it, happen after the clock stops.
fn timed_answer(peer: &dyn Search, call: &Call) -> (Duration, Answer) {
    fn clock<T: Serialize>(answer: impl FnOnce() -> Result<T, StdError>) -> (Duration, Answer) {
        let started = Instant::now();
        let out = black_box(answer());
        let elapsed = started.elapsed();
        let json = out.and_then(|value| {
            serde_json::to_value(value).map_err(|e| {
                StdError::fault(
                    crate::contract::ErrorCode::RequestFailed,
                    format!("the answer cannot be written as JSON: {e}"),
                )
            })
        });
        (elapsed, Answer::from_result(json))
    }
    // Through the typed output, not `Call::run`'s JSON: serialising the
    // answer is not the peer's time.
    let timed = catch_unwind(AssertUnwindSafe(|| match call {
        Call::Grep(input) => clock(|| peer.grep(black_box(input))),
        Call::Glob(input) => clock(|| peer.glob(black_box(input))),
        Call::FlowGrep(request) => clock(|| peer.flow_grep(black_box(request))),
        Call::FlowGlob(request) => clock(|| peer.flow_glob(black_box(request))),
        Call::Read(input) => clock(|| peer.read(black_box(input))),
        Call::Ls(input) => clock(|| peer.ls(black_box(input))),
        #[cfg(unix)]
        Call::Bash(request) => clock(|| peer.bash(black_box(request))),
    }));
    timed.unwrap_or_else(|payload| {
        (
            Duration::ZERO,
            Answer::Panic(crate::kit::answer::panic_message(&*payload)),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{GlobInput, GlobOutput, GrepInput, GrepOutput, StdError};
    use crate::kit::materialize::TempTree;
    use crate::portable::Portable;
    use crate::testing::Altered;
    use std::sync::Arc;

    /// Answers like `portable` but drops the first path of every glob: fast
    /// and wrong.
    fn wrong() -> Altered {
        Altered::new("wrong").on_glob(|_, answer| {
            let mut out = answer?;
            out.paths.remove(0);
            Ok(out)
        })
    }

    /// Answers grep only.
    fn grep_only() -> Altered {
        Altered::new("grep-only").only(&[crate::peer::Method::Grep])
    }

    fn tree() -> TempTree {
        let dir = TempTree::new().unwrap();
        for name in ["a.rs", "b.rs", "c.txt"] {
            std::fs::write(dir.path().join(name), "needle\n").unwrap();
        }
        dir
    }

    fn calls(root: &str) -> Vec<BenchCall> {
        vec![
            BenchCall {
                name: "glob".into(),
                call: Call::Glob(GlobInput::new("*.rs", root)),
            },
            BenchCall {
                name: "grep".into(),
                call: Call::Grep(GrepInput::new("needle", root)),
            },
        ]
    }

    #[test]
    fn a_wrong_peer_is_flagged_never_ranked() {
        let dir = tree();
        let root = dir.path().to_str().unwrap();
        let peers = [
            Subject::new("portable", Portable::with_threads(1)),
            Subject::new("wrong", wrong()),
            Subject::new("portable-2", Portable::with_threads(2)),
        ];
        let mut lines = Vec::new();
        let report = run(
            &calls(root),
            &peers,
            &Options {
                rounds: 3,
                warmup: 0,
                ..Options::default()
            },
            &mut |l| lines.push(l.to_string()),
        );
        let glob = &report.calls[0];
        assert_eq!(glob.baseline.as_deref(), Some("portable"));
        match &glob.results[1].outcome {
            Outcome::Disagrees {
                difference,
                summary: None,
                fault: None,
            } => {
                // Without a corpus, as they are.
                let expected = format!("/paths/0: \"{root}/b.rs\", expected \"{root}/a.rs\"");
                assert_eq!(difference, &expected);
            }
            other => panic!("the wrong peer was not flagged: {other:?}"),
        }
        let mut ranks: Vec<usize> = glob
            .results
            .iter()
            .filter_map(|r| match &r.outcome {
                Outcome::Timed { rank, summary, .. } => {
                    assert_eq!(summary.samples, 3);
                    Some(*rank)
                }
                _ => None,
            })
            .collect();
        ranks.sort();
        assert_eq!(ranks, [1, 2], "only the two agreeing peers are ranked");
        match &glob.results[0].outcome {
            Outcome::Timed { ratio, .. } => assert_eq!(*ratio, Some(1.0)),
            other => panic!("{other:?}"),
        }
        // On grep the wrong peer is right, and is timed.
        assert!(matches!(
            report.calls[1].results[1].outcome,
            Outcome::Timed { .. }
        ));
        assert!(
            lines.iter().any(|l| l.contains("wrong DISAGREES")),
            "{lines:?}"
        );
        assert!(report.has_disagreement());
    }

    #[test]
    fn a_wrong_peer_timed_anyway_is_never_ranked_and_calls_are_cited_in_the_corpus() {
        let dir = tree();
        let root = dir.path().to_str().unwrap();
        let peers = [
            Subject::new("portable", Portable::with_threads(1)),
            Subject::new("wrong", wrong()),
            Subject::new("portable-2", Portable::with_threads(2)),
        ];
        let options = Options {
            rounds: 3,
            warmup: 1,
            time_disagreeing: true,
            corpus: Some(root.to_string()),
        };
        let report = run(&calls(root), &peers, &options, &mut |_| {});
        let glob = &report.calls[0];
        match &glob.results[1].outcome {
            Outcome::Disagrees {
                difference,
                summary: Some(summary),
                fault: None,
            } => {
                assert_eq!(summary.samples, 3);
                // The answers' paths are cited relative to the corpus.
                assert_eq!(difference, "/paths/0: \"./b.rs\", expected \"./a.rs\"");
            }
            other => panic!("the wrong peer was not timed anyway: {other:?}"),
        }
        let ranks: Vec<(usize, Option<f64>)> = glob
            .results
            .iter()
            .filter_map(|r| match &r.outcome {
                Outcome::Timed { rank, ratio, .. } => Some((*rank, *ratio)),
                _ => None,
            })
            .collect();
        assert_eq!(ranks.len(), 2, "only the agreeing peers are ranked");
        assert!(
            ranks.iter().any(|&(rank, _)| rank == 1) && ranks.iter().any(|&(rank, _)| rank == 2)
        );
        assert!(
            matches!(glob.results[0].outcome, Outcome::Timed { ratio: Some(r), .. } if r == 1.0)
        );
        // The call is cited by position and as a calls-file line.
        assert_eq!(glob.index, 1);
        assert_eq!(report.calls[1].index, 2);
        assert_eq!(glob.call["name"], "glob");
        assert_eq!(glob.call["input"]["root"], ".");
        assert!(report.has_disagreement());
        let table = report.table();
        assert!(table.contains("DISAGREES (timed) "), "{table}");
        assert!(
            table.contains("glob (call 1: {\"name\":\"glob\""),
            "{table}"
        );
        assert!(!table.contains(root), "{table}");
    }

    #[test]
    fn a_disagreeing_peer_timed_anyway_whose_answer_changes_is_timed_no_more() {
        let dir = tree();
        let root = dir.path().to_str().unwrap();
        // Wrong for the agreement, then broken.
        let flaky = Breaks::new(1, true);
        let peers = [
            Subject::new("portable", Portable::with_threads(1)),
            Subject::new("flaky", flaky.clone()),
        ];
        let options = Options {
            rounds: 4,
            warmup: 1,
            time_disagreeing: true,
            corpus: None,
        };
        let report = run(&calls(root)[..1], &peers, &options, &mut |_| {});
        match &report.calls[0].results[1].outcome {
            Outcome::Disagrees {
                summary: None,
                fault: Some(fault),
                ..
            } => assert_eq!(
                fault,
                "in warm-up 1/1: answered {\"failure\":\"request_failed\"} instead"
            ),
            other => panic!("{other:?}"),
        }
        // The check, the warm-up, and no round.
        assert_eq!(flaky.calls.load(std::sync::atomic::Ordering::SeqCst), 2);
        assert!(report.table().contains("DISAGREES (faulted)"));
    }

    /// Answers like `portable` (or, when `wrong`, like [`wrong`]) for its
    /// first `good` globs, then fails fast: an external peer that crashed
    /// and answers `request_failed`.
    struct Breaks {
        good: usize,
        wrong: bool,
        calls: std::sync::atomic::AtomicUsize,
    }

    impl Breaks {
        fn new(good: usize, wrong: bool) -> Arc<Breaks> {
            Arc::new(Breaks {
                good,
                wrong,
                calls: Default::default(),
            })
        }
    }

    impl Search for Breaks {
        fn name(&self) -> &str {
            "breaks"
        }
        fn version(&self) -> String {
            "0".into()
        }
        fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
            Portable::with_threads(1).grep(input)
        }
        fn glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError> {
            let n = self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if n < self.good && self.wrong {
                wrong().glob(input)
            } else if n < self.good {
                Portable::with_threads(1).glob(input)
            } else {
                Err(StdError::new(
                    crate::contract::ErrorCode::RequestFailed,
                    "peer crashed",
                ))
            }
        }
    }

    #[test]
    fn every_timed_answer_is_checked() {
        let dir = tree();
        let root = dir.path().to_str().unwrap();
        // Agreement, warm-up and round 1 right; round 2 fails.
        let breaks = Breaks::new(3, false);
        let peers = [
            Subject::new("portable", Portable::with_threads(1)),
            Subject::new("breaks", breaks.clone()),
        ];
        let mut lines = Vec::new();
        let options = Options {
            rounds: 5,
            warmup: 1,
            ..Options::default()
        };
        let report = run(&calls(root), &peers, &options, &mut |l| {
            lines.push(l.to_string())
        });
        let glob = &report.calls[0];
        match &glob.results[1].outcome {
            Outcome::Faulted { during, difference } => {
                assert_eq!(during, "round 2/5");
                assert!(difference.contains("request_failed"), "{difference}");
            }
            other => panic!("a peer that broke mid-run was not faulted: {other:?}"),
        }
        assert!(matches!(
            glob.results[0].outcome,
            Outcome::Timed { rank: 1, .. }
        ));
        // No more rounds once faulted: 1 + 1 + 2 calls, not 1 + 1 + 5.
        assert_eq!(breaks.calls.load(std::sync::atomic::Ordering::SeqCst), 4);
        assert!(report.has_fault());
        assert!(!report.has_disagreement());
        assert!(
            lines
                .iter()
                .any(|l| l.contains("breaks FAULTED in round 2/5")),
            "{lines:?}"
        );
        // On grep it never breaks, and is timed and ranked.
        assert!(matches!(
            report.calls[1].results[1].outcome,
            Outcome::Timed { .. }
        ));
        assert!(report.table().contains("FAULTED"));
        // A fault in the warm-up counts too.
        let early = Breaks::new(1, false);
        let peers = [
            Subject::new("portable", Portable::with_threads(1)),
            Subject::new("early", early),
        ];
        let report = run(&calls(root), &peers, &options, &mut |_| {});
        assert!(matches!(
            &report.calls[0].results[1].outcome,
            Outcome::Faulted { during, .. } if during == "warm-up 1/1"
        ));
    }

    /// A first answer that is a fault is no answer: not the baseline, not
    /// a disagreement (`/paths: missing` said nothing of a panic).
    #[test]
    fn a_fault_on_the_first_answer_is_neither_baseline_nor_disagreement() {
        struct Panics;
        impl Search for Panics {
            fn name(&self) -> &str {
                "panics"
            }
            fn version(&self) -> String {
                "0".into()
            }
            fn grep(&self, _: &GrepInput) -> Result<GrepOutput, StdError> {
                panic!("planted grep panic")
            }
            fn glob(&self, _: &GlobInput) -> Result<GlobOutput, StdError> {
                panic!("planted glob panic")
            }
        }
        let dir = tree();
        let root = dir.path().to_str().unwrap();
        let peers = [
            Subject::new("panics", Panics),
            Subject::new("portable", Portable::with_threads(1)),
        ];
        let mut lines = Vec::new();
        let report = run(&calls(root), &peers, &Options::default(), &mut |l| {
            lines.push(l.to_string())
        });
        for call in &report.calls {
            assert_eq!(call.baseline.as_deref(), Some("portable"));
            match &call.results[0].outcome {
                Outcome::Faulted { during, difference } => {
                    assert_eq!(during, "the agreement check");
                    assert!(difference.contains("planted"), "{difference}");
                }
                other => panic!("{other:?}"),
            }
            assert!(matches!(
                call.results[1].outcome,
                Outcome::Timed { rank: 1, .. }
            ));
        }
        assert!(report.has_fault() && !report.has_disagreement());
        assert!(
            lines
                .iter()
                .any(|l| l.contains("panics FAULTED in the agreement check")),
            "{lines:?}"
        );
        // In-process, it has no fault log: it started.
        assert!(report.not_started().is_empty());
    }

    #[test]
    fn the_baseline_is_the_first_peer_answering_the_method() {
        let dir = tree();
        let root = dir.path().to_str().unwrap();
        let peers = [
            Subject::new("grep-only", grep_only()),
            Subject::new("portable", Portable::with_threads(1)),
        ];
        let report = run(&calls(root), &peers, &Options::default(), &mut |_| {});
        let glob = &report.calls[0];
        assert!(matches!(glob.results[0].outcome, Outcome::Unsupported));
        assert_eq!(glob.baseline.as_deref(), Some("portable"));
        assert_eq!(report.calls[1].baseline.as_deref(), Some("grep-only"));
        assert!(!report.has_disagreement());
    }

    #[test]
    fn rounds_rotate_the_starting_peer() {
        use std::sync::Mutex;
        /// Records the order of calls across peers.
        struct Logged(&'static str, Arc<Mutex<Vec<&'static str>>>);
        impl Search for Logged {
            fn name(&self) -> &str {
                self.0
            }
            fn version(&self) -> String {
                "0".into()
            }
            fn grep(&self, _: &GrepInput) -> Result<GrepOutput, StdError> {
                self.1.lock().unwrap().push(self.0);
                Ok(GrepOutput::default())
            }
            fn glob(&self, _: &GlobInput) -> Result<GlobOutput, StdError> {
                unreachable!()
            }
        }
        let log = Arc::new(Mutex::new(Vec::new()));
        let peers = [
            Subject::new("a", Logged("a", log.clone())),
            Subject::new("b", Logged("b", log.clone())),
            Subject::new("c", Logged("c", log.clone())),
        ];
        let calls = [BenchCall {
            name: "g".into(),
            call: Call::Grep(GrepInput::new("x", "/nowhere")),
        }];
        run(
            &calls,
            &peers,
            &Options {
                rounds: 3,
                warmup: 1,
                ..Options::default()
            },
            &mut |_| {},
        );
        let order = log.lock().unwrap().join("");
        // check: a b c; warm-up: a b c; rounds: abc, bca, cab.
        assert_eq!(order, "abc".to_string() + "abc" + "abcbcacab");
    }
}
