//! The `rg --files` listings `ripgrep-walk` takes of a tree, kept for the
//! next call on the same tree, so a tree is listed once per law and not
//! once per call (issue 47: about 3 `rg` processes per law, each about
//! 1.75 ms of CPU before it lists anything).
//!
//! # What is kept
//!
//! A call lists its tree up to three ways (`W`, `N`, `A`: the
//! `walk_peer` module doc): each listing is a function of the tree, the
//! `hidden` and `noIgnore` flags and, for `A`, the caller's globs. Each
//! calling thread keeps the listings of the last tree it asked about: every
//! listing without globs (at most four: `hidden` × `noIgnore`) and the
//! listings with globs of its last call. So the second seam call of §18's
//! literal retry lists nothing, and laws that share a tree share its `W`
//! and `N`. A call on another tree drops them.
//!
//! # When a kept listing is stale
//!
//! Never served stale: each call first takes the tree's *shape*, and a
//! kept listing serves only a call that finds the same shape. The shape is
//! what `rg --files` can see under the walk flags of `ripgrep-walk`
//! (`HOST_INDEPENDENCE`): every entry's name and type, directory by
//! directory (a directory that cannot be listed, as such), and the bytes of
//! every `.gitignore`, the only ignore files those flags read. File
//! contents do not change a listing, and the skip list's names are never
//! descended by `rg` (`--glob=!name`), so neither is taken. The shape is
//! compared byte for byte, not by timestamps: a directory changed twice
//! within one tick of the file system's clock keeps its mtime.
//!
//! Taking the shape reads every directory of the tree (no file but the
//! `.gitignore`s) in this process: tens of microseconds for a law's tree,
//! against a process start per listing.

use std::cell::RefCell;
use std::collections::HashSet;
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::RgOptions;
use crate::contract::skip::is_skipped;

/// A listing of the tree at `rg`'s working directory: the relative paths
/// `rg --files` printed.
pub(super) type Listing = Arc<HashSet<String>>;

/// What a listing depends on beside the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Key {
    /// `--hidden`.
    pub hidden: bool,
    /// `--no-ignore`.
    pub no_ignore: bool,
    /// The caller's `--glob`s, when given.
    pub globs: Option<Vec<String>>,
}

/// The kept listings of one tree.
#[derive(Debug)]
struct Tree {
    /// The `rg` that listed it, and how.
    rg: RgOptions,
    /// `rg`'s working directory: the root.
    cwd: String,
    shape: Vec<u8>,
    listings: Vec<(Key, Listing)>,
}

thread_local! {
    /// The last tree this thread asked `ripgrep-walk` about.
    static LAST: RefCell<Option<Tree>> = const { RefCell::new(None) };
}

/// The listings one call may reuse and the ones it takes, kept for the
/// next call when it ends ([`CallListings::keep`]).
#[derive(Debug)]
pub(super) struct CallListings {
    /// The tree and its shape at the call's start; `None`: nothing is kept
    /// (the shape could not be taken).
    tree: Option<(RgOptions, String, Vec<u8>)>,
    /// The shape holds no `.gitignore` (so no ignore file at all, under
    /// the walk flags): `--no-ignore` lists the same.
    no_gitignore: bool,
    /// What the last call on the same tree listed.
    known: Vec<(Key, Listing)>,
    /// What this call listed.
    fresh: Mutex<Vec<(Key, Listing)>>,
}

impl CallListings {
    /// The listings kept for the tree at `cwd` (a directory root), when
    /// its shape is the one they were taken of. The shape is taken before
    /// any `rg` of the call runs, so a listing kept under it is never older
    /// than it.
    pub(super) fn open(rg: &RgOptions, cwd: &str) -> CallListings {
        let Some(Shape {
            bytes: shape,
            gitignores,
        }) = shape(Path::new(if cwd.is_empty() { "." } else { cwd }))
        else {
            return CallListings::none();
        };
        let known = LAST.with(|last| {
            let mut last = last.borrow_mut();
            match last.take() {
                Some(tree) if tree.rg == *rg && tree.cwd == cwd && tree.shape == shape => {
                    tree.listings
                }
                _ => Vec::new(),
            }
        });
        CallListings {
            tree: Some((rg.clone(), cwd.to_string(), shape)),
            no_gitignore: gitignores == 0,
            known,
            fresh: Mutex::new(Vec::new()),
        }
    }

    /// Nothing kept, nothing to keep (a file root).
    pub(super) fn none() -> CallListings {
        CallListings {
            tree: None,
            no_gitignore: false,
            known: Vec::new(),
            fresh: Mutex::new(Vec::new()),
        }
    }

    /// Whether the tree, as the call found it, holds no `.gitignore`:
    /// under the walk flags of `ripgrep-walk` (`--no-ignore-dot`,
    /// `--no-ignore-exclude`, `--no-ignore-global`, `--no-ignore-parent`)
    /// `rg` reads no other ignore file, so `--no-ignore` then changes no
    /// listing, and `W` is `N`. (False when unknown.)
    pub(super) fn has_no_gitignore(&self) -> bool {
        self.no_gitignore
    }

    /// The listing for `key`, kept or taken by `list` now.
    pub(super) fn get<E>(
        &self,
        key: Key,
        list: impl FnOnce() -> Result<HashSet<String>, E>,
    ) -> Result<Listing, E> {
        if let Some((_, listing)) = self.known.iter().find(|(k, _)| *k == key) {
            return Ok(Arc::clone(listing));
        }
        let listing = Arc::new(list()?);
        if self.tree.is_some() {
            self.fresh
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .push((key, Arc::clone(&listing)));
        }
        Ok(listing)
    }

    /// Keep this call's listings for the next call on this thread: those
    /// without globs, kept or taken, and those with globs it used.
    pub(super) fn keep(self) {
        let Some((rg, cwd, shape)) = self.tree else {
            return;
        };
        let fresh = self
            .fresh
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut listings: Vec<(Key, Listing)> = self
            .known
            .into_iter()
            .filter(|(key, _)| key.globs.is_none())
            .collect();
        for (key, listing) in fresh {
            if !listings.iter().any(|(k, _)| *k == key) {
                listings.push((key, listing));
            }
        }
        LAST.with(|last| {
            *last.borrow_mut() = Some(Tree {
                rg,
                cwd,
                shape,
                listings,
            });
        });
    }
}

/// A tree's shape (module doc), and how many `.gitignore`s it holds.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Shape {
    /// Each directory's entries, sorted, with their types, depth first,
    /// and every `.gitignore`'s bytes.
    pub bytes: Vec<u8>,
    /// Entries named `.gitignore`, of any type, anywhere in the tree but
    /// under a skip-listed directory.
    pub gitignores: usize,
}

/// The tree's shape; `None` when the root itself cannot be listed.
pub(super) fn shape(root: &Path) -> Option<Shape> {
    let mut out = Vec::new();
    let mut gitignores = 0;
    let listing = std::fs::read_dir(root).ok()?;
    let mut stack = vec![(root.to_path_buf(), Some(listing))];
    while let Some((dir, listing)) = stack.pop() {
        out.extend_from_slice(b"\x00dir ");
        out.extend_from_slice(dir.as_os_str().as_encoded_bytes());
        let listing = match listing.map(Ok).unwrap_or_else(|| std::fs::read_dir(&dir)) {
            Ok(listing) => listing,
            Err(_) => {
                out.extend_from_slice(b"\x00unlistable");
                continue;
            }
        };
        let mut entries: Vec<(std::ffi::OsString, u8)> = listing
            .map(|entry| match entry {
                Ok(entry) => {
                    let kind = match entry.file_type() {
                        Ok(t) if t.is_symlink() => b'l',
                        Ok(t) if t.is_dir() => b'd',
                        Ok(t) if t.is_file() => b'f',
                        Ok(_) => b'o',
                        Err(_) => b'?',
                    };
                    (entry.file_name(), kind)
                }
                // An entry the listing could not read: its place is kept.
                Err(_) => (std::ffi::OsString::new(), b'!'),
            })
            .collect();
        entries.sort();
        for (name, kind) in entries {
            out.push(0);
            out.push(kind);
            out.extend_from_slice(name.as_encoded_bytes());
            let named = name.to_str();
            if named == Some(".gitignore") {
                gitignores += 1;
                // Read as `rg` reads it: through a link, if it is one.
                match std::fs::read(dir.join(&name)) {
                    Ok(bytes) => {
                        out.extend_from_slice(format!("\x00{}\x00", bytes.len()).as_bytes());
                        out.extend_from_slice(&bytes);
                    }
                    Err(_) => out.extend_from_slice(b"\x00unreadable"),
                }
            }
            if kind == b'd' && !named.is_some_and(is_skipped) {
                stack.push((dir.join(&name), None));
            }
        }
    }
    Some(Shape {
        bytes: out,
        gitignores,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape changes with every change a listing can see (an entry
    /// added, removed, renamed or retyped anywhere; a `.gitignore` edited,
    /// even keeping its length; a directory made unlistable) and with none
    /// it cannot (a file's content, anything under a skip-listed
    /// directory).
    #[test]
    fn the_shape_sees_what_a_listing_sees() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir_all(root.join("node_modules/x")).unwrap();
        std::fs::write(root.join("a/b/c.txt"), "one").unwrap();
        std::fs::write(root.join("a/.gitignore"), "*.log\n").unwrap();
        let first = shape(root).unwrap();
        assert_eq!(first.gitignores, 1);
        let first = first.bytes;
        assert_eq!(shape(root).unwrap().bytes, first);

        std::fs::write(root.join("a/b/c.txt"), "other content").unwrap();
        std::fs::write(root.join("node_modules/x/new.js"), "").unwrap();
        assert_eq!(shape(root).unwrap().bytes, first, "what no listing sees");

        let mut seen = first;
        let mut changed = |what: &str| {
            let now = shape(root).unwrap().bytes;
            assert_ne!(now, seen, "{what}");
            seen = now;
        };
        std::fs::write(root.join("a/.gitignore"), "*.tmp\n").unwrap();
        changed("a .gitignore edited to the same length");
        std::fs::write(root.join("a/b/d.txt"), "").unwrap();
        changed("a file added");
        std::fs::rename(root.join("a/b/d.txt"), root.join("a/b/e.txt")).unwrap();
        changed("a file renamed");
        std::fs::remove_file(root.join("a/b/e.txt")).unwrap();
        std::fs::create_dir(root.join("a/b/e.txt")).unwrap();
        changed("a file replaced by a directory");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("c.txt", root.join("a/b/link")).unwrap();
            changed("a link added");
        }
    }
}
