//! The walk, search-contract §7: root resolution (§7.1), descent with the
//! fixed skip list, hidden names and `.gitignore` scopes (§7.2, §7.3, §9),
//! symlinks (§7.4), the `ignored` flag (§7.5) and the sorted candidate
//! list (§7.6).
//!
//! Sequential and recursive: one directory at a time, every entry stated,
//! the whole list sorted at the end.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::contract::{ErrorCode, StdError};

use super::glob;
use super::ignore::{self, Scope};
use super::text::{decode, output_path, utf16_order};

/// §7.3: the 24 names never descended into or listed below the root.
pub(crate) const SKIPPED: [&str; 24] = [
    ".git",
    ".hg",
    ".jj",
    ".svn",
    ".flows",
    ".artifacts",
    ".backend-go-modcache",
    ".pnpm-store",
    ".worktrees",
    "worktrees",
    ".flows-checkpoints",
    ".flows-test-base",
    "node_modules",
    "__pycache__",
    ".venv",
    ".tox",
    ".nox",
    ".eggs",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".gradle",
    ".turbo",
    ".next",
];

/// What the walk is asked (the fields of a call that steer it).
pub(crate) struct Options<'a> {
    pub(crate) root: &'a str,
    pub(crate) hidden: bool,
    pub(crate) no_ignore: bool,
    /// The call's globs: grep's `globs`, or glob's `[pattern]`.
    pub(crate) globs: &'a [String],
}

/// One file to search or list.
pub(crate) struct Candidate {
    /// Its spelling in answers (§6.4).
    pub(crate) path: String,
    /// Where to open it.
    pub(crate) fs_path: PathBuf,
}

/// The walk's answer.
pub(crate) struct Walked {
    /// §7.6, in UTF-16 order of `path`.
    pub(crate) candidates: Vec<Candidate>,
    /// The root named one file (§7.1 step 2).
    pub(crate) explicit_file: bool,
    /// §7.5.
    pub(crate) ignored: bool,
}

/// §7.1's mapping of a failure to stat or list the root.
fn root_error(root: &str, err: &io::Error) -> StdError {
    let text = err.to_string();
    let host = match text.rfind(" (os error ") {
        Some(at) => text[..at].to_string(),
        None => text,
    };
    let code = match err.kind() {
        io::ErrorKind::NotFound => {
            return StdError::new(ErrorCode::NotFound, format!("Path not found: {root}"))
                .with_path(root);
        }
        io::ErrorKind::PermissionDenied => ErrorCode::PermissionDenied,
        _ => ErrorCode::CommandFailed,
    };
    StdError::new(code, format!("Cannot search {root}: {host}")).with_path(root)
}

fn is_symlink(path: &Path) -> bool {
    fs::read_link(path).is_ok()
}

/// §7: the candidates of one call.
pub(crate) fn walk(options: &Options<'_>) -> Result<Walked, StdError> {
    let root = options.root;
    let meta = fs::metadata(root).map_err(|e| root_error(root, &e))?;
    if meta.is_file() {
        return Ok(Walked {
            candidates: vec![Candidate {
                path: output_path(root, ""),
                fs_path: PathBuf::from(root),
            }],
            explicit_file: true,
            ignored: false,
        });
    }
    let mut state = State {
        options,
        files: Vec::new(),
        ignored: false,
    };
    // The root's own listing fails the call (§7.1 step 3).
    let names = list(Path::new(root)).map_err(|e| root_error(root, &e))?;
    state.descend(Path::new(root), "", names, &[]);
    let mut candidates: Vec<Candidate> = Vec::new();
    for (relative, fs_path) in state.files {
        let name = relative.rsplit('/').next().unwrap_or(&relative);
        if !glob::included(options.globs, &relative, name) || is_symlink(&fs_path) {
            continue;
        }
        candidates.push(Candidate {
            path: output_path(root, &relative),
            fs_path,
        });
    }
    candidates.sort_by(|a, b| utf16_order(&a.path, &b.path));
    Ok(Walked {
        candidates,
        explicit_file: false,
        ignored: state.ignored,
    })
}

/// The names in a directory. A name that is not UTF-8 cannot be spelled in
/// an answer; the host decoder would have mangled it, so its stat fails
/// and it is dropped (§7.2 step 4).
fn list(dir: &Path) -> io::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if let Ok(name) = entry.file_name().into_string() {
            names.push(name);
        }
    }
    Ok(names)
}

struct State<'a> {
    options: &'a Options<'a>,
    /// Walked files: root-relative path and where to open it.
    files: Vec<(String, PathBuf)>,
    ignored: bool,
}

impl State<'_> {
    /// §7.2 for the directory `dir` (root-relative `relative`), already
    /// listed as `names`, under the scopes of its ancestors.
    fn descend(&mut self, dir: &Path, relative: &str, names: Vec<String>, scopes: &[Scope]) {
        let mut scopes = scopes.to_vec();
        if !self.options.no_ignore && names.iter().any(|n| n == ".gitignore") {
            let content = fs::read(dir.join(".gitignore"))
                .map(|bytes| decode(&bytes))
                .unwrap_or_default();
            let rules = ignore::parse(&content);
            if !rules.is_empty() {
                scopes.push(Scope {
                    directory: relative.to_string(),
                    rules,
                });
            }
        }
        for name in names {
            if SKIPPED.contains(&name.as_str()) || (!self.options.hidden && name.starts_with('.')) {
                continue;
            }
            let child = dir.join(&name);
            let child_relative = if relative.is_empty() {
                name.clone()
            } else {
                format!("{relative}/{name}")
            };
            let Ok(meta) = fs::metadata(&child) else {
                continue;
            };
            let is_dir = meta.is_dir();
            if !(is_dir || meta.is_file()) {
                continue;
            }
            if ignore::ignored(&scopes, &child_relative, is_dir) {
                if is_dir || glob::included(self.options.globs, &child_relative, &name) {
                    self.ignored = true;
                }
                continue;
            }
            if meta.is_file() {
                self.files.push((child_relative, child));
            } else if !is_symlink(&child) {
                // A directory that cannot be listed is empty (step 1).
                let names = list(&child).unwrap_or_default();
                self.descend(&child, &child_relative, names, &scopes);
            }
        }
    }
}
