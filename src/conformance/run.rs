//! Running a selection of trials on several threads, item by item, and
//! streaming [`Event`]s to the caller's thread as they happen.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use super::{Engine, Event, Outcome, RunOptions, Trial, Verdict};

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

/// An item's index and its trials: (index in the run's trial list, peer).
type ItemGroup = (usize, Vec<(usize, Option<usize>)>);
