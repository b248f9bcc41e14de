//! Writing a plan's tree to disk (conformance-kit §3), and the temporary
//! directories that trees are written into.
//!
//! §3 says: for each file in order, create the parent directory of
//! `root/path` recursively, then write the content, overwriting; nothing is
//! deleted first, and zero files create nothing. [`materialize`] does that,
//! with one difference the TypeScript kit does not need: a plan may come
//! from a regression file someone edited, so a path that could leave the
//! tree is refused with a [`MaterializeError`] instead of written. Paths
//! are checked lexically for every file before anything is written
//! ([`validate`]); the symlink check runs as each file's parent chain is
//! walked.
//!
//! Entries may also be empty directories and symlinks, and may carry
//! permission bits ([`FileKind`], [`GeneratedFile::mode`]); the `lawsuite`
//! generator's full ground uses them for dangling links, link loops and
//! unreadable directories. Modes are applied after everything is written,
//! files first, then directories deepest first, so a directory made
//! unreadable does not stop its own contents from being written.
//!
//! [`TempTree`] is the "fresh temp root" of STYLE's test rules: a new
//! directory under the system temp dir, removed on drop (also while a
//! panic unwinds), so a fixture never lands in the user's tree and never
//! picks up a parent's `.gitignore` by accident. Before removing, it gives
//! its owner back `rwx` on every directory inside, so a plan's unreadable
//! directory cannot make cleanup fail.

use std::fmt;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::kit::plan::{FileKind, GeneratedFile};

/// Why a file of a plan was not written.
///
/// `Display` is one sentence naming the path and what to do about it.
///
/// ```
/// use lawsuite::kit::materialize::MaterializeError;
/// let err = MaterializeError::DotSegment { path: "a/../../x".into(), segment: "..".into() };
/// assert_eq!(
///     err.to_string(),
///     "Refusing to write \"a/../../x\": its \"..\" segment could leave or confuse the tree root; spell the path without \".\" or \"..\" segments.",
/// );
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum MaterializeError {
    /// The path is the empty string.
    Empty,
    /// The path is absolute (or, on Windows, carries a drive or UNC prefix).
    Absolute {
        /// The path as the plan spells it.
        path: String,
    },
    /// The path holds a `.` or `..` segment.
    DotSegment {
        /// The path as the plan spells it.
        path: String,
        /// `"."` or `".."`.
        segment: String,
    },
    /// The path holds an empty segment (`a//b`, or a trailing `/`).
    EmptySegment {
        /// The path as the plan spells it.
        path: String,
    },
    /// The path holds a NUL byte, which no filesystem accepts.
    Nul {
        /// The path as the plan spells it.
        path: String,
    },
    /// The platform would split the path differently from `/` (for
    /// example a `\` on Windows), so its segments could not be checked.
    Unportable {
        /// The path as the plan spells it.
        path: String,
    },
    /// A directory on the way to the file, or the file itself, is an
    /// existing symlink, through which the write could leave the tree.
    Symlink {
        /// The path as the plan spells it.
        path: String,
        /// The symlink found on disk.
        link: PathBuf,
    },
    /// A directory on the way to the file exists but is not a directory.
    NotADirectory {
        /// The path as the plan spells it.
        path: String,
        /// The non-directory found on disk.
        found: PathBuf,
    },
    /// The entry's fields do not fit its kind: a symlink without a
    /// target, a target or content on the wrong kind, or a mode on a
    /// symlink.
    Inconsistent {
        /// The path as the plan spells it.
        path: String,
        /// What is wrong, as a clause (e.g. "a symlink needs a target").
        detail: &'static str,
    },
    /// This platform cannot create the entry (symlinks and modes are
    /// unix-only here).
    Unsupported {
        /// The path as the plan spells it.
        path: String,
        /// What could not be created, e.g. "symlinks".
        what: &'static str,
    },
    /// The filesystem refused an operation.
    Io {
        /// The filesystem path the operation was on.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
}

impl fmt::Display for MaterializeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MaterializeError::Empty => f.write_str(
                "Refusing to write a file with an empty path: give every generated file a relative path such as \"one/a.ts\".",
            ),
            MaterializeError::Absolute { path } => write!(
                f,
                "Refusing to write {path:?}: it is absolute; make it relative to the tree root, e.g. by dropping the leading \"/\".",
            ),
            MaterializeError::DotSegment { path, segment } => write!(
                f,
                "Refusing to write {path:?}: its {segment:?} segment could leave or confuse the tree root; spell the path without \".\" or \"..\" segments.",
            ),
            MaterializeError::EmptySegment { path } => write!(
                f,
                "Refusing to write {path:?}: it has an empty segment; remove the doubled or trailing \"/\".",
            ),
            MaterializeError::Nul { path } => write!(
                f,
                "Refusing to write {path:?}: it holds a NUL byte, which no filesystem accepts; remove it from the plan.",
            ),
            MaterializeError::Unportable { path } => write!(
                f,
                "Refusing to write {path:?}: this platform splits it differently from \"/\"; avoid separators such as \"\\\" in generated names.",
            ),
            MaterializeError::Symlink { path, link } => write!(
                f,
                "Refusing to write {path:?}: {} is a symlink the write could follow out of the tree; materialize into a fresh directory.",
                link.display(),
            ),
            MaterializeError::NotADirectory { path, found } => write!(
                f,
                "Could not write {path:?}: {} exists and is not a directory; materialize into a fresh directory or drop the clashing file from the plan.",
                found.display(),
            ),
            MaterializeError::Inconsistent { path, detail } => write!(
                f,
                "Refusing to write {path:?}: {detail}; fix the entry's kind, target, content or mode in the plan.",
            ),
            MaterializeError::Unsupported { path, what } => write!(
                f,
                "Cannot create {path:?}: {what} are only supported on unix; run full-ground plans on a unix host.",
            ),
            MaterializeError::Io { path, source } => write!(
                f,
                "Could not create or write {} ({source}); check that the directory exists, is writable and has space.",
                path.display(),
            ),
        }
    }
}

impl std::error::Error for MaterializeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MaterializeError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Writes every file of `plan_files` under `dir`, in order (§3).
///
/// Parent directories are created as needed and existing files are
/// overwritten; nothing is deleted, and an empty list creates nothing, not
/// even `dir`. `dir` itself is trusted (it may be or sit under a symlink,
/// as `/tmp` does on macOS); everything below it is checked:
///
/// * every path is checked before anything is written, and one that is
///   empty, absolute, holds a `.`, `..` or empty segment, or a NUL is
///   refused;
/// * a path whose parent chain, or whose own name, is an existing symlink
///   under `dir` is refused, so no write goes through a link;
/// * a [`FileKind::Dir`] entry creates its directory (and parents); a
///   [`FileKind::Symlink`] entry creates a link at its path, which goes
///   through the same checks, to a target that is never followed; an
///   entry whose fields do not fit its kind is refused up front
///   ([`MaterializeError::Inconsistent`]);
/// * after every entry is written, `mode`s are applied: files (in plan
///   order), then directories, deepest first.
///
/// On error, files before the failing one may already have been written.
/// The checks do not guard against another process swapping a directory
/// for a symlink mid-run; they are for plans, not adversaries with access
/// to the temp dir.
///
/// ```
/// use lawsuite::kit::materialize::{materialize, TempTree, MaterializeError};
/// use lawsuite::kit::plan::GeneratedFile;
///
/// let tree = TempTree::new()?;
/// materialize(&[GeneratedFile::new("one/two/a.ts", "needle\n")], tree.path())?;
/// assert_eq!(std::fs::read_to_string(tree.path().join("one/two/a.ts"))?, "needle\n");
///
/// let escape = materialize(&[GeneratedFile::new("../x", "")], tree.path());
/// assert!(matches!(escape, Err(MaterializeError::DotSegment { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn materialize(plan_files: &[GeneratedFile], dir: &Path) -> Result<(), MaterializeError> {
    // Validate all, then write: a bad regression file writes nothing.
    let checked = plan_files
        .iter()
        .map(|file| check_entry(file).map(|segments| (file, segments)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut file_modes = Vec::new();
    let mut dir_modes = Vec::new();
    for (file, segments) in &checked {
        // A run exiting now has removed its trees: writing on would make
        // this one again (its parents are created as needed).
        if CLOSED.load(Ordering::Relaxed) {
            return Err(MaterializeError::Io {
                path: dir.to_path_buf(),
                source: io::Error::other("the run is exiting: no tree is written now"),
            });
        }
        match file.kind {
            FileKind::File => write_file(dir, file, segments)?,
            FileKind::Dir => {
                make_parents(dir, file, segments)?;
            }
            FileKind::Symlink => make_symlink(dir, file, segments)?,
        }
        if let Some(mode) = file.mode {
            let target = segments.iter().fold(dir.to_path_buf(), |p, s| p.join(s));
            match file.kind {
                FileKind::Dir => dir_modes.push((segments.len(), target, mode)),
                _ => file_modes.push((target, mode)),
            }
        }
    }
    // Deepest first: once a parent is `0o000`, its children are out of
    // reach. The sort is stable, so equal depths keep plan order.
    dir_modes.sort_by_key(|entry| std::cmp::Reverse(entry.0));
    let dir_modes = dir_modes
        .into_iter()
        .map(|(_, target, mode)| (target, mode));
    for (target, mode) in file_modes.into_iter().chain(dir_modes) {
        set_mode(&target, mode).map_err(|source| MaterializeError::Io {
            path: target,
            source,
        })?;
    }
    Ok(())
}

/// Checks every entry of `plan_files` as [`materialize`] does before it
/// writes anything, without touching the filesystem: the path rules, and
/// that each entry's fields fit its kind.
///
/// ```
/// use lawsuite::kit::materialize::{validate, MaterializeError};
/// use lawsuite::kit::plan::GeneratedFile;
///
/// assert!(validate(&[GeneratedFile::symlink("a/link", "../../anywhere")]).is_ok());
/// let bad = validate(&[GeneratedFile::new("a/../b", "")]);
/// assert!(matches!(bad, Err(MaterializeError::DotSegment { .. })));
/// ```
pub fn validate(plan_files: &[GeneratedFile]) -> Result<(), MaterializeError> {
    plan_files
        .iter()
        .try_for_each(|file| check_entry(file).map(|_| ()))
}

/// The path's segments, once the entry's fields are known to fit its kind.
fn check_entry(file: &GeneratedFile) -> Result<Vec<&str>, MaterializeError> {
    let segments = segments(&file.path)?;
    let inconsistent = |detail| {
        Err(MaterializeError::Inconsistent {
            path: file.path.clone(),
            detail,
        })
    };
    match file.kind {
        FileKind::File | FileKind::Dir if file.target.is_some() => {
            inconsistent("only a symlink has a target")
        }
        FileKind::Dir if !file.content.is_empty() => inconsistent("a directory has no content"),
        FileKind::Symlink if file.target.is_none() => inconsistent("a symlink needs a target"),
        FileKind::Symlink if !file.content.is_empty() => inconsistent("a symlink has no content"),
        FileKind::Symlink if file.mode.is_some() => {
            inconsistent("a symlink's mode cannot be set portably")
        }
        FileKind::Symlink if cfg!(not(unix)) => Err(MaterializeError::Unsupported {
            path: file.path.clone(),
            what: "symlinks",
        }),
        _ if file.mode.is_some() && cfg!(not(unix)) => Err(MaterializeError::Unsupported {
            path: file.path.clone(),
            what: "permission modes",
        }),
        _ => Ok(segments),
    }
}

/// The `/`-separated segments of a plan path, or why it is refused.
fn segments(path: &str) -> Result<Vec<&str>, MaterializeError> {
    if path.is_empty() {
        return Err(MaterializeError::Empty);
    }
    if path.contains('\0') {
        return Err(MaterializeError::Nul { path: path.into() });
    }
    if path.starts_with('/') || Path::new(path).has_root() {
        return Err(MaterializeError::Absolute { path: path.into() });
    }
    let segments: Vec<&str> = path.split('/').collect();
    for &segment in &segments {
        match segment {
            "" => return Err(MaterializeError::EmptySegment { path: path.into() }),
            "." | ".." => {
                return Err(MaterializeError::DotSegment {
                    path: path.into(),
                    segment: segment.into(),
                });
            }
            _ => {}
        }
    }
    // Defence in depth: the platform must see the same segments, all plain
    // names (no Windows prefix, no `\` splitting `a\..` into `a` and `..`).
    let components: Vec<Component<'_>> = Path::new(path).components().collect();
    let same = components.len() == segments.len()
        && components
            .iter()
            .zip(&segments)
            .all(|(component, segment)| {
                matches!(component, Component::Normal(name) if *name == std::ffi::OsStr::new(segment))
            });
    if !same {
        return Err(MaterializeError::Unportable { path: path.into() });
    }
    Ok(segments)
}

/// Where a new entry at plan path `path` goes under `dir`: its segments
/// checked as every plan path's are, its parent directories made one at a
/// time never through a symlink, and the entry itself not an existing
/// symlink. Every entry the suite makes beside a plan's files (a law's
/// FIFOs, sockets and sized files) is placed through here, so no kind of
/// entry can be made outside the tree.
///
/// ```
/// use lawsuite::kit::materialize::{place, materialize, MaterializeError, TempTree};
/// use lawsuite::kit::plan::GeneratedFile;
/// let tree = TempTree::new()?;
/// materialize(&[GeneratedFile::symlink("out", "..")], tree.path())?;
/// assert!(matches!(place(tree.path(), "out/pwned"), Err(MaterializeError::Symlink { .. })));
/// assert_eq!(place(tree.path(), "a/b")?, tree.path().join("a/b"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn place(dir: &Path, path: &str) -> Result<PathBuf, MaterializeError> {
    let segments = segments(path)?;
    leaf(dir, &GeneratedFile::new(path, ""), &segments)
}

/// Creates `file`'s parent chain under `dir` one directory at a time, never
/// through a symlink, then writes the content.
fn write_file(dir: &Path, file: &GeneratedFile, segments: &[&str]) -> Result<(), MaterializeError> {
    let current = leaf(dir, file, segments)?;
    fs::write(&current, &file.content).map_err(|source| MaterializeError::Io {
        path: current,
        source,
    })
}

/// Creates `file`'s parent chain, then a symlink at its path. The target
/// is stored, never resolved.
fn make_symlink(
    dir: &Path,
    file: &GeneratedFile,
    segments: &[&str],
) -> Result<(), MaterializeError> {
    let current = leaf(dir, file, segments)?;
    let target = file.target.as_deref().unwrap_or_default();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(target, &current).map_err(|source| MaterializeError::Io {
            path: current,
            source,
        })
    }
    #[cfg(not(unix))]
    {
        let _ = (target, current);
        Err(MaterializeError::Unsupported {
            path: file.path.clone(),
            what: "symlinks",
        })
    }
}

/// Sets the permission bits of an entry already written (unix; elsewhere
/// [`check_entry`] has refused every mode before anything was written).
fn set_mode(target: &Path, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(target, fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (target, mode);
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "permission modes are unix-only",
        ))
    }
}

/// Creates the parent chain of `segments` and returns the path of its last
/// segment, refusing it if it is an existing symlink (`fs::write` would
/// follow it).
fn leaf(dir: &Path, file: &GeneratedFile, segments: &[&str]) -> Result<PathBuf, MaterializeError> {
    let Some((name, parents)) = segments.split_last() else {
        // `segments` refuses the empty path, so there is always a name.
        return Err(MaterializeError::Empty);
    };
    let mut current = make_parents(dir, file, parents)?;
    current.push(name);
    if let Ok(meta) = fs::symlink_metadata(&current)
        && meta.file_type().is_symlink()
    {
        return Err(MaterializeError::Symlink {
            path: file.path.clone(),
            link: current,
        });
    }
    Ok(current)
}

/// Walks `parents` under `dir`, creating each missing directory and
/// refusing symlinks and non-directories; returns the last one's path.
fn make_parents(
    dir: &Path,
    file: &GeneratedFile,
    parents: &[&str],
) -> Result<PathBuf, MaterializeError> {
    let mut current = dir.to_path_buf();
    for parent in parents {
        current.push(parent);
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(MaterializeError::Symlink {
                    path: file.path.clone(),
                    link: current,
                });
            }
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(MaterializeError::NotADirectory {
                    path: file.path.clone(),
                    found: current,
                });
            }
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                // `create_dir`, not `create_dir_all`: the latter would
                // follow a link we have not looked at.
                fs::create_dir(&current).map_err(|source| MaterializeError::Io {
                    path: current.clone(),
                    source,
                })?;
            }
            Err(source) => {
                return Err(MaterializeError::Io {
                    path: current,
                    source,
                });
            }
        }
    }
    Ok(current)
}

/// A fresh directory under [`std::env::temp_dir`], removed with everything
/// in it when dropped, including while a panic unwinds.
///
/// Its name is `lawsuite-{pid}-{counter}-{nanos}` and it is made with
/// `create_dir`, which fails rather than reuse an existing directory.
///
/// ```
/// use lawsuite::kit::materialize::TempTree;
/// use lawsuite::kit::plan::GeneratedFile;
///
/// let tree = TempTree::with_files(&[GeneratedFile::new("a.txt", "hit\n")])?;
/// let root = tree.path().to_path_buf();
/// assert!(root.join("a.txt").is_file());
/// drop(tree);
/// assert!(!root.exists());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct TempTree {
    path: PathBuf,
}

/// Distinguishes trees made by one process in the same clock tick.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Name clashes are near impossible (pid + counter + time); the bound only
/// stops a loop on a temp dir that always answers "exists".
const CREATE_ATTEMPTS: u32 = 16;

impl TempTree {
    /// Creates a new, empty temporary directory, under
    /// [`crate::environment::trees_dir`] (tmpfs where there is one).
    pub fn new() -> Result<TempTree, MaterializeError> {
        let base = crate::environment::trees_dir();
        let pid = std::process::id();
        let mut last = None;
        for _ in 0..CREATE_ATTEMPTS {
            let count = COUNTER.fetch_add(1, Ordering::Relaxed);
            // A clock before 1970 only weakens uniqueness; the counter and
            // `create_dir` still keep trees apart.
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|elapsed| elapsed.as_nanos())
                .unwrap_or(0);
            let path = base.join(format!("lawsuite-{pid}-{count}-{nanos}"));
            // Created under the lock, so a tree is either known to
            // [`remove_live_trees`] or never made once it has run.
            let mut live = live_trees();
            if live.closed {
                return Err(MaterializeError::Io {
                    path: base,
                    source: io::Error::other("the run is exiting: no tree is written now"),
                });
            }
            let mut made = fs::create_dir(&path);
            if made
                .as_ref()
                .is_err_and(|e| e.kind() == io::ErrorKind::NotFound)
            {
                // The temporary directory itself is gone: a peer removed
                // the parent of the tree it was given. Made again, so the
                // trials after it still get trees (they were all broken,
                // with nobody named).
                made = fs::create_dir_all(&base).and_then(|()| fs::create_dir(&path));
            }
            match made {
                Ok(()) => {
                    live.paths.insert(path.clone());
                    return Ok(TempTree { path });
                }
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => last = Some((path, err)),
                Err(source) => return Err(MaterializeError::Io { path, source }),
            }
        }
        let (path, source) = last.unwrap_or_else(|| {
            (
                base,
                io::Error::new(io::ErrorKind::AlreadyExists, "no attempt made"),
            )
        });
        Err(MaterializeError::Io { path, source })
    }

    /// Creates a new temporary directory and [`materialize`]s `files` into
    /// it. On error the directory is removed again.
    pub fn with_files(files: &[GeneratedFile]) -> Result<TempTree, MaterializeError> {
        let tree = TempTree::new()?;
        materialize(files, tree.path())?;
        Ok(tree)
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// How many times a tree's removal is tried. A peer's background process
/// that keeps writing into a tree it was asked about (a vandal of issue
/// 38's) can create a file between `remove_dir_all` emptying a directory
/// and removing it; the next attempt removes what it wrote. A count of
/// tries, not a bound on any answer.
const REMOVE_ATTEMPTS: u32 = 8;

impl Drop for TempTree {
    fn drop(&mut self) {
        // Best effort: a failure to clean up must not turn into a panic
        // inside a drop (which would abort during unwinding).
        // `remove_dir_all` does not follow symlinks inside the tree, and
        // neither does `restore_permissions`. Most trees go at the first
        // try; only one that resists (a `0o000` directory, a peer's
        // process still writing) is walked to give its permissions back,
        // which was a second listing of every tree.
        if fs::remove_dir_all(&self.path).is_ok() {
            live_trees().paths.remove(&self.path);
            return;
        }
        for attempt in 0..REMOVE_ATTEMPTS {
            restore_permissions(&self.path);
            let _ = fs::remove_dir_all(&self.path);
            if fs::symlink_metadata(&self.path).is_err() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1 << attempt));
        }
        live_trees().paths.remove(&self.path);
    }
}

/// The trees of this process not yet dropped.
struct LiveTrees {
    paths: std::collections::BTreeSet<PathBuf>,
    /// Set by [`remove_live_trees`]: no tree is made after it.
    closed: bool,
}

static CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn live_trees() -> std::sync::MutexGuard<'static, LiveTrees> {
    static LIVE: std::sync::Mutex<LiveTrees> = std::sync::Mutex::new(LiveTrees {
        paths: std::collections::BTreeSet::new(),
        closed: false,
    });
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Remove every [`TempTree`] of this process that is still there, as
/// their drops would, and make no tree after it: what a run that must exit
/// now (a second interrupt, trials that did not finish in time) does just
/// before it exits, since the threads holding them will not run their
/// drops. Returns how many were removed.
pub fn remove_live_trees() -> usize {
    let paths = {
        let mut live = live_trees();
        live.closed = true;
        CLOSED.store(true, Ordering::Relaxed);
        std::mem::take(&mut live.paths)
    };
    for path in &paths {
        restore_permissions(path);
        let _ = fs::remove_dir_all(path);
    }
    paths.len()
}

/// Gives the owner `rwx` on `dir` and every directory below it (not
/// through symlinks), so that a plan's `0o000` directory can be listed and
/// emptied. Errors are ignored: this only prepares a best-effort removal.
fn restore_permissions(dir: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mut stack = vec![dir.to_path_buf()];
        while let Some(current) = stack.pop() {
            let Ok(meta) = fs::symlink_metadata(&current) else {
                continue;
            };
            if !meta.is_dir() {
                continue;
            }
            let mode = meta.permissions().mode();
            if mode & 0o700 != 0o700 {
                let _ = fs::set_permissions(&current, fs::Permissions::from_mode(mode | 0o700));
            }
            let Ok(entries) = fs::read_dir(&current) else {
                continue;
            };
            for entry in entries.flatten() {
                // `DirEntry::file_type` does not follow symlinks.
                if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                    stack.push(entry.path());
                }
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type TestResult = Result<(), Box<dyn std::error::Error>>;

    /// Whether an error is the one a case expects.
    type Expect = fn(&MaterializeError) -> bool;

    fn one(path: &str) -> Vec<GeneratedFile> {
        vec![GeneratedFile::new(path, "needle\n")]
    }

    /// Every file and directory under `dir`, relative, sorted.
    fn listing(dir: &Path) -> io::Result<Vec<String>> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(current) = stack.pop() {
            for entry in fs::read_dir(&current)? {
                let entry = entry?;
                let path = entry.path();
                if let Ok(rel) = path.strip_prefix(dir) {
                    out.push(rel.to_string_lossy().into_owned());
                }
                if entry.file_type()?.is_dir() {
                    stack.push(path);
                }
            }
        }
        out.sort();
        Ok(out)
    }

    #[test]
    fn refuses_escaping_and_odd_paths_and_writes_nothing() -> TestResult {
        let outer = TempTree::new()?;
        let dir = outer.path().join("tree");
        fs::create_dir(&dir)?;
        let cases: [(&str, Expect); 8] = [
            (
                "../x",
                |e| matches!(e, MaterializeError::DotSegment { segment, .. } if segment == ".."),
            ),
            ("/abs", |e| matches!(e, MaterializeError::Absolute { .. })),
            (
                "a/../../x",
                |e| matches!(e, MaterializeError::DotSegment { segment, .. } if segment == ".."),
            ),
            (
                "a/./b",
                |e| matches!(e, MaterializeError::DotSegment { segment, .. } if segment == "."),
            ),
            ("", |e| matches!(e, MaterializeError::Empty)),
            ("a/b\0c", |e| matches!(e, MaterializeError::Nul { .. })),
            ("a//b", |e| {
                matches!(e, MaterializeError::EmptySegment { .. })
            }),
            ("a/", |e| matches!(e, MaterializeError::EmptySegment { .. })),
        ];
        for (path, expected) in cases {
            // The bad path comes second: validation must stop the first
            // file from being written too.
            let files = vec![
                GeneratedFile::new("ok.txt", "x"),
                GeneratedFile::new(path, "x"),
            ];
            let err = match materialize(&files, &dir) {
                Err(err) => err,
                Ok(()) => panic!("{path:?} was accepted"),
            };
            assert!(expected(&err), "{path:?} gave {err:?}");
            assert!(err.to_string().ends_with('.'), "{err}");
            assert!(listing(&dir)?.is_empty(), "{path:?} wrote something");
        }
        assert_eq!(listing(outer.path())?, ["tree"]);
        Ok(())
    }

    #[test]
    fn error_messages_name_the_path() {
        let err = MaterializeError::Absolute {
            path: "/abs".into(),
        };
        assert_eq!(
            err.to_string(),
            "Refusing to write \"/abs\": it is absolute; make it relative to the tree root, e.g. by dropping the leading \"/\"."
        );
        let err = MaterializeError::Symlink {
            path: "link/x".into(),
            link: PathBuf::from("/t/link"),
        };
        assert!(err.to_string().contains("\"link/x\""));
        assert!(err.to_string().contains("/t/link is a symlink"));
    }

    #[cfg(unix)]
    #[test]
    fn refuses_a_symlinked_parent_and_writes_nothing_through_it() -> TestResult {
        let outer = TempTree::new()?;
        let dir = outer.path().join("tree");
        let elsewhere = outer.path().join("elsewhere");
        fs::create_dir(&dir)?;
        fs::create_dir(&elsewhere)?;
        std::os::unix::fs::symlink(&elsewhere, dir.join("link"))?;

        for path in ["link/x.txt", "link/deeper/x.txt"] {
            let err = materialize(&one(path), &dir);
            assert!(
                matches!(&err, Err(MaterializeError::Symlink { link, .. }) if *link == dir.join("link")),
                "{path}: {err:?}"
            );
        }
        assert!(listing(&elsewhere)?.is_empty());
        assert_eq!(listing(&dir)?, ["link"]);
        Ok(())
    }

    #[cfg(unix)]
    #[test]
    fn refuses_a_symlink_in_the_file_position() -> TestResult {
        let outer = TempTree::new()?;
        let dir = outer.path().join("tree");
        let target = outer.path().join("target.txt");
        fs::create_dir(&dir)?;
        fs::write(&target, "original")?;
        std::os::unix::fs::symlink(&target, dir.join("a.txt"))?;

        let err = materialize(&one("a.txt"), &dir);
        assert!(
            matches!(err, Err(MaterializeError::Symlink { .. })),
            "{err:?}"
        );
        assert_eq!(fs::read_to_string(&target)?, "original");
        Ok(())
    }

    #[test]
    fn refuses_a_file_where_a_directory_is_needed() -> TestResult {
        let tree = TempTree::new()?;
        let files = vec![
            GeneratedFile::new("other/frames", "needle\n"),
            GeneratedFile::new("other/frames/a.ts", "needle\n"),
        ];
        let err = materialize(&files, tree.path());
        assert!(
            matches!(err, Err(MaterializeError::NotADirectory { .. })),
            "{err:?}"
        );
        Ok(())
    }

    #[test]
    fn writes_nested_files_and_overwrites() -> TestResult {
        let tree = TempTree::new()?;
        let files = vec![
            GeneratedFile::new("three/four/five/a.ts", "needle\n"),
            GeneratedFile::new("three/b.txt", "first"),
            GeneratedFile::new(".gitignore", "cache/\n"),
            GeneratedFile::new("bytes.bin", vec![0u8, 0xff, b'\n']),
            GeneratedFile::new("three/b.txt", "second"),
        ];
        materialize(&files, tree.path())?;
        let root = tree.path();
        assert_eq!(
            fs::read_to_string(root.join("three/four/five/a.ts"))?,
            "needle\n"
        );
        assert_eq!(fs::read_to_string(root.join("three/b.txt"))?, "second");
        assert_eq!(fs::read(root.join("bytes.bin"))?, [0u8, 0xff, b'\n']);
        assert_eq!(
            listing(root)?,
            [
                ".gitignore",
                "bytes.bin",
                "three",
                "three/b.txt",
                "three/four",
                "three/four/five",
                "three/four/five/a.ts",
            ]
        );
        Ok(())
    }

    #[test]
    fn zero_files_create_nothing() -> TestResult {
        let outer = TempTree::new()?;
        let dir = outer.path().join("never");
        materialize(&[], &dir)?;
        assert!(!dir.exists());
        Ok(())
    }

    #[test]
    fn materializes_a_whole_generated_plan() -> TestResult {
        use crate::kit::plan::PlanOptions;
        use crate::kit::smthrs::plan;
        let plan = plan(1, "/r", &PlanOptions::default());
        let tree = TempTree::with_files(&plan.files)?;
        for file in &plan.files {
            assert_eq!(fs::read(tree.path().join(&file.path))?, file.content);
        }
        Ok(())
    }

    #[test]
    fn refuses_entries_whose_fields_do_not_fit_their_kind() {
        let mut with_target = GeneratedFile::new("a", "");
        with_target.target = Some("b".into());
        let mut no_target = GeneratedFile::symlink("l", "t");
        no_target.target = None;
        let mut link_content = GeneratedFile::symlink("l", "t");
        link_content.content = b"x".to_vec();
        let mut dir_content = GeneratedFile::dir("d");
        dir_content.content = b"x".to_vec();
        let cases = [
            with_target,
            no_target,
            link_content,
            dir_content,
            GeneratedFile::symlink("l", "t").with_mode(0o777),
        ];
        for entry in cases {
            let err = validate(std::slice::from_ref(&entry));
            assert!(
                matches!(&err, Err(MaterializeError::Inconsistent { path, .. }) if *path == entry.path),
                "{entry:?}: {err:?}"
            );
            if let Err(err) = err {
                assert!(err.to_string().ends_with('.'), "{err}");
            }
        }
        let link_path = validate(&[GeneratedFile::symlink("a/../l", "t")]);
        assert!(matches!(
            link_path,
            Err(MaterializeError::DotSegment { .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn writes_dirs_symlinks_and_modes_and_drops_cleanly() -> TestResult {
        use std::os::unix::fs::PermissionsExt;
        let files = vec![
            GeneratedFile::new("locked/inner/secret.txt", "needle\n"),
            GeneratedFile::dir("locked").with_mode(0o000),
            GeneratedFile::dir("locked/inner").with_mode(0o500),
            GeneratedFile::dir("empty/deeper"),
            GeneratedFile::new("a.txt", "needle\n").with_mode(0o000),
            GeneratedFile::symlink("one/link", "../a.txt"),
            GeneratedFile::symlink("dangling", "missing/nowhere"),
            GeneratedFile::symlink("loop-a", "loop-b"),
            GeneratedFile::symlink("loop-b", "loop-a"),
            GeneratedFile::symlink("up", ".."),
        ];
        let tree = TempTree::with_files(&files)?;
        let root = tree.path().to_path_buf();
        let mode = |path: &str| -> io::Result<u32> {
            Ok(fs::symlink_metadata(root.join(path))?.permissions().mode() & 0o777)
        };
        assert_eq!(mode("locked")?, 0o000);
        assert_eq!(mode("a.txt")?, 0o000);
        assert!(root.join("empty/deeper").is_dir());
        assert_eq!(
            fs::read_link(root.join("one/link"))?,
            PathBuf::from("../a.txt")
        );
        assert_eq!(
            fs::read_link(root.join("dangling"))?,
            PathBuf::from("missing/nowhere")
        );
        assert!(
            fs::symlink_metadata(root.join("loop-a"))?
                .file_type()
                .is_symlink()
        );
        // Deepest first: `inner` got its mode before `locked` became 000.
        fs::set_permissions(root.join("locked"), fs::Permissions::from_mode(0o700))?;
        assert_eq!(mode("locked/inner")?, 0o500);
        fs::set_permissions(root.join("locked"), fs::Permissions::from_mode(0o000))?;
        drop(tree);
        assert!(!root.exists());
        Ok(())
    }

    #[cfg(unix)]
    #[test]
    fn refuses_to_write_through_a_planned_symlink() -> TestResult {
        let outer = TempTree::new()?;
        let dir = outer.path().join("tree");
        fs::create_dir(&dir)?;
        let files = vec![
            GeneratedFile::symlink("link", ".."),
            GeneratedFile::new("link/escaped.txt", "x"),
        ];
        let err = materialize(&files, &dir);
        assert!(
            matches!(err, Err(MaterializeError::Symlink { .. })),
            "{err:?}"
        );
        assert_eq!(listing(outer.path())?, ["tree", "tree/link"]);
        // A symlink entry over an existing symlink is refused as well.
        let err = materialize(&[GeneratedFile::symlink("link", "elsewhere")], &dir);
        assert!(
            matches!(err, Err(MaterializeError::Symlink { .. })),
            "{err:?}"
        );
        Ok(())
    }

    #[test]
    fn temp_trees_are_distinct_and_removed_on_drop() -> TestResult {
        let a = TempTree::with_files(&one("x/y.txt"))?;
        let b = TempTree::new()?;
        assert_ne!(a.path(), b.path());
        let (pa, pb) = (a.path().to_path_buf(), b.path().to_path_buf());
        assert!(pa.join("x/y.txt").is_file());
        drop(a);
        drop(b);
        assert!(!pa.exists());
        assert!(!pb.exists());
        Ok(())
    }

    #[test]
    fn temp_tree_is_removed_on_panic() -> TestResult {
        let tree = TempTree::with_files(&one("x/y.txt"))?;
        let path = tree.path().to_path_buf();
        let outcome = std::panic::catch_unwind(move || {
            let _tree = tree;
            panic!("a failing test");
        });
        assert!(outcome.is_err());
        assert!(!path.exists());
        Ok(())
    }
}
