//! What can be wrong with a law: one kind per problem, each displayed as
//! the sentence the report shows. A problem found when a law file is
//! loaded is a [`LawError`]; one found when a law is set up (its tree
//! written, its call built) is a [`SetupError`]. Both name the file and the
//! law, so a report line says where to look.

use std::fmt;
use std::io;
use std::path::PathBuf;

use super::limits::{MAX_COUNT, MAX_GENERATED, MAX_SIZE};
use crate::file_error::FileError;
use crate::peer::Method;

/// A law file problem: reported as its own failing trial; the rest runs.
#[derive(Debug)]
pub struct LawError {
    /// The file.
    pub file: PathBuf,
    /// The law, when the problem is in one.
    pub law: Option<String>,
    /// What is wrong.
    pub problem: LawProblem,
}

impl fmt::Display for LawError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.law {
            Some(law) => write!(f, "{}: law {law:?}: {}", self.file.display(), self.problem),
            None => write!(f, "{}: {}", self.file.display(), self.problem),
        }
    }
}

impl std::error::Error for LawError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.problem.source()
    }
}

/// A law that loaded but cannot be set up: its tree cannot be written or
/// its call cannot be built. The trials of the law are broken, never
/// failed: no peer was asked.
#[derive(Debug)]
pub struct SetupError {
    /// The law's file.
    pub file: PathBuf,
    /// The law's name.
    pub law: String,
    /// What is wrong (boxed: a setup's `Result` stays small on the path
    /// every trial takes).
    pub problem: Box<LawProblem>,
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: law {}: {}",
            self.file.display(),
            self.law,
            self.problem
        )
    }
}

impl std::error::Error for SetupError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.problem.source()
    }
}

impl SetupError {
    pub(super) fn new(law: &super::LoadedLaw, problem: LawProblem) -> SetupError {
        SetupError {
            file: law.file.clone(),
            law: law.law.name.clone(),
            problem: Box::new(problem),
        }
    }
}

/// How a path written in a law leaves its tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Escape {
    /// It is absolute.
    Absolute,
    /// It climbs out with `..`.
    Leaves,
}

impl fmt::Display for Escape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Escape::Absolute => "is absolute; write it relative to the tree",
            Escape::Leaves => "leaves the tree",
        })
    }
}

/// What is wrong with a law or its file, one kind per problem; `Display`
/// is the sentence a report shows after the file and law.
#[derive(Debug)]
#[non_exhaustive]
pub enum LawProblem {
    /// The law directory is not a directory.
    NotADirectory,
    /// A link in a law directory leads back to a directory that holds it:
    /// followed, it would load the same laws again and again.
    LinkCycle {
        /// The directory it leads back to.
        target: std::path::PathBuf,
    },
    /// The law file cannot be read.
    Unreadable(FileError),
    /// The law file is not valid TOML of the law format.
    NotALawFile(toml::de::Error),
    /// Two laws of one file share a name.
    DuplicateName,
    /// `spec` names no section.
    NoSection(String),
    /// Neither or both of `expect` and `expect_error`.
    ExpectOrError,
    /// `expect_message` without `expect_error`.
    MessageWithoutError,
    /// `input.<key>` is not a string.
    InputNotString(String),
    /// `input.<key>` leaves the tree.
    InputOutside {
        /// The input key (`root`, `path`, `cwd`).
        key: String,
        /// How.
        escape: Escape,
    },
    /// A read or ls law without `input.path`.
    NeedsPath(Method),
    /// A key in both `expect_lengths` and `expect`.
    LengthAndExpect(String),
    /// `expect_lengths` without `expect`.
    LengthsWithoutExpect,
    /// A tree path leaves the tree.
    TreePathOutside {
        /// The path.
        path: String,
        /// How.
        escape: Escape,
    },
    /// A symlink's target leaves the tree.
    SymlinkOutside {
        /// The link.
        path: String,
        /// Its target.
        target: String,
    },
    /// `count` without `{i}` in the path, or the other way round.
    CountWithoutIndex(String),
    /// `count` over [`MAX_COUNT`].
    CountOverLimit {
        /// The tree path.
        path: String,
        /// The count given.
        count: usize,
    },
    /// `size` over [`MAX_SIZE`].
    SizeOverLimit {
        /// The tree path.
        path: String,
        /// The size given.
        size: u64,
    },
    /// The input is not a valid request of the law's method.
    InvalidInput {
        /// The method.
        method: Method,
        /// What serde said.
        error: serde_json::Error,
    },
    /// The input is not a valid call (the call's own error).
    InvalidCall(crate::call::BadParams),
    /// A TOML table that JSON cannot hold.
    NotJson(serde_json::Error),
    /// A repeated piece with both `text` and `parts`, or neither.
    PieceTextOrParts,
    /// A repeated piece that is not one.
    InvalidPiece(serde_json::Error),
    /// Generated text over the limit.
    TooMuchText,
    /// A law with neither `expect` nor `expect_error` (found at setup).
    NoExpectation,
    /// `bytes` with a `\x` escape of fewer than two digits.
    ShortEscape,
    /// `bytes` with a `\x` escape that is not hex.
    BadEscape(String),
    /// `bytes` with an escape other than `\xNN` and `\\`.
    UnknownEscape,
    /// A problem in one tree entry's content.
    InEntry {
        /// The tree path.
        path: String,
        /// The problem.
        problem: Box<LawProblem>,
    },
    /// A tree entry with more than one of `text`, `bytes` and `parts`.
    ContentForms(String),
    /// A tree entry's repeated content over the limit.
    ContentOverLimit(String),
    /// The tree cannot be written.
    Unwritable(crate::kit::materialize::MaterializeError),
    /// A FIFO, socket or sized entry cannot be made.
    Unmade {
        /// `fifo`, `socket` or `size`.
        what: &'static str,
        /// The tree path.
        path: String,
        /// Why.
        source: io::Error,
    },
}

impl fmt::Display for LawProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use LawProblem::*;
        match self {
            NotADirectory => {
                f.write_str("is not a directory of law files; give a directory holding *.toml laws")
            }
            LinkCycle { target } => write!(
                f,
                "is a link back to {}, which holds it: not followed (each law would load again below it); remove the link",
                target.display()
            ),
            Unreadable(e) => write!(f, "cannot be read ({})", e.kind()),
            NotALawFile(e) => write!(f, "is not a valid law file: {e}"),
            DuplicateName => {
                f.write_str("the name is used twice in this file; names must be unique")
            }
            NoSection(spec) => write!(
                f,
                "`spec` must name a section, e.g. \"search-contract §13.1\", not {spec:?}"
            ),
            ExpectOrError => f.write_str("give exactly one of `expect` and `expect_error`"),
            MessageWithoutError => f.write_str("`expect_message` goes with `expect_error`"),
            InputNotString(key) => write!(f, "`input.{key}` must be a string"),
            InputOutside { key, escape } => write!(f, "`input.{key}` {escape}"),
            NeedsPath(method) => write!(f, "{method} needs `input.path`"),
            LengthAndExpect(key) => write!(
                f,
                "`{key}` is in `expect_lengths`, so it cannot be in `expect` too"
            ),
            LengthsWithoutExpect => f.write_str("`expect_lengths` goes with `expect`"),
            TreePathOutside { path, escape } => write!(f, "tree path {path:?} {escape}"),
            SymlinkOutside { path, target } => write!(
                f,
                "symlink {path:?} points outside the tree ({target:?}); use a relative target inside it"
            ),
            CountWithoutIndex(path) => write!(
                f,
                "tree path {path:?}: `count` and a `{{i}}` in the path go together"
            ),
            CountOverLimit { path, count } => write!(
                f,
                "tree path {path:?}: `count = {count}` is over the limit of {MAX_COUNT} entries; a law pins one rule on a small tree"
            ),
            SizeOverLimit { path, size } => write!(
                f,
                "tree path {path:?}: `size = {size}` is over the limit of {MAX_SIZE} bytes (1 GiB)"
            ),
            InvalidInput { method, error } => {
                write!(f, "the input is not valid for {method}: {error}")
            }
            InvalidCall(e) => e.fmt(f),
            NotJson(e) => e.fmt(f),
            PieceTextOrParts => f.write_str("a repeated piece gives `text` or `parts`, not both"),
            InvalidPiece(e) => write!(f, "a repeated piece is not valid: {e}"),
            TooMuchText => write!(
                f,
                "generated text is over {MAX_GENERATED} bytes; use `size` for big files"
            ),
            NoExpectation => f.write_str("a law needs `expect` or `expect_error`"),
            ShortEscape => f.write_str("a \\x escape needs two hex digits"),
            BadEscape(hex) => write!(f, "bad \\x escape {hex:?}"),
            UnknownEscape => f.write_str("only \\xNN and \\\\ escapes are allowed in `bytes`"),
            InEntry { path, problem } => write!(f, "{path:?}: {problem}"),
            ContentForms(path) => {
                write!(f, "{path:?}: give one of `text`, `bytes` and `parts`")
            }
            ContentOverLimit(path) => write!(
                f,
                "{path:?}: the content is over {MAX_GENERATED} bytes; use `size`"
            ),
            Unwritable(e) => write!(f, "its tree cannot be written: {e}"),
            Unmade { what, path, source } => {
                write!(f, "cannot make the {what} entry {path:?}: {source}")
            }
        }
    }
}

impl std::error::Error for LawProblem {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LawProblem::Unreadable(e) => Some(e),
            LawProblem::NotALawFile(e) => Some(e),
            LawProblem::InvalidInput { error, .. } => Some(error),
            LawProblem::InvalidCall(e) => Some(e),
            LawProblem::NotJson(e) | LawProblem::InvalidPiece(e) => Some(e),
            LawProblem::Unwritable(e) => Some(e),
            LawProblem::Unmade { source, .. } => Some(source),
            LawProblem::InEntry { problem, .. } => Some(problem.as_ref()),
            _ => None,
        }
    }
}
