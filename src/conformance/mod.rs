//! The conformance engine: the one place that enumerates what a run holds
//! (laws, regressions, seeds, checks) × the peers, and decides each
//! verdict. `cargo test` ([`crate::suite::Suite`], libtest-mimic) and
//! `lawsuite run` are thin adapters over it, so the same registry, laws and
//! seeds give the same verdicts through either front door.
//!
//! An [`Engine`] holds a reference peer, any number of subjects, and a list
//! of [`Item`]s. [`Engine::trials`] lists every (item, peer) pair as a
//! [`Trial`] with a stable id (`law::grep::context::x::mine`,
//! `seed::smthrs::0051::mine`, …) and, when it cannot run, the reason it is
//! skipped. [`Engine::run_item`] runs one item on some of its peers and
//! returns an [`Outcome`] per peer with a typed [`Verdict`]:
//!
//! | verdict | when |
//! | --- | --- |
//! | `Pass` | the answer is the law's, the recorded one, the reference's |
//! | `Fail(report)` | it is not; the [`Report`] has the section, tree, call, both answers, replay command and the peer's faults |
//! | `ExpectedFailure` | it is not, and [`Expectations`] lists it (by registered name, or lawsuite's own list for a built-in) |
//! | `UnexpectedPass` | it is, but it is listed as failing: the list is stale |
//! | `Skipped(why)` | the peer does not answer the method, claims a narrower ground, or cannot run |
//! | `Broken(why)` | the trial could not be judged: a law or regression that cannot be set up, a broken file, a peer the harness stopped restarting |
//!
//! Laws and regressions run on every peer, the reference included; a seed
//! runs on the subjects, each compared with the reference (which answers
//! each call once however many subjects there are). [`Engine::run`] runs a
//! selection of trials on several threads and streams [`Event`]s.
//!
//! ```
//! use lawsuite::conformance::{Engine, Subject, Verdict};
//! use lawsuite::kit::Generator;
//! use lawsuite::peer::Ground;
//! use lawsuite::portable::Portable;
//!
//! let mut engine = Engine::new(
//!     Subject::new("portable", Portable::default()),
//!     vec![Subject::new("one-thread", Portable::with_threads(1))],
//! );
//! engine.add_seeds(Generator::Smthrs, Ground::Shared, &[4], None);
//! let trials = engine.trials();
//! assert_eq!(trials[0].id, "seed::smthrs::0004::one-thread");
//! let outcome = engine.run_trial(&trials[0]);
//! assert_eq!(outcome.verdict, Verdict::Pass);
//! ```

pub mod config;
pub mod expect;
pub mod peers;
pub mod shard;
pub mod slow;
pub mod verdict;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use expect::{Expectations, Expected};
pub use verdict::{Case, Report, TreeEntry, Verdict};

use crate::kit::compare::{Compared, Divergence, compare_plan};
use crate::kit::plan::PLAN_ROOT;
use crate::kit::regression::{Regression, shrink_to_regression};
use crate::kit::{Generator, generate};
use crate::law::{self, LawOutcome, LoadedLaw};
use crate::peer::{Ground, Health, Search};

/// A peer as the run knows it: its registered name, the built-in it is
/// (lawsuite's own expected failures for that built-in apply to it), and
/// the peer.
#[derive(Clone)]
pub struct Subject {
    /// The registered name: trial ids, reports and the project's expected
    /// failures use it.
    pub name: String,
    /// The built-in it is, if it is one.
    pub builtin: Option<String>,
    /// The peer.
    pub peer: Arc<dyn Search>,
}

impl std::fmt::Debug for Subject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subject")
            .field("name", &self.name)
            .field("builtin", &self.builtin)
            .finish_non_exhaustive()
    }
}

impl Subject {
    /// A peer registered as `name` (not a built-in); its answers are
    /// labelled with that name.
    pub fn new(name: &str, peer: impl Search + 'static) -> Subject {
        Subject {
            name: name.to_string(),
            builtin: None,
            peer: crate::peer::Named::wrap(name, Arc::new(peer)),
        }
    }

    /// A registry's peer, or why it cannot run here.
    pub fn registered(entry: &crate::registry::Registered) -> Result<Subject, String> {
        entry.peer.clone().map(|peer| Subject {
            name: entry.name.clone(),
            builtin: entry.builtin.clone(),
            peer,
        })
    }

    /// The built-in `builtin`, registered as `name`.
    pub fn builtin(name: &str, builtin: &str, peer: Arc<dyn Search>) -> Subject {
        Subject {
            name: name.to_string(),
            builtin: Some(builtin.to_string()),
            peer: crate::peer::Named::wrap(name, peer),
        }
    }
}

/// What kind of item a trial runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A hand-written law.
    Law,
    /// A recorded regression.
    Regression,
    /// A generated plan.
    Seed,
    /// A check of the run itself: law coverage, a broken file, a peer that
    /// cannot run.
    Check,
}

impl Kind {
    /// `law`, `regression`, `seed` or `check`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Law => "law",
            Kind::Regression => "regression",
            Kind::Seed => "seed",
            Kind::Check => "check",
        }
    }
}

/// One generated plan to compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeedItem {
    /// Its generator.
    pub generator: Generator,
    /// The generator's ground.
    pub ground: Ground,
    /// The seed.
    pub seed: u64,
    /// Only this call of the plan, when set.
    pub only_call: Option<usize>,
}

impl SeedItem {
    /// `seed::smthrs::0051`, or `seed::lawsuite@full::0051` on the full
    /// ground.
    pub fn id(&self) -> String {
        let ground = match self.ground {
            Ground::Full if self.generator == Generator::Lawsuite => "@full",
            _ => "",
        };
        format!("seed::{}{ground}::{:04}", self.generator.name(), self.seed)
    }
}

/// One thing a run checks.
#[derive(Clone, Debug)]
pub enum Item {
    /// A law, on every peer.
    Law(Arc<LoadedLaw>),
    /// A regression file, on every peer.
    Regression {
        /// The file's stem: its id.
        name: String,
        /// The file.
        path: PathBuf,
        /// What it holds.
        regression: Arc<Regression>,
    },
    /// A plan, on every subject against the reference.
    Seed(SeedItem),
    /// Every section of the spec has a law.
    Coverage {
        /// The sections no law pins.
        uncovered: Vec<String>,
        /// How many laws were looked at.
        laws: usize,
    },
    /// A problem found while loading: a broken law, regression or
    /// expectations file, an expectation naming no known law. Always
    /// broken.
    Problem {
        /// Its id, e.g. `law::invalid::grep::context::x`.
        id: String,
        /// What is wrong and what to do.
        message: String,
    },
    /// A registered peer that cannot run here: skipped, with the reason.
    Unavailable {
        /// Its registered name.
        name: String,
        /// Why, and what to do.
        why: String,
    },
}

impl Item {
    /// The item's id: the trial id without the peer.
    pub fn id(&self) -> String {
        match self {
            Item::Law(l) => format!("law::{}", l.id),
            Item::Regression { name, .. } => format!("regression::{name}"),
            Item::Seed(s) => s.id(),
            Item::Coverage { .. } => "law::coverage".into(),
            Item::Problem { id, .. } => id.clone(),
            Item::Unavailable { name, .. } => format!("unavailable::{name}"),
        }
    }

    /// Its kind.
    pub fn kind(&self) -> Kind {
        match self {
            Item::Law(_) => Kind::Law,
            Item::Regression { .. } => Kind::Regression,
            Item::Seed(_) => Kind::Seed,
            _ => Kind::Check,
        }
    }

    /// The spec section it pins, for a law.
    pub fn spec(&self) -> Option<&str> {
        match self {
            Item::Law(l) => Some(&l.law.spec),
            _ => None,
        }
    }
}

/// One item on one peer (or, for a check, on none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trial {
    /// `<item id>::<peer>`, or the item id for a check.
    pub id: String,
    /// The item's index in the engine.
    pub item: usize,
    /// The peer: 0 is the reference, `i + 1` the subject `i`.
    pub peer: Option<usize>,
    /// The item's kind.
    pub kind: Kind,
    /// Why it does not run, when it does not.
    pub skip: Option<String>,
}

/// The result of one trial.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// The trial id.
    pub id: String,
    /// The item id.
    pub item: String,
    /// The item's kind.
    pub kind: Kind,
    /// The peer's registered name (none for a check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer: Option<String>,
    /// The spec section, for a law.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
    /// The verdict.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// For a seed: the calls where the peer differs from the reference in
    /// a way it documents, by documented difference.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub documented: BTreeMap<String, usize>,
    /// Wall-clock seconds the trial took.
    pub seconds: f64,
}

/// How replay commands are spelled: the command line of the binary that
/// is running, or a `cargo test` trial.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Replay {
    /// `<program> run … --exact <trial>`, with `flags` (e.g. `--registry
    /// peers.toml`) so the command finds the same peers.
    Cli {
        /// How the binary was invoked (`lawsuite`, or its path).
        program: String,
        /// Flags to repeat.
        flags: Vec<String>,
    },
    /// `cargo test --test <target> -- <trial> --exact`, with the
    /// environment a seed outside the default set needs.
    CargoTest {
        /// The test target (`conformance`), if known.
        target: Option<String>,
    },
}

impl Default for Replay {
    fn default() -> Replay {
        Replay::CargoTest { target: None }
    }
}

impl Replay {
    /// The command that runs `trial` of `item` on `peer` again (for a seed,
    /// only `call` of its plan when given).
    fn command(&self, item: &Item, trial: &str, peer: &str, call: Option<usize>) -> String {
        match self {
            Replay::Cli { program, flags } => {
                let mut words = vec![shell_word(program), "run".into()];
                if let Item::Seed(s) = item {
                    words.extend(["--generator".into(), s.generator.name().into()]);
                    if s.ground == Ground::Full && s.generator == Generator::Lawsuite {
                        words.extend(["--ground".into(), "full".into()]);
                    }
                    words.extend(["--seeds".into(), s.seed.to_string()]);
                    if let Some(c) = call.or(s.only_call) {
                        words.extend(["--call".into(), c.to_string()]);
                    }
                }
                words.extend(["--peer".into(), shell_word(peer)]);
                words.extend(flags.iter().map(|f| shell_word(f)));
                words.extend(["--exact".into(), shell_word(trial)]);
                words.join(" ")
            }
            Replay::CargoTest { target } => {
                let mut env = String::new();
                if let Item::Seed(s) = item {
                    if !s.generator.default_seeds().contains(&s.seed) {
                        env.push_str(&format!("LAWSUITE_SEEDS={} ", s.seed));
                    }
                    if s.ground == Ground::Full && s.generator == Generator::Lawsuite {
                        env.push_str("LAWSUITE_GROUND=full ");
                    }
                }
                let target = target
                    .as_ref()
                    .map(|t| format!(" --test {}", shell_word(t)))
                    .unwrap_or_default();
                format!("{env}cargo test{target} -- {} --exact", shell_word(trial))
            }
        }
    }
}

/// `word` quoted for a POSIX shell when it needs to be (replay commands).
///
/// ```
/// use lawsuite::conformance::shell_word;
/// assert_eq!(shell_word("law::grep::a"), "law::grep::a");
/// assert_eq!(shell_word(r#"{"a":"it's"}"#), r#"'{"a":"it'\''s"}'"#);
/// ```
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Something that happened during [`Engine::run`].
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A trial finished.
    Outcome(Box<Outcome>),
    /// The harness gave up restarting an external peer: said once, with
    /// the trial where it happened; its later trials are broken, not run.
    PeerStopped {
        /// The peer.
        peer: String,
        /// The trial during which it stopped.
        at: String,
        /// The fault that stopped it.
        why: String,
    },
}

/// How [`Engine::run`] runs.
#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    /// Threads running items at once (at least one).
    pub jobs: usize,
    /// Stop handing out items after the first failure.
    pub fail_fast: bool,
}

/// The conformance engine.
pub struct Engine {
    everyone: Vec<Subject>,
    items: Vec<Item>,
    expectations: Expectations,
    replay: Replay,
    record: Option<PathBuf>,
    /// Peers the harness stopped restarting: name → (trial, why).
    stopped: Mutex<BTreeMap<String, (String, String)>>,
    /// The trees of the laws asked most recently, by item, newest last:
    /// libtest runs each (law, peer) as a trial of its own, and the
    /// trials of one law run one after another, so they share its tree.
    setups: Mutex<Vec<(usize, SharedSetup)>>,
    /// Written trees by [`law::Tree::key`], newest last: laws that read
    /// the same tree (a file's laws often do) share it.
    trees: Mutex<Vec<(String, Arc<law::Tree>)>>,
}

/// A law's setup, or why it cannot be set up, shared by its trials.
type SharedSetup = Arc<Result<law::Setup, String>>;

/// How many law trees [`Engine::setup`] keeps: enough for the trials of
/// one law running side by side on every thread.
const KEPT_SETUPS: usize = 8;

/// How many written trees [`Engine::setup`] keeps for laws with the same
/// tree. Laws sharing a tree mostly sit in one file, asked close together;
/// the largest kept tree is 1,001 empty files.
const KEPT_TREES: usize = 32;

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("peers", &self.everyone)
            .field("items", &self.items.len())
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// An engine comparing `subjects` with `reference`, with no items yet
    /// and no expected failures.
    pub fn new(reference: Subject, subjects: Vec<Subject>) -> Engine {
        Engine {
            everyone: std::iter::once(reference).chain(subjects).collect(),
            items: Vec::new(),
            expectations: Expectations::default(),
            replay: Replay::default(),
            record: None,
            stopped: Mutex::new(BTreeMap::new()),
            setups: Mutex::new(Vec::new()),
            trees: Mutex::new(Vec::new()),
        }
    }

    /// The reference and the subjects, reference first.
    pub fn peers(&self) -> &[Subject] {
        &self.everyone
    }

    /// The items, in order.
    pub fn items(&self) -> &[Item] {
        &self.items
    }

    /// Use these expected failures.
    pub fn set_expectations(&mut self, expectations: Expectations) {
        self.expectations = expectations;
    }

    /// Spell replay commands this way.
    pub fn set_replay(&mut self, replay: Replay) {
        self.replay = replay;
    }

    /// Shrink each failing seed's divergences and record them as
    /// regression files under `dir` (`LAWSUITE_RECORD=1`).
    pub fn record_into(&mut self, dir: PathBuf) {
        self.record = Some(dir);
    }

    /// Add an item.
    pub fn push(&mut self, item: Item) {
        self.items.push(item);
    }

    /// Add laws, and each problem of their files as a broken check.
    pub fn add_laws(&mut self, laws: Vec<LoadedLaw>, problems: Vec<law::LawError>) {
        for problem in problems {
            // `read::input` for `laws/read/input.toml`: the area and the file,
            // so `read/input.toml` and `ls/input.toml` stay apart.
            let path = problem.file.with_extension("");
            let parts: Vec<String> = path
                .iter()
                .rev()
                .take(2)
                .map(|s| s.to_string_lossy().into_owned())
                .collect();
            let stem = parts.into_iter().rev().collect::<Vec<_>>().join("::");
            self.push(Item::Problem {
                id: format!(
                    "law::invalid::{stem}::{}",
                    problem.law.as_deref().unwrap_or("file")
                ),
                message: problem.to_string(),
            });
        }
        for law in laws {
            self.push(Item::Law(Arc::new(law)));
        }
    }

    /// Add the coverage check over every law added so far: every section
    /// of the spec has one.
    pub fn add_coverage(&mut self) {
        let laws: Vec<LoadedLaw> = self
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Law(l) => Some((**l).clone()),
                _ => None,
            })
            .collect();
        self.push(Item::Coverage {
            uncovered: law::uncovered_sections(&laws),
            laws: laws.len(),
        });
    }

    /// Add every regression file of `dir` (a missing directory holds none);
    /// a file that cannot be read or parsed is a broken check, and the
    /// others still run.
    pub fn add_regressions(&mut self, dir: &Path) {
        for path in crate::kit::regression::list(dir) {
            let name = path
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            match Regression::load(&path) {
                Ok(regression) => self.push(Item::Regression {
                    name,
                    path,
                    regression: Arc::new(regression),
                }),
                Err(e) => self.push(Item::Problem {
                    id: format!("regression::invalid::{name}"),
                    message: e.to_string(),
                }),
            }
        }
    }

    /// Add one seed item per seed.
    pub fn add_seeds(
        &mut self,
        generator: Generator,
        ground: Ground,
        seeds: &[u64],
        only_call: Option<usize>,
    ) {
        for &seed in seeds {
            self.push(Item::Seed(SeedItem {
                generator,
                ground,
                seed,
                only_call,
            }));
        }
    }

    /// Add a broken check for every problem of the expectations, and for
    /// every listed id that names no law or regression of this engine.
    pub fn check_expectations(&mut self) {
        let known: std::collections::HashSet<String> = self
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Law(l) => Some(l.id.clone()),
                Item::Regression { name, .. } => Some(format!("regression::{name}")),
                _ => None,
            })
            .collect();
        let mut problems: Vec<Item> = self
            .expectations
            .problems
            .iter()
            .map(|(file, message)| Item::Problem {
                id: format!("expected::invalid::{file}"),
                message: format!("the expected-failures file {file} is not valid: {message}"),
            })
            .collect();
        for (peer, id, listing) in self.expectations.unknown(&|id| known.contains(id)) {
            problems.push(Item::Problem {
                id: format!("expected::unknown::{peer}::{id}"),
                message: format!(
                    "{} lists {id:?} as an expected failure of {peer}, but no law or regression has that id; correct or remove the entry",
                    listing.source
                ),
            });
        }
        self.items.extend(problems);
    }

    /// Every trial, in item order, each item's peers in registry order.
    pub fn trials(&self) -> Vec<Trial> {
        self.trials_where(|_| true)
    }

    /// The trials whose id `wanted` admits. Only those are asked whether
    /// their peer answers (which starts an external peer), so a process
    /// that runs one trial (nextest runs each in its own) starts only the
    /// peer it uses.
    pub fn trials_where(&self, wanted: impl Fn(&str) -> bool) -> Vec<Trial> {
        let mut out = Vec::new();
        for (index, item) in self.items.iter().enumerate() {
            let id = item.id();
            let kind = item.kind();
            let peers: Vec<usize> = match item {
                Item::Law(_) | Item::Regression { .. } => (0..self.everyone.len()).collect(),
                Item::Seed(_) => (1..self.everyone.len()).collect(),
                _ => {
                    if !wanted(&id) {
                        continue;
                    }
                    out.push(Trial {
                        id,
                        item: index,
                        peer: None,
                        kind,
                        skip: match item {
                            Item::Unavailable { why, .. } => Some(why.clone()),
                            _ => None,
                        },
                    });
                    continue;
                }
            };
            for p in peers {
                let id = format!("{id}::{}", self.everyone[p].name);
                if !wanted(&id) {
                    continue;
                }
                out.push(Trial {
                    id,
                    item: index,
                    peer: Some(p),
                    kind,
                    skip: self.skip(item, &self.everyone[p]),
                });
            }
        }
        out
    }

    /// Why `item` cannot run on `subject`, if it cannot.
    fn skip(&self, item: &Item, subject: &Subject) -> Option<String> {
        let peer = subject.peer.as_ref();
        match item {
            Item::Law(l) if !peer.supports(l.law.method) => {
                Some(format!("{} does not answer {}", subject.name, l.law.method))
            }
            Item::Regression { regression, .. } if !peer.supports(regression.call.method()) => {
                Some(format!(
                    "{} does not answer {}",
                    subject.name,
                    regression.call.method()
                ))
            }
            Item::Seed(s) => {
                if s.generator == Generator::Lawsuite
                    && s.ground == Ground::Full
                    && peer.ground() != Ground::Full
                {
                    return Some(format!(
                        "{} claims only the shared ground, so full-ground plans are not asked of it",
                        subject.name
                    ));
                }
                let methods = s.generator.methods();
                if !methods.iter().any(|m| peer.supports(*m)) {
                    let names: Vec<&str> = methods.iter().map(|m| m.name()).collect();
                    return Some(format!(
                        "{} answers none of the methods these plans call ({})",
                        subject.name,
                        names.join(", ")
                    ));
                }
                None
            }
            _ => None,
        }
    }

    /// Run one trial.
    pub fn run_trial(&self, trial: &Trial) -> Outcome {
        let mut outcomes = self.run_item(trial.item, &[trial.peer]);
        match outcomes.pop() {
            Some(o) => o,
            None => unreachable!("run_item answers every peer it is given"),
        }
    }

    /// Run item `index` on `peers` (`None` for a check), one outcome each,
    /// in the order given. A seed is compared for all its subjects in one
    /// pass: its tree is written once and the reference answers each call
    /// once.
    pub fn run_item(&self, index: usize, peers: &[Option<usize>]) -> Vec<Outcome> {
        let item = &self.items[index];
        let started = Instant::now();
        let _slow = slow::watch(|| match peers {
            [Some(p)] => format!("{}::{}", item.id(), self.everyone[*p].name),
            [_] => item.id(),
            _ => format!("{} ({} peers)", item.id(), peers.len()),
        });
        match item {
            Item::Seed(seed) => self.run_seed(item, seed, peers, started),
            _ => peers
                .iter()
                .map(|&p| {
                    let started = Instant::now();
                    let subject = p.map(|p| &self.everyone[p]);
                    let verdict = match subject {
                        Some(s) => match self.skip(item, s) {
                            Some(why) => Verdict::Skipped { why },
                            None => self.guarded(item, s, |health| match item {
                                Item::Law(l) => {
                                    let setup = self.setup(index, l);
                                    self.judge(item, s, health, Some(&setup))
                                }
                                _ => self.judge(item, s, health, None),
                            }),
                        },
                        None => self.check(item),
                    };
                    self.outcome(item, subject, verdict, BTreeMap::new(), started)
                })
                .collect(),
        }
    }

    /// Law `index` set up: its kept tree when the law may share one
    /// ([`law::Setup::shared`]), else a fresh one. So a tree is written
    /// once per law, not once per peer, in `lawsuite run` (an item's peers
    /// together) and under libtest (one trial per peer) alike: trees were
    /// most of a law trial's cost.
    fn setup(&self, index: usize, l: &LoadedLaw) -> SharedSetup {
        let lock = || {
            self.setups
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
        };
        {
            let mut kept = lock();
            // A setup whose tree a peer changed is not handed on.
            kept.retain(|(_, s)| !s.as_ref().as_ref().is_ok_and(law::Setup::is_spoiled));
            if let Some((_, kept)) = kept.iter().find(|(i, _)| *i == index) {
                return kept.clone();
            }
        }
        // Written outside the lock: two threads may both write one law's
        // tree at once; one is kept, and both answers are right.
        let setup = Arc::new(if law::Setup::shares_tree(&l.law) {
            self.tree(l).and_then(|tree| law::Setup::on(l, tree))
        } else {
            law::Setup::new(l)
        });
        if setup.as_ref().as_ref().is_ok_and(law::Setup::shared) {
            let mut kept = lock();
            kept.push((index, setup.clone()));
            if kept.len() > KEPT_SETUPS {
                kept.remove(0);
            }
        }
        setup
    }

    /// A written tree for law `l`: a kept one with the same
    /// [`law::Tree::key`], else a new one (then kept).
    fn tree(&self, l: &LoadedLaw) -> Result<Arc<law::Tree>, String> {
        let lock = || {
            self.trees
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
        };
        let key = law::Tree::key(&l.law);
        {
            let mut kept = lock();
            kept.retain(|(_, tree)| !tree.is_spoiled());
            if let Some((_, kept)) = kept.iter().find(|(k, _)| *k == key) {
                return Ok(kept.clone());
            }
        }
        let tree = Arc::new(law::Tree::write(l)?);
        let mut kept = lock();
        kept.push((key, tree.clone()));
        if kept.len() > KEPT_TREES {
            kept.remove(0);
        }
        Ok(tree)
    }

    fn outcome(
        &self,
        item: &Item,
        subject: Option<&Subject>,
        verdict: Verdict,
        documented: BTreeMap<String, usize>,
        started: Instant,
    ) -> Outcome {
        let item_id = item.id();
        Outcome {
            id: match subject {
                Some(s) => format!("{item_id}::{}", s.name),
                None => item_id.clone(),
            },
            item: item_id,
            kind: item.kind(),
            peer: subject.map(|s| s.name.clone()),
            spec: item.spec().map(str::to_string),
            verdict,
            documented,
            seconds: started.elapsed().as_secs_f64(),
        }
    }

    /// A peer-less check's verdict.
    fn check(&self, item: &Item) -> Verdict {
        match item {
            Item::Coverage { uncovered, .. } if uncovered.is_empty() => Verdict::Pass,
            Item::Coverage { uncovered, laws } => Verdict::Broken {
                why: format!(
                    "sections without a law: {}; add a law that pins each ({laws} laws loaded)",
                    uncovered.join(", ")
                ),
            },
            Item::Problem { message, .. } => Verdict::Broken {
                why: message.clone(),
            },
            Item::Unavailable { why, .. } => Verdict::Skipped { why: why.clone() },
            _ => Verdict::Broken {
                why: "this item runs on a peer".into(),
            },
        }
    }

    /// Run `judge` on `subject` unless the harness has stopped it, noting
    /// the faults it had meanwhile and whether it stopped during this trial.
    fn guarded(
        &self,
        item: &Item,
        subject: &Subject,
        judge: impl FnOnce(&dyn Fn() -> Option<Health>) -> Verdict,
    ) -> Verdict {
        if let Some(verdict) = self.stopped_verdict(subject) {
            return verdict;
        }
        let before = subject.peer.health().map_or(0, |h| h.faults);
        let health = || faults_since(subject, before);
        let verdict = judge(&health);
        self.note_stop(item, subject, verdict)
    }

    /// A peer already stopped: its trial is broken, not run.
    fn stopped_verdict(&self, subject: &Subject) -> Option<Verdict> {
        let stopped = self.stopped.lock().unwrap_or_else(|p| p.into_inner());
        let (at, why) = stopped.get(&subject.name)?;
        Some(Verdict::Broken {
            why: format!(
                "not run: the harness stopped restarting {} during {at} ({why}); fix the peer and run again",
                subject.name
            ),
        })
    }

    /// If `subject` stopped during this trial, remember where: its later
    /// trials are broken, not run. This trial keeps its failure report
    /// (whose fault log says the peer stopped), or, when it has none, is
    /// broken with the reason.
    fn note_stop(&self, item: &Item, subject: &Subject, verdict: Verdict) -> Verdict {
        let Some(why) = subject.peer.health().and_then(|h| h.stopped) else {
            return verdict;
        };
        let mut stopped = self.stopped.lock().unwrap_or_else(|p| p.into_inner());
        if stopped.contains_key(&subject.name) {
            return verdict;
        }
        let at = format!("{}::{}", item.id(), subject.name);
        stopped.insert(subject.name.clone(), (at, why.clone()));
        match verdict {
            Verdict::Fail { .. } => verdict,
            _ => Verdict::Broken {
                why: format!(
                    "the harness gave up restarting {} during this trial: {why}",
                    subject.name
                ),
            },
        }
    }

    /// The peers stopped so far: (peer, trial, why).
    pub fn stopped(&self) -> Vec<(String, String, String)> {
        let stopped = self.stopped.lock().unwrap_or_else(|p| p.into_inner());
        stopped
            .iter()
            .map(|(peer, (at, why))| (peer.clone(), at.clone(), why.clone()))
            .collect()
    }

    /// A law's or regression's verdict on `subject` (a law asked on
    /// `setup` when given, else on a tree of its own).
    fn judge(
        &self,
        item: &Item,
        subject: &Subject,
        health: &dyn Fn() -> Option<Health>,
        setup: Option<&Result<law::Setup, String>>,
    ) -> Verdict {
        let (key, result) = match item {
            Item::Law(l) => (l.id.clone(), self.judge_law(l, subject, health, setup)),
            Item::Regression {
                name,
                path,
                regression,
            } => (
                format!("regression::{name}"),
                self.judge_regression(item, name, path, regression, subject, health),
            ),
            _ => unreachable!("only laws and regressions are judged on a peer"),
        };
        let listed = self
            .expectations
            .lookup(&subject.name, subject.builtin.as_deref(), &key);
        match (result, listed) {
            (Judged::Pass, None) => Verdict::Pass,
            (Judged::Pass, Some(e)) => Verdict::UnexpectedPass {
                reason: e.reason.clone(),
                source: e.source.clone(),
            },
            (Judged::Fail(report), None) => Verdict::Fail { report },
            (Judged::Fail(report), Some(e)) => Verdict::ExpectedFailure {
                reason: e.reason.clone(),
                source: e.source.clone(),
                report,
            },
            // Never an expected failure: the peer was not even asked.
            (Judged::Broken(why), _) => Verdict::Broken { why },
        }
    }

    fn judge_law(
        &self,
        l: &LoadedLaw,
        subject: &Subject,
        health: &dyn Fn() -> Option<Health>,
        setup: Option<&Result<law::Setup, String>>,
    ) -> Judged {
        let outcome = match setup {
            // The shared tree changed during or before this call: perhaps
            // by this peer, perhaps by another one asked at the same time
            // (libtest runs a law's peers side by side). Judged again on a
            // tree of its own, where only this peer can change anything,
            // the verdict is this peer's alone. A failure on the shared
            // tree is confirmed there too: a peer that changes a file and
            // puts it back between two of its calls leaves nothing for the
            // guard to see, but may have changed what another peer read.
            Some(Ok(setup)) => match setup.judge(subject.peer.as_ref()) {
                outcome if setup.is_spoiled() || matches!(outcome, LawOutcome::Fail(_)) => {
                    law::run(l, subject.peer.as_ref())
                }
                outcome => outcome,
            },
            Some(Err(why)) => LawOutcome::Broken(why.clone()),
            None => law::run(l, subject.peer.as_ref()),
        };
        match outcome {
            LawOutcome::Pass => Judged::Pass,
            LawOutcome::Broken(why) => Judged::Broken(why),
            LawOutcome::Fail(failure) => {
                let trial = format!("law::{}::{}", l.id, subject.name);
                let call = serde_json::json!({
                    "method": l.law.method.name(),
                    "input": l.law.input,
                });
                let case = Case {
                    title: format!("law {} ({})", l.id, l.file.display()),
                    spec: Some(l.law.spec.clone()),
                    decision: l.law.decision.clone(),
                    tree: law::tree_listing(&l.law)
                        .into_iter()
                        .map(|(path, content)| TreeEntry { path, content })
                        .collect(),
                    call,
                    diff: crate::kit::report::json_diff(
                        &verdict::align_keys(&failure.expected, &failure.actual),
                        &failure.actual,
                        false,
                    ),
                    expected: verdict::align_keys(&failure.expected, &failure.actual),
                    actual: failure.actual,
                    problems: failure.problems,
                    replay: Some(self.replay.command(
                        &Item::Law(Arc::new(l.clone())),
                        &trial,
                        &subject.name,
                        None,
                    )),
                    recorded: None,
                };
                Judged::Fail(Report {
                    summary: format!("law {} fails on {} ({})", l.id, subject.name, l.law.spec),
                    cases: vec![case],
                    health: health(),
                })
            }
        }
    }

    fn judge_regression(
        &self,
        item: &Item,
        name: &str,
        path: &Path,
        regression: &Regression,
        subject: &Subject,
        health: &dyn Fn() -> Option<Health>,
    ) -> Judged {
        match regression.replay(subject.peer.as_ref(), path) {
            Ok(Ok(())) => Judged::Pass,
            Err(e) => Judged::Broken(e.to_string()),
            Ok(Err(mismatch)) => {
                let trial = format!("regression::{name}::{}", subject.name);
                let case = Case {
                    title: format!("regression {name} ({})", path.display()),
                    spec: None,
                    decision: Some(regression.why.clone()),
                    tree: regression
                        .files
                        .iter()
                        .map(|f| TreeEntry {
                            path: f.path.clone(),
                            content: f.describe(),
                        })
                        .collect(),
                    call: serde_json::to_value(&regression.call).unwrap_or(Value::Null),
                    diff: crate::kit::report::json_diff(
                        &verdict::align_keys(&mismatch.expected, &mismatch.actual),
                        &mismatch.actual,
                        false,
                    ),
                    expected: verdict::align_keys(&mismatch.expected, &mismatch.actual),
                    actual: mismatch.actual,
                    problems: vec!["the answer differs from the recorded one".into()],
                    replay: Some(self.replay.command(item, &trial, &subject.name, None)),
                    recorded: None,
                };
                Judged::Fail(Report {
                    summary: format!(
                        "regression {name} fails on {}: {}",
                        subject.name, regression.why
                    ),
                    cases: vec![case],
                    health: health(),
                })
            }
        }
    }

    /// A seed on its subjects, compared with the reference in one pass.
    fn run_seed(
        &self,
        item: &Item,
        seed: &SeedItem,
        peers: &[Option<usize>],
        started: Instant,
    ) -> Vec<Outcome> {
        let reference = &self.everyone[0];
        let mut verdicts: Vec<Option<Verdict>> = vec![None; peers.len()];
        let mut asked: Vec<(usize, &Subject)> = Vec::new();
        for (slot, p) in peers.iter().enumerate() {
            let Some(subject) = p.and_then(|p| (p > 0).then(|| &self.everyone[p])) else {
                verdicts[slot] = Some(Verdict::Broken {
                    why: "a seed compares a subject with the reference; it has no trial of its own on the reference".into(),
                });
                continue;
            };
            if let Some(why) = self.skip(item, subject) {
                verdicts[slot] = Some(Verdict::Skipped { why });
            } else if let Some(v) = self.stopped_verdict(subject) {
                verdicts[slot] = Some(v);
            } else {
                asked.push((slot, subject));
            }
        }
        let mut documented: Vec<BTreeMap<String, usize>> = vec![BTreeMap::new(); peers.len()];
        if !asked.is_empty() {
            let before: Vec<usize> = asked
                .iter()
                .map(|(_, s)| s.peer.health().map_or(0, |h| h.faults))
                .collect();
            let plan =
                generate(seed.generator, seed.seed, PLAN_ROOT, seed.ground).map(|plan| match seed
                    .only_call
                {
                    Some(call) => plan.only_call(call),
                    None => plan,
                });
            // A subject's documented differences are its registered
            // built-in's, never the peer's own say.
            let subjects: Vec<Compared<'_>> = asked
                .iter()
                .map(|(_, s)| Compared {
                    peer: s.peer.as_ref(),
                    builtin: s.builtin.as_deref(),
                })
                .collect();
            let compared = plan.and_then(|plan| {
                compare_plan(&plan, reference.peer.as_ref(), &subjects)
                    .map(|ds| (plan, ds))
                    .map_err(|e| format!("its tree cannot be written: {e}"))
            });
            for (i, (slot, subject)) in asked.iter().enumerate() {
                let verdict = match &compared {
                    Err(e) => Verdict::Broken {
                        why: format!("{}: {e}", item.id()),
                    },
                    Ok((plan, divergences)) => {
                        let (verdict, explained) = self.seed_verdict(
                            item,
                            plan,
                            divergences,
                            &subjects,
                            i,
                            subject,
                            before[i],
                        );
                        documented[*slot] = explained;
                        verdict
                    }
                };
                verdicts[*slot] = Some(self.note_stop(item, subject, verdict));
            }
        }
        let elapsed = started.elapsed();
        verdicts
            .into_iter()
            .zip(documented)
            .zip(peers)
            .map(|((verdict, documented), p)| {
                let subject = p.map(|p| &self.everyone[p]);
                let mut o = self.outcome(
                    item,
                    subject,
                    verdict.unwrap_or(Verdict::Broken {
                        why: "not judged".into(),
                    }),
                    documented,
                    started,
                );
                o.seconds = elapsed.as_secs_f64();
                o
            })
            .collect()
    }

    /// The verdict of one subject on a compared plan, with the documented
    /// differences it showed.
    #[allow(clippy::too_many_arguments)]
    fn seed_verdict(
        &self,
        item: &Item,
        plan: &crate::kit::plan::Plan,
        divergences: &[Divergence],
        compared: &[Compared<'_>],
        position: usize,
        subject: &Subject,
        faults_before: usize,
    ) -> (Verdict, BTreeMap<String, usize>) {
        let mut documented = BTreeMap::new();
        let mut cases = Vec::new();
        for d in divergences {
            let reference = d.reference_answer();
            // A divergence's answers are the reference's, then those of the
            // compared subjects that answer the call's method, in order:
            // find this subject's by position, never by name (two subjects
            // may be the same built-in).
            let method = d.call.method();
            if !compared[position].peer.supports(method) {
                continue;
            }
            let at = compared[..position]
                .iter()
                .filter(|s| s.peer.supports(method))
                .count();
            let Some(answer) = d.answers.get(at + 1) else {
                continue;
            };
            if Some(&answer.answer) == reference {
                continue;
            }
            if let Some(why) = &answer.explained {
                *documented.entry(why.clone()).or_default() += 1;
                continue;
            }
            cases.push((d, answer.answer.clone()));
        }
        if cases.is_empty() {
            return (Verdict::Pass, documented);
        }
        let trial = format!("{}::{}", item.id(), subject.name);
        let total = cases.len();
        let mut report_cases = Vec::new();
        for (n, (d, actual)) in cases.into_iter().enumerate() {
            let expected = d.reference_answer().cloned().unwrap_or(Value::Null);
            // Shrinking costs seconds a case: only the first few of a seed.
            let recorded = match &self.record {
                Some(dir) if n < 3 => Some(
                    match record(
                        plan,
                        d,
                        self.everyone[0].peer.as_ref(),
                        subject.peer.as_ref(),
                        dir,
                    ) {
                        Ok(path) => format!("recorded {}", path.display()),
                        Err(e) => format!("not recorded: {e}"),
                    },
                ),
                _ => None,
            };
            report_cases.push(Case {
                title: format!(
                    "{} seed {}, call {} ({})",
                    d.generator,
                    d.seed,
                    d.call_index,
                    d.call.method()
                ),
                spec: None,
                decision: None,
                tree: d
                    .tree
                    .sample
                    .iter()
                    .map(|path| TreeEntry {
                        path: path.clone(),
                        content: plan
                            .files
                            .iter()
                            .find(|f| &f.path == path)
                            .map_or_else(String::new, |f| f.describe()),
                    })
                    .collect(),
                call: serde_json::to_value(&d.call).unwrap_or(Value::Null),
                diff: crate::kit::report::json_diff(
                    &verdict::align_keys(&expected, &actual),
                    &actual,
                    false,
                ),
                expected: verdict::align_keys(&expected, &actual),
                actual,
                problems: vec![format!(
                    "{} answers differently from the reference {} ({} files in the tree, {} bytes)",
                    subject.name, self.everyone[0].name, d.tree.files, d.tree.bytes
                )],
                replay: Some(
                    self.replay
                        .command(item, &trial, &subject.name, Some(d.call_index)),
                ),
                recorded,
            });
        }
        let health = faults_since(subject, faults_before);
        (
            Verdict::Fail {
                report: Report {
                    summary: format!(
                        "{total} of {} calls of {} diverge from the reference {}",
                        plan.call_count(),
                        item.id(),
                        self.everyone[0].name
                    ),
                    cases: report_cases,
                    health,
                },
            },
            documented,
        )
    }

    /// Run `trials` on `options.jobs` threads, item by item (an item's
    /// trials together, so a seed is compared for all its subjects in one
    /// pass), sending each outcome and each stopped peer to `sink` on the
    /// calling thread as it happens. Returns the outcomes in trial order.
    pub fn run(
        &self,
        trials: &[Trial],
        options: RunOptions,
        sink: impl FnMut(&Event),
    ) -> Vec<Outcome> {
        self.run_until(trials, options, &AtomicBool::new(false), sink)
    }

    /// [`Engine::run`], handing out no more items once `cancel` is set (an
    /// interrupted run): the trials already running finish, so their trees
    /// are removed and their peers answer, and the outcomes so far are
    /// returned.
    pub fn run_until(
        &self,
        trials: &[Trial],
        options: RunOptions,
        cancel: &AtomicBool,
        mut sink: impl FnMut(&Event),
    ) -> Vec<Outcome> {
        // Group by item, keeping the order of first appearance.
        let mut groups: Vec<ItemGroup> = Vec::new();
        let mut slot: BTreeMap<usize, usize> = BTreeMap::new();
        for (t, trial) in trials.iter().enumerate() {
            let g = *slot.entry(trial.item).or_insert_with(|| {
                groups.push((trial.item, Vec::new()));
                groups.len() - 1
            });
            groups[g].1.push((t, trial.peer));
        }
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Outcome)>();
        let mut results: Vec<Option<Outcome>> = vec![None; trials.len()];
        let mut announced = 0;
        std::thread::scope(|scope| {
            for _ in 0..options.jobs.max(1) {
                let tx = tx.clone();
                let (groups, next, stop) = (&groups, &next, &stop);
                scope.spawn(move || {
                    while !stop.load(Ordering::Relaxed) && !cancel.load(Ordering::Relaxed) {
                        let Some((item, members)) =
                            groups.get(next.fetch_add(1, Ordering::Relaxed))
                        else {
                            break;
                        };
                        let peers: Vec<Option<usize>> = members.iter().map(|m| m.1).collect();
                        // A panicking peer (or engine bug) fails its trials,
                        // it never hangs or ends the run.
                        let outcomes =
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                self.run_item(*item, &peers)
                            }))
                            .unwrap_or_else(|payload| {
                                let why = format!(
                                    "the trial panicked: {}",
                                    crate::kit::case::panic_message(&*payload)
                                );
                                peers
                                    .iter()
                                    .map(|p| {
                                        self.outcome(
                                            &self.items[*item],
                                            p.map(|p| &self.everyone[p]),
                                            Verdict::Broken { why: why.clone() },
                                            BTreeMap::new(),
                                            Instant::now(),
                                        )
                                    })
                                    .collect()
                            });
                        for ((t, _), outcome) in members.iter().zip(outcomes) {
                            if options.fail_fast && outcome.verdict.is_failure() {
                                stop.store(true, Ordering::Relaxed);
                            }
                            if tx.send((*t, outcome)).is_err() {
                                return;
                            }
                        }
                    }
                });
            }
            drop(tx);
            for (t, outcome) in rx {
                sink(&Event::Outcome(Box::new(outcome.clone())));
                let stopped = self.stopped();
                for (peer, at, why) in stopped.iter().skip(announced) {
                    sink(&Event::PeerStopped {
                        peer: peer.clone(),
                        at: at.clone(),
                        why: why.clone(),
                    });
                }
                announced = stopped.len();
                results[t] = Some(outcome);
            }
        });
        results.into_iter().flatten().collect()
    }
}

/// The faults `subject` had since its count was `before` (the last three
/// of them), or `None` when it had none and is not stopped: what a report
/// shows beside the failure they caused.
fn faults_since(subject: &Subject, before: usize) -> Option<Health> {
    let h = subject.peer.health()?;
    let new = h.faults.saturating_sub(before);
    (new > 0 || h.stopped.is_some()).then(|| Health {
        faults: new,
        recent: h
            .recent
            .iter()
            .rev()
            .take(new.min(3))
            .rev()
            .cloned()
            .collect(),
        stopped: h.stopped.clone(),
    })
}

/// An item's index and its trials: (index in the run's trial list, peer).
type ItemGroup = (usize, Vec<(usize, Option<usize>)>);

/// A law's or regression's result before expectations are applied.
enum Judged {
    Pass,
    Fail(Report),
    Broken(String),
}

/// Shrink a divergence and write it as a regression file under `dir`.
pub fn record(
    plan: &crate::kit::plan::Plan,
    d: &Divergence,
    reference: &dyn Search,
    peer: &dyn Search,
    dir: &Path,
) -> Result<PathBuf, Box<dyn std::error::Error>> {
    let (regression, _) =
        shrink_to_regression(plan, d.call_index, d.call.clone(), reference, peer, None)?;
    Ok(regression.write(dir, &regression.default_name())?)
}

/// Counts of verdicts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// Passed.
    pub pass: usize,
    /// Failed.
    pub fail: usize,
    /// Listed failures that failed.
    pub expected_failure: usize,
    /// Listed failures that passed.
    pub unexpected_pass: usize,
    /// Not run.
    pub skipped: usize,
    /// Could not be judged.
    pub broken: usize,
}

impl Counts {
    /// Count one verdict.
    pub fn add(&mut self, verdict: &Verdict) {
        match verdict {
            Verdict::Pass => self.pass += 1,
            Verdict::Fail { .. } => self.fail += 1,
            Verdict::ExpectedFailure { .. } => self.expected_failure += 1,
            Verdict::UnexpectedPass { .. } => self.unexpected_pass += 1,
            Verdict::Skipped { .. } => self.skipped += 1,
            Verdict::Broken { .. } => self.broken += 1,
        }
    }

    /// Every trial counted.
    pub fn total(&self) -> usize {
        self.pass
            + self.fail
            + self.expected_failure
            + self.unexpected_pass
            + self.skipped
            + self.broken
    }

    /// Trials that fail the run.
    pub fn failures(&self) -> usize {
        self.fail + self.unexpected_pass + self.broken
    }
}

/// What a run found, counted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// By kind of item.
    pub by_kind: BTreeMap<String, Counts>,
    /// By registered peer name.
    pub by_peer: BTreeMap<String, Counts>,
    /// Laws by spec section (`search-contract §13`).
    pub by_section: BTreeMap<String, Counts>,
    /// Divergent calls over every seed.
    pub divergent_calls: usize,
    /// Seeds run (each seed once, however many subjects).
    pub seeds: usize,
    /// Peers the harness stopped restarting: (peer, trial, why).
    pub stopped: Vec<(String, String, String)>,
    /// Wall-clock seconds of the whole run.
    pub seconds: f64,
}

impl Summary {
    /// Count `outcomes`.
    pub fn of(
        outcomes: &[Outcome],
        elapsed: Duration,
        stopped: Vec<(String, String, String)>,
    ) -> Summary {
        let mut s = Summary {
            seconds: elapsed.as_secs_f64(),
            stopped,
            ..Summary::default()
        };
        let mut seeds = std::collections::HashSet::new();
        for o in outcomes {
            s.by_kind
                .entry(o.kind.name().to_string())
                .or_default()
                .add(&o.verdict);
            if let Some(peer) = &o.peer {
                s.by_peer.entry(peer.clone()).or_default().add(&o.verdict);
            }
            if let Some(spec) = &o.spec {
                s.by_section
                    .entry(section_of(spec))
                    .or_default()
                    .add(&o.verdict);
            }
            if o.kind == Kind::Seed {
                seeds.insert(o.item.clone());
                if let Verdict::Fail { report } = &o.verdict {
                    s.divergent_calls += report.cases.len();
                }
            }
        }
        s.seeds = seeds.len();
        s
    }

    /// The spec sections with laws that fail the run, with their counts:
    /// `search-contract §8 (3)`.
    pub fn failing_sections(&self) -> Vec<String> {
        self.by_section
            .iter()
            .filter(|(_, c)| c.failures() > 0)
            .map(|(s, c)| format!("{s} ({})", c.failures()))
            .collect()
    }

    /// Every trial counted.
    pub fn total(&self) -> Counts {
        let mut c = Counts::default();
        for k in self.by_kind.values() {
            c.pass += k.pass;
            c.fail += k.fail;
            c.expected_failure += k.expected_failure;
            c.unexpected_pass += k.unexpected_pass;
            c.skipped += k.skipped;
            c.broken += k.broken;
        }
        c
    }
}

/// `search-contract §13.1` → `search-contract §13`: the top-level section
/// a law's spec names, for grouping.
pub fn section_of(spec: &str) -> String {
    let Some((doc, after)) = spec.split_once('§') else {
        return spec.to_string();
    };
    let number: String = after.chars().take_while(char::is_ascii_digit).collect();
    format!("{}§{number}", doc)
}

#[cfg(test)]
mod tests;
