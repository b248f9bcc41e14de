//! One error for lawsuite's own input files (law files, registries, project
//! files, regressions, expected failures, results): the file's path and
//! what went wrong with it, so every reader says "this file, this problem"
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
        if let Some(what) =
            crate::regular_file::not_regular(path).map_err(|source| FileError::io(path, source))?
        {
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
    /// not a regular file", or the parser's message.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileErrorKind::Io(source) => source.fmt(f),
            FileErrorKind::NotAFile(what) => write!(f, "it is {what}, not a regular file"),
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

/// Replace `file` with `text` whole: a new file beside it, renamed over it,
/// so a run killed while writing leaves the old file (the user's expected
/// failures, a baseline, a drafted law) rather than half of the new one.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let file = dir.path().join("a.toml");
/// lawsuite::file_error::replace_whole(&file, "x = 1\n")?;
/// lawsuite::file_error::replace_whole(&file, "x = 2\n")?;
/// assert_eq!(std::fs::read_to_string(&file)?, "x = 2\n");
/// assert_eq!(std::fs::read_dir(dir.path())?.count(), 1, "no temporary left");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn replace_whole(file: &Path, text: &str) -> Result<(), FileError> {
    replace_whole_with(file, |out| out.write_all(text.as_bytes()))
}

/// [`replace_whole`] with what `write` writes: the new file is written
/// beside `file` as it comes (a report of millions of trials is never held
/// whole), and put in its place only once it is all written; an error
/// leaves `file` as it was and no temporary behind.
pub fn replace_whole_with(
    file: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), FileError> {
    use std::fs;
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = file.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = fs::File::create(&temporary).and_then(|f| {
        let mut out = std::io::BufWriter::new(f);
        write(&mut out)?;
        std::io::Write::flush(&mut out)
    });
    if let Err(e) = written {
        let _ = fs::remove_file(&temporary);
        return Err(FileError::io(&temporary, e));
    }
    fs::rename(&temporary, file).map_err(|e| {
        let _ = fs::remove_file(&temporary);
        FileError::io(file, e)
    })
}
