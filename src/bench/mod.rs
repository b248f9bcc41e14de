//! Head-to-head peer benchmarks: `lawsuite bench` and `cargo bench --bench
//! peers` share this module.
//!
//! * [`corpus`]: the seeded trees S, M and L, the 1 GiB single file, or a
//!   directory searched in place;
//! * [`calls`]: the built-in query kinds (with the `rg` command line that
//!   does the same search) and calls files in the kit's `Call` format;
//! * [`run`]: the agreement check, warm-up and interleaved rounds;
//! * [`stats`]: median, spread and ratio;
//! * [`report`]: the results as a terminal table, JSON and Markdown.
//!
//! A benchmark never times an answer it has not checked: every peer's
//! answer to a call is compared with the baseline's before any timing of
//! that call counts, and a peer that answers differently is flagged and
//! left out of the ratios (`benches/README.md` has the figures and how to
//! read them).
//!
//! ```
//! use lawsuite::bench::{calls, corpus::Corpus, run};
//! use lawsuite::peer::Subject;
//! use lawsuite::portable::Portable;
//!
//! let corpus = "generated:S".parse::<Corpus>()?.prepare()?;
//! let root = corpus.root.to_str().expect("UTF-8 temp dir");
//! let rare: Vec<_> = calls::builtin(root).iter().take(1).map(|q| q.bench_call()).collect();
//! let peers = [
//!     Subject::new("one-thread", Portable::with_threads(1)),
//!     Subject::new("two-threads", Portable::with_threads(2)),
//! ];
//! let options = run::Options { rounds: 1, warmup: 0, ..run::Options::default() };
//! let report = run::run(&rare, &peers, &options, &mut |_| {});
//! assert!(!report.has_disagreement());
//! println!("{}", report.table());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod calls;
pub mod corpus;
pub mod report;
pub mod run;
pub mod stats;
