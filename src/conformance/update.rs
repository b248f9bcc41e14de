//! `--update-expectations`: a project's expected-failure files brought in
//! line with a run, as the user wrote them.
//!
//! Entries whose failure now passes are removed from the file that lists
//! them; new law failures are listed in `recorded.toml`, each with a reason
//! to be replaced by the real cause. The files are edited, not rewritten
//! from data: every comment, the order and the layout of the rest stay (a
//! format-preserving TOML editor). Each file is replaced whole (a new file
//! renamed over the old one), so a run killed while writing leaves the old
//! one; and a file that is there but cannot be read or parsed is the
//! user's, left as it is and named in the error, never replaced.
//!
//! ```
//! use lawsuite::conformance::update::update_expectations;
//! use lawsuite::conformance::{Kind, Outcome, Report, Verdict};
//!
//! let dir = tempfile::tempdir()?;
//! let failing = Outcome {
//!     id: "law::glob::x::y::mine".into(),
//!     item: "law::glob::x::y".into(),
//!     kind: Kind::Law,
//!     peer: Some("mine".into()),
//!     spec: None,
//!     verdict: Verdict::Fail { report: Report::default() },
//!     documented: Default::default(),
//!     seconds: 0.0,
//!     compared: 0,
//! };
//! let changed = update_expectations(dir.path(), &[failing])?;
//! assert_eq!((changed.removed, changed.added), (0, 1));
//! let text = std::fs::read_to_string(dir.path().join("recorded.toml"))?;
//! assert!(text.starts_with("[mine]\n\"law::glob::x::y\" = "), "{text}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use super::expect::{key_of, toml_files};
use super::{Kind, Outcome, Verdict};
use crate::file_error::FileError;

/// The reason written beside a newly listed failure.
pub const RECORDED_REASON: &str =
    "recorded by `lawsuite run --update-expectations`; replace with the cause";

/// What [`update_expectations`] changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Updated {
    /// Entries removed because their failure now passes.
    pub removed: usize,
    /// Failures newly listed in [`Updated::recorded`].
    pub added: usize,
    /// The file new failures are listed in.
    pub recorded: PathBuf,
}

impl fmt::Display for Updated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} entries that now pass removed, {} new failures listed in {}",
            self.removed,
            self.added,
            self.recorded.display()
        )
    }
}

/// Why the expected-failure files could not be updated. Nothing the
/// error names was changed.
#[derive(Debug)]
pub enum UpdateError {
    /// A file cannot be read, or is not TOML: it is left as it is.
    Unreadable(FileError),
    /// In `recorded.toml`, the peer's entry is not a table of item ids.
    NotATable {
        /// The file.
        file: PathBuf,
        /// The peer.
        peer: String,
    },
    /// Writing a file failed (the old one, if any, is still there).
    Write(FileError),
}

impl fmt::Display for UpdateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UpdateError::Unreadable(e) => write!(
                f,
                "{e} (an expected-failure file lawsuite cannot read is left as it is; fix it, then run again)"
            ),
            UpdateError::NotATable { file, peer } => write!(
                f,
                "{}: `{peer}` is not a table of item ids; fix it by hand, then run again",
                file.display()
            ),
            UpdateError::Write(e) => write!(f, "writing {e}"),
        }
    }
}

impl std::error::Error for UpdateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            UpdateError::Unreadable(e) | UpdateError::Write(e) => Some(e),
            UpdateError::NotATable { .. } => None,
        }
    }
}

/// In the expected-failures directory `dir`, drop the entries that now
/// pass and list new law failures in `recorded.toml` (module doc).
/// lawsuite's own lists for its built-in peers are never in `dir`, so never
/// touched.
pub fn update_expectations(dir: &Path, outcomes: &[Outcome]) -> Result<Updated, UpdateError> {
    let mut stale: HashSet<(String, String)> = HashSet::new();
    let mut new: Vec<(String, String)> = Vec::new();
    // Keyed by item id (`law::…`): the one spelling of a listing, which
    // new entries are written in; a file's entries match in either.
    for o in outcomes.iter().filter(|o| o.kind == Kind::Law) {
        let Some(peer) = o.peer.clone() else {
            continue;
        };
        match &o.verdict {
            Verdict::UnexpectedPass { source, .. } if Path::new(source).starts_with(dir) => {
                stale.insert((peer, o.item.clone()));
            }
            // A failure, not a broken trial: a broken one says the
            // harness could not judge, which no listing should hide.
            Verdict::Fail { .. } => new.push((peer, o.item.clone())),
            _ => {}
        }
    }
    let recorded_path = dir.join("recorded.toml");
    // Everything is read (and parsed) before anything is written.
    let mut recorded = match std::fs::symlink_metadata(&recorded_path) {
        Ok(_) => edited(&recorded_path)?,
        Err(_) => toml_edit::DocumentMut::new(),
    };
    let mut edits = Vec::new();
    let mut removed = 0;
    for file in toml_files(dir) {
        let mut doc = edited(&file)?;
        let mut gone = 0;
        for (peer, laws) in doc.iter_mut() {
            let Some(laws) = laws.as_table_like_mut() else {
                continue;
            };
            let listed: Vec<String> = laws.iter().map(|(law, _)| law.to_string()).collect();
            for law in listed {
                if stale.contains(&(peer.to_string(), key_of(&law))) {
                    laws.remove(&law);
                    gone += 1;
                }
            }
        }
        if gone > 0 {
            removed += gone;
            edits.push((file, doc.to_string()));
        }
    }
    let added = new.len();
    for (peer, law) in new {
        let table = recorded
            .entry(&peer)
            .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
        let Some(table) = table.as_table_like_mut() else {
            return Err(UpdateError::NotATable {
                file: recorded_path,
                peer,
            });
        };
        table.insert(&law, toml_edit::value(RECORDED_REASON));
    }
    for (file, text) in edits {
        write_whole(&file, &text)?;
    }
    if added > 0 {
        std::fs::create_dir_all(dir).map_err(|e| UpdateError::Write(FileError::io(dir, e)))?;
        write_whole(&recorded_path, &recorded.to_string())?;
    }
    Ok(Updated {
        removed,
        added,
        recorded: recorded_path,
    })
}

/// An expected-failure file as an editable document (comments and layout
/// kept).
fn edited(file: &Path) -> Result<toml_edit::DocumentMut, UpdateError> {
    let text = FileError::read_to_string(file).map_err(UpdateError::Unreadable)?;
    text.parse().map_err(|e: toml_edit::TomlError| {
        UpdateError::Unreadable(FileError::parse(file, None, e.message().to_string()))
    })
}

/// [`crate::regular_file::replace_whole`], its error this module's.
fn write_whole(file: &Path, text: &str) -> Result<(), UpdateError> {
    crate::regular_file::replace_whole(file, text).map_err(UpdateError::Write)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(peer: &str, item: &str, verdict: Verdict) -> Outcome {
        crate::testing::outcome(Kind::Law, peer, item, verdict)
    }

    /// A passing entry goes from the file that lists it, in either key
    /// spelling, and the user's comments and other entries stay.
    #[test]
    fn a_passing_entry_goes_and_comments_stay() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mine.toml");
        let text = "# my notes\n[mine]\n# why x fails\n\"glob::x::y\" = \"a bug\"\n\"law::glob::x::z\" = \"another\" # still\n";
        std::fs::write(&file, text).unwrap();
        let passed = Verdict::UnexpectedPass {
            reason: "a bug".into(),
            source: file.display().to_string(),
        };
        let updated =
            update_expectations(dir.path(), &[outcome("mine", "law::glob::x::y", passed)]).unwrap();
        assert_eq!((updated.removed, updated.added), (1, 0));
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "# my notes\n[mine]\n\"law::glob::x::z\" = \"another\" # still\n"
        );
        assert!(!dir.path().join("recorded.toml").exists());
    }

    /// A `recorded.toml` that cannot be parsed is never replaced, and
    /// nothing else is written either.
    #[test]
    fn an_unreadable_file_is_left_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let recorded = dir.path().join("recorded.toml");
        std::fs::write(&recorded, "[mine\n").unwrap();
        let failing = Verdict::Fail {
            report: Default::default(),
        };
        let e =
            update_expectations(dir.path(), &[outcome("mine", "law::a::b", failing)]).unwrap_err();
        assert!(matches!(e, UpdateError::Unreadable(_)), "{e}");
        assert!(e.to_string().contains("recorded.toml"), "{e}");
        assert_eq!(std::fs::read_to_string(&recorded).unwrap(), "[mine\n");
    }
}
