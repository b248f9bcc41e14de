//! A tiny work pool for the portable peer: jobs that make more jobs,
//! drained by a few threads until none is pending and none is running.
//! The walk (and the search of each file it finds) runs on it, and so does
//! the symbol pass over the returned hits.
//!
//! The walk lists directories in parallel (each directory job yields its
//! subdirectories as new jobs). A thread that finds the queue empty must
//! wait while another thread is still listing, since that listing may add
//! jobs; the walk is over only when the queue is empty *and* no job runs.
//!
//! That "running" count is the hazard: a job that panics never gives its
//! count back, and every other thread waits for it forever. A peer that
//! panics mid-walk then hangs `cargo test` instead of failing one trial
//! (found by a mutation run). So the count is given back by a guard's
//! `Drop`, which runs while a panic unwinds, the pool is marked abandoned
//! so the other threads stop taking jobs, and the first panic is resumed in
//! the caller with its own message (where [`crate::kit::case::answer`]
//! turns it into a failed trial).

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Condvar, Mutex, MutexGuard};

/// Pending jobs and how many run right now.
struct State<J> {
    jobs: Vec<J>,
    running: usize,
    /// Threads waiting in [`next`] for a job or the end.
    waiting: usize,
    /// A job panicked: take no more jobs.
    abandoned: bool,
}

struct Pool<J> {
    state: Mutex<State<J>>,
    wake: Condvar,
}

impl<J> Pool<J> {
    /// The state, even if a panicking thread poisoned the lock: every
    /// update below is a single assignment, so the state is never torn.
    fn lock(&self) -> MutexGuard<'_, State<J>> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Gives a running job's count back when the job ends, however it ends.
struct Running<'p, J> {
    pool: &'p Pool<J>,
    children: Vec<J>,
}

impl<J> Drop for Running<'_, J> {
    fn drop(&mut self) {
        let mut state = self.pool.lock();
        let news = if std::thread::panicking() {
            state.abandoned = true;
            true
        } else {
            !self.children.is_empty()
        };
        state.jobs.append(&mut self.children);
        state.running -= 1;
        // A waiter needs waking for new jobs, for the end of the drain (no
        // job left to run) or for a panic; only then, and only if one
        // waits: a wake after every job was a futex call per directory
        // (5 % of the CPU time of a search of the cargo registry).
        let wake = state.waiting > 0 && (news || state.running == 0);
        drop(state);
        if wake {
            self.pool.wake.notify_all();
        }
    }
}

/// Run `work` on every job of `seed` and on every job `work` returns, on
/// up to `threads` threads (one: on the caller's thread). Returns when all
/// are done. If `work` panics, the other threads stop taking jobs and the
/// first panic is resumed here.
pub(crate) fn drain<J, F>(seed: Vec<J>, threads: usize, work: F)
where
    J: Send,
    F: Fn(J) -> Vec<J> + Sync,
{
    let pool = Pool {
        state: Mutex::new(State {
            jobs: seed,
            running: 0,
            waiting: 0,
            abandoned: false,
        }),
        wake: Condvar::new(),
    };
    let worker = || -> Result<(), Box<dyn Any + Send>> {
        catch_unwind(AssertUnwindSafe(|| {
            while let Some(job) = next(&pool) {
                let mut running = Running {
                    pool: &pool,
                    children: Vec::new(),
                };
                running.children = work(job);
            }
        }))
    };
    // Alone first: the caller takes jobs until the queue holds enough to
    // share or runs dry. A law's or a seed's tree (a few files) is then
    // walked and searched without a thread started, which cost more than
    // the search (two thread starts and joins a call, a third of the
    // system time of the shipped laws on `portable`); a real tree's queue
    // passes SHARE_AT within its first few directories.
    if threads > 1 {
        let alone = catch_unwind(AssertUnwindSafe(|| {
            while let Some(job) = next_alone(&pool) {
                let mut running = Running {
                    pool: &pool,
                    children: Vec::new(),
                };
                running.children = work(job);
            }
        }));
        if let Err(payload) = alone {
            resume_unwind(payload);
        }
        if pool.lock().jobs.is_empty() {
            return;
        }
    }
    let panics: Vec<Box<dyn Any + Send>> = if threads <= 1 {
        worker().err().into_iter().collect()
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads).map(|_| scope.spawn(worker)).collect();
            handles
                .into_iter()
                .filter_map(|h| match h.join() {
                    Ok(result) => result.err(),
                    Err(payload) => Some(payload),
                })
                .collect()
        })
    };
    if let Some(payload) = panics.into_iter().next() {
        resume_unwind(payload);
    }
}

/// Pending jobs that make it worth starting the other threads: fewer, and
/// the caller runs them alone. A scheduling choice only: every job runs
/// once either way, and the answers are sorted after the drain.
const SHARE_AT: usize = 16;

/// The next job for the caller running alone: `None` when the queue is
/// dry or holds [`SHARE_AT`] jobs or more (no other thread runs, so no job
/// is running between two calls).
fn next_alone<J>(pool: &Pool<J>) -> Option<J> {
    let mut state = pool.lock();
    if state.jobs.len() >= SHARE_AT {
        return None;
    }
    let job = state.jobs.pop()?;
    state.running += 1;
    Some(job)
}

/// The next job, waiting while another thread may still add some; `None`
/// when the pool is drained or abandoned.
fn next<J>(pool: &Pool<J>) -> Option<J> {
    let mut state = pool.lock();
    loop {
        if state.abandoned {
            return None;
        }
        if let Some(job) = state.jobs.pop() {
            state.running += 1;
            return Some(job);
        }
        if state.running == 0 {
            return None;
        }
        state.waiting += 1;
        state = pool
            .wake
            .wait(state)
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        state.waiting -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::time::Duration;

    /// Jobs `n` make jobs `n - 1` twice: 2^(d+1) - 1 jobs from depth `d`.
    #[test]
    fn every_job_and_every_child_runs_once() {
        for threads in [1, 2, 4] {
            let done = AtomicUsize::new(0);
            drain(vec![6u32], threads, |n| {
                done.fetch_add(1, Ordering::Relaxed);
                if n == 0 { vec![] } else { vec![n - 1, n - 1] }
            });
            assert_eq!(done.into_inner(), 127, "{threads} threads");
        }
    }

    /// A drain of fewer jobs than SHARE_AT at any time runs on the
    /// caller's thread alone; a larger one on more threads.
    #[test]
    fn a_small_drain_starts_no_thread_and_a_large_one_shares() {
        let caller = std::thread::current().id();
        let others = Mutex::new(std::collections::BTreeSet::new());
        let record = |_: u32| {
            let id = std::thread::current().id();
            if id != caller {
                others.lock().unwrap().insert(format!("{id:?}"));
            }
        };
        drain(vec![3u32], 4, |n| {
            record(n);
            if n == 0 { vec![] } else { vec![n - 1, n - 1] }
        });
        assert!(
            others.lock().unwrap().is_empty(),
            "15 jobs, never 16 pending"
        );
        let done = AtomicUsize::new(0);
        drain(vec![64u32], 4, |n| {
            record(n);
            done.fetch_add(1, Ordering::Relaxed);
            // Slow enough that the other threads get jobs.
            std::thread::sleep(Duration::from_millis(1));
            if n == 64 { (0..63).collect() } else { vec![] }
        });
        assert_eq!(done.into_inner(), 64);
        assert!(
            !others.lock().unwrap().is_empty(),
            "64 jobs at once are shared"
        );
    }

    /// Before the guard, a panicking job never gave its running count back
    /// and the other threads waited for it forever. Run in a thread of its
    /// own so a regression fails after 20 s instead of hanging the suite.
    #[test]
    fn a_panicking_job_ends_the_drain_with_its_own_panic() {
        for threads in [1, 2, 4] {
            let (sent, received) = mpsc::channel();
            std::thread::spawn(move || {
                // One job alone panics, so the other threads would wait for
                // it rather than meet a panic of their own.
                let broke = std::sync::atomic::AtomicBool::new(false);
                let result = catch_unwind(|| {
                    drain(vec![6u32], threads, |n| {
                        if n == 3 && !broke.swap(true, Ordering::Relaxed) {
                            panic!("job {n} broke");
                        }
                        if n == 0 { vec![] } else { vec![n - 1, n - 1] }
                    })
                });
                let message = result
                    .err()
                    .map(|payload| crate::kit::answer::panic_message(&*payload));
                let _ = sent.send(message);
            });
            let message = received
                .recv_timeout(Duration::from_secs(20))
                .unwrap_or_else(|_| panic!("the drain hung after a panic ({threads} threads)"));
            assert_eq!(message.as_deref(), Some("job 3 broke"), "{threads} threads");
        }
    }
}
