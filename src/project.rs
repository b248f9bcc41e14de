//! A user's lawsuite project: one `lawsuite.toml`, found from where the
//! user stands, as cargo finds `Cargo.toml`.
//!
//! The file names the peers (inline `[[peer]]` tables, or a `registry`
//! file), where regressions are kept (`regressions`) and where the user's
//! own expected law failures are (`expected`), and any law directories of
//! the user's own (`laws`, run beside the laws lawsuite ships). Every path
//! in it is relative to the file's directory. `lawsuite init` writes one
//! ([`crate::scaffold::write`]).
//!
//! ```toml
//! regressions = "lawsuite/regressions"
//! expected = "lawsuite/expected"
//! reference = "portable"
//!
//! [[peer]]
//! name = "portable"
//! builtin = "portable"
//!
//! [[peer]]
//! name = "mine"
//! command = ["python3", "./my_peer.py"]
//! ```
//!
//! Where there is no such file, the project is the directory the user
//! stands in (the CLI's working directory; for [`crate::suite::Suite`], the
//! crate under test), with the defaults: the built-in peers, regressions
//! under `lawsuite/regressions`, expected failures under `lawsuite/expected`,
//! and the project's own laws under `lawsuite/laws` when it exists (also
//! when a project file lists no `laws`).
//!
//! ```
//! use lawsuite::project::Project;
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("lawsuite.toml"), "regressions = \"kept\"\n")?;
//! std::fs::create_dir(dir.path().join("sub"))?;
//! let project = Project::discover(&dir.path().join("sub"))?;
//! assert_eq!(project.regressions, dir.path().join("kept"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::file_error::FileError;
use crate::registry::{PeerEntry, PeerOptions, Registry, RegistryError};

/// The project file's name.
pub const FILE_NAME: &str = "lawsuite.toml";

/// Where regressions are kept when the project file does not say.
pub const DEFAULT_REGRESSIONS: &str = "lawsuite/regressions";

/// Where the user's expected failures are when the project file does not say.
pub const DEFAULT_EXPECTED: &str = "lawsuite/expected";

/// The project's own laws when the project file lists none: run when the
/// directory exists, and where `lawsuite record --as-law` writes a draft.
pub const DEFAULT_LAWS: &str = "lawsuite/laws";

/// `listed` (the project file's `laws`), or [`DEFAULT_LAWS`] under `root`
/// when none is listed and it exists.
fn law_dirs(root: &Path, listed: &[PathBuf]) -> Vec<PathBuf> {
    let default = root.join(DEFAULT_LAWS);
    if listed.is_empty() {
        return if default.is_dir() {
            vec![default]
        } else {
            Vec::new()
        };
    }
    listed.iter().map(|p| root.join(p)).collect()
}

/// The reference when a project's `[[peer]]` tables name none: the
/// built-in `portable`, registered under that name when no table does.
pub const DEFAULT_REFERENCE: &str = "portable";

/// The file's shape.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectFile {
    #[serde(default)]
    registry: Option<PathBuf>,
    #[serde(default)]
    reference: Option<String>,
    #[serde(rename = "peer", default)]
    peers: Vec<PeerEntry>,
    #[serde(default)]
    regressions: Option<PathBuf>,
    #[serde(default)]
    expected: Option<PathBuf>,
    #[serde(default)]
    laws: Vec<PathBuf>,
    #[serde(default = "yes")]
    shipped_laws: bool,
}

fn yes() -> bool {
    true
}

/// Where a project's peers come from.
#[derive(Clone, Debug)]
pub enum Peers {
    /// The built-in peers ([`Registry::builtins`]).
    Builtins,
    /// A registry file (`peers.toml` format, [`crate::registry`]).
    File(PathBuf),
    /// `[[peer]]` tables in the project file itself.
    Inline {
        /// The reference's name.
        reference: String,
        /// The tables.
        entries: Vec<PeerEntry>,
    },
}

/// A project: where its data is, every path absolute or relative to the
/// directory the process was started in.
#[derive(Clone, Debug)]
pub struct Project {
    /// The directory every relative path of the project is relative to:
    /// the project file's, or the directory the project was taken from.
    pub root: PathBuf,
    /// The project file, when there is one.
    pub file: Option<PathBuf>,
    /// The peers.
    pub peers: Peers,
    /// Law directories of the project's own, run beside the shipped laws
    /// (the file's `laws`, else `lawsuite/laws` when it exists).
    pub laws: Vec<PathBuf>,
    /// Whether the laws lawsuite ships run (default yes).
    pub shipped_laws: bool,
    /// Where regressions are recorded and from where they are replayed.
    pub regressions: PathBuf,
    /// The project's expected law failures (a directory of `*.toml`
    /// tables, one per registered peer name); a missing directory holds
    /// none.
    pub expected: PathBuf,
}

/// A project file that cannot be used.
#[derive(Debug)]
pub enum ProjectError {
    /// It could not be read (or, by `lawsuite init`, written).
    File(FileError),
    /// It is not valid.
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the line when known.
        message: String,
    },
    /// `lawsuite init` found one already.
    Exists {
        /// The file.
        path: PathBuf,
    },
    /// A `lawsuite.toml` is there but is not a regular file (a directory,
    /// a FIFO, a dangling symlink or a symlink loop). Discovery stops at it
    /// rather than silently taking a parent directory's project.
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is instead.
        what: String,
    },
}

impl fmt::Display for ProjectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProjectError::File(e) => {
                write!(
                    f,
                    "Could not read or write {} ({}); check the path and its permissions.",
                    e.path().display(),
                    e.kind()
                )
            }
            ProjectError::Invalid { path, message } => {
                write!(
                    f,
                    "The project file {} is not valid: {message}",
                    path.display()
                )
            }
            ProjectError::Exists { path } => write!(
                f,
                "{} exists already; edit it, or run `lawsuite init` in another directory.",
                path.display()
            ),
            ProjectError::NotAFile { path, what } => write!(
                f,
                "{} is {what}, not a project file; make it a regular file, or remove it to use no project here.",
                path.display()
            ),
        }
    }
}

impl std::error::Error for ProjectError {}

impl Project {
    /// The project of `dir`: the first `lawsuite.toml` in `dir` or one of
    /// its ancestors, or, when there is none, `dir` itself with the
    /// defaults ([`Project::bare`]).
    pub fn discover(dir: &Path) -> Result<Project, ProjectError> {
        let dir = absolute(dir);
        for candidate in dir.ancestors() {
            let file = candidate.join(FILE_NAME);
            if project_file(&file)? {
                return Project::load(&file);
            }
        }
        Ok(Project::bare(&dir))
    }

    /// A project with no file: the built-in peers, and the default
    /// directories under `root`.
    pub fn bare(root: &Path) -> Project {
        let root = absolute(root);
        Project {
            file: None,
            peers: Peers::Builtins,
            laws: law_dirs(&root, &[]),
            shipped_laws: true,
            regressions: root.join(DEFAULT_REGRESSIONS),
            expected: root.join(DEFAULT_EXPECTED),
            root,
        }
    }

    /// Read a project file.
    pub fn load(file: &Path) -> Result<Project, ProjectError> {
        let file = absolute(file);
        let text = FileError::read_to_string(&file).map_err(ProjectError::File)?;
        let parsed: ProjectFile = toml::from_str(&text).map_err(|e| ProjectError::Invalid {
            path: file.clone(),
            message: e.to_string(),
        })?;
        let root = file
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let invalid = |message: String| ProjectError::Invalid {
            path: file.clone(),
            message,
        };
        let peers = match (parsed.registry, parsed.reference, parsed.peers.is_empty()) {
            (None, None, true) => Peers::Builtins,
            (Some(path), None, true) => Peers::File(root.join(path)),
            (None, Some(reference), false) => Peers::Inline {
                reference,
                entries: parsed.peers,
            },
            (Some(_), _, _) => {
                return Err(invalid(
                    "give either `registry` (a peers file) or `reference` with `[[peer]]` tables, not both".into(),
                ));
            }
            // Peer tables alone: the built-in `portable` is the
            // reference (added when no table registers it), as it is with
            // no tables at all. The adapters' READMEs register a peer in
            // three lines, which used to be refused for want of this.
            (None, None, false) => {
                let mut entries = parsed.peers;
                if !entries.iter().any(|e| e.name == DEFAULT_REFERENCE) {
                    entries.insert(
                        0,
                        PeerEntry {
                            name: DEFAULT_REFERENCE.into(),
                            builtin: Some(DEFAULT_REFERENCE.into()),
                            command: None,
                            cwd: None,
                            env: None,
                            timeout_ms: None,
                            handshake_timeout_ms: None,
                        },
                    );
                }
                Peers::Inline {
                    reference: DEFAULT_REFERENCE.into(),
                    entries,
                }
            }
            (None, Some(_), true) => {
                return Err(invalid(
                    "`reference` names a peer, but there are no `[[peer]]` tables; add them (e.g. name = \"portable\", builtin = \"portable\")".into(),
                ));
            }
        };
        Ok(Project {
            laws: law_dirs(&root, &parsed.laws),
            shipped_laws: parsed.shipped_laws,
            regressions: root.join(
                parsed
                    .regressions
                    .unwrap_or_else(|| DEFAULT_REGRESSIONS.into()),
            ),
            expected: root.join(parsed.expected.unwrap_or_else(|| DEFAULT_EXPECTED.into())),
            peers,
            file: Some(file),
            root,
        })
    }

    /// Resolve the project's peers, starting them with `options`.
    pub fn registry(&self, options: &PeerOptions) -> Result<Registry, RegistryError> {
        self.registry_for(None, options)
    }

    /// The project's peers; with `only`, only those peers and the
    /// reference are started, the rest checked and kept unstarted
    /// ([`Registry::from_entries_for`]).
    pub fn registry_for(
        &self,
        only: Option<&[String]>,
        options: &PeerOptions,
    ) -> Result<Registry, RegistryError> {
        match &self.peers {
            Peers::Builtins => Ok(Registry::builtins_for(only, options)),
            Peers::File(path) => Registry::load_for(path, only, options),
            Peers::Inline { reference, entries } => Registry::from_entries_for(
                reference,
                entries.clone(),
                &self.root,
                self.file.as_deref().unwrap_or(Path::new(FILE_NAME)),
                only,
                options,
            ),
        }
    }

    /// Where the project came from, for messages: its file, or its root
    /// and a hint that there is no file.
    pub fn describe(&self) -> String {
        match &self.file {
            Some(file) => file.display().to_string(),
            None => format!(
                "{} (no {FILE_NAME} found there or above; the built-in peers and default directories; `lawsuite init` writes one)",
                self.root.display()
            ),
        }
    }
}

/// The text `lawsuite init` writes ([`crate::scaffold`]).
pub const SKELETON: &str = r#"# A lawsuite project. `lawsuite run` and `cargo test` (lawsuite::suite::Suite)
# find this file from this directory or any directory below it; every path in
# it is relative to this file. (Top-level keys come before the [[peer]]
# tables: in TOML, a key after a table belongs to that table.)

# Shrunk divergences kept by `lawsuite record` (and LAWSUITE_RECORD=1 under
# cargo test), replayed by every run.
regressions = "lawsuite/regressions"

# Your expected law failures: one TOML table per registered peer name,
# mapping a law id to why it fails there, e.g.
#   [mine]
#   "law::grep::context::context-tie-goes-to-the-earlier-match" = "context ownership not done yet"
# A listed law that passes fails the run, so the list stays true.
expected = "lawsuite/expected"

# Law directories of your own, run beside the laws lawsuite ships.
# laws = ["lawsuite/laws"]

# The reference peer: the answers the others are compared with.
reference = "portable"

[[peer]]
name = "portable"
builtin = "portable"

# The rg-driven reference peer (needs rg 14.1.1 or newer on PATH).
# [[peer]]
# name = "ripgrep"
# builtin = "ripgrep"

# Your peer, in any language, over lawsuite's stdio protocol (`lawsuite docs
# PROTOCOL.md` prints it; `lawsuite init --lang node|python` writes a peer on
# an adapter that speaks it). In `command`, a program with a `/` in it
# (`.venv/bin/python`) and arguments starting with `./` or `../` are relative
# to this file, from whichever directory lawsuite runs; a bare program name is
# looked up on PATH.
# [[peer]]
# name = "mine"
# command = ["python3", "./my_peer.py"]
# timeout_ms = 10000        # per call (default 10 s)
# handshake_timeout_ms = 60000  # to start and answer initialize (default 60 s)
"#;

/// Whether `file` is a project file: `false` when nothing is there, an
/// error when something is there that is not a regular file (following
/// symlinks). `Path::is_file` says `false` for both, and discovery then
/// took a parent's project without a word.
fn project_file(file: &Path) -> Result<bool, ProjectError> {
    let link = match std::fs::symlink_metadata(file) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(source) => {
            return Err(ProjectError::File(FileError::io(file, source)));
        }
    };
    let not = |what: String| ProjectError::NotAFile {
        path: file.to_path_buf(),
        what,
    };
    let meta = match std::fs::metadata(file) {
        Ok(meta) => meta,
        // `symlink_metadata` saw it, so this is a link that leads nowhere.
        Err(e) if link.file_type().is_symlink() => {
            // `ErrorKind::FilesystemLoop` is not stable yet: a link that
            // fails other than "not found" is a loop (ELOOP) or worse, and
            // the OS's words say which.
            return Err(not(match e.kind() {
                std::io::ErrorKind::NotFound => match std::fs::read_link(file) {
                    Ok(target) => format!("a dangling symlink (to {})", target.display()),
                    Err(_) => "a dangling symlink".to_string(),
                },
                _ => format!("a symlink that cannot be followed, a loop or too long a chain ({e})"),
            }));
        }
        Err(source) => {
            return Err(ProjectError::File(FileError::io(file, source)));
        }
    };
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(true);
    }
    Err(not(if kind.is_dir() {
        "a directory".to_string()
    } else {
        special_kind(&kind).to_string()
    }))
}

#[cfg(unix)]
fn special_kind(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else {
        "not a regular file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> &'static str {
    "not a regular file"
}

/// `path` made absolute against the working directory (without touching
/// the filesystem), so a project's paths mean the same after a `cd`.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skeleton_is_a_valid_project_with_the_builtin_reference() {
        let dir = tempfile::tempdir().unwrap();
        let written = crate::scaffold::write(
            dir.path(),
            None,
            &crate::scaffold::Dependency::Git("https://example.org/lawsuite.git".into()),
        )
        .unwrap();
        let file = written[0].clone();
        let project = Project::load(&file).unwrap();
        assert!(
            matches!(&project.peers, Peers::Inline { reference, .. } if reference == "portable")
        );
        assert_eq!(project.regressions, dir.path().join("lawsuite/regressions"));
        assert!(project.regressions.is_dir() && project.expected.is_dir());
        let registry = project.registry(&PeerOptions::default()).unwrap();
        assert_eq!(registry.names(), "portable");
        assert!(matches!(
            crate::scaffold::write(
                dir.path(),
                None,
                &crate::scaffold::Dependency::Git("https://example.org/lawsuite.git".into())
            ),
            Err(ProjectError::Exists { .. })
        ));
    }

    #[test]
    fn discovery_walks_up_and_falls_back_to_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        let bare = Project::discover(&deep).unwrap();
        assert!(bare.file.is_none() || !bare.file.as_ref().unwrap().starts_with(dir.path()));
        std::fs::write(
            dir.path().join("a/lawsuite.toml"),
            "registry = \"peers.toml\"\nexpected = \"x\"\nlaws = [\"mine\"]\n",
        )
        .unwrap();
        let found = Project::discover(&deep).unwrap();
        assert_eq!(found.root, dir.path().join("a"));
        assert!(matches!(&found.peers, Peers::File(p) if p == &dir.path().join("a/peers.toml")));
        assert_eq!(found.laws, [dir.path().join("a/mine")]);
        assert_eq!(found.expected, dir.path().join("a/x"));
    }

    /// A `lawsuite.toml` that is there but is not a regular file stops
    /// discovery with an error naming it; it used to be skipped, and the
    /// parent's project taken without a word.
    #[cfg(unix)]
    #[test]
    fn a_project_file_that_is_not_a_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE_NAME), "regressions = \"parent's\"\n").unwrap();
        let here = dir.path().join("child");
        std::fs::create_dir(&here).unwrap();
        let file = here.join(FILE_NAME);
        // Each makes the kind it names at the path, or says it cannot.
        type Make<'a> = &'a dyn Fn(&Path) -> bool;
        let makers: [(&str, Make); 4] = [
            ("a FIFO", &|f| {
                let made = std::process::Command::new("mkfifo").arg(f).status();
                made.is_ok_and(|s| s.success())
            }),
            ("a directory", &|f| std::fs::create_dir(f).is_ok()),
            ("a dangling symlink (to nowhere.toml)", &|f| {
                std::os::unix::fs::symlink("nowhere.toml", f).is_ok()
            }),
            ("a loop", &|f| {
                std::os::unix::fs::symlink(FILE_NAME, f).is_ok()
            }),
        ];
        for (what, make) in makers {
            if !make(&file) {
                assert_ne!(what, "a directory", "cannot create {}", file.display());
                eprintln!("skipped {what}: cannot make one here");
                continue;
            }
            let err = Project::discover(&here).unwrap_err();
            assert!(
                matches!(err, ProjectError::NotAFile { .. }),
                "{what}: {err}"
            );
            let text = err.to_string();
            assert!(
                text.contains(&file.display().to_string()) && text.contains(what),
                "{what}: {text}"
            );
            match std::fs::remove_dir(&file) {
                Ok(()) => {}
                Err(_) => std::fs::remove_file(&file).unwrap(),
            }
        }
        // Nothing there: the parent's project, as before.
        let found = Project::discover(&here).unwrap();
        assert_eq!(found.root, dir.path());
    }

    /// `[[peer]]` tables without a `reference` (the adapters' READMEs
    /// register a peer in three lines): the built-in `portable` is the
    /// reference, added under that name unless a table already uses it.
    #[test]
    fn peer_tables_alone_have_portable_as_their_reference() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(FILE_NAME);
        std::fs::write(
            &file,
            "[[peer]]\nname = \"mine\"\ncommand = [\"node\", \"./peer.mjs\"]\n",
        )
        .unwrap();
        let project = Project::load(&file).unwrap();
        let Peers::Inline { reference, entries } = &project.peers else {
            panic!("{:?}", project.peers);
        };
        assert_eq!(reference, "portable");
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["portable", "mine"]);
        assert_eq!(entries[0].builtin.as_deref(), Some("portable"));
        // A table already named `portable` is the reference as written.
        std::fs::write(
            &file,
            "[[peer]]\nname = \"a\"\nbuiltin = \"model\"\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n",
        )
        .unwrap();
        let project = Project::load(&file).unwrap();
        let Peers::Inline { entries, .. } = &project.peers else {
            panic!("{:?}", project.peers);
        };
        assert_eq!(entries.len(), 2);
    }

    #[test]
    fn bad_files_say_what_to_fix() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("lawsuite.toml");
        for (text, says) in [
            ("reference = \"a\"\n", "no `[[peer]]`"),
            ("registry = \"p.toml\"\nreference = \"a\"\n", "not both"),
            ("surprise = 1\n", "surprise"),
        ] {
            std::fs::write(&file, text).unwrap();
            let err = Project::load(&file).unwrap_err().to_string();
            assert!(err.contains(says), "{text:?}: {err}");
        }
    }
}
