//! Running `rg`: locating the binary, batching targets, bounded capture,
//! the per-call deadline and the rejection rule (native-peer §1).

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::child;
use crate::contract::{ErrorCode, StdError};

/// `MAX_CAPTURE_BYTES` (native-peer §1): each stream of one invocation, and
/// the running total over batches, is bounded at 64 MiB.
pub const MAX_CAPTURE_BYTES: u64 = 67_108_864;

/// Batches start a new invocation at 256 targets (§1.1)...
const BATCH_TARGETS: usize = 256;
/// ...or when the batch's bytes (UTF-8 length + 1 per target) would pass 32,768.
const BATCH_BYTES: usize = 32_768;

/// The spec's message for a `rg` that cannot be started (§1).
pub const CANNOT_START: &str = "The native ripgrep implementation could not start rg";

/// How to get a suitable `rg`, appended to [`CANNOT_START`] for people.
pub const INSTALL_HINT: &str = "install ripgrep 14.1.1 or newer with `cargo install ripgrep --locked`, or point LAWSUITE_RG at an rg binary";

/// How long one call may keep `rg` running when nothing says otherwise
/// (`LAWSUITE_RG_TIMEOUT_MS`, [`RgOptions::timeout`]): 60 s.
///
/// native-peer §1 applies no timeout, and a call on a 1 GB matching line
/// then ran past 200 s. A minute is far beyond any search of the laws'
/// trees or the benchmark corpora (the largest takes under a second), so
/// it only ends a call that would otherwise hang a run.
pub const DEFAULT_RG_TIMEOUT: Duration = Duration::from_secs(60);

/// The address-space bound of each `rg` when nothing says otherwise
/// (`LAWSUITE_RG_MEMORY_MB`, [`RgOptions::memory_bound`]): 4 GiB.
///
/// native-peer §1 bounds what `rg` prints, not what it holds: a 1 GB line
/// of `a` searched for `aaa` took `rg` to 18.4 GB before its timeout. The
/// bound is on virtual memory (`ulimit -v`, `RLIMIT_AS`), which counts the
/// files `rg` maps as well as what it allocates, so it is set well above
/// any law's or corpus's need (the largest search maps under 100 MB).
pub const DEFAULT_MEMORY_MB: u64 = 4096;

/// How the `rg`-driven peers run `rg`: which program, how long one call
/// may take, and the memory bound of each `rg`. The defaults are `rg` on
/// `PATH`, [`DEFAULT_RG_TIMEOUT`] and [`DEFAULT_MEMORY_MB`]; a run's
/// [`Config`](crate::conformance::config::Config) overlays the
/// `LAWSUITE_RG*` variables on them ([`RgOptions::overlay`]). Nothing here
/// reads the environment.
///
/// ```
/// use std::time::Duration;
/// use lawsuite::environment::Environment;
/// use lawsuite::ripgrep::RgOptions;
///
/// let env = Environment::from_vars([("LAWSUITE_RG_MEMORY_MB", "0")])?;
/// let rg = RgOptions::default().overlay(&env).timeout(Duration::from_secs(5));
/// assert_eq!(rg.get_memory_bound(), None);
/// assert_eq!(rg.get_timeout(), Duration::from_secs(5));
/// assert_eq!(rg.get_program(), std::path::Path::new("rg"));
/// # Ok::<(), Vec<lawsuite::environment::EnvError>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RgOptions {
    program: PathBuf,
    timeout: Duration,
    memory_mb: Option<u64>,
}

impl Default for RgOptions {
    fn default() -> RgOptions {
        RgOptions {
            program: PathBuf::from("rg"),
            timeout: DEFAULT_RG_TIMEOUT,
            memory_mb: Some(DEFAULT_MEMORY_MB),
        }
    }
}

impl RgOptions {
    /// These options with what `env` sets (`LAWSUITE_RG`,
    /// `LAWSUITE_RG_TIMEOUT_MS`, `LAWSUITE_RG_MEMORY_MB`) put over them.
    pub fn overlay(mut self, env: &crate::environment::Environment) -> RgOptions {
        if let Some(program) = env.rg_program() {
            self.program = program.to_path_buf();
        }
        if let Some(timeout) = env.rg_timeout() {
            self.timeout = timeout;
        }
        if let Some(mb) = env.rg_memory_mb() {
            self.memory_mb = (mb > 0).then_some(mb);
        }
        self
    }

    /// Run the `rg` at `program` (a path, or a name looked up on `PATH`).
    pub fn program(mut self, program: impl Into<PathBuf>) -> RgOptions {
        self.program = program.into();
        self
    }

    /// Give each call `timeout`: a call whose `rg` invocations have not all
    /// ended by then kills and reaps the one running and fails with
    /// `provider_unavailable` (native-peer §1). The `rg --version` probe
    /// gets the same time ([`version_line`]).
    pub fn timeout(mut self, timeout: Duration) -> RgOptions {
        self.timeout = timeout;
        self
    }

    /// Bound each `rg`'s address space at `mb` MiB (`None`: no bound).
    pub fn memory_bound(mut self, mb: Option<u64>) -> RgOptions {
        self.memory_mb = mb.filter(|&mb| mb > 0);
        self
    }

    /// The program.
    pub fn get_program(&self) -> &Path {
        &self.program
    }

    /// The per-call timeout.
    pub fn get_timeout(&self) -> Duration {
        self.timeout
    }

    /// The per-`rg` address-space bound in MiB, if there is one.
    pub fn get_memory_bound(&self) -> Option<u64> {
        self.memory_mb
    }

    /// The command that runs the program itself, in a process group of
    /// its own (the private `child` module, which also sets the memory
    /// bound, [`RgOptions::memory_bytes`], as it starts it). It used to go
    /// through `/bin/sh -c 'ulimit -v …; exec rg'`: a shell for every `rg`.
    fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        child::configure(&mut command);
        command
    }

    /// The per-`rg` address-space bound in bytes, if there is one.
    fn memory_bytes(&self) -> Option<u64> {
        self.memory_mb.map(|mb| mb.saturating_mul(1024 * 1024))
    }
}

/// End every `rg` lawsuite runs now, each with its process group, and
/// start none again: what an interrupted `lawsuite` does on its way out
/// (`rg` runs in a group of its own, so a terminal's Ctrl-C does not reach
/// it). Returns how many were ended.
pub fn stop_all_rg() -> usize {
    child::stop_all()
}

/// The result of one or more invocations, combined (§1.1).
#[derive(Debug, Default)]
pub struct Output {
    /// Highest exit code of the batches.
    pub code: i32,
    /// Concatenated stdout.
    pub stdout: Vec<u8>,
    /// Concatenated stderr.
    pub stderr: Vec<u8>,
}

impl Output {
    /// The rejection rule (§1.2): exit code > 1 **and** non-blank stderr; the
    /// exit status alone is not trusted.
    pub fn rejection(&self) -> Option<String> {
        let text = String::from_utf8_lossy(&self.stderr);
        let trimmed = text.trim();
        (self.code > 1 && !trimmed.is_empty()).then(|| trimmed.to_string())
    }
}

/// Split targets into batches (§1.1), preserving order.
pub fn batches(targets: &[String]) -> Vec<&[String]> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut bytes = 0;
    for (i, target) in targets.iter().enumerate() {
        let size = target.len() + 1;
        let count = i - start;
        if count > 0 && (count >= BATCH_TARGETS || bytes + size > BATCH_BYTES) {
            out.push(&targets[start..i]);
            start = i;
            bytes = 0;
        }
        bytes += size;
    }
    if start < targets.len() {
        out.push(&targets[start..]);
    }
    out
}

/// Run `rg args -- ...` over every batch of `targets` in `cwd` (§1.1):
/// sequential batches, stop at the first rejection, aggregate bound checks.
/// Zero targets spawn nothing and synthesise an empty result.
///
/// Every invocation must end by `deadline`; one still running then is
/// killed and reaped, and the call fails as native-peer §1 says of a
/// timeout: `provider_unavailable`, [`CANNOT_START`].
pub fn run_batched(
    rg: &RgOptions,
    cwd: &Path,
    args: &[&str],
    targets: &[String],
    deadline: Instant,
) -> Result<Output, StdError> {
    if targets.is_empty() {
        let mut out = Output::default();
        if args.contains(&"--json") {
            out.stdout = b"{\"type\":\"summary\",\"data\":{\"stats\":{\"searches\":0}}}\n".to_vec();
        }
        return Ok(out);
    }
    let mut total = Output::default();
    for batch in batches(targets) {
        let one = run_once(rg, cwd, args, batch, deadline)?;
        if one.rejection().is_some() {
            return Ok(one);
        }
        total.code = total.code.max(one.code);
        total.stdout.extend_from_slice(&one.stdout);
        total.stderr.extend_from_slice(&one.stderr);
        for (name, len) in [
            ("stdout", total.stdout.len()),
            ("stderr", total.stderr.len()),
        ] {
            if len as u64 > MAX_CAPTURE_BYTES {
                // The aggregate message has no "; refusing partial output".
                return Err(StdError::new(
                    ErrorCode::CommandFailed,
                    format!("rg {name} exceeded the {MAX_CAPTURE_BYTES}-byte capture cap"),
                ));
            }
        }
    }
    Ok(total)
}

/// Which captured stream a reader thread reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stream {
    Stdout,
    Stderr,
}

/// One invocation with both streams captured concurrently, each bounded,
/// until `deadline`. On overflow or past the deadline the child is killed
/// (the answer is already decided: a refusal) and reaped, so no zombie is
/// left behind.
fn run_once(
    rg: &RgOptions,
    cwd: &Path,
    args: &[&str],
    batch: &[String],
    deadline: Instant,
) -> Result<Output, StdError> {
    let mut argv: Vec<OsString> = args.iter().map(OsString::from).collect();
    argv.extend(batch.iter().map(OsString::from));
    let mut command = rg.command();
    command
        .args(&argv)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut rg_child = child::spawn(&mut command, rg.memory_bytes()).map_err(|_| cannot_start())?;
    let child = rg_child.child();
    // Readers on their own threads report over a channel, so the wait for
    // them can end at the deadline; a reader left behind ends when the
    // killed child's pipe closes.
    let (tx, rx) = mpsc::channel();
    // `None` until its reader reports; a stream with no pipe is empty.
    let mut stdout = None;
    let mut stderr = None;
    match child.stdout.take() {
        Some(out) => spawn_reader(Stream::Stdout, out, tx.clone()),
        None => stdout = Some(Ok(Vec::new())),
    }
    match child.stderr.take() {
        Some(err) => spawn_reader(Stream::Stderr, err, tx.clone()),
        None => stderr = Some(Ok(Vec::new())),
    }
    drop(tx);
    while stdout.is_none() || stderr.is_none() {
        let wait = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(wait) {
            Ok((Stream::Stdout, captured)) => stdout = Some(captured),
            Ok((Stream::Stderr, captured)) => stderr = Some(captured),
            // A reader died without reporting: its stream counts as lost.
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                // SIGKILL to its group, so `wait` returns at once and
                // reaps it.
                rg_child.kill();
                let _ = rg_child.wait();
                return Err(timed_out());
            }
        }
        if matches!(stdout, Some(Err(_))) || matches!(stderr, Some(Err(_))) {
            // Overflowed: stop a child that is still writing; the other
            // reader then sees the end.
            rg_child.kill();
        }
    }
    let stdout = stdout.unwrap_or(Err(Overflow));
    let stderr = stderr.unwrap_or(Err(Overflow));
    let status = rg_child.wait().map_err(|_| cannot_start())?;
    if child::stopping() {
        // Ended by `stop_all_rg`: what it printed is no answer.
        return Err(StdError::new(
            ErrorCode::ProviderUnavailable,
            format!("{CANNOT_START}: lawsuite is stopping, and ended it"),
        ));
    }
    let (stdout, stderr) = match (stdout, stderr) {
        (Ok(out), Ok(err)) => (out, err),
        (out, err) => {
            let which = match (out.is_err(), err.is_err()) {
                (true, true) => "stdout and stderr",
                (true, false) => "stdout",
                _ => "stderr",
            };
            return Err(StdError::new(
                ErrorCode::CommandFailed,
                format!(
                    "rg {which} exceeded the {MAX_CAPTURE_BYTES}-byte capture cap; refusing partial output"
                ),
            ));
        }
    };
    #[cfg(unix)]
    if let Some(why) = rg
        .memory_mb
        .and_then(|mb| out_of_memory(mb, &status, &stderr))
    {
        return Err(StdError::new(ErrorCode::CommandFailed, why));
    }
    Ok(Output {
        // A signal has no code; treat it as a failure code above 1 so its
        // stderr (if any) is a rejection.
        code: status.code().unwrap_or(128),
        stdout,
        stderr,
    })
}

/// Overflowed: more than the cap arrived.
#[derive(Debug)]
struct Overflow;

/// Reads `stream` to its end (bounded) on a thread of its own and sends the
/// result; a send after the receiver gave up is ignored.
fn spawn_reader<R: Read + Send + 'static>(
    which: Stream,
    stream: R,
    tx: mpsc::Sender<(Stream, Result<Vec<u8>, Overflow>)>,
) {
    std::thread::spawn(move || {
        let _ = tx.send((which, read_bounded(stream)));
    });
}

fn read_bounded<R: Read>(stream: R) -> Result<Vec<u8>, Overflow> {
    let mut buf = Vec::new();
    // Read one byte past the cap to tell "exactly the cap" from "over it".
    match stream.take(MAX_CAPTURE_BYTES + 1).read_to_end(&mut buf) {
        Ok(_) if buf.len() as u64 > MAX_CAPTURE_BYTES => Err(Overflow),
        Ok(_) => Ok(buf),
        // A broken pipe mid-read leaves what arrived; the JSON parser decides.
        Err(_) => Ok(buf),
    }
}

/// A call past its deadline: `provider_unavailable` and the spec's message
/// (native-peer §1: "including a timeout"), followed by what happened, so
/// a person reads a timeout as one and not as a missing `rg`.
fn timed_out() -> StdError {
    // The deadline is the whole call's (its walk and every batch), so the
    // time this one `rg` ran says nothing: it once read "after 0 ms".
    StdError::new(
        ErrorCode::ProviderUnavailable,
        format!(
            "{CANNOT_START}: rg was still running at the call's deadline and was killed (LAWSUITE_RG_TIMEOUT_MS sets how long a call may take, {} ms by default)",
            DEFAULT_RG_TIMEOUT.as_millis()
        ),
    )
}

/// Why an `rg` that ended this way ran out of its memory bound, if it did:
/// Rust's allocator aborts with "memory allocation of N bytes failed".
#[cfg(unix)]
fn out_of_memory(mb: u64, status: &std::process::ExitStatus, stderr: &[u8]) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    let said = String::from_utf8_lossy(stderr);
    let failed = said
        .lines()
        .find(|l| l.contains("memory allocation of") && l.contains("failed"));
    // SIGABRT (6): what the allocator does after saying so.
    match (status.signal(), failed) {
        (Some(6), Some(line)) | (None, Some(line)) => Some(format!(
            "rg ran out of its {mb} MiB memory bound ({}); LAWSUITE_RG_MEMORY_MB sets another",
            line.trim()
        )),
        _ => None,
    }
}

/// `provider_unavailable` with the spec's message.
pub fn cannot_start() -> StdError {
    StdError::new(ErrorCode::ProviderUnavailable, CANNOT_START)
}

/// The most bytes of `rg --version`'s first line the probe reads
/// ([`version_line`]): 1 KiB.
///
/// `parse_version` needs only that line, `ripgrep` and a version, and
/// ripgrep's is short (`ripgrep 15.2.0 (rev 4649aa9700)`, 31 bytes; the
/// feature lists come on later lines). A first line 30 times longer is
/// not ripgrep's, and reading on would let a program that prints without
/// end (`yes`) fill memory: the probe once held 3.08 GB of it.
pub const VERSION_LINE_BYTES: usize = 1024;

/// What the `--version` probe found, when it found no first line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeFailure {
    /// No first line before the deadline: the program and its process
    /// group were killed.
    TimedOut,
    /// The first line is longer than [`VERSION_LINE_BYTES`].
    TooLong,
}

/// The first line `program --version` prints (without its line end, at
/// most [`VERSION_LINE_BYTES`] bytes), read until `timeout`.
///
/// The program runs in a process group of its own, so that one that does
/// not answer by the deadline is killed with whatever it started (a
/// wrapper script's `sleep` too), and reaped. Only the first line is
/// read: once it is there, the pipe is closed, so a program that goes on
/// printing ends on `SIGPIPE`; one that still has not exited at the
/// deadline is killed the same way.
///
/// # Errors
///
/// The OS's error when the program cannot be started, else `Ok` with
/// what it found: the line, or a [`ProbeFailure`].
pub fn version_line(
    program: &Path,
    timeout: Duration,
) -> std::io::Result<Result<String, ProbeFailure>> {
    let started = Instant::now();
    let deadline = started
        .checked_add(timeout)
        .unwrap_or(started + DEFAULT_RG_TIMEOUT);
    let mut command = Command::new(program);
    child::configure(&mut command);
    command
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut rg_child = child::spawn(&mut command, None)?;
    let (tx, rx) = mpsc::channel();
    if let Some(stdout) = rg_child.child().stdout.take() {
        // On a thread, so the wait for it can end at the deadline; it ends
        // when the pipe closes (the killed group's end) or at the line.
        std::thread::spawn(move || {
            let _ = tx.send(first_line(stdout));
        });
    }
    let wait = deadline.saturating_duration_since(Instant::now());
    let found = match rx.recv_timeout(wait) {
        Ok(line) => line,
        // No pipe (it cannot happen with `Stdio::piped`): no line.
        Err(mpsc::RecvTimeoutError::Disconnected) => Ok(String::new()),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(ProbeFailure::TimedOut),
    };
    // The line is read and its pipe closed: give the program until the
    // deadline to exit, then end its group.
    let exited = loop {
        match rg_child.child().try_wait() {
            Ok(Some(_)) => break true,
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5));
            }
            _ => break false,
        }
    };
    if !exited {
        rg_child.kill();
    }
    let _ = rg_child.wait();
    Ok(found)
}

/// The first line of `stream`, without its line end; `TooLong` past
/// [`VERSION_LINE_BYTES`]. Never reads more than that and one byte.
fn first_line<R: Read>(stream: R) -> Result<String, ProbeFailure> {
    let mut line = Vec::new();
    let mut reader = std::io::BufReader::new(stream.take(VERSION_LINE_BYTES as u64 + 1));
    // A read error mid-line leaves what arrived; the parser decides.
    let _ = std::io::BufRead::read_until(&mut reader, b'\n', &mut line);
    if line.last() == Some(&b'\n') {
        line.pop();
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if line.len() > VERSION_LINE_BYTES {
        return Err(ProbeFailure::TooLong);
    }
    Ok(String::from_utf8_lossy(&line).into_owned())
}

/// SIGKILL to `child`'s process group (its id is the child's pid, as for
/// every child started in a group of its own): what the `git` peer ends
/// its git with at a deadline.
pub(crate) fn kill_group(child: &std::process::Child) {
    child::kill_group(child.id());
}

/// Parse `rg --version`'s first line, e.g. `ripgrep 15.2.0 (rev ...)`.
pub fn parse_version(text: &str) -> Option<(u64, u64, u64)> {
    let word = text.lines().next()?.split_whitespace().nth(1)?;
    let mut parts = word.split(['.', '-']).map(|p| p.parse::<u64>().ok());
    Some((
        parts.next()??,
        parts.next()??,
        parts.next().flatten().unwrap_or(0),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batching_rules() {
        let short: Vec<String> = (0..257).map(|i| format!("f{i}")).collect();
        assert_eq!(
            batches(&short).iter().map(|b| b.len()).collect::<Vec<_>>(),
            [256, 1]
        );
        let long: Vec<String> = (0..180).map(|i| format!("{i:0>207}")).collect();
        let b = batches(&long);
        assert_eq!(b.len(), 2);
        assert_eq!(b.concat(), long);
        let huge = vec!["x".repeat(40_000), "y".into()];
        assert_eq!(batches(&huge).len(), 2);
        assert!(batches(&[]).is_empty());
    }

    #[test]
    fn rejection_needs_code_and_stderr() {
        let out = |code, err: &str| Output {
            code,
            stdout: vec![],
            stderr: err.as_bytes().to_vec(),
        };
        assert_eq!(
            out(2, "  binary detector failed\n").rejection().as_deref(),
            Some("binary detector failed")
        );
        assert_eq!(out(2, "").rejection(), None);
        assert_eq!(out(1, "x").rejection(), None);
    }

    /// A fake `rg` that answers `--version` and otherwise writes its pid and
    /// hangs: past the deadline the call fails as native-peer §1 says and
    /// the process is gone (killed and reaped), not left running or a zombie.
    #[cfg(unix)]
    #[test]
    fn a_hanging_rg_is_killed_and_reaped_at_the_deadline() {
        use std::os::unix::fs::PermissionsExt;

        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let script = dir.path().join("rg");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'ripgrep 15.2.0'; exit 0; fi\necho $$ > {}\nexec sleep 600\n",
                pid_file.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(dir.path().join("a.txt"), "needle\n").unwrap();

        // Long enough for the script to start and write its pid on a loaded
        // machine; the point is what happens at the deadline, not when.
        let deadline = Instant::now() + Duration::from_secs(2);
        let err = run_batched(
            &RgOptions::default().program(&script),
            dir.path(),
            &["--files"],
            &["a.txt".into()],
            deadline,
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::ProviderUnavailable);
        // The spec's message first, then the timeout said as one.
        assert!(
            err.message.starts_with(CANNOT_START)
                && err.message.contains("still running at the call's deadline"),
            "{}",
            err.message
        );
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        let proc_dir = Path::new("/proc").join(pid.trim());
        assert!(!proc_dir.exists(), "rg {} is still there", pid.trim());

        // The same through the peer, with its timeout set.
        std::fs::remove_file(&pid_file).unwrap();
        let peer = crate::ripgrep::Ripgrep::new(&script).with_timeout(Duration::from_secs(2));
        let input = crate::contract::GlobInput::new("*.txt", dir.path().to_string_lossy());
        let err = crate::peer::Search::glob(&peer, &input).unwrap_err();
        assert_eq!(err.code, ErrorCode::ProviderUnavailable);
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        assert!(!Path::new("/proc").join(pid.trim()).exists());
    }

    /// A fake `rg` in a fresh temp dir: `body` after `#!/bin/sh`.
    #[cfg(unix)]
    fn fake_rg(body: &str) -> (tempfile::TempDir, PathBuf) {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("rg");
        std::fs::write(&script, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        (dir, script)
    }

    /// Both `rg` peers, started as a run starts them, with `rg` at
    /// `program` and a `timeout` per call: the reason each cannot run.
    fn unavailable(program: &Path, timeout: Duration) -> Vec<String> {
        use crate::registry::{Builtin, PeerOptions, start};
        let options =
            PeerOptions::default().rg(RgOptions::default().program(program).timeout(timeout));
        [Builtin::Ripgrep, Builtin::RipgrepWalk]
            .into_iter()
            .map(|b| match start(b, &options) {
                Ok(_) => panic!("{b:?} runs with {}", program.display()),
                Err(why) => why.to_string(),
            })
            .collect()
    }

    /// An `rg` that never answers `--version` (here: a script whose
    /// background `sleep` holds the pipe open) is killed at the probe's
    /// deadline, its whole process group with it, and both `rg` peers are
    /// unavailable, saying why. The probe used to wait for it for good.
    #[cfg(unix)]
    #[test]
    fn a_version_probe_that_never_answers_is_killed_at_its_deadline() {
        let pids = tempfile::tempdir().unwrap();
        let pid = pids.path().join("pid");
        let (_dir, script) = fake_rg(&format!("sleep 600 &\necho $! > {}\nwait", pid.display()));
        for why in unavailable(&script, Duration::from_millis(300)) {
            assert!(
                why.contains(&format!(
                    "`{} --version` printed no version line within 300 ms and was killed",
                    script.display()
                )) && why.contains("LAWSUITE_RG_TIMEOUT_MS"),
                "{why}"
            );
        }
        // Killed: gone, or a zombie its new parent has not reaped yet. A
        // SIGKILL is delivered when the process is next scheduled, which
        // on a loaded machine can be a moment after `kill` returns: the
        // state is read until it is dead, for at most a few seconds (a
        // process that was never signalled stays asleep for 600).
        let pid = std::fs::read_to_string(&pid).unwrap();
        let state_now = || {
            let stat = std::fs::read_to_string(Path::new("/proc").join(pid.trim()).join("stat"));
            stat.ok().and_then(|s| {
                let after = s.rsplit_once(')')?.1.trim_start().chars().next()?;
                Some(after)
            })
        };
        let mut state = state_now();
        for _ in 0..50 {
            if matches!(state, None | Some('Z' | 'X')) {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
            state = state_now();
        }
        assert!(
            matches!(state, None | Some('Z' | 'X')),
            "the probe's background sleep {} is still running ({state:?})",
            pid.trim()
        );
    }

    /// An `rg` that prints without end is read for its first line only:
    /// `yes` says no version; `yes 'ripgrep 15.2.0'` is a version (and is
    /// stopped by its closed pipe); a first line without end is one past
    /// `VERSION_LINE_BYTES`. The probe used to read all of it (3.08 GB).
    #[cfg(unix)]
    #[test]
    fn a_version_probe_reads_one_bounded_line_of_an_endless_output() {
        let (_dir, yes) = fake_rg("exec yes");
        for why in unavailable(&yes, DEFAULT_RG_TIMEOUT) {
            assert!(
                why.contains(&format!(
                    "`{} --version` printed no ripgrep version",
                    yes.display()
                )),
                "{why}"
            );
        }
        let (_dir, versions) = fake_rg("exec yes 'ripgrep 15.2.0'");
        assert_eq!(
            version_line(&versions, DEFAULT_RG_TIMEOUT).unwrap(),
            Ok("ripgrep 15.2.0".to_string())
        );
        let (_dir, endless) = fake_rg("exec tr '\\000' x < /dev/zero");
        assert_eq!(
            version_line(&endless, DEFAULT_RG_TIMEOUT).unwrap(),
            Err(ProbeFailure::TooLong)
        );
        assert_eq!(unavailable(&endless, DEFAULT_RG_TIMEOUT).len(), 2);
    }

    /// A first line of exactly `VERSION_LINE_BYTES` is read and parsed; one
    /// byte more is not a version line.
    #[cfg(unix)]
    #[test]
    fn the_version_line_bound_on_both_sides() {
        for (extra, fits) in [(0, true), (1, false)] {
            let head = "ripgrep 15.2.0 ";
            let line = format!(
                "{head}{}",
                "x".repeat(VERSION_LINE_BYTES - head.len() + extra)
            );
            let (_dir, script) = fake_rg(&format!("echo '{line}'"));
            let found = version_line(&script, DEFAULT_RG_TIMEOUT).unwrap();
            if fits {
                assert_eq!(found.as_deref(), Ok(line.as_str()));
                let rg = crate::ripgrep::Ripgrep::new(&script);
                assert_eq!(rg.availability().ok(), Some(line.as_str()));
            } else {
                assert_eq!(found, Err(ProbeFailure::TooLong));
            }
        }
    }

    #[test]
    fn options_are_the_defaults_with_what_the_environment_sets_over_them() {
        use crate::environment::Environment;
        let defaults = RgOptions::default();
        assert_eq!(defaults.get_timeout(), Duration::from_secs(60));
        assert_eq!(defaults.get_memory_bound(), Some(DEFAULT_MEMORY_MB));
        assert_eq!(defaults.clone().overlay(&Environment::none()), defaults);
        let env =
            Environment::from_vars([("LAWSUITE_RG_TIMEOUT_MS", "5"), ("LAWSUITE_RG", "/opt/rg")])
                .unwrap();
        let rg = RgOptions::default().overlay(&env);
        assert_eq!(rg.get_timeout(), Duration::from_millis(5));
        assert_eq!(rg.get_program(), Path::new("/opt/rg"));
        assert_eq!(rg.get_memory_bound(), Some(DEFAULT_MEMORY_MB));
    }

    #[test]
    fn versions() {
        assert_eq!(
            parse_version("ripgrep 15.2.0 (rev abc)\n"),
            Some((15, 2, 0))
        );
        assert_eq!(parse_version("ripgrep 14.1.1\n"), Some((14, 1, 1)));
        assert_eq!(parse_version("nonsense"), None);
    }

    /// `rg` is started itself: no shell sets its memory bound any more
    /// (one per `rg`, about 1 ms of CPU each, issue 47).
    #[test]
    fn the_command_is_rg_itself() {
        for bound in [Some(DEFAULT_MEMORY_MB), None] {
            let options = RgOptions::default().program("/opt/rg").memory_bound(bound);
            let command = options.command();
            assert_eq!(command.get_program(), "/opt/rg");
            assert_eq!(command.get_args().count(), 0);
        }
    }

    /// Each `rg` runs in a process group of its own (its id is its pid),
    /// so a terminal's Ctrl-C, sent to lawsuite's group, does not reach it.
    #[cfg(unix)]
    #[test]
    fn rg_runs_in_a_process_group_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let out = run_once(
            &RgOptions::default().program("/bin/sh"),
            dir.path(),
            &["-c", "echo $$ $(cut -d' ' -f5 /proc/$$/stat)"],
            &[],
            deadline,
        )
        .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let ids: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(ids.len(), 2, "{text}");
        assert_eq!(ids[0], ids[1], "pid and process group of rg: {text}");
    }

    /// Each `rg` runs under the memory bound.
    #[cfg(unix)]
    #[test]
    fn rg_runs_under_the_memory_bound() {
        let dir = tempfile::tempdir().unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        // The bound is set with `prlimit` as the child starts (see the
        // `child` module): a shell asked at once may run before it lands,
        // so it asks until the bound is there, for at most five seconds.
        let out = run_once(
            &RgOptions::default().program("/bin/sh"),
            dir.path(),
            &[
                "-c",
                "for i in $(seq 50); do v=$(ulimit -v); [ \"$v\" != unlimited ] && break; sleep 0.1; done; echo $v",
            ],
            &[],
            deadline,
        )
        .unwrap();
        let kb = (DEFAULT_MEMORY_MB * 1024).to_string();
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), kb);
        // A program that is not there is still "could not start rg".
        let err = run_once(
            &RgOptions::default().program("/nonexistent/rg"),
            dir.path(),
            &["--version"],
            &[],
            deadline,
        )
        .unwrap_err();
        assert_eq!(err.message, CANNOT_START);
    }
}
