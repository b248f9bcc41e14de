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
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::contract::gitignore::{Gitignore, Scope, is_ignored};
use crate::contract::glob::GlobList;
use crate::contract::skip::{is_hidden, is_skipped};
use crate::contract::{StdError, join_path, normalize_path, order, utf16_cmp};

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
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let visited = walk_visiting(options, threads, |_| Some(()))?;
    Ok(Walk {
        candidates: visited.kept.into_iter().map(|(c, ())| c).collect(),
        explicit_file: visited.explicit_file,
        ignored: visited.ignored,
    })
}

/// A walk whose candidates were each visited as they were found.
#[derive(Debug)]
pub(crate) struct Visited<T> {
    /// The candidates the visit kept, in UTF-16 order of their output
    /// path, with what the visit made of each.
    pub kept: Vec<(Candidate, T)>,
    /// How many candidates were visited, kept or not.
    pub visited: usize,
    /// The root named one file (§7.1 step 2).
    pub explicit_file: bool,
    /// Ignore rules dropped a directory or a file the globs would admit.
    pub ignored: bool,
}

/// [`walk`] on `threads` threads, calling `visit` with each candidate's
/// file-system path on a walk thread, as soon as its directory is listed;
/// a candidate whose visit answers `None` is counted and forgotten.
///
/// The portable peer searches each file here: a walk to the end and then
/// a search of its list was two rounds of threads with an idle tail each,
/// and `rg` lets its walkers search (on the cargo registry's sources that
/// left `portable` 1.3x `rg`'s CPU time for a rare literal). Forgetting the
/// files without a hit keeps memory to the answer's size: holding all
/// 12,000 candidates of that search cost 1,800 page faults more than `rg`.
/// The order is restored by the sort, so it never depends on the threads.
pub(crate) fn walk_visiting<T: Send>(
    options: &WalkOptions<'_>,
    threads: usize,
    visit: impl Fn(&Path) -> Option<T> + Sync,
) -> Result<Visited<T>, StdError> {
    let root = options.root;
    let meta = fs::metadata(root).map_err(|e| StdError::cannot_search(root, &e))?;
    if meta.is_file() {
        // §7.1 step 2: whatever the globs, hidden flag, skip list or rules say.
        let candidate = Candidate {
            path: normalize_path(root),
            relative: String::new(),
            fs_path: PathBuf::from(root),
        };
        return Ok(Visited {
            kept: visit(&candidate.fs_path)
                .map(|visited| (candidate, visited))
                .into_iter()
                .collect(),
            visited: 1,
            explicit_file: true,
            ignored: false,
        });
    }
    let root_path = PathBuf::from(root);
    // §7.1 step 3: listing the root itself fails like `stat` did.
    let listing = fs::read_dir(&root_path).map_err(|e| StdError::cannot_search(root, &e))?;
    let prefix = output_prefix(root);
    let admit = |file: Walked, fs_path: &mut PathBuf| {
        // §8.4 glob admission, then §7.4: a symlink to a file is dropped.
        if file.symlink
            || !options
                .globs
                .includes(&file.relative, basename(&file.relative))
        {
            return None;
        }
        // The path to open is built in a buffer the thread reuses, and
        // kept only with a kept candidate.
        fs_path.as_mut_os_string().clear();
        fs_path.push(&root_path);
        fs_path.push(&file.relative);
        let visited = visit(fs_path);
        Some(visited.map(|visited| {
            let candidate = Candidate {
                path: [prefix.as_str(), &file.relative].concat(),
                relative: file.relative,
                fs_path: fs_path.clone(),
            };
            (candidate, visited)
        }))
    };
    let kept = Mutex::new(Vec::new());
    let (visited, ignored) = descend_all(
        options,
        threads,
        root_path.clone(),
        listing,
        admit,
        |found| lock(&kept).extend(found),
    );
    let mut kept = kept
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // Every output path is the same prefix and the relative path, so the
    // shorter relative paths sort the same.
    kept.sort_by(|(a, _), (b, _)| utf16_cmp(&a.relative, &b.relative));
    Ok(Visited {
        kept,
        visited,
        explicit_file: false,
        ignored,
    })
}

/// The value behind `mutex`, even if a panicking walk thread poisoned it:
/// every update is a whole `extend` or `offer`, so it is never torn.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A walk's candidates cut to the `limit` first in §7.6 order as they
/// are found ([`walk_smallest`]), their output paths, and how many there
/// were.
#[derive(Debug)]
pub struct Smallest {
    /// The output paths (§6.4) of the `limit` first candidates, and the
    /// count of all.
    pub paths: order::Smallest,
    /// Ignore rules dropped a directory or a file the globs would admit.
    pub ignored: bool,
}

/// [`walk`] for a listing that returns `limit` candidates of all it
/// counts (a `glob` answer, §6.3): only the `limit` first in §7.6 order
/// are kept as the walk finds them ([`order::Smallest`]), and nothing is
/// built for the others beyond the relative path the walk already made.
/// Sorting all 29,082 matches of `**/*.py` over a Python installation to
/// return 1,000 cost more than `rg --files` paid for the listing (issue 47).
pub fn walk_smallest(
    options: &WalkOptions<'_>,
    threads: usize,
    limit: u64,
) -> Result<Smallest, StdError> {
    let root = options.root;
    let meta = fs::metadata(root).map_err(|e| StdError::cannot_search(root, &e))?;
    if meta.is_file() {
        // §7.1 step 2: whatever the globs, hidden flag, skip list or rules say.
        let mut paths = order::Smallest::new(limit);
        paths.offer(normalize_path(root));
        return Ok(Smallest {
            paths,
            ignored: false,
        });
    }
    let root_path = PathBuf::from(root);
    // §7.1 step 3: listing the root itself fails like `stat` did.
    let listing = fs::read_dir(&root_path).map_err(|e| StdError::cannot_search(root, &e))?;
    let admit = |file: Walked, _: &mut PathBuf| {
        // §8.4 glob admission, then §7.4: a symlink to a file is dropped.
        let admitted = !file.symlink
            && options
                .globs
                .includes(&file.relative, basename(&file.relative));
        admitted.then_some(Some(file.relative))
    };
    // Every output path is the same prefix and the relative path, so the
    // relative paths select the same ones; the prefix is added to those.
    let kept = Mutex::new(order::Smallest::new(limit));
    let (_, ignored) = descend_all(options, threads, root_path, listing, admit, |found| {
        let mut kept = lock(&kept);
        for relative in found {
            kept.offer(relative);
        }
    });
    let paths = kept
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .prefixed(&output_prefix(root));
    Ok(Smallest { paths, ignored })
}

/// What `join_path(root, relative)` puts before `relative` (§6.4).
///
/// A walked relative path is plain names joined by `/` (no `.`, `..` or
/// empty segment: a directory entry is never named so), and normalising
/// leaves such segments as they are, so the join is this prefix (computed
/// once per walk) and the path: one allocation per candidate where
/// normalising each joined path took four.
fn output_prefix(root: &str) -> String {
    let mut prefix = join_path(root, "x");
    prefix.pop();
    prefix
}

/// The last `/`-separated segment of a relative path.
pub(crate) fn basename(relative: &str) -> &str {
    relative.rsplit('/').next().unwrap_or(relative)
}

/// A walked file; its file-system path is the root joined with `relative`,
/// built when it is visited.
struct Walked {
    relative: String,
    /// A symlink to a file: walked, but dropped after glob admission (§7.4).
    symlink: bool,
}

/// The type of a child, after following symlinks (§7.2 step 4).
enum Kind {
    File,
    Dir,
    Other,
}

/// A unit of the walk's work.
enum Task {
    /// List a directory.
    List(Job),
    /// Admit and visit the files one listing found.
    Visit(Vec<Walked>),
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
/// are independent: each carries its own scope stack), handing each walked
/// file to `admit` on a pool thread once its directory is listed (mostly
/// the thread that listed it), and what one listing's files gave to
/// `keep`, at once. The order of discovery does not matter, because the
/// caller sorts (or selects) and `ignored` is an "any" (§7.6, §7.5).
/// Answers how many files were admitted, and the `ignored` flag.
fn descend_all<R: Send>(
    options: &WalkOptions<'_>,
    threads: usize,
    root: PathBuf,
    listing: fs::ReadDir,
    admit: impl Fn(Walked, &mut PathBuf) -> Option<Option<R>> + Sync,
    keep: impl Fn(Vec<R>) + Sync,
) -> (usize, bool) {
    let admitted = AtomicUsize::new(0);
    let ignored = AtomicBool::new(false);
    let rules = Rules::start();
    let seed = Job {
        dir: root,
        rel: String::new(),
        listing: Some(listing),
        scopes: Arc::new(Vec::new()),
    };
    pool::drain(vec![Task::List(seed)], threads, |task| match task {
        Task::List(job) => {
            let (files, children, dropped) = list_dir(options, &rules, job);
            if dropped {
                ignored.store(true, Ordering::Relaxed);
            }
            // The files go back to the pool as a task of their own, after
            // the subdirectories: another thread can list those while this
            // one (the queue is last in, first out) visits the files.
            let mut next: Vec<Task> = children.into_iter().map(Task::List).collect();
            if !files.is_empty() {
                next.push(Task::Visit(files));
            }
            next
        }
        Task::Visit(files) => {
            let mut count = 0;
            let mut fs_path = PathBuf::new();
            let found: Vec<R> = files
                .into_iter()
                .filter_map(|file| admit(file, &mut fs_path))
                .inspect(|_| count += 1)
                .flatten()
                .collect();
            admitted.fetch_add(count, Ordering::Relaxed);
            if !found.is_empty() {
                keep(found);
            }
            Vec::new()
        }
    });
    rules.keep();
    (admitted.into_inner(), ignored.into_inner())
}

/// `.gitignore` files compiled by their bytes, kept from one walk to the
/// next: the rules of a tree are compiled once for the calls on it, not
/// once a walk (issue 47). Parsing is a function of the bytes alone
/// (§9.2), so a file whose bytes are kept gets the rules compiled from
/// them, whatever its path or age: nothing can be stale.
///
/// Each thread that starts walks keeps the rules its last walk used, so
/// memory is one tree's rules a thread, and a walk of another tree
/// replaces them.
#[derive(Debug)]
struct Rules {
    /// The rules the calling thread's last walk used.
    last: Arc<RulesByBytes>,
    /// This walk's, by their bytes.
    used: Mutex<RulesByBytes>,
}

type RulesByBytes = std::collections::HashMap<Vec<u8>, Gitignore>;

thread_local! {
    /// The rules the last walk this thread started used ([`Rules`]).
    static LAST_RULES: std::cell::RefCell<Arc<RulesByBytes>> = std::cell::RefCell::default();
}

impl Rules {
    /// The rules a walk starting on this thread may reuse.
    fn start() -> Rules {
        Rules {
            last: LAST_RULES.with(|last| Arc::clone(&last.borrow())),
            used: Mutex::default(),
        }
    }

    /// The rules of a `.gitignore` whose bytes are `content`, compiled
    /// unless this walk or the last one already did.
    fn compile(&self, content: Vec<u8>) -> Gitignore {
        if let Some(rules) = lock(&self.used).get(&content) {
            return rules.clone();
        }
        let rules = self.last.get(&content).cloned().unwrap_or_else(|| {
            #[cfg(test)]
            tests::COMPILED.with(|n| n.set(n.get() + 1));
            Gitignore::parse(&String::from_utf8_lossy(&content))
        });
        lock(&self.used).insert(content, rules.clone());
        rules
    }

    /// Keep this walk's rules for the next walk this thread starts (called
    /// on the thread that started it).
    fn keep(self) {
        let used = self
            .used
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        LAST_RULES.with(|last| *last.borrow_mut() = Arc::new(used));
    }
}

/// §7.2 for one directory: its walked files, its subdirectories to walk,
/// and whether ignore rules dropped something that sets the `ignored` flag.
fn list_dir(options: &WalkOptions<'_>, rules: &Rules, job: Job) -> (Vec<Walked>, Vec<Job>, bool) {
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
        let rules = rules.compile(content);
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
        // Built at its final size: `format!` and `Path::join` each grew
        // their buffer once, a reallocation per entry.
        let relative = if job.rel.is_empty() {
            name
        } else {
            let mut relative = String::with_capacity(job.rel.len() + 1 + name.len());
            relative.push_str(&job.rel);
            relative.push('/');
            relative.push_str(&name);
            relative
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
                dir: sized_join(&job.dir, basename(&relative)),
                rel: relative,
                listing: None,
                scopes: Arc::clone(&scopes),
            }),
            Kind::Dir => {}
            Kind::File => files.push(Walked { relative, symlink }),
            Kind::Other => {}
        }
    }
    (files, children, ignored)
}

/// `dir` joined with `name`, allocated once at its final size.
fn sized_join(dir: &Path, name: &str) -> PathBuf {
    let mut path = PathBuf::with_capacity(dir.as_os_str().len() + 1 + name.len());
    path.push(dir);
    path.push(name);
    path
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

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// `.gitignore` files this thread compiled (a one-thread walk
        /// compiles on the thread that starts it).
        pub(super) static COMPILED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// A tree's `.gitignore` files are compiled by its first walk, not by
    /// the next ones; an edited file, and a tree walked after another,
    /// are compiled again (the kept rules are one tree's).
    #[test]
    fn a_trees_gitignore_files_are_compiled_once() {
        let tree = |files: &[(&str, &str)]| {
            let dir = tempfile::tempdir().unwrap();
            for (path, text) in files {
                let path = dir.path().join(path);
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(path, text).unwrap();
            }
            dir
        };
        let first = tree(&[
            (".gitignore", "*.log\n"),
            ("a/.gitignore", "b[0-9].txt\n"),
            ("c/.gitignore", "b[0-9].txt\n"),
            ("a/b1.txt", ""),
            ("a/b.txt", ""),
        ]);
        let other = tree(&[(".gitignore", "*.tmp\n")]);
        let globs = GlobList::new(&[]).unwrap();
        let compiled = |dir: &tempfile::TempDir| {
            let root = dir.path().to_str().unwrap().to_string();
            let options = WalkOptions {
                root: &root,
                hidden: false,
                no_ignore: false,
                globs: &globs,
            };
            let before = COMPILED.with(|n| n.get());
            let walked = walk_visiting(&options, 1, |_| Some(())).unwrap();
            let names: Vec<String> = walked.kept.into_iter().map(|(c, ())| c.relative).collect();
            (COMPILED.with(|n| n.get()) - before, names)
        };
        // Two files with the same bytes are compiled once.
        assert_eq!(compiled(&first), (2, vec!["a/b.txt".to_string()]));
        assert_eq!(compiled(&first), (0, vec!["a/b.txt".to_string()]));
        fs::write(first.path().join("a/.gitignore"), "b.txt\n").unwrap();
        assert_eq!(compiled(&first), (1, vec!["a/b1.txt".to_string()]));
        assert_eq!(compiled(&other).0, 1);
        assert_eq!(compiled(&first).0, 3);
    }

    /// A listing cut as it is walked returns what a sort of the whole walk
    /// returns, and counts all of it, at every limit and thread count.
    #[test]
    fn the_smallest_are_the_head_of_the_whole_walk() {
        let dir = tempfile::tempdir().unwrap();
        for (i, name) in ["b", "a-b", "a", "Z", "é", "😀", "Ω", "a/b"]
            .iter()
            .enumerate()
        {
            let sub = dir.path().join(name);
            fs::create_dir_all(&sub).unwrap();
            for j in 0..4 {
                fs::write(sub.join(format!("{j}{i}.rs")), "").unwrap();
            }
            fs::write(sub.join("skip.txt"), "").unwrap();
        }
        fs::write(dir.path().join(".gitignore"), "Z/\n").unwrap();
        let root = format!("{}/./", dir.path().display());
        let globs = GlobList::new(&["*.rs".to_string()]).unwrap();
        let options = WalkOptions {
            root: &root,
            hidden: false,
            no_ignore: false,
            globs: &globs,
        };
        let whole = walk(&options).unwrap();
        let all: Vec<String> = whole.candidates.into_iter().map(|c| c.path).collect();
        assert_eq!(all.len(), 28);
        for threads in [1, 3] {
            for limit in [0, 1, 5, 27, 28, 1000] {
                let cut = walk_smallest(&options, threads, limit).unwrap();
                assert_eq!(cut.ignored, whole.ignored, "{limit}");
                assert_eq!(cut.paths.total(), 28, "{limit}");
                let head: Vec<String> = all.iter().take(limit as usize).cloned().collect();
                assert_eq!(
                    cut.paths.into_sorted(),
                    head,
                    "{limit} on {threads} threads"
                );
            }
        }
    }

    proptest::proptest! {
        /// The prefix shortcut spells every candidate as the join does,
        /// for roots with `.`, `..`, doubled and trailing slashes.
        #[test]
        fn prefix_and_relative_is_the_join(
            root in "(/|\\./|\\.\\./|a/|b//|\\.|\\.\\.|c){0,5}",
            relative in "[a-z.\\-]{1,4}(/[a-z.\\-]{1,4}){0,3}",
        ) {
            // Walked names are never `.` or `..`.
            proptest::prop_assume!(relative.split('/').all(|s| s != "." && s != ".."));
            let joined = join_path(&root, &relative);
            proptest::prop_assert_eq!([output_prefix(&root).as_str(), &relative].concat(), joined);
        }
    }
}
