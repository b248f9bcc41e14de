//! Running `git` isolated from the machine it runs on: a git directory of
//! its own outside the tree, no configuration but lawsuite's, and a
//! deadline.
//!
//! # What git is given
//!
//! Every invocation runs in a fresh [`TempTree`] (lawsuite's temporary
//! root, removed when the call ends and when a run is interrupted) that
//! holds:
//!
//! * `git/`: the git directory (`--git-dir`), made by hand: `HEAD`,
//!   `objects/` and `refs/`, what git checks before it accepts a directory
//!   as a repository. `git init` would make the same (and a `config`, and
//!   the template directory's hooks and `info/exclude`, which a machine may
//!   have customised) for one more process per call. With no `info/exclude`
//!   and no index, every file of the tree is untracked, and only the
//!   tree's own `.gitignore` files can ignore one.
//! * `home/`: `HOME` and `XDG_CONFIG_HOME`, empty, so neither
//!   `~/.gitconfig` nor `~/.config/git/ignore` (git's default
//!   `core.excludesFile`) is read;
//! * `empty`: an empty file, given as `GIT_CONFIG_GLOBAL`,
//!   `GIT_CONFIG_SYSTEM` and `core.excludesFile`.
//!
//! The environment is cleared first: only `PATH`, those variables,
//! `GIT_CONFIG_NOSYSTEM=1`, `GIT_OPTIONAL_LOCKS=0` and `LC_ALL=C` are set,
//! so a user's `GIT_DIR`, `GIT_CONFIG_PARAMETERS` or `GIT_CONFIG_COUNT`
//! cannot reach it. `-c` sets what git would otherwise probe for or read
//! from a configuration: `core.ignoreCase=false` (the contract compares
//! names case-sensitively, §9.3, also on a case-insensitive file system),
//! `core.fsmonitor=false` and `core.untrackedCache=false` (no daemon, no
//! cache: git reads the tree itself).
//!
//! The work tree is the call's root (`--work-tree=.`, run in the root),
//! and git never writes to a work tree to list it: `ls-files` and
//! `check-ignore` only read it, and write nothing to the git directory
//! either (no index is made). The tree guard holds the peer to that.
//!
//! # Deadline
//!
//! One call's invocations must end by its deadline
//! ([`DEFAULT_GIT_TIMEOUT`] after it started); one still running then is
//! killed with its process group and the call fails with
//! `provider_unavailable`. Output is not capped: git prints the tree's own
//! names, which the contract's walk holds in memory as well.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::contract::{ErrorCode, StdError};
use crate::kit::materialize::TempTree;

/// How long one call may keep `git` running, and how long the
/// `git --version` probe may take: 60 s, as for `rg`
/// ([`crate::ripgrep::process::DEFAULT_RG_TIMEOUT`]). Listing the largest
/// tree of the laws takes git under 10 ms, so it only ends a call that
/// would otherwise hang a run.
pub const DEFAULT_GIT_TIMEOUT: Duration = Duration::from_secs(60);

/// The spec-style message of a `git` that cannot be started or did not
/// finish (`provider_unavailable`), as [`crate::ripgrep::process::CANNOT_START`]
/// is for `rg`.
pub const CANNOT_START: &str = "The git peer could not start git";

/// How to get a suitable `git`, for people.
pub const INSTALL_HINT: &str =
    "install git 2.32 or newer (Debian and Ubuntu: `apt-get install git`) and put it on PATH";

/// What one `git` invocation printed.
#[derive(Debug)]
pub(crate) struct Output {
    /// The exit code; `None` when a signal ended it.
    pub code: Option<i32>,
    /// The signal that ended it, if one did (git 2.47.3 overflows its
    /// stack, `SIGSEGV`, on a rule of 349,526 `**/`).
    pub signal: Option<i32>,
    /// Everything it printed on stdout.
    pub stdout: Vec<u8>,
    /// Everything it printed on stderr.
    pub stderr: Vec<u8>,
}

/// The isolated setting of one call: a temporary root holding the git
/// directory, the empty home and the empty configuration file.
pub(crate) struct Isolated {
    dir: TempTree,
    program: PathBuf,
    deadline: Instant,
}

impl Isolated {
    /// Make the temporary root for one call of `program`, which must end
    /// by `deadline`.
    pub(crate) fn new(program: &Path, deadline: Instant) -> Result<Isolated, StdError> {
        let dir = TempTree::new().map_err(|e| {
            StdError::new(
                ErrorCode::RequestFailed,
                format!("{CANNOT_START}: no temporary git directory could be made ({e})"),
            )
        })?;
        let base = dir.path();
        let made = std::fs::create_dir_all(base.join("git/objects"))
            .and_then(|()| std::fs::create_dir_all(base.join("git/refs")))
            .and_then(|()| std::fs::write(base.join("git/HEAD"), "ref: refs/heads/main\n"))
            .and_then(|()| std::fs::create_dir_all(base.join("home/.config")))
            .and_then(|()| std::fs::write(base.join("empty"), ""));
        made.map_err(|e| {
            StdError::new(
                ErrorCode::RequestFailed,
                format!(
                    "{CANNOT_START}: the temporary git directory {} could not be written ({e})",
                    base.display()
                ),
            )
        })?;
        Ok(Isolated {
            dir,
            program: program.to_path_buf(),
            deadline,
        })
    }

    /// The command `git <args>` on the work tree `root`, isolated (module
    /// doc).
    fn command(&self, root: &Path, args: &[&str]) -> Command {
        let base = self.dir.path();
        let empty = base.join("empty");
        let mut command = Command::new(&self.program);
        command.env_clear();
        if let Some(path) = std::env::var_os("PATH") {
            command.env("PATH", path);
        }
        command
            .env("HOME", base.join("home"))
            .env("XDG_CONFIG_HOME", base.join("home/.config"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", &empty)
            .env("GIT_CONFIG_SYSTEM", &empty)
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("LC_ALL", "C");
        let mut git_dir = OsString::from("--git-dir=");
        git_dir.push(base.join("git"));
        let mut excludes = OsString::from("core.excludesFile=");
        excludes.push(&empty);
        command
            .arg(git_dir)
            .arg("--work-tree=.")
            .arg("-c")
            .arg(excludes)
            .args(["-c", "core.ignoreCase=false"])
            .args(["-c", "core.fsmonitor=false"])
            .args(["-c", "core.untrackedCache=false"])
            .args(args)
            .current_dir(root);
        command
    }

    /// Run `git <args>` on the work tree `root`, with `input` on stdin,
    /// until the deadline. A `git` that cannot start, or is still running
    /// at the deadline, is `provider_unavailable`.
    pub(crate) fn run(&self, root: &Path, args: &[&str], input: &[u8]) -> Result<Output, StdError> {
        let mut command = self.command(root, args);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // A group of its own, so a git past the deadline is ended with
        // whatever it started.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().map_err(|e| {
            StdError::new(
                ErrorCode::ProviderUnavailable,
                format!(
                    "{CANNOT_START}: `{}` could not be run ({e})",
                    self.program.display()
                ),
            )
        })?;
        let (tx, rx) = mpsc::channel();
        let mut stdout = None;
        let mut stderr = None;
        if let Some(out) = child.stdout.take() {
            spawn_reader(true, out, tx.clone());
        } else {
            stdout = Some(Vec::new());
        }
        if let Some(err) = child.stderr.take() {
            spawn_reader(false, err, tx.clone());
        } else {
            stderr = Some(Vec::new());
        }
        drop(tx);
        if let Some(mut stdin) = child.stdin.take() {
            let input = input.to_vec();
            // On a thread: git may fill its stdout before it has read all
            // of its stdin. A write error (git exited early) is git's to
            // report, on stderr and in its exit code.
            std::thread::spawn(move || {
                let _ = stdin.write_all(&input);
            });
        }
        while stdout.is_none() || stderr.is_none() {
            let wait = self.deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(wait) {
                Ok((true, bytes)) => stdout = Some(bytes),
                Ok((false, bytes)) => stderr = Some(bytes),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    crate::ripgrep::process::kill_group(&child);
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(StdError::new(
                        ErrorCode::ProviderUnavailable,
                        format!(
                            "{CANNOT_START}: git was still running at the call's deadline and was killed"
                        ),
                    ));
                }
            }
        }
        let status = child.wait().map_err(|e| {
            StdError::new(
                ErrorCode::ProviderUnavailable,
                format!("{CANNOT_START}: git could not be waited for ({e})"),
            )
        })?;
        #[cfg(unix)]
        let signal = std::os::unix::process::ExitStatusExt::signal(&status);
        #[cfg(not(unix))]
        let signal = None;
        Ok(Output {
            code: status.code(),
            signal,
            stdout: stdout.unwrap_or_default(),
            stderr: stderr.unwrap_or_default(),
        })
    }
}

/// Reads `stream` to its end on a thread of its own and sends what it
/// read; a send after the receiver gave up is ignored.
fn spawn_reader<R: Read + Send + 'static>(
    stdout: bool,
    mut stream: R,
    tx: mpsc::Sender<(bool, Vec<u8>)>,
) {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        // A read error mid-stream leaves what arrived.
        let _ = stream.read_to_end(&mut buf);
        let _ = tx.send((stdout, buf));
    });
}

/// Parse `git --version`'s first line, e.g. `git version 2.47.3` (or
/// `git version 2.39.5 (Apple Git-154)`, `git version 2.45.1.windows.1`).
///
/// ```
/// use lawsuite::git::process::parse_version;
/// assert_eq!(parse_version("git version 2.47.3"), Some((2, 47, 3)));
/// assert_eq!(parse_version("git version 2.45.1.windows.1"), Some((2, 45, 1)));
/// assert_eq!(parse_version("git version 2.50"), Some((2, 50, 0)));
/// assert_eq!(parse_version("ripgrep 15.2.0"), None);
/// ```
pub fn parse_version(line: &str) -> Option<(u64, u64, u64)> {
    let word = line.trim().strip_prefix("git version ")?;
    let word = word.split_whitespace().next()?;
    let mut parts = word.split(['.', '-']).map(|p| p.parse::<u64>().ok());
    Some((
        parts.next()??,
        parts.next()??,
        parts.next().flatten().unwrap_or(0),
    ))
}
