//! Peer process groups: ending one peer's group when the peer ends, and
//! every peer's at once when a run must stop now.
//!
//! Each external peer runs in a process group of its own (its id is the
//! peer's pid), so a launcher's background children (`sh -c 'helper &
//! exec peer'`) end with it. The groups of the peers running now are kept
//! here, so an interrupted run can end them all ([`stop_all_peers`]).

use std::process::Stdio;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long the processes left in a peer's group get to exit after SIGTERM.
#[cfg(unix)]
pub(super) const GROUP_GRACE: Duration = Duration::from_millis(500);

/// Ends every process left in the process group `pgid` (the peer's
/// grandchildren; the peer itself is already reaped): SIGTERM, then
/// SIGKILL to what is still there after [`GROUP_GRACE`].
///
/// Signals go through the `kill` program: the crate forbids unsafe code
/// and has no libc binding, and this runs once per ended peer. `kill -0`
/// fails when the group is empty, the common case, which costs one spawn.
#[cfg(unix)]
pub(super) fn end_group(pgid: u32, grace: Duration) {
    let group = format!("-{pgid}");
    let signal = |sig: &str| {
        std::process::Command::new("kill")
            .args([sig, "--", &group])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !signal("-0") {
        return;
    }
    signal("-TERM");
    let until = Instant::now() + grace;
    while Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
        // A process killed but not yet reaped by its new parent (init)
        // still answers `kill -0`; KILL is harmless to it.
        if !signal("-0") {
            return;
        }
    }
    signal("-KILL");
}

/// Set by [`stop_all_peers`]: no peer process is started after it.
pub(super) static STOPPING: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// The process groups of the peers running now (their leaders' pids).
#[cfg(unix)]
pub(super) fn live_groups() -> MutexGuard<'static, std::collections::BTreeSet<u32>> {
    static LIVE: Mutex<std::collections::BTreeSet<u32>> =
        Mutex::new(std::collections::BTreeSet::new());
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// End every external peer of this process and its group (SIGTERM, then
/// SIGKILL after `grace`), and start none again: what an interrupted run
/// does when its trials do not finish in time, or at once on a second
/// interrupt. A call waiting on an ended peer answers a crash promptly; the
/// processes are reaped by their
/// [`ExternalPeer`](super::ExternalPeer)s (or by the exit).
/// Returns how many groups were ended.
pub fn stop_all_peers(grace: Duration) -> usize {
    STOPPING.store(true, std::sync::atomic::Ordering::Relaxed);
    #[cfg(unix)]
    {
        let groups: Vec<u32> = live_groups().iter().copied().collect();
        for &pgid in &groups {
            end_group(pgid, grace);
        }
        groups.len()
    }
    #[cfg(not(unix))]
    {
        let _ = grace;
        0
    }
}
