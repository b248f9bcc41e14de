//! A reference `bash` handler for the capture and timeout rules of
//! read-ls-flows §4.
//!
//! The spec pins only capture and timeout; the rest of the input follows the
//! reference flow's shape, reduced to what runs on one host:
//!
//! * `command` is a line for the platform shell, run as `/bin/sh -c
//!   <command>` (what Node's `shell: true` runs on POSIX). Its invocation —
//!   the text of a timeout error — is the line itself.
//! * `script` is program text written to `interpreter`'s standard input
//!   (default `bash`), selected with `-s --` for `bash`/`sh`/`zsh`/`dash` and
//!   `-` for `python`/`python3`/`node`/`ruby`/`perl`; `args` follow. Its
//!   invocation is the interpreter and every argument joined by spaces
//!   (`bash -s --`, `python3 - x`).
//! * `stdin`, `cwd` (relative to the base directory), `env` (added to the
//!   inherited environment) and `timeoutMs` (default 600,000). Without
//!   `stdin`, the process reads an empty standard input rather than the
//!   harness's own.
//! * `mode`, `reads`/`writes` and `container` are not accepted: the
//!   envelope pre-check and container transports are not capture rules.
//!
//! Capture (§4): each stream is read on its own thread into a
//! [`TailCapture`] that never holds more than 30,000 bytes, so a command
//! printing a gigabyte costs the bound, not the gigabyte. The process runs in
//! its own process group; on timeout the whole group is killed with
//! `SIGKILL`, the shell is reaped, and the call fails with `timeout` and no
//! partial output. A non-zero exit is a success; death by signal `N` reports
//! exit code `128 + N`, as a shell would.
//!
//! A process that left the group (`setsid`) and still holds a pipe outlives
//! the kill; the call still returns at the deadline, and the reader thread
//! of that pipe ends whenever the pipe closes.

use std::collections::{BTreeMap, VecDeque};
use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{DEFAULT_TIMEOUT_MS, MAX_SHELL_OUTPUT_BYTES, resolve};
use crate::contract::StdError;

/// How long the supervising loop sleeps between checks of the process; the
/// latency a finished command can add, and the precision of the timeout.
const POLL: Duration = Duration::from_millis(5);

/// Bytes read from a pipe at once.
const READ_CHUNK: usize = 64 * 1024;

/// The `bash` input (the reference flow's fields that run on one host; see
/// the module doc). Give `command` or `script`, never both.
///
/// ```
/// use lawsuite::flow::BashRequest;
/// let req: BashRequest = serde_json::from_str(r#"{"command":"echo hi","timeoutMs":1000}"#)?;
/// assert_eq!(req, BashRequest::command("echo hi").with_timeout_ms(1000));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BashRequest {
    /// A line for the platform shell (`/bin/sh -c`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Program text delivered to `interpreter` on standard input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// The program that reads `script`; default `bash`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interpreter: Option<String>,
    /// Arguments passed to `script`, never interpolated into it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// Text written to a `command`'s standard input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<String>,
    /// Working directory, relative to the base directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Variables added to the inherited environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// Wall-clock timeout; default 600,000 ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

impl BashRequest {
    /// A request running the shell line `line`.
    pub fn command(line: impl Into<String>) -> BashRequest {
        BashRequest {
            command: Some(line.into()),
            ..BashRequest::default()
        }
    }

    /// A request running `text` under the default interpreter (`bash`).
    pub fn script(text: impl Into<String>) -> BashRequest {
        BashRequest {
            script: Some(text.into()),
            ..BashRequest::default()
        }
    }

    /// The same request with a timeout of `ms` milliseconds.
    pub fn with_timeout_ms(mut self, ms: u64) -> BashRequest {
        self.timeout_ms = Some(ms);
        self
    }
}

/// The `bash` output (§4), keys in the spec's order.
///
/// `<stream>Truncated` marks a fragment (the tail only) that must not be
/// written to a file; `<stream>DroppedBytes` counts what the process produced
/// and the capture did not keep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BashOutput {
    /// The exit status; `128 + N` for death by signal `N`.
    pub exit_code: i32,
    /// The kept tail of standard output.
    pub stdout: String,
    /// The kept tail of standard error.
    pub stderr: String,
    /// Bytes of stdout were dropped.
    pub stdout_truncated: bool,
    /// Bytes of stderr were dropped.
    pub stderr_truncated: bool,
    /// Bytes of stdout dropped during capture and by the final cut.
    pub stdout_dropped_bytes: u64,
    /// Bytes of stderr dropped during capture and by the final cut.
    pub stderr_dropped_bytes: u64,
    /// Reserved by the spec; this handler never sets it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid_probe: Option<serde_json::Value>,
    /// Only for containerised commands; this handler never sets it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutated: Option<bool>,
}

/// A stream's capture while the process runs: the last `bound` bytes and a
/// count of the bytes dropped from the head (§4).
///
/// Memory is `bound` bytes however much is pushed.
///
/// ```
/// use lawsuite::flow::bash::TailCapture;
/// let mut tail = TailCapture::new(4);
/// tail.push(b"ab\xE2\x82");  // "ab" and the head of "€"
/// tail.push(b"\xACcd");      // the rest of "€", then "cd"
/// let out = tail.finish();
/// // Kept `82 AC 63 64`; the two leading continuation bytes are dropped too.
/// assert_eq!((out.text.as_str(), out.dropped_bytes, out.truncated), ("cd", 5, true));
/// ```
#[derive(Clone, Debug)]
pub struct TailCapture {
    bound: usize,
    kept: VecDeque<u8>,
    dropped: u64,
}

/// A finished stream capture: the text and what the capture dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamCapture {
    /// At most `bound` UTF-8 bytes, the tail of what was printed.
    pub text: String,
    /// Bytes were dropped, during capture or by the final cut.
    pub truncated: bool,
    /// Bytes dropped during capture plus bytes dropped by the final cut.
    pub dropped_bytes: u64,
}

impl TailCapture {
    /// An empty capture keeping at most `bound` bytes.
    pub fn new(bound: usize) -> TailCapture {
        TailCapture {
            bound,
            kept: VecDeque::with_capacity(bound.min(READ_CHUNK)),
            dropped: 0,
        }
    }

    /// Appends `chunk`, dropping bytes from the head beyond the bound.
    pub fn push(&mut self, chunk: &[u8]) {
        if chunk.len() >= self.bound {
            let keep_from = chunk.len() - self.bound;
            self.dropped += (self.kept.len() + keep_from) as u64;
            self.kept.clear();
            self.kept.extend(&chunk[keep_from..]);
            return;
        }
        self.kept.extend(chunk);
        let excess = self.kept.len().saturating_sub(self.bound);
        if excess > 0 {
            self.kept.drain(..excess);
            self.dropped += excess as u64;
        }
    }

    /// §4 after the process ends: when bytes were dropped, up to 3 leading
    /// continuation bytes are dropped too (never decoded to U+FFFD); the rest
    /// is decoded lossily and cut again to its last ≤ `bound` bytes on a
    /// scalar boundary (lossy decoding can grow it: one `FF` byte becomes
    /// three bytes of U+FFFD).
    ///
    /// Continuation bytes at the start of an *uncut* stream are what the
    /// process printed, so they decode to U+FFFD like any invalid byte. A
    /// leading BOM is kept (as U+FEFF): dropping it would lose bytes that
    /// `droppedBytes` does not count.
    pub fn finish(self) -> StreamCapture {
        let bytes: Vec<u8> = self.kept.into();
        let mut dropped = self.dropped;
        let mut start = 0;
        if dropped > 0 {
            while start < bytes.len().min(3) && bytes[start] & 0b1100_0000 == 0b1000_0000 {
                start += 1;
            }
            dropped += start as u64;
        }
        let decoded = String::from_utf8_lossy(&bytes[start..]);
        let mut cut = decoded.len().saturating_sub(self.bound);
        while !decoded.is_char_boundary(cut) {
            cut += 1;
        }
        StreamCapture {
            text: decoded[cut..].to_owned(),
            truncated: dropped > 0 || cut > 0,
            dropped_bytes: dropped + cut as u64,
        }
    }
}

/// `bash` in the process's working directory: [`bash_in`] with base `.`.
pub fn bash(req: &BashRequest) -> Result<BashOutput, StdError> {
    bash_in(Path::new("."), req)
}

/// Runs `req` with `cwd` (default: `base` itself) resolved against `base`.
///
/// ```
/// use lawsuite::contract::ErrorCode;
/// use lawsuite::flow::bash::{bash_in, BashRequest};
/// let dir = tempfile::tempdir()?;
/// let out = bash_in(dir.path(), &BashRequest::command("printf out; printf err >&2; exit 3"))?;
/// assert_eq!((out.exit_code, out.stdout.as_str(), out.stderr.as_str()), (3, "out", "err"));
/// let err = bash_in(dir.path(), &BashRequest::command("sleep 5").with_timeout_ms(100)).unwrap_err();
/// assert_eq!((err.code, err.message.as_str()), (ErrorCode::Timeout, "Command timed out: sleep 5"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn bash_in(base: &Path, req: &BashRequest) -> Result<BashOutput, StdError> {
    let plan = plan(req)?;
    let timeout = Duration::from_millis(req.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS));
    let cwd = match &req.cwd {
        Some(cwd) => resolve(base, cwd),
        None => base.to_path_buf(),
    };
    let mut command = Command::new(&plan.program);
    command
        .args(&plan.args)
        .current_dir(&cwd)
        .stdin(if plan.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own group, so a timeout can kill what the shell started too.
        .process_group(0);
    if let Some(env) = &req.env {
        command.envs(env);
    }
    let started = Instant::now();
    let mut child = command
        .spawn()
        .map_err(|err| StdError::command_failed_to_start(&plan.spawned, &err))?;
    // A `timeoutMs` past what the clock can count (`u64::MAX` ms is 584
    // million years) is no deadline at all, not a panic adding it.
    match supervise(&mut child, plan.stdin, started.checked_add(timeout)) {
        Ok(Some((status, stdout, stderr))) => Ok(output(status, stdout, stderr)),
        Ok(None) => Err(StdError::command_timed_out(&plan.invocation)),
        Err(err) => Err(StdError::command_failed_to_start(&plan.spawned, &err)),
    }
}

/// What a request runs.
#[derive(Debug)]
struct Plan {
    program: String,
    args: Vec<String>,
    stdin: Option<String>,
    /// The timeout error's `{invocation}`.
    invocation: String,
    /// The spawn error's `{command}`: the line, or the interpreter.
    spawned: String,
}

/// Checks the request's fields against each other and picks the program.
fn plan(req: &BashRequest) -> Result<Plan, StdError> {
    let refuse = |message: &str| Err(StdError::invalid_input(message));
    match (&req.command, &req.script) {
        (Some(_), Some(_)) => {
            return refuse(
                "Give command or script, never both: a script is program text, a command is a shell line",
            );
        }
        (None, None) => {
            return refuse(
                "Give either command (a shell line) or script (program text run by interpreter)",
            );
        }
        (Some(line), None) => {
            if req.args.is_some() {
                return refuse(
                    "args belong to a script; a command carries its own arguments in the line",
                );
            }
            if req.interpreter.is_some() {
                return refuse("interpreter runs a script; a command runs in the platform shell");
            }
            return Ok(Plan {
                program: "/bin/sh".to_string(),
                args: vec!["-c".to_string(), line.clone()],
                stdin: req.stdin.clone(),
                invocation: line.clone(),
                spawned: line.clone(),
            });
        }
        (None, Some(_)) => {}
    }
    if req.stdin.is_some() {
        return refuse("A script already arrives on standard input, so it cannot also carry stdin");
    }
    let interpreter = req.interpreter.as_deref().unwrap_or("bash");
    let selector: &[&str] = match interpreter {
        "bash" | "zsh" | "sh" | "dash" => &["-s", "--"],
        "python" | "python3" | "node" | "ruby" | "perl" => &["-"],
        other => return refuse(&format!("Unsupported script interpreter: {other}")),
    };
    let mut args: Vec<String> = selector.iter().map(|s| s.to_string()).collect();
    args.extend(req.args.iter().flatten().cloned());
    let invocation = std::iter::once(interpreter)
        .chain(args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    Ok(Plan {
        program: interpreter.to_string(),
        args,
        stdin: req.script.clone(),
        invocation,
        spawned: interpreter.to_string(),
    })
}

/// Which pipe a capture came from.
#[derive(Clone, Copy)]
enum Pipe {
    Stdout,
    Stderr,
}

/// Everything a finished command produced.
type Finished = (ExitStatus, TailCapture, TailCapture);

/// Feeds stdin, drains both pipes and waits for the exit, all before
/// `deadline` (`None`: no deadline). `Ok(None)` is a timeout: the group is killed and the child
/// reaped before returning. An `Err` means a helper thread or `wait` failed;
/// the child is killed and reaped then too.
fn supervise(
    child: &mut Child,
    stdin: Option<String>,
    deadline: Option<Instant>,
) -> std::io::Result<Option<Finished>> {
    let (tx, rx) = mpsc::channel();
    let started = start_helpers(child, stdin, &tx);
    if let Err(err) = started {
        kill_group(child);
        return Err(err);
    }
    let (mut status, mut stdout, mut stderr) = (None, None, None);
    loop {
        if status.is_none() {
            match child.try_wait() {
                Ok(found) => status = found,
                Err(err) => {
                    kill_group(child);
                    return Err(err);
                }
            }
        }
        match (status, stdout.take(), stderr.take()) {
            (Some(status), Some(out), Some(err)) => return Ok(Some((status, out, err))),
            (_, out, err) => (stdout, stderr) = (out, err),
        }
        let now = Instant::now();
        if deadline.is_some_and(|deadline| now >= deadline) {
            // Also reached when the shell exited but something it started
            // still holds a pipe open: the output is not complete until then.
            kill_group(child);
            return Ok(None);
        }
        // `tx` is still held here, so this never reports a disconnect.
        let wait = deadline.map_or(POLL, |deadline| POLL.min(deadline - now));
        match rx.recv_timeout(wait) {
            Ok((Pipe::Stdout, capture)) => stdout = Some(capture),
            Ok((Pipe::Stderr, capture)) => stderr = Some(capture),
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {}
        }
    }
}

/// Starts the stdin writer and the two pipe readers.
fn start_helpers(
    child: &mut Child,
    stdin: Option<String>,
    tx: &Sender<(Pipe, TailCapture)>,
) -> std::io::Result<()> {
    if let (Some(mut pipe), Some(text)) = (child.stdin.take(), stdin) {
        // A command that never reads its input gets EPIPE or a closed pipe
        // at the kill; either way the writer just stops.
        thread::Builder::new()
            .name("bash-stdin".into())
            .spawn(move || {
                let _ = pipe.write_all(text.as_bytes());
            })?;
    }
    if let Some(pipe) = child.stdout.take() {
        spawn_reader(Pipe::Stdout, pipe, tx.clone())?;
    }
    if let Some(pipe) = child.stderr.take() {
        spawn_reader(Pipe::Stderr, pipe, tx.clone())?;
    }
    Ok(())
}

/// Drains `pipe` into a bounded [`TailCapture`] and sends it at end of file.
fn spawn_reader(
    which: Pipe,
    mut pipe: impl Read + Send + 'static,
    tx: Sender<(Pipe, TailCapture)>,
) -> std::io::Result<()> {
    thread::Builder::new()
        .name("bash-capture".into())
        .spawn(move || {
            let mut tail = TailCapture::new(MAX_SHELL_OUTPUT_BYTES);
            let mut buf = vec![0; READ_CHUNK];
            loop {
                match pipe.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => tail.push(&buf[..n]),
                    Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            // The supervisor may have given up (timeout); nobody to tell.
            let _ = tx.send((which, tail));
        })?;
    Ok(())
}

/// `SIGKILL` to the child's process group, then to the child itself, then
/// reap it, so a timed-out call leaves neither a running group nor a zombie.
///
/// `std` has no `killpg`, and the crate forbids `unsafe`, so the group is
/// killed with the `kill` utility (falling back to the shell builtin).
fn kill_group(child: &mut Child) {
    let group = format!("-{}", child.id());
    let quiet = |cmd: &mut Command| {
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
    };
    if quiet(Command::new("kill").args(["-s", "KILL", "--", &group])).is_err() {
        let _ = quiet(Command::new("/bin/sh").args(["-c", "kill -s KILL -- \"$1\"", "sh", &group]));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The §4 output of a finished command.
fn output(status: ExitStatus, stdout: TailCapture, stderr: TailCapture) -> BashOutput {
    let exit_code = status
        .code()
        .or_else(|| status.signal().map(|signal| 128 + signal))
        .unwrap_or(-1);
    let (stdout, stderr) = (stdout.finish(), stderr.finish());
    BashOutput {
        exit_code,
        stdout: stdout.text,
        stderr: stderr.text,
        stdout_truncated: stdout.truncated,
        stderr_truncated: stderr.truncated,
        stdout_dropped_bytes: stdout.dropped_bytes,
        stderr_dropped_bytes: stderr.dropped_bytes,
        invalid_probe: None,
        mutated: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::ErrorCode;

    fn capture(bound: usize, chunks: &[&[u8]]) -> StreamCapture {
        let mut tail = TailCapture::new(bound);
        for chunk in chunks {
            tail.push(chunk);
        }
        tail.finish()
    }

    #[test]
    fn tail_keeps_the_last_bytes_across_chunk_shapes() {
        let all: Vec<u8> = (0..100u8).map(|i| b'a' + i % 26).collect();
        let expected = String::from_utf8(all[70..].to_vec()).unwrap();
        for size in [1, 7, 30, 31, 100] {
            let chunks: Vec<&[u8]> = all.chunks(size).collect();
            let out = capture(30, &chunks);
            assert_eq!(out.text, expected, "chunk size {size}");
            assert_eq!(out.dropped_bytes, 70);
            assert!(out.truncated);
        }
        let out = capture(30, &[b"short"]);
        assert_eq!(
            (out.text.as_str(), out.dropped_bytes, out.truncated),
            ("short", 0, false)
        );
    }

    #[test]
    fn continuation_bytes_are_dropped_only_after_a_cut() {
        // Uncut: the process printed a stray continuation byte; it decodes.
        let out = capture(10, &[b"\x80abc"]);
        assert_eq!((out.text.as_str(), out.dropped_bytes), ("\u{FFFD}abc", 0));
        // Cut inside a 4-byte scalar: at most 3 continuation bytes go.
        let out = capture(5, &["x😀ab".as_bytes()]);
        // kept = 9F 98 80 61 62 → 3 skipped.
        assert_eq!((out.text.as_str(), out.dropped_bytes), ("ab", 5));
        // Four continuation bytes in a row: only three are skipped.
        let out = capture(5, &[b"z\x80\x80\x80\x80q"]);
        assert_eq!((out.text.as_str(), out.dropped_bytes), ("\u{FFFD}q", 4));
    }

    #[test]
    fn lossy_growth_is_cut_again_on_a_scalar_boundary() {
        let out = capture(6, &[b"\xFF\xFF\xFF\xFF\xFF\xFF"]);
        // 6 bytes → 6 × U+FFFD = 18 bytes → last 6 bytes = 2 scalars.
        assert_eq!(out.text, "\u{FFFD}\u{FFFD}");
        assert_eq!(out.dropped_bytes, 12);
        assert!(out.truncated);
        let out = capture(7, &[b"\xFF\xFF\xFF"]);
        // 9 bytes of text, bound 7: cut forward to the boundary at 3.
        assert_eq!(
            (out.text.as_str(), out.dropped_bytes),
            ("\u{FFFD}\u{FFFD}", 3)
        );
    }

    #[test]
    fn field_conflicts_are_invalid_input() {
        let both = BashRequest {
            command: Some("x".into()),
            script: Some("y".into()),
            ..BashRequest::default()
        };
        let cases = [
            both,
            BashRequest::default(),
            BashRequest {
                args: Some(vec![]),
                ..BashRequest::command("x")
            },
            BashRequest {
                interpreter: Some("sh".into()),
                ..BashRequest::command("x")
            },
            BashRequest {
                stdin: Some("in".into()),
                ..BashRequest::script("x")
            },
            BashRequest {
                interpreter: Some("cobol".into()),
                ..BashRequest::script("x")
            },
        ];
        for req in cases {
            let err = plan(&req).expect_err("refused");
            assert_eq!(err.code, ErrorCode::InvalidInput, "{req:?}");
        }
    }

    #[test]
    fn invocations() {
        let plan_of = |req: BashRequest| plan(&req).expect("valid").invocation;
        assert_eq!(plan_of(BashRequest::command("ls -la")), "ls -la");
        assert_eq!(plan_of(BashRequest::script("echo")), "bash -s --");
        let py = BashRequest {
            interpreter: Some("python3".into()),
            args: Some(vec!["x".into(), "-c".into()]),
            ..BashRequest::script("print(1)")
        };
        assert_eq!(plan_of(py), "python3 - x -c");
    }
}
