//! lawsuite: a conformance-first harness and reference suite for the
//! **Smithers Ripgrep Subset v1** search contract (`grep` and `glob`).
//!
//! The contract is specified in `search-contract.md`; lawsuite is that
//! contract as a Rust library ([`contract`]), two reference peers
//! ([`portable`] in process, [`ripgrep`] driving `rg`), and a differential
//! kit ([`kit`]) that generates seeded trees and calls, runs them through
//! every peer, shrinks divergences and keeps them as regression files.
//! Hand-written [`law`]s pin one rule of the spec each.
//!
//! # Three ways to use it
//!
//! **You are writing a peer.** In Rust, implement [`peer::Search`] and run
//! the suite against it from a `harness = false` test; every law, seed and
//! regression becomes a trial of your `cargo test`, judged by the same
//! [`conformance`] engine as `lawsuite run`:
//!
//! ```no_run
//! use lawsuite::portable::Portable;
//! use lawsuite::suite::Suite;
//! # use lawsuite::peer::Noop as MyPeer;
//! Suite::new()
//!     .reference("portable", Portable::default())
//!     .peer("mine", MyPeer)
//!     .run()
//! ```
//!
//! In any other language, speak the stdio protocol ([`protocol`],
//! `peers/PROTOCOL.md`), register the program in a project file
//! (`lawsuite init` writes one, [`project`]) and run `lawsuite run`.
//!
//! **You found a divergence.** Shrink it and keep it: `lawsuite record
//! --generator lawsuite --seed 17 --call 3 --peer mine` writes it into the
//! project's regression directory, replayed by `lawsuite run` and `cargo
//! test` from then on. The same from code, through the engine:
//!
//! ```
//! use lawsuite::conformance::{Engine, Subject, Verdict};
//! use lawsuite::kit::Generator;
//! use lawsuite::peer::Ground;
//! use lawsuite::portable::Portable;
//!
//! // The TypeScript kit's seed 4, compared between two portable peers
//! // (one single-threaded): no divergence.
//! let mut engine = Engine::new(
//!     Subject::new("portable", Portable::default()),
//!     vec![Subject::new("single", Portable::with_threads(1))],
//! );
//! engine.add_seeds(Generator::Smthrs, Ground::Shared, &[4], None);
//! let trial = &engine.trials()[0];
//! assert_eq!(engine.run_trial(trial).verdict, Verdict::Pass);
//! ```
//!
//! **You are choosing a peer.** `lawsuite bench --peer portable --peer
//! ripgrep --corpus generated:M` times registered peers (external ones
//! included) head to head, checking every answer before its timing counts;
//! [`bench`](mod@bench) is the same from code, and `cargo bench --bench peers` adds
//! `rg` itself and a walk+read floor (`benches/README.md` has the figures).
//!
//! # Map
//!
//! | module | what |
//! | --- | --- |
//! | [`bench`](mod@bench) | head-to-head peer benchmarks: corpora, query kinds, interleaved timing, ratio tables |
//! | [`call`] | one call of any method, typed, and the one dispatcher to a peer |
//! | [`conformance`] | the engine: laws, regressions, seeds × peers → verdicts; reports in every format |
//! | [`contract`] | wire types, validation, pattern grammar, globs, `.gitignore`, grouping, notices, errors (one module per spec section) |
//! | [`peer`] | the [`peer::Search`] trait, [`peer::Method`], [`peer::Ground`], the no-op peer |
//! | [`flow`] | the flow layer: `grep`/`glob` over the seam (validate, normalise, literal retry), and the `read`, `ls` and `bash` flows |
//! | [`portable`] | the in-process reference peer: walk and streaming scan |
//! | [`ripgrep`] | the `rg`-driven peer, and `ripgrep-walk`, where `rg` walks |
//! | [`differences`] | the built-in peers' known differences from the contract, one table: the laws each fails, the tests that show it, how a sweep recognises it |
//! | [`kit`] | plans (two generators), materialising, comparing, shrinking, regressions |
//! | [`law`] | laws as TOML data (`laws/`, compiled in by [`shipped`]) |
//! | [`project`] | a user's `lawsuite.toml`: peers, regressions, expected failures |
//! | [`registry`] | peer registries (`peers.toml`, or inline in a project) |
//! | [`protocol`] | external peers over stdio JSON-RPC: client (feature `external`) and server |
//! | [`suite`] | libtest-mimic trials: `cargo test` as the front door |
//!
//! # Features
//!
//! * `external` (default): external peers over the protocol (pulls in tokio).
//! * `cli` (default): the `lawsuite` binary.
//!
//! A crate testing an in-process peer can turn both off
//! (`default-features = false`).
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

pub mod bench;
pub mod call;
pub mod conformance;
pub mod contract;
pub mod differences;
pub mod environment;
pub mod flow;
pub mod kit;
pub mod law;
pub mod peer;
pub mod portable;
pub mod project;
pub mod protocol;
pub mod registry;
pub mod report;
pub mod ripgrep;
pub mod shipped;
pub mod suite;
