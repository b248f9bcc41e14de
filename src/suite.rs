//! `cargo test` as the front door: every law, regression and seed, for
//! every peer, as its own libtest trial ([libtest-mimic]), judged by the
//! one [conformance engine](crate::conformance) `lawsuite run` uses.
//!
//! A crate that implements a peer gets the same trials from a
//! `harness = false` test:
//!
//! ```no_run
//! use lawsuite::portable::Portable;
//! use lawsuite::suite::Suite;
//! # use lawsuite::peer::Noop as MyPeer;
//!
//! // tests/conformance.rs, with `[[test]] name = "conformance" harness = false`
//! fn main() {
//!     Suite::new()
//!         .reference("portable", Portable::default())
//!         .peer("mine", MyPeer)
//!         // Known gaps of `mine`, each with the reason; a listed law that
//!         // passes fails, so the list stays true. Tables in the project's
//!         // expected directory (`lawsuite/expected/*.toml`) work too.
//!         .expect_failure("mine", "law::grep::context::context-tie-goes-to-the-earlier-match", "not done yet")
//!         .run()
//! }
//! ```
//!
//! **Data is found at run time, from the crate under test.** The laws
//! lawsuite ships are compiled in. Regressions and expected failures are
//! the calling crate's own: its `lawsuite.toml` if it has one
//! ([`crate::project`]), else `lawsuite/regressions/` and
//! `lawsuite/expected/` beside its `Cargo.toml` (cargo runs tests there),
//! as proptest keeps its regressions beside the caller's source.
//!
//! Trials are named `law::<area>::<file>::<law>::<peer>`,
//! `regression::<file>::<peer>`, `seed::<generator>::<seed>::<peer>` and
//! `exhaustive::<family>::<size>::<peer>` (every shape of a family up to a
//! size: [`crate::kit::exhaustive`])
//! (a law whose method a peer does not answer is an ignored trial, never a
//! failure), so `cargo test -- law::glob::` or `cargo test -- ::mine` select
//! them; `--list`, `--exact` and `--format json` work as with libtest, and
//! so does `cargo nextest` (including `--partition hash:m/n`). A failure
//! prints its report, ending with the command that runs it alone.
//!
//! Environment:
//! * `LAWSUITE_SEEDS=A..B` (or `N`) replaces the default seeds of every
//!   generator (a wider sweep); `LAWSUITE_GROUND=full` puts the `lawsuite`
//!   generator on its full ground. A suite of more than [`MAX_TRIALS`]
//!   trials (a million: `LAWSUITE_SEEDS=0..500000` on one peer is about
//!   that) is one failing `suite::setup` trial saying how many it would
//!   make, since libtest holds every trial it lists; `lawsuite run
//!   --seeds A..B` runs a sweep of any width, making each trial as it runs
//!   it.
//! * `LAWSUITE_EXHAUSTIVE_SIZE=N` runs every bounded-exhaustive family at
//!   size N on every peer instead of each at its default (`0`: none;
//!   [`Suite::exhaustive_size`] wins over it).
//! * `LAWSUITE_RECORD=1`: a failing seed trial shrinks its first
//!   divergences and writes them into the project's regression directory.
//! * `LAWSUITE_MAX_REPORTS=N`: the first N failing calls are printed in
//!   full (default 20, as `lawsuite run --max-reports`; `0` prints all);
//!   each later failure is one line, its summary. After libtest's result
//!   line comes the summary `lawsuite run` ends with: counts by kind and
//!   peer, and the failing laws by spec section.
//!
//! [libtest-mimic]: https://docs.rs/libtest-mimic

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use libtest_mimic::{Arguments, Failed, Trial};

use crate::conformance::config::{Config, ConfigBuilder, ConfigError, ListedFailure, Seeds};
use crate::conformance::peers::{PeerError, PeerSet, Unavailable};
use crate::conformance::{Engine, Outcome, Replay, Subject, Summary, Verdict};
use crate::environment::{EnvError, Environment};
use crate::peer::{Ground, Search};
use crate::project::{Project, ProjectError};
use crate::registry::{Registry, RegistryError, UnknownBuiltin};
use crate::report::{RunInfo, human_report_within, human_summary};

use crate::conformance::config::DEFAULT_MAX_REPORTS;

/// What a suite's trials share while libtest runs them on its threads:
/// every outcome (for the closing summary) and how many failing calls may
/// still be printed in full.
#[derive(Debug)]
struct Shared {
    state: Mutex<SharedState>,
    max_reports: usize,
}

#[derive(Debug, Default)]
struct SharedState {
    outcomes: Vec<Outcome>,
    left: usize,
    held_back: usize,
}

impl Shared {
    fn new(max_reports: usize) -> Shared {
        let left = if max_reports == 0 {
            usize::MAX
        } else {
            max_reports
        };
        Shared {
            state: Mutex::new(SharedState {
                left,
                ..SharedState::default()
            }),
            max_reports,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SharedState> {
        // A trial that panicked holding the lock left whole data behind:
        // the counts are still right.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `outcome` as libtest sees it, kept for the summary: a failure is
    /// printed in full while the budget lasts, then as its summary line.
    fn judge(&self, outcome: Outcome) -> Result<(), Failed> {
        let mut state = self.lock();
        let result = match &outcome.verdict {
            Verdict::Fail { report } if state.left == 0 => {
                state.held_back += 1;
                Err(format!(
                    "{}\n  (not shown in full: the first {} failing calls are; {})",
                    crate::kit::report::bounded(&report.summary),
                    self.max_reports,
                    crate::conformance::sentence::FrontDoor::CargoTest.how_to_see_all()
                )
                .into())
            }
            Verdict::Fail { report } => {
                let cases = report.cases.len().clamp(1, state.left);
                state.left -= cases;
                Err(human_report_within(report, cases, "LAWSUITE_MAX_REPORTS=0 shows all").into())
            }
            _ => to_result(&outcome),
        };
        state.outcomes.push(outcome);
        result
    }

    /// The summary `lawsuite run` ends with, over the trials that ran.
    fn summary(&self, engine: &Engine, started: Instant) -> Option<String> {
        let state = self.lock();
        if state.outcomes.is_empty() {
            return None;
        }
        let summary = Summary::of(&state.outcomes, started.elapsed(), engine.stopped());
        let generators: Vec<&str> = engine
            .items()
            .iter()
            .filter_map(|i| match i {
                crate::conformance::Item::Seed(s) => Some(s.generator.name()),
                crate::conformance::Item::Seeds(r) => Some(r.generator.name()),
                _ => None,
            })
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let info = RunInfo {
            reference: engine.peers()[0].name().to_string(),
            generator: (!generators.is_empty()).then(|| generators.join(", ")),
            ..RunInfo::default()
        };
        let mut text = format!("lawsuite summary\n{}", human_summary(&info, &summary));
        if state.held_back > 0 {
            text.push_str(&format!(
                "{} failures after the first {} failing calls were printed as one line each; LAWSUITE_MAX_REPORTS=0 prints every one in full\n",
                state.held_back, self.max_reports
            ));
        }
        Some(text)
    }
}

pub use crate::kit::plan::PLAN_ROOT;
pub use crate::kit::{LAWSUITE_SEEDS, SMTHRS_SEEDS};

/// Why a suite cannot make its trials. Each is a line of the failing
/// `suite::setup` trial (a suite that cannot be set up never passes by
/// running less than it was asked to).
#[derive(Clone, Debug)]
pub enum SuiteSetupError {
    /// A `LAWSUITE_*` variable is set to a value it cannot take.
    Env(EnvError),
    /// The calling crate's project cannot be found or read.
    Project(Arc<ProjectError>),
    /// The project's peers cannot be read.
    Registry(Arc<RegistryError>),
    /// The registered peers cannot make a run.
    Peers(PeerError),
    /// [`Suite::builtin_peer`] named no built-in.
    UnknownBuiltin {
        /// The name the peer was to be registered as.
        name: String,
        /// The name given as the built-in.
        builtin: UnknownBuiltin,
    },
    /// Neither [`Suite::reference`] nor the project named a reference.
    NoReference,
    /// The configuration cannot make a run ([`ConfigBuilder::build`],
    /// [`Config::engine`]).
    Config(ConfigError),
}

impl std::fmt::Display for SuiteSetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SuiteSetupError::Env(e) => e.fmt(f),
            SuiteSetupError::Project(e) => e.fmt(f),
            SuiteSetupError::Registry(e) => e.fmt(f),
            SuiteSetupError::Peers(e) => e.fmt(f),
            SuiteSetupError::UnknownBuiltin { name, builtin } => {
                write!(f, "Suite::builtin_peer({name:?}, …): {builtin}")
            }
            SuiteSetupError::NoReference => f.write_str(
                "the suite has no reference peer; call Suite::reference, or register one in lawsuite.toml",
            ),
            SuiteSetupError::Config(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SuiteSetupError {}

/// A set of trials over a reference and any number of peers: a builder
/// over a [`Config`] (what runs) and the peers it runs on.
#[derive(Clone)]
pub struct Suite {
    config: ConfigBuilder,
    /// The calling crate's project, or why it cannot be read (shared: a
    /// suite is cloned, the error is not).
    project: Result<Project, Arc<ProjectError>>,
    reference: Option<Subject>,
    peers: Vec<Subject>,
    unavailable: Vec<Unavailable>,
    setup_errors: Vec<SuiteSetupError>,
}

impl std::fmt::Debug for Suite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Suite")
            .field("reference", &self.reference.as_ref().map(|r| r.name()))
            .field(
                "peers",
                &self.peers.iter().map(|p| p.name()).collect::<Vec<_>>(),
            )
            .field("unavailable", &self.unavailable)
            .field("config", &self.config)
            .finish()
    }
}

impl Default for Suite {
    fn default() -> Self {
        Suite::new()
    }
}

/// The directory of the crate under test: cargo sets `CARGO_MANIFEST_DIR`
/// in the environment of the test binaries it runs (a run-time lookup, not
/// the compile-time `env!`, which would name lawsuite's own directory).
fn caller_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."))
}

impl Suite {
    /// An empty suite: no peers yet, and the calling crate's project for
    /// laws, regressions and expected failures
    /// ([`ConfigBuilder::project`]: the shipped laws, the one default seed
    /// policy, the `LAWSUITE_*` variables).
    pub fn new() -> Suite {
        let project = Project::discover(&caller_dir()).map_err(Arc::new);
        // The environment is read once, here; a variable set to a value it
        // cannot take fails the suite's setup, naming it.
        let (environment, setup_errors) = match Environment::read() {
            Ok(environment) => (environment, Vec::new()),
            Err(errors) => (
                Environment::none(),
                errors.into_iter().map(SuiteSetupError::Env).collect(),
            ),
        };
        let mut config = Config::builder()
            .environment(environment)
            .replay(Replay::CargoTest {
                target: test_target(),
            })
            // A peer crate's trials are its peers': the reference is the
            // oracle of the seeds, not a subject of the laws (which
            // `judge_reference` turns back on).
            .judge_reference(false);
        if let Ok(project) = &project {
            config = config.project(project);
        }
        Suite {
            config,
            project,
            reference: None,
            peers: Vec::new(),
            unavailable: Vec::new(),
            setup_errors,
        }
    }

    /// A suite over the calling crate's project: its `lawsuite.toml`
    /// peers (or the built-in ones), laws, regressions and expected
    /// failures.
    pub fn from_project() -> Suite {
        let suite = Suite::new();
        let project = suite.project.clone();
        suite.with_project(project)
    }

    /// A suite over `project`: its peers, laws, regressions and expected
    /// failures.
    pub fn for_project(project: Project) -> Suite {
        Suite::new().with_project(Ok(project))
    }

    fn with_project(mut self, project: Result<Project, Arc<ProjectError>>) -> Suite {
        if let Ok(project) = &project {
            self.config = self.config.project(project);
        }
        let options = self.config.peer_options();
        // An unreadable project is said once, by `Suite::config`.
        if let Ok(project) = &project {
            match project.registry(&options) {
                Ok(registry) => self.add_registry(&registry),
                Err(e) => self
                    .setup_errors
                    .push(SuiteSetupError::Registry(Arc::new(e))),
            }
        }
        self.project = project;
        self
    }

    /// The peers of a registry file (`peers.toml`).
    pub fn from_registry(registry: &Registry) -> Suite {
        let mut suite = Suite::new();
        suite.add_registry(registry);
        suite
    }

    fn add_registry(&mut self, registry: &Registry) {
        match PeerSet::from_registry(registry, &[]) {
            Ok(set) => {
                self.reference = Some(set.reference);
                self.peers.extend(set.subjects);
                self.unavailable.extend(set.unavailable);
            }
            Err(e) => self.setup_errors.push(SuiteSetupError::Peers(e)),
        }
    }

    /// Judge the reference too: run every law and regression on it as on
    /// the peers (what `lawsuite run` does). Off by default, since a peer
    /// crate's `cargo test` is about its own peer: the reference still
    /// answers every seed call, as the oracle, and its own laws are
    /// lawsuite's to keep green. This checkout's `tests/conformance.rs`
    /// turns it on.
    pub fn judge_reference(mut self) -> Suite {
        self.config = self.config.judge_reference(true);
        self
    }

    /// Set the reference peer.
    pub fn reference(mut self, name: &str, peer: impl Search + 'static) -> Suite {
        self.reference = Some(Subject::new(name, peer));
        self
    }

    /// Add a peer under test.
    pub fn peer(mut self, name: &str, peer: impl Search + 'static) -> Suite {
        self.peers.push(Subject::new(name, peer));
        self
    }

    /// Add the built-in `builtin` (`portable`, `ripgrep`, `ripgrep-walk`,
    /// `noop`) as a peer under test registered as `name`: lawsuite's own
    /// expected failures and documented differences of that built-in apply
    /// to it. A built-in that cannot run here is a skipped peer, with why.
    ///
    /// The documented differences of [`crate::differences`] belong to the
    /// built-ins alone: a peer added with [`Suite::peer`] is judged on
    /// every answer, whatever it calls itself.
    pub fn builtin_peer(mut self, name: &str, builtin: &str) -> Suite {
        // A name that is no built-in is a mistake in the suite, not a peer
        // that cannot run here: the suite's setup fails, naming them.
        let builtin = match builtin.parse::<crate::registry::Builtin>() {
            Ok(builtin) => builtin,
            Err(unknown) => {
                self.setup_errors.push(SuiteSetupError::UnknownBuiltin {
                    name: name.to_string(),
                    builtin: unknown,
                });
                return self;
            }
        };
        let options = self.config.peer_options();
        match crate::conformance::peers::builtin_subject(name, builtin, &options) {
            Ok(subject) => self.peers.push(subject),
            Err(unavailable) => self.unavailable.push(unavailable),
        }
        self
    }

    /// Replay (and, under `LAWSUITE_RECORD=1`, record into) this regression
    /// directory instead of the project's.
    pub fn regressions(mut self, dir: impl Into<PathBuf>) -> Suite {
        self.config = self.config.regressions(Some(dir.into()));
        self
    }

    /// Also run the laws of this directory (beside the shipped ones); a
    /// directory that is missing or holds no law fails the suite's setup.
    pub fn laws(mut self, dir: impl Into<PathBuf>) -> Suite {
        self.config = self.config.law_dir(dir);
        self
    }

    /// Leave out the laws lawsuite ships (run only [`Suite::laws`]).
    pub fn without_shipped_laws(mut self) -> Suite {
        self.config = self.config.shipped_laws(false);
        self
    }

    /// Run no laws at all (regressions and seeds only).
    pub fn without_laws(mut self) -> Suite {
        self.config = self.config.laws(false);
        self
    }

    /// Also read expected failures from the `*.toml` tables of `dir` (one
    /// table per registered peer name); the directory must exist.
    pub fn expected_failures(mut self, dir: impl Into<PathBuf>) -> Suite {
        self.config = self.config.expected_dir(dir);
        self
    }

    /// List one expected failure: item `id` (e.g.
    /// `law::grep::context::context-tie-goes-to-the-earlier-match`, or
    /// `regression::<file>`) fails on the peer registered as `peer`,
    /// because `reason`. A law without `law::` (the older spelling) is
    /// read as that law, with a warning.
    pub fn expect_failure(mut self, peer: &str, id: &str, reason: &str) -> Suite {
        self.config = self.config.expect_failure(ListedFailure {
            peer: peer.to_string(),
            id: id.to_string(),
            reason: reason.to_string(),
        });
        self
    }

    /// Replace the `smthrs` seeds.
    pub fn smthrs_seeds(self, seeds: impl IntoIterator<Item = u64>) -> Suite {
        self.seeds_of(crate::kit::Generator::Smthrs, seeds)
    }

    /// Replace the `lawsuite` generator's seeds.
    pub fn lawsuite_seeds(self, seeds: impl IntoIterator<Item = u64>) -> Suite {
        self.seeds_of(crate::kit::Generator::Lawsuite, seeds)
    }

    fn seeds_of(
        mut self,
        generator: crate::kit::Generator,
        seeds: impl IntoIterator<Item = u64>,
    ) -> Suite {
        let seeds = Seeds::of(seeds.into_iter().collect());
        self.config = self.config.generator_seeds(generator, seeds);
        self
    }

    /// Run every bounded-exhaustive family ([`crate::kit::exhaustive`]:
    /// every glob, `.gitignore` rule and pattern up to a size, against
    /// every path or line of a small tree) at `size` on every peer instead
    /// of each at its default size; `0` runs none. `LAWSUITE_EXHAUSTIVE_SIZE`
    /// sets the same from the environment; this wins over it.
    ///
    /// Without either, a suite runs each family at its default size
    /// ([`crate::kit::exhaustive::Family::default_size`]: glob 3,
    /// gitignore 4, pattern 3), and at
    /// [`crate::kit::exhaustive::PROCESS_PER_CALL_SIZE`] on the built-ins
    /// that start a process per call (`ripgrep`, `ripgrep-walk`, `git`).
    pub fn exhaustive_size(mut self, size: usize) -> Suite {
        self.config = self.config.exhaustive_size(size);
        self
    }

    /// Run every bounded-exhaustive family at its own default size on
    /// every peer, those that start a process per call too
    /// ([`crate::conformance::config::ConfigBuilder::exhaustive_at_family_sizes`]).
    pub fn exhaustive(mut self) -> Suite {
        self.config = self.config.exhaustive_at_family_sizes();
        self
    }

    /// The size of every bounded-exhaustive family on every peer when
    /// neither [`Suite::exhaustive_size`] nor `LAWSUITE_EXHAUSTIVE_SIZE`
    /// gives one (`0`: none), instead of each family's default. The
    /// skeleton `lawsuite init --lang rust` writes sets `2`, which its
    /// first `cargo test` can afford (docs/exhaustive.md), and
    /// `LAWSUITE_EXHAUSTIVE_SIZE=4 cargo test` still asks more.
    pub fn default_exhaustive_size(mut self, size: usize) -> Suite {
        self.config = self.config.default_exhaustive_size(size);
        self
    }

    /// Put the `lawsuite` generator on this ground.
    pub fn ground(mut self, ground: Ground) -> Suite {
        self.config = self.config.ground(ground);
        self
    }

    /// What the suite runs, or every problem that stops it from running:
    /// the suite's setup errors (a variable set to a value it cannot take,
    /// a misspelled built-in, an unreadable project) and the
    /// configuration's ([`ConfigBuilder::build`]).
    pub fn config(&self) -> Result<Config, Vec<SuiteSetupError>> {
        let mut problems = self.setup_errors.clone();
        if let Err(e) = &self.project {
            problems.push(SuiteSetupError::Project(e.clone()));
        }
        match self.config.clone().build() {
            Ok(config) if problems.is_empty() => Ok(config),
            Ok(_) => Err(problems),
            Err(errors) => {
                problems.extend(errors.into_iter().map(SuiteSetupError::Config));
                Err(problems)
            }
        }
    }

    /// The engine these trials run on.
    pub fn engine(&self) -> Result<Engine, Vec<SuiteSetupError>> {
        self.prepare(None).map(|(engine, _)| engine)
    }

    /// The configuration and the engine, holding only what trial `only`
    /// needs when one is named ([`Config::engine`]).
    fn prepare(&self, only: Option<&str>) -> Result<(Engine, Config), Vec<SuiteSetupError>> {
        let config = self.config();
        let Some(reference) = self.reference.clone() else {
            let mut problems = config.err().unwrap_or_default();
            problems.push(SuiteSetupError::NoReference);
            return Err(problems);
        };
        let config = config?;
        let peers = PeerSet {
            reference,
            subjects: self.peers.clone(),
            unavailable: self.unavailable.clone(),
        };
        let engine = config.engine(peers, only).map_err(|errors| {
            errors
                .into_iter()
                .map(SuiteSetupError::Config)
                .collect::<Vec<_>>()
        })?;
        Ok((engine, config))
    }

    /// Build every trial.
    pub fn trials(&self) -> Vec<Trial> {
        self.trials_for(&Arguments::default())
    }

    fn trials_for(&self, args: &Arguments) -> Vec<Trial> {
        self.trials_sharing(args).0
    }

    /// The trials libtest will run for `args`: with `--exact NAME` (how
    /// nextest runs each trial in a process of its own) only that one is
    /// built, so the process starts no peer it does not use. Each trial
    /// reports into the returned [`Shared`]; the engine, when it could be
    /// built, is returned for the summary.
    fn trials_sharing(&self, args: &Arguments) -> (Vec<Trial>, Option<Arc<Engine>>, Arc<Shared>) {
        // libtest matches `--exact` against the name or `[kind] name`, and
        // nextest passes the latter: take the id either way.
        let exact = match (&args.filter, args.exact, args.list) {
            (Some(name), true, false) => Some(exact_id(name).to_string()),
            _ => None,
        };
        let setup_failed = |message: String| {
            let shared = Arc::new(Shared::new(DEFAULT_MAX_REPORTS));
            let trial = Trial::test("suite::setup", move || Err(message.into()));
            (vec![trial], None, shared)
        };
        let (engine, shared) = match self.prepare(exact.as_deref()) {
            Ok((engine, config)) => {
                if let Some(message) = too_many_trials(&engine, &config) {
                    return setup_failed(message);
                }
                // Said once, by the process that lists or runs them all
                // (nextest runs each trial in a process of its own).
                if exact.is_none() {
                    for warning in engine.warnings() {
                        eprintln!("warning: {warning}");
                    }
                }
                (
                    Arc::new(engine),
                    Arc::new(Shared::new(config.max_reports())),
                )
            }
            Err(problems) => {
                let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
                return setup_failed(lines.join("\n"));
            }
        };
        let trials = engine
            .trials_where(|id| exact.as_deref().is_none_or(|name| name == id))
            .into_iter()
            .map(|trial| {
                let kind = match &trial.skip {
                    // libtest shows the kind beside an ignored trial: the
                    // reason, cut to fit a line.
                    Some(why) => why.chars().take(100).collect(),
                    // A listed failure passes libtest when it fails as
                    // listed; the kind says so, so its `ok` is not read
                    // as the peer passing the law.
                    None if engine.is_listed_failure(&trial) => {
                        format!("{}, expected to fail", trial.kind.name())
                    }
                    None => trial.kind.name().to_string(),
                };
                let ignored = trial.skip.is_some();
                let engine = engine.clone();
                let shared = shared.clone();
                Trial::test(trial.id.to_string(), move || {
                    shared.judge(engine.run_trial(&trial))
                })
                .with_kind(kind)
                .with_ignored_flag(ignored)
            })
            .collect();
        (trials, Some(engine), shared)
    }

    /// Every trial's outcome, each run on its own as a libtest trial runs
    /// (for tests that compare front doors).
    pub fn outcomes(&self) -> Result<Vec<Outcome>, Vec<SuiteSetupError>> {
        let engine = self.engine()?;
        Ok(engine
            .trials()
            .iter()
            .map(|t| match &t.skip {
                // An ignored trial is not run by libtest; this is the
                // verdict the engine gives it.
                Some(why) => Outcome {
                    id: t.id.clone(),
                    item: engine.trial_item(t).id(),
                    kind: t.kind,
                    peer: t.peer.map(|p| engine.peer(p).name().to_string()),
                    spec: engine.trial_item(t).spec().map(str::to_string),
                    verdict: Verdict::Skipped { why: why.clone() },
                    documented: Default::default(),
                    compared: 0,
                    seconds: 0.0,
                },
                None => engine.run_trial(t),
            })
            .collect())
    }

    /// Run the trials with libtest's command line and exit.
    ///
    /// Without `--test-threads` (or `RUST_TEST_THREADS`), trials run on
    /// twice as many threads as there are cores: a trial spends much of its
    /// time waiting on a peer's process (`rg`, an external peer), so two
    /// threads a core keep the cores busy (the conformance trials of this
    /// checkout on 2 cores: 37.0–38.5 s on 2 threads, 26.0–28.0 s on 4).
    pub fn run(self) -> ! {
        let mut args = Arguments::from_args();
        if args.test_threads.is_none() && std::env::var_os("RUST_TEST_THREADS").is_none() {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            args.test_threads = Some(2 * cores);
        }
        let started = Instant::now();
        let (trials, engine, shared) = self.trials_sharing(&args);
        let conclusion = libtest_mimic::run(&args, trials);
        // After libtest's result line, the summary `lawsuite run` ends
        // with (not for `--list`, nor a single trial nextest runs alone).
        let alone = args.exact && args.filter.is_some();
        let summary = engine
            .filter(|_| !args.list && !alone)
            .and_then(|engine| shared.summary(&engine, started));
        if let Some(text) = summary {
            println!("{text}");
        }
        // `exit` runs no destructors: drop the peers first, so external peer
        // processes are shut down and reaped.
        drop(self);
        conclusion.exit()
    }
}

/// The most trials a suite lists. libtest holds every trial it is given
/// (its name, its kind and what runs it: a few hundred bytes each), so
/// `LAWSUITE_SEEDS=0..200000000` would be gigabytes before the first trial
/// ran, and `0..u64::MAX` more than memory holds. A sweep wider than this
/// is `lawsuite run`'s, which makes each trial as it runs it (and spreads
/// over machines with `--shard K/N`). The shipped laws on a few peers are
/// some 10,000 trials; a million is days of seeds on one machine.
pub const MAX_TRIALS: u64 = 1_000_000;

/// Why `engine`'s trials are too many to hand libtest ([`MAX_TRIALS`]),
/// naming `LAWSUITE_SEEDS` when it set `config`'s seeds: counted, not
/// listed.
fn too_many_trials(engine: &Engine, config: &Config) -> Option<String> {
    let counts = engine.trial_counts();
    let total: u128 = counts.values().sum();
    if total <= u128::from(MAX_TRIALS) {
        return None;
    }
    let seeds = counts
        .get(&crate::conformance::Kind::Seed)
        .copied()
        .unwrap_or(0);
    let from_env = config.seeds_from_environment();
    let (source, sweep) = match from_env {
        Some(range) => (
            format!(
                "LAWSUITE_SEEDS={}..{} runs {} seeds on every generator; ",
                range.start,
                range.end,
                range.end - range.start
            ),
            format!("lawsuite run --seeds {}..{}", range.start, range.end),
        ),
        None => (String::new(), "lawsuite run --seeds A..B".to_string()),
    };
    Some(format!(
        "{source}this suite would make {total} trials ({seeds} of them seed trials), more than the {MAX_TRIALS} a `cargo test` run lists (libtest holds every trial it lists); narrow the seeds, or run the sweep with `{sweep}`, which makes each trial as it runs it (`--shard K/N` spreads it over machines)"
    ))
}

/// A verdict as libtest sees it: an expected failure passes, a failure,
/// an unexpected pass and a broken trial fail with their reason.
fn to_result(outcome: &Outcome) -> Result<(), Failed> {
    match &outcome.verdict {
        Verdict::Pass | Verdict::ExpectedFailure { .. } | Verdict::Skipped { .. } => Ok(()),
        Verdict::Fail { report } | Verdict::Flaky { report, .. } => {
            Err(crate::report::human_report(report, false).into())
        }
        Verdict::UnexpectedPass { reason, source } => {
            Err(crate::conformance::sentence::unexpected_pass(
                Some((&outcome.item, outcome.peer.as_deref().unwrap_or("the peer"))),
                reason,
                &source.to_string(),
            )
            .into())
        }
        Verdict::Broken { why } => Err(crate::report::human::bounded_lines(why).into()),
    }
}

/// The trial id an `--exact` filter names: `[law] law::x::y::p` (how
/// libtest lists a trial with a kind, and how nextest asks for it) or the
/// bare `law::x::y::p`.
fn exact_id(filter: &str) -> &str {
    match filter
        .strip_prefix('[')
        .and_then(|rest| rest.split_once("] "))
    {
        Some((_, id)) => id,
        None => filter,
    }
}

/// The test target running, from the binary's name (`conformance-1a2b…`
/// → `conformance`), for replay commands.
fn test_target() -> Option<String> {
    let exe = std::env::args_os().next()?;
    let stem = Path::new(&exe).file_stem()?.to_string_lossy().into_owned();
    match stem.rsplit_once('-') {
        Some((name, hash)) if hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()) => {
            Some(name.to_string())
        }
        _ => Some(stem),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_filters_name_the_trial_with_or_without_its_kind() {
        assert_eq!(exact_id("[law] law::a::b::p"), "law::a::b::p");
        assert_eq!(
            exact_id("[p does not answer flow/bash] law::a::b::p"),
            "law::a::b::p"
        );
        assert_eq!(exact_id("seed::smthrs::0001::p"), "seed::smthrs::0001::p");
        // The suite builds exactly the trial either spelling names.
        let suite = Suite::new()
            .reference("portable", crate::portable::Portable::default())
            .peer("other", crate::portable::Portable::with_threads(1))
            .smthrs_seeds([1])
            .lawsuite_seeds([]);
        for filter in [
            "[seed] seed::smthrs::0001::other",
            "seed::smthrs::0001::other",
        ] {
            let args = Arguments {
                filter: Some(filter.into()),
                exact: true,
                ..Arguments::default()
            };
            let names: Vec<String> = suite
                .trials_for(&args)
                .iter()
                .map(|t| t.name().to_string())
                .collect();
            assert_eq!(names, ["seed::smthrs::0001::other"], "{filter}");
        }
    }

    /// A listed failure passes libtest when it fails as listed; its kind
    /// says so, so `cargo test` does not show it as a plain pass.
    #[test]
    fn a_listed_failure_says_so_beside_its_trial() {
        let law = "glob::matching::star-ts-matches-by-basename";
        let suite = Suite::new()
            .reference("portable", crate::portable::Portable::default())
            .peer("other", crate::portable::Portable::with_threads(1))
            .smthrs_seeds([])
            .lawsuite_seeds([])
            .expect_failure("other", law, "planted for the test");
        let trials = suite.trials();
        let kind_of = |name: &str| {
            trials
                .iter()
                .find(|t| t.name() == name)
                .map(|t| t.kind().to_string())
        };
        assert_eq!(
            kind_of(&format!("law::{law}::other")).as_deref(),
            Some("law, expected to fail")
        );
        // The reference is the oracle of a peer crate's seeds, not a
        // subject of its laws, unless asked.
        assert_eq!(kind_of(&format!("law::{law}::portable")), None);
        let judged = Suite::new()
            .reference("portable", crate::portable::Portable::default())
            .smthrs_seeds([])
            .lawsuite_seeds([])
            .judge_reference()
            .trials();
        assert!(
            judged
                .iter()
                .any(|t| t.name() == format!("law::{law}::portable"))
        );
    }

    /// `cargo test` of a peer that fails hundreds of laws: the first
    /// failing calls in full, the rest one line each, and a closing summary
    /// by spec section that says how to see everything.
    #[test]
    fn failures_past_the_budget_are_one_line_and_a_summary_closes_the_run() {
        let suite = Suite::new()
            .reference("portable", crate::portable::Portable::default())
            .peer("noop", crate::peer::Noop)
            .smthrs_seeds([])
            .lawsuite_seeds([]);
        let engine = suite.engine().unwrap();
        let shared = Shared::new(2);
        let started = Instant::now();
        let failed: Vec<String> = engine
            .trials()
            .iter()
            .filter(|t| t.skip.is_none() && t.id.as_str().starts_with("law::glob::"))
            .filter(|t| t.id.as_str().ends_with("::noop"))
            .take(5)
            .filter_map(|t| shared.judge(engine.run_trial(t)).err())
            .map(|f| f.message().unwrap_or_default().to_string())
            .collect();
        assert_eq!(failed.len(), 5, "noop fails every glob law");
        assert!(failed[0].contains("call:"), "{}", failed[0]);
        assert!(failed[1].contains("call:"), "{}", failed[1]);
        for short in &failed[2..] {
            assert!(!short.contains("call:"), "{short}");
            assert!(short.contains("LAWSUITE_MAX_REPORTS=0"), "{short}");
        }
        let summary = shared.summary(&engine, started).unwrap();
        assert!(
            summary.contains("laws (law × peer): 0 pass, 5 fail"),
            "{summary}"
        );
        assert!(summary.contains("failing laws by section: "), "{summary}");
        assert!(
            summary.contains("3 failures after the first 2"),
            "{summary}"
        );
        // 0: everything in full.
        let all = Shared::new(0);
        let trial = engine
            .trials()
            .into_iter()
            .find(|t| t.skip.is_none() && t.id.as_str().ends_with("::noop"))
            .unwrap();
        for _ in 0..3 {
            let text = all.judge(engine.run_trial(&trial)).unwrap_err();
            assert!(text.message().unwrap_or_default().contains("call:"));
        }
    }

    /// Past [`MAX_TRIALS`] a suite is one failing setup trial saying how
    /// many trials it would make, counted without making them: a range of
    /// seeds that wide was a libtest trial per seed, gigabytes for
    /// `LAWSUITE_SEEDS=0..200000000`, before anything ran.
    #[test]
    fn a_suite_too_wide_to_list_is_one_failing_setup_trial() {
        let wide = Suite::new()
            .reference("portable", crate::portable::Portable::default())
            .peer("other", crate::portable::Portable::with_threads(1))
            .without_laws()
            .smthrs_seeds([])
            .lawsuite_seeds(0..MAX_TRIALS + 1);
        let started = Instant::now();
        let names: Vec<String> = wide.trials().iter().map(|t| t.name().to_string()).collect();
        assert_eq!(names, ["suite::setup"]);
        // Counted, not listed: at once.
        assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
        let engine = wide.engine().unwrap();
        let why = too_many_trials(&engine, &wide.config().unwrap()).unwrap();
        assert!(
            why.contains("(1000001 of them seed trials), more than the 1000000"),
            "{why}"
        );
        assert!(why.contains("lawsuite run --seeds"), "{why}");
        // Up to the bound, every trial.
        let wide = wide.lawsuite_seeds(0..3);
        assert!(too_many_trials(&wide.engine().unwrap(), &wide.config().unwrap()).is_none());
        let seeds = wide
            .trials()
            .iter()
            .filter(|t| t.name().starts_with("seed::"))
            .count();
        assert_eq!(seeds, 3);
    }

    #[test]
    fn a_builtin_peer_keeps_its_builtin_and_one_that_cannot_run_says_why() {
        let suite = Suite::new()
            .reference("portable", crate::portable::Portable::default())
            .builtin_peer("one", "portable")
            .builtin_peer("mine", "no-such-builtin")
            .without_laws()
            .smthrs_seeds([])
            .lawsuite_seeds([]);
        // A misspelled built-in fails the setup, naming the built-ins; it
        // used to be a skipped trial, and the suite passed.
        let problems = suite.engine().unwrap_err();
        assert!(
            problems
                .iter()
                .map(ToString::to_string)
                .any(|p| p.contains("\"no-such-builtin\" is not a built-in peer")
                    && p.contains("portable, ripgrep, ripgrep-walk, model, noop")),
            "{problems:?}"
        );
        let suite = Suite::new()
            .reference("portable", crate::portable::Portable::default())
            .builtin_peer("one", "portable")
            .without_laws()
            .smthrs_seeds([])
            .lawsuite_seeds([]);
        let engine = suite.engine().unwrap();
        let one = &engine.peers()[1];
        assert_eq!(
            (one.name(), one.builtin()),
            ("one", Some(crate::registry::Builtin::Portable))
        );
    }
}
