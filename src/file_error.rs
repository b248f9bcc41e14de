//! One error for lawsuite's own files, those it reads (law files,
//! registries, project files, regressions, expected failures, results) and
//! those it writes ([`crate::regular_file`]): the file's path and what went
//! wrong with it, so every reader and writer says "this file, this problem"
//! the same way instead of each keeping its own `Io { path, source }`.
//!
//! A reader's own error ([`crate::registry::RegistryError`],
//! [`crate::kit::regression::RegressionError`], …) wraps a [`FileError`]
//! with the sentence that says what to do; [`FileErrorKind`] is what the
//! sentence needs to know.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use lawsuite::file_error::{FileError, FileErrorKind};
//! let dir = tempfile::tempdir()?;
//! let err = FileError::read_to_string(dir.path()).unwrap_err();
//! assert!(matches!(err.kind(), FileErrorKind::NotAFile(_)));
//! assert_eq!(err.kind().to_string(), "it is a directory, not a regular file");
//! # Ok(())
//! # }
//! ```

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// A file lawsuite reads (or writes) that cannot be used.
#[derive(Debug)]
pub struct FileError {
    path: PathBuf,
    kind: FileErrorKind,
}

/// What went wrong with a file.
#[derive(Debug)]
#[non_exhaustive]
pub enum FileErrorKind {
    /// Reading or writing it failed.
    Io(io::Error),
    /// It is there but is not a regular file (a directory, a FIFO, …):
    /// refused without being opened ([`crate::regular_file`]).
    NotAFile(&'static str),
    /// It has no write permission bit: the user protected it, so it is
    /// never replaced ([`crate::regular_file::replace_whole`]).
    ReadOnly {
        /// Its permission bits, e.g. `0o444`.
        mode: u32,
    },
    /// Another lawsuite holds its lock
    /// ([`crate::regular_file::Held::try_acquire`]).
    Held {
        /// The lock file.
        lock: PathBuf,
    },
    /// Its text is not what it should hold.
    Parse {
        /// The line of the problem, when the parser said.
        line: Option<usize>,
        /// What the parser said.
        message: String,
    },
}

impl FileError {
    /// A problem with the file at `path`.
    pub fn new(path: impl Into<PathBuf>, kind: FileErrorKind) -> FileError {
        FileError {
            path: path.into(),
            kind,
        }
    }

    /// An I/O error on the file at `path`.
    pub fn io(path: impl Into<PathBuf>, source: io::Error) -> FileError {
        FileError::new(path, FileErrorKind::Io(source))
    }

    /// A parse error in the file at `path`.
    pub fn parse(path: impl Into<PathBuf>, line: Option<usize>, message: String) -> FileError {
        FileError::new(path, FileErrorKind::Parse { line, message })
    }

    /// The text of `path` if it is a regular file: anything else is
    /// refused without being opened, so a FIFO never blocks a run.
    pub fn read_to_string(path: &Path) -> Result<String, FileError> {
        if let Some(what) = not_regular(path).map_err(|source| FileError::io(path, source))? {
            return Err(FileError::new(path, FileErrorKind::NotAFile(what)));
        }
        std::fs::read_to_string(path).map_err(|source| FileError::io(path, source))
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What went wrong.
    pub fn kind(&self) -> &FileErrorKind {
        &self.kind
    }
}

impl fmt::Display for FileErrorKind {
    /// The problem without the path: the OS's words, "it is a directory,
    /// not a regular file", "it is read-only …", or the parser's message.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileErrorKind::Io(source) => source.fmt(f),
            FileErrorKind::NotAFile(what) => write!(f, "it is {what}, not a regular file"),
            FileErrorKind::ReadOnly { mode } => write!(
                f,
                "it is read-only (mode {mode:04o}), so lawsuite leaves it as it is; make it writable (chmod u+w) to have it replaced"
            ),
            FileErrorKind::Held { lock } => write!(
                f,
                "another lawsuite is writing it (it holds {}); wait for that one to finish",
                lock.display()
            ),
            FileErrorKind::Parse { message, .. } => f.write_str(message),
        }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            FileErrorKind::Parse {
                line: Some(line), ..
            } => write!(f, "{} (line {line}): {}", self.path.display(), self.kind),
            _ => write!(f, "{}: {}", self.path.display(), self.kind),
        }
    }
}

impl std::error::Error for FileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            FileErrorKind::Io(source) => Some(source),
            _ => None,
        }
    }
}

/// What `path` is when it is not a regular file (following symlinks),
/// `None` when it is one.
pub(crate) fn not_regular(path: &Path) -> io::Result<Option<&'static str>> {
    let kind = fs::metadata(path)?.file_type();
    Ok((!kind.is_file()).then(|| describe(kind)))
}

/// What a non-regular file is, for the error.
pub(crate) fn describe(kind: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else {
        "not a file"
    }
}
