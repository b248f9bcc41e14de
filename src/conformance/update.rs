//! `--update-expectations`: a project's expected-failure files brought in
//! line with a run, as the user wrote them.
//!
//! Entries whose failure now passes are removed from the file that lists
//! them; new law failures are listed in `recorded.toml`, each with a reason
//! to be replaced by the real cause. The files are edited, not rewritten
//! from data: every comment, the order and the layout of the rest stay (a
//! format-preserving TOML editor). Each file is locked, read once and
//! written at most once ([`crate::regular_file::Held`]), so a removal and
//! an addition in one file are one edit, and two updates at once both
//! keep theirs. Each is replaced whole (a new file renamed over the old
//! one, with its permissions), so a run killed while writing leaves the
//! old one. A file that is there but cannot be read or parsed is the
//! user's, left as it is and named in the error, never replaced; so is a
//! read-only one, and nothing is written when one is refused.
//!
//! ```
//! use lawsuite::conformance::update::update_expectations;
//! use lawsuite::conformance::{Kind, Outcome, Report, Verdict};
//!
//! let dir = tempfile::tempdir()?;
//! let failing = Outcome {
//!     id: "law::glob::x::y::mine".parse().unwrap(),
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

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use super::expect::{key_of, toml_files};
use super::{Kind, Outcome, Verdict};
use crate::file_error::FileError;
use crate::regular_file::{Held, check_replaceable};

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
    /// A file cannot be replaced (read-only, not a regular file) or
    /// writing it failed: the old one, if any, is still there, and when it
    /// was refused, no file was written.
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

// No `source`: the message holds the file's error whole, and a `{:#}`
// chain (the binary's) said it twice.
impl std::error::Error for UpdateError {}

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
    if !new.is_empty() {
        std::fs::create_dir_all(dir).map_err(|e| UpdateError::Write(FileError::io(dir, e)))?;
    }
    // Each file is locked, read and parsed once, before anything is
    // written, and written at most once, from that one reading: the
    // removals and the additions of `recorded.toml` are one edit (it was
    // read twice, and the second reading, written last, put back what the
    // first had removed). The locks are taken in path order, so two
    // updates of one directory never wait on each other.
    // Keyed by the file a name reaches: `recorded.toml` as a symlink to
    // another listed file is that file, locked and edited once.
    let mut names: BTreeMap<PathBuf, bool> = BTreeMap::new();
    let mut listed = toml_files(dir);
    if !new.is_empty() {
        listed.push(recorded_path.clone());
    }
    for name in listed {
        let recorded = name == recorded_path;
        let file = std::fs::canonicalize(&name).unwrap_or(name);
        *names.entry(file).or_default() |= recorded;
    }
    let mut files = Vec::new();
    for (name, recorded) in names {
        let held = Held::acquire(&name).map_err(UpdateError::Unreadable)?;
        let doc = match held.read().map_err(UpdateError::Unreadable)? {
            Some(text) => parsed(&name, &text)?,
            None => toml_edit::DocumentMut::new(),
        };
        files.push(Listing {
            recorded,
            held,
            doc,
            changed: false,
        });
    }
    let mut removed = 0;
    for file in &mut files {
        for (peer, laws) in file.doc.iter_mut() {
            let Some(laws) = laws.as_table_like_mut() else {
                continue;
            };
            let listed: Vec<String> = laws.iter().map(|(law, _)| law.to_string()).collect();
            for law in listed {
                if stale.contains(&(peer.to_string(), key_of(&law))) {
                    laws.remove(&law);
                    removed += 1;
                    file.changed = true;
                }
            }
        }
    }
    let added = new.len();
    if let Some(recorded) = files.iter_mut().find(|f| f.recorded) {
        for (peer, law) in new {
            let table = recorded
                .doc
                .entry(&peer)
                .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
            let Some(table) = table.as_table_like_mut() else {
                return Err(UpdateError::NotATable {
                    file: recorded_path,
                    peer,
                });
            };
            table.insert(&law, toml_edit::value(RECORDED_REASON));
            recorded.changed = true;
        }
    }
    // A file that cannot be replaced (read-only, say) is said before any
    // is written, so one refusal does not leave half an update.
    for file in files.iter().filter(|f| f.changed) {
        check_replaceable(file.held.path()).map_err(UpdateError::Write)?;
    }
    for file in files.iter().filter(|f| f.changed) {
        file.held
            .replace(&file.doc.to_string())
            .map_err(UpdateError::Write)?;
    }
    Ok(Updated {
        removed,
        added,
        recorded: recorded_path,
    })
}

/// One expected-failure file while it is updated: locked, read once.
struct Listing {
    /// Whether it is `recorded.toml`, where new failures go.
    recorded: bool,
    held: Held,
    doc: toml_edit::DocumentMut,
    changed: bool,
}

/// An expected-failure file's `text` as an editable document (comments
/// and layout kept).
fn parsed(file: &Path, text: &str) -> Result<toml_edit::DocumentMut, UpdateError> {
    text.parse().map_err(|e: toml_edit::TomlError| {
        UpdateError::Unreadable(FileError::parse(file, None, e.message().to_string()))
    })
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

    fn failing() -> Verdict {
        Verdict::Fail {
            report: Default::default(),
        }
    }

    fn passed(file: &Path) -> Verdict {
        Verdict::UnexpectedPass {
            reason: "a bug".into(),
            source: file.display().to_string(),
        }
    }

    /// A passing entry of `recorded.toml` goes and a new failure is
    /// listed in the same run: one edit of the one reading (the file was
    /// read twice and the second reading, written last, put the passing
    /// entry back, so the next run failed on the same unexpected pass).
    #[test]
    fn a_removal_and_an_addition_in_recorded_toml_are_one_edit() {
        let dir = tempfile::tempdir().unwrap();
        let recorded = dir.path().join("recorded.toml");
        std::fs::write(&recorded, "# mine\n[mine]\n\"law::a::fixed\" = \"a bug\"\n").unwrap();
        let updated = update_expectations(
            dir.path(),
            &[
                outcome("mine", "law::a::fixed", passed(&recorded)),
                outcome("mine", "law::a::broken", failing()),
            ],
        )
        .unwrap();
        assert_eq!((updated.removed, updated.added), (1, 1));
        assert_eq!(
            std::fs::read_to_string(&recorded).unwrap(),
            format!("# mine\n[mine]\n\"law::a::broken\" = \"{RECORDED_REASON}\"\n")
        );
        // Nothing but the file is left: no temporary, no lock file.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// A read-only `recorded.toml` is refused, and the other file's edit
    /// is not written either: no half update.
    #[cfg(unix)]
    #[test]
    fn a_read_only_file_is_refused_and_nothing_is_written() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mine = dir.path().join("mine.toml");
        let recorded = dir.path().join("recorded.toml");
        std::fs::write(&mine, "[mine]\n\"law::a::fixed\" = \"a bug\"\n").unwrap();
        std::fs::write(&recorded, "[mine]\n").unwrap();
        std::fs::set_permissions(&recorded, std::fs::Permissions::from_mode(0o444)).unwrap();
        let e = update_expectations(
            dir.path(),
            &[
                outcome("mine", "law::a::fixed", passed(&mine)),
                outcome("mine", "law::a::broken", failing()),
            ],
        )
        .unwrap_err();
        assert!(
            matches!(&e, UpdateError::Write(f) if matches!(f.kind(), crate::file_error::FileErrorKind::ReadOnly { mode: 0o444 })),
            "{e}"
        );
        assert!(
            e.to_string().contains("recorded.toml: it is read-only"),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(&recorded).unwrap(), "[mine]\n");
        let mode = std::fs::metadata(&recorded).unwrap().permissions().mode();
        assert_eq!(mode & 0o7777, 0o444);
        assert_eq!(
            std::fs::read_to_string(&mine).unwrap(),
            "[mine]\n\"law::a::fixed\" = \"a bug\"\n"
        );
    }

    /// `recorded.toml` as a symlink to another listed file is that file:
    /// locked once (not twice, which would wait forever) and edited once.
    #[cfg(unix)]
    #[test]
    fn recorded_toml_linked_to_another_listing_is_one_file() {
        let dir = tempfile::tempdir().unwrap();
        let mine = dir.path().join("mine.toml");
        std::fs::write(&mine, "[mine]\n\"law::a::fixed\" = \"a bug\"\n").unwrap();
        std::os::unix::fs::symlink("mine.toml", dir.path().join("recorded.toml")).unwrap();
        let updated = update_expectations(
            dir.path(),
            &[
                outcome("mine", "law::a::fixed", passed(&mine)),
                outcome("mine", "law::a::broken", failing()),
            ],
        )
        .unwrap();
        assert_eq!((updated.removed, updated.added), (1, 1));
        assert_eq!(
            std::fs::read_to_string(&mine).unwrap(),
            format!("[mine]\n\"law::a::broken\" = \"{RECORDED_REASON}\"\n")
        );
        assert!(
            std::fs::symlink_metadata(dir.path().join("recorded.toml"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
}
