//! Starting and ending `rg` processes: each in a process group of its own,
//! under its memory bound, known to a registry of the live ones so that an
//! interrupted lawsuite ends them ([`stop_all`]).
//!
//! # Why a process group
//!
//! A terminal's Ctrl-C is a SIGINT to its foreground process group. With
//! `rg` in lawsuite's group, the signal killed the `rg` of a call in
//! flight, which the call then read as `rg`'s own failure, before
//! lawsuite's handler (`src/bin/lawsuite/interrupt.rs`) could decide
//! anything. In a group of its own (its id is its pid) `rg` is ended by
//! lawsuite alone: by the call's deadline, or by [`stop_all`] when lawsuite
//! is interrupted, as external peers are (`protocol::client::stop_all_peers`).
//!
//! # How the memory bound is set
//!
//! The memory bound (`RLIMIT_AS`, [`RgOptions::memory_bound`]) must apply
//! to the child alone: set on lawsuite itself, it would bound the harness
//! too. It used to be `/bin/sh -c 'ulimit -v N; exec rg …'`: a shell per
//! `rg`, about 1 ms of CPU each, and `ripgrep-walk` runs about 3 `rg` a law
//! (issue 47). Setting it between `fork` and `exec` (a `pre_exec` hook)
//! needs no shell, but a command with a hook is started with `fork`, never
//! `posix_spawn`: `fork` copies the page tables of lawsuite's few hundred
//! megabytes and makes lawsuite take a copy-on-write fault on each page it
//! writes afterwards, about 10 ms of system time per `rg` (measured:
//! every shipped law on the four built-ins went from 13.4 to 38.5 CPU-s).
//! So `rg` is started by `posix_spawn` (a `vfork`: lawsuite waits only
//! until `rg` has been exec'd) and the bound is set on it at once with
//! `prlimit`, before lawsuite does anything else. What `rg` may allocate
//! before that is its start-up (parsing its arguments), never a search:
//! the bound is there for a regex or a file that makes `rg` grow without
//! end, and those come later. A bound that cannot be set ends the `rg`
//! and fails the call; it is never silently dropped.
//!
//! [`RgOptions::memory_bound`]: super::RgOptions::memory_bound

use std::collections::BTreeSet;
use std::io;
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Set by [`stop_all`]: no `rg` is started after it.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// The process groups of the `rg` processes running now (their pids).
fn live() -> MutexGuard<'static, BTreeSet<u32>> {
    static LIVE: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());
    // Every update is one insert or remove: never torn by a panic.
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Run `command`'s child in a process group of its own.
pub(super) fn configure(command: &mut Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    #[cfg(not(unix))]
    let _ = command;
}

/// The address-space bound for a child: `bytes`, or the bound lawsuite
/// runs under if that is lower (a process may lower a hard limit, never
/// raise it).
#[cfg(unix)]
fn bound_of(bytes: u64) -> rustix::process::Rlimit {
    use rustix::process::{Resource, Rlimit, getrlimit};
    let inherited = getrlimit(Resource::As).maximum;
    let bound = inherited.map_or(bytes, |hard| hard.min(bytes));
    Rlimit {
        current: Some(bound),
        maximum: Some(bound),
    }
}

/// A running `rg`, known to the registry of live groups until it is
/// reaped. Dropped unreaped (an early return, a panic), it is killed with
/// its group and reaped, so no `rg` outlives its call.
#[derive(Debug)]
pub(super) struct RgChild {
    child: Child,
    registered: bool,
}

/// Start `command` (made by [`configure`]), register its group and, with
/// `memory_bytes`, bound its address space (`RLIMIT_AS`, soft and hard; see
/// the module doc); refused once [`stop_all`] has run.
pub(super) fn spawn(command: &mut Command, memory_bytes: Option<u64>) -> io::Result<RgChild> {
    // The check, the spawn and the registration under one lock, which
    // `stop_all` takes to set `STOPPING`: an `rg` started while lawsuite
    // stops is either known to it (and ended) or never started.
    let mut live = live();
    if STOPPING.load(Ordering::SeqCst) {
        return Err(io::Error::other("lawsuite is stopping: no rg is started"));
    }
    let child = command.spawn()?;
    live.insert(child.id());
    drop(live);
    let rg = RgChild {
        child,
        registered: true,
    };
    #[cfg(unix)]
    if let Some(bytes) = memory_bytes {
        use rustix::process::{Pid, Resource, prlimit};
        let pid = i32::try_from(rg.child.id()).ok().and_then(Pid::from_raw);
        match pid.map(|pid| prlimit(Some(pid), Resource::As, bound_of(bytes))) {
            // Gone already (a zombie not reaped yet): nothing to bound.
            Some(Ok(_)) | Some(Err(rustix::io::Errno::SRCH)) => {}
            Some(Err(e)) => {
                // Dropping it kills its group and reaps it.
                drop(rg);
                return Err(io::Error::other(format!(
                    "rg's memory bound could not be set: {}",
                    io::Error::from(e)
                )));
            }
            None => {
                drop(rg);
                return Err(io::Error::other("rg's pid is not a pid"));
            }
        }
    }
    #[cfg(not(unix))]
    let _ = memory_bytes;
    Ok(rg)
}

impl RgChild {
    /// The child, for its pipes.
    pub(super) fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    /// SIGKILL to its whole group (what it started too), if it is still
    /// registered (not reaped): its pid cannot name another process then.
    pub(super) fn kill(&mut self) {
        if self.registered {
            kill_group(self.child.id());
        }
    }

    /// Wait for it to exit, and reap it. It leaves the registry first:
    /// once reaped, its pid may be another process's.
    pub(super) fn wait(&mut self) -> io::Result<ExitStatus> {
        self.unregister();
        self.child.wait()
    }

    fn unregister(&mut self) {
        if self.registered {
            live().remove(&self.child.id());
            self.registered = false;
        }
    }
}

impl Drop for RgChild {
    fn drop(&mut self) {
        if self.registered {
            self.kill();
            let _ = self.wait();
        }
    }
}

/// SIGKILL to the process group `pgid`; "no such group" (it is gone) is
/// not an error here.
pub(super) fn kill_group(pgid: u32) {
    #[cfg(unix)]
    {
        use rustix::process::{Pid, Signal, kill_process_group};
        if let Some(pid) = i32::try_from(pgid).ok().and_then(Pid::from_raw) {
            let _ = kill_process_group(pid, Signal::KILL);
        }
    }
    #[cfg(not(unix))]
    let _ = pgid;
}

/// End every `rg` running now, with its group (SIGKILL), and start none
/// again: what an interrupted lawsuite does on its way out, beside
/// stopping its external peers. A call whose `rg` is ended fails; the
/// process is reaped by its call (or by the exit). Returns how many groups
/// were ended.
///
/// ```
/// // Nothing runs here, so nothing is ended (and no rg starts after this).
/// assert_eq!(lawsuite::ripgrep::process::stop_all_rg(), 0);
/// ```
pub fn stop_all() -> usize {
    let live = live();
    STOPPING.store(true, Ordering::SeqCst);
    for &pgid in live.iter() {
        kill_group(pgid);
    }
    live.len()
}

/// Whether [`stop_all`] has run.
pub(super) fn stopping() -> bool {
    STOPPING.load(Ordering::SeqCst)
}
