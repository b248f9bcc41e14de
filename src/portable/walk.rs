//! The walk: which files are candidates (search-contract §7, with the
//! ignore rules of §9 and glob admission of §8.4).
//!
//! Every peer that does not let a tool walk for it (the portable peer and
//! the `ripgrep` peer, native-peer §0) uses this one walk, so the skip list,
//! hidden rule, `.gitignore` scopes and symlink policy live here only.
//!
//! Host details chosen where the spec says nothing (each pinned by a test):
//! * A directory entry whose name is not valid UTF-8 is dropped. This is what
//!   the reference peer does on Node: `readdir` decodes the name lossily and
//!   the following `stat` of the altered name fails, which §7.2 step 4 drops
//!   silently (README Q5).
//! * The type of a non-symlink entry is taken from the directory listing
//!   (`d_type`) rather than a second `stat`; for symlinks `stat` follows the
//!   link as §7.2 step 4 says. The answer is the same, at half the syscalls.

use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::contract::gitignore::{Gitignore, Scope, is_ignored};
use crate::contract::glob::GlobList;
use crate::contract::skip::{is_hidden, is_skipped};
use crate::contract::{StdError, join_path, normalize_path, utf16_cmp};

use super::pool;

/// What a walk is asked (the subset of a call's input it depends on).
#[derive(Debug)]
pub struct WalkOptions<'a> {
    /// The root as given by the caller.
    pub root: &'a str,
    /// Admit names starting with `.`.
    pub hidden: bool,
    /// Do not read `.gitignore` files.
    pub no_ignore: bool,
    /// The call's globs (grep `globs`, glob `[pattern]`), compiled.
    pub globs: &'a GlobList,
}

/// One candidate file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The output spelling: `normalize(join(root, relative))` (§6.4).
    pub path: String,
    /// The `/`-separated path relative to the root (empty for a file root).
    pub relative: String,
    /// Where to open it.
    pub fs_path: PathBuf,
}

/// The walk's answer: the sorted candidate list (§7.6) and the `ignored`
/// flag that feeds the ignore notice (§7.5).
#[derive(Debug, Default)]
pub struct Walk {
    /// Candidates in UTF-16 order of their output path.
    pub candidates: Vec<Candidate>,
    /// The root named one file (§7.1 step 2).
    pub explicit_file: bool,
    /// Ignore rules dropped a directory or a file the globs would admit.
    pub ignored: bool,
}

/// Walk `options.root` (§7.1–§7.6).
///
/// Only the root can fail: a missing root is `not_found`, a denied one
/// `permission_denied`, anything else `command_failed`. Every failure below
/// the root (unlistable directory, dangling link, loop) drops that entry.
pub fn walk(options: &WalkOptions<'_>) -> Result<Walk, StdError> {
    let root = options.root;
    let meta = fs::metadata(root).map_err(|e| StdError::cannot_search(root, &e))?;
    if meta.is_file() {
        // §7.1 step 2: whatever the globs, hidden flag, skip list or rules say.
        return Ok(Walk {
            candidates: vec![Candidate {
                path: normalize_path(root),
                relative: String::new(),
                fs_path: PathBuf::from(root),
            }],
            explicit_file: true,
            ignored: false,
        });
    }
    let root_path = PathBuf::from(root);
    // §7.1 step 3: listing the root itself fails like `stat` did.
    let listing = fs::read_dir(&root_path).map_err(|e| StdError::cannot_search(root, &e))?;
    let (files, ignored) = descend_all(options, root_path, listing);
    let mut candidates: Vec<Candidate> = files
        .into_iter()
        .filter(|f| options.globs.includes(&f.relative, basename(&f.relative)))
        .filter(|f| !f.symlink)
        .map(|f| Candidate {
            path: join_path(root, &f.relative),
            relative: f.relative,
            fs_path: f.fs_path,
        })
        .collect();
    candidates.sort_by(|a, b| utf16_cmp(&a.path, &b.path));
    Ok(Walk {
        candidates,
        explicit_file: false,
        ignored,
    })
}

/// The last `/`-separated segment of a relative path.
pub(crate) fn basename(relative: &str) -> &str {
    relative.rsplit('/').next().unwrap_or(relative)
}

struct Walked {
    relative: String,
    fs_path: PathBuf,
    /// A symlink to a file: walked, but dropped after glob admission (§7.4).
    symlink: bool,
}

/// The type of a child, after following symlinks (§7.2 step 4).
enum Kind {
    File,
    Dir,
    Other,
}

/// One directory to list, with the `.gitignore` scopes of its ancestors
/// (shallowest first).
struct Job {
    dir: PathBuf,
    rel: String,
    listing: Option<fs::ReadDir>,
    scopes: Arc<Vec<Arc<Scope>>>,
}

/// Walk every directory below the root, on several threads (directories
/// are independent: each carries its own scope stack). The order of
/// discovery does not matter, because the candidates are sorted afterwards
/// and `ignored` is an "any" (§7.6, §7.5).
fn descend_all(
    options: &WalkOptions<'_>,
    root: PathBuf,
    listing: fs::ReadDir,
) -> (Vec<Walked>, bool) {
    let files = Mutex::new(Vec::new());
    let ignored = AtomicBool::new(false);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let seed = Job {
        dir: root,
        rel: String::new(),
        listing: Some(listing),
        scopes: Arc::new(Vec::new()),
    };
    pool::drain(vec![seed], threads, |job| {
        let (found, children, dropped) = list_dir(options, job);
        if dropped {
            ignored.store(true, Ordering::Relaxed);
        }
        files
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .extend(found);
        children
    });
    let files = files
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    (files, ignored.into_inner())
}

/// §7.2 for one directory: its walked files, its subdirectories to walk,
/// and whether ignore rules dropped something that sets the `ignored` flag.
fn list_dir(options: &WalkOptions<'_>, job: Job) -> (Vec<Walked>, Vec<Job>, bool) {
    let mut files = Vec::new();
    let mut children = Vec::new();
    let mut ignored = false;
    // §7.2 step 1: an unlistable directory below the root is empty.
    let listing = match job.listing {
        Some(listing) => listing,
        None => match fs::read_dir(&job.dir) {
            Ok(listing) => listing,
            Err(_) => return (files, children, ignored),
        },
    };
    let mut entries: Vec<(String, fs::DirEntry)> = Vec::new();
    let mut has_gitignore = false;
    for entry in listing.flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue; // non-UTF-8 name: see the module doc
        };
        has_gitignore |= name == ".gitignore";
        entries.push((name, entry));
    }
    // §7.2 step 2: the file is read whether or not `hidden` is set.
    let mut scopes = job.scopes;
    if !options.no_ignore && has_gitignore {
        let content = fs::read(job.dir.join(".gitignore")).unwrap_or_default();
        let rules = Gitignore::parse(&String::from_utf8_lossy(&content));
        if !rules.is_empty() {
            let mut deeper: Vec<Arc<Scope>> = scopes.as_ref().clone();
            deeper.push(Arc::new(Scope {
                dir: job.rel.clone(),
                rules,
            }));
            scopes = Arc::new(deeper);
        }
    }
    let scope_refs: Vec<&Scope> = scopes.iter().map(|s| s.as_ref()).collect();
    for (name, entry) in entries {
        // §7.2 step 3.
        if is_skipped(&name) || (!options.hidden && is_hidden(&name)) {
            continue;
        }
        // §7.2 step 4.
        let Some((kind, symlink)) = child_kind(&entry) else {
            continue;
        };
        let relative = if job.rel.is_empty() {
            name
        } else {
            format!("{}/{name}", job.rel)
        };
        // §7.2 step 5.
        if !scope_refs.is_empty() {
            let is_dir = matches!(kind, Kind::Dir);
            if is_ignored(&scope_refs, &relative, is_dir) {
                if is_dir || options.globs.includes(&relative, basename(&relative)) {
                    ignored = true;
                }
                continue;
            }
        }
        // §7.2 steps 6 and 7.
        match kind {
            Kind::Dir if !symlink => children.push(Job {
                dir: entry.path(),
                rel: relative,
                listing: None,
                scopes: Arc::clone(&scopes),
            }),
            Kind::Dir => {}
            Kind::File => files.push(Walked {
                relative,
                fs_path: entry.path(),
                symlink,
            }),
            Kind::Other => {}
        }
    }
    (files, children, ignored)
}

/// The followed type of a directory entry and whether it is a symlink, or
/// `None` when `stat` fails (dangling link, loop, permission).
fn child_kind(entry: &fs::DirEntry) -> Option<(Kind, bool)> {
    let file_type = entry.file_type().ok()?;
    let (followed, symlink) = if file_type.is_symlink() {
        (fs::metadata(entry.path()).ok()?.file_type(), true)
    } else {
        (file_type, false)
    };
    let kind = if followed.is_dir() {
        Kind::Dir
    } else if followed.is_file() {
        Kind::File
    } else {
        Kind::Other
    };
    Some((kind, symlink))
}
