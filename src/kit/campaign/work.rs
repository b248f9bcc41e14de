//! One campaign under way: its jobs asking fresh seeds and mutants of the
//! corpus, and what they keep (groups, behaviours, corpus entries).

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use super::guide::{BATCH, Corpus, Origin, mutate_batch};
use super::state::{Group, Sequence, State, shape_of};
use super::{Campaign, CampaignError, ROOT, Slot, signature};
use crate::call::Call;
use crate::kit::compare::{Asked, Compared, Divergence, compare_plan_until};
use crate::kit::difference::Difference;
use crate::kit::draws::Draws;
use crate::kit::generate;
use crate::kit::plan::Plan;
use crate::kit::regression::{Divergent, NotShrunk, Shrinking};
use crate::kit::shrink::{Decisions, Ended};
use crate::regular_file::Held;

/// What the campaign's jobs share.
pub(super) struct Shared {
    pub state: State,
    pub sequences: BTreeMap<String, Sequence>,
    /// The calls kept for mutation.
    pub corpus: Corpus,
    /// Which sequence the next seed comes from.
    pub turn: usize,
    /// Draws of the guidance so far (each job's next choice is drawn from
    /// the campaign's guide seed and this count, so a campaign's choices
    /// are the same on every machine for the same interleaving).
    pub guided: u64,
    /// Unshrunk signatures being shrunk now, with the calls met meanwhile.
    pub shrinking: BTreeMap<String, u64>,
    pub last_new: Option<Instant>,
    pub first_new: Option<f64>,
    /// Seeds asked whole, mutants asked, and subject answers that were
    /// not faults.
    pub seeds: u64,
    pub mutants: u64,
    pub answered: u64,
    pub first_fault: Option<String>,
    /// Pending shrinks this campaign finished.
    pub finished_pending: u64,
    /// Why the campaign must stop (a tree not written), first only.
    pub fatal: Option<String>,
    pub save_error: Option<CampaignError>,
}

impl Shared {
    pub(super) fn write_sequences(&mut self) {
        for (name, sequence) in &self.sequences {
            sequence.write(&mut self.state, name);
        }
    }
}

/// One campaign under way: what every job needs.
pub(super) struct Context<'a, 'p> {
    pub campaign: &'a Campaign,
    /// The hold on the state file, which every save goes through.
    pub held: &'a Held,
    pub number: u64,
    pub reference: Compared<'p>,
    pub subjects: &'a [Compared<'p>],
    pub started: Instant,
    pub shared: &'a Mutex<Shared>,
    /// The deadline passed, an interrupt came, or the campaign must stop.
    pub stopped: &'a (dyn Fn() -> bool + Sync),
    /// An interrupt came.
    pub interrupted: &'a (dyn Fn() -> bool + Sync),
    /// Set at the first new group, when the campaign stops there.
    pub found: &'a AtomicBool,
}

/// One divergent call of a subject, met in a seed or a mutant.
struct Met<'a> {
    origin: Origin,
    plan: &'a Plan,
    call_index: usize,
    call: &'a Call,
    subject: Compared<'a>,
    difference: Difference,
    /// Who agreed with whom on the call.
    partition: String,
    /// The `model` alone disagreed with the reference, every other peer
    /// agreeing with it: the model or the spec text is suspect.
    model_alone: bool,
}

impl Context<'_, '_> {
    /// Ask the next seed or mutant whole and keep what it shows; `false`
    /// when the campaign cannot go on (a tree could not be written).
    pub(super) fn ask_one(&self, slots: &[Slot], calls_done: &AtomicU64) -> bool {
        let mutant = {
            let mut s = lock(self.shared);
            s.guided += 1;
            let (k, n) = self.campaign.shard.unwrap_or((1, 1));
            let mut draws = Draws::seeded(
                self.campaign.guide_seed
                    ^ self.number.rotate_left(48)
                    ^ (k * 7_919 + n).rotate_left(32)
                    ^ s.guided,
            );
            // Half the time, once the corpus holds something: a batch of
            // mutants of one of its calls.
            if self.campaign.guided && !s.corpus.entries.is_empty() && draws.percent(50) {
                draws.pick(&s.corpus.entries).map(|entry| {
                    let entry = entry.to_mutate();
                    (entry, draws.seed() >> 8)
                })
            } else {
                None
            }
        };
        match mutant {
            Some((entry, batch)) => self.ask_mutants(&entry, batch, calls_done),
            None => self.ask_seed(slots, calls_done),
        }
    }

    /// Ask a batch of mutants of one corpus call, on their one tree
    /// ([`super::guide::mutate_batch`]).
    fn ask_mutants(&self, entry: &Origin, batch: u64, calls_done: &AtomicU64) -> bool {
        // A call that no longer replays, or a batch that changed nothing:
        // nothing asked.
        let Some(base) = entry.plan(ROOT) else {
            return true;
        };
        let Some((plan, names)) = mutate_batch(&base, batch, BATCH) else {
            return true;
        };
        if names.is_empty() {
            return true;
        }
        let asked = match compare_plan_until(&plan, self.reference, self.subjects, self.stopped) {
            Ok(Some(asked)) => asked,
            Ok(None) => return true,
            Err(e) => {
                return self.fatal(format!("the tree of a mutant of {}", entry.describe()), e);
            }
        };
        if (self.interrupted)() {
            return true;
        }
        lock(self.shared).mutants += names.len() as u64;
        let origin = |index: usize| entry.then(names.get(index).copied().unwrap_or_default());
        self.note(&asked, calls_done, origin);
        self.keep_divergences(&plan, &asked.divergences, origin);
        true
    }

    /// Ask the next seed of the next sequence.
    fn ask_seed(&self, slots: &[Slot], calls_done: &AtomicU64) -> bool {
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
                return self.fatal(format!("the tree of {} seed {seed}", slot.name()), e);
            }
        };
        // Asked after an interrupt: lawsuite's own shutdown may have
        // stopped a peer mid-call, and its fault is nobody's finding.
        if (self.interrupted)() {
            settle(false);
            return true;
        }
        settle(true);
        lock(self.shared).seeds += 1;
        let origin = |call: usize| Origin {
            sequence: slot.name(),
            seed,
            call,
            mutations: Vec::new(),
        };
        self.note(&asked, calls_done, origin);
        self.keep_divergences(&plan, &asked.divergences, origin);
        true
    }

    /// A tree that cannot be written stops the campaign, saying which.
    fn fatal(&self, what: String, e: crate::kit::materialize::MaterializeError) -> bool {
        lock(self.shared).fatal.get_or_insert_with(|| {
            format!(
                "{what} cannot be written: {e} (trees are written under {}; TMPDIR sets another)",
                crate::environment::trees_dir().display()
            )
        });
        false
    }

    /// Count what a plan's calls showed: the answers, and each call's
    /// behaviour; a behaviour never seen before puts its call in the
    /// corpus.
    fn note(&self, asked: &Asked, calls_done: &AtomicU64, origin: impl Fn(usize) -> Origin) {
        calls_done.fetch_add(asked.calls, Ordering::SeqCst);
        let mut s = lock(self.shared);
        s.answered += asked.answered;
        if s.first_fault.is_none() {
            s.first_fault = asked.first_fault.clone();
        }
        for (index, behaviour) in &asked.behaviours {
            if s.state.species.add(behaviour.key()) && self.campaign.guided {
                s.corpus.entries.push(origin(*index));
            }
        }
    }

    /// Keep every divergence of a subject that its built-in does not
    /// document.
    fn keep_divergences(
        &self,
        plan: &Plan,
        divergences: &[Divergence],
        origin: impl Fn(usize) -> Origin,
    ) {
        for d in divergences {
            let Some(expected) = d.reference_answer() else {
                continue;
            };
            // The subjects that answered, in the answers' order (the
            // reference's first, then those that support the method).
            let asked: Vec<Compared<'_>> = self
                .subjects
                .iter()
                .copied()
                .filter(|s| s.peer.supports(d.call.method()))
                .collect();
            let partition = partition(d);
            for (i, answer) in d.answers.iter().enumerate().skip(1) {
                if answer.explained.is_some() {
                    continue;
                }
                let Some(difference) = Difference::between(expected, &answer.answer) else {
                    continue;
                };
                let Some(&subject) = asked.get(i - 1) else {
                    continue;
                };
                // N+1: the model alone against the reference and every
                // other peer suspects the model or the spec text.
                let others_agree = d
                    .answers
                    .iter()
                    .enumerate()
                    .skip(1)
                    .filter(|(j, _)| *j != i)
                    .all(|(_, a)| a.answer.agrees(expected) || a.explained.is_some());
                let model_alone = subject.builtin == Some(crate::peer::Builtin::Model)
                    && asked.len() > 1
                    && others_agree;
                let met = Met {
                    origin: origin(d.call_index),
                    plan,
                    call_index: d.call_index,
                    call: &d.call,
                    subject,
                    difference,
                    partition: partition.clone(),
                    model_alone,
                };
                self.keep(&met);
            }
        }
    }

    /// Count `met` in its group, or shrink it into one.
    fn keep(&self, met: &Met<'_>) {
        let method = met.call.method().to_string();
        let peer = met.subject.peer;
        let raw = signature(peer.name(), &method, &met.difference);
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
            peer,
        };
        let shrinking = divergent.shrink(self.campaign.shrink, &Decisions::default(), self.stopped);
        let mut s = lock(self.shared);
        let seen = 1 + s.shrinking.remove(&raw).unwrap_or(0);
        let group = Group {
            signature: raw.clone(),
            peer: peer.name().to_string(),
            method,
            differs: met.difference.to_string(),
            spec: None,
            shape: None,
            first: met.origin.clone(),
            seen,
            regression: None,
            not_kept: None,
            campaign: self.number,
            after_secs: self.started.elapsed().as_secs_f64(),
            aliases: Vec::new(),
            pending: None,
            step_bound: None,
            partition: Some(met.partition.clone()),
            model_alone: met.model_alone,
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
        shrinking: Result<Shrinking, NotShrunk>,
    ) {
        match shrinking {
            Ok(Shrinking::Stopped(stats)) => {
                group.pending = Some(stats.decisions);
            }
            Ok(Shrinking::Done {
                mut regression,
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
                // A mutant's file names its lineage: its seed and call
                // alone would replay another call.
                regression.call_index = group.first.call;
                regression.mutations = group.first.mutations.clone();
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
            self.found.store(true, Ordering::SeqCst);
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
    pub(super) fn save(&self, s: &mut Shared) {
        s.write_sequences();
        if let Err(e) = self.held.replace(&s.state.text()) {
            s.save_error.get_or_insert(CampaignError::Write(e));
        }
    }

    /// Finish the shrinks earlier campaigns left cut, before any new seed:
    /// each replays its answers so far and goes on.
    pub(super) fn finish_pending(&self) {
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
            // The call on its tree, as it was met: the shrink depends on
            // the tree and the call alone.
            let Some(plan) = group.first.plan(ROOT) else {
                continue;
            };
            let Some(call) = plan.calls().into_iter().next() else {
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

/// Who agreed with whom on a divergent call: the peers with one answer
/// together, the groups apart (`portable, ripgrep | mine`), the
/// reference's group first. A fault agrees with nobody.
fn partition(d: &Divergence) -> String {
    let mut groups: Vec<Vec<&str>> = Vec::new();
    let mut answers: Vec<&crate::kit::answer::Answer> = Vec::new();
    for a in &d.answers {
        match answers.iter().position(|b| b.agrees(&a.answer)) {
            Some(g) => groups[g].push(&a.peer),
            None => {
                answers.push(&a.answer);
                groups.push(vec![&a.peer]);
            }
        }
    }
    groups
        .iter()
        .map(|g| g.join(", "))
        .collect::<Vec<_>>()
        .join(" | ")
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
