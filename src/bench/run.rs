//! Running a benchmark: the agreement check, warm-up and interleaved
//! rounds.
//!
//! For every call, in order:
//!
//! 1. **Agreement.** Every peer answers once and the answer is compared as a
//!    JSON value ([`crate::kit::case::answer`]: key order ignored, a failure
//!    reduced to its code) with the call's baseline, the first peer that
//!    answers the method. A peer that answers differently is reported as
//!    disagreeing, with the first difference, and is never timed, ranked
//!    or given a ratio: a fast wrong answer must not look like a win.
//! 2. **Warm-up.** Each agreeing peer makes the call `warmup` times,
//!    untimed (page cache, an external peer's first start).
//! 3. **Rounds.** `rounds` times, each agreeing peer makes the call once,
//!    timed; the starting peer rotates every round (A B C, B C A, C A B),
//!    so a slow drift of the machine's load falls on every peer alike.
//!
//! Every answer of steps 2 and 3 is checked against the agreed answer too.
//! A peer whose answer changes — an external peer that crashed, hung into
//! its timeout or started answering wrongly — is reported as faulted, with
//! the round and the first difference, and is not timed or ranked on that
//! call and makes no more rounds of it: an error answered fast, or a
//! timeout averaged in, must not look like a time.
//!
//! Only the peer call is timed (not the rendering of its answer for the
//! check, which happens after the clock stops).
//!
//! ```
//! use std::sync::Arc;
//! use lawsuite::bench::calls::BenchCall;
//! use lawsuite::bench::report::Outcome;
//! use lawsuite::bench::run::{Contender, Options, run};
//! use lawsuite::contract::GlobInput;
//! use lawsuite::kit::case::Call;
//! use lawsuite::peer::Noop;
//! use lawsuite::portable::Portable;
//!
//! let dir = lawsuite::kit::materialize::TempTree::new()?;
//! std::fs::write(dir.path().join("a.rs"), "fn main() {}\n")?;
//! let root = dir.path().to_str().unwrap();
//! let calls = [BenchCall { name: "listing".into(), call: Call::Glob(GlobInput::new("*.rs", root)) }];
//! let peers = [
//!     Contender::new("portable", Arc::new(Portable::with_threads(1))),
//!     Contender::new("noop", Arc::new(Noop)),
//! ];
//! let report = run(&calls, &peers, &Options { rounds: 3, warmup: 1 }, &mut |_| {});
//! let results = &report.calls[0].results;
//! assert!(matches!(results[0].outcome, Outcome::Timed { rank: 1, .. }));
//! assert!(matches!(results[1].outcome, Outcome::Disagrees { .. }));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::hint::black_box;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};

use crate::bench::calls::BenchCall;
use crate::bench::report::{CallReport, Outcome, PeerResult, Report};
use crate::bench::stats::Summary;
use crate::contract::StdError;
use crate::kit::case::{Call, answer, render};
/// Moved to [`crate::kit::compare`], where the differential compares
/// answers too; kept here for callers of the old path.
pub use crate::kit::compare::first_difference;
use crate::kit::compare::shorten;
use crate::peer::Search;

/// A peer taking part, under the name it is reported by.
#[derive(Clone)]
pub struct Contender {
    /// The name in reports (the registered name).
    pub name: String,
    /// The peer.
    pub peer: Arc<dyn Search>,
}

impl Contender {
    /// A contender named `name`.
    pub fn new(name: impl Into<String>, peer: Arc<dyn Search>) -> Contender {
        Contender {
            name: name.into(),
            peer,
        }
    }
}

impl fmt::Debug for Contender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Contender")
            .field("name", &self.name)
            .finish()
    }
}

/// How many untimed and timed runs per peer and call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Timed rounds (at least one is made).
    pub rounds: usize,
    /// Untimed runs before them.
    pub warmup: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            rounds: 5,
            warmup: 1,
        }
    }
}

/// Benchmark `calls` on `peers` (the first is the baseline); `progress`
/// gets one line per step, for stderr.
pub fn run(
    calls: &[BenchCall],
    peers: &[Contender],
    options: &Options,
    progress: &mut dyn FnMut(&str),
) -> Report {
    let mut report = Report {
        baseline: peers.first().map(|p| p.name.clone()).unwrap_or_default(),
        peers: peers.iter().map(|p| p.name.clone()).collect(),
        rounds: options.rounds.max(1),
        warmup: options.warmup,
        calls: Vec::new(),
        ..Report::default()
    };
    for (i, bench_call) in calls.iter().enumerate() {
        progress(&format!(
            "[{}/{}] {}: checking answers",
            i + 1,
            calls.len(),
            bench_call.name
        ));
        let call_report = run_call(bench_call, peers, options, &mut |line| {
            progress(&format!(
                "[{}/{}] {}: {line}",
                i + 1,
                calls.len(),
                bench_call.name
            ))
        });
        report.calls.push(call_report);
    }
    report
}

fn run_call(
    bench_call: &BenchCall,
    peers: &[Contender],
    options: &Options,
    progress: &mut dyn FnMut(&str),
) -> CallReport {
    let call = &bench_call.call;
    let mut outcomes: Vec<Option<Outcome>> = vec![None; peers.len()];
    let mut baseline: Option<(usize, Value)> = None;
    for (i, contender) in peers.iter().enumerate() {
        if !contender.peer.supports(call.method()) {
            outcomes[i] = Some(Outcome::Unsupported);
            continue;
        }
        let value = answer(contender.peer.as_ref(), call);
        match &baseline {
            None => baseline = Some((i, value)),
            Some((_, expected)) => {
                if let Some(difference) = first_difference(expected, &value, "") {
                    progress(&format!("{} DISAGREES: {difference}", contender.name));
                    outcomes[i] = Some(Outcome::Disagrees { difference });
                }
            }
        }
    }
    let agreeing: Vec<usize> = (0..peers.len())
        .filter(|&i| outcomes[i].is_none())
        .collect();
    let expected = baseline.as_ref().map(|(_, value)| value);
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); peers.len()];
    // One run after the agreement: its time while the answer is still the
    // agreed one; otherwise the peer is marked faulted and makes no more.
    let run_once = |i: usize, during: String, outcomes: &mut [Option<Outcome>]| {
        if outcomes[i].is_some() {
            return (None, None); // faulted earlier on this call
        }
        let (elapsed, value) = timed_answer(peers[i].peer.as_ref(), call);
        match expected.and_then(|e| first_difference(e, &value, "")) {
            None => (Some(elapsed), None),
            Some(difference) => {
                // A failure or panic is the news, not the first key it lacks.
                let broke = value.get("failure").or_else(|| value.get("panic"));
                let difference = match broke {
                    Some(_) if value.as_object().is_some_and(|o| o.len() == 1) => {
                        format!("answered {} instead", shorten(&value))
                    }
                    _ => difference,
                };
                let line = format!("{} FAULTED in {during}: {difference}", peers[i].name);
                outcomes[i] = Some(Outcome::Faulted { during, difference });
                (None, Some(line))
            }
        }
    };
    if !agreeing.is_empty() {
        if options.warmup > 0 {
            progress(&format!("warm-up ({} per peer)", options.warmup));
        }
        for round in 0..options.warmup {
            for k in 0..agreeing.len() {
                let i = agreeing[(round + k) % agreeing.len()];
                let during = format!("warm-up {}/{}", round + 1, options.warmup);
                if let (_, Some(line)) = run_once(i, during, &mut outcomes) {
                    progress(&line);
                }
            }
        }
        let rounds = options.rounds.max(1);
        for round in 0..rounds {
            progress(&format!("round {}/{rounds}", round + 1));
            for k in 0..agreeing.len() {
                let i = agreeing[(round + k) % agreeing.len()];
                let during = format!("round {}/{rounds}", round + 1);
                match run_once(i, during, &mut outcomes) {
                    (Some(elapsed), _) => samples[i].push(elapsed),
                    (None, Some(line)) => progress(&line),
                    (None, None) => {}
                }
            }
        }
    }
    // A faulted peer's samples are not a time.
    let timed: Vec<usize> = agreeing
        .into_iter()
        .filter(|&i| outcomes[i].is_none())
        .collect();
    let summaries: Vec<Option<Summary>> = (0..peers.len())
        .map(|i| {
            if timed.contains(&i) {
                Summary::of(&samples[i])
            } else {
                None
            }
        })
        .collect();
    let base = baseline.as_ref().and_then(|(i, _)| summaries[*i].clone());
    let mut order: Vec<usize> = timed.clone();
    order.sort_by(|&a, &b| {
        let median = |i: usize| summaries[i].as_ref().map_or(f64::INFINITY, |s| s.median_ms);
        median(a).total_cmp(&median(b))
    });
    for (rank, &i) in order.iter().enumerate() {
        if let Some(summary) = summaries[i].clone() {
            outcomes[i] = Some(Outcome::Timed {
                ratio: base.as_ref().and_then(|b| summary.ratio_to(b)),
                rank: rank + 1,
                summary,
            });
        }
    }
    CallReport {
        name: bench_call.name.clone(),
        method: call.method().to_string(),
        baseline: baseline.map(|(i, _)| peers[i].name.clone()),
        results: peers
            .iter()
            .zip(outcomes)
            .map(|(contender, outcome)| PeerResult {
                peer: contender.name.clone(),
                outcome: outcome.unwrap_or(Outcome::Unsupported),
            })
            .collect(),
    }
}

/// One call, timed, and its answer rendered as [`answer`] renders it (a
/// failure as its code, a panic as its message). The rendering, and
/// dropping the answer, happen after the clock stops.
fn timed_answer(peer: &dyn Search, call: &Call) -> (Duration, Value) {
    fn clock<T: Serialize>(answer: impl FnOnce() -> Result<T, StdError>) -> (Duration, Value) {
        let started = Instant::now();
        let out = black_box(answer());
        let elapsed = started.elapsed();
        (elapsed, render(out))
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
            json!({ "panic": crate::kit::case::panic_message(&*payload) }),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{GlobInput, GlobOutput, GrepInput, GrepOutput, StdError};
    use crate::kit::materialize::TempTree;
    use crate::portable::Portable;
    use serde_json::json;

    /// Answers like `portable` but drops the last path of every glob: fast
    /// and wrong.
    struct Wrong(Portable);

    impl Search for Wrong {
        fn name(&self) -> &str {
            "wrong"
        }
        fn version(&self) -> String {
            "0".into()
        }
        fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
            self.0.grep(input)
        }
        fn glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError> {
            let mut out = self.0.glob(input)?;
            out.paths.pop();
            Ok(out)
        }
    }

    /// Answers grep only.
    struct GrepOnly(Portable);

    impl Search for GrepOnly {
        fn name(&self) -> &str {
            "grep-only"
        }
        fn version(&self) -> String {
            "0".into()
        }
        fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
            self.0.grep(input)
        }
        fn glob(&self, _: &GlobInput) -> Result<GlobOutput, StdError> {
            unreachable!("never called: glob is not supported")
        }
        fn supports(&self, method: crate::peer::Method) -> bool {
            method == crate::peer::Method::Grep
        }
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
            Contender::new("portable", Arc::new(Portable::with_threads(1))),
            Contender::new("wrong", Arc::new(Wrong(Portable::with_threads(1)))),
            Contender::new("portable-2", Arc::new(Portable::with_threads(2))),
        ];
        let mut lines = Vec::new();
        let report = run(
            &calls(root),
            &peers,
            &Options {
                rounds: 3,
                warmup: 0,
            },
            &mut |l| lines.push(l.to_string()),
        );
        let glob = &report.calls[0];
        assert_eq!(glob.baseline.as_deref(), Some("portable"));
        match &glob.results[1].outcome {
            Outcome::Disagrees { difference } => {
                assert_eq!(difference, "/paths: 1 items, expected 2", "{difference}")
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

    /// Answers like `portable` for its first `good` globs, then fails fast:
    /// an external peer that crashed and answers `request_failed`.
    struct Breaks {
        good: usize,
        calls: std::sync::atomic::AtomicUsize,
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
            if n < self.good {
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
        let breaks = Arc::new(Breaks {
            good: 3,
            calls: Default::default(),
        });
        let peers = [
            Contender::new("portable", Arc::new(Portable::with_threads(1))),
            Contender::new("breaks", breaks.clone()),
        ];
        let mut lines = Vec::new();
        let options = Options {
            rounds: 5,
            warmup: 1,
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
        let early = Arc::new(Breaks {
            good: 1,
            calls: Default::default(),
        });
        let peers = [
            Contender::new("portable", Arc::new(Portable::with_threads(1))),
            Contender::new("early", early),
        ];
        let report = run(&calls(root), &peers, &options, &mut |_| {});
        assert!(matches!(
            &report.calls[0].results[1].outcome,
            Outcome::Faulted { during, .. } if during == "warm-up 1/1"
        ));
    }

    #[test]
    fn the_baseline_is_the_first_peer_answering_the_method() {
        let dir = tree();
        let root = dir.path().to_str().unwrap();
        let peers = [
            Contender::new("grep-only", Arc::new(GrepOnly(Portable::with_threads(1)))),
            Contender::new("portable", Arc::new(Portable::with_threads(1))),
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
            Contender::new("a", Arc::new(Logged("a", log.clone()))),
            Contender::new("b", Arc::new(Logged("b", log.clone()))),
            Contender::new("c", Arc::new(Logged("c", log.clone()))),
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
            },
            &mut |_| {},
        );
        let order = log.lock().unwrap().join("");
        // check: a b c; warm-up: a b c; rounds: abc, bca, cab.
        assert_eq!(order, "abc".to_string() + "abc" + "abcbcacab");
    }
}
