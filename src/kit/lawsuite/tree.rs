//! What the tree holds as it is drawn, and the `/`-separated path
//! helpers every step uses. Nothing here draws.

use std::collections::HashSet;

use crate::kit::plan::{FileKind, GeneratedFile};

/// What the tree holds, and the names later steps draw from.
#[derive(Default)]
pub(super) struct Tree {
    /// The plan's entries, in generation order.
    pub(super) entries: Vec<GeneratedFile>,
    /// Directories files may be placed in, `""` (the root) first; a
    /// directory nothing lands in never exists on disk.
    pub(super) dirs: Vec<String>,
    /// Paths of entries that are not directories (files and links).
    leaves: HashSet<String>,
    /// Every directory path claimed, including all ancestors of entries.
    pub(super) claimed_dirs: HashSet<String>,
    /// ASCII words of the lines written, in first-use order.
    pub(super) words: Vec<String>,
    word_set: HashSet<String>,
    /// Paths worth using as explicit roots: hidden, binary, skipped,
    /// ignored-looking, linked, unreadable.
    pub(super) notable: Vec<String>,
}

impl Tree {
    /// Whether `path` can be a new leaf: not taken, not a directory, and no
    /// ancestor is a leaf.
    fn leaf_free(&self, path: &str) -> bool {
        !self.leaves.contains(path)
            && !self.claimed_dirs.contains(path)
            && ancestors(path).all(|dir| !self.leaves.contains(dir))
    }

    /// Whether `path` can be (or already is) a directory.
    pub(super) fn dir_free(&self, path: &str) -> bool {
        !self.leaves.contains(path) && ancestors(path).all(|dir| !self.leaves.contains(dir))
    }

    pub(super) fn claim_dir(&mut self, path: &str) -> bool {
        if !self.dir_free(path) {
            return false;
        }
        for dir in ancestors(path).chain(std::iter::once(path)) {
            self.claimed_dirs.insert(dir.to_string());
        }
        true
    }

    /// Adds a file or symlink entry if its path is free.
    pub(super) fn add_leaf(&mut self, entry: GeneratedFile) -> bool {
        if !self.leaf_free(&entry.path) {
            return false;
        }
        for dir in ancestors(&entry.path) {
            self.claimed_dirs.insert(dir.to_string());
        }
        self.leaves.insert(entry.path.clone());
        self.entries.push(entry);
        true
    }

    /// Adds a directory entry if its path can be a directory.
    pub(super) fn add_dir(&mut self, entry: GeneratedFile) -> bool {
        if !self.claim_dir(&entry.path) {
            return false;
        }
        self.entries.push(entry);
        true
    }

    pub(super) fn note(&mut self, path: &str) {
        self.notable.push(path.to_string());
    }

    pub(super) fn learn_words(&mut self, line: &str) {
        for word in line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if word.len() >= 2 && self.word_set.insert(word.to_string()) {
                self.words.push(word.to_string());
            }
        }
    }

    /// Regular files, in entry order.
    pub(super) fn files(&self) -> Vec<String> {
        self.entries
            .iter()
            .filter(|entry| entry.kind == FileKind::File)
            .map(|entry| entry.path.clone())
            .collect()
    }

    /// Directories that will exist on disk, in first-seen order, root
    /// excluded.
    pub(super) fn existing_dirs(&self) -> Vec<String> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for entry in &self.entries {
            let own = (entry.kind == FileKind::Dir).then_some(entry.path.as_str());
            for dir in ancestors(&entry.path).chain(own) {
                if seen.insert(dir) {
                    out.push(dir.to_string());
                }
            }
        }
        out
    }
}

/// The proper ancestors of a `/`-separated path, shallowest first
/// (`a/b/c` → `a`, `a/b`).
pub(super) fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    path.match_indices('/').map(move |(at, _)| &path[..at])
}

/// `dir/name`, or `name` at the root.
pub(super) fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// Directory depth: `""` is 0, `a` is 1, `a/b` is 2.
pub(super) fn depth(dir: &str) -> usize {
    if dir.is_empty() {
        0
    } else {
        dir.matches('/').count() + 1
    }
}

/// The last segment of a path.
pub(super) fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The first segment of a path.
pub(super) fn first_segment(path: &str) -> &str {
    path.split('/').next().unwrap_or(path)
}

/// A link target reaching `to` (root-relative) from a link in `from_dir`.
pub(super) fn relative(from_dir: &str, to: &str) -> String {
    let mut parts = vec![".."; depth(from_dir)];
    if !to.is_empty() {
        parts.push(to);
    }
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}
