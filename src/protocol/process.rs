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

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;

use super::MAX_LINE_BYTES;
use super::fault::{Failure, FaultKind, StartError};
use super::framing::{self, CappedLine, Line, Overlong, read_line_async};
use super::messages::Request;
use super::stderr::HeadTail;

use super::{DEFAULT_CALL_TIMEOUT, DEFAULT_HANDSHAKE_TIMEOUT};

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

/// How to run one external peer (the registry's `command`, `cwd`, `env`,
/// `timeout_ms`, plus limits tests may tighten).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerConfig {
    /// The registered name.
    pub name: String,
    /// The program and its arguments.
    pub command: Vec<String>,
    /// The working directory (default: the harness's).
    pub cwd: Option<PathBuf>,
    /// Extra environment variables.
    pub env: BTreeMap<String, String>,
    /// The per-call timeout.
    pub timeout: Duration,
    /// How long the process may take to start and answer `initialize`.
    pub handshake_timeout: Duration,
    /// The longest response line accepted.
    pub max_line_bytes: usize,
    /// How much of stderr is kept: its first and its last half of this
    /// many bytes, so a reason printed first (V8, the JVM) or last
    /// (Python) survives a long stack or a chatty log.
    pub stderr_tail_bytes: usize,
    /// Restart spacing.
    pub backoff: Backoff,
}

impl PeerConfig {
    /// A configuration with the defaults: 10 s per call, 60 s for the
    /// handshake, 64 MiB lines, 4 KiB of stderr, the default back-off.
    pub fn new<S: Into<String>>(
        name: impl Into<String>,
        command: impl IntoIterator<Item = S>,
    ) -> PeerConfig {
        PeerConfig {
            name: name.into(),
            command: command.into_iter().map(Into::into).collect(),
            cwd: None,
            env: BTreeMap::new(),
            timeout: DEFAULT_CALL_TIMEOUT,
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
            max_line_bytes: MAX_LINE_BYTES,
            stderr_tail_bytes: 4096,
            backoff: Backoff::default(),
        }
    }
}

/// A running peer process.
pub(super) struct Process {
    pub(super) child: Child,
    pub(super) stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    stderr: Arc<Mutex<HeadTail>>,
    stderr_task: Option<JoinHandle<()>>,
    pub(super) pid: Option<u32>,
}

impl Process {
    /// Start the peer's program of `config` with piped stdin and stdout, in
    /// a process group of its own, its stderr drained into a head+tail.
    pub(super) fn spawn(config: &PeerConfig, runtime: &Runtime) -> Result<Process, StartError> {
        let _guard = runtime.enter();
        let mut command = Command::new(&config.command[0]);
        command
            .args(&config.command[1..])
            .envs(&config.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        // A group of its own (its id is the peer's pid), so that ending the
        // peer can end what it started: killing the child alone left a
        // launcher's background processes running, reparented to init.
        #[cfg(unix)]
        command.process_group(0);
        if let Some(cwd) = &config.cwd {
            command.current_dir(cwd);
        }
        let mut child = command.spawn().map_err(|source| StartError::Spawn {
            command: config.command.join(" "),
            source,
        })?;
        let (Some(stdin), Some(stdout), Some(mut stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(StartError::Pipes);
        };
        let tail = Arc::new(Mutex::new(HeadTail::new(config.stderr_tail_bytes)));
        let sink = tail.clone();
        let stderr_task = runtime.spawn(async move {
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

    /// End the process (asked first unless `kill`), its group too, and
    /// return its exit status and the stderr head+tail.
    pub(super) fn reap(mut self, runtime: &Runtime, kill: bool) -> (Option<String>, String) {
        let process = &mut self;
        let status = runtime.block_on(async {
            process.stdin = None;
            if !kill
                && let Ok(Ok(status)) =
                    tokio::time::timeout(Duration::from_millis(500), process.child.wait()).await
            {
                return Some(status);
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
            let _ = runtime
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

/// How many times a `kill` helper that died of a signal is run again.
#[cfg(unix)]
const KILL_ATTEMPTS: u32 = 3;

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
        use std::os::unix::process::CommandExt;
        use std::os::unix::process::ExitStatusExt;
        // `timeout` sends its SIGTERM to the harness's whole group as well
        // as to the harness, and a `kill` started in between died of it (1
        // in 10 interrupted commands left their peer running): the helper
        // runs in a group of its own, and one that was killed before it
        // got there is run again (the group signal comes once).
        for _ in 0..KILL_ATTEMPTS {
            let status = std::process::Command::new("kill")
                .process_group(0)
                .args([sig, "--", &group])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            match status {
                Ok(status) if status.signal().is_some() => continue,
                Ok(status) => return status.success(),
                Err(_) => return false,
            }
        }
        false
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
    #[cfg(unix)]
    {
        // Set under the lock a starting peer holds (`ensure_running`), so
        // no group is started after the list is taken.
        let groups: Vec<u32> = {
            let live = live_groups();
            STOPPING.store(true, std::sync::atomic::Ordering::SeqCst);
            live.iter().copied().collect()
        };
        for &pgid in &groups {
            end_group(pgid, grace);
        }
        groups.len()
    }
    #[cfg(not(unix))]
    {
        STOPPING.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = grace;
        0
    }
}
