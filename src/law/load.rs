//! Loading laws: from a directory of law files, from the laws shipped in
//! the library, or from one file's text; each law checked before it is
//! run, and every problem reported as a [`LawError`] beside the good laws.

use std::path::{Path, PathBuf};

use super::format::{Entry, Law, LawFile};
use super::limits::{MAX_COUNT, MAX_SIZE};
use super::problem::{Escape, LawError, LawProblem};
use crate::contract::normalize_path;
use crate::file_error::FileError;
use crate::peer::Method;

/// A loaded law with where it came from.
#[derive(Clone, Debug)]
pub struct LoadedLaw {
    /// `area::file::name`, e.g. `grep::context::context-tie-goes-to-the-earlier-match`.
    pub id: String,
    /// The file.
    pub file: PathBuf,
    /// The law.
    pub law: Law,
}

/// Every `*.toml` under `dir` (recursively), parsed; problems are returned
/// beside the good laws so one bad file never hides the others. A missing
/// or unreadable directory is one problem, not an empty set of laws.
pub fn load_dir(dir: &Path) -> (Vec<LoadedLaw>, Vec<LawError>) {
    if !dir.is_dir() {
        return (
            Vec::new(),
            vec![LawError {
                file: dir.to_path_buf(),
                law: None,
                problem: LawProblem::NotADirectory,
            }],
        );
    }
    let mut files = Vec::new();
    let mut cycles = Vec::new();
    collect(dir, &mut Vec::new(), &mut files, &mut cycles);
    files.sort();
    let texts = files.into_iter().map(|file| {
        let rel = file
            .strip_prefix(dir)
            .unwrap_or(&file)
            .to_string_lossy()
            .replace('\\', "/");
        let text = FileError::read_to_string(&file).map_err(LawProblem::Unreadable);
        (file, rel, text)
    });
    let (laws, mut errors) = load_texts(texts);
    errors.extend(cycles);
    (laws, errors)
}

/// The laws lawsuite ships ([`crate::shipped::laws`]), compiled into the
/// library: the same ids wherever it runs. Their files are named
/// `laws/<path>` in reports.
pub fn shipped() -> (Vec<LoadedLaw>, Vec<LawError>) {
    shipped_where(|_| true)
}

/// The shipped laws of the files whose id prefix (`grep::context` for
/// `laws/grep/context.toml`) `wanted` admits: a process that runs one law
/// parses one file.
pub fn shipped_where(wanted: impl Fn(&str) -> bool) -> (Vec<LoadedLaw>, Vec<LawError>) {
    let files = crate::shipped::laws()
        .iter()
        .filter(|(rel, _)| wanted(&rel.trim_end_matches(".toml").replace('/', "::")));
    load_texts(files.map(|(rel, text)| {
        (
            Path::new("laws").join(rel),
            rel.to_string(),
            Ok(text.to_string()),
        )
    }))
}

/// Parse one law file's `text`, as if it were `rel` (e.g. `grep/x.toml`)
/// under a law directory: the laws, and the problems beside them.
///
/// ```
/// let (laws, problems) = lawsuite::law::load_text("grep/x.toml", "[[law]]\nname = 3\n");
/// assert!(laws.is_empty() && problems[0].to_string().contains("line 2"));
/// ```
pub fn load_text(rel: &str, text: &str) -> (Vec<LoadedLaw>, Vec<LawError>) {
    load_texts(std::iter::once((
        PathBuf::from(rel),
        rel.to_string(),
        Ok(text.to_string()),
    )))
}

/// Parse law files given as `(file, path relative to the law root, text)`;
/// the id prefix is the relative path without `.toml`, `/` as `::`.
fn load_texts(
    files: impl Iterator<Item = (PathBuf, String, Result<String, LawProblem>)>,
) -> (Vec<LoadedLaw>, Vec<LawError>) {
    let mut laws = Vec::new();
    let mut errors = Vec::new();
    for (file, rel, text) in files {
        let prefix = rel.trim_end_matches(".toml").replace('/', "::");
        let text = match text {
            Ok(t) => t,
            Err(problem) => {
                errors.push(LawError {
                    file,
                    law: None,
                    problem,
                });
                continue;
            }
        };
        let parsed: LawFile = match toml::from_str(&text) {
            Ok(p) => p,
            Err(e) => {
                errors.push(LawError {
                    file,
                    law: None,
                    problem: LawProblem::NotALawFile(e),
                });
                continue;
            }
        };
        let mut seen = std::collections::HashSet::new();
        for law in parsed.laws {
            if let Err(problem) = check(&law) {
                errors.push(LawError {
                    file: file.clone(),
                    law: Some(law.name.clone()),
                    problem,
                });
                continue;
            }
            if !seen.insert(law.name.clone()) {
                errors.push(LawError {
                    file: file.clone(),
                    law: Some(law.name.clone()),
                    problem: LawProblem::DuplicateName,
                });
                continue;
            }
            laws.push(LoadedLaw {
                id: format!("{prefix}::{}", law.name),
                file: file.clone(),
                law,
            });
        }
    }
    (laws, errors)
}

/// Every `*.toml` below `dir` into `out`, following links to directories
/// (a law directory may gather others by linking them) but never one that
/// leads back to a directory above it: `ancestors` are the directories
/// being read, by identity, and such a link is a [`LawProblem::LinkCycle`]
/// in `cycles`. Followed, `self -> .` loaded every law 40 times over (until
/// the paths were too long for the OS).
fn collect(
    dir: &Path,
    ancestors: &mut Vec<DirId>,
    out: &mut Vec<PathBuf>,
    cycles: &mut Vec<LawError>,
) {
    let Some(id) = dir_id(dir) else {
        return;
    };
    if ancestors.contains(&id) {
        cycles.push(LawError {
            file: dir.to_path_buf(),
            law: None,
            problem: LawProblem::LinkCycle {
                target: std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()),
            },
        });
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    ancestors.push(id);
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            collect(&path, ancestors, out, cycles);
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
    ancestors.pop();
}

/// A directory's identity: device and inode where there are such, its
/// canonical path elsewhere.
#[derive(Clone, Debug, PartialEq, Eq)]
enum DirId {
    #[cfg(unix)]
    Inode(u64, u64),
    #[cfg_attr(unix, allow(dead_code))]
    Path(PathBuf),
}

fn dir_id(dir: &Path) -> Option<DirId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(dir).ok()?;
        Some(DirId::Inode(meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        std::fs::canonicalize(dir).ok().map(DirId::Path)
    }
}

/// The static checks of one law.
pub(super) fn check(law: &Law) -> Result<(), LawProblem> {
    if !law.spec.contains('§') {
        return Err(LawProblem::NoSection(law.spec.clone()));
    }
    match (&law.expect, &law.expect_error) {
        (Some(_), None) | (None, Some(_)) => {}
        _ => return Err(LawProblem::ExpectOrError),
    }
    if law.expect_message.is_some() && law.expect_error.is_none() {
        return Err(LawProblem::MessageWithoutError);
    }
    let text = |key: &str| -> Result<Option<&str>, LawProblem> {
        law.input
            .get(key)
            .map(|v| {
                v.as_str()
                    .ok_or_else(|| LawProblem::InputNotString(key.to_string()))
            })
            .transpose()
    };
    for key in ["root", "path", "cwd"] {
        if let Some(value) = text(key)? {
            // A read or ls path relative to a `cwd` is checked from there
            // (`../x` from `sub` stays in the tree).
            let value = match (key, text("cwd")?) {
                ("path", Some(cwd)) => format!("{cwd}/{value}"),
                _ => value.to_string(),
            };
            inside(&value).map_err(|escape| LawProblem::InputOutside {
                key: key.to_string(),
                escape,
            })?;
        }
    }
    if matches!(law.method, Method::FlowRead | Method::FlowLs) && !law.input.contains_key("path") {
        return Err(LawProblem::NeedsPath(law.method));
    }
    // The input read as its method's call now, on a stand-in tree path:
    // an input of the wrong shape is a load error naming the law, not a
    // broken trial on every peer.
    super::call::law_call(law, "/law-tree")?;
    if let Some(table) = &law.expect {
        if let Some(key) = law.expect_lengths.keys().find(|k| table.contains_key(*k)) {
            return Err(LawProblem::LengthAndExpect(key.clone()));
        }
    } else if !law.expect_lengths.is_empty() {
        return Err(LawProblem::LengthsWithoutExpect);
    }
    for (path, entry) in &law.tree {
        inside(path).map_err(|escape| LawProblem::TreePathOutside {
            path: path.clone(),
            escape,
        })?;
        if let Entry::Spec(spec) = entry {
            if let Some(target) = &spec.symlink {
                // Read from the link's directory, a relative target must
                // stay in the tree too: `../../etc/passwd` would have a
                // peer read outside it.
                let from = path.rsplit_once('/').map_or("", |(dir, _)| dir);
                let resolved = if from.is_empty() {
                    target.clone()
                } else {
                    format!("{from}/{target}")
                };
                if target.starts_with('/') || inside(&resolved).is_err() {
                    return Err(LawProblem::SymlinkOutside {
                        path: path.clone(),
                        target: target.clone(),
                    });
                }
            }
            if spec.count.is_some() != path.contains("{i}") {
                return Err(LawProblem::CountWithoutIndex(path.clone()));
            }
            if let Some(count) = spec.count.filter(|n| *n > MAX_COUNT) {
                return Err(LawProblem::CountOverLimit {
                    path: path.clone(),
                    count,
                });
            }
            if let Some(size) = spec.size.filter(|n| *n > MAX_SIZE) {
                return Err(LawProblem::SizeOverLimit {
                    path: path.clone(),
                    size,
                });
            }
        }
    }
    Ok(())
}

/// A path must stay inside the tree.
pub(super) fn inside(path: &str) -> Result<(), Escape> {
    if path.starts_with('/') {
        return Err(Escape::Absolute);
    }
    let normal = normalize_path(path);
    if normal == ".." || normal.starts_with("../") {
        return Err(Escape::Leaves);
    }
    Ok(())
}
