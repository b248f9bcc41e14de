//! What a run holds, said once: law sources, regressions, expected
//! failures, seed sets, where failing seeds are recorded, how replay
//! commands are spelled, and how peers and trials run (the built-ins'
//! `rg`, an external peer's timeouts, the SLOW period, the interrupt
//! grace, how many failures are printed in full, how often each trial is
//! asked), with the one default seed policy and the environment
//! overlaid ([`crate::environment`]).
//!
//! A [`Config`] is made once, by a [`ConfigBuilder`], and then trusted: its
//! fields are private and [`ConfigBuilder::build`] refuses a configuration
//! that cannot make a run (ripgrep's `HiArgs` is the model). Both front
//! doors are adapters onto one: [`crate::suite::Suite`] is a builder over
//! a [`ConfigBuilder`], and every `lawsuite` command that runs a peer maps
//! its flags onto one. Only [`Config::engine`] assembles an [`Engine`]
//! from it, so the same project gives the same trials through either door
//! (a test lines up their default trial lists), as nextest maps its
//! command line onto library builders and proptest keeps one `Config`.
//!
//! Precedence, lowest first: the defaults (every shipped law; the
//! TypeScript kit's 12 seeds and the `lawsuite` generator's `0..64`), the
//! project's `lawsuite.toml` ([`ConfigBuilder::project`]), the `LAWSUITE_*`
//! variables ([`ConfigBuilder::environment`]), and explicit settings (a
//! flag, a builder call), whatever order they are given in.
//!
//! ```
//! use lawsuite::conformance::config::Config;
//! use lawsuite::conformance::peers::PeerSet;
//! use lawsuite::conformance::Subject;
//! use lawsuite::kit::Generator;
//! use lawsuite::portable::Portable;
//!
//! let config = Config::builder()
//!     .laws(false)
//!     .only_generator(Generator::Smthrs)
//!     .seeds(4..5)
//!     .build()
//!     .map_err(|e| format!("{e:?}"))?;
//! let peers = PeerSet::new(
//!     Subject::new("portable", Portable::default()),
//!     vec![Subject::new("one-thread", Portable::with_threads(1))],
//! );
//! let engine = config.engine(peers, None).map_err(|e| format!("{e:?}"))?;
//! let ids: Vec<String> = engine.trials().into_iter().map(|t| t.id.to_string()).collect();
//! // The seed's trial, and the bounded-exhaustive families, which every
//! // run asks unless `exhaustive_size(0)` turns them off.
//! assert_eq!(
//!     ids,
//!     [
//!         "seed::smthrs::0004::one-thread",
//!         "exhaustive::glob::3::one-thread",
//!         "exhaustive::gitignore::4::one-thread",
//!         "exhaustive::pattern::3::one-thread",
//!     ]
//! );
//! # Ok::<(), String>(())
//! ```

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::peers::{PeerError, PeerSet};
use super::{Engine, ExhaustiveItem, Expectations, Item, ItemId, Replay, TrialId};
use std::time::Duration;

use crate::environment::Environment;
use crate::kit::Generator;
use crate::kit::exhaustive::{Family, PeerCost};
use crate::peer::Ground;
use crate::project::Project;
use crate::registry::PeerOptions;
use crate::ripgrep::RgOptions;

/// The seeds of one generator on one ground.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedSet {
    /// The generator.
    pub generator: Generator,
    /// Its ground (`smthrs` plans are always shared).
    pub ground: Ground,
    /// The seeds, in order.
    pub seeds: Seeds,
}

/// The seeds of a [`SeedSet`]: a range, kept as its two ends however wide
/// (`LAWSUITE_SEEDS=0..200000000` cost 3.1 GB as a list, and `0..u64::MAX`
/// overflowed one), or seeds chosen one by one.
///
/// ```
/// use lawsuite::conformance::config::Seeds;
/// let wide = Seeds::from(0..u64::MAX);
/// assert_eq!(wide.len(), u64::MAX);
/// assert!(wide.contains(7));
/// assert_eq!(Seeds::from(vec![4, 21]).iter().collect::<Vec<_>>(), [4, 21]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seeds {
    /// Every seed of the range, in order (`--seeds A..B`,
    /// `LAWSUITE_SEEDS`, the `lawsuite` generator's `0..64`).
    Range(Range<u64>),
    /// These seeds, in order (the TypeScript kit's 12, a builder's list).
    Listed(Vec<u64>),
}

impl Seeds {
    /// `seeds`, kept as a range when they are one (`0..1000` collected from
    /// an iterator), so the engine makes nothing per seed.
    ///
    /// ```
    /// use lawsuite::conformance::config::Seeds;
    /// assert_eq!(Seeds::of((3..7).collect()), Seeds::Range(3..7));
    /// assert_eq!(Seeds::of(vec![4, 21]), Seeds::Listed(vec![4, 21]));
    /// ```
    pub fn of(seeds: Vec<u64>) -> Seeds {
        let consecutive = seeds.windows(2).all(|w| w[0].checked_add(1) == Some(w[1]));
        match (seeds.first(), seeds.last()) {
            (Some(&first), Some(&last)) if consecutive => match last.checked_add(1) {
                Some(end) => Seeds::Range(first..end),
                // A range cannot end past `u64::MAX`: the list stays one.
                None => Seeds::Listed(seeds),
            },
            _ => Seeds::Listed(seeds),
        }
    }

    /// How many seeds.
    pub fn len(&self) -> u64 {
        match self {
            Seeds::Range(range) => range.end.saturating_sub(range.start),
            Seeds::Listed(seeds) => seeds.len() as u64,
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether `seed` is one of them.
    pub fn contains(&self, seed: u64) -> bool {
        match self {
            Seeds::Range(range) => range.contains(&seed),
            Seeds::Listed(seeds) => seeds.contains(&seed),
        }
    }

    /// The seeds in order, one at a time.
    pub fn iter(&self) -> Box<dyn Iterator<Item = u64> + '_> {
        match self {
            Seeds::Range(range) => Box::new(range.clone()),
            Seeds::Listed(seeds) => Box::new(seeds.iter().copied()),
        }
    }
}

impl From<Range<u64>> for Seeds {
    fn from(range: Range<u64>) -> Seeds {
        Seeds::Range(range)
    }
}

impl From<Vec<u64>> for Seeds {
    fn from(seeds: Vec<u64>) -> Seeds {
        Seeds::Listed(seeds)
    }
}

/// One expected failure given in code ([`crate::suite::Suite::expect_failure`]).
///
/// Its `id` is the item id a trial has without its peer:
/// `law::grep::context::…` for a law, `regression::<file>` for a
/// regression. A law named without `law::` (the older spelling) is still
/// read as that law, with a warning ([`Engine::warnings`]) naming the new
/// spelling:
///
/// ```
/// use lawsuite::conformance::config::{Config, ListedFailure};
/// use lawsuite::conformance::peers::PeerSet;
/// use lawsuite::conformance::Subject;
/// use lawsuite::kit::Generator;
/// use lawsuite::portable::Portable;
///
/// let warnings = |id: &str| -> Result<Vec<String>, String> {
///     let config = Config::builder()
///         .only_generator(Generator::Smthrs)
///         .seeds(4..5)
///         .expect_failure(ListedFailure {
///             peer: "mine".into(),
///             id: id.into(),
///             reason: "context ownership is not done yet".into(),
///         })
///         .build()
///         .map_err(|e| format!("{e:?}"))?;
///     let peers = PeerSet::new(
///         Subject::new("portable", Portable::default()),
///         vec![Subject::new("mine", Portable::with_threads(1))],
///     );
///     let engine = config.engine(peers, None).map_err(|e| format!("{e:?}"))?;
///     Ok(engine.warnings().to_vec())
/// };
/// let law = "grep::context::context-tie-goes-to-the-earlier-match";
/// // Today's spelling draws no warning.
/// assert_eq!(warnings(&format!("law::{law}"))?, Vec::<String>::new());
/// // The older one does, naming today's.
/// assert!(warnings(law)?[0].contains(&format!("write \"law::{law}\"")));
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedFailure {
    /// The registered peer name.
    pub peer: String,
    /// The item id: `law::grep::context::…` or `regression::<file>`.
    pub id: String,
    /// Why it fails.
    pub reason: String,
}

/// A configuration that cannot make a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// The peers cannot make a run.
    Peers(PeerError),
    /// A law directory that does not exist.
    LawDirMissing(PathBuf),
    /// A law directory with no law file.
    LawDirEmpty(PathBuf),
    /// Laws are wanted, but none are given.
    NoLaws,
    /// An expected-failures directory that does not exist.
    ExpectedDirMissing(PathBuf),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Peers(e) => write!(f, "{e}"),
            ConfigError::LawDirMissing(dir) => write!(
                f,
                "the law directory {} does not exist; give a directory holding *.toml laws",
                dir.display()
            ),
            ConfigError::LawDirEmpty(dir) => write!(
                f,
                "no laws found under {}: it holds no *.toml law file",
                dir.display()
            ),
            ConfigError::NoLaws => f.write_str(
                "no laws to run: the shipped laws are off and no law directory is given (add one, or turn the laws off: --no-laws)",
            ),
            ConfigError::ExpectedDirMissing(dir) => write!(
                f,
                "the expected-failures directory {} does not exist",
                dir.display()
            ),
        }
    }
}

impl std::error::Error for ConfigError {}

impl From<PeerError> for ConfigError {
    fn from(e: PeerError) -> ConfigError {
        ConfigError::Peers(e)
    }
}

/// The failing calls printed in full when nothing says otherwise
/// (`LAWSUITE_MAX_REPORTS`, `lawsuite run --max-reports`): a skeleton's
/// first run printed 28,803 lines for 346 failures before there was one.
pub const DEFAULT_MAX_REPORTS: usize = 20;

/// How long running trials get to end after the first interrupt when
/// nothing says otherwise (`LAWSUITE_INTERRUPT_GRACE_SECS`): an external
/// peer's default per-call timeout, so an honest peer's call in flight
/// ends, and a stuck one does not hold the run for minutes (it waited
/// 445 s).
pub const DEFAULT_INTERRUPT_GRACE: Duration = crate::protocol::DEFAULT_CALL_TIMEOUT;

/// What a run holds, valid by construction: made only by
/// [`ConfigBuilder::build`], which resolves every setting (its default,
/// the project's, the environment's, an explicit one) and refuses a
/// configuration that cannot make a run. See the [module
/// documentation](self).
#[derive(Clone, Debug)]
pub struct Config {
    laws: bool,
    shipped_laws: bool,
    law_dirs: Vec<PathBuf>,
    regressions: Option<PathBuf>,
    project_expected: Option<PathBuf>,
    expected_dirs: Vec<PathBuf>,
    expected: Vec<ListedFailure>,
    seeds: Vec<SeedSet>,
    /// The bounded-exhaustive families, their sizes and the subjects each
    /// is asked of.
    exhaustive: Vec<ExhaustiveItem>,
    /// The range `LAWSUITE_SEEDS` put on every generator, when it did.
    seeds_from_env: Option<Range<u64>>,
    only_call: Option<usize>,
    record: Option<PathBuf>,
    replay: Replay,
    judge_reference: bool,
    repeat: u32,
    peers: PeerOptions,
    slow_period: Option<Duration>,
    interrupt_grace: Duration,
    max_reports: usize,
}

/// Makes a [`Config`]. Settings may be given in any order: each is
/// resolved when the configuration is built, an explicit one over the
/// environment's, the environment's over the project's, the project's over
/// the default.
///
/// ```
/// use std::time::Duration;
/// use lawsuite::conformance::config::Config;
/// use lawsuite::environment::Environment;
///
/// let env = Environment::from_vars([("LAWSUITE_REPEAT", "3"), ("LAWSUITE_SEEDS", "5")])
///     .map_err(|e| format!("{e:?}"))?;
/// let config = Config::builder()
///     .environment(env)
///     .repeat(2)
///     .build()
///     .map_err(|e| format!("{e:?}"))?;
/// assert_eq!(config.repeat(), 2); // the explicit setting wins
/// assert_eq!(config.seeds_from_environment(), Some(5..6));
/// assert_eq!(config.slow_period(), Some(Duration::from_secs(10)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct ConfigBuilder {
    environment: Environment,
    project: Option<ProjectPaths>,
    laws: Option<bool>,
    shipped_laws: Option<bool>,
    law_dirs: Vec<PathBuf>,
    regressions: Option<Option<PathBuf>>,
    expected_dirs: Vec<PathBuf>,
    expected: Vec<ListedFailure>,
    only_generator: Option<Generator>,
    seed_range: Option<Range<u64>>,
    generator_seeds: Vec<(Generator, Seeds)>,
    seed_sets: Option<Vec<SeedSet>>,
    ground: Option<Ground>,
    no_seeds: bool,
    exhaustive_size: Option<usize>,
    default_exhaustive_size: Option<usize>,
    family_sizes: bool,
    only_call: Option<usize>,
    record: Option<PathBuf>,
    replay: Option<Replay>,
    judge_reference: Option<bool>,
    repeat: Option<u32>,
    rg_program: Option<PathBuf>,
    rg_timeout: Option<Duration>,
    rg_memory_bound: Option<Option<u64>>,
    call_timeout: Option<Duration>,
    handshake_timeout: Option<Duration>,
    slow_period: Option<Option<Duration>>,
    interrupt_grace: Option<Duration>,
    max_reports: Option<usize>,
}

/// What a configuration takes from a project.
#[derive(Clone, Debug)]
struct ProjectPaths {
    shipped_laws: bool,
    laws: Vec<PathBuf>,
    regressions: PathBuf,
    expected: PathBuf,
}

impl ConfigBuilder {
    /// Overlay these `LAWSUITE_*` variables ([`Environment::read`] reads
    /// the process's, once).
    pub fn environment(mut self, environment: Environment) -> ConfigBuilder {
        self.environment = environment;
        self
    }

    /// Take `project`'s law directories, whether its shipped laws run, its
    /// regressions and expected failures.
    pub fn project(mut self, project: &Project) -> ConfigBuilder {
        self.project = Some(ProjectPaths {
            shipped_laws: project.shipped_laws,
            laws: project.laws.clone(),
            regressions: project.regressions.clone(),
            expected: project.expected.clone(),
        });
        self
    }

    /// Run laws at all (`false`: `--no-laws`).
    pub fn laws(mut self, on: bool) -> ConfigBuilder {
        self.laws = Some(on);
        self
    }

    /// Run the laws lawsuite ships (`false`: `--no-shipped-laws`).
    pub fn shipped_laws(mut self, on: bool) -> ConfigBuilder {
        self.shipped_laws = Some(on);
        self
    }

    /// Also run the laws of `dir`, which must hold laws.
    pub fn law_dir(mut self, dir: impl Into<PathBuf>) -> ConfigBuilder {
        self.law_dirs.push(dir.into());
        self
    }

    /// Replay (and record into) `dir` instead of the project's regression
    /// directory; `None`: no regressions.
    pub fn regressions(mut self, dir: Option<PathBuf>) -> ConfigBuilder {
        self.regressions = Some(dir);
        self
    }

    /// Also read expected failures from `dir`, which must exist.
    pub fn expected_dir(mut self, dir: impl Into<PathBuf>) -> ConfigBuilder {
        self.expected_dirs.push(dir.into());
        self
    }

    /// List one expected failure in code.
    pub fn expect_failure(mut self, failure: ListedFailure) -> ConfigBuilder {
        self.expected.push(failure);
        self
    }

    /// Run only the seeds of `generator`.
    pub fn only_generator(mut self, generator: Generator) -> ConfigBuilder {
        self.only_generator = Some(generator);
        self
    }

    /// Run `range` on every generator instead of its seeds (kept as a
    /// range: nothing is made per seed).
    pub fn seeds(mut self, range: Range<u64>) -> ConfigBuilder {
        self.seed_range = Some(range);
        self
    }

    /// Run `seeds` on `generator` (over [`ConfigBuilder::seeds`] and
    /// `LAWSUITE_SEEDS`).
    pub fn generator_seeds(mut self, generator: Generator, seeds: Seeds) -> ConfigBuilder {
        self.generator_seeds.retain(|(g, _)| *g != generator);
        self.generator_seeds.push((generator, seeds));
        self
    }

    /// Run exactly these seed sets, whatever else says (`--rerun-failed`).
    pub fn seed_sets(mut self, sets: Vec<SeedSet>) -> ConfigBuilder {
        self.seed_sets = Some(sets);
        self
    }

    /// Put the `lawsuite` generator on `ground`.
    pub fn ground(mut self, ground: Ground) -> ConfigBuilder {
        self.ground = Some(ground);
        self
    }

    /// Run no seeds.
    pub fn no_seeds(mut self) -> ConfigBuilder {
        self.no_seeds = true;
        self
    }

    /// Run every bounded-exhaustive family at `size` on every subject
    /// (`0`: none) instead of each at its default size for the subject's
    /// class ([`Family::default_size_for`]).
    pub fn exhaustive_size(mut self, size: usize) -> ConfigBuilder {
        self.exhaustive_size = Some(size);
        self
    }

    /// Run every bounded-exhaustive family at its own default size
    /// ([`Family::default_size`]) on every subject, the peers that start a
    /// process per call too (about 21,000 calls a peer: docs/exhaustive.md),
    /// when no size is given; without it those peers are asked each family
    /// at [`crate::kit::exhaustive::PROCESS_PER_CALL_SIZE`].
    pub fn exhaustive_at_family_sizes(mut self) -> ConfigBuilder {
        self.family_sizes = true;
        self
    }

    /// The size every bounded-exhaustive family takes on every subject
    /// when neither an explicit [`ConfigBuilder::exhaustive_size`] nor
    /// `LAWSUITE_EXHAUSTIVE_SIZE` gives one (`0`: none), instead of each
    /// family's default for the subject's class: a peer crate's skeleton
    /// asks size 2 this way, and the variable still asks another.
    pub fn default_exhaustive_size(mut self, size: usize) -> ConfigBuilder {
        self.default_exhaustive_size = Some(size);
        self
    }

    /// Only this call of each plan (`--call`).
    pub fn only_call(mut self, call: Option<usize>) -> ConfigBuilder {
        self.only_call = call;
        self
    }

    /// Shrink and record failing seeds into `dir`.
    pub fn record(mut self, dir: impl Into<PathBuf>) -> ConfigBuilder {
        self.record = Some(dir.into());
        self
    }

    /// Spell replay commands so.
    pub fn replay(mut self, replay: Replay) -> ConfigBuilder {
        self.replay = Some(replay);
        self
    }

    /// Judge the reference's own answers by the laws and regressions, as
    /// a subject's are (the default; a peer crate's
    /// [`crate::suite::Suite`] turns it off: there the reference only
    /// answers the seeds' calls, as the oracle).
    pub fn judge_reference(mut self, judge: bool) -> ConfigBuilder {
        self.judge_reference = Some(judge);
        self
    }

    /// Ask each trial `times` times (at least once), each on fresh trees.
    pub fn repeat(mut self, times: u32) -> ConfigBuilder {
        self.repeat = Some(times.max(1));
        self
    }

    /// Run the built-ins' `rg` from `program`.
    pub fn rg_program(mut self, program: impl Into<PathBuf>) -> ConfigBuilder {
        self.rg_program = Some(program.into());
        self
    }

    /// Give each call of a built-in `rg` peer `timeout`.
    pub fn rg_timeout(mut self, timeout: Duration) -> ConfigBuilder {
        self.rg_timeout = Some(timeout);
        self
    }

    /// Bound each `rg`'s address space at `mb` MiB (`None`: no bound).
    pub fn rg_memory_bound(mut self, mb: Option<u64>) -> ConfigBuilder {
        self.rg_memory_bound = Some(mb);
        self
    }

    /// An external peer's per-call timeout where its table sets none.
    pub fn call_timeout(mut self, timeout: Duration) -> ConfigBuilder {
        self.call_timeout = Some(timeout);
        self
    }

    /// An external peer's handshake timeout where its table sets none.
    pub fn handshake_timeout(mut self, timeout: Duration) -> ConfigBuilder {
        self.handshake_timeout = Some(timeout);
        self
    }

    /// Name a running trial once per `period` (`None`: never).
    pub fn slow_period(mut self, period: Option<Duration>) -> ConfigBuilder {
        self.slow_period = Some(period);
        self
    }

    /// Give running trials `grace` to end after the first interrupt.
    pub fn interrupt_grace(mut self, grace: Duration) -> ConfigBuilder {
        self.interrupt_grace = Some(grace);
        self
    }

    /// Print this many failing calls in full, the rest as a line each
    /// (`0`: all).
    pub fn max_reports(mut self, n: usize) -> ConfigBuilder {
        self.max_reports = Some(n);
        self
    }

    /// The options peers are started with, as the configuration built now
    /// would hold them ([`Config::peer_options`]): a
    /// [`crate::suite::Suite`] starts its registry's peers before its
    /// configuration is built.
    pub fn peer_options(&self) -> PeerOptions {
        let env = &self.environment;
        let mut rg = RgOptions::default().overlay(env);
        if let Some(program) = &self.rg_program {
            rg = rg.program(program.clone());
        }
        if let Some(timeout) = self.rg_timeout {
            rg = rg.timeout(timeout);
        }
        if let Some(mb) = self.rg_memory_bound {
            rg = rg.memory_bound(mb);
        }
        let mut options = PeerOptions::default().rg(rg);
        if let Some(timeout) = self.call_timeout {
            options = options.call_timeout(timeout);
        }
        if let Some(timeout) = self.handshake_timeout {
            options = options.handshake_timeout(timeout);
        }
        options
    }

    /// The configuration, or every problem that stops it from making a
    /// run.
    pub fn build(self) -> Result<Config, Vec<ConfigError>> {
        let env = &self.environment;
        let peers = self.peer_options();
        let project = self.project.as_ref();
        let laws = self.laws.unwrap_or(true);
        let shipped_laws = self
            .shipped_laws
            .or(project.map(|p| p.shipped_laws))
            .unwrap_or(true);
        let law_dirs: Vec<PathBuf> = project
            .map(|p| p.laws.clone())
            .unwrap_or_default()
            .into_iter()
            .chain(self.law_dirs)
            .collect();
        let regressions = match self.regressions {
            Some(dir) => dir,
            None => project.map(|p| p.regressions.clone()),
        };
        let (seeds, seeds_from_env) = match self.seed_sets {
            Some(sets) => (sets, None),
            None => {
                let ground = self.ground.or(env.ground()).unwrap_or_default();
                let mut sets = Config::default_seeds(ground);
                let from_env = env.seeds().filter(|_| self.seed_range.is_none());
                if let Some(range) = self.seed_range.clone().or(from_env.clone()) {
                    for set in &mut sets {
                        set.seeds = Seeds::Range(range.clone());
                    }
                }
                for (generator, seeds) in &self.generator_seeds {
                    for set in sets.iter_mut().filter(|s| s.generator == *generator) {
                        set.seeds = seeds.clone();
                    }
                }
                if let Some(generator) = self.only_generator {
                    sets.retain(|s| s.generator == generator);
                }
                if self.no_seeds {
                    sets.clear();
                }
                // Named only while its range is what the seeds are.
                let from_env = from_env
                    .filter(|range| sets.iter().any(|s| s.seeds == Seeds::Range(range.clone())));
                (sets, from_env)
            }
        };
        // Generated plans, like the seeds: none with `no_seeds` or a
        // single call.
        let exhaustive = if self.no_seeds || self.only_call.is_some() {
            Vec::new()
        } else {
            let size = self
                .exhaustive_size
                .or(env.exhaustive_size())
                .or(self.default_exhaustive_size);
            match size {
                None if self.family_sizes => Family::ALL
                    .iter()
                    .map(|f| ExhaustiveItem::new(*f, f.default_size()))
                    .collect(),
                size => Config::exhaustive_families(size),
            }
        };
        let record = self
            .record
            .or_else(|| regressions.clone().filter(|_| env.record()));
        let config = Config {
            laws,
            shipped_laws,
            law_dirs,
            regressions,
            project_expected: project.map(|p| p.expected.clone()),
            expected_dirs: self.expected_dirs,
            expected: self.expected,
            seeds,
            exhaustive,
            seeds_from_env,
            only_call: self.only_call,
            record,
            replay: self.replay.unwrap_or_default(),
            judge_reference: self.judge_reference.unwrap_or(true),
            repeat: self.repeat.or(env.repeat()).unwrap_or(1),
            peers,
            slow_period: self
                .slow_period
                .or(env.slow_period())
                .unwrap_or(Some(super::slow::DEFAULT_PERIOD)),
            interrupt_grace: self
                .interrupt_grace
                .or(env.interrupt_grace())
                .unwrap_or(DEFAULT_INTERRUPT_GRACE),
            max_reports: self
                .max_reports
                .or(env.max_reports())
                .unwrap_or(DEFAULT_MAX_REPORTS),
        };
        let problems = config.problems();
        if problems.is_empty() {
            Ok(config)
        } else {
            Err(problems)
        }
    }
}

impl Config {
    /// A builder with every setting at its default.
    pub fn builder() -> ConfigBuilder {
        ConfigBuilder::default()
    }

    /// The one default seed policy of both front doors: the TypeScript
    /// kit's 12 shipped seeds (conformance-kit §6) and the `lawsuite`
    /// generator's `0..64` on `ground`.
    ///
    /// ```
    /// use lawsuite::conformance::config::Config;
    /// use lawsuite::peer::Ground;
    /// let sets = Config::default_seeds(Ground::Shared);
    /// let counts: Vec<u64> = sets.iter().map(|s| s.seeds.len()).collect();
    /// assert_eq!(counts, [12, 64]);
    /// ```
    pub fn default_seeds(ground: Ground) -> Vec<SeedSet> {
        [Generator::Smthrs, Generator::Lawsuite]
            .into_iter()
            .map(|generator| SeedSet {
                generator,
                ground: match generator {
                    Generator::Smthrs => Ground::Shared,
                    Generator::Lawsuite => ground,
                },
                seeds: match generator {
                    Generator::Smthrs => Seeds::Listed(crate::kit::SMTHRS_SEEDS.to_vec()),
                    Generator::Lawsuite => Seeds::Range(0..crate::kit::LAWSUITE_SEEDS),
                },
            })
            .collect()
    }

    /// The bounded-exhaustive families a run holds: each at `size` on
    /// every subject, none at size 0, or, when no size is given, each at
    /// its default size for each cost class of peer
    /// ([`Family::default_size_for`]: the `rg` built-ins and `git`, one
    /// process a call, are asked less). Both front doors hold them
    /// (`--exhaustive-size`, `LAWSUITE_EXHAUSTIVE_SIZE`, `--no-exhaustive`).
    ///
    /// ```
    /// use lawsuite::conformance::config::Config;
    /// use lawsuite::kit::exhaustive::{Family, PeerCost};
    /// let sizes = |items: Vec<lawsuite::conformance::ExhaustiveItem>| {
    ///     items.iter().map(|e| (e.family, e.size, e.cost)).collect::<Vec<_>>()
    /// };
    /// let (cheap, dear) = (Some(PeerCost::Ordinary), Some(PeerCost::ProcessPerCall));
    /// assert_eq!(
    ///     sizes(Config::exhaustive_families(None)),
    ///     [
    ///         (Family::Glob, 3, cheap), (Family::Glob, 2, dear),
    ///         (Family::Gitignore, 4, cheap), (Family::Gitignore, 2, dear),
    ///         (Family::Pattern, 3, cheap), (Family::Pattern, 2, dear),
    ///     ]
    /// );
    /// assert!(Config::exhaustive_families(Some(0)).is_empty());
    /// assert!(Config::exhaustive_families(Some(5)).iter().all(|e| e.size == 5 && e.cost.is_none()));
    /// ```
    pub fn exhaustive_families(size: Option<usize>) -> Vec<ExhaustiveItem> {
        match size {
            Some(0) => Vec::new(),
            Some(size) => Family::ALL
                .iter()
                .map(|f| ExhaustiveItem::new(*f, size))
                .collect(),
            None => Family::ALL
                .iter()
                .flat_map(|f| {
                    let sizes = [PeerCost::Ordinary, PeerCost::ProcessPerCall]
                        .map(|cost| (cost, f.default_size_for(cost)));
                    // One item when the classes' sizes agree: one trial id
                    // per family and size.
                    if sizes[0].1 == sizes[1].1 {
                        vec![ExhaustiveItem::new(*f, sizes[0].1)]
                    } else {
                        sizes
                            .into_iter()
                            .map(|(cost, size)| ExhaustiveItem {
                                family: *f,
                                size,
                                cost: Some(cost),
                            })
                            .collect()
                    }
                })
                .collect(),
        }
    }

    /// The bounded-exhaustive families this run holds, with their sizes
    /// and the subjects each is asked of.
    pub fn exhaustive(&self) -> &[ExhaustiveItem] {
        &self.exhaustive
    }

    /// Whether laws run at all.
    pub fn laws(&self) -> bool {
        self.laws
    }

    /// Whether the laws lawsuite ships run.
    pub fn shipped_laws(&self) -> bool {
        self.shipped_laws
    }

    /// The law directories run beside the shipped laws.
    pub fn law_dirs(&self) -> &[PathBuf] {
        &self.law_dirs
    }

    /// The regression directory replayed (a missing one holds none), if
    /// any.
    pub fn regressions(&self) -> Option<&Path> {
        self.regressions.as_deref()
    }

    /// The seed sets, in order.
    pub fn seed_sets(&self) -> &[SeedSet] {
        &self.seeds
    }

    /// The range `LAWSUITE_SEEDS` put on every generator, while the seeds
    /// are that range.
    pub fn seeds_from_environment(&self) -> Option<Range<u64>> {
        self.seeds_from_env.clone()
    }

    /// The generators whose seeds run, in order.
    pub fn generators(&self) -> Vec<Generator> {
        self.seeds
            .iter()
            .filter(|s| !s.seeds.is_empty())
            .map(|s| s.generator)
            .collect()
    }

    /// Only this call of each plan, if one is named.
    pub fn only_call(&self) -> Option<usize> {
        self.only_call
    }

    /// Where failing seeds are shrunk and recorded, if anywhere: the
    /// explicit directory, else the regression directory under
    /// `LAWSUITE_RECORD=1`.
    pub fn record_dir(&self) -> Option<&Path> {
        self.record.as_deref()
    }

    /// How replay commands are spelled.
    pub fn replay(&self) -> &Replay {
        &self.replay
    }

    /// Whether the reference is judged by the laws and regressions too.
    pub fn judge_reference(&self) -> bool {
        self.judge_reference
    }

    /// How many times each trial is asked, each on fresh trees; verdicts
    /// that differ make the trial [flaky](crate::conformance::Verdict::Flaky).
    pub fn repeat(&self) -> u32 {
        self.repeat
    }

    /// How peers are started: the built-ins' `rg`, an external peer's
    /// default timeouts.
    pub fn peer_options(&self) -> &PeerOptions {
        &self.peers
    }

    /// How often a running trial is named on stderr (`None`: never).
    pub fn slow_period(&self) -> Option<Duration> {
        self.slow_period
    }

    /// How long running trials get to end after the first interrupt.
    pub fn interrupt_grace(&self) -> Duration {
        self.interrupt_grace
    }

    /// How many failing calls are printed in full (`0`: all).
    pub fn max_reports(&self) -> usize {
        self.max_reports
    }

    /// Every problem that stops this configuration from making a run.
    fn problems(&self) -> Vec<ConfigError> {
        let mut out = Vec::new();
        if self.laws {
            for dir in &self.law_dirs {
                if !dir.is_dir() {
                    out.push(ConfigError::LawDirMissing(dir.clone()));
                }
            }
            if !self.shipped_laws && self.law_dirs.is_empty() {
                out.push(ConfigError::NoLaws);
            }
        }
        for dir in &self.expected_dirs {
            if !dir.is_dir() {
                out.push(ConfigError::ExpectedDirMissing(dir.clone()));
            }
        }
        out
    }

    /// Assemble the engine of `peers` (every trial, or, given `only`, only
    /// what that trial needs: nextest runs each trial in a process of its
    /// own, so each parses one law file, or none).
    pub fn engine(&self, peers: PeerSet, only: Option<&str>) -> Result<Engine, Vec<ConfigError>> {
        let mut problems = self.problems();
        // The item `only` names (a trial id, or an item id); an id outside
        // the grammar names nothing.
        let only: Option<Option<ItemId>> = only.map(|id| match id.parse::<TrialId>() {
            Ok(trial) => Some(trial.into_parts().0),
            Err(_) => id.parse::<ItemId>().ok(),
        });
        let wants = |admits: fn(&ItemId) -> bool| {
            only.as_ref()
                .is_none_or(|item| item.as_ref().is_some_and(admits))
        };
        let whole_law_set = wants(|i| matches!(i, ItemId::Coverage | ItemId::InvalidLaw { .. }));
        let mut engine = Engine::new(peers.reference, peers.subjects);
        for u in peers.unavailable {
            engine.push(Item::Unavailable {
                name: u.name,
                why: u.why,
            });
        }
        if self.laws
            && wants(|i| {
                matches!(
                    i,
                    ItemId::Law(_) | ItemId::Coverage | ItemId::InvalidLaw { .. }
                )
            })
        {
            if self.shipped_laws {
                let (laws, errors) = if whole_law_set {
                    crate::law::shipped()
                } else {
                    let law = only.as_ref().and_then(|item| item.as_ref()?.law());
                    let law = law.unwrap_or_default();
                    crate::law::shipped_where(|prefix| law.starts_with(&format!("{prefix}::")))
                };
                engine.add_laws(laws, errors);
                if whole_law_set {
                    engine.add_coverage();
                }
            }
            // The project's directory named again with `--law-dir` is one
            // directory: loaded twice, each of its laws would be two trials
            // of one id.
            let mut loaded = Vec::new();
            for dir in self.law_dirs.iter().filter(|d| d.is_dir()) {
                let same = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
                if loaded.contains(&same) {
                    continue;
                }
                loaded.push(same);
                let (laws, errors) = crate::law::load_dir(dir);
                if laws.is_empty() && errors.is_empty() {
                    problems.push(ConfigError::LawDirEmpty(dir.clone()));
                }
                engine.add_laws(laws, errors);
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        if let Some(dir) = self.regressions.as_deref().filter(|_| {
            wants(|i| matches!(i, ItemId::Regression(_) | ItemId::InvalidRegression(_)))
        }) {
            engine.add_regressions(dir);
        }
        if wants(|i| matches!(i, ItemId::Seed { .. } | ItemId::Seeds { .. })) {
            for set in &self.seeds {
                match &set.seeds {
                    Seeds::Range(range) => engine.add_seed_range(
                        set.generator,
                        set.ground,
                        range.clone(),
                        self.only_call,
                    ),
                    Seeds::Listed(seeds) => {
                        engine.add_seeds(set.generator, set.ground, seeds, self.only_call)
                    }
                }
            }
        }
        if wants(|i| matches!(i, ItemId::Exhaustive { .. })) {
            for family in &self.exhaustive {
                engine.add_exhaustive(*family);
            }
        }
        engine.set_expectations(self.expectations());
        if self.laws
            && wants(|i| {
                matches!(
                    i,
                    ItemId::InvalidExpected(_) | ItemId::UnknownExpected { .. }
                )
            })
        {
            engine.check_expectations();
        }
        engine.set_replay(self.replay.clone());
        engine.set_judge_reference(self.judge_reference);
        engine.set_repeat(self.repeat);
        engine.set_slow_period(self.slow_period);
        if let Some(dir) = self.record_dir() {
            engine.record_into(dir.to_path_buf());
        }
        Ok(engine)
    }

    /// lawsuite's own expected failures of its built-ins, the project's,
    /// those of the directories given ([`ConfigBuilder::expected_dir`]),
    /// and those given in code.
    pub fn expectations(&self) -> Expectations {
        let mut expectations = Expectations::shipped();
        if let Some(dir) = &self.project_expected {
            expectations.load_dir(dir);
        }
        for dir in self.expected_dirs.iter().filter(|d| d.is_dir()) {
            expectations.load_dir(dir);
        }
        for listed in &self.expected {
            expectations.add(
                &listed.peer,
                &listed.id,
                &listed.reason,
                "Suite::expect_failure",
            );
        }
        expectations
    }
}

#[cfg(test)]
mod tests;
