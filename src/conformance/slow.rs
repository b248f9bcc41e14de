//! SLOW lines: trials that run long are named while they run, on stderr,
//! as nextest names slow tests: `SLOW [> 10s] law::grep::x::mine`.
//!
//! A trial stuck in a peer (or in the harness) would otherwise show
//! nothing until it ends, and a run of two thousand trials that prints
//! 2,120 verdicts and then sits at 100 % CPU says nothing about which one
//! it is on. One watcher thread, started with the first watched trial,
//! looks every half second and names each trial once per period it has
//! been running; a trial that ends is forgotten.
//!
//! The period is the run's ([`Config`](super::config::Config): 10 s, or
//! `LAWSUITE_SLOW_SECS`, where `0` turns the lines off); each watched
//! trial carries its own, so two engines in one process keep theirs.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The period when nothing says otherwise (`LAWSUITE_SLOW_SECS`).
pub const DEFAULT_PERIOD: Duration = Duration::from_secs(10);

/// How often the watcher looks.
const LOOK: Duration = Duration::from_millis(500);

struct Running {
    name: String,
    /// How often it is named.
    period: Duration,
    since: Instant,
    /// How many periods have been announced.
    said: u32,
}

struct Watch {
    running: Mutex<BTreeMap<u64, Running>>,
    next: AtomicU64,
}

/// Watches one trial until dropped.
#[derive(Debug)]
#[must_use = "the trial is watched until the guard is dropped"]
pub struct Guard {
    key: Option<u64>,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let (Some(key), Some(watch)) = (self.key, WATCH.get().and_then(Option::as_ref)) {
            lock(watch).remove(&key);
        }
    }
}

static WATCH: OnceLock<Option<Watch>> = OnceLock::new();

fn lock(watch: &Watch) -> std::sync::MutexGuard<'_, BTreeMap<u64, Running>> {
    watch
        .running
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Watch the trial `name` until the guard is dropped, naming it once per
/// `period` it runs (`None`: not at all).
pub fn watch(period: Option<Duration>, name: impl FnOnce() -> String) -> Guard {
    let Some(period) = period.filter(|p| !p.is_zero()) else {
        return Guard { key: None };
    };
    let watch = WATCH.get_or_init(|| {
        let spawned = std::thread::Builder::new()
            .name("slow-trials".into())
            .spawn(look);
        if let Err(e) = spawned {
            eprintln!("warning: cannot watch for slow trials ({e})");
            return None;
        }
        Some(Watch {
            running: Mutex::new(BTreeMap::new()),
            next: AtomicU64::new(0),
        })
    });
    let Some(watch) = watch else {
        return Guard { key: None };
    };
    let key = watch.next.fetch_add(1, Ordering::Relaxed);
    lock(watch).insert(
        key,
        Running {
            name: name(),
            period,
            since: Instant::now(),
            said: 0,
        },
    );
    Guard { key: Some(key) }
}

/// The watcher: name each trial once per period it has run.
fn look() {
    loop {
        std::thread::sleep(LOOK);
        let Some(Some(watch)) = WATCH.get() else {
            continue;
        };
        let now = Instant::now();
        let mut lines = Vec::new();
        for running in lock(watch).values_mut() {
            let periods = (now.duration_since(running.since).as_secs_f64()
                / running.period.as_secs_f64()) as u32;
            if periods > running.said {
                running.said = periods;
                let secs = running.period.as_secs() * u64::from(periods);
                lines.push(format!("SLOW [> {secs}s] {}", running.name));
            }
        }
        // Printed outside the lock: a blocked stderr never stalls a trial.
        for line in lines {
            eprintln!("{line}");
        }
    }
}
