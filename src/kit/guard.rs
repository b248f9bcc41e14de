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
/// mode, a regular file's bytes (kept, or as a digest when large) and a
/// symlink's target. So a peer that rewrites a file in place and puts its
/// modification time back is still seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    entries: Vec<Fingerprint>,
    size: TreeSize,
}

/// One entry of a snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Fingerprint {
    path: String,
    /// The type, size, modification time and permissions, or why they
    /// could not be read (a `0o000` directory cannot be listed).
    state: State,
    /// What a file holds or where a symlink points.
    contents: Contents,
}

/// What an entry holds, as a snapshot keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Contents {
    /// A directory or special file: what is below a directory has
    /// fingerprints of its own.
    Nothing,
    /// A small file's bytes. Comparing bytes is a `memcmp` even in a peer
    /// crate's unoptimised test build, where hashing every file after every
    /// call was a fifth of a seed's time.
    Bytes(Vec<u8>),
    /// A digest of a file over [`KEPT_BYTES`] (a law's 100 MB file is not
    /// kept twice). SipHash with fixed keys: the same bytes give the same
    /// digest for the life of the process, which is all a before-and-after
    /// needs.
    Digest(u64),
    /// A symlink's target.
    Link(std::path::PathBuf),
    /// Why a symlink's target could not be read.
    LinkUnreadable(std::io::ErrorKind),
    /// Why the file could not be read back (a `0o000` file: its mode is
    /// what is compared).
    Unreadable(std::io::ErrorKind),
}

/// The largest file a snapshot keeps the bytes of; larger ones are
/// digested. Seed trees are a few hundred kilobytes, law trees mostly
/// under a kilobyte a file.
const KEPT_BYTES: u64 = 1 << 20;

impl std::fmt::Display for Contents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Contents::Nothing => Ok(()),
            Contents::Bytes(bytes) => write!(f, ", contents {:016x}", digest(bytes)),
            Contents::Digest(digest) => write!(f, ", contents {digest:016x}"),
            Contents::Link(target) => write!(f, ", to {target:?}"),
            Contents::LinkUnreadable(kind) => write!(f, ", target unreadable: {kind:?}"),
            Contents::Unreadable(kind) => write!(f, ", contents unreadable: {kind:?}"),
        }
    }
}

impl Fingerprint {
    /// The entry as a change sentence shows it.
    fn shown(&self) -> String {
        format!("{}{}", self.state, self.contents)
    }
}

impl Snapshot {
    /// What the tree under `root` holds now (symlinks not followed).
    pub fn of(root: &Path) -> Snapshot {
        Snapshot::of_written(root, &[])
    }

    /// What the tree under `root` holds, just written from `files`: each
    /// regular file among them is taken to hold the bytes it was written
    /// with, not what reading it back gives. So something that writes into
    /// the tree between its writing and this snapshot (another peer
    /// writing into every tree of the run) is seen by the first look, not
    /// taken for what was written; and the files are not read back.
    ///
    /// ```
    /// use lawsuite::kit::guard::Snapshot;
    /// use lawsuite::kit::plan::GeneratedFile;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let files = [GeneratedFile::new("a.txt", "one")];
    /// std::fs::write(dir.path().join("a.txt"), "one, and an outsider's")?;
    /// let snapshot = Snapshot::of_written(dir.path(), &files);
    /// assert!(snapshot.changes(dir.path()).is_some(), "what was written is the truth");
    /// std::fs::write(dir.path().join("a.txt"), "one")?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn of_written(root: &Path, files: &[crate::kit::plan::GeneratedFile]) -> Snapshot {
        let written: BTreeMap<&str, &[u8]> = files
            .iter()
            // A file given a mode may be one no read can open (0o000):
            // what a look finds there is what reading gives, so it is read.
            .filter(|f| f.kind == crate::kit::plan::FileKind::File && f.mode.is_none())
            .map(|f| (f.path.as_str(), f.content.as_slice()))
            .collect();
        let mut size = TreeSize::default();
        let entries = fingerprints(root, Some(&mut size), &written);
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
        let now = fingerprints(root, None, &BTreeMap::new());
        if now == self.entries {
            return None;
        }
        let before: BTreeMap<&str, &Fingerprint> =
            self.entries.iter().map(|f| (f.path.as_str(), f)).collect();
        let after: BTreeMap<&str, &Fingerprint> =
            now.iter().map(|f| (f.path.as_str(), f)).collect();
        let change = after
            .iter()
            .find_map(|(path, now)| match before.get(path) {
                None => Some(format!("{path} was created ({})", now.shown())),
                Some(was) if was != now => Some(format!(
                    "{path} changed ({} → {})",
                    was.shown(),
                    now.shown()
                )),
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

/// Every entry below `root` (symlinks not followed), sorted by path; a
/// regular file named in `written` is taken to hold those bytes.
fn fingerprints(
    root: &Path,
    mut size: Option<&mut TreeSize>,
    written: &BTreeMap<&str, &[u8]>,
) -> Vec<Fingerprint> {
    let mut out = Vec::new();
    let mut pending = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, rel)) = pending.pop() {
        let listing = match fs::read_dir(&dir) {
            Ok(listing) => listing,
            Err(e) => {
                out.push(Fingerprint {
                    path: format!("{rel}/"),
                    state: State::Unlistable(e.kind()),
                    contents: Contents::Nothing,
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
            let (state, contents) = match entry.metadata() {
                Ok(meta) => {
                    if meta.is_dir() {
                        pending.push((entry.path(), path.clone()));
                    }
                    let contents = match written.get(path.as_str()) {
                        Some(bytes) if meta.is_file() => kept(bytes),
                        _ => contents(&entry.path(), &meta),
                    };
                    if let Some(size) = size.as_deref_mut() {
                        size.longest_path = size.longest_path.max(path.len() as u64);
                        size.longest_name = size
                            .longest_name
                            .max(entry.file_name().as_encoded_bytes().len() as u64);
                        size.longest_line =
                            size.longest_line
                                .max(longest_line(&entry.path(), &meta, &contents));
                    }
                    (State::of(&meta), contents)
                }
                Err(e) => (State::Unreadable(e.kind()), Contents::Nothing),
            };
            out.push(Fingerprint {
                path,
                state,
                contents,
            });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// What a regular file holds or where a symlink points.
///
/// Size and time alone miss a same-size rewrite whose time was put back
/// (`touch -r`); reading every file after every call is cheap beside
/// writing it (law and seed trees are small: 7,481 files a run of the
/// laws, most under a kilobyte).
fn contents(path: &Path, meta: &fs::Metadata) -> Contents {
    if meta.is_symlink() {
        return match fs::read_link(path) {
            Ok(target) => Contents::Link(target),
            Err(e) => Contents::LinkUnreadable(e.kind()),
        };
    }
    if !meta.is_file() {
        return Contents::Nothing;
    }
    let read = if meta.len() <= KEPT_BYTES {
        fs::read(path).map(Contents::Bytes)
    } else {
        fs::File::open(path).and_then(|mut file| {
            let mut hasher = std::hash::DefaultHasher::new();
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                let n = file.read(&mut buf)?;
                if n == 0 {
                    return Ok(Contents::Digest(hasher.finish()));
                }
                hasher.write(&buf[..n]);
            }
        })
    };
    read.unwrap_or_else(|e| Contents::Unreadable(e.kind()))
}

/// `bytes` as a snapshot keeps a file's contents: whole when small, a
/// digest when large.
fn kept(bytes: &[u8]) -> Contents {
    if bytes.len() as u64 <= KEPT_BYTES {
        Contents::Bytes(bytes.to_vec())
    } else {
        Contents::Digest(digest(bytes))
    }
}

/// A digest of `bytes`, as [`Contents::Digest`] keeps a large file.
fn digest(bytes: &[u8]) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    hasher.write(bytes);
    hasher.finish()
}

/// A file's longest line in bytes, for the first snapshot of a tree only
/// (it bounds an answer's bytes, [`Snapshot::size`]): from the kept bytes,
/// read again for a large file, and the file's size when it cannot be read
/// (no line of it is longer).
fn longest_line(path: &Path, meta: &fs::Metadata, contents: &Contents) -> u64 {
    let mut longest = Longest::default();
    match contents {
        Contents::Bytes(bytes) => longest.feed(bytes),
        Contents::Digest(_) => {
            let scanned = fs::File::open(path).and_then(|mut file| {
                let mut buf = vec![0u8; 64 * 1024];
                loop {
                    let n = file.read(&mut buf)?;
                    if n == 0 {
                        return Ok(());
                    }
                    longest.feed(&buf[..n]);
                }
            });
            if scanned.is_err() {
                return meta.len();
            }
        }
        Contents::Unreadable(_) if meta.is_file() => return meta.len(),
        _ => return 0,
    }
    longest.longest
}

/// The longest line of bytes fed in pieces: the current line's length so
/// far, and the longest.
#[derive(Default)]
struct Longest {
    line: u64,
    longest: u64,
}

impl Longest {
    fn feed(&mut self, bytes: &[u8]) {
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', bytes) {
            self.line += (end + 1 - start) as u64;
            self.longest = self.longest.max(self.line);
            self.line = 0;
            start = end + 1;
        }
        self.line += (bytes.len() - start) as u64;
        self.longest = self.longest.max(self.line);
    }
}

/// An entry's type, size, modification time and (on unix) mode, kept as
/// values and spelled only when a change is shown.
#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    /// What the metadata says. A directory's size and time change with
    /// what it holds, which the entries below it already show, so they are
    /// left out.
    Entry {
        kind: &'static str,
        mode: Option<u32>,
        /// Size and modification time (seconds, nanoseconds); `None` for a
        /// directory.
        size_and_time: Option<(u64, Option<(u64, u32)>)>,
    },
    /// A directory that could not be listed.
    Unlistable(std::io::ErrorKind),
    /// An entry whose metadata could not be read.
    Unreadable(std::io::ErrorKind),
}

impl State {
    fn of(meta: &fs::Metadata) -> State {
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
            Some(meta.permissions().mode() & 0o7777)
        };
        #[cfg(not(unix))]
        let mode = None;
        let size_and_time = (!meta.is_dir()).then(|| {
            let modified = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| (d.as_secs(), d.subsec_nanos()));
            (meta.len(), modified)
        });
        State::Entry {
            kind,
            mode,
            size_and_time,
        }
    }
}

impl std::fmt::Display for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            State::Unlistable(kind) => write!(f, "unlistable: {kind:?}"),
            State::Unreadable(kind) => write!(f, "unreadable: {kind:?}"),
            State::Entry {
                kind,
                mode,
                size_and_time,
            } => {
                let mode = mode.map(|m| format!(" mode {m:o}")).unwrap_or_default();
                match size_and_time {
                    None => write!(f, "{kind}{mode}"),
                    Some((len, modified)) => {
                        let modified = modified.map_or_else(
                            || "?".to_string(),
                            |(secs, nanos)| format!("{secs}.{nanos:09}"),
                        );
                        write!(f, "{kind} of {len} bytes{mode}, modified {modified}")
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A same-size rewrite with its time put back, of a file kept as bytes
    /// and of one kept as a digest.
    #[test]
    fn an_in_place_rewrite_is_seen_small_or_large() {
        for len in [3usize, KEPT_BYTES as usize + 10] {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("f");
            fs::write(&file, vec![b'a'; len]).unwrap();
            let snapshot = Snapshot::of(dir.path());
            assert_eq!(snapshot.changes(dir.path()), None, "{len}");
            let modified = fs::metadata(&file).unwrap().modified().unwrap();
            let mut bytes = vec![b'a'; len];
            bytes[len - 1] = b'b';
            fs::write(&file, bytes).unwrap();
            fs::File::options()
                .write(true)
                .open(&file)
                .unwrap()
                .set_modified(modified)
                .unwrap();
            let change = snapshot.changes(dir.path()).expect("a rewrite is a change");
            assert!(change.starts_with("f changed (file of "), "{change}");
            assert!(change.contains("contents "), "{change}");
        }
    }

    /// The longest line counts its terminator, spans reads, and is the
    /// same whether the file is kept or digested.
    #[test]
    fn the_longest_line_is_measured_across_pieces() {
        let mut longest = Longest::default();
        longest.feed(b"ab\nabc");
        longest.feed(b"de\nx");
        assert_eq!(longest.longest, 6);
        for len in [100usize, KEPT_BYTES as usize + 10] {
            let dir = tempfile::tempdir().unwrap();
            let mut text = vec![b'x'; len];
            text[10] = b'\n';
            fs::write(dir.path().join("f"), &text).unwrap();
            fs::write(dir.path().join("g"), "short\n").unwrap();
            let size = Snapshot::of(dir.path()).size();
            assert_eq!(size.longest_line, (len - 11) as u64, "{len}");
        }
    }
}
