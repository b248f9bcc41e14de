//! lawsuite: a conformance-first harness and reference suite for the
//! **Smithers Ripgrep Subset v1** search contract (`grep` and `glob`) and
//! the read-only file flows built on it (`read`, `ls`, `bash` capture).
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
//! [`bench`](mod@bench) is the same from code. `cargo bench --bench peers`,
//! in this repository, times something else: the built-in `portable` peer
//! against `rg` itself and a walk+read floor, never a registered peer
//! (`benches/README.md` has the figures).
//!
//! # Should I be using this crate?
//!
//! Which parts you need depends on what you are doing:
//!
//! * **Testing a Rust peer**: [`peer::Search`] (implement it) and
//!   [`suite::Suite`] (run it from a `harness = false` test). Turn the
//!   default features off; nothing else is needed.
//! * **Testing a peer in another language**: none of the library. Install
//!   the binary, `lawsuite init --lang node|python|rust`, and read the
//!   protocol (`lawsuite docs`); the adapters in `adapters/` speak it.
//! * **Building tools on the contract** (a linter for patterns, a search
//!   service): [`contract`] and [`flow`] are the spec as a library, with no
//!   idea that a harness exists.
//! * **Extending the harness**: [`conformance`] assembles and judges every
//!   run ([`conformance::config::Config`] says what a run holds,
//!   [`conformance::peers`] which peers it holds); [`law`] and [`kit`] are
//!   the two kinds of case; [`report`] writes the outcomes.
//!
//! # Glossary
//!
//! * **law**: one hand-written case (a tree, a call, the answer) pinning
//!   one rule of the spec, named by its section; TOML data in `laws/`.
//! * **seed**: a number a generator turns into a plan (a tree and calls);
//!   the same seed is the same plan on every machine.
//! * **subject**: a peer under test, compared with the reference.
//! * **reference**: the peer subjects are compared with on seeds
//!   (`portable` by default); laws judge it like any other peer.
//! * **ground**: the kinds of file a generated tree may hold: `shared`
//!   (plain files every host can write) or `full` (CRLF, invalid UTF-8,
//!   symlinks, unreadable entries).
//! * **seam**: the `Search` service's two methods on normalised input,
//!   `grep` and `glob`, where peers are compared.
//! * **flow**: what a caller's request goes through around the seam
//!   (validation, defaults, literal retry), and the file flows `read`,
//!   `ls`, `bash`.
//! * **regression**: a divergence shrunk to a minimal tree and call, kept
//!   as a file in the user's project and replayed by every run.
//! * **expected failure**: a law (or regression) a peer is known to fail,
//!   listed with the reason, by registered peer name and item id
//!   (`law::grep::context::…`, `regression::r1`); a listed law that passes
//!   fails the run, so the list stays true. A project keeps them as TOML
//!   (`lawsuite/expected/*.toml`), one table per peer:
//!
//!   ```
//!   use lawsuite::conformance::expect::Expectations;
//!
//!   let dir = tempfile::tempdir()?;
//!   std::fs::write(
//!       dir.path().join("mine.toml"),
//!       r#"[mine]
//!   "law::grep::context::context-tie-goes-to-the-earlier-match" = "context ownership is not done yet"
//!   "#,
//!   )?;
//!   let mut listed = Expectations::default();
//!   listed.load_dir(dir.path());
//!   // Read as written: no problem, and no warning (a law listed without
//!   // `law::`, the older spelling, draws one).
//!   assert!(listed.problems.is_empty() && listed.warnings.is_empty(), "{:?}", listed.warnings);
//!   let id = "law::grep::context::context-tie-goes-to-the-earlier-match";
//!   assert!(listed.lookup("mine", None, id).is_some());
//!   # Ok::<(), Box<dyn std::error::Error>>(())
//!   ```
//!
//! * **documented difference**: a way a *built-in* peer is known to differ
//!   from the contract ([`differences`]), recognised on seeds by the exact
//!   answer it predicts. Only built-ins have them, by registration: a peer
//!   under test may be skipped where it does not answer a method, but it
//!   never excuses itself.
//!
//! # Map
//!
//! | module | what |
//! | --- | --- |
//! | [`bench`](mod@bench) | head-to-head peer benchmarks: corpora, query kinds, interleaved timing, ratio tables |
//! | [`call`] | one call of any method, typed, and the one dispatcher to a peer |
//! | [`conformance`] | the engine, the one place that assembles a run (config, peers) and judges each trial |
//! | [`environment`] | every `LAWSUITE_*` variable, read in one place |
//! | [`contract`] | wire types, validation, pattern grammar, globs, `.gitignore`, grouping, notices, errors (one module per spec section) |
//! | [`peer`] | the [`peer::Search`] trait, [`peer::Method`], [`peer::Ground`], the no-op peer |
//! | [`flow`] | the flow layer: `grep`/`glob` over the seam (validate, normalise, literal retry), and the `read`, `ls` and `bash` flows |
//! | [`portable`] | the in-process reference peer: walk and streaming scan |
//! | [`ripgrep`] | the `rg`-driven peer, and `ripgrep-walk`, where `rg` walks |
//! | [`git`] | the `git` peer: git's own reading of `.gitignore` decides the walk of `glob` |
//! | [`model`] | a slow, spec-literal second opinion sharing no rule code with `portable` (a subject, never the reference) |
//! | [`differences`] | the built-in peers' known differences from the contract, one table: the laws each fails, the tests that show it, how a sweep recognises it |
//! | [`kit`] | plans (two generators), materialising, comparing, shrinking, regressions |
//! | [`law`] | laws as TOML data (`laws/`, compiled in by [`shipped`]) |
//! | [`project`] | a user's `lawsuite.toml`: peers, regressions, expected failures |
//! | [`scaffold`] | `lawsuite init --lang …` skeleton peers, and the documents copied with them |
//! | [`registry`] | peer registries (`peers.toml`, or inline in a project) |
//! | [`file_error`] | [`file_error::FileError`]: the one error for a file lawsuite reads or writes, its path and what went wrong |
//! | [`regular_file`] | lawsuite's own files: read only when regular (never a FIFO that would block), written whole and under a lock ([`regular_file::replace_whole`], [`regular_file::Held`]) |
//! | [`protocol`] | external peers over stdio JSON-RPC: client (feature `external`) and server |
//! | [`report`] | the outcomes in every format: human, JSON, JSON lines, JUnit, Markdown, HTML; results files and merging |
//! | [`suite`] | libtest-mimic trials: `cargo test` as the front door |
//!
//! # Features
//!
//! * `external` (default): external peers over the protocol (pulls in tokio).
//! * `cli` (default): the `lawsuite` binary.
//! * `tools` (default, and part of `cli`): [`bench`](mod@bench) and the
//!   real-tree differential (`kit::real_tree`), which a peer's own tests
//!   do not use.
//!
//! A crate testing an in-process peer can turn them all off
//! (`default-features = false`). Measured from an empty target directory
//! on 2 cores, such a crate's first `cargo test` (the skeleton of
//! `lawsuite init --lang rust`: build and 2,125 trials) takes about 26 s
//! wall and 45 CPU-s, and a rerun after a one-line change 3.3 s. lawsuite
//! itself is 9 s of the 37 s of compile units; optimising `regex-automata`
//! and `regex-syntax` in the test profile cost 7 s wall and 19 CPU-s more
//! to build and saved 0.4 s a run, so no profile advice is given.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

#[cfg(feature = "tools")]
pub mod bench;
pub mod call;
pub mod conformance;
pub mod contract;
pub mod differences;
pub mod environment;
pub mod file_error;
pub mod flow;
pub mod git;
pub mod kit;
pub mod law;
pub mod model;
pub mod peer;
pub mod portable;
pub mod project;
pub mod protocol;
pub mod registry;
pub mod regular_file;
pub mod report;
pub mod ripgrep;
pub mod scaffold;
pub mod shipped;
pub mod suite;
pub mod testing;

/// The README's Rust blocks, compiled as doc tests so its setup stays
/// true as written.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
