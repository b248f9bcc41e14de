//! Loading laws: from a directory of law files, from the laws shipped in
//! the library, or from one file's text; each law checked before it is
//! run, and every problem reported as a [`LawError`] beside the good laws.

use std::fmt;
use std::path::{Path, PathBuf};

use super::format::{Entry, Law, LawFile, MAX_COUNT, MAX_SIZE};
use crate::contract::normalize_path;
use crate::peer::Method;

/// A law file problem: reported as its own failing trial; the rest runs.
#[derive(Debug)]
pub struct LawError {
    /// The file.
    pub file: PathBuf,
    /// The law, when the problem is in one.
    pub law: Option<String>,
    /// What is wrong (with the line for parse errors).
    pub message: String,
}

impl fmt::Display for LawError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.law {
            Some(law) => write!(f, "{}: law {law:?}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for LawError {}

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
                message: "is not a directory of law files; give a directory holding *.toml laws"
                    .into(),
            }],
        );
    }
    let mut files = Vec::new();
    collect(dir, &mut files);
    files.sort();
    let texts = files.into_iter().map(|file| {
        let rel = file
            .strip_prefix(dir)
            .unwrap_or(&file)
            .to_string_lossy()
            .replace('\\', "/");
        let text =
            crate::regular_file::read_to_string(&file).map_err(|e| format!("cannot be read ({e})"));
        (file, rel, text)
    });
    load_texts(texts)
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
    files: impl Iterator<Item = (PathBuf, String, Result<String, String>)>,
) -> (Vec<LoadedLaw>, Vec<LawError>) {
    let mut laws = Vec::new();
    let mut errors = Vec::new();
    for (file, rel, text) in files {
        let prefix = rel.trim_end_matches(".toml").replace('/', "::");
        let text = match text {
            Ok(t) => t,
            Err(message) => {
                errors.push(LawError {
                    file,
                    law: None,
                    message,
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
                    message: format!("is not a valid law file: {e}"),
                });
                continue;
            }
        };
        let mut seen = std::collections::HashSet::new();
        for law in parsed.laws {
            if let Err(message) = check(&law) {
                errors.push(LawError {
                    file: file.clone(),
                    law: Some(law.name.clone()),
                    message,
                });
                continue;
            }
            if !seen.insert(law.name.clone()) {
                errors.push(LawError {
                    file: file.clone(),
                    law: Some(law.name.clone()),
                    message: "the name is used twice in this file; names must be unique".into(),
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

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
}

/// The static checks of one law.
pub(super) fn check(law: &Law) -> Result<(), String> {
    if !law.spec.contains('§') {
        return Err(format!(
            "`spec` must name a section, e.g. \"search-contract §13.1\", not {:?}",
            law.spec
        ));
    }
    match (&law.expect, &law.expect_error) {
        (Some(_), None) | (None, Some(_)) => {}
        _ => return Err("give exactly one of `expect` and `expect_error`".into()),
    }
    if law.expect_message.is_some() && law.expect_error.is_none() {
        return Err("`expect_message` goes with `expect_error`".into());
    }
    let text = |key: &str| -> Result<Option<&str>, String> {
        law.input
            .get(key)
            .map(|v| v.as_str().ok_or(format!("`input.{key}` must be a string")))
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
            inside(&value).map_err(|e| format!("`input.{key}` {e}"))?;
        }
    }
    if matches!(law.method, Method::FlowRead | Method::FlowLs) && !law.input.contains_key("path") {
        return Err(format!("{} needs `input.path`", law.method));
    }
    // The input read as its method's call now, on a stand-in tree path:
    // an input of the wrong shape is a load error naming the law, not a
    // broken trial on every peer.
    super::call::law_call(law, "/law-tree")?;
    if let Some(table) = &law.expect {
        if let Some(key) = law.expect_lengths.keys().find(|k| table.contains_key(*k)) {
            return Err(format!(
                "`{key}` is in `expect_lengths`, so it cannot be in `expect` too"
            ));
        }
    } else if !law.expect_lengths.is_empty() {
        return Err("`expect_lengths` goes with `expect`".into());
    }
    for (path, entry) in &law.tree {
        inside(path).map_err(|e| format!("tree path {path:?} {e}"))?;
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
                    return Err(format!(
                        "symlink {path:?} points outside the tree ({target:?}); use a relative target inside it"
                    ));
                }
            }
            if spec.count.is_some() != path.contains("{i}") {
                return Err(format!(
                    "tree path {path:?}: `count` and a `{{i}}` in the path go together"
                ));
            }
            if let Some(count) = spec.count.filter(|n| *n > MAX_COUNT) {
                return Err(format!(
                    "tree path {path:?}: `count = {count}` is over the limit of {MAX_COUNT} entries; a law pins one rule on a small tree"
                ));
            }
            if let Some(size) = spec.size.filter(|n| *n > MAX_SIZE) {
                return Err(format!(
                    "tree path {path:?}: `size = {size}` is over the limit of {MAX_SIZE} bytes (1 GiB)"
                ));
            }
        }
    }
    Ok(())
}

/// A path must stay inside the tree.
pub(super) fn inside(path: &str) -> Result<(), String> {
    if path.starts_with('/') {
        return Err("is absolute; write it relative to the tree".into());
    }
    let normal = normalize_path(path);
    if normal == ".." || normal.starts_with("../") {
        return Err("leaves the tree".into());
    }
    Ok(())
}
