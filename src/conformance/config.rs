//! What a run holds, said once: law sources, regressions, expected
//! failures, seed sets, where failing seeds are recorded, and how replay
//! commands are spelled, with the one default seed policy and the
//! environment overlaid ([`crate::environment`]).
//!
//! Both front doors are adapters onto a [`Config`]: [`crate::suite::Suite`]
//! is a builder over one, and `lawsuite run` maps its flags onto one. Only
//! [`Config::engine`] assembles an [`Engine`] from it, so the same project
//! gives the same trials through either door (a test lines up their
//! default trial lists), as nextest maps its command line onto library
//! builders and proptest keeps one `Config`.
//!
//! Precedence, lowest first: the defaults of [`Config::new`] (every shipped
//! law; the TypeScript kit's 12 seeds and the `lawsuite` generator's
//! `0..64`), the project's `lawsuite.toml` ([`Config::for_project`]), the
//! `LAWSUITE_*` variables, and explicit settings (a flag, a builder call).
//!
//! ```
//! use lawsuite::conformance::config::Config;
//! use lawsuite::conformance::peers::PeerSet;
//! use lawsuite::conformance::Subject;
//! use lawsuite::kit::Generator;
//! use lawsuite::portable::Portable;
//!
//! let mut config = Config::new();
//! config.shipped_laws = false;
//! config.laws = false;
//! config.only_generator(Generator::Smthrs);
//! config.set_seeds(4..5);
//! let peers = PeerSet::new(
//!     Subject::new("portable", Portable::default()),
//!     vec![Subject::new("one-thread", Portable::with_threads(1))],
//! );
//! let engine = config.engine(peers, None).map_err(|e| format!("{e:?}"))?;
//! let ids: Vec<String> = engine.trials().into_iter().map(|t| t.id).collect();
//! assert_eq!(ids, ["seed::smthrs::0004::one-thread"]);
//! # Ok::<(), String>(())
//! ```

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::peers::{PeerError, PeerSet};
use super::{Engine, Expectations, Item, ItemId, Replay, TrialId};
use crate::environment::{self, EnvError};
use crate::kit::Generator;
use crate::peer::Ground;
use crate::project::Project;

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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedFailure {
    /// The registered peer name.
    pub peer: String,
    /// The law id (`grep::context::…`, without `law::`) or `regression::<file>`.
    pub id: String,
    /// Why it fails.
    pub reason: String,
}

/// A configuration that cannot make a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// A `LAWSUITE_*` variable holds a value it cannot take.
    Env(EnvError),
    /// The project cannot be found or read.
    Project(String),
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
            ConfigError::Env(e) => write!(f, "{e}"),
            ConfigError::Project(e) => write!(f, "{e}"),
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

/// What a run holds. See the [module documentation](self).
#[derive(Clone, Debug)]
pub struct Config {
    /// Whether laws run at all (`--no-laws` turns them off).
    pub laws: bool,
    /// Whether the laws lawsuite ships run.
    pub shipped_laws: bool,
    /// Law directories run beside the shipped laws; each must hold laws.
    pub law_dirs: Vec<PathBuf>,
    /// The regression directory replayed (a missing one holds none);
    /// `None`: no regressions.
    pub regressions: Option<PathBuf>,
    /// The project's expected-failures directory (a missing one lists none).
    pub project_expected: Option<PathBuf>,
    /// More expected-failures directories; each must exist.
    pub expected_dirs: Vec<PathBuf>,
    /// Expected failures given in code.
    pub expected: Vec<ListedFailure>,
    /// The seed sets, in order.
    pub seeds: Vec<SeedSet>,
    /// Only this call of each plan (`--call`).
    pub only_call: Option<usize>,
    /// Where failing seeds are shrunk and recorded, if anywhere.
    pub record: Option<PathBuf>,
    /// How replay commands are spelled.
    pub replay: Replay,
    /// Whether the reference's own answers are judged by the laws and
    /// regressions, as a subject's are (`lawsuite run` does; a peer
    /// crate's [`crate::suite::Suite`] does not unless asked: there the
    /// reference only answers the seeds' calls, as the oracle).
    pub judge_reference: bool,
    /// How many times each trial is asked, each on fresh trees (`--repeat`,
    /// `LAWSUITE_REPEAT`; 1 by default); verdicts that differ make the
    /// trial [flaky](crate::conformance::Verdict::Flaky).
    pub repeat: u32,
    /// Whether `LAWSUITE_RECORD=1` asked for recording (it records into
    /// the regression directory, whichever is set when the engine is made).
    record_from_env: bool,
    /// Problems found while reading the environment, reported by
    /// [`Config::engine`].
    problems: Vec<ConfigError>,
}

impl Default for Config {
    fn default() -> Config {
        Config::new()
    }
}

impl Config {
    /// The defaults, with the environment overlaid: every shipped law, no
    /// regressions, the default seeds ([`Config::default_seeds`]).
    pub fn new() -> Config {
        let problems: Vec<ConfigError> = environment::problems()
            .into_iter()
            .map(ConfigError::Env)
            .collect();
        let ground = environment::ground().ok().flatten().unwrap_or_default();
        let mut config = Config {
            laws: true,
            shipped_laws: true,
            law_dirs: Vec::new(),
            regressions: None,
            project_expected: None,
            expected_dirs: Vec::new(),
            expected: Vec::new(),
            seeds: Config::default_seeds(ground),
            only_call: None,
            record: None,
            replay: Replay::default(),
            judge_reference: true,
            repeat: environment::repeat().ok().flatten().unwrap_or(1),
            record_from_env: environment::record().unwrap_or(false),
            problems,
        };
        if let Ok(Some(range)) = environment::seeds() {
            config.set_seeds(range);
        }
        config
    }

    /// [`Config::new`] over `project`: its law directories, whether its
    /// shipped laws run, its regressions and expected failures.
    pub fn for_project(project: &Project) -> Config {
        let mut config = Config::new();
        config.shipped_laws = project.shipped_laws;
        config.law_dirs = project.laws.clone();
        config.regressions = Some(project.regressions.clone());
        config.project_expected = Some(project.expected.clone());
        config
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

    /// Keep only the seeds of `generator`.
    pub fn only_generator(&mut self, generator: Generator) {
        self.seeds.retain(|s| s.generator == generator);
    }

    /// Run `range` on every generator instead of its seeds (kept as a
    /// range: nothing is made per seed).
    pub fn set_seeds(&mut self, range: Range<u64>) {
        for set in &mut self.seeds {
            set.seeds = Seeds::Range(range.clone());
        }
    }

    /// Put the `lawsuite` generator on `ground`.
    pub fn set_ground(&mut self, ground: Ground) {
        for set in &mut self.seeds {
            if set.generator == Generator::Lawsuite {
                set.ground = ground;
            }
        }
    }

    /// Run no seeds.
    pub fn no_seeds(&mut self) {
        self.seeds.clear();
    }

    /// The generators whose seeds run, in order.
    pub fn generators(&self) -> Vec<Generator> {
        self.seeds
            .iter()
            .filter(|s| !s.seeds.is_empty())
            .map(|s| s.generator)
            .collect()
    }

    /// Every problem that stops this configuration from making a run.
    pub fn problems(&self) -> Vec<ConfigError> {
        let mut out = self.problems.clone();
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
            // The project's directory named again with `--laws` is one
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
        if let Some(dir) = self.record_dir() {
            engine.record_into(dir.to_path_buf());
        }
        Ok(engine)
    }

    /// lawsuite's own expected failures of its built-ins, the project's,
    /// those of [`Config::expected_dirs`], and those given in code.
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

    /// Where failing seeds are recorded: [`Config::record`], else the
    /// regression directory under `LAWSUITE_RECORD=1`.
    fn record_dir(&self) -> Option<&Path> {
        self.record.as_deref().or_else(|| {
            self.record_from_env
                .then_some(self.regressions.as_deref())
                .flatten()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_law_directory_that_is_missing_or_empty_is_refused() {
        let empty = tempfile::tempdir().unwrap();
        let mut config = Config::new();
        config.law_dirs = vec![empty.path().join("nope"), empty.path().to_path_buf()];
        config.no_seeds();
        let peers = PeerSet::new(
            super::super::Subject::new("noop", crate::peer::Noop),
            Vec::new(),
        );
        let problems = config.engine(peers, None).unwrap_err();
        assert_eq!(
            problems,
            [
                ConfigError::LawDirMissing(empty.path().join("nope")),
                ConfigError::LawDirEmpty(empty.path().to_path_buf())
            ]
        );
    }

    #[test]
    fn no_laws_at_all_is_refused_unless_laws_are_off() {
        let mut config = Config::new();
        config.shipped_laws = false;
        assert_eq!(config.problems(), [ConfigError::NoLaws]);
        config.laws = false;
        assert!(config.problems().is_empty());
    }

    #[test]
    fn one_generator_and_one_range() {
        let mut config = Config::new();
        config.only_generator(Generator::Lawsuite);
        config.set_seeds(3..5);
        config.set_ground(Ground::Full);
        assert_eq!(
            config.seeds,
            [SeedSet {
                generator: Generator::Lawsuite,
                ground: Ground::Full,
                seeds: Seeds::Range(3..5)
            }]
        );
    }
}
