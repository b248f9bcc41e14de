//! `lawsuite init --lang rust|node|python` and `lawsuite docs`: a runnable
//! skeleton peer in the language the user works in, registered, with the
//! documents a peer author reads copied into the project, so a user of the
//! installed binary has everything offline.
//!
//! Everything here is compiled in: the templates (`templates/`), the
//! Node and Python adapters (`adapters/`), the protocol and its schemas
//! (`peers/`), and the contract in our own words (`docs/contract.md`).
//! Nothing is ever overwritten: [`write()`] refuses, before writing a byte,
//! when any file it would write is already there.
//!
//! ```
//! use lawsuite::scaffold::{Dependency, Lang, skeleton};
//! let lawsuite = Dependency::Git("https://example.org/lawsuite.git".into());
//! let files = skeleton(Some(Lang::Node), "my-peer", &lawsuite);
//! let names: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
//! assert!(names.contains(&"peer.mjs") && names.contains(&"lawsuite/node/lawsuite-peer.js"));
//! assert!(names.contains(&"lawsuite/docs/PROTOCOL.md"));
//! ```

mod dependency;

use std::path::{Path, PathBuf};

pub use dependency::{Dependency, SourceError, built_source, installed_source, source_version};

use crate::project::{ProjectError, SKELETON};

/// A language a skeleton peer can be written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lang {
    /// A Rust crate whose `cargo test` runs the suite over an in-process
    /// peer ([`crate::suite::Suite`]).
    Rust,
    /// A Node (18+) ES module on the Node adapter.
    Node,
    /// A Python 3.8+ script on the Python adapter.
    Python,
}

impl Lang {
    /// `rust`, `node` or `python`.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Node => "node",
            Lang::Python => "python",
        }
    }
}

/// One file of a skeleton.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    /// Its path, relative to the project directory, `/`-separated.
    pub path: String,
    /// Its text.
    pub text: String,
}

/// `("schema/NAME.schema.json", text)` of `peers/schema/`.
macro_rules! schema {
    ($name:literal) => {
        (
            concat!("schema/", $name, ".schema.json"),
            include_str!(concat!("../../peers/schema/", $name, ".schema.json")),
        )
    };
}
/// The documents a peer author needs, as `(name, text)`: the protocol, the
/// contract, and a JSON Schema per protocol message.
pub const DOCS: &[(&str, &str)] = &[
    ("PROTOCOL.md", include_str!("../../peers/PROTOCOL.md")),
    ("contract.md", include_str!("../../docs/contract.md")),
    schema!("request"),
    schema!("response"),
    schema!("std-error"),
    schema!("initialize.params"),
    schema!("initialize.result"),
    schema!("grep.params"),
    schema!("grep.result"),
    schema!("glob.params"),
    schema!("glob.result"),
    schema!("flow-grep.params"),
    schema!("flow-grep.result"),
    schema!("flow-glob.params"),
    schema!("flow-read.params"),
    schema!("flow-read.result"),
    schema!("flow-ls.params"),
    schema!("flow-ls.result"),
    schema!("flow-bash.params"),
    schema!("flow-bash.result"),
];

/// Where [`DOCS`] go in a project.
pub const DOCS_DIR: &str = "lawsuite/docs";

const NODE_PEER: &str = include_str!("../../templates/node/peer.mjs");
const NODE_PROJECT: &str = include_str!("../../templates/node/package.json");
const NODE_ADAPTER: &str = include_str!("../../adapters/node/lawsuite-peer.js");
const NODE_TYPES: &str = include_str!("../../adapters/node/lawsuite-peer.d.ts");
const NODE_PACKAGE: &str = include_str!("../../adapters/node/package.json");
const NODE_README: &str = include_str!("../../adapters/node/README.md");
const PYTHON_PEER: &str = include_str!("../../templates/python/peer.py");
const PYTHON_ADAPTER: &str = include_str!("../../adapters/python/lawsuite_peer.py");
const PYTHON_PACKAGE: &str = include_str!("../../adapters/python/pyproject.toml");
const PYTHON_README: &str = include_str!("../../adapters/python/README.md");

/// Where a Node skeleton keeps its copy of the adapter package (its
/// `package.json` depends on it with `file:`, so `npm install` links it
/// without a registry).
pub const NODE_PACKAGE_DIR: &str = "lawsuite/node";

/// Where a Python skeleton keeps its copy of the adapter package (its
/// `lawsuite.toml` puts it on `PYTHONPATH`, so the skeleton runs without
/// an install).
pub const PYTHON_PACKAGE_DIR: &str = "lawsuite/python";
const RUST_MANIFEST: &str = include_str!("../../templates/rust/Cargo.toml");
const RUST_LIB: &str = include_str!("../../templates/rust/lib.rs");

/// The `tests/conformance.rs` of a Rust skeleton; the README shows it
/// as it is (a test holds the two together).
pub const RUST_CONFORMANCE: &str = include_str!("../../templates/rust/conformance.rs");

/// The files of a project for `lang` (`None`: the project file alone, with
/// a commented example peer), its crate or peer named after `name`; a Rust
/// crate depends on `lawsuite` from `lawsuite`.
pub fn skeleton(lang: Option<Lang>, name: &str, lawsuite: &Dependency) -> Vec<File> {
    let file = |path: &str, text: &str| File {
        path: path.to_string(),
        text: text.to_string(),
    };
    let registered = |command: &str, extra: &str| {
        format!(
            "{SKELETON}\n# Your peer, written by `lawsuite init`: replace its grep and glob.\n[[peer]]\nname = \"mine\"\ncommand = {command}\n{extra}"
        )
    };
    let mut files = match lang {
        None => vec![file("lawsuite.toml", SKELETON)],
        // The adapter is a package the peer imports by name; the skeleton
        // carries a copy of it, so the first run needs no registry.
        Some(Lang::Node) => vec![
            file(
                "lawsuite.toml",
                &registered(r#"["node", "./peer.mjs"]"#, ""),
            ),
            file(
                "package.json",
                &NODE_PROJECT.replace("{name}", &crate_name(name)),
            ),
            file("peer.mjs", NODE_PEER),
            file(&format!("{NODE_PACKAGE_DIR}/package.json"), NODE_PACKAGE),
            file(
                &format!("{NODE_PACKAGE_DIR}/lawsuite-peer.js"),
                NODE_ADAPTER,
            ),
            file(
                &format!("{NODE_PACKAGE_DIR}/lawsuite-peer.d.ts"),
                NODE_TYPES,
            ),
            file(
                &format!("{NODE_PACKAGE_DIR}/README.md"),
                &for_copy(NODE_README),
            ),
        ],
        Some(Lang::Python) => vec![
            file(
                "lawsuite.toml",
                &registered(
                    r#"["python3", "./peer.py"]"#,
                    &format!(
                        "# The adapter's copy (drop these two lines once `pip install ./{PYTHON_PACKAGE_DIR}`\n# has installed it).\ncwd = \".\"\nenv = {{ PYTHONPATH = \"{PYTHON_PACKAGE_DIR}\" }}\n"
                    ),
                ),
            ),
            file("peer.py", PYTHON_PEER),
            file(
                &format!("{PYTHON_PACKAGE_DIR}/pyproject.toml"),
                PYTHON_PACKAGE,
            ),
            file(
                &format!("{PYTHON_PACKAGE_DIR}/lawsuite_peer.py"),
                PYTHON_ADAPTER,
            ),
            file(
                &format!("{PYTHON_PACKAGE_DIR}/README.md"),
                &for_copy(PYTHON_README),
            ),
        ],
        // A Rust peer runs in process: `cargo test` finds the regression and
        // expected-failure directories beside Cargo.toml without a project file.
        Some(Lang::Rust) => vec![
            file(
                "Cargo.toml",
                &RUST_MANIFEST
                    .replace("{crate}", &crate_name(name))
                    .replace("{lawsuite}", &lawsuite.manifest_line()),
            ),
            file("src/lib.rs", RUST_LIB),
            file("tests/conformance.rs", RUST_CONFORMANCE),
        ],
    };
    if lang.is_some() {
        files.extend(DOCS.iter().map(|(name, text)| File {
            path: format!("{DOCS_DIR}/{name}"),
            text: for_copy(text),
        }));
    }
    files
}

/// A document as it is copied out of the repository (into a project's
/// `lawsuite/docs/`, or by `lawsuite docs --write`): a link to another of
/// [`DOCS`] points at its copy beside it, and a link to a repository file
/// the copy does not have (`../laws/grep/context.toml`) becomes its text,
/// so no link in the copy is dead (the contract's copy had 152).
///
/// ```
/// use lawsuite::scaffold::for_copy;
/// assert_eq!(
///     for_copy("see [`grep/context.toml`](../laws/grep/context.toml) and [the contract](../docs/contract.md#s2)"),
///     "see `grep/context.toml` and [the contract](contract.md#s2)"
/// );
/// ```
pub fn for_copy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        let (before, after) = rest.split_at(at);
        let Some(end) = after.find(')') else {
            break;
        };
        let target = &after[2..end];
        let (file, anchor) = target.split_at(target.find('#').unwrap_or(target.len()));
        let copied = file
            .strip_prefix("../docs/")
            .or_else(|| file.strip_prefix("../peers/"))
            .filter(|name| DOCS.iter().any(|(n, _)| n == name));
        let label_start = before.rfind('[');
        match (copied, label_start) {
            (Some(name), _) => {
                out.push_str(before);
                out.push_str(&format!("]({name}{anchor})"));
            }
            (None, Some(open)) if file.starts_with("../") => {
                out.push_str(&before[..open]);
                out.push_str(&before[open + 1..]);
            }
            _ => {
                out.push_str(before);
                out.push_str(&after[..end + 1]);
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// A crate name from a directory name: letters, digits, `-` and `_`, not
/// starting with a digit (`my peer` → `my-peer`).
fn crate_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        out.insert_str(0, "peer-");
    }
    out
}

/// Write the skeleton of `lang` into `dir` (created if need be), with the
/// regression and expected-failure directories; the paths written, in
/// order. Nothing is written when any of the files is already there.
pub fn write(
    dir: &Path,
    lang: Option<Lang>,
    lawsuite: &Dependency,
) -> Result<Vec<PathBuf>, ProjectError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ProjectError::File(crate::file_error::FileError::io(path, source))
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let name = std::path::absolute(dir)
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "peer".into());
    let files = skeleton(lang, &name, lawsuite);
    for f in &files {
        let path = dir.join(&f.path);
        if std::fs::symlink_metadata(&path).is_ok() {
            return Err(ProjectError::Exists { path });
        }
    }
    let mut written = Vec::new();
    for f in &files {
        let path = dir.join(&f.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(io(&path))?;
        std::io::Write::write_all(&mut out, f.text.as_bytes()).map_err(io(&path))?;
        written.push(path);
    }
    for sub in ["lawsuite/regressions", "lawsuite/expected"] {
        let path = dir.join(sub);
        std::fs::create_dir_all(&path).map_err(io(&path))?;
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("peer.py"), "mine").unwrap();
        let err = write(
            dir.path(),
            Some(Lang::Python),
            &Dependency::Git("https://example.org/lawsuite.git".into()),
        )
        .unwrap_err();
        assert!(matches!(err, ProjectError::Exists { path } if path.ends_with("peer.py")));
        assert!(
            !dir.path().join("lawsuite.toml").exists(),
            "nothing written"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("peer.py")).unwrap(),
            "mine"
        );
    }

    /// Every relative link of every document a skeleton copies names a
    /// file the skeleton writes (152 in the contract's copy did not).
    #[test]
    fn no_link_in_the_copied_documents_is_dead() {
        let files = skeleton(
            Some(Lang::Node),
            "x",
            &Dependency::Git("https://example.org/lawsuite.git".into()),
        );
        let paths: std::collections::BTreeSet<&str> =
            files.iter().map(|f| f.path.as_str()).collect();
        let mut checked = 0;
        for f in files.iter().filter(|f| f.path.ends_with(".md")) {
            let dir = Path::new(&f.path).parent().unwrap_or(Path::new(""));
            for (at, _) in f.text.match_indices("](") {
                let target = &f.text[at + 2..];
                let target = &target[..target.find(')').unwrap_or(target.len())];
                let file = target.split('#').next().unwrap_or_default();
                // Code that merely holds `](` (a pattern table) is no link.
                let code = target.contains([' ', '`', '|', '\n']);
                if code || file.is_empty() || file.contains("://") || file.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                let joined = dir.join(file).to_string_lossy().replace('\\', "/");
                assert!(
                    paths.contains(joined.as_str()),
                    "{}: a link to {target} names nothing the project has",
                    f.path
                );
            }
        }
        assert!(checked > 0, "the protocol links to the contract");
    }

    #[test]
    fn crate_names() {
        assert_eq!(crate_name("My Peer"), "my-peer");
        assert_eq!(crate_name("2fast"), "peer-2fast");
        assert_eq!(crate_name("ok_name"), "ok_name");
    }

    #[test]
    fn the_node_and_python_skeletons_register_their_peer() {
        for (lang, command) in [(Lang::Node, "./peer.mjs"), (Lang::Python, "./peer.py")] {
            let files = skeleton(
                Some(lang),
                "x",
                &Dependency::Git("https://example.org/lawsuite.git".into()),
            );
            let toml = &files[0];
            assert_eq!(toml.path, "lawsuite.toml");
            assert!(toml.text.contains(command), "{}", lang.name());
            let project: toml::Value = toml::from_str(&toml.text).unwrap();
            assert_eq!(project["peer"][1]["name"].as_str(), Some("mine"));
        }
    }
}
