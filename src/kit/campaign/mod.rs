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
//! ([`Decisions`]) in the group, and the next campaign finishes it,
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
//! let campaign = Campaign {
//!     slots: Slot::all(),
//!     budget: Duration::from_secs(60),
//!     jobs: 2,
//!     state: "lawsuite/fuzz-state.json".into(),
//!     regressions: "lawsuite/regressions".into(),
//!     shrink: Default::default(),
//! };
//! let found = campaign.run(Compared::new(&reference), &[Compared::new(&mine)], None, |_| {})?;
//! println!("{} new groups", found.new_groups().count());
//! # Ok::<(), lawsuite::kit::campaign::CampaignError>(())
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

mod state;

pub use state::{Finding, Group, State, shape_of};

use state::Sequence;

use super::compare::{Compared, compare_plan_until};
use super::difference::Difference;
use super::plan::Plan;
use super::regression::{Divergent, Shrinking};
use super::shrink::{Budget, Decisions, Ended};
use super::{Generator, generate};
use crate::file_error::{FileError, FileErrorKind};
use crate::peer::{Ground, Search};
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
    /// `seeds 120 · 310 calls/s · 2 new groups · last new 14 s ago`.
    pub fn line(&self) -> String {
        format!(
            "seeds {} · {:.0} calls/s · {} new {} · last new {:.0} s ago",
            self.seeds,
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

/// What the campaign's threads share.
struct Shared {
    state: State,
    sequences: BTreeMap<String, Sequence>,
    /// Which sequence the next seed comes from.
    turn: usize,
    /// Unshrunk signatures being shrunk now, with the calls met meanwhile.
    shrinking: BTreeMap<String, u64>,
    last_new: Option<Instant>,
    first_new: Option<f64>,
    /// Seeds asked whole, and subject answers that were not faults.
    seeds: u64,
    answered: u64,
    first_fault: Option<String>,
    /// Pending shrinks this campaign finished.
    finished_pending: u64,
    /// Why the campaign must stop (a tree not written), first only.
    fatal: Option<String>,
    save_error: Option<CampaignError>,
}

impl Shared {
    fn write_sequences(&mut self) {
        for (name, sequence) in &self.sequences {
            sequence.write(&mut self.state, name);
        }
    }
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
        let campaign = state.campaigns;
        let slots: Vec<Slot> = if self.slots.is_empty() {
            Slot::all()
        } else {
            self.slots.clone()
        };
        let sequences = slots
            .iter()
            .map(|s| (s.name(), Sequence::from_state(&state, &s.name())))
            .collect();
        let shared = Mutex::new(Shared {
            state,
            sequences,
            turn: 0,
            shrinking: BTreeMap::new(),
            last_new: None,
            first_new: None,
            seeds: 0,
            answered: 0,
            first_fault: None,
            finished_pending: 0,
            fatal: None,
            save_error: None,
        });
        let interrupted = || stop.is_some_and(|s| s.load(Ordering::SeqCst));
        let fatal = AtomicBool::new(false);
        let stopped =
            || interrupted() || fatal.load(Ordering::SeqCst) || Instant::now() >= deadline;
        let calls_done = AtomicU64::new(0);
        let snapshot = |shared: &Shared| Progress {
            seeds: shared.seeds,
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
        if shared.seeds == 0 && shared.finished_pending == 0 {
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
        if shared.seeds > 0 && shared.answered == 0 {
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
        Ok(Found {
            state: shared.state,
            progress: last,
            first_new_after: shared.first_new,
            stopped_by: shared.fatal,
            interrupted: interrupted(),
        })
    }
}

/// One campaign under way: what every job needs.
struct Context<'a, 'p> {
    campaign: &'a Campaign,
    /// The hold on the state file, which every save goes through.
    held: &'a Held,
    number: u64,
    reference: Compared<'p>,
    subjects: &'a [Compared<'p>],
    started: Instant,
    shared: &'a Mutex<Shared>,
    /// The deadline passed, an interrupt came, or the campaign must stop.
    stopped: &'a (dyn Fn() -> bool + Sync),
    /// An interrupt came.
    interrupted: &'a (dyn Fn() -> bool + Sync),
}

impl Context<'_, '_> {
    /// Ask the next seed whole and keep what it shows; `false` when the
    /// campaign cannot go on (its tree could not be written).
    fn ask_one(&self, slots: &[Slot], calls_done: &AtomicU64) -> bool {
        let (slot, seed) = {
            let mut s = lock(self.shared);
            let slot = slots[s.turn % slots.len()];
            s.turn += 1;
            let name = slot.name();
            let seed = s.sequences.entry(name).or_default().claim();
            (slot, seed)
        };
        let settle = |done: bool| {
            let mut s = lock(self.shared);
            if let Some(sequence) = s.sequences.get_mut(&slot.name()) {
                sequence.in_flight.remove(&seed);
                if done {
                    sequence.done.insert(seed);
                } else {
                    sequence.abandoned.insert(seed);
                }
            }
        };
        // A seed a generator has no plan for (past smthrs' 32 bits) has
        // nothing to ask: done.
        let Ok(plan) = generate(slot.generator, seed, ROOT, slot.ground) else {
            settle(true);
            return true;
        };
        let asked = match compare_plan_until(&plan, self.reference, self.subjects, self.stopped) {
            Ok(Some(asked)) => asked,
            Ok(None) => {
                settle(false);
                return true;
            }
            Err(e) => {
                settle(false);
                let mut s = lock(self.shared);
                s.fatal.get_or_insert_with(|| {
                    format!(
                        "the tree of {} seed {seed} cannot be written: {e} (trees are written under {}; TMPDIR sets another)",
                        slot.name(),
                        crate::environment::trees_dir().display()
                    )
                });
                return false;
            }
        };
        // Asked after an interrupt: lawsuite's own shutdown may have
        // stopped a peer mid-call, and its fault is nobody's finding.
        if (self.interrupted)() {
            settle(false);
            return true;
        }
        settle(true);
        calls_done.fetch_add(asked.calls, Ordering::SeqCst);
        {
            let mut s = lock(self.shared);
            s.seeds += 1;
            s.answered += asked.answered;
            if s.first_fault.is_none() {
                s.first_fault = asked.first_fault.clone();
            }
        }
        for d in &asked.divergences {
            let Some(expected) = d.reference_answer() else {
                continue;
            };
            for (i, answer) in d.answers.iter().enumerate().skip(1) {
                if answer.explained.is_some() {
                    continue;
                }
                let Some(difference) = Difference::between(expected, &answer.answer) else {
                    continue;
                };
                // The subject that gave this answer: the reference's
                // answer is first, then the subjects that support the
                // method, in order.
                let Some(subject) = self
                    .subjects
                    .iter()
                    .filter(|s| s.peer.supports(d.call.method()))
                    .nth(i - 1)
                else {
                    continue;
                };
                let met = Met {
                    slot,
                    plan: &plan,
                    call_index: d.call_index,
                    call: &d.call,
                    peer: subject.peer,
                    difference,
                };
                self.keep(&met);
            }
        }
        true
    }

    /// Count `met` in its group, or shrink it into one.
    fn keep(&self, met: &Met<'_>) {
        let method = met.call.method().to_string();
        let raw = signature(met.peer.name(), &method, &met.difference);
        {
            let mut s = lock(self.shared);
            if let Some(group) = s.state.group_of(&raw) {
                group.seen += 1;
                return;
            }
            if let Some(meanwhile) = s.shrinking.get_mut(&raw) {
                *meanwhile += 1;
                return;
            }
            s.shrinking.insert(raw.clone(), 0);
        }
        let divergent = Divergent {
            plan: met.plan,
            call_index: met.call_index,
            call: met.call,
            reference: self.reference.peer,
            peer: met.peer,
        };
        let shrinking = divergent.shrink(self.campaign.shrink, &Decisions::default(), self.stopped);
        let mut s = lock(self.shared);
        let seen = 1 + s.shrinking.remove(&raw).unwrap_or(0);
        let finding = Finding {
            sequence: met.slot.name(),
            seed: met.plan.seed,
            call: met.call_index,
        };
        let group = Group {
            signature: raw.clone(),
            peer: met.peer.name().to_string(),
            method,
            differs: met.difference.to_string(),
            spec: None,
            shape: None,
            first: finding,
            seen,
            regression: None,
            not_kept: None,
            campaign: self.number,
            after_secs: self.started.elapsed().as_secs_f64(),
            aliases: Vec::new(),
            pending: None,
            step_bound: None,
        };
        self.settle_group(&mut s, group, shrinking);
    }

    /// Put `group` (met with its unshrunk signature) into the state as its
    /// shrink says: pending when cut, merged into the group its shrunk case
    /// belongs to, or new with its regression file. The state is saved.
    fn settle_group(
        &self,
        s: &mut Shared,
        mut group: Group,
        shrinking: Result<Shrinking, super::regression::NotShrunk>,
    ) {
        match shrinking {
            Ok(Shrinking::Stopped(stats)) => {
                group.pending = Some(stats.decisions);
            }
            Ok(Shrinking::Done {
                regression,
                difference,
                stats,
            }) => {
                let key = signature(&group.peer, &group.method, &difference);
                let raw = std::mem::replace(&mut group.signature, key.clone());
                if let Some(existing) = s.state.group_of(&key) {
                    existing.seen += group.seen;
                    if raw != key && !existing.aliases.contains(&raw) {
                        existing.aliases.push(raw);
                    }
                    self.save(s);
                    return;
                }
                if raw != key {
                    group.aliases.push(raw);
                }
                group.differs = difference.to_string();
                group.spec = regression.spec.clone();
                group.pending = None;
                group.step_bound = (stats.ended == Ended::StepBound).then_some(stats.steps);
                group.shape = Some(shape_of(&regression));
                match regression.write(&self.campaign.regressions, &regression.default_name()) {
                    Ok(path) => group.regression = Some(path.display().to_string()),
                    Err(e) => group.not_kept = Some(e.to_string()),
                }
            }
            Err(why) => group.not_kept = Some(why.to_string()),
        }
        if group.campaign == self.number && group.pending.is_none() {
            s.last_new = Some(Instant::now());
            s.first_new.get_or_insert(group.after_secs);
        }
        match s
            .state
            .groups
            .iter_mut()
            .find(|g| g.signature == group.signature)
        {
            Some(same) => *same = group,
            None => s.state.groups.push(group),
        }
        self.save(s);
    }

    /// Saved at once: a campaign killed now still knows every group and
    /// its file. The sequences are written too, so the state never claims a
    /// group from a seed it would ask again.
    fn save(&self, s: &mut Shared) {
        s.write_sequences();
        if let Err(e) = self.held.replace(&s.state.text()) {
            s.save_error.get_or_insert(CampaignError::Write(e));
        }
    }

    /// Finish the shrinks earlier campaigns left cut, before any new seed:
    /// each replays its answers so far and goes on.
    fn finish_pending(&self) {
        let pending: Vec<Group> = lock(self.shared)
            .state
            .groups
            .iter()
            .filter(|g| g.pending.is_some())
            .cloned()
            .collect();
        for group in pending {
            if (self.stopped)() {
                return;
            }
            let Some(peer) = self
                .subjects
                .iter()
                .map(|s| s.peer)
                .find(|p| p.name() == group.peer)
            else {
                continue;
            };
            let Some(slot) = Slot::from_name(&group.first.sequence) else {
                continue;
            };
            let Ok(plan) = generate(slot.generator, group.first.seed, ROOT, slot.ground) else {
                continue;
            };
            let Some(call) = plan.calls().into_iter().nth(group.first.call) else {
                continue;
            };
            let divergent = Divergent {
                plan: &plan,
                call_index: group.first.call,
                call: &call,
                reference: self.reference.peer,
                peer,
            };
            let decisions = group.pending.clone().unwrap_or_default();
            let shrinking = divergent.shrink(self.campaign.shrink, &decisions, self.stopped);
            let finished = matches!(shrinking, Ok(Shrinking::Done { .. }) | Err(_));
            let mut s = lock(self.shared);
            // The group leaves the list while it is settled: merged into
            // another, it must not stay beside it.
            s.state.groups.retain(|g| g.signature != group.signature);
            if finished {
                s.finished_pending += 1;
            }
            self.settle_group(&mut s, group, shrinking);
        }
    }
}

/// One divergent call of a subject, met in a seed.
struct Met<'a> {
    slot: Slot,
    plan: &'a Plan,
    call_index: usize,
    call: &'a crate::call::Call,
    peer: &'a dyn Search,
    difference: Difference,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
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
            budget,
            jobs: 1,
            state: dir.join("state.json"),
            regressions: dir.join("regressions"),
            shrink: Budget::default(),
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
