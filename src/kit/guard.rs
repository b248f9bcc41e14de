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
//! # What a look costs
//!
//! A look after a call must see a rewrite whose size and modification time
//! were put back (a stealth vandal: `touch -r`), so it cannot trust size
//! and time. It used to read every file back after every call: a shipped
//! law's 64 and 100 MiB files were read and hashed about eight times a law
//! (once per built-in asked, once more each time the tree was handed on).
//!
//! A file's *change time* (`st_ctime`) is the way out, as it is for git's
//! index: every write, truncation, `chmod` or `utime` sets it to the file
//! system's clock, and nothing short of setting the system clock back sets
//! it to a chosen value. So once a look has read a file and found it as
//! written, its change time then is kept; a later look that finds the same
//! change time (and the same device and inode) knows no write has reached
//! the file since, and does not read it. Only when the clock had already
//! passed that change time at the earlier look, though: the clock ticks
//! coarsely (a jiffy on Linux), and a write in the same tick as the one
//! kept would leave the same change time. The look reads the file system's
//! clock off a file it makes and removes at once beside the tree (in
//! lawsuite's own temporary directory, on the tree's file system, so with
//! its granularity), before it reads any file. A file written in the
//! clock's current tick is read at every look until the tick has passed.
//!
//! What a look finds is exactly what reading every file finds: the change
//! time only ever spares a read whose result is already known. A snapshot
//! taken while writing a tree ([`Snapshot::of_written`]) takes the written
//! bytes as the truth and reads nothing back; the first look reads each
//! file once.
//!
//! This holds for every peer alike, so the built-ins (which only read) need
//! no weaker look of their own: a look at a tree nobody wrote into is a
//! listing and a `stat` of each entry.
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
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::call::TreeSize;

/// Every entry of a tree as it was: path, type, size, modification time,
/// mode, a regular file's bytes (kept, or as a digest when large) and a
/// symlink's target. So a peer that rewrites a file in place and puts its
/// modification time back is still seen.
///
/// Two snapshots are equal when they hold the same entries; what their
/// looks have learnt about change times (the module doc) is left out.
#[derive(Debug)]
pub struct Snapshot {
    entries: Vec<Fingerprint>,
    size: TreeSize,
    /// By entry (in `entries`' order), the change time at which a look
    /// found a regular file as it was written, when the file system's
    /// clock had passed it: while the file keeps it, no write has reached
    /// it, and a look does not read it (the module doc).
    settled: Mutex<Vec<Option<Settled>>>,
}

impl Clone for Snapshot {
    fn clone(&self) -> Snapshot {
        Snapshot {
            entries: self.entries.clone(),
            size: self.size,
            settled: Mutex::new(self.settled_now()),
        }
    }
}

impl PartialEq for Snapshot {
    fn eq(&self, other: &Snapshot) -> bool {
        self.entries == other.entries && self.size == other.size
    }
}

impl Eq for Snapshot {}

/// A file's device, inode and change time: when a later look finds the
/// same, nothing has written to the file in between.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Settled {
    dev: u64,
    ino: u64,
    /// Seconds and nanoseconds.
    changed: (i64, i64),
}

impl Settled {
    /// The file's, where the platform has change times (unix).
    fn of(meta: &fs::Metadata) -> Option<Settled> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(Settled {
                dev: meta.dev(),
                ino: meta.ino(),
                changed: (meta.ctime(), meta.ctime_nsec()),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            None
        }
    }
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
    /// As the snapshot holds it: not read, the file's change time being
    /// one a look settled ([`Settled`]). Only ever in a look's findings,
    /// never in a snapshot.
    AsWas,
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
            Contents::Nothing | Contents::AsWas => Ok(()),
            Contents::Bytes(bytes) => write!(f, ", contents {:016x}", digest(bytes)),
            Contents::Digest(digest) => write!(f, ", contents {digest:016x}"),
            Contents::Link(target) => write!(f, ", to {target:?}"),
            Contents::LinkUnreadable(kind) => write!(f, ", target unreadable: {kind:?}"),
            Contents::Unreadable(kind) => write!(f, ", contents unreadable: {kind:?}"),
        }
    }
}

impl Fingerprint {
    /// Whether a look's finding `self` is the snapshot's entry `was`.
    fn is(&self, was: &Fingerprint) -> bool {
        self.path == was.path
            && self.state == was.state
            && (self.contents == Contents::AsWas || self.contents == was.contents)
    }

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
        let entries = fingerprints(root, Look::Write(&mut size, &written));
        Snapshot {
            settled: Mutex::new(vec![None; entries.len()]),
            entries,
            size,
        }
    }

    /// What the looks so far have settled.
    fn settled_now(&self) -> Vec<Option<Settled>> {
        self.settled
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
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
        let settled = self.settled_now();
        let mut look = Check {
            was: &self.entries,
            settled: &settled,
            clock: Clock::beside(root),
            newly: Vec::new(),
        };
        let now = fingerprints(root, Look::Check(&mut look));
        let newly = look.newly;
        if !newly.is_empty() {
            let mut settled = self.settled.lock().unwrap_or_else(|p| p.into_inner());
            for (index, file) in newly {
                if let Some(slot) = settled.get_mut(index) {
                    *slot = Some(file);
                }
            }
        }
        let same = now.len() == self.entries.len()
            && now.iter().zip(&self.entries).all(|(now, was)| now.is(was));
        if same {
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
                Some(was) if !now.is(was) => Some(format!(
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

/// What [`fingerprints`] is taking.
enum Look<'a, 'w> {
    /// The snapshot of a tree just written: each file named is taken to
    /// hold these bytes, and the tree's size is measured.
    Write(&'a mut TreeSize, &'a BTreeMap<&'w str, &'w [u8]>),
    /// A look at a tree against its snapshot.
    Check(&'a mut Check<'w>),
}

/// A look against a snapshot: what it may leave unread, and what it
/// settles.
struct Check<'w> {
    /// The snapshot's entries, sorted by path.
    was: &'w [Fingerprint],
    /// By entry, the change time a look settled.
    settled: &'w [Option<Settled>],
    /// The file system's clock, read before the first file is.
    clock: Clock,
    /// Entries this look found as written, with a change time the clock
    /// had passed: settled from now on.
    newly: Vec<(usize, Settled)>,
}

impl Check<'_> {
    /// The contents of the regular file at `path`, which is `rel` in the
    /// tree: [`Contents::AsWas`] when its change time is settled and its
    /// state unchanged, else read (and settled when found as written).
    fn contents(&mut self, rel: &str, path: &Path, meta: &fs::Metadata) -> Contents {
        let index = self.was.binary_search_by(|f| f.path.as_str().cmp(rel)).ok();
        let file = Settled::of(meta);
        let was = index.map(|i| (i, &self.was[i]));
        let unchanged = |was: &Fingerprint| was.state == State::of(meta);
        if let (Some((i, was)), Some(file)) = (was, file)
            && self.settled.get(i) == Some(&Some(file))
            && unchanged(was)
        {
            return Contents::AsWas;
        }
        // The clock is read before the file: a write after this reading
        // gets a change time past it (the module doc).
        let now = self.clock.now();
        #[cfg(test)]
        tests::READS.with(|reads| reads.set(reads.get() + 1));
        let contents = contents(path, meta);
        if let (Some((i, was)), Some(file), Some(now)) = (was, file, now)
            && file.dev == now.dev
            && file.changed < now.changed
            && contents == was.contents
            && unchanged(was)
        {
            self.newly.push((i, file));
        }
        contents
    }
}

/// The file system's clock, as a file made beside a tree finds it.
struct Clock {
    /// Where a file may be made: lawsuite's temporary directory, when the
    /// tree is one of lawsuite's there (`None` for any other tree, beside
    /// which nothing is written).
    dir: Option<std::path::PathBuf>,
    /// The reading, once taken.
    read: Option<Option<Settled>>,
}

/// Distinguishes the clock files of one process.
static CLOCK_FILES: AtomicU64 = AtomicU64::new(0);

impl Clock {
    /// The clock beside the tree at `root`.
    fn beside(root: &Path) -> Clock {
        let ours = crate::environment::trees_dir();
        Clock {
            dir: root
                .parent()
                .filter(|parent| *parent == ours)
                .map(Path::to_path_buf),
            read: None,
        }
    }

    /// The clock now (read once a look, the first time it is asked):
    /// the change time of a file made and removed at once, on the tree's
    /// file system; `None` when no file can be made there (the directory
    /// was removed), and then nothing is settled.
    fn now(&mut self) -> Option<Settled> {
        *self.read.get_or_insert_with(|| {
            let dir = self.dir.as_ref()?;
            let count = CLOCK_FILES.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!(".lawsuite-clock-{}-{count}", std::process::id()));
            let made = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path);
            let meta = made.and_then(|file| file.metadata());
            let _ = fs::remove_file(&path);
            Settled::of(&meta.ok()?)
        })
    }
}

/// Every entry below `root` (symlinks not followed), sorted by path, as
/// `look` takes it.
fn fingerprints(root: &Path, mut look: Look<'_, '_>) -> Vec<Fingerprint> {
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
                    let contents = match &mut look {
                        Look::Write(size, written) => {
                            let (contents, longest) = match written.get(path.as_str()) {
                                Some(bytes) if meta.is_file() => {
                                    let mut longest = Longest::default();
                                    longest.feed(bytes);
                                    (kept(bytes), longest.longest)
                                }
                                _ => measured(&entry.path(), &meta),
                            };
                            size.longest_path = size.longest_path.max(path.len() as u64);
                            size.longest_name = size
                                .longest_name
                                .max(entry.file_name().as_encoded_bytes().len() as u64);
                            size.longest_line = size.longest_line.max(longest);
                            contents
                        }
                        Look::Check(check) if meta.is_file() => {
                            check.contents(&path, &entry.path(), &meta)
                        }
                        Look::Check(_) => contents(&entry.path(), &meta),
                    };
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
/// (`touch -r`); a look reads a file unless its change time says no write
/// has reached it since a look found it as written ([`Check::contents`]).
fn contents(path: &Path, meta: &fs::Metadata) -> Contents {
    read_whole(path, meta, None)
}

/// [`contents`], and the file's longest line (for the first snapshot of a
/// tree: it bounds an answer's bytes, [`Snapshot::size`]), from one
/// reading; a file that cannot be read counts its size (no line of it is
/// longer).
fn measured(path: &Path, meta: &fs::Metadata) -> (Contents, u64) {
    let mut longest = Longest::default();
    let contents = read_whole(path, meta, Some(&mut longest));
    let longest = match contents {
        Contents::Bytes(_) | Contents::Digest(_) => longest.longest,
        Contents::Unreadable(_) if meta.is_file() => meta.len(),
        _ => 0,
    };
    (contents, longest)
}

/// A file's contents as a snapshot keeps them, each piece read also fed to
/// `longest` when given.
fn read_whole(path: &Path, meta: &fs::Metadata, mut longest: Option<&mut Longest>) -> Contents {
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
        fs::read(path).map(|bytes| {
            if let Some(longest) = longest.as_deref_mut() {
                longest.feed(&bytes);
            }
            Contents::Bytes(bytes)
        })
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
                if let Some(longest) = longest.as_deref_mut() {
                    longest.feed(&buf[..n]);
                }
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
    use crate::kit::materialize::TempTree;
    use crate::kit::plan::GeneratedFile;

    thread_local! {
        /// Regular files this thread's looks have read.
        pub(super) static READS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    fn reads() -> u64 {
        READS.with(std::cell::Cell::get)
    }

    /// Looks at `tree` until its files are settled (the file system's
    /// clock has passed the tick they were written in: a few milliseconds;
    /// bounded by a count of looks, not a time).
    fn settle(snapshot: &Snapshot, tree: &Path) {
        for _ in 0..200_000 {
            assert_eq!(snapshot.changes(tree), None);
            if snapshot.settled_now().iter().flatten().count() == 2 {
                return;
            }
        }
        panic!("the looks never settled: {:?}", snapshot.settled_now());
    }

    /// Rewrite `file` with `bytes` (its size), its modification time put
    /// back: the stealth vandal.
    fn stealth_rewrite(file: &Path, bytes: &[u8]) {
        let modified = fs::metadata(file).unwrap().modified().unwrap();
        fs::write(file, bytes).unwrap();
        fs::File::options()
            .write(true)
            .open(file)
            .unwrap()
            .set_modified(modified)
            .unwrap();
    }

    /// A tree of lawsuite's: the first look reads each file; once the
    /// clock has passed their change times, a look reads none; a stealth
    /// rewrite (size and time put back) is still seen, by its change
    /// time, and read to say what changed. Before, every look read every
    /// file.
    #[test]
    #[cfg(unix)]
    fn a_settled_file_is_not_read_and_a_stealth_rewrite_is_still_seen() {
        let files = [
            GeneratedFile::new("a.txt", "one\n"),
            GeneratedFile::new("d/b.txt", "two\n"),
        ];
        let tree = TempTree::with_files(&files).unwrap();
        let snapshot = Snapshot::of_written(tree.path(), &files);
        let before = reads();
        assert_eq!(snapshot.changes(tree.path()), None);
        assert_eq!(reads() - before, 2, "the first look reads each file");
        settle(&snapshot, tree.path());
        let before = reads();
        for _ in 0..3 {
            assert_eq!(snapshot.changes(tree.path()), None);
        }
        assert_eq!(reads() - before, 0, "settled files are not read");

        stealth_rewrite(&tree.path().join("d/b.txt"), b"TWO\n");
        let before = reads();
        let change = snapshot.changes(tree.path()).expect("a stealth rewrite");
        assert!(
            change.starts_with("d/b.txt changed (file of 4 bytes"),
            "{change}"
        );
        assert!(change.contains("contents "), "{change}");
        assert_eq!(reads() - before, 1, "only the rewritten file is read");

        // Put back as written, bytes and time: as it was, as before.
        stealth_rewrite(&tree.path().join("d/b.txt"), b"two\n");
        assert_eq!(snapshot.changes(tree.path()), None);
    }

    /// A snapshot taken while writing reads nothing back: the written
    /// bytes are the truth and measure the longest line, a large file's
    /// too (it was read back for its longest line), so a file changed
    /// between its writing and the snapshot is seen at the first look.
    #[test]
    fn a_written_snapshot_reads_nothing_back() {
        let mut big = vec![b'x'; KEPT_BYTES as usize + 10];
        big.push(b'\n');
        let files = [GeneratedFile::new("big.txt", big.clone())];
        let tree = TempTree::with_files(&files).unwrap();
        big[5] = b'\n';
        fs::write(tree.path().join("big.txt"), &big).unwrap();
        let snapshot = Snapshot::of_written(tree.path(), &files);
        assert_eq!(snapshot.size().longest_line, KEPT_BYTES + 11);
        let change = snapshot
            .changes(tree.path())
            .expect("changed before the snapshot");
        assert!(change.starts_with("big.txt changed (file of "), "{change}");
    }

    /// Beside a tree that is not lawsuite's, nothing is written, so
    /// nothing is settled and every look reads every file.
    #[test]
    fn no_clock_file_beside_another_tree() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("tree");
        fs::create_dir(&root).unwrap();
        fs::write(root.join("a.txt"), "one").unwrap();
        let snapshot = Snapshot::of(&root);
        for _ in 0..1000 {
            assert_eq!(snapshot.changes(&root), None);
        }
        assert!(snapshot.settled_now().iter().all(Option::is_none));
        let beside: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(beside.len(), 1, "{beside:?}");
    }

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
