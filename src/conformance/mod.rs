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
mod exhaustive;
pub mod expect;
mod item;
pub mod peers;
mod run;
mod seed;
pub mod sentence;
pub mod shard;
pub mod slow;
mod summary;
mod trial_id;
mod trials;
#[cfg(feature = "tools")]
pub mod update;
pub mod verdict;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;

pub use expect::{Expectations, Expected, InvalidListing};
pub use item::{
    ExhaustiveItem, Item, Kind, Outcome, PeerRef, Replay, SeedItem, SeedRange, Trial, shell_word,
};
pub use peers::Subject;
use seed::faults_since;
pub use summary::{Counts, Summary, section_of};
pub use trial_id::{BadId, ItemId, TrialId};
pub use trials::TrialsIter;
pub use verdict::{Case, Report, TreeEntry, Verdict};

use crate::kit::Generator;
use crate::kit::outsiders::{Blame, FRESH_TRIES, blame};
use crate::kit::regression::Regression;
use crate::law::{self, LawOutcome, LoadedLaw};
use crate::peer::{Ground, Health, Search};

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
    /// How many times each trial is asked ([`Engine::set_repeat`]).
    repeat: u32,
    /// How often a running trial is named on stderr
    /// ([`Engine::set_slow_period`]).
    slow: Option<std::time::Duration>,
    replay: Replay,
    /// Whether laws and regressions run on the reference too.
    judge_reference: bool,
    record: Option<PathBuf>,
    /// Held while a divergence is shrunk and recorded
    /// ([`crate::kit::regression::record`]).
    recording: Mutex<()>,
    /// Peers the harness stopped restarting: name → (trial, why).
    stopped: Mutex<BTreeMap<String, (String, String)>>,
    /// The trees of the laws asked most recently, by item, newest last:
    /// libtest runs each (law, peer) as a trial of its own, and the
    /// trials of one law run one after another, so they share its tree.
    setups: Mutex<Vec<((usize, String), SharedSetup)>>,
    /// Written trees by [`law::Tree::key`] and [owner](tree_owner), newest
    /// last: laws that read the same tree (a file's laws often do) share it.
    trees: Mutex<Vec<(TreeKey, Arc<law::Tree>)>>,
    /// The reference's answers to the families' batches, kept for the
    /// trials of their other subjects ([`exhaustive::KeptAnswers`]).
    kept_answers: exhaustive::KeptAnswers,
}

/// A written law tree's key: its [`law::Tree::key`] and its [owner](tree_owner).
type TreeKey = (String, String);

/// A law's setup, or why it cannot be set up, shared by its trials.
type SharedSetup = Arc<Result<law::Setup, law::SetupError>>;

/// How many law trees [`Engine::setup`] keeps per peer: enough for the
/// trials of one law running side by side on every thread.
const KEPT_SETUPS: usize = 8;

/// How many written trees [`Engine::setup`] keeps per peer for laws with
/// the same tree. Laws sharing a tree mostly sit in one file, asked close together;
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
            repeat: 1,
            slow: Some(slow::DEFAULT_PERIOD),
            replay: Replay::default(),
            judge_reference: true,
            record: None,
            recording: Mutex::new(()),
            stopped: Mutex::new(BTreeMap::new()),
            setups: Mutex::new(Vec::new()),
            trees: Mutex::new(Vec::new()),
            kept_answers: exhaustive::KeptAnswers::default(),
        }
    }

    /// The reference and the subjects, reference first.
    pub fn peers(&self) -> &[Subject] {
        &self.everyone
    }

    /// The peer `peer` names.
    ///
    /// # Panics
    ///
    /// When it names a subject this engine does not have: a [`PeerRef`]
    /// comes from this engine's own trials.
    pub fn peer(&self, peer: PeerRef) -> &Subject {
        &self.everyone[peer.index()]
    }

    /// The items, in order.
    pub fn items(&self) -> &[Item] {
        &self.items
    }

    /// Ask each trial `times` times (at least once), each on fresh trees:
    /// a trial whose verdicts differ is [`Verdict::Flaky`]
    /// ([`Verdict::of_repeats`]). Trees are then never shared between
    /// askings, so each asking sees a tree no earlier one touched.
    pub fn set_repeat(&mut self, times: u32) {
        self.repeat = times.max(1);
    }

    /// Name a trial on stderr once per `period` it runs (a SLOW line, as
    /// nextest does; `None`: never). 10 s by default.
    pub fn set_slow_period(&mut self, period: Option<std::time::Duration>) {
        self.slow = period;
    }

    /// Use these expected failures.
    pub fn set_expectations(&mut self, expectations: Expectations) {
        self.expectations = expectations;
    }

    /// What a front door should say before it runs: expected failures
    /// listed in an old spelling ([`Expectations::warnings`]).
    pub fn warnings(&self) -> &[String] {
        &self.expectations.warnings
    }

    /// Run laws and regressions on the reference too (the default), or
    /// only on the subjects, the reference then being the oracle of the
    /// seeds alone: a peer crate's first `cargo test` spent about 60 % of
    /// its trial time on the reference passing its own laws.
    pub fn set_judge_reference(&mut self, judge: bool) {
        self.judge_reference = judge;
    }

    /// The first peer laws and regressions run on: 0, the reference, when
    /// it is judged; else the first subject.
    pub(super) fn first_judged(&self) -> usize {
        usize::from(!self.judge_reference)
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
                message: problem.to_string(),
                id: ItemId::InvalidLaw {
                    file: stem,
                    law: problem.law,
                },
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
                    id: ItemId::InvalidRegression(name),
                    message: e.to_string(),
                }),
            }
        }
    }

    /// Add one seed item per seed (a list chosen seed by seed; a range is
    /// [`Engine::add_seed_range`]).
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

    /// Add every seed of `seeds` as one item ([`Item::Seeds`]): nothing is
    /// made per seed until its trials are listed or run, one at a time. An
    /// empty range adds nothing.
    pub fn add_seed_range(
        &mut self,
        generator: Generator,
        ground: Ground,
        seeds: std::ops::Range<u64>,
        only_call: Option<usize>,
    ) {
        if !seeds.is_empty() {
            self.push(Item::Seeds(SeedRange {
                generator,
                ground,
                seeds,
                only_call,
            }));
        }
    }

    /// Add a bounded-exhaustive family at a size, asked of the subjects it
    /// is for against the reference ([`crate::kit::exhaustive`]).
    pub fn add_exhaustive(&mut self, family: ExhaustiveItem) {
        self.push(Item::Exhaustive(family));
    }

    /// Add a broken check for every problem of the expectations, and for
    /// every listed id that names no law or regression of this engine.
    pub fn check_expectations(&mut self) {
        let known: std::collections::HashSet<String> = self
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Law(_) | Item::Regression { .. } => Some(i.id()),
                _ => None,
            })
            .collect();
        let mut problems: Vec<Item> = self
            .expectations
            .problems
            .iter()
            .map(|invalid| Item::Problem {
                id: ItemId::InvalidExpected(invalid.source.clone()),
                message: invalid.to_string(),
            })
            .collect();
        for (peer, id, listing) in self.expectations.unknown(&|id| known.contains(id)) {
            problems.push(Item::Problem {
                id: ItemId::UnknownExpected {
                    peer: peer.to_string(),
                    id: id.to_string(),
                },
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

    /// Is `trial` listed as an expected failure of its peer? (So a front
    /// door can say so before it runs: `cargo test` shows it beside the
    /// trial, rather than a plain `ok`.)
    pub fn is_listed_failure(&self, trial: &Trial) -> bool {
        let Some(subject) = trial.peer.and_then(|p| self.everyone.get(p.index())) else {
            return false;
        };
        let key = match self.items.get(trial.item) {
            Some(item @ (Item::Law(_) | Item::Regression { .. })) => item.id(),
            _ => return false,
        };
        self.expectations
            .lookup(subject.name(), subject.builtin(), &key)
            .is_some()
    }

    /// The trials whose id `wanted` admits. Only those are asked whether
    /// their peer answers (which starts an external peer), so a process
    /// that runs one trial (nextest runs each in its own) starts only the
    /// peer it uses. [`Engine::trials_iter`] makes them one at a time.
    pub fn trials_where(&self, wanted: impl Fn(&str) -> bool) -> Vec<Trial> {
        self.trials_iter(wanted).collect()
    }

    /// Why `item` cannot run on `subject`, if it cannot.
    fn skip(&self, item: &Item, subject: &Subject) -> Option<String> {
        let peer = subject.peer().as_ref();
        match item {
            Item::Law(l) if !peer.supports(l.law.method) => Some(format!(
                "{} does not answer {}",
                subject.name(),
                l.law.method
            )),
            Item::Regression { regression, .. } if !peer.supports(regression.call.method()) => {
                Some(format!(
                    "{} does not answer {}",
                    subject.name(),
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
                        subject.name()
                    ));
                }
                let methods = s.generator.methods();
                if !methods.iter().any(|m| peer.supports(*m)) {
                    let names: Vec<&str> = methods.iter().map(|m| m.name()).collect();
                    return Some(format!(
                        "{} answers none of the methods these plans call ({})",
                        subject.name(),
                        names.join(", ")
                    ));
                }
                None
            }
            // Every seed of a range is skipped alike.
            Item::Seeds(r) => self.skip(&Item::Seed(r.seed(r.seeds.start)), subject),
            // A refused shape is asked of the method's flow, which a peer
            // answering the method answers too.
            Item::Exhaustive(e) if !peer.supports(e.family.method()) => Some(format!(
                "{} does not answer {}, the method of the {} family",
                subject.name(),
                e.family.method(),
                e.family
            )),
            _ => None,
        }
    }

    /// Run one trial.
    pub fn run_trial(&self, trial: &Trial) -> Outcome {
        let mut outcomes = self.run_at(trial.item, trial.seed, &[trial.peer.map(PeerRef::index)]);
        match outcomes.pop() {
            Some(o) => o,
            None => unreachable!("run_item answers every peer it is given"),
        }
    }

    /// Run item `index` on `peers` (`None` for a check), one outcome each,
    /// in the order given. A seed is compared for all its subjects in one
    /// pass: its tree is written once and the reference answers each call
    /// once.
    ///
    /// A seed range ([`Item::Seeds`]) runs seed by seed, by its trials
    /// ([`Engine::run_trial`]); asked as a whole, its trials are broken.
    pub fn run_item(&self, index: usize, peers: &[Option<PeerRef>]) -> Vec<Outcome> {
        let peers: Vec<Option<usize>> = peers.iter().map(|p| p.map(PeerRef::index)).collect();
        self.run_at(index, None, &peers)
    }

    /// [`Engine::run_item`] of item `index`, or, for a seed range, of its
    /// seed `seed` ([`Engine::resolve`]).
    fn run_at(&self, index: usize, seed: Option<u64>, peers: &[Option<usize>]) -> Vec<Outcome> {
        if self.repeat <= 1 {
            return self.run_once(index, seed, peers);
        }
        let started = Instant::now();
        // Each asking folded into the first's as it comes (`Repeats`): a
        // trial asked N times holds one asking's outcomes, not N
        // (`--repeat 4294967295` once reserved 103 GB for them and
        // aborted; `--repeat 1000000` grew past 600 MB in 30 s).
        let first = self.run_once(index, seed, peers);
        let mut folds: Vec<verdict::Repeats> = first
            .iter()
            .map(|o| verdict::Repeats::new(o.verdict.clone()))
            .collect();
        for _ in 1..self.repeat {
            let again = self.run_once(index, seed, peers);
            for (fold, outcome) in folds.iter_mut().zip(again) {
                fold.add(outcome.verdict);
            }
        }
        first
            .into_iter()
            .zip(folds)
            .map(|(mut outcome, fold)| {
                outcome.verdict = fold.verdict();
                outcome.seconds = started.elapsed().as_secs_f64();
                outcome
            })
            .collect()
    }

    /// [`Engine::run_at`], asked once.
    fn run_once(&self, index: usize, seed: Option<u64>, peers: &[Option<usize>]) -> Vec<Outcome> {
        let item = &*self.resolve(index, seed);
        let started = Instant::now();
        let _slow = slow::watch(self.slow, || match peers {
            [Some(p)] => item.trial_id(self.everyone[*p].name()),
            [_] => item.id(),
            _ => format!("{} ({} peers)", item.id(), peers.len()),
        });
        match item {
            Item::Seed(seed) => self.run_seed(item, seed, peers, started),
            Item::Exhaustive(e) => self.run_exhaustive(item, e, peers, started),
            Item::Seeds(_) => peers
                .iter()
                .map(|&p| {
                    let why = "a seed range runs seed by seed: run its trials".to_string();
                    let subject = p.map(|p| &self.everyone[p]);
                    self.outcome(
                        item,
                        subject,
                        Verdict::Broken { why },
                        BTreeMap::new(),
                        started,
                    )
                })
                .collect(),
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
                                    let setup = self.setup(index, l, s);
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

    /// Law `index` set up for `subject`: a kept setup when the law may
    /// share one ([`law::Setup::shared`]), else a fresh one. So a tree is
    /// written once per law and [owner](tree_owner), not once per peer, in
    /// `lawsuite run` (an item's peers together) and under libtest (one
    /// trial per peer) alike: trees were most of a law trial's cost.
    fn setup(&self, index: usize, l: &LoadedLaw, subject: &Subject) -> SharedSetup {
        // Asked again, a trial gets a tree no earlier asking touched.
        if self.repeat > 1 {
            return Arc::new(law::Setup::new(l));
        }
        let owner = tree_owner(subject);
        let lock = || {
            self.setups
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
        };
        {
            let mut kept = lock();
            // A setup whose tree a peer changed is not handed on.
            kept.retain(|(_, s)| !s.as_ref().as_ref().is_ok_and(law::Setup::is_spoiled));
            if let Some((_, kept)) = kept.iter().find(|(k, _)| k.0 == index && k.1 == owner) {
                // The built-ins only read, so a change to their tree was
                // made by something else (a peer that wrote outside its
                // own tree): they get a fresh one rather than the blame.
                // Any other peer's tree is its own, and the guard after
                // its call names the change.
                let changed = owner.is_empty()
                    && kept
                        .as_ref()
                        .as_ref()
                        .is_ok_and(|s| s.tree().changes().is_some());
                if !changed {
                    return kept.clone();
                }
            }
        }
        // Written outside the lock: two threads may both write one law's
        // tree at once; one is kept, and both answers are right.
        let setup = Arc::new(if law::Setup::shares_tree(&l.law) {
            self.tree(l, owner).and_then(|tree| law::Setup::on(l, tree))
        } else {
            law::Setup::new(l)
        });
        if setup.as_ref().as_ref().is_ok_and(law::Setup::shared) {
            let mut kept = lock();
            kept.push(((index, owner.to_string()), setup.clone()));
            if kept.len() > KEPT_SETUPS * self.everyone.len() {
                kept.remove(0);
            }
        }
        setup
    }

    /// A written tree for law `l` and `owner`: a kept one with the same
    /// [`law::Tree::key`], else a new one (then kept).
    fn tree(&self, l: &LoadedLaw, owner: &str) -> Result<Arc<law::Tree>, law::SetupError> {
        let lock = || {
            self.trees
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
        };
        let key = (law::Tree::key(&l.law), owner.to_string());
        {
            let mut kept = lock();
            kept.retain(|(_, tree)| !tree.is_spoiled());
            if let Some((_, kept)) = kept.iter().find(|(k, _)| *k == key) {
                // As in `setup`: a built-ins' tree changed by another is
                // not handed on.
                if !(owner.is_empty() && kept.changes().is_some()) {
                    return Ok(kept.clone());
                }
            }
        }
        let tree = Arc::new(law::Tree::write(l)?);
        let mut kept = lock();
        kept.push((key, tree.clone()));
        if kept.len() > KEPT_TREES * self.everyone.len() {
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
        let item_id = item.item_id();
        Outcome {
            id: match subject {
                Some(s) => item_id.clone().on(s.name()),
                None => item_id.clone().alone(),
            },
            item: item_id.to_string(),
            kind: item.kind(),
            peer: subject.map(|s| s.name().to_string()),
            spec: item.spec().map(str::to_string),
            verdict: verdict.excerpted(),
            documented,
            compared: 0,
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
        let before = subject.peer().health().map_or(0, |h| h.faults);
        let health = || faults_since(subject, before);
        let verdict = judge(&health);
        self.note_stop(item, subject, verdict)
    }

    /// A peer already stopped: its trial is broken, not run.
    fn stopped_verdict(&self, subject: &Subject) -> Option<Verdict> {
        let stopped = self.stopped.lock().unwrap_or_else(|p| p.into_inner());
        let (at, why) = stopped.get(subject.name())?;
        Some(Verdict::Broken {
            why: format!(
                "not run: the harness stopped restarting {} during {at} ({why}); fix the peer and run again",
                subject.name()
            ),
        })
    }

    /// If `subject` stopped during this trial, remember where: its later
    /// trials are broken, not run. This trial keeps its failure report
    /// (whose fault log says the peer stopped), or, when it has none, is
    /// broken with the reason.
    fn note_stop(&self, item: &Item, subject: &Subject, verdict: Verdict) -> Verdict {
        let Some(why) = subject.peer().health().and_then(|h| h.stopped) else {
            return verdict;
        };
        let mut stopped = self.stopped.lock().unwrap_or_else(|p| p.into_inner());
        if stopped.contains_key(subject.name()) {
            return verdict;
        }
        let at = item.trial_id(subject.name());
        stopped.insert(subject.name().to_string(), (at, why.clone()));
        match verdict {
            Verdict::Fail { .. } => verdict,
            _ => Verdict::Broken {
                why: format!(
                    "the harness gave up restarting {} during this trial: {why}",
                    subject.name()
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
        setup: Option<&Result<law::Setup, law::SetupError>>,
    ) -> Verdict {
        let result = match item {
            Item::Law(l) => self.judge_law(l, subject, health, setup),
            Item::Regression {
                name,
                path,
                regression,
            } => self.judge_regression(item, name, path, regression, subject, health),
            _ => unreachable!("only laws and regressions are judged on a peer"),
        };
        let key = item.id();
        let listed = self
            .expectations
            .lookup(subject.name(), subject.builtin(), &key);
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
        setup: Option<&Result<law::Setup, law::SetupError>>,
    ) -> Judged {
        // One asking, one verdict. A peer is only ever asked on a tree of
        // its own or one shared with the built-ins, which only read
        // (`Engine::setup`), so whatever a tree shows after a call is that
        // peer's doing and its answer stands: asking again and keeping the
        // second verdict let a peer wrong on every second call pass every
        // law.
        let mut outcome = match setup {
            Some(Ok(setup)) => setup.judge(subject.peer().as_ref()),
            Some(Err(why)) => LawOutcome::Broken(why.to_string()),
            None => law::run(l, subject.peer().as_ref()),
        };
        // A built-in only reads, so a change to its tree made while it was
        // asked is another process's doing (a peer writing outside its own
        // tree, at the same time): its answer was given on a spoiled tree,
        // which is no verdict, and it is asked once on a fresh one, as
        // `Engine::setup` does for a change found before the call. A
        // second spoiled tree is broken, the built-in never blamed.
        let spoiled = |setup: &law::Setup| setup.shared() && setup.tree().changes().is_some();
        if subject.builtin().is_some()
            && matches!(outcome, LawOutcome::Fail(_))
            && matches!(setup, Some(Ok(s)) if spoiled(s))
        {
            outcome = match law::Setup::new(l) {
                Ok(fresh) => match fresh.judge(subject.peer().as_ref()) {
                    LawOutcome::Fail(_) if spoiled(&fresh) => LawOutcome::Broken(format!(
                        "the tree of {} was changed while it was asked, twice, by something \
                         other than it (a built-in only reads): another process writes where \
                         it should not",
                        subject.name()
                    )),
                    again => again,
                },
                Err(why) => LawOutcome::Broken(why.to_string()),
            };
        }
        // Any other peer is asked on trees of its own, so a change there
        // is its own doing, unless something else is writing into the
        // run's trees: the canary tells ([`crate::kit::outsiders`]), and
        // then the answer on a fresh tree counts.
        if subject.builtin().is_none()
            && let Some(Ok(first)) = setup
            && spoiled(first)
        {
            match blame(first.tree().outsiders(), || {
                let fresh = law::Setup::new(l).ok()?;
                let again = fresh.judge(subject.peer().as_ref());
                Some((again, spoiled(&fresh), fresh.tree().outsiders().clone()))
            }) {
                Blame::Peer => {}
                Blame::Fresh(again) => outcome = again,
                Blame::Unknown => {
                    outcome = LawOutcome::Broken(format!(
                        "something other than {} kept writing into the run's trees while it \
                         was asked (the canary, a tree no peer is asked about, changed too), \
                         on {FRESH_TRIES} fresh trees: no verdict can be had",
                        subject.name()
                    ));
                }
            }
        }
        match outcome {
            LawOutcome::Pass => Judged::Pass,
            LawOutcome::Broken(why) => Judged::Broken(why),
            LawOutcome::Fail(failure) => {
                let trial = ItemId::Law(l.id.clone()).on(subject.name()).to_string();
                let call = serde_json::json!({
                    "method": l.law.method.name(),
                    "input": l.law.input,
                });
                let case = Case::new(
                    format!("law {} ({})", l.id, l.file.display()),
                    call,
                    l.law.method,
                    &failure.expected,
                    failure.actual,
                )
                .spec(l.law.spec.clone())
                .decision(l.law.decision.clone())
                .tree(
                    law::tree_listing(&l.law)
                        .into_iter()
                        .map(|(path, text, about)| TreeEntry { path, text, about })
                        .collect(),
                    None,
                )
                .problems(failure.problems)
                .replay(self.replay.command(
                    &Item::Law(Arc::new(l.clone())),
                    &trial,
                    subject.name(),
                    None,
                ));
                Judged::Fail(Report {
                    summary: format!("law {} fails on {} ({})", l.id, subject.name(), l.law.spec),
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
        match regression.replay(subject.peer().as_ref(), path) {
            Ok(Ok(())) => Judged::Pass,
            Err(e) => Judged::Broken(e.to_string()),
            Ok(Err(mismatch)) => {
                let trial = item.trial_id(subject.name());
                let case = Case::new(
                    format!("regression {name} ({})", path.display()),
                    serde_json::to_value(&regression.call).unwrap_or(Value::Null),
                    regression.call.method(),
                    &mismatch.expected,
                    mismatch.actual.shown(),
                )
                .decision(Some(regression.why.clone()))
                .tree(regression.files.iter().map(TreeEntry::of).collect(), None)
                .problem("the answer differs from the recorded one")
                .replay(self.replay.command(item, &trial, subject.name(), None));
                Judged::Fail(Report {
                    summary: format!(
                        "regression {name} fails on {}: {}",
                        subject.name(),
                        regression.why
                    ),
                    cases: vec![case],
                    health: health(),
                })
            }
        }
    }
}

/// Whose trees a peer is asked on: the built-ins share theirs (lawsuite's
/// own peers only read), every other peer has its own. So a tree found
/// changed after a call was changed by the peer asked, never by another
/// peer asked on it before or beside it, and the blame is exact: the
/// shared trees of old let a vandal's change fail an honest peer, and
/// asking that peer again on a fresh tree gave every peer a second chance.
/// It costs one more written tree per law and peer that is not a built-in
/// (7,481 files for the shipped laws; about 0.1 s on tmpfs).
fn tree_owner(subject: &Subject) -> &str {
    match subject.builtin() {
        Some(_) => "",
        None => subject.name(),
    }
}

/// A law's or regression's result before expectations are applied.
enum Judged {
    Pass,
    Fail(Report),
    Broken(String),
}

#[cfg(test)]
mod tests;
