//! Where the Rust skeleton's `lawsuite` dev-dependency comes from: a path
//! to lawsuite's source, or a git repository.
//!
//! A skeleton must build as written on the machine it is written on, and
//! lawsuite is not published on crates.io: a `version = "0.1"` line would
//! name a crate that is not there. So `lawsuite init --lang rust` takes the
//! source its binary was built from, when that source is still there and
//! still holds the same version ([`built_source`]), or what
//! `--lawsuite-path DIR` or `--lawsuite-git URL` say; without either, it is
//! an error that says to pass one ([`SourceError::NotFound`]), never a
//! dependency that cannot resolve.
//!
//! ```
//! use lawsuite::scaffold::Dependency;
//! let line = Dependency::Git("https://example.org/lawsuite.git".into()).manifest_line();
//! assert_eq!(
//!     line,
//!     r#"lawsuite = { git = "https://example.org/lawsuite.git", default-features = false }"#
//! );
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

/// The `lawsuite` dependency a Rust skeleton's `Cargo.toml` names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dependency {
    /// lawsuite's source in this directory (absolute, so the crate can be
    /// moved within the machine).
    Path(PathBuf),
    /// lawsuite's source in this git repository.
    Git(String),
}

impl Dependency {
    /// The `lawsuite = { ... }` line of the skeleton's `[dev-dependencies]`
    /// (default features off: an in-process peer needs neither the
    /// external-peer client nor the binary).
    pub fn manifest_line(&self) -> String {
        let quoted = |s: &str| toml::Value::String(s.to_string()).to_string();
        let source = match self {
            Dependency::Path(dir) => format!("path = {}", quoted(&dir.to_string_lossy())),
            Dependency::Git(url) => format!("git = {}", quoted(url)),
        };
        format!("lawsuite = {{ {source}, default-features = false }}")
    }
}

impl fmt::Display for Dependency {
    /// Which source was chosen, for `init` to print.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dependency::Path(dir) => write!(f, "lawsuite's source at {}", dir.display()),
            Dependency::Git(url) => write!(f, "lawsuite's git repository {url}"),
        }
    }
}

/// Why a directory is not a lawsuite source to depend on.
#[derive(Debug)]
pub enum SourceError {
    /// `DIR/Cargo.toml` cannot be read.
    Unreadable {
        /// The manifest.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `DIR/Cargo.toml` is not a manifest with a package name and version.
    Invalid {
        /// The manifest.
        path: PathBuf,
    },
    /// The package there is another crate.
    NotLawsuite {
        /// The manifest.
        path: PathBuf,
        /// The package it names.
        name: String,
    },
    /// No flag named a source, and none of the places this binary's source
    /// may be holds lawsuite at this version (the checkout it was built
    /// from was moved, updated or removed). lawsuite is not on crates.io,
    /// so there is nothing to fall back to.
    NotFound {
        /// The version a source must hold: this binary's.
        version: String,
        /// The directories looked in, nearest first.
        searched: Vec<PathBuf>,
    },
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::Unreadable { path, source } => write!(
                f,
                "{} cannot be read ({source}); give --lawsuite-path the directory of lawsuite's Cargo.toml",
                path.display()
            ),
            SourceError::Invalid { path } => write!(
                f,
                "{} has no [package] name and version; give --lawsuite-path the directory of lawsuite's Cargo.toml",
                path.display()
            ),
            SourceError::NotLawsuite { path, name } => write!(
                f,
                "{} is the manifest of {name:?}, not of lawsuite; give --lawsuite-path the directory of lawsuite's Cargo.toml",
                path.display()
            ),
            SourceError::NotFound { version, searched } => {
                let searched: Vec<String> =
                    searched.iter().map(|p| p.display().to_string()).collect();
                write!(
                    f,
                    "no source of lawsuite {version} was found for the skeleton's dependency (looked in {}), and lawsuite is not on crates.io; pass --lawsuite-path DIR (a checkout of lawsuite {version}) or --lawsuite-git URL (its git repository)",
                    if searched.is_empty() {
                        "no directory".to_string()
                    } else {
                        searched.join(", ")
                    }
                )
            }
        }
    }
}

impl std::error::Error for SourceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SourceError::Unreadable { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The version of the lawsuite source in `dir`, read from its
/// `Cargo.toml`.
pub fn source_version(dir: &Path) -> Result<String, SourceError> {
    let path = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&path).map_err(|source| SourceError::Unreadable {
        path: path.clone(),
        source,
    })?;
    let manifest: toml::Value =
        toml::from_str(&text).map_err(|_| SourceError::Invalid { path: path.clone() })?;
    let package = manifest.get("package");
    let field = |key: &str| {
        package
            .and_then(|p| p.get(key))
            .and_then(toml::Value::as_str)
            .map(str::to_string)
    };
    let (Some(name), Some(version)) = (field("name"), field("version")) else {
        return Err(SourceError::Invalid { path });
    };
    if name != "lawsuite" {
        return Err(SourceError::NotLawsuite { path, name });
    }
    Ok(version)
}

/// The first of `candidates` that holds lawsuite's source at `version`,
/// as an absolute path. A packaged copy (a registry's download or `cargo
/// package`'s output, which keep the original manifest as
/// `Cargo.toml.orig`) is not a source to point at: the registry it came
/// from serves it by version.
///
/// ```
/// use lawsuite::scaffold::installed_source;
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"lawsuite\"\nversion = \"9.9.9\"\n")?;
/// assert_eq!(installed_source([dir.path().to_path_buf()], "0.1.0"), None);
/// assert!(installed_source([dir.path().to_path_buf()], "9.9.9").is_some());
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn installed_source(
    candidates: impl IntoIterator<Item = PathBuf>,
    version: &str,
) -> Option<PathBuf> {
    candidates.into_iter().find_map(|dir| {
        let dir = std::path::absolute(&dir).ok()?;
        let packaged = dir.join("Cargo.toml.orig").exists();
        let same = source_version(&dir).is_ok_and(|v| v == version);
        (same && !packaged).then_some(dir)
    })
}

/// The source a skeleton depends on when no flag names one: the first of
/// `candidates` that [`installed_source`] accepts, or
/// [`SourceError::NotFound`] naming where it looked and the two flags that
/// choose a source. There is no crates.io fallback: lawsuite is not
/// published there, and a skeleton that names it fails its first build.
///
/// ```
/// use lawsuite::scaffold::{SourceError, built_source};
/// let empty = tempfile::tempdir()?;
/// let err = built_source([empty.path().to_path_buf()], "0.1.0").unwrap_err();
/// assert!(matches!(err, SourceError::NotFound { .. }));
/// assert!(err.to_string().contains("--lawsuite-path DIR"));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn built_source(
    candidates: impl IntoIterator<Item = PathBuf>,
    version: &str,
) -> Result<PathBuf, SourceError> {
    let candidates: Vec<PathBuf> = candidates.into_iter().collect();
    installed_source(candidates.clone(), version).ok_or_else(|| SourceError::NotFound {
        version: version.to_string(),
        searched: candidates,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(dir: &Path, text: &str) {
        std::fs::write(dir.join("Cargo.toml"), text).unwrap();
    }

    #[test]
    fn only_lawsuites_own_source_at_this_version_is_chosen() {
        let version = env!("CARGO_PKG_VERSION");
        let other = tempfile::tempdir().unwrap();
        manifest(
            other.path(),
            &format!("[package]\nname = \"other\"\nversion = \"{version}\"\n"),
        );
        let older = tempfile::tempdir().unwrap();
        manifest(
            older.path(),
            "[package]\nname = \"lawsuite\"\nversion = \"0.0.1\"\n",
        );
        let packaged = tempfile::tempdir().unwrap();
        manifest(
            packaged.path(),
            &format!("[package]\nname = \"lawsuite\"\nversion = \"{version}\"\n"),
        );
        std::fs::write(packaged.path().join("Cargo.toml.orig"), "").unwrap();
        let missing = other.path().join("gone");
        let candidates = [&missing, other.path(), older.path(), packaged.path()]
            .map(|p| p.to_path_buf())
            .to_vec();
        assert_eq!(installed_source(candidates.clone(), version), None);
        let source = tempfile::tempdir().unwrap();
        manifest(
            source.path(),
            &format!("[package]\nname = \"lawsuite\"\nversion = \"{version}\"\n"),
        );
        let mut with_source = candidates;
        with_source.push(source.path().to_path_buf());
        assert_eq!(
            installed_source(with_source, version).as_deref(),
            Some(source.path())
        );
        assert!(matches!(
            source_version(other.path()),
            Err(SourceError::NotLawsuite { name, .. }) if name == "other"
        ));
        assert!(matches!(
            source_version(&missing),
            Err(SourceError::Unreadable { .. })
        ));
    }

    #[test]
    fn each_source_writes_a_line_cargo_reads() {
        for dependency in [
            Dependency::Path(PathBuf::from("/src/a \"quoted\" dir")),
            Dependency::Git("https://example.org/lawsuite.git".into()),
        ] {
            let line = dependency.manifest_line();
            let parsed: toml::Value = toml::from_str(&line).unwrap();
            let table = &parsed["lawsuite"];
            assert_eq!(table["default-features"].as_bool(), Some(false), "{line}");
            // A path or a git source, never a registry version: lawsuite
            // is not on crates.io.
            assert!(table.get("version").is_none(), "{line}");
            let value = match &dependency {
                Dependency::Path(p) => (table["path"].as_str(), p.to_str()),
                Dependency::Git(url) => (table["git"].as_str(), Some(url.as_str())),
            };
            assert_eq!(value.0, value.1, "{line}");
        }
    }

    /// Issue 49: with no source found, `init --lang rust` wrote a crates.io
    /// dependency on a crate that is not published. Now it is an error
    /// that names where it looked and both flags.
    #[test]
    fn no_source_found_is_an_error_that_names_both_flags() {
        let version = env!("CARGO_PKG_VERSION");
        let elsewhere = tempfile::tempdir().unwrap();
        let gone = elsewhere.path().join("gone");
        let err = built_source([elsewhere.path().to_path_buf(), gone.clone()], version)
            .expect_err("no lawsuite source is there");
        match &err {
            SourceError::NotFound {
                version: v,
                searched,
            } => {
                assert_eq!(v, version);
                assert_eq!(searched, &[elsewhere.path().to_path_buf(), gone]);
            }
            other => panic!("{other:?}"),
        }
        let said = err.to_string();
        for part in [
            "--lawsuite-path DIR",
            "--lawsuite-git URL",
            "not on crates.io",
            &elsewhere.path().display().to_string(),
        ] {
            assert!(said.contains(part), "{said}");
        }
        // Where the source is, it is taken.
        let source = tempfile::tempdir().unwrap();
        manifest(
            source.path(),
            &format!("[package]\nname = \"lawsuite\"\nversion = \"{version}\"\n"),
        );
        assert_eq!(
            built_source(
                [elsewhere.path().to_path_buf(), source.path().to_path_buf()],
                version
            )
            .unwrap(),
            source.path()
        );
    }
}
