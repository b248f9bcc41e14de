//! Reading lawsuite's own inputs (project files, registries, laws, expected
//! failures, regressions, results files): regular files only.
//!
//! Opening a FIFO for reading blocks until a writer comes, so a FIFO named
//! like a data file (`*.json` in the regressions directory, `*.toml` in a
//! law or expected directory) hung `lawsuite run` forever, saying nothing.
//! Every such read goes through here: the path's type is looked at first
//! (through symlinks, as opening it would), and anything but a regular file
//! is refused with an error naming what it is, which the caller's own typed
//! error wraps with the file's path. Nothing is opened that could block.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("a.toml"), "x = 1\n")?;
//! assert_eq!(lawsuite::regular_file::read_to_string(&dir.path().join("a.toml"))?, "x = 1\n");
//! let err = lawsuite::regular_file::read_to_string(dir.path()).unwrap_err();
//! assert_eq!(err.to_string(), "it is a directory, not a regular file");
//! # Ok(())
//! # }
//! ```

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::Path;

/// Checks that `path` is a regular file (following symlinks), without
/// opening it; the error says what it is instead.
pub fn check(path: &Path) -> io::Result<()> {
    match not_regular(path)? {
        None => Ok(()),
        Some(what) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("it is {what}, not a regular file"),
        )),
    }
}

/// What `path` is when it is not a regular file (following symlinks),
/// `None` when it is one.
pub(crate) fn not_regular(path: &Path) -> io::Result<Option<&'static str>> {
    let kind = fs::metadata(path)?.file_type();
    Ok((!kind.is_file()).then(|| describe(kind)))
}

/// What a non-regular file is, for the error.
fn describe(kind: fs::FileType) -> &'static str {
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
    } else {
        "not a file"
    }
}

/// Opens `path` for reading if it is a regular file ([`check`]).
pub fn open(path: &Path) -> io::Result<File> {
    check(path)?;
    File::open(path)
}

/// [`fs::read_to_string`] of a regular file only.
pub fn read_to_string(path: &Path) -> io::Result<String> {
    let mut text = String::new();
    open(path)?.read_to_string(&mut text)?;
    Ok(text)
}

/// [`fs::read`] of a regular file only.
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open(path)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_is_refused_without_being_opened() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("law.toml");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
        // Opening it would block this test forever.
        let err = read_to_string(&fifo).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(
            err.to_string(),
            "it is a FIFO (named pipe), not a regular file"
        );
        assert!(read(&fifo).is_err() && open(&fifo).is_err());
    }
}
