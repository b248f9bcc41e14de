//! A law's tree: its entries turned into files (and the special entries
//! the plan format has no kind for, made after them), written once, and
//! compared after each peer with what was written, contents included, so
//! a peer that changes the tree it was asked to search is the one that
//! fails (the tree guard); and the tree listed for a report.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use super::format::{Entry, Law};
use super::limits::MAX_GENERATED;
use super::load::LoadedLaw;
use super::problem::{LawProblem, SetupError};
use crate::kit::guard::Snapshot;
use crate::kit::materialize::TempTree;
use crate::kit::outsiders::Outsiders;
use crate::kit::plan::{FileKind, GeneratedFile};

/// A law's tree written under a fresh temporary directory, removed when
/// the last [`Setup`](super::Setup) on it is dropped.
///
/// Laws that only read their tree may share one written tree when they
/// define the same tree ([`Tree::key`]): a run of the shipped laws created
/// 10,062 files one law at a time and 7,481 so, and creating a file costs
/// far more than reading one on some file systems (160–300 µs of CPU each
/// on the ext4 of the machines `benches/README.md` was measured on).
///
/// A tree must stay as written: [`Tree::changes`] compares it with what
/// was written after each call ([`crate::kit::guard::Snapshot`]: every
/// entry's type, size, time and mode, a regular file's bytes and a
/// symlink's target, so a peer that rewrites a file in place and puts its
/// modification time back is still seen), so a peer that writes into it
/// fails that law (the contract's methods only read), and a tree found
/// changed is not handed to another law ([`Tree::is_spoiled`]). The engine
/// shares a tree only among the built-ins; every other peer is asked on
/// trees of its own, so a change is the asked peer's, unless something
/// else wrote into the run's canary too ([`crate::kit::outsiders`]).
#[derive(Debug)]
pub struct Tree {
    dir: TempTree,
    /// Every entry as written: path, type, size, modification time, mode,
    /// contents.
    written: Snapshot,
    /// A peer changed it.
    spoiled: AtomicBool,
    /// The run's canary as it was when this tree was written: whether a
    /// change found here may be someone else's ([`crate::kit::outsiders`]).
    outsiders: Outsiders,
}

impl Tree {
    /// Write `law`'s tree; why it cannot be written names the law.
    pub fn write(law: &LoadedLaw) -> Result<Tree, SetupError> {
        let broken = |problem| SetupError::new(law, problem);
        let (tree_files, special) = files(&law.law).map_err(broken)?;
        // Taken first, so the canary is there before the tree is.
        let outsiders = Outsiders::now();
        let dir =
            TempTree::with_files(&tree_files).map_err(|e| broken(LawProblem::Unwritable(e)))?;
        for entry in &special {
            entry.make(dir.path()).map_err(broken)?;
        }
        // A file a special entry reshapes after writing (a size) holds
        // what the special made, not what the plan file says: read back.
        let shaped: Vec<&str> = special.iter().map(Special::path).collect();
        let as_written: Vec<GeneratedFile> = tree_files
            .into_iter()
            .filter(|f| !shaped.contains(&f.path.as_str()))
            .collect();
        let written = Snapshot::of_written(dir.path(), &as_written);
        Ok(Tree {
            dir,
            written,
            spoiled: AtomicBool::new(false),
            outsiders,
        })
    }

    /// How the tree differs from what was written (the first difference),
    /// or `None` when it does not; a difference spoils it.
    pub fn changes(&self) -> Option<String> {
        let change = self.written.changes(self.dir.path())?;
        self.spoiled.store(true, Ordering::Relaxed);
        Some(change)
    }

    /// The tree's longest path, name and line as written: what bounds the
    /// bytes of a correct answer on it ([`crate::call::Budget`]).
    pub fn size(&self) -> crate::call::TreeSize {
        self.written.size()
    }

    /// A peer changed the tree; it must not be asked about again.
    pub fn is_spoiled(&self) -> bool {
        self.spoiled.load(Ordering::Relaxed)
    }

    /// What identifies the tree `law` defines: laws with equal keys write
    /// equal trees.
    pub fn key(law: &Law) -> String {
        format!("{:?}", law.tree)
    }

    /// Where the tree is.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The run's canary as it was when the tree was written.
    pub fn outsiders(&self) -> &Outsiders {
        &self.outsiders
    }
}

/// Decode `\xNN` and `\\` escapes.
pub(super) fn unescape_bytes(text: &str) -> Result<Vec<u8>, LawProblem> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            match bytes.get(i + 1) {
                Some(b'\\') => {
                    out.push(b'\\');
                    i += 2;
                }
                Some(b'x') => {
                    let hex = text.get(i + 2..i + 4).ok_or(LawProblem::ShortEscape)?;
                    out.push(
                        u8::from_str_radix(hex, 16)
                            .map_err(|_| LawProblem::BadEscape(hex.to_string()))?,
                    );
                    i += 4;
                }
                _ => return Err(LawProblem::UnknownEscape),
            }
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Ok(out)
}

/// The tree as plan files, and the special entries (FIFOs, sockets, sizes)
/// the plan format has no kind for, made after it is written.
pub(super) fn files(law: &Law) -> Result<(Vec<GeneratedFile>, Vec<Special>), LawProblem> {
    let mut out = Vec::new();
    let mut special = Vec::new();
    for (path, entry) in &law.tree {
        let spec = match entry {
            Entry::Text(text) => {
                out.push(GeneratedFile::new(path.clone(), text.clone()));
                continue;
            }
            Entry::Spec(spec) => spec,
        };
        let paths: Vec<String> = match spec.count {
            None => vec![path.clone()],
            Some(n) => {
                let width = n.saturating_sub(1).to_string().len();
                (0..n)
                    .map(|i| path.replace("{i}", &format!("{i:0width$}")))
                    .collect()
            }
        };
        for path in paths {
            if spec.fifo || spec.socket {
                special.push(if spec.fifo {
                    Special::Fifo(path)
                } else {
                    Special::Socket(path)
                });
                continue;
            }
            let mut f = if spec.dir {
                GeneratedFile::dir(path.clone())
            } else if let Some(target) = &spec.symlink {
                GeneratedFile::symlink(path.clone(), target.clone())
            } else {
                let mut content = match (&spec.text, &spec.bytes, &spec.parts) {
                    (Some(t), None, None) => t.clone().into_bytes(),
                    (None, Some(b), None) => unescape_bytes(b)?,
                    (None, None, Some(parts)) => {
                        let mut text = String::new();
                        for part in parts {
                            part.expand(&mut text)
                                .map_err(|problem| LawProblem::InEntry {
                                    path: path.clone(),
                                    problem: Box::new(problem),
                                })?;
                        }
                        text.into_bytes()
                    }
                    (None, None, None) => Vec::new(),
                    _ => {
                        return Err(LawProblem::ContentForms(path));
                    }
                };
                if let Some(n) = spec.repeat {
                    if content.len().saturating_mul(n) > MAX_GENERATED {
                        return Err(LawProblem::ContentOverLimit(path));
                    }
                    content = content.repeat(n);
                }
                if let Some(size) = spec.size {
                    special.push(Special::Size(path.clone(), size));
                }
                GeneratedFile::new(path.clone(), content)
            };
            if let Some(mode) = spec.mode {
                f = f.with_mode(mode);
            }
            out.push(f);
        }
    }
    // Directories and files before links, so a link's target exists first.
    out.sort_by_key(|f| matches!(f.kind, FileKind::Symlink));
    Ok((out, special))
}

/// A tree entry made after the plan files are written.
#[derive(Debug)]
pub(super) enum Special {
    /// A named pipe.
    Fifo(String),
    /// A unix-domain socket file.
    Socket(String),
    /// A file extended to this many bytes.
    Size(String, u64),
}

impl Special {
    /// The entry's path in the tree.
    fn path(&self) -> &str {
        match self {
            Special::Fifo(p) | Special::Socket(p) | Special::Size(p, _) => p,
        }
    }

    /// Make the entry under `root` (its directory is made too).
    fn make(&self, root: &Path) -> Result<(), LawProblem> {
        let (path, what) = match self {
            Special::Fifo(p) => (p, "fifo"),
            Special::Socket(p) => (p, "socket"),
            Special::Size(p, _) => (p, "size"),
        };
        let failed = |source| LawProblem::Unmade {
            what,
            path: path.clone(),
            source,
        };
        // The one checked path every entry kind takes: no parent may be a
        // symlink (a law's `out = { symlink = ".." }` would otherwise put
        // `out/pwned` outside the tree), nor the entry itself.
        let target = crate::kit::materialize::place(root, path)
            .map_err(|e| failed(std::io::Error::other(e)))?;
        match self {
            Special::Fifo(_) => {
                let status = std::process::Command::new("mkfifo")
                    .arg(&target)
                    .status()
                    .map_err(failed)?;
                if !status.success() {
                    return Err(failed(std::io::Error::other(format!(
                        "mkfifo exited with {status}"
                    ))));
                }
            }
            #[cfg(unix)]
            Special::Socket(_) => {
                // Binding creates the socket file; it stays after the
                // listener is dropped, with nobody listening.
                std::os::unix::net::UnixListener::bind(&target).map_err(failed)?;
            }
            #[cfg(not(unix))]
            Special::Socket(_) => {
                return Err(failed(std::io::Error::other("sockets are unix-only")));
            }
            Special::Size(_, size) => {
                // `place` has made sure the path is not a symlink, so this
                // opens the plan's own file.
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&target)
                    .map_err(failed)?;
                file.set_len(*size).map_err(failed)?;
            }
        }
        Ok(())
    }
}

/// The law's tree for a report: each entry's path, its text when it is
/// text (cut after [`TREE_PREVIEW`] characters), and what else there is to
/// say of it (links, directories, the special forms by name, how long a
/// cut text is), as `(path, text, about)`.
pub fn tree_listing(law: &Law) -> Vec<(String, Option<String>, String)> {
    law.tree
        .iter()
        .map(|(path, entry)| {
            let mut parts = Vec::new();
            let mut shown = None;
            let mut text_of = |text: &str, parts: &mut Vec<String>| {
                let (head, cut) = preview(text);
                shown = Some(head);
                parts.extend(cut);
            };
            match entry {
                Entry::Text(text) => text_of(text, &mut parts),
                Entry::Spec(spec) => {
                    if let Some(n) = spec.count {
                        parts.push(format!("{n} entries"));
                    }
                    if spec.dir {
                        parts.push("a directory".into());
                    }
                    if let Some(target) = &spec.symlink {
                        parts.push(format!("a symlink to {target:?}"));
                    }
                    if spec.fifo {
                        parts.push("a named pipe".into());
                    }
                    if spec.socket {
                        parts.push("a socket".into());
                    }
                    if let Some(text) = &spec.text {
                        text_of(text, &mut parts);
                    }
                    if let Some(bytes) = &spec.bytes {
                        parts.push(format!("bytes {bytes:?}"));
                    }
                    if spec.parts.is_some() {
                        let mut text = String::new();
                        let built = spec
                            .parts
                            .iter()
                            .flatten()
                            .try_for_each(|p| p.expand(&mut text));
                        match built {
                            Ok(()) => text_of(&text, &mut parts),
                            Err(e) => parts.push(e.to_string()),
                        }
                    }
                    if let Some(n) = spec.repeat {
                        parts.push(format!("repeated {n} times"));
                    }
                    if let Some(size) = spec.size {
                        parts.push(format!("extended to {size} bytes"));
                    }
                    if let Some(mode) = spec.mode {
                        parts.push(format!("mode {mode:o}"));
                    }
                    if parts.is_empty() && shown.is_none() {
                        parts.push("an empty file".into());
                    }
                }
            }
            (path.clone(), shown, parts.join(", "))
        })
        .collect()
}

/// How much of a file's text a report shows.
pub const TREE_PREVIEW: usize = 240;

/// `text` cut after [`TREE_PREVIEW`] characters, and how long it was when
/// it is cut.
fn preview(text: &str) -> (String, Option<String>) {
    let count = text.chars().count();
    if count <= TREE_PREVIEW {
        return (text.to_string(), None);
    }
    let head: String = text.chars().take(TREE_PREVIEW).collect();
    (head, Some(format!("{count} characters in all")))
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::law::load_dir;

    fn loaded(text: &str) -> LoadedLaw {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("x.toml"), text).unwrap();
        let (mut laws, errors) = load_dir(dir.path());
        assert!(errors.is_empty(), "{errors:?}");
        laws.remove(0)
    }

    const LAW: &str = "[[law]]\nname = \"n\"\nspec = \"search-contract §8\"\nmethod = \"flow/glob\"\ninput = { pattern = \"*\" }\ntree.\"a.txt\" = \"one\"\ntree.\"d/b.txt\" = \"two\"\nexpect = { paths = [], total = 0, truncated = false }\n";

    /// Each kind of change is named, and any change spoils the tree.
    #[test]
    fn changes_name_what_was_created_changed_or_removed() {
        let law = loaded(LAW);
        let tree = Tree::write(&law).unwrap();
        assert_eq!(tree.changes(), None);
        assert!(!tree.is_spoiled());
        fs::write(tree.path().join("a.txt"), "one more").unwrap();
        let change = tree.changes().unwrap();
        assert!(
            change.starts_with("a.txt changed (file of 3 bytes"),
            "{change}"
        );
        assert!(tree.is_spoiled());

        let tree = Tree::write(&law).unwrap();
        fs::remove_file(tree.path().join("d/b.txt")).unwrap();
        assert_eq!(tree.changes().as_deref(), Some("d/b.txt was removed"));

        // The same size, the time put back: only the bytes tell.
        let tree = Tree::write(&law).unwrap();
        let file = tree.path().join("a.txt");
        let modified = fs::metadata(&file).unwrap().modified().unwrap();
        fs::write(&file, "eno").unwrap();
        fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(modified)
            .unwrap();
        let change = tree.changes().expect("an in-place rewrite is a change");
        assert!(
            change.starts_with("a.txt changed (file of 3 bytes"),
            "{change}"
        );
        assert!(change.contains("contents "), "{change}");

        let tree = Tree::write(&law).unwrap();
        fs::create_dir(tree.path().join("d/new")).unwrap();
        let change = tree.changes().unwrap();
        assert!(
            change.starts_with("d/new was created (directory"),
            "{change}"
        );
    }
}
