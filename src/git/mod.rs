//! `git`: the peer that lets git decide what the walk keeps (search-contract
//! §7 walk, §9 `.gitignore`), answering `glob` and `flow/glob`.
//!
//! git is the one independent reader of `.gitignore` files on most
//! machines, and people read their `.gitignore` files as git does. The
//! contract does not always (`docs/contract.md`, "Where the contract reads
//! `.gitignore` differently from git"): this peer shows where, law by
//! law, and each difference it shows must be listed
//! (`peers/expected/differences.toml`), so a new one fails the run.
//!
//! It has the shape of [`crate::ripgrep::RipgrepWalk`]: the tool walks
//! and applies the ignore rules, and lawsuite applies the rest of the
//! contract to what it kept, each step named below. It answers `glob`
//! only; `grep` is skipped as unsupported (git searches tracked content,
//! and its `grep --no-index` reads no `.gitignore` below the root the way
//! §7 does).
//!
//! # How git is asked
//!
//! * Root (§7.1): `stat` and listing failures map exactly as the contract
//!   says (lawsuite does them, not git). An explicit-file root is the
//!   answer by itself, whatever the pattern, `hidden` or rules say.
//! * Walk and rules: `git ls-files -z --others --exclude-standard` run in
//!   the root, the root as the work tree and a git directory of lawsuite's
//!   own outside it, with no configuration, excludes file or
//!   `info/exclude` of the user's ([`process`] says how). With an empty
//!   index every file is "other", so git lists the files its reading of
//!   the `.gitignore` files keeps: nested scopes, negation, directory-only
//!   rules and pruning of ignored directories are all git's. `noIgnore`
//!   drops `--exclude-standard`: git then reads no ignore file at all.
//!   `-z` prints names unquoted, newlines included.
//!
//! # What lawsuite applies to git's listing
//!
//! * §7.2 step 3, the hidden rule: without `hidden`, a path with any
//!   segment starting with `.` is dropped. git lists hidden files, and
//!   only the contract's order (hidden names dropped *before* ignore rules
//!   are asked) differs from "drop what git kept": a hidden directory's
//!   `.gitignore` can only judge names below it, which are hidden too. A
//!   `.gitignore` is read whether or not `hidden` is set, by both.
//! * §7.3, the skip list: a path with any segment on it is dropped. git
//!   itself never enters a directory (or lists a file) named `.git`, which
//!   is on the list.
//! * §7.4 and §7.2 step 6: only regular files are candidates. git lists a
//!   symbolic link as a file and never descends a linked directory; a
//!   listed path that is not a regular file (checked without following
//!   links) is dropped. git lists no FIFO, socket or device.
//! * §8: the pattern is matched by the contract's own glob matcher on the
//!   root-relative path and basename; §6.3, §14, §16: sorting, `limit`,
//!   truncation and notices are [`crate::contract::notice::glob_answer`],
//!   as for every peer.
//! * Names that are not UTF-8 (git prints their bytes) are dropped, as
//!   the contract's walk drops them (README Q5); a directory whose name is
//!   not UTF-8 loses everything below it, in both.
//!
//! # What git treats specially, and what was chosen
//!
//! * A directory holding a `.git` that is a repository (a `HEAD`, an
//!   `objects/` and a `refs/`; or a `.git` file pointing at one) is a
//!   nested repository to git: `ls-files` prints it as `sub/` and does not
//!   look inside. The contract walks into it (only `sub/.git` is skipped,
//!   and "a nested `.git` does not shield a subtree from its parents'
//!   rules", §9.1). No flag of `ls-files` descends into it, and running
//!   git again with `sub` as the work tree would lose the parent's rules,
//!   so this is a listed difference (`git-stops-at-a-nested-repository`),
//!   not bridged: the `sub/` line is dropped. A `.git` that is not a
//!   repository (the laws' `src/.git/objects/object.ts`) is just skipped.
//! * git (since 2.32) does not follow a `.gitignore` that is a symbolic
//!   link; the contract reads it as text.
//!
//! # The `ignored` flag (§7.5)
//!
//! Asked only for an empty answer without `noIgnore`, it is read from git
//! too, with two more `ls-files` and one `check-ignore` (`--no-index`, the
//! same isolation):
//!
//! * `ls-files --others --ignored --exclude-standard` lists every file
//!   git ignores, those inside ignored directories too; with `--directory`
//!   it also names the ignored directories (`d/`), empty ones included;
//! * `check-ignore --no-index --stdin` then says which directories on
//!   those paths git ignores (a path below an ignored directory counts as
//!   ignored).
//!
//! Walking each ignored path from the root, the first segment that is
//! hidden or skip-listed ends it (§7.5: those never set the flag); the
//! first ignored directory sets the flag; a file ignored itself sets it
//! when the pattern admits it (§8.4 on its path and basename) and it is a
//! file once links are followed (§7.2 step 4).

pub mod process;

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crate::contract::glob::GlobList;
use crate::contract::notice::glob_answer;
use crate::contract::skip::{is_hidden, is_skipped};
use crate::contract::{
    ErrorCode, GlobInput, GlobOutput, GrepInput, GrepOutput, StdError, join_path, normalize_path,
};
use crate::peer::{Method, Search, not_implemented};
use process::{CANNOT_START, DEFAULT_GIT_TIMEOUT, INSTALL_HINT, Isolated, Output};

/// The oldest git the peer drives: 2.32, the first to read
/// `GIT_CONFIG_GLOBAL` and `GIT_CONFIG_SYSTEM` (its isolation from the
/// user's configuration) and to refuse a `.gitignore` that is a symbolic
/// link (a listed difference; an older git would pass that law and fail
/// the run). The differences are measured on git 2.47.3.
pub const MIN_VERSION: (u64, u64, u64) = (2, 32, 0);

/// The `git` peer.
///
/// ```
/// use lawsuite::contract::GlobInput;
/// use lawsuite::git::Git;
/// use lawsuite::peer::Search;
///
/// let git = Git::default();
/// if git.availability().is_ok() {
///     let dir = tempfile::tempdir()?;
///     std::fs::write(dir.path().join(".gitignore"), "*.log\n")?;
///     std::fs::write(dir.path().join("a.txt"), "")?;
///     std::fs::write(dir.path().join("b.log"), "")?;
///     let root = dir.path().to_str().unwrap();
///     let out = git.glob(&GlobInput::new("*", root))?;
///     assert_eq!(out.paths, [format!("{root}/a.txt")]);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Git {
    program: PathBuf,
    timeout: Duration,
    probe: OnceLock<Result<String, GitUnavailable>>,
}

impl Default for Git {
    /// `git` on `PATH`, [`DEFAULT_GIT_TIMEOUT`] per call.
    fn default() -> Git {
        Git::new("git")
    }
}

impl Git {
    /// A peer running the `git` at `program` (a path, or a name looked up
    /// on `PATH`).
    pub fn new(program: impl Into<PathBuf>) -> Git {
        Git {
            program: program.into(),
            timeout: DEFAULT_GIT_TIMEOUT,
            probe: OnceLock::new(),
        }
    }

    /// The same peer with another per-call timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Git {
        self.timeout = timeout;
        self
    }

    /// `Ok(version line)` when a suitable `git` answers, else why not, in
    /// a sentence for a person that says how to install one.
    pub fn availability(&self) -> Result<&str, &GitUnavailable> {
        self.probe
            .get_or_init(|| probe(&self.program, self.timeout))
            .as_ref()
            .map(String::as_str)
    }

    fn deadline(&self) -> Instant {
        let now = Instant::now();
        now.checked_add(self.timeout)
            .unwrap_or(now + DEFAULT_GIT_TIMEOUT)
    }
}

/// Why no suitable `git` answers: `Display` is a sentence for a person
/// that says what is wrong and how to install a suitable one.
///
/// ```
/// use lawsuite::git::Git;
/// let git = Git::new("/nonexistent/git");
/// let why = git.availability().unwrap_err().to_string();
/// assert!(why.starts_with("cannot run `/nonexistent/git --version`"), "{why}");
/// assert!(why.contains("install git 2.32 or newer"), "{why}");
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum GitUnavailable {
    /// `git --version` could not be run (not on `PATH`, say).
    CannotRun {
        /// The program.
        program: PathBuf,
        /// What the OS said (shared: the probe's answer is handed out
        /// again).
        source: Arc<std::io::Error>,
    },
    /// It ran but printed no git version.
    NoVersion {
        /// The program.
        program: PathBuf,
    },
    /// `--version` printed no first line within the per-call timeout; it
    /// was killed with its process group.
    TimedOut {
        /// The program.
        program: PathBuf,
        /// How long it was given.
        after: Duration,
    },
    /// It is older than [`MIN_VERSION`].
    TooOld {
        /// The program.
        program: PathBuf,
        /// The version it printed.
        version: (u64, u64, u64),
    },
}

impl fmt::Display for GitUnavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GitUnavailable::CannotRun { program, source } => write!(
                f,
                "cannot run `{} --version` ({source}); {INSTALL_HINT}",
                program.display()
            ),
            GitUnavailable::NoVersion { program } => write!(
                f,
                "`{} --version` printed no git version; {INSTALL_HINT}",
                program.display()
            ),
            GitUnavailable::TimedOut { program, after } => write!(
                f,
                "`{} --version` printed no version line within {} ms and was killed; {INSTALL_HINT}",
                program.display(),
                after.as_millis()
            ),
            GitUnavailable::TooOld {
                program,
                version: (a, b, c),
            } => write!(
                f,
                "{} is git {a}.{b}.{c}, older than 2.32.0; {INSTALL_HINT}",
                program.display()
            ),
        }
    }
}

impl std::error::Error for GitUnavailable {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GitUnavailable::CannotRun { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

/// `git --version`, its first line only, within `timeout` (the bounded
/// probe the `rg` peers use, [`crate::ripgrep::process::version_line`]).
fn probe(program: &Path, timeout: Duration) -> Result<String, GitUnavailable> {
    let line = crate::ripgrep::process::version_line(program, timeout).map_err(|source| {
        GitUnavailable::CannotRun {
            program: program.to_path_buf(),
            source: Arc::new(source),
        }
    })?;
    let line = match line {
        Ok(line) => line,
        Err(crate::ripgrep::process::ProbeFailure::TimedOut) => {
            return Err(GitUnavailable::TimedOut {
                program: program.to_path_buf(),
                after: timeout,
            });
        }
        Err(_) => {
            return Err(GitUnavailable::NoVersion {
                program: program.to_path_buf(),
            });
        }
    };
    let version = process::parse_version(&line).ok_or_else(|| GitUnavailable::NoVersion {
        program: program.to_path_buf(),
    })?;
    if version < MIN_VERSION {
        return Err(GitUnavailable::TooOld {
            program: program.to_path_buf(),
            version,
        });
    }
    Ok(line.trim().to_string())
}

/// A failed `git`: an exit code above 1 (`ls-files` exits 0,
/// `check-ignore` 1 when it ignores nothing), or a signal. `request_failed`
/// with what it said.
fn refused(out: &Output, what: &str) -> Result<(), StdError> {
    let how = match (out.code, out.signal) {
        (Some(0 | 1), _) => return Ok(()),
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(signal)) => format!("was ended by signal {signal}"),
        (None, None) => "ended without an exit code".to_string(),
    };
    let said = String::from_utf8_lossy(&out.stderr);
    let said = said.trim();
    Err(StdError::new(
        ErrorCode::RequestFailed,
        if said.is_empty() {
            format!("git {what} {how}")
        } else {
            format!("git {what} {how}: {said}")
        },
    ))
}

/// The NUL-separated names of `-z` output that are UTF-8 (module doc:
/// other names are dropped, as the contract's walk drops them).
fn names(stdout: &[u8]) -> impl Iterator<Item = &str> {
    stdout
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .filter_map(|p| std::str::from_utf8(p).ok())
}

/// Whether the hidden rule (unless `hidden`) or the skip list drops the
/// segment `name` (§7.2 step 3, §7.3).
fn dropped_segment(name: &str, hidden: bool) -> bool {
    is_skipped(name) || (!hidden && is_hidden(name))
}

/// The entries a walk from the root meets on its way to `path` (each
/// proper prefix a directory; `path` itself one when `is_dir`), up to the
/// first a hidden or skip-listed segment drops: those never set the
/// ignored flag (§7.5).
fn steps(path: &str, is_dir: bool, hidden: bool) -> impl Iterator<Item = (&str, bool)> {
    path.match_indices('/')
        .map(|(at, _)| (&path[..at], true))
        .chain([(path, is_dir)])
        .take_while(move |(prefix, _)| !dropped_segment(basename(prefix), hidden))
}

fn basename(rel: &str) -> &str {
    rel.rsplit('/').next().unwrap_or(rel)
}

/// One call on a directory root.
struct Call<'a> {
    input: &'a GlobInput,
    root: &'a Path,
    git: Isolated,
    globs: GlobList,
}

impl Call<'_> {
    /// `ls-files -z --others` with `extra` flags.
    fn ls_files(&self, extra: &[&str]) -> Result<Output, StdError> {
        let mut args = vec!["ls-files", "-z", "--others"];
        args.extend_from_slice(extra);
        let out = self.git.run(self.root, &args, b"")?;
        refused(&out, "ls-files")?;
        Ok(out)
    }

    /// The candidates (module doc): git's listing, then the hidden rule,
    /// the skip list, regular files only and the pattern.
    fn paths(&self) -> Result<Vec<String>, StdError> {
        let out = if self.input.no_ignore {
            self.ls_files(&[])?
        } else {
            self.ls_files(&["--exclude-standard"])?
        };
        let hidden = self.input.hidden;
        Ok(names(&out.stdout)
            // `sub/`: a nested repository git does not enter (module doc).
            .filter(|rel| !rel.ends_with('/'))
            .filter(|rel| !rel.split('/').any(|s| dropped_segment(s, hidden)))
            .filter(|rel| {
                std::fs::symlink_metadata(self.root.join(rel))
                    .is_ok_and(|m| m.file_type().is_file())
            })
            .filter(|rel| self.globs.includes(rel, basename(rel)))
            .map(|rel| join_path(&self.input.root, rel))
            .collect())
    }

    /// §7.5 from git's listings of what it ignored (module doc).
    fn ignored(&self) -> Result<bool, StdError> {
        let (files, dirs) = std::thread::scope(|s| {
            let dirs =
                s.spawn(|| self.ls_files(&["--ignored", "--exclude-standard", "--directory"]));
            let files = self.ls_files(&["--ignored", "--exclude-standard"]);
            let dirs = dirs.join().unwrap_or_else(|_| {
                Err(StdError::new(
                    ErrorCode::RequestFailed,
                    "a git invocation thread panicked",
                ))
            });
            (files, dirs)
        });
        let (files, dirs) = (files?, dirs?);
        let hidden = self.input.hidden;
        let files: Vec<&str> = names(&files.stdout).collect();
        let dirs: Vec<&str> = names(&dirs.stdout)
            .filter_map(|d| d.strip_suffix('/'))
            .collect();
        // Each ignored path, with whether it is a directory itself.
        let paths = || {
            files
                .iter()
                .map(|f| (*f, false))
                .chain(dirs.iter().map(|d| (*d, true)))
        };
        let mut asked: Vec<&str> = Vec::new();
        let mut seen = HashSet::new();
        for (path, is_dir) in paths() {
            for (prefix, dir) in steps(path, is_dir, hidden) {
                if dir && seen.insert(prefix) {
                    asked.push(prefix);
                }
            }
        }
        let mut stdin = Vec::new();
        for d in &asked {
            stdin.extend_from_slice(d.as_bytes());
            stdin.push(0);
        }
        // No directory to ask about: only the files decide.
        let out = if asked.is_empty() {
            None
        } else {
            let out = self.git.run(
                self.root,
                &["check-ignore", "--no-index", "-z", "--stdin"],
                &stdin,
            )?;
            refused(&out, "check-ignore")?;
            Some(out)
        };
        let ignored_dirs: HashSet<&str> = out
            .as_ref()
            .map_or_else(HashSet::new, |out| names(&out.stdout).collect());
        for (path, is_dir) in paths() {
            for (prefix, dir) in steps(path, is_dir, hidden) {
                if dir {
                    if ignored_dirs.contains(prefix) {
                        // The first ignored directory on the way (§7.5).
                        return Ok(true);
                    }
                } else if std::fs::metadata(self.root.join(path)).is_ok_and(|m| m.is_file())
                    && self.globs.includes(path, basename(path))
                {
                    // An ignored file the pattern admits (§7.5).
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }
}

impl Search for Git {
    fn name(&self) -> &str {
        "git"
    }

    fn version(&self) -> String {
        match self.availability() {
            Ok(v) => v.to_string(),
            Err(_) => "unavailable".to_string(),
        }
    }

    fn grep(&self, _: &GrepInput) -> Result<GrepOutput, StdError> {
        Err(not_implemented("git", "grep"))
    }

    fn glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError> {
        let globs = GlobList::new(std::slice::from_ref(&input.pattern))?;
        // §7.1: only the root can fail.
        let root = input.root.as_str();
        let meta = std::fs::metadata(root).map_err(|e| StdError::cannot_search(root, &e))?;
        if meta.is_file() {
            // §7.1 step 2: whatever the pattern, hidden flag or rules say.
            return glob_answer(input, vec![normalize_path(root)], || Ok(false));
        }
        std::fs::read_dir(root).map_err(|e| StdError::cannot_search(root, &e))?;
        if self.availability().is_err() {
            return Err(StdError::new(ErrorCode::ProviderUnavailable, CANNOT_START));
        }
        let fs_root = Path::new(if root.is_empty() { "." } else { root });
        let call = Call {
            input,
            root: fs_root,
            git: Isolated::new(&self.program, self.deadline())?,
            globs,
        };
        let paths = call.paths()?;
        glob_answer(input, paths, || {
            if input.no_ignore {
                Ok(false)
            } else {
                call.ignored()
            }
        })
    }

    fn supports(&self, method: Method) -> bool {
        match method {
            Method::Glob | Method::FlowGlob => true,
            Method::Grep
            | Method::FlowGrep
            | Method::FlowRead
            | Method::FlowLs
            | Method::FlowBash => false,
        }
    }
}
