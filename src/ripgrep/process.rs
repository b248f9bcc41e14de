//! Running `rg`: locating the binary, batching targets, bounded capture and
//! the rejection rule (native-peer §1).

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

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

/// The `rg` program to run: `LAWSUITE_RG` if set, else `rg` from `PATH`.
pub fn rg_program() -> PathBuf {
    std::env::var_os("LAWSUITE_RG")
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from("rg"), PathBuf::from)
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
pub fn run_batched(
    program: &Path,
    cwd: &Path,
    args: &[&str],
    targets: &[String],
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
        let one = run_once(program, cwd, args, batch)?;
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

/// One invocation with both streams captured concurrently, each bounded.
/// On overflow the child is killed (the answer is already decided: a
/// refusal) and reaped, so no zombie is left behind.
fn run_once(
    program: &Path,
    cwd: &Path,
    args: &[&str],
    batch: &[String],
) -> Result<Output, StdError> {
    let mut argv: Vec<OsString> = args.iter().map(OsString::from).collect();
    argv.extend(batch.iter().map(OsString::from));
    let mut child = Command::new(program)
        .args(&argv)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|_| cannot_start())?;
    let (stdout, stderr) = capture(&mut child);
    let status = child.wait().map_err(|_| cannot_start())?;
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
    Ok(Output {
        // A signal has no code; treat it as a failure code above 1 so its
        // stderr (if any) is a rejection.
        code: status.code().unwrap_or(128),
        stdout,
        stderr,
    })
}

/// Overflowed: more than the cap arrived.
struct Overflow;

fn capture(child: &mut Child) -> (Result<Vec<u8>, Overflow>, Result<Vec<u8>, Overflow>) {
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let (out, err) = std::thread::scope(|scope| {
        let err = scope.spawn(move || stderr.map_or(Ok(Vec::new()), read_bounded));
        let out = stdout.map_or(Ok(Vec::new()), read_bounded);
        let err = err.join().unwrap_or(Err(Overflow));
        (out, err)
    });
    if out.is_err() || err.is_err() {
        // Stop a child that is still writing; ignore "already exited".
        let _ = child.kill();
    }
    (out, err)
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

/// `provider_unavailable` with the spec's message.
pub fn cannot_start() -> StdError {
    StdError::new(ErrorCode::ProviderUnavailable, CANNOT_START)
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

    #[test]
    fn versions() {
        assert_eq!(
            parse_version("ripgrep 15.2.0 (rev abc)\n"),
            Some((15, 2, 0))
        );
        assert_eq!(parse_version("ripgrep 14.1.1\n"), Some((14, 1, 1)));
        assert_eq!(parse_version("nonsense"), None);
    }
}
