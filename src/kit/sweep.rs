//! A seed sweep: many plans through the same peers, spread over threads
//! (conformance-kit §4, run at scale).
//!
//! `lawsuite run`, the sweep-throughput benchmark (`benches/sweep.rs`) and
//! any other driver share this loop, so the figure the benchmark reports is
//! the throughput of the command people run.
//!
//! Seeds are handed out one at a time from a shared counter, so a slow plan
//! on one thread never leaves the other idle. Every plan is generated,
//! materialised under its own temporary root, compared
//! ([`compare_plan`]) and dropped before the next one starts: a sweep of
//! 10,000 seeds holds at most `jobs` trees on disk at once.
//!
//! ```
//! use lawsuite::kit::Generator;
//! use lawsuite::kit::sweep::{Sweep, sweep};
//! use lawsuite::portable::Portable;
//!
//! let plan = Sweep::new(Generator::Smthrs, vec![4, 7]);
//! let outcome = sweep(&plan, &Portable::default(), &[&Portable::with_threads(1)], |_| {});
//! assert_eq!((outcome.seeds, outcome.divergences.len()), (2, 0));
//! assert!(outcome.errors.is_empty());
//! ```

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::compare::{Divergence, compare_plan};
use super::plan::PLAN_ROOT;
use super::{Generator, generate};
use crate::peer::Ground;
use crate::peer::Search;

/// What to sweep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sweep {
    /// The generator of every plan.
    pub generator: Generator,
    /// The seeds, in the order they are handed out.
    pub seeds: Vec<u64>,
    /// The `lawsuite` generator's ground (ignored by `smthrs`).
    pub ground: Ground,
    /// Only this call of each plan (its index in plan order), when set.
    pub only_call: Option<usize>,
    /// Threads running seeds in parallel (at least one runs).
    pub jobs: usize,
}

impl Sweep {
    /// A sweep of `seeds` under `generator` on the shared ground, every
    /// call, two threads.
    pub fn new(generator: Generator, seeds: Vec<u64>) -> Sweep {
        Sweep {
            generator,
            seeds,
            ground: Ground::Shared,
            only_call: None,
            jobs: 2,
        }
    }
}

/// Where a running sweep is, handed to the progress callback after each
/// seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Seeds finished so far.
    pub done: usize,
    /// Seeds in the sweep.
    pub total: usize,
    /// Divergent calls found so far, explained ones included.
    pub divergent: usize,
}

/// What a sweep found.
#[derive(Debug, Default)]
pub struct SweepOutcome {
    /// Seeds run.
    pub seeds: usize,
    /// Every divergent call, explained ones included, ordered by seed and
    /// call.
    pub divergences: Vec<Divergence>,
    /// Seeds that could not be run (a plan that failed to generate or to
    /// materialise), one sentence each.
    pub errors: Vec<String>,
    /// Wall-clock time of the whole sweep.
    pub elapsed: Duration,
    /// Subjects left out because they claim a narrower [`Ground`] than the
    /// sweep's plans (see [`takes_part`]).
    pub left_out: Vec<String>,
}

impl SweepOutcome {
    /// Seeds per second of wall-clock time.
    pub fn seeds_per_second(&self) -> f64 {
        self.seeds as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Whether `peer` is asked the plans of `sweep`: a peer that claims only
/// the shared ground ([`Search::ground`]) sits out a full-ground `lawsuite`
/// sweep. `smthrs` plans are plain files, so everyone takes part.
///
/// ```
/// use lawsuite::kit::Generator;
/// use lawsuite::kit::sweep::{Sweep, takes_part};
/// use lawsuite::portable::Portable;
/// use lawsuite::peer::Ground;
/// let full = Sweep { ground: Ground::Full, ..Sweep::new(Generator::Lawsuite, vec![1]) };
/// assert!(takes_part(&full, &Portable::default()));
/// ```
pub fn takes_part(sweep: &Sweep, peer: &dyn Search) -> bool {
    let full = sweep.ground == Ground::Full && sweep.generator == Generator::Lawsuite;
    !full || peer.ground() == Ground::Full
}

/// Run every seed of `sweep` through `reference` and those `subjects` that
/// [take part](takes_part), calling `progress` after each seed (from
/// whichever thread finished it).
pub fn sweep(
    sweep: &Sweep,
    reference: &dyn Search,
    subjects: &[&dyn Search],
    progress: impl Fn(Progress) + Sync,
) -> SweepOutcome {
    let started = Instant::now();
    let (subjects, left_out): (Vec<&dyn Search>, Vec<&dyn Search>) =
        subjects.iter().partition(|p| takes_part(sweep, **p));
    let subjects = subjects.as_slice();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let found: Mutex<Vec<Divergence>> = Mutex::new(Vec::new());
    let errors: Mutex<Vec<String>> = Mutex::new(Vec::new());
    // A poisoned lock only means another thread panicked while pushing;
    // what it holds is still every finished result, so keep going.
    let push_error = |e: String| match errors.lock() {
        Ok(mut v) => v.push(e),
        Err(poisoned) => poisoned.into_inner().push(e),
    };
    std::thread::scope(|scope| {
        for _ in 0..sweep.jobs.max(1) {
            scope.spawn(|| {
                while let Some(&seed) = sweep.seeds.get(next.fetch_add(1, Ordering::Relaxed)) {
                    match generate(sweep.generator, seed, PLAN_ROOT, sweep.ground) {
                        Ok(plan) => {
                            let plan = match sweep.only_call {
                                Some(call) => plan.only_call(call),
                                None => plan,
                            };
                            match compare_plan(&plan, reference, subjects) {
                                Ok(ds) => match found.lock() {
                                    Ok(mut f) => f.extend(ds),
                                    Err(poisoned) => poisoned.into_inner().extend(ds),
                                },
                                Err(e) => push_error(format!("seed {seed}: {e}")),
                            }
                        }
                        Err(e) => push_error(format!("seed {seed}: {e}")),
                    }
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    let divergent = found.lock().map_or(0, |f| f.len());
                    progress(Progress {
                        done: n,
                        total: sweep.seeds.len(),
                        divergent,
                    });
                }
            });
        }
    });
    let mut divergences = found.into_inner().unwrap_or_else(|p| p.into_inner());
    divergences.sort_by_key(|d| (d.seed, d.call_index));
    let mut errors = errors.into_inner().unwrap_or_else(|p| p.into_inner());
    errors.sort();
    SweepOutcome {
        seeds: sweep.seeds.len(),
        divergences,
        errors,
        elapsed: started.elapsed(),
        left_out: left_out.iter().map(|p| p.name().to_string()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{GlobInput, GlobOutput, GrepInput, GrepOutput, StdError};
    use crate::portable::Portable;

    /// Right about `grep`, wrong about every `glob` that finds something.
    struct NoGlob;

    impl Search for NoGlob {
        fn name(&self) -> &str {
            "no-glob"
        }
        fn version(&self) -> String {
            "0".into()
        }
        fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
            Portable::with_threads(1).grep(input)
        }
        fn glob(&self, _: &GlobInput) -> Result<GlobOutput, StdError> {
            Ok(GlobOutput::default())
        }
    }

    #[test]
    fn divergences_are_collected_in_seed_order_from_every_thread() {
        let plan = Sweep {
            jobs: 3,
            ..Sweep::new(Generator::Smthrs, vec![9, 1, 5, 3])
        };
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let outcome = sweep(&plan, &Portable::default(), &[&NoGlob], |p| {
            assert_eq!(p.total, 4);
            calls.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(calls.into_inner(), 4, "progress once per seed");
        assert!(!outcome.divergences.is_empty());
        assert!(
            outcome
                .divergences
                .iter()
                .all(|d| d.call.method() == crate::peer::Method::Glob)
        );
        let keys: Vec<(u64, usize)> = outcome
            .divergences
            .iter()
            .map(|d| (d.seed, d.call_index))
            .collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        let seeds: std::collections::BTreeSet<u64> = keys.iter().map(|k| k.0).collect();
        assert!(seeds.len() > 1, "more than one seed diverged: {seeds:?}");
    }

    #[test]
    fn only_call_keeps_one_call_per_plan() {
        let plan = Sweep {
            only_call: Some(0),
            ..Sweep::new(Generator::Smthrs, vec![1, 2, 3])
        };
        let outcome = sweep(&plan, &Portable::default(), &[&NoGlob], |_| {});
        // Call 0 is a grep call, which NoGlob answers right.
        assert!(outcome.divergences.is_empty());
        assert_eq!(outcome.seeds, 3);
    }

    /// [`NoGlob`]'s answers, from a peer that claims only the shared ground.
    struct SharedOnly;

    impl Search for SharedOnly {
        fn name(&self) -> &str {
            "shared-only"
        }
        fn version(&self) -> String {
            "0".into()
        }
        fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
            NoGlob.grep(input)
        }
        fn glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError> {
            NoGlob.glob(input)
        }
        fn ground(&self) -> Ground {
            Ground::Shared
        }
    }

    #[test]
    fn a_shared_ground_peer_sits_out_full_ground_plans_only() {
        let seeds = vec![1, 2, 3];
        let full = Sweep {
            ground: Ground::Full,
            ..Sweep::new(Generator::Lawsuite, seeds.clone())
        };
        let outcome = sweep(&full, &Portable::default(), &[&SharedOnly], |_| {});
        assert_eq!(outcome.left_out, ["shared-only"]);
        assert!(outcome.divergences.is_empty());
        // On the shared ground it is asked, and its glob bug shows.
        let shared = Sweep::new(Generator::Lawsuite, seeds);
        let outcome = sweep(&shared, &Portable::default(), &[&SharedOnly], |_| {});
        assert!(outcome.left_out.is_empty());
        assert!(!outcome.divergences.is_empty());
    }

    #[test]
    fn a_seed_that_cannot_be_planned_is_an_error_not_a_panic() {
        let plan = Sweep::new(Generator::Smthrs, vec![u64::MAX]);
        let outcome = sweep(&plan, &Portable::default(), &[], |_| {});
        assert_eq!(outcome.errors.len(), 1);
        assert!(outcome.errors[0].contains("32-bit"), "{:?}", outcome.errors);
    }
}
