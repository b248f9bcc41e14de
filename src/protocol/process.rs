//! A peer's child process, from its start to its end: spawned in a
//! process group of its own, its stderr drained into a bounded
//! [`HeadTail`], spoken to one request line and one response line at a
//! time (its exit seen while an answer is awaited), its faults logged and
//! its restarts spaced by a [`Backoff`], and reaped with whatever it left
//! in its group.
//!
//! # Process groups
//!
//! Ending one peer's group when the peer ends, and every peer's at once
//! when a run must stop now.
//!
//! Each external peer runs in a process group of its own (its id is the
//! peer's pid), so a launcher's background children (`sh -c 'helper &
//! exec peer'`) end with it. The groups of the peers running now are kept
//! here, so an interrupted run can end them all ([`stop_all_peers`]).

use std::process::Stdio;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::task::JoinHandle;

use super::client::{ExternalPeer, State, check_handshake, handshake_error};
use super::fault::{Failure, Fault, FaultKind};
use super::framing::{self, CappedLine, Line, Overlong, read_line_async};
use super::messages::{InitializeParams, Request};
use super::stderr::HeadTail;
use super::{PROTOCOL, method};

/// How restarts are spaced and when they stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    /// The wait before the first restart.
    pub first: Duration,
    /// The longest wait; each fault in a row doubles it up to this.
    pub max: Duration,
    /// After this many faults in a row, stop restarting.
    pub give_up_after: u32,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            first: Duration::from_millis(50),
            max: Duration::from_secs(2),
            give_up_after: 5,
        }
    }
}

impl Backoff {
    /// The wait before restarting after `in_a_row` faults (≥ 1).
    ///
    /// ```
    /// use std::time::Duration;
    /// use lawsuite::protocol::client::Backoff;
    /// let b = Backoff::default();
    /// assert_eq!(b.delay(1), Duration::from_millis(50));
    /// assert_eq!(b.delay(3), Duration::from_millis(200));
    /// assert_eq!(b.delay(40), Duration::from_secs(2));
    /// ```
    pub fn delay(&self, in_a_row: u32) -> Duration {
        let doublings = in_a_row.saturating_sub(1).min(20);
        self.first.saturating_mul(1 << doublings).min(self.max)
    }
}

/// A running peer process.
pub(super) struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    stderr: Arc<Mutex<HeadTail>>,
    stderr_task: Option<JoinHandle<()>>,
    pub(super) pid: Option<u32>,
}

impl ExternalPeer {
    /// Ask the process to exit (`shutdown`, then end of stdin), and kill and
    /// reap it if it has not within a second. The next call starts a new one.
    pub fn shutdown(&self) {
        let mut state = self.lock();
        let Some(mut process) = state.process.take() else {
            return;
        };
        let id = state.next_id;
        state.next_id += 1;
        let grace = self.config.timeout.min(Duration::from_secs(1));
        self.runtime.block_on(async {
            let request = Request::new(id, method::SHUTDOWN, Value::Null);
            let _ = tokio::time::timeout(grace, exchange(&mut process, &request, 4096)).await;
            process.stdin = None;
            let _ = tokio::time::timeout(grace, process.child.wait()).await;
        });
        self.reap(process, true);
    }

    /// Start and handshake a process unless one is running.
    pub(super) fn ensure_running(&self, state: &mut State) -> Result<(), Fault> {
        if state.process.is_some() {
            return Ok(());
        }
        if let Some(stopped) = &state.stopped {
            return Err(stopped.clone());
        }
        if STOPPING.load(std::sync::atomic::Ordering::Relaxed) {
            let message = "the run is stopping: no peer is started again".to_string();
            return Err(self.fault(FaultKind::Crash, method::INITIALIZE, message));
        }
        if let Some(at) = state.restart_at.take() {
            std::thread::sleep(at.saturating_duration_since(Instant::now()));
        }
        let process = match self.spawn() {
            Ok(p) => p,
            Err(message) => {
                let fault = self.fault(FaultKind::Crash, method::INITIALIZE, message);
                return Err(self.record(state, fault));
            }
        };
        if let Some(pid) = process.pid {
            state.spawned.push(pid);
            #[cfg(unix)]
            live_groups().insert(pid);
        }
        state.process = Some(process);
        let params =
            serde_json::to_value(InitializeParams { protocol: PROTOCOL }).unwrap_or(Value::Null);
        let checked =
            self.exchange(state, method::INITIALIZE, params)
                .and_then(|reply| match reply.parse()? {
                    Ok(raw) => check_handshake(raw),
                    Err(error) => Err(handshake_error(&error)),
                });
        match checked {
            Ok(handshake) => {
                state.handshake = Some(handshake);
                Ok(())
            }
            Err(failure) => Err(self.fail(state, method::INITIALIZE, failure)),
        }
    }

    fn spawn(&self) -> Result<Process, String> {
        let _guard = self.runtime.enter();
        let mut command = Command::new(&self.config.command[0]);
        command
            .args(&self.config.command[1..])
            .envs(&self.config.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        // A group of its own (its id is the peer's pid), so that ending the
        // peer can end what it started: killing the child alone left a
        // launcher's background processes running, reparented to init.
        #[cfg(unix)]
        command.process_group(0);
        if let Some(cwd) = &self.config.cwd {
            command.current_dir(cwd);
        }
        let mut child = command
            .spawn()
            .map_err(|e| format!("could not start {:?}: {e}", self.config.command.join(" ")))?;
        let (Some(stdin), Some(stdout), Some(mut stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err("the child's pipes were not set up".to_string());
        };
        let tail = Arc::new(Mutex::new(HeadTail::new(self.config.stderr_tail_bytes)));
        let sink = tail.clone();
        let stderr_task = self.runtime.spawn(async move {
            let mut buf = vec![0u8; 8192];
            while let Ok(n) = stderr.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                if let Ok(mut t) = sink.lock() {
                    t.push(&buf[..n]);
                }
            }
        });
        Ok(Process {
            pid: child.id(),
            child,
            stdin: Some(stdin),
            stdout: BufReader::with_capacity(1 << 16, stdout),
            stderr: tail,
            stderr_task: Some(stderr_task),
        })
    }

    /// A fault of the running process: reap it, log the fault, schedule the
    /// restart, and return the fault.
    pub(super) fn fail(&self, state: &mut State, method: &str, (kind, message): Failure) -> Fault {
        let mut fault = self.fault(kind, method, message);
        if let Some(process) = state.process.take() {
            fault.pid = process.pid;
            // A crash: let the process finish dying so its status and last
            // words are known. Anything else: kill at once.
            let (status, tail) = self.reap(process, kind != FaultKind::Crash);
            if kind == FaultKind::Crash {
                if let Some(status) = status {
                    fault.message.push_str(&format!(" ({status})"));
                }
            }
            fault.stderr_tail = tail;
        }
        state.handshake = None;
        self.record(state, fault)
    }

    /// Log a fault and decide about restarting.
    fn record(&self, state: &mut State, fault: Fault) -> Fault {
        state.in_a_row += 1;
        log(state, fault.clone());
        let give_up = state.in_a_row >= self.config.backoff.give_up_after.max(1);
        if fault.kind == FaultKind::Incompatible || give_up {
            let mut stopped = fault.clone();
            if fault.kind != FaultKind::Incompatible {
                stopped.message = format!(
                    "not restarted after {} faults in a row; the last: {}",
                    state.in_a_row, fault.message
                );
            }
            state.stopped = Some(stopped);
        } else {
            state.restart_at = Some(Instant::now() + self.config.backoff.delay(state.in_a_row));
        }
        fault
    }

    /// Kill (when `kill`; otherwise wait briefly for an exit first) and
    /// reap the process; return how it ended and its stderr tail.
    fn reap(&self, mut process: Process, kill: bool) -> (Option<String>, String) {
        let status = self.runtime.block_on(async {
            process.stdin = None;
            if !kill {
                if let Ok(Ok(status)) =
                    tokio::time::timeout(Duration::from_millis(500), process.child.wait()).await
                {
                    return Some(status);
                }
            }
            let _ = process.child.start_kill();
            match tokio::time::timeout(Duration::from_secs(5), process.child.wait()).await {
                Ok(Ok(status)) => Some(status),
                _ => None,
            }
        });
        // Before waiting for stderr: a grandchild may hold the pipe open.
        #[cfg(unix)]
        if let Some(pgid) = process.pid {
            end_group(pgid, GROUP_GRACE);
            live_groups().remove(&pgid);
        }
        if let Some(task) = process.stderr_task.take() {
            // The pipe closes with the process (unless a grandchild holds
            // it): the tail is complete after this.
            let _ = self
                .runtime
                .block_on(async { tokio::time::timeout(Duration::from_millis(250), task).await });
        }
        let tail = process.stderr.lock().map(|t| t.text()).unwrap_or_default();
        let status = status.map(|s| match s.code() {
            Some(code) => format!("exit status {code}"),
            None => format!("{s}"),
        });
        (status, tail)
    }
}

/// How many faults the log keeps (the oldest are dropped; the count is kept).
const FAULT_LOG: usize = 256;

pub(super) fn log(state: &mut State, fault: Fault) {
    state.fault_count += 1;
    if state.faults.len() == FAULT_LOG {
        state.faults.pop_front();
    }
    state.faults.push_back(fault);
}

/// Write one request and read lines until its response line (blank lines
/// are skipped).
pub(super) async fn exchange(
    process: &mut Process,
    request: &Request,
    cap: usize,
) -> Result<Vec<u8>, Failure> {
    let line = framing::encode(request)
        .map_err(|e| (FaultKind::Crash, format!("cannot encode the request: {e}")))?;
    let Some(stdin) = process.stdin.as_mut() else {
        return Err((FaultKind::Crash, "its stdin is closed".to_string()));
    };
    let written = async {
        stdin.write_all(&line).await?;
        stdin.flush().await
    };
    if let Err(e) = written.await {
        return Err((
            FaultKind::Crash,
            format!("could not write the request to its stdin: {e}"),
        ));
    }
    loop {
        let mut bytes = Vec::new();
        match read_or_exit(process, &mut bytes, cap).await? {
            Err(e) => return Err((FaultKind::Crash, format!("reading its stdout failed: {e}"))),
            // A line the end of stdout cut off is no answer either.
            Ok(Line::Eof | Line::Unterminated) => {
                return Err((FaultKind::Crash, "closed its stdout".to_string()));
            }
            Ok(Line::TooLong) => {
                return Err((
                    FaultKind::ProtocolViolation,
                    format!("printed a line longer than {cap} bytes on stdout"),
                ));
            }
            Ok(Line::Complete) => {}
        }
        if bytes.iter().all(u8::is_ascii_whitespace) {
            continue; // blank lines are tolerated
        }
        return Ok(bytes);
    }
}

/// How long a line the process wrote before it exited may take to be read
/// after the exit is seen.
const LAST_WORDS: Duration = Duration::from_millis(200);

/// Read one line, or see the process exit first: a process it left behind
/// (`sh -c 'helper & exec peer'`, a runtime's worker) may hold stdout open,
/// and the end of the pipe would then come only with the timeout, as if the
/// peer were slow. The read is not abandoned when the exit is seen, so a
/// line written just before exiting is still read whole.
async fn read_or_exit(
    process: &mut Process,
    line: &mut Vec<u8>,
    cap: usize,
) -> Result<std::io::Result<Line>, Failure> {
    let Process { child, stdout, .. } = process;
    let read = read_line_async(stdout, line, CappedLine::new(cap, Overlong::Stop));
    tokio::pin!(read);
    tokio::select! {
        biased;
        line = &mut read => Ok(line),
        _ = child.wait() => match tokio::time::timeout(LAST_WORDS, read).await {
            Ok(line) => Ok(line),
            // The status is kept by the child and named with the fault.
            Err(_) => Err((
                FaultKind::Crash,
                "exited without answering (a process it left behind still holds its stdout)"
                    .to_string(),
            )),
        },
    }
}

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
