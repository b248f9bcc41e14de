//! A run reported as it happens: [`Live`] is fed the engine's
//! [`Event`]s ([`crate::conformance::Engine::run_stream_until`]) and writes
//! each outcome in the run's [`Format`] as it arrives (a `jsonl` line, a
//! human failure with its diff), keeps a progress line on a status stream,
//! and ends with the format's closing text ([`render`]).
//!
//! `lawsuite run` is an adapter onto it: it chooses the streams (stdout
//! and stderr) and says whether they are terminals; everything written is
//! decided here, so a tool that drives an [`crate::conformance::Engine`]
//! itself reports exactly as the binary does, as nextest's reporter is a
//! library type its runner feeds.
//!
//! ```
//! use lawsuite::conformance::{Event, Kind, Outcome, Summary, Verdict};
//! use lawsuite::report::live::{Live, LiveOptions};
//! use lawsuite::report::results::Closing;
//! use lawsuite::report::{Format, RunInfo};
//!
//! // A terminal status stream: the progress line is redrawn per outcome.
//! let options = LiveOptions::new(Format::Jsonl).terminal(true).totals(&[(Kind::Law, 1)]);
//! let mut live = Live::new(options, Vec::new(), Vec::new());
//! let info = RunInfo::default();
//! live.start(&info)?;
//! let outcome = Outcome {
//!     id: "law::glob::x::y::portable".parse().unwrap(),
//!     item: "law::glob::x::y".into(),
//!     kind: Kind::Law,
//!     peer: Some("portable".into()),
//!     spec: None,
//!     verdict: Verdict::Pass,
//!     documented: Default::default(),
//!     seconds: 0.0,
//!     compared: 0,
//! };
//! live.event(&Event::Outcome(Box::new(outcome.clone())))?;
//! let outcomes = [outcome];
//! let summary = Summary::of(&outcomes, std::time::Duration::ZERO, Vec::new());
//! live.finish(&info, &outcomes, &summary, &Closing::complete())?;
//! let (out, status) = live.into_inner();
//! let text = String::from_utf8(out)?;
//! assert_eq!(text.lines().count(), 3, "{text}"); // run, outcome, summary
//! assert!(String::from_utf8(status)?.contains("laws 1/1 · 0 failing"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::{self, Write};

use super::human::Shown;
use super::results::Closing;
use super::{Format, RunInfo, escaped, jsonl_line, render};
use crate::conformance::{Event, Kind, Outcome, Summary};

/// How a [`Live`] report writes.
#[derive(Clone, Debug)]
pub struct LiveOptions {
    format: Format,
    color: bool,
    terminal: bool,
    max_reports: usize,
    totals: [usize; 5],
}

impl LiveOptions {
    /// `format`, no colour, a status stream that is not a terminal (a
    /// progress line every tenth of the run), every failure in full, and
    /// no trials counted yet.
    pub fn new(format: Format) -> LiveOptions {
        LiveOptions {
            format,
            color: false,
            terminal: false,
            max_reports: 0,
            totals: [0; 5],
        }
    }

    /// Colour the human failures (for a terminal).
    pub fn color(mut self, yes: bool) -> LiveOptions {
        self.color = yes;
        self
    }

    /// The status stream is a terminal: the progress line is redrawn in
    /// place after every outcome, and cleared before a line is written.
    pub fn terminal(mut self, yes: bool) -> LiveOptions {
        self.terminal = yes;
        self
    }

    /// At most this many failing cases in full (0: all), the rest counted
    /// (`--max-reports`).
    pub fn max_reports(mut self, n: usize) -> LiveOptions {
        self.max_reports = n;
        self
    }

    /// How many trials of each kind the run has, for the progress line.
    pub fn totals(mut self, totals: &[(Kind, usize)]) -> LiveOptions {
        for (kind, n) in totals {
            self.totals[slot(*kind)] = self.totals[slot(*kind)].saturating_add(*n);
        }
        self
    }
}

/// The reporter of a run as it happens (module doc): what the format
/// streams goes to `out`, the progress line and a stopped peer's notice to
/// `status`.
#[allow(missing_debug_implementations)] // it holds the caller's streams
pub struct Live<O: Write, S: Write> {
    options: LiveOptions,
    out: O,
    status: S,
    done: [usize; 5],
    failures: usize,
    finished: usize,
    shown: Shown,
}

impl<O: Write, S: Write> Live<O, S> {
    /// A reporter writing to `out` and `status`.
    pub fn new(options: LiveOptions, out: O, status: S) -> Live<O, S> {
        let shown = Shown::new(options.max_reports);
        Live {
            options,
            out,
            status,
            done: [0; 5],
            failures: 0,
            finished: 0,
            shown,
        }
    }

    /// Before the first event: the `jsonl` format's `run` line.
    pub fn start(&mut self, info: &RunInfo) -> io::Result<()> {
        if self.options.format == Format::Jsonl {
            writeln!(self.out, "{}", jsonl_line("run", info))?;
        }
        Ok(())
    }

    /// One event of the engine.
    pub fn event(&mut self, event: &Event) -> io::Result<()> {
        match event {
            Event::Outcome(o) => self.outcome(o),
            Event::PeerStopped { peer, at, why } => {
                self.clear_progress()?;
                writeln!(
                    self.status,
                    "\nPEER STOPPED: the harness gave up restarting {peer} during {at}:\n  {}\n  its later trials are not run and count as broken.\n",
                    escaped(why, "  ")
                )?;
                if self.options.format == Format::Jsonl {
                    let line = serde_json::json!({"peer": peer, "at": at, "why": why});
                    writeln!(self.out, "{}", jsonl_line("peerStopped", &line))?;
                }
                Ok(())
            }
        }
    }

    fn outcome(&mut self, o: &Outcome) -> io::Result<()> {
        self.finished += 1;
        self.done[slot(o.kind)] += 1;
        if o.verdict.is_failure() {
            self.failures += 1;
        }
        match self.options.format {
            Format::Jsonl => {
                writeln!(self.out, "{}", jsonl_line("outcome", o))?;
                self.out.flush()?;
            }
            Format::Human => {
                if let Some(text) = self.shown.outcome(o, self.options.color) {
                    self.clear_progress()?;
                    writeln!(self.out, "{text}")?;
                }
            }
            _ => {}
        }
        let total: usize = self.options.totals.iter().sum();
        let tenth = (total / 10).max(50);
        if self.options.terminal {
            write!(self.status, "\r{}", self.progress())?;
            self.status.flush()?;
        } else if self.finished.is_multiple_of(tenth) {
            writeln!(self.status, "{}", self.progress())?;
        }
        Ok(())
    }

    /// After the last event: the last progress line, how many failures
    /// were not shown in full, and the format's closing text (for the
    /// document formats, the whole document).
    pub fn finish(
        &mut self,
        info: &RunInfo,
        outcomes: &[Outcome],
        summary: &Summary,
        closing: &Closing,
    ) -> io::Result<()> {
        if self.options.terminal {
            writeln!(self.status, "\r\x1b[2K{}", self.progress())?;
        }
        if self.options.format == Format::Human && self.shown.not_shown() > 0 {
            writeln!(
                self.out,
                "{}",
                crate::conformance::sentence::not_shown(
                    self.shown.not_shown(),
                    crate::conformance::sentence::FrontDoor::Run
                )
            )?;
        }
        let text = render(
            self.options.format,
            info,
            outcomes,
            summary,
            closing,
            self.options.max_reports,
            false,
        );
        write!(self.out, "{text}")?;
        self.out.flush()
    }

    /// `laws 1200/3977 · regressions 3/3 · seeds 4/12 · 2 failing`.
    pub fn progress(&self) -> String {
        let mut parts = Vec::new();
        for (i, label) in ["laws", "regressions", "seeds", "exhaustive", "checks"]
            .iter()
            .enumerate()
        {
            if self.options.totals[i] > 0 {
                parts.push(format!(
                    "{label} {}/{}",
                    self.done[i], self.options.totals[i]
                ));
            }
        }
        parts.push(format!("{} failing", self.failures));
        parts.join(" · ")
    }

    /// The two streams back, once the run is reported.
    pub fn into_inner(self) -> (O, S) {
        (self.out, self.status)
    }

    /// On a terminal, the progress line is erased before a line is
    /// written over it.
    fn clear_progress(&mut self) -> io::Result<()> {
        if self.options.terminal {
            write!(self.status, "\r\x1b[2K")?;
        }
        Ok(())
    }
}

/// Where a kind counts in the progress line.
fn slot(kind: Kind) -> usize {
    match kind {
        Kind::Law => 0,
        Kind::Regression => 1,
        Kind::Seed => 2,
        Kind::Exhaustive => 3,
        Kind::Check => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::Verdict;

    fn outcome(kind: Kind, verdict: Verdict) -> Outcome {
        crate::testing::outcome(kind, "mine", "law::glob::x::y", verdict)
    }

    /// Human: a failure streams as it arrives, a pass does not; on a
    /// terminal the progress line is redrawn and cleared before the
    /// failure; a stopped peer is said on the status stream.
    #[test]
    fn human_failures_stream_and_the_progress_line_follows() {
        let options = LiveOptions::new(Format::Human)
            .terminal(true)
            .totals(&[(Kind::Law, 2), (Kind::Seed, 1)]);
        let mut live = Live::new(options, Vec::new(), Vec::new());
        live.event(&Event::Outcome(Box::new(outcome(Kind::Law, Verdict::Pass))))
            .unwrap();
        let failed = Verdict::Broken {
            why: "its tree cannot be written".into(),
        };
        live.event(&Event::Outcome(Box::new(outcome(Kind::Law, failed))))
            .unwrap();
        live.event(&Event::PeerStopped {
            peer: "mine".into(),
            at: "seed::lawsuite::0001::mine".into(),
            why: "it exited\x1b[31m".into(),
        })
        .unwrap();
        assert_eq!(live.progress(), "laws 2/2 · seeds 0/1 · 1 failing");
        let (out, status) = live.into_inner();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("its tree cannot be written"), "{out}");
        assert_eq!(
            out.matches("mine").count(),
            1,
            "the pass is not streamed: {out}"
        );
        let status = String::from_utf8(status).unwrap();
        assert!(
            status.contains("\rlaws 1/2 · seeds 0/1 · 0 failing"),
            "{status:?}"
        );
        assert!(status.contains("\r\x1b[2K"), "{status:?}");
        assert!(status.contains("PEER STOPPED"), "{status:?}");
        assert!(
            status.contains(r"it exited\u{001B}[31m"),
            "escaped: {status:?}"
        );
    }

    /// Not a terminal: a progress line every tenth of the run (at least
    /// every 50 outcomes), never a carriage return.
    #[test]
    fn a_status_file_gets_a_line_every_tenth() {
        let options = LiveOptions::new(Format::Junit).totals(&[(Kind::Law, 1000)]);
        let mut live = Live::new(options, Vec::new(), Vec::new());
        for _ in 0..250 {
            live.event(&Event::Outcome(Box::new(outcome(Kind::Law, Verdict::Pass))))
                .unwrap();
        }
        let (out, status) = live.into_inner();
        let status = String::from_utf8(status).unwrap();
        assert_eq!(
            status.lines().collect::<Vec<_>>(),
            ["laws 100/1000 · 0 failing", "laws 200/1000 · 0 failing"]
        );
        assert!(out.is_empty(), "junit writes only at the end");
    }
}
