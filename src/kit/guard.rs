//! The tree guard: what a written tree holds, taken once ([`Snapshot::of`]),
//! and what has changed in it since ([`Snapshot::changes`]).
//!
//! The contract's methods only read the tree they search (search-contract
//! §1; read-ls-flows §1 for `read` and `ls`), so a peer that writes into
//! it is wrong, and worse, it can make another peer asked on the same tree
//! look wrong. Laws ([`crate::law::Tree`]) and seeds
//! ([`super::compare::compare_plan`]) compare a tree with its snapshot
//! after every call and blame the peer that had it.
//!
//! ```
//! use lawsuite::kit::guard::Snapshot;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("a.txt"), "one")?;
//! let snapshot = Snapshot::of(dir.path());
//! assert_eq!(snapshot.changes(dir.path()), None);
//! std::fs::write(dir.path().join("a.txt"), "two")?;
//! let change = snapshot.changes(dir.path()).unwrap();
//! assert!(change.starts_with("a.txt changed (file of 3 bytes"), "{change}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::fs;
use std::hash::Hasher;
use std::io::Read;
use std::path::Path;

use crate::call::TreeSize;

/// Every entry of a tree as it was: path, type, size, modification time,
/// mode, a regular file's bytes (as a digest) and a symlink's target. So a
/// peer that rewrites a file in place and puts its modification time back
/// is still seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    entries: Vec<Fingerprint>,
    size: TreeSize,
}

/// One entry of a snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Fingerprint {
    path: String,
    /// The type, size, modification time, permissions and contents, or
    /// why they could not be read (a `0o000` directory cannot be listed).
    state: String,
}

impl Snapshot {
    /// What the tree under `root` holds now (symlinks not followed).
    pub fn of(root: &Path) -> Snapshot {
        let mut size = TreeSize::default();
        let entries = fingerprints(root, Some(&mut size));
        Snapshot { entries, size }
    }

    /// The tree's longest path, name and line as it was taken: what bounds
    /// the bytes of a correct answer on it ([`crate::call::Budget`]).
    pub fn size(&self) -> TreeSize {
        self.size
    }

    /// How the tree under `root` differs from this snapshot, said in one
    /// sentence naming the first entry created, changed or removed; `None`
    /// when it does not differ.
    pub fn changes(&self, root: &Path) -> Option<String> {
        let now = fingerprints(root, None);
        if now == self.entries {
            return None;
        }
        let before: BTreeMap<&str, &str> = self
            .entries
            .iter()
            .map(|f| (f.path.as_str(), f.state.as_str()))
            .collect();
        let after: BTreeMap<&str, &str> = now
            .iter()
            .map(|f| (f.path.as_str(), f.state.as_str()))
            .collect();
        let change = after
            .iter()
            .find_map(|(path, state)| match before.get(path) {
                None => Some(format!("{path} was created ({state})")),
                Some(was) if was != state => Some(format!("{path} changed ({was} → {state})")),
                Some(_) => None,
            })
            .or_else(|| {
                before
                    .keys()
                    .find(|path| !after.contains_key(*path))
                    .map(|path| format!("{path} was removed"))
            });
        Some(change.unwrap_or_else(|| "its entries were reordered".into()))
    }
}

/// Every entry below `root` (symlinks not followed), sorted by path.
fn fingerprints(root: &Path, mut size: Option<&mut TreeSize>) -> Vec<Fingerprint> {
    let mut out = Vec::new();
    let mut pending = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, rel)) = pending.pop() {
        let listing = match fs::read_dir(&dir) {
            Ok(listing) => listing,
            Err(e) => {
                out.push(Fingerprint {
                    path: format!("{rel}/"),
                    state: format!("unlistable: {:?}", e.kind()),
                });
                continue;
            }
        };
        for entry in listing.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            let state = match entry.metadata() {
                Ok(meta) => {
                    if meta.is_dir() {
                        pending.push((entry.path(), path.clone()));
                    }
                    let mut state = describe(&meta);
                    let longest_line = contents(&entry.path(), &meta, &mut state);
                    if let Some(size) = size.as_deref_mut() {
                        size.longest_path = size.longest_path.max(path.len() as u64);
                        size.longest_name = size
                            .longest_name
                            .max(entry.file_name().as_encoded_bytes().len() as u64);
                        size.longest_line = size.longest_line.max(longest_line);
                    }
                    state
                }
                Err(e) => format!("unreadable: {:?}", e.kind()),
            };
            out.push(Fingerprint { path, state });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// What a regular file holds (a digest of its bytes) or where a symlink
/// points, appended to its [`describe`] text in `state`; returns the
/// file's longest line in bytes (its size when it cannot be read: no line
/// of it is longer).
///
/// Size and time alone miss a same-size rewrite whose time was put back
/// (`touch -r`); reading every file after every call is cheap beside
/// writing it (law and seed trees are small: 7,481 files a run of the
/// laws, most under a kilobyte).
fn contents(path: &Path, meta: &fs::Metadata, state: &mut String) -> u64 {
    if meta.is_symlink() {
        match fs::read_link(path) {
            Ok(target) => state.push_str(&format!(", to {:?}", target)),
            Err(e) => state.push_str(&format!(", target unreadable: {:?}", e.kind())),
        }
        return 0;
    }
    if !meta.is_file() {
        return 0;
    }
    // A digest, not the bytes: a law's large binary file is not kept twice.
    // SipHash with fixed keys: the same bytes give the same digest for the
    // life of the process, which is all a before-and-after needs.
    let mut hasher = std::hash::DefaultHasher::new();
    let (mut line, mut longest) = (0u64, 0u64);
    let digest = fs::File::open(path).and_then(|mut file| {
        let mut buf = [0u8; 64 * 1024];
        loop {
            let n = file.read(&mut buf)?;
            if n == 0 {
                return Ok(hasher.finish());
            }
            hasher.write(&buf[..n]);
            for piece in buf[..n].split_inclusive(|b| *b == b'\n') {
                line += piece.len() as u64;
                longest = longest.max(line);
                if piece.ends_with(b"\n") {
                    line = 0;
                }
            }
        }
    });
    match digest {
        Ok(digest) => {
            state.push_str(&format!(", contents {digest:016x}"));
            longest
        }
        // A `0o000` file cannot be read back: its mode is what is compared.
        Err(e) => {
            state.push_str(&format!(", contents unreadable: {:?}", e.kind()));
            meta.len()
        }
    }
}

/// An entry's type, size, modification time and (on unix) mode.
fn describe(meta: &fs::Metadata) -> String {
    let kind = if meta.is_dir() {
        "directory"
    } else if meta.is_symlink() {
        "symlink"
    } else if meta.is_file() {
        "file"
    } else {
        "special"
    };
    #[cfg(unix)]
    let mode = {
        use std::os::unix::fs::PermissionsExt;
        format!(" mode {:o}", meta.permissions().mode() & 0o7777)
    };
    #[cfg(not(unix))]
    let mode = String::new();
    // A directory's size and time change with what it holds, which the
    // entries below it already show.
    if meta.is_dir() {
        return format!("{kind}{mode}");
    }
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or_else(
            || "?".to_string(),
            |d| format!("{}.{:09}", d.as_secs(), d.subsec_nanos()),
        );
    format!("{kind} of {} bytes{mode}, modified {modified}", meta.len())
}
