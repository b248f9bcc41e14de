//! Running a selection of trials on several threads, item by item, and
//! streaming [`Event`]s to the caller's thread as they happen.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::{Engine, Event, Outcome, PeerRef, RunOptions, Trial, Verdict};

impl Engine {
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
        sink: impl FnMut(&Event),
    ) -> Vec<Outcome> {
        // Group by item, keeping the order of first appearance.
        let mut groups: Vec<ItemGroup> = Vec::new();
        let mut slot: BTreeMap<(usize, Option<u64>), usize> = BTreeMap::new();
        for (t, trial) in trials.iter().enumerate() {
            let g = *slot.entry((trial.item, trial.seed)).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push((t, trial.clone()));
        }
        self.run_groups(groups.into_iter(), options, cancel, sink)
    }

    /// [`Engine::run_until`] of trials made as they are needed
    /// ([`Engine::trials_iter`]): the items are handed out as the trials
    /// come, so a selection from a seed range of any width is never held
    /// whole. An item's trials must come one after another, as
    /// [`Engine::trials_iter`] makes them.
    pub fn run_stream_until<I>(
        &self,
        trials: I,
        options: RunOptions,
        cancel: &AtomicBool,
        sink: impl FnMut(&Event),
    ) -> Vec<Outcome>
    where
        I: Iterator<Item = Trial> + Send,
    {
        let groups = Consecutive {
            trials: trials.enumerate().peekable(),
        };
        self.run_groups(groups, options, cancel, sink)
    }

    /// Hand `groups` out to the threads, one item at a time.
    fn run_groups<G>(
        &self,
        groups: G,
        options: RunOptions,
        cancel: &AtomicBool,
        mut sink: impl FnMut(&Event),
    ) -> Vec<Outcome>
    where
        G: Iterator<Item = ItemGroup> + Send,
    {
        let groups = Mutex::new(groups);
        let stop = AtomicBool::new(false);
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Outcome)>();
        let mut results: Vec<Option<Outcome>> = Vec::new();
        let mut announced = 0;
        std::thread::scope(|scope| {
            for _ in 0..options.jobs.max(1) {
                let tx = tx.clone();
                let (groups, stop) = (&groups, &stop);
                scope.spawn(move || {
                    while !stop.load(Ordering::Relaxed) && !cancel.load(Ordering::Relaxed) {
                        // A thread that panicked while holding the lock left
                        // the trials where they were: take the next one.
                        let next = groups.lock().unwrap_or_else(|p| p.into_inner()).next();
                        let Some(members) = next else {
                            break;
                        };
                        let Some((_, first)) = members.first() else {
                            continue;
                        };
                        let (item, seed) = (first.item, first.seed);
                        let peers: Vec<Option<usize>> = members
                            .iter()
                            .map(|m| m.1.peer.map(PeerRef::index))
                            .collect();
                        // A panicking peer (or engine bug) fails its trials,
                        // it never hangs or ends the run.
                        let outcomes =
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                self.run_at(item, seed, &peers)
                            }))
                            .unwrap_or_else(|payload| {
                                let why = format!(
                                    "the trial panicked: {}",
                                    crate::kit::answer::panic_message(&*payload)
                                );
                                let resolved = self.resolve(item, seed);
                                peers
                                    .iter()
                                    .map(|p| {
                                        self.outcome(
                                            &resolved,
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
                if results.len() <= t {
                    results.resize_with(t + 1, || None);
                }
                results[t] = Some(outcome);
            }
        });
        results.into_iter().flatten().collect()
    }
}

/// An item's trials, each with its index in the run's trial order.
type ItemGroup = Vec<(usize, Trial)>;

/// Trials grouped by item (and, in a seed range, by seed) as they come:
/// the trials of one item are consecutive.
struct Consecutive<I: Iterator<Item = Trial>> {
    trials: std::iter::Peekable<std::iter::Enumerate<I>>,
}

impl<I: Iterator<Item = Trial>> Iterator for Consecutive<I> {
    type Item = ItemGroup;

    fn next(&mut self) -> Option<ItemGroup> {
        let first = self.trials.next()?;
        let key = (first.1.item, first.1.seed);
        let mut group = vec![first];
        while let Some(trial) = self.trials.next_if(|(_, t)| (t.item, t.seed) == key) {
            group.push(trial);
        }
        Some(group)
    }
}
