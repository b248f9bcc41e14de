//! A differential campaign over the seed space, bounded by time: `lawsuite
//! fuzz --for 10m`.
//!
//! The default seeds reach what a fixed range of plans happens to reach. A
//! campaign keeps going: it asks seed after seed of every generator and
//! ground (round robin, each its own sequence), compares every subject
//! with the reference on every call, and keeps what it finds as **groups**,
//! one per bug.
//!
//! # One bug, one group
//!
//! A divergent call is shrunk ([`super::regression::Divergent::shrink`]),
//! and its group is what the *shrunk* case shows: the peer, the method and
//! how the answers differ ([`Difference`]: the fields and how, the rules
//! behind a notice, or the error codes). A bug met from many seeds, in
//! trees that make it show in different fields, shrinks to one case and is
//! one group with one regression file. The unshrunk difference a group was
//! met with is kept as an alias, so meeting it again costs no shrink.
//!
//! # What a campaign keeps is what a peer did
//!
//! Its state (the next seed of each sequence, the groups found) is kept in
//! a JSON file beside the project's regressions, written whole and held
//! under a lock for the whole campaign: a second campaign on the same state
//! is refused, never interleaved. A seed counts only once every call of its
//! plan was compared; one cut by the deadline or an interrupt is asked
//! again by the next campaign. A comparison that ends after an interrupt is
//! dropped whole, since the faults lawsuite's own shutdown causes (peers
//! stopped mid-call) are not the peer's. A campaign that compared nothing
//! (no tree could be written, no seed finished, no subject answered a
//! single call) is an error, and the state is left as it was.
//!
//! # Time stops work; it never changes a result
//!
//! `--for` bounds the whole campaign, shrinking included: at the deadline
//! no call is started, and the call under way ends (at most its per-call
//! timeout later). A shrink cut there keeps its answers so far
//! ([`Decisions`](crate::kit::shrink::Decisions)) in the group, and the next campaign finishes it,
//! replaying them: the case it ends with is the one an uncut shrink gives,
//! on any machine at any load. Shrinking itself is bounded by steps
//! ([`super::shrink::Budget`]); a group the bound stopped says so, with the
//! command that goes on.
//!
//! ```no_run
//! use std::time::Duration;
//! use lawsuite::kit::campaign::{Campaign, Slot};
//! use lawsuite::kit::compare::Compared;
//! use lawsuite::portable::Portable;
//!
//! let (reference, mine) = (Portable::default(), Portable::default());
//! let campaign = Campaign::new(
//!     "lawsuite/fuzz-state.json",
//!     "lawsuite/regressions",
//!     Duration::from_secs(60),
//! );
//! let found = campaign.run(Compared::new(&reference), &[Compared::new(&mine)], None, |_| {})?;
//! println!("{} new groups", found.new_groups().count());
//! # Ok::<(), lawsuite::kit::campaign::CampaignError>(())
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

pub mod guide;
pub mod risk;
mod state;
mod work;

pub use state::{Finding, Group, State, shape_of};

use guide::Corpus;
use state::Sequence;
use work::{Context, Shared, lock};

use super::Generator;
use super::compare::Compared;
use super::difference::Difference;
use super::shrink::Budget;
use crate::file_error::{FileError, FileErrorKind};
use crate::peer::Ground;
use crate::regular_file::Held;

/// The symbolic root campaign plans are spelled with.
const ROOT: &str = "/lawsuite-fuzz";

/// One sequence of seeds: a generator on a ground.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The generator.
    pub generator: Generator,
    /// Its ground (`smthrs` plans are always shared).
    pub ground: Ground,
}

impl Slot {
    /// Every sequence: `smthrs`, `lawsuite` on the shared ground, and
    /// `lawsuite` on the full ground.
    pub fn all() -> Vec<Slot> {
        vec![
            Slot {
                generator: Generator::Smthrs,
                ground: Ground::Shared,
            },
            Slot {
                generator: Generator::Lawsuite,
                ground: Ground::Shared,
            },
            Slot {
                generator: Generator::Lawsuite,
                ground: Ground::Full,
            },
        ]
    }

    /// `smthrs`, `lawsuite`, `lawsuite@full`, as seed ids spell them.
    pub fn name(self) -> String {
        match (self.generator, self.ground) {
            (Generator::Lawsuite, Ground::Full) => "lawsuite@full".into(),
            (generator, _) => generator.name().into(),
        }
    }

    /// The sequence a name spells ([`Slot::name`]).
    pub fn from_name(name: &str) -> Option<Slot> {
        Slot::all().into_iter().find(|s| s.name() == name)
    }
}

/// A campaign's settings.
#[derive(Clone, Debug)]
pub struct Campaign {
    /// The seed sequences asked, round robin.
    pub slots: Vec<Slot>,
    /// How long the whole campaign may take, shrinking included (the call
    /// under way when it ends finishes, or meets its own timeout).
    pub budget: Duration,
    /// Seeds asked at once.
    pub jobs: usize,
    /// The state file.
    pub state: PathBuf,
    /// Where each new group's regression file is written.
    pub regressions: PathBuf,
    /// How many steps one shrink may take.
    pub shrink: Budget,
    /// Whether it keeps a corpus of the calls that showed a new behaviour
    /// and spends half its time mutating them ([`guide`]); without, it asks
    /// fresh seeds only.
    pub guided: bool,
    /// What the guidance's draws start from: the same seed, the same
    /// choices.
    pub guide_seed: u64,
    /// Stop at the first new group (a benchmark's time to find).
    pub until_found: bool,
    /// Only the seeds of shard `k` of `n` (1-based): shards on many machines
    /// never ask one seed twice, and their states merge ([`State::merge`]).
    pub shard: Option<(u64, u64)>,
}

impl Campaign {
    /// A guided campaign of every sequence for `budget`, on two jobs, keeping
    /// its state in `state` and its regressions in `regressions`.
    pub fn new(
        state: impl Into<PathBuf>,
        regressions: impl Into<PathBuf>,
        budget: Duration,
    ) -> Campaign {
        Campaign {
            slots: Slot::all(),
            budget,
            jobs: 2,
            state: state.into(),
            regressions: regressions.into(),
            shrink: Budget::default(),
            guided: true,
            guide_seed: 0,
            until_found: false,
            shard: None,
        }
    }

    /// The corpus file beside the state: `fuzz-state.corpus.json` beside
    /// `fuzz-state.json`.
    pub fn corpus_path(&self) -> PathBuf {
        let stem = self
            .state
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "fuzz-state".into());
        self.state.with_file_name(format!("{stem}.corpus.json"))
    }

    /// Merge the states of other campaigns (the shards of one sweep, run on
    /// other machines: each `fuzz-state.json` with its corpus and
    /// regression files beside it) into this campaign's state
    /// ([`State::merge`]): groups deduplicated, their regression files
    /// copied into [`Campaign::regressions`], corpora joined, the residual
    /// risk recomputed from every shard's counts. The state is held as a
    /// campaign holds it.
    pub fn merge(&self, others: &[PathBuf]) -> Result<State, CampaignError> {
        let held = hold(&self.state)?;
        crate::regular_file::check_replaceable(&self.state).map_err(CampaignError::Write)?;
        let mut state = match held.read() {
            Ok(Some(text)) => State::parse(&text, &self.state)?,
            Ok(None) => State::fresh(),
            Err(e) => {
                return Err(CampaignError::State {
                    path: self.state.clone(),
                    message: format!("cannot be read: {}", e.kind()),
                });
            }
        };
        let mut corpus = self.load_corpus()?;
        for path in others {
            let mut other = State::load(path)?;
            let beside = path.parent().unwrap_or(Path::new("."));
            for group in &mut other.groups {
                group.regression = group
                    .regression
                    .as_deref()
                    .and_then(|file| self.adopt(beside, Path::new(file)));
            }
            state.merge(&other);
            let theirs = Campaign {
                state: path.clone(),
                ..self.clone()
            }
            .load_corpus()?;
            for entry in theirs.entries {
                if !corpus.entries.contains(&entry) {
                    corpus.entries.push(entry);
                }
            }
        }
        held.replace(&state.text()).map_err(CampaignError::Write)?;
        self.save_corpus(&corpus)?;
        Ok(state)
    }

    /// A shard's regression file copied into this campaign's regression
    /// directory: found where the shard's state named it, or under
    /// `regressions/` beside the shard's state (where a shard's artifacts
    /// were unpacked). Its new path, or `None` when it is nowhere.
    fn adopt(&self, beside: &Path, file: &Path) -> Option<String> {
        let found = [
            file.to_path_buf(),
            beside.join("regressions").join(file.file_name()?),
        ]
        .into_iter()
        .find(|p| p.is_file())?;
        let regression = crate::kit::regression::Regression::load(&found).ok()?;
        let name = found.file_stem()?.to_string_lossy().into_owned();
        let name: String = name
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        regression
            .write(&self.regressions, &name)
            .ok()
            .map(|p| p.display().to_string())
    }

    /// The corpus earlier campaigns kept, or an empty one.
    fn load_corpus(&self) -> Result<Corpus, CampaignError> {
        if !self.guided {
            return Ok(Corpus::default());
        }
        let path = self.corpus_path();
        match FileError::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| CampaignError::State {
                path,
                message: format!("is not a campaign's corpus: {e}"),
            }),
            Err(e) if matches!(e.kind(), FileErrorKind::Io(io) if io.kind() == std::io::ErrorKind::NotFound) => {
                Ok(Corpus::default())
            }
            Err(e) => Err(CampaignError::State {
                path,
                message: format!("cannot be read: {}", e.kind()),
            }),
        }
    }

    /// Keep the corpus for the next campaign (through the careful writer).
    fn save_corpus(&self, corpus: &Corpus) -> Result<(), CampaignError> {
        let text = serde_json::to_string(corpus).unwrap_or_default() + "\n";
        crate::regular_file::replace_whole(&self.corpus_path(), &text).map_err(CampaignError::Write)
    }
}

/// A campaign that could not run or keep its state.
#[derive(Debug)]
#[non_exhaustive]
pub enum CampaignError {
    /// The state file is there but cannot be read as one.
    State {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A file could not be written: the state (refused as it stands: a
    /// device, a read-only file) or its directory.
    Write(FileError),
    /// Another campaign holds the state.
    Busy {
        /// The state file.
        path: PathBuf,
    },
    /// The budget's deadline cannot be represented.
    Budget(Duration),
    /// The campaign compared nothing: the state is as it was.
    NothingAsked {
        /// Why.
        why: String,
    },
}

impl std::fmt::Display for CampaignError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CampaignError::State { path, message } => write!(
                f,
                "{}: {message}; it is the state of the project's fuzz campaigns (move it away to start again from seed 0)",
                path.display()
            ),
            CampaignError::Write(e) => {
                write!(f, "cannot write {}: {}", e.path().display(), e.kind())
            }
            CampaignError::Busy { path } => write!(
                f,
                "another campaign is running on {} (wait for it to end, or give this one its own --state FILE)",
                path.display()
            ),
            CampaignError::Budget(budget) => write!(
                f,
                "a campaign of {} s ends later than this machine's clock can say; give a shorter --for",
                budget.as_secs()
            ),
            CampaignError::NothingAsked { why } => write!(
                f,
                "the campaign compared nothing: {why}; its state is unchanged"
            ),
        }
    }
}

impl std::error::Error for CampaignError {}

/// How far a campaign is, for a live line.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Progress {
    /// Seeds asked whole.
    pub seeds: u64,
    /// Mutants of the corpus asked.
    pub mutants: u64,
    /// Calls compared (a call once per subject).
    pub calls: u64,
    /// Groups found by this campaign.
    pub new_groups: usize,
    /// Seconds since it started.
    pub secs: f64,
    /// Seconds since it last found a new group (or since it started).
    pub quiet_secs: f64,
}

impl Progress {
    /// `seeds 120 + 340 mutants · 310 calls/s · 2 new groups · last new 14
    /// s ago`.
    pub fn line(&self) -> String {
        format!(
            "seeds {} + {} mutants · {:.0} calls/s · {} new {} · last new {:.0} s ago",
            self.seeds,
            self.mutants,
            self.calls as f64 / self.secs.max(0.001),
            self.new_groups,
            if self.new_groups == 1 {
                "group"
            } else {
                "groups"
            },
            self.quiet_secs
        )
    }
}

/// What a campaign found.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// The state after it (every group, new and old).
    pub state: State,
    /// How far it went.
    pub progress: Progress,
    /// Seconds from its start to its first new group.
    pub first_new_after: Option<f64>,
    /// Why it stopped before its budget, when something other than an
    /// interrupt stopped it (a tree that could not be written): what it
    /// did until then is kept.
    pub stopped_by: Option<String>,
    /// Whether an interrupt ended it.
    pub interrupted: bool,
}

impl Found {
    /// The groups this campaign found.
    pub fn new_groups(&self) -> impl Iterator<Item = &Group> {
        let campaign = self.state.campaigns;
        self.state
            .groups
            .iter()
            .filter(move |g| g.campaign == campaign)
    }
}

/// `peer × method × difference`.
fn signature(peer: &str, method: &str, difference: &Difference) -> String {
    format!("{peer} × {method} × {difference}")
}

/// The campaign's hold on its state file, for its whole run: a second
/// campaign on it is refused ([`CampaignError::Busy`]), and every save goes
/// through the hold ([`Held::replace`]).
fn hold(state: &Path) -> Result<Held, CampaignError> {
    if let Some(dir) = state.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| CampaignError::Write(FileError::io(dir, e)))?;
    }
    Held::try_acquire(state).map_err(|e| match e.kind() {
        FileErrorKind::Held { .. } => CampaignError::Busy { path: state.into() },
        _ => CampaignError::Write(e),
    })
}

impl Campaign {
    /// Run it: finish the shrinks earlier campaigns left cut, then ask
    /// seeds until the budget is spent or `stop` is set; save the state and
    /// answer what was found. `progress` is called about once a second
    /// (and once at the end).
    pub fn run(
        &self,
        reference: Compared<'_>,
        subjects: &[Compared<'_>],
        stop: Option<&AtomicBool>,
        progress: impl Fn(&Progress) + Sync,
    ) -> Result<Found, CampaignError> {
        let started = Instant::now();
        let deadline = started
            .checked_add(self.budget)
            .ok_or(CampaignError::Budget(self.budget))?;
        let held = hold(&self.state)?;
        // The state is refused as it stands (a device, a read-only file)
        // before anything is asked, not at the first save.
        crate::regular_file::check_replaceable(&self.state).map_err(CampaignError::Write)?;
        let mut state = match held.read() {
            Ok(Some(text)) => State::parse(&text, &self.state)?,
            Ok(None) => State::fresh(),
            Err(e) => {
                return Err(CampaignError::State {
                    path: self.state.clone(),
                    message: format!("cannot be read: {}", e.kind()),
                });
            }
        };
        state.campaigns += 1;
        if self.shard.is_some() {
            state.shard = self.shard;
        }
        let campaign = state.campaigns;
        let slots: Vec<Slot> = if self.slots.is_empty() {
            Slot::all()
        } else {
            self.slots.clone()
        };
        let sequences = slots
            .iter()
            .map(|s| {
                (
                    s.name(),
                    Sequence::from_state(&state, &s.name(), self.shard),
                )
            })
            .collect();
        let corpus = self.load_corpus()?;
        let shared = Mutex::new(Shared {
            state,
            sequences,
            corpus,
            turn: 0,
            guided: 0,
            shrinking: BTreeMap::new(),
            last_new: None,
            first_new: None,
            seeds: 0,
            mutants: 0,
            answered: 0,
            first_fault: None,
            finished_pending: 0,
            fatal: None,
            save_error: None,
        });
        let interrupted = || stop.is_some_and(|s| s.load(Ordering::SeqCst));
        let fatal = AtomicBool::new(false);
        let found = AtomicBool::new(false);
        let stopped = || {
            interrupted()
                || fatal.load(Ordering::SeqCst)
                || (self.until_found && found.load(Ordering::SeqCst))
                || Instant::now() >= deadline
        };
        let calls_done = AtomicU64::new(0);
        let snapshot = |shared: &Shared| Progress {
            seeds: shared.seeds,
            mutants: shared.mutants,
            calls: calls_done.load(Ordering::SeqCst),
            new_groups: shared
                .state
                .groups
                .iter()
                .filter(|g| g.campaign == campaign)
                .count(),
            secs: started.elapsed().as_secs_f64(),
            quiet_secs: shared.last_new.unwrap_or(started).elapsed().as_secs_f64(),
        };
        let ctx = Context {
            campaign: self,
            held: &held,
            number: campaign,
            reference,
            subjects,
            started,
            shared: &shared,
            stopped: &stopped,
            interrupted: &interrupted,
            found: &found,
        };
        ctx.finish_pending();
        std::thread::scope(|scope| {
            for _ in 0..self.jobs.max(1) {
                scope.spawn(|| {
                    while !stopped() {
                        if !ctx.ask_one(&slots, &calls_done) {
                            fatal.store(true, Ordering::SeqCst);
                        }
                    }
                });
            }
            // The live line, about once a second.
            scope.spawn(|| {
                while !stopped() {
                    std::thread::sleep(
                        Duration::from_millis(250)
                            .min(deadline.saturating_duration_since(Instant::now())),
                    );
                    let s = lock(&shared);
                    progress(&snapshot(&s));
                    drop(s);
                    std::thread::sleep(
                        Duration::from_millis(750)
                            .min(deadline.saturating_duration_since(Instant::now())),
                    );
                }
            });
        });
        let mut shared = shared.into_inner().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = shared.save_error.take() {
            return Err(e);
        }
        // Nothing compared: an error, and the state as it was.
        if shared.seeds + shared.mutants == 0 && shared.finished_pending == 0 {
            let why = match (&shared.fatal, interrupted()) {
                (Some(why), _) => why.clone(),
                (None, true) => "it was interrupted before any seed was asked whole".into(),
                (None, false) => format!(
                    "no seed was asked whole within --for {} s",
                    self.budget.as_secs()
                ),
            };
            return Err(CampaignError::NothingAsked { why });
        }
        if shared.seeds + shared.mutants > 0 && shared.answered == 0 {
            return Err(CampaignError::NothingAsked {
                why: format!(
                    "no subject answered any of its calls (every answer was a fault; the first: {})",
                    shared.first_fault.as_deref().unwrap_or("none recorded")
                ),
            });
        }
        shared.write_sequences();
        let last = snapshot(&shared);
        progress(&last);
        held.replace(&shared.state.text())
            .map_err(CampaignError::Write)?;
        if self.guided {
            self.save_corpus(&shared.corpus)?;
        }
        Ok(Found {
            state: shared.state,
            progress: last,
            first_new_after: shared.first_new,
            stopped_by: shared.fatal,
            interrupted: interrupted(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::portable::Portable;

    fn campaign(dir: &Path, budget: Duration) -> Campaign {
        Campaign {
            slots: vec![Slot {
                generator: Generator::Lawsuite,
                ground: Ground::Shared,
            }],
            jobs: 1,
            ..Campaign::new(dir.join("state.json"), dir.join("regressions"), budget)
        }
    }

    #[test]
    fn a_campaign_resumes_where_the_last_stopped_and_peers_that_agree_form_no_group() {
        let dir = tempfile::tempdir().unwrap();
        let mut campaign = campaign(dir.path(), Duration::from_secs(3));
        // The TypeScript kit's plans are small: a few seeds a second even
        // in a test build.
        campaign.slots[0].generator = Generator::Smthrs;
        let (reference, twin) = (Portable::default(), Portable::default());
        let found = campaign
            .run(
                Compared::new(&reference),
                &[Compared::new(&twin)],
                None,
                |_| {},
            )
            .unwrap();
        assert_eq!(found.new_groups().count(), 0);
        let first = found.state.next["smthrs"];
        assert!(first > 0 && found.progress.seeds == first);
        let again = campaign
            .run(
                Compared::new(&reference),
                &[Compared::new(&twin)],
                None,
                |_| {},
            )
            .unwrap();
        assert_eq!(again.state.campaigns, 2);
        assert!(
            again.state.next["smthrs"] > first,
            "it resumes past seed {first}"
        );
    }

    /// A second campaign on the same state is refused while the first
    /// holds it.
    #[test]
    fn two_campaigns_on_one_state_are_never_interleaved() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state.json");
        let held = hold(&state).unwrap();
        let campaign = campaign(dir.path(), Duration::from_secs(1));
        let reference = Portable::default();
        let err = campaign
            .run(
                Compared::new(&reference),
                &[Compared::new(&reference)],
                None,
                |_| {},
            )
            .unwrap_err();
        assert!(matches!(err, CampaignError::Busy { .. }), "{err}");
        assert!(!state.exists(), "nothing written");
        drop(held);
        assert!(hold(&state).is_ok());
    }

    /// A budget whose deadline the clock cannot hold is an error, not a
    /// panic.
    #[test]
    fn an_absurd_budget_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let campaign = campaign(dir.path(), Duration::from_secs(u64::MAX));
        let reference = Portable::default();
        let err = campaign
            .run(
                Compared::new(&reference),
                &[Compared::new(&reference)],
                None,
                |_| {},
            )
            .unwrap_err();
        assert!(matches!(err, CampaignError::Budget(_)), "{err}");
    }

    /// Interrupted before any seed is asked whole: an error, and the state
    /// file as it was (here: none).
    #[test]
    fn an_interrupted_campaign_that_asked_nothing_leaves_the_state_alone() {
        let dir = tempfile::tempdir().unwrap();
        let campaign = campaign(dir.path(), Duration::from_secs(60));
        let reference = Portable::default();
        let stop = AtomicBool::new(true);
        let err = campaign
            .run(
                Compared::new(&reference),
                &[Compared::new(&reference)],
                Some(&stop),
                |_| {},
            )
            .unwrap_err();
        assert!(matches!(err, CampaignError::NothingAsked { .. }), "{err}");
        assert!(!campaign.state.exists());
    }
}
