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
//! **You are writing a peer.** Implement [`peer::Search`] and run the
//! suite against it from a `harness = false` test; every law, seed and
//! regression becomes a trial of your `cargo test`:
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
//! **You found a divergence.** Shrink it and keep it: `lawsuite record
//! --generator lawsuite --seed 17 --call 3 --peer mine` writes
//! `fixtures/regressions/<name>.json`, replayed by `cargo test` from then on.
//! The same from code:
//!
//! ```
//! use lawsuite::kit::compare::compare_plan;
//! use lawsuite::kit::smthrs;
//! use lawsuite::kit::plan::PlanOptions;
//! use lawsuite::portable::Portable;
//!
//! // The TypeScript kit's seed 4, compared between two portable peers
//! // (one single-threaded): no divergence.
//! let plan = smthrs::plan(4, "/r", &PlanOptions::default());
//! let divergences = compare_plan(&plan, &Portable::default(), &[&Portable::with_threads(1)])?;
//! assert!(divergences.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
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
//! | [`contract`] | wire types, validation, pattern grammar, globs, `.gitignore`, grouping, notices, errors (one module per spec section) |
//! | [`peer`] | the [`peer::Search`] trait and the no-op peer |
//! | [`flow`] | the `grep`/`glob` flow handlers: validate, call a peer, literal retry |
//! | [`portable`] | the in-process reference peer: walk and streaming scan |
//! | [`ripgrep`] | the `rg`-driven peer, and `ripgrep-walk`, where `rg` walks |
//! | [`kit`] | plans (two generators), materialising, comparing, reports, shrinking, regressions |
//! | [`law`] | laws as TOML data under `laws/` |
//! | [`registry`] | `peers/peers.toml` |
//! | [`suite`] | libtest-mimic trials: `cargo test` as the front door |
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

pub mod bench;
pub mod call;
pub mod conformance;
pub mod contract;
pub mod flow;
pub mod flows;
pub mod kit;
pub mod law;
pub mod peer;
pub mod portable;
pub mod project;
pub mod protocol;
pub mod registry;
pub mod ripgrep;
pub mod shipped;
pub mod suite;
