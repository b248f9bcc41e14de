//! The one interrupt path of every command that starts a peer or writes a
//! temporary tree: `run`, `call`, `peers`, `bench`, `survey`, `shrink` and
//! `record`.
//!
//! Such a command calls [`listen`] before it starts anything. From then on
//! the first SIGINT or SIGTERM (Ctrl-C, `timeout 8`, a CI job cancelled)
//! is handled here, never by the default action, which killed the harness
//! alone: its external peers run in process groups of their own (so the
//! terminal's SIGINT does not reach them) and were orphaned, and its
//! temporary trees (`bench`'s 7 MB corpus among them) were left behind.
//!
//! What an interrupt does depends on the phase:
//!
//! - **Anything but `run`'s trials** (a handshake, a smoke check, a
//!   benchmark, a differential, a shrink, `run`'s own start): every peer's
//!   process group is ended, every temporary tree removed, and the command
//!   exits [`EXIT_CODE`] at once. Nothing these phases hold is worth
//!   waiting for: a half-timed benchmark or a half-shrunk case is no answer.
//! - **`run`'s trials** ([`during_trials`]): the run stops handing out
//!   trials and ends as usual, so the outcomes so far are reported and the
//!   summary says it was interrupted. The wait is bounded: trials still
//!   running after the grace (the run's `Config`:
//!   `LAWSUITE_INTERRUPT_GRACE_SECS`, default the per-call timeout) have their peers ended, and after [`AFTER_STOP`]
//!   more the run removes every tree left and exits. A second signal does
//!   that at once.
//! - **After the trials** ([`trials_done`]): the reports are being written
//!   and the peers shut down, which ends by itself; a second signal exits
//!   at once.
//!
//! Every way out ends the same: [`stop_all_peers`], [`stop_all_rg`] and
//! [`remove_live_trees`], which know every peer group, every `rg` of the
//! `rg`-driven peers (each in a group of its own too, so a terminal's
//! Ctrl-C reaches lawsuite, not the `rg` of a call in flight) and every
//! [`TempTree`](lawsuite::kit::materialize::TempTree) of the process.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::Duration;

use lawsuite::kit::materialize::remove_live_trees;
use lawsuite::protocol::client::stop_all_peers;
use lawsuite::ripgrep::process::stop_all_rg;
use tokio::signal::unix::{Signal, SignalKind, signal};

/// The exit status of an interrupted command (`128 + SIGINT`, as a shell
/// reports Ctrl-C), whichever of SIGINT and SIGTERM it was: the scripts
/// that check for an interrupted run look for one number.
pub const EXIT_CODE: u8 = 130;

/// How long the trials get to end once their peers are stopped, before
/// the run exits without them.
const AFTER_STOP: Duration = Duration::from_secs(3);

/// The phases of [`PHASE`].
const AT_ONCE: u8 = 0;
const TRIALS: u8 = 1;
const DONE: u8 = 2;

/// What an interrupt does now: [`AT_ONCE`] until `run` hands out trials.
static PHASE: AtomicU8 = AtomicU8::new(AT_ONCE);

/// Set by the first interrupt of a run's trials: hand out no more.
static CANCEL: AtomicBool = AtomicBool::new(false);

/// Set when [`exit_now`] begins: the command's own ending (an error from
/// a peer just stopped, a tree refused) must not win the race to exit.
static EXITING: AtomicBool = AtomicBool::new(false);

/// Called by `main` before it exits: when an interrupt is ending the
/// command, wait for it to exit (with [`EXIT_CODE`]) instead, so the
/// status does not depend on which thread gets there first (`record`
/// exited 2 with "no tree is written now").
pub fn yield_to_exit() {
    if EXITING.load(Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
}

/// Start listening for SIGINT and SIGTERM (once; later calls do nothing).
///
/// The signals are registered before this returns, so a signal that
/// arrives while the command starts its first peer is already ours.
///
/// After the first signal, running trials get `grace` to end (the run's
/// [`Config::interrupt_grace`](lawsuite::conformance::config::Config::interrupt_grace))
/// before their peers are stopped.
pub fn listen(grace: Duration) {
    static LISTENING: std::sync::Once = std::sync::Once::new();
    LISTENING.call_once(|| {
        if let Err(e) = start(grace) {
            eprintln!(
                "warning: cannot listen for interrupts ({e}); an interrupted command may leave peers running and temporary trees behind"
            );
        }
    });
}

fn start(grace: Duration) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()?;
    let signals = {
        let _context = runtime.enter();
        Signals {
            int: signal(SignalKind::interrupt())?,
            term: signal(SignalKind::terminate())?,
        }
    };
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || runtime.block_on(handle(signals, grace)))?;
    Ok(())
}

/// SIGINT and SIGTERM, registered.
struct Signals {
    int: Signal,
    term: Signal,
}

impl Signals {
    /// The next one of either.
    async fn next(&mut self) {
        tokio::select! {
            _ = self.int.recv() => {}
            _ = self.term.recv() => {}
        }
    }
}

async fn handle(mut signals: Signals, grace: Duration) {
    signals.next().await;
    match PHASE.load(Ordering::SeqCst) {
        AT_ONCE => {
            eprintln!("\ninterrupted: stopping the peers and removing the temporary trees");
            exit_now();
        }
        DONE => {
            CANCEL.store(true, Ordering::SeqCst);
            eprintln!(
                "\ninterrupted: writing the reports and stopping the peers (again to exit at once)"
            );
            signals.next().await;
            eprintln!("interrupted again: stopping the peers, removing the trees, exiting now");
            exit_now();
        }
        _ => {}
    }
    eprintln!(
        "\ninterrupted: finishing the running trials (at most {:.0} s), then removing their trees and stopping the peers (again to exit at once)",
        grace.as_secs_f64()
    );
    CANCEL.store(true, Ordering::SeqCst);
    let again = tokio::select! {
        _ = signals.next() => true,
        _ = tokio::time::sleep(grace) => false,
    };
    if again {
        eprintln!("interrupted again: stopping the peers, removing the trees, exiting now");
        exit_now();
    }
    if PHASE.load(Ordering::SeqCst) == DONE {
        // The run ends by itself from here; an expired grace must not cut
        // its reports short.
        signals.next().await;
        exit_now();
    }
    eprintln!(
        "trials still running after {:.0} s: stopping their peers",
        grace.as_secs_f64()
    );
    stop_all_peers(Duration::from_millis(500));
    stop_all_rg();
    tokio::select! {
        _ = signals.next() => {}
        _ = tokio::time::sleep(AFTER_STOP) => {}
    }
    if PHASE.load(Ordering::SeqCst) == DONE {
        signals.next().await;
        exit_now();
    }
    eprintln!("trials still running: removing their trees, exiting now");
    exit_now();
}

/// Enter `run`'s trial phase, and return the flag the first interrupt
/// sets: the engine hands out no trial after it. (`run` listens from
/// its start, [`listen`].)
pub fn during_trials() -> &'static AtomicBool {
    PHASE.store(TRIALS, Ordering::SeqCst);
    &CANCEL
}

/// Leave `run`'s trial phase: the engine has returned, and what is left
/// (reports, shutting the peers down) ends by itself.
pub fn trials_done() {
    PHASE.store(DONE, Ordering::SeqCst);
}

/// Whether an interrupt stopped the run's trials.
pub fn was_interrupted() -> bool {
    CANCEL.load(Ordering::SeqCst)
}

/// End every peer's process group, remove every temporary tree still
/// there, and exit: the threads still waiting on peers or holding trees
/// will not run their drops.
fn exit_now() -> ! {
    EXITING.store(true, Ordering::SeqCst);
    let peers = stop_all_peers(Duration::ZERO) + stop_all_rg();
    let trees = remove_live_trees();
    eprintln!("stopped {peers} peer process group(s) and removed {trees} temporary tree(s)");
    std::process::exit(i32::from(EXIT_CODE));
}
