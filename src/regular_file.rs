//! lawsuite's own files, read and written: regular files only, and
//! written with care.
//!
//! Every file lawsuite keeps or writes for the user goes through here:
//! the inputs it reads (project files, registries, laws, expected
//! failures, regressions, results files) and the outputs it replaces (a
//! `--write-baseline` or `--output` file, the expected failures
//! `--update-expectations` edits, a drafted law, a campaign's state).
//!
//! # Reading
//!
//! Opening a FIFO for reading blocks until a writer comes, so a FIFO named
//! like a data file (`*.json` in the regressions directory, `*.toml` in a
//! law or expected directory) hung `lawsuite run` forever, saying nothing.
//! The path's type is looked at first (through symlinks, as opening it
//! would), and anything but a regular file is refused with an error naming
//! what it is, which the caller's own typed error wraps with the file's
//! path. Nothing is opened that could block.
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
//!
//! # Writing
//!
//! A file is never written in place: [`replace_whole`] (or [`Held::replace`])
//! writes the new text to a temporary file in the same directory, syncs it
//! to disk, gives it the old file's permissions (and owner, where the
//! process may), and renames it over the old one. A run killed while
//! writing, or a full disk, leaves the old file as it was and no temporary
//! behind. What is refused, before anything is written:
//!
//! * a target that is there and is not a regular file (a device, a FIFO, a
//!   socket, a directory), looked at through symlinks without being
//!   opened: `--write-baseline /dev/full` used to replace the device with
//!   a file;
//! * a read-only target (no write permission bit at all), which the user
//!   protected on purpose: a process running as root may write anything,
//!   so the mode bits are what is asked, not `access(2)`.
//!
//! A symlink to a regular file stays a symlink: the file it points to is
//! the one replaced.
//!
//! A read-modify-write (an appended law, an edited expected-failure file)
//! holds [`Held`], an exclusive advisory lock on a hidden file beside the
//! target (`.NAME.lock`), from the read to the rename, so two lawsuites
//! editing one file at once both keep their change. The target itself
//! cannot carry the lock: the rename puts a new file in its place, and a
//! second writer that locked the old one would go on unaware. The lock
//! file is removed when the lock is let go.
//!
//! ```
//! use lawsuite::regular_file::{Held, replace_whole};
//!
//! let dir = tempfile::tempdir()?;
//! let file = dir.path().join("found.toml");
//! replace_whole(&file, "one\n")?;
//! {
//!     let held = Held::acquire(&file)?;
//!     let text = held.read()?.unwrap_or_default();
//!     held.replace(&format!("{text}two\n"))?;
//! }
//! assert_eq!(std::fs::read_to_string(&file)?, "one\ntwo\n");
//! // Neither a temporary nor the lock file is left behind.
//! assert_eq!(std::fs::read_dir(dir.path())?.count(), 1);
//!
//! let err = replace_whole(dir.path(), "x").unwrap_err();
//! assert_eq!(err.kind().to_string(), "it is a directory, not a regular file");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::file_error::{FileError, FileErrorKind, describe, not_regular};

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

/// Checks, without writing or opening anything, that [`replace_whole`]
/// would accept `path`: it is absent, or a regular file (through symlinks)
/// with a write permission bit. A front door asks before a long run, so
/// that a bad `--write-baseline` is said at once, not after the run.
///
/// ```
/// use lawsuite::file_error::FileErrorKind;
/// use lawsuite::regular_file::check_replaceable;
///
/// let dir = tempfile::tempdir()?;
/// check_replaceable(&dir.path().join("new.jsonl"))?;
/// let err = check_replaceable(std::path::Path::new("/dev/null")).unwrap_err();
/// assert!(matches!(err.kind(), FileErrorKind::NotAFile("a device")));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_replaceable(path: &Path) -> Result<(), FileError> {
    replaceable(&resolve(path)?).map(|_| ())
}

/// Replace the file at `path` with `text` whole ([module doc](self)):
/// refused when it is not a regular file or is read-only; otherwise
/// written beside it, synced, given its permissions and renamed over it,
/// under its lock ([`Held`]). A new file gets the default permissions
/// (the umask's). On any error the old file is as it was and no temporary
/// is left.
///
/// For a read-modify-write, hold the lock across the read:
/// [`Held::acquire`], [`Held::read`], [`Held::replace`].
pub fn replace_whole(path: &Path, text: &str) -> Result<(), FileError> {
    replace_whole_with(path, |out| out.write_all(text.as_bytes()))
}

/// [`replace_whole`] with what `write` writes, as it comes
/// ([`Held::replace_with`]).
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let file = dir.path().join("report.txt");
/// lawsuite::regular_file::replace_whole_with(&file, |out| {
///     (0..3).try_for_each(|i| writeln!(out, "line {i}"))
/// })?;
/// assert_eq!(std::fs::read_to_string(&file)?, "line 0\nline 1\nline 2\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn replace_whole_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), FileError> {
    // Refused before the lock is taken: a device or a directory never
    // gets a lock file beside it (`/dev/.full.lock`).
    check_replaceable(path)?;
    Held::acquire(path)?.replace_with(write)
}

/// An exclusive lock on one of lawsuite's files, for a read-modify-write
/// ([module doc](self)): while it is held, no other [`Held`] of the same
/// file, in this process or another, is granted. It is an advisory lock
/// (`flock(2)` where there is one) on a hidden file beside the target,
/// `.NAME.lock`, removed when the lock is let go (dropped).
///
/// Two `Held` of one file in one thread wait for each other forever: a
/// holder replaces the file through [`Held::replace`], never through
/// [`replace_whole`].
///
/// ```
/// use lawsuite::file_error::FileErrorKind;
/// use lawsuite::regular_file::Held;
///
/// let dir = tempfile::tempdir()?;
/// let state = dir.path().join("campaign.json");
/// let first = Held::try_acquire(&state)?;
/// // A second campaign on the same state is refused at once.
/// let err = Held::try_acquire(&state).unwrap_err();
/// assert!(matches!(err.kind(), FileErrorKind::Held { .. }));
/// assert!(err.to_string().contains("another lawsuite is writing it"), "{err}");
/// drop(first);
/// let again = Held::try_acquire(&state)?;
/// assert_eq!(again.read()?, None, "the state is not there yet");
/// again.replace("{}\n")?;
/// assert_eq!(again.read()?.as_deref(), Some("{}\n"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Held {
    /// The file the lock is for: the path given, or the file its symlink
    /// points to.
    file: PathBuf,
    /// `.NAME.lock` beside it.
    lock_path: PathBuf,
    /// Holds the lock while open.
    lock: File,
}

impl Held {
    /// Lock `path` for writing, waiting for any other holder to let go.
    /// Refused (without waiting, and without a lock file made) when `path`
    /// is there and is not a regular file.
    pub fn acquire(path: &Path) -> Result<Held, FileError> {
        Held::lock(path, true)
    }

    /// Lock `path` for writing if no one else holds it; when another
    /// lawsuite (or another [`Held`] in this one) does, a
    /// [`FileErrorKind::Held`] error, at once.
    pub fn try_acquire(path: &Path) -> Result<Held, FileError> {
        Held::lock(path, false)
    }

    fn lock(path: &Path, wait: bool) -> Result<Held, FileError> {
        let file = resolve(path)?;
        if let Some(what) = not_regular(&file)
            .or_else(|e| {
                if e.kind() == io::ErrorKind::NotFound {
                    Ok(None)
                } else {
                    Err(e)
                }
            })
            .map_err(|e| FileError::io(&file, e))?
        {
            return Err(FileError::new(file, FileErrorKind::NotAFile(what)));
        }
        let (dir, name) = parts(&file)?;
        let mut lock_name = OsString::from(".");
        lock_name.push(name);
        lock_name.push(".lock");
        let lock_path = dir.join(lock_name);
        loop {
            // A lock file that is not a plain file is not one lawsuite
            // made: a FIFO would block the open, a symlink would have it
            // write elsewhere.
            if let Ok(meta) = fs::symlink_metadata(&lock_path)
                && !meta.is_file()
            {
                return Err(FileError::new(
                    lock_path,
                    FileErrorKind::NotAFile(describe(meta.file_type())),
                ));
            }
            let lock = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&lock_path)
                .map_err(|e| FileError::io(&lock_path, e))?;
            if wait {
                lock.lock().map_err(|e| FileError::io(&lock_path, e))?;
            } else {
                match lock.try_lock() {
                    Ok(()) => {}
                    Err(fs::TryLockError::WouldBlock) => {
                        return Err(FileError::new(
                            file,
                            FileErrorKind::Held { lock: lock_path },
                        ));
                    }
                    Err(fs::TryLockError::Error(e)) => return Err(FileError::io(&lock_path, e)),
                }
            }
            if still_named(&lock, &lock_path) {
                return Ok(Held {
                    file,
                    lock_path,
                    lock,
                });
            }
            // The holder this one waited for removed the lock file as it
            // let go: the lock got is on a file no one else will open.
            // Lock the one at the name now.
        }
    }

    /// The file this lock is for (a symlink given is resolved).
    pub fn path(&self) -> &Path {
        &self.file
    }

    /// The file's text as it is now, `None` when there is no file yet;
    /// anything but a regular file is refused without being opened.
    pub fn read(&self) -> Result<Option<String>, FileError> {
        match not_regular(&self.file) {
            Ok(None) => {}
            Ok(Some(what)) => {
                return Err(FileError::new(&self.file, FileErrorKind::NotAFile(what)));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(FileError::io(&self.file, e)),
        }
        fs::read_to_string(&self.file)
            .map(Some)
            .map_err(|e| FileError::io(&self.file, e))
    }

    /// Replace the file with `text` whole, as [`replace_whole`] does
    /// (refusals included), under this lock.
    pub fn replace(&self, text: &str) -> Result<(), FileError> {
        self.replace_with(|out| out.write_all(text.as_bytes()))
    }

    /// [`Held::replace`] with what `write` writes, as it comes: a report
    /// of millions of trials is never held whole; the file is put in place
    /// only once it is all written.
    pub fn replace_with(
        &self,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), FileError> {
        let old = replaceable(&self.file)?;
        let (dir, name) = parts(&self.file)?;
        let mut staged = Staged::create(dir, name, &self.file)?;
        let written = (|| {
            if let Some(old) = &old {
                // Before the text goes in: a 0600 file's text is never
                // readable by others, not even for a moment.
                keep_owner_and_mode(&staged.file, old)?;
            }
            let mut out = io::BufWriter::new(&staged.file);
            write(&mut out)?;
            out.flush()?;
            drop(out);
            staged.file.sync_all()
        })();
        written.map_err(|e| FileError::io(&self.file, e))?;
        fs::rename(&staged.path, &self.file).map_err(|e| FileError::io(&self.file, e))?;
        staged.renamed = true;
        sync_dir(dir);
        Ok(())
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        // Removed while still locked, so a writer that opens the name
        // from now on makes a new lock file, and one that waited on this
        // one sees it is gone (`still_named`) and tries again. Not on
        // Windows, where an open file cannot be removed.
        #[cfg(unix)]
        if still_named(&self.lock, &self.lock_path) {
            let _ = fs::remove_file(&self.lock_path);
        }
    }
}

/// Is `lock` still the file named `path`? A holder removes the lock file
/// as it lets go (`Drop for Held`), so a lock got after waiting may be on
/// a file that has no name any more. Where it cannot be told, it is taken
/// as still named (a lock file is only ever removed on unix).
fn still_named(lock: &File, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let Ok(held) = lock.metadata() else {
            return true;
        };
        match fs::symlink_metadata(path) {
            Ok(named) => (named.dev(), named.ino()) == (held.dev(), held.ino()),
            Err(e) => e.kind() != io::ErrorKind::NotFound,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (lock, path);
        true
    }
}

/// The file a write to `path` lands on: `path`, or, when it is a symlink,
/// the file it points to (as opening it would follow it), so the link
/// stays a link and a lock is taken beside the one real file.
fn resolve(path: &Path) -> Result<PathBuf, FileError> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => fs::canonicalize(path).map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound {
                FileError::new(path, FileErrorKind::NotAFile("a symbolic link to nothing"))
            } else {
                FileError::io(path, e)
            }
        }),
        _ => Ok(path.to_path_buf()),
    }
}

/// How `file` is to be replaced: `None` when it is not there (a new file),
/// else its metadata, whose owner and permissions the new one gets.
/// Anything but a regular file with a write permission bit is refused.
fn replaceable(file: &Path) -> Result<Option<fs::Metadata>, FileError> {
    let meta = match fs::metadata(file) {
        Ok(meta) => meta,
        // A new file needs its directory: said now, naming the file, not
        // at the end of a run as a lock file that cannot be made.
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let (dir, _) = parts(file)?;
            return match fs::metadata(dir) {
                Ok(_) => Ok(None),
                Err(_) => Err(FileError::io(
                    file,
                    io::Error::new(io::ErrorKind::NotFound, "its directory does not exist"),
                )),
            };
        }
        Err(e) => return Err(FileError::io(file, e)),
    };
    if !meta.is_file() {
        return Err(FileError::new(
            file,
            FileErrorKind::NotAFile(describe(meta.file_type())),
        ));
    }
    if let Some(mode) = read_only(&meta) {
        return Err(FileError::new(file, FileErrorKind::ReadOnly { mode }));
    }
    Ok(Some(meta))
}

/// The permission bits of a file nobody may write (no `w` bit at all),
/// `None` when someone may. The bits, not `access(2)`: root may write
/// anything, and a user's `chmod a-w` still means "leave it alone".
fn read_only(meta: &fs::Metadata) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o7777;
        (mode & 0o222 == 0).then_some(mode)
    }
    #[cfg(not(unix))]
    {
        meta.permissions().readonly().then_some(0o444)
    }
}

/// The directory and the name of `file`; a path with no file name
/// (`/`, `..`) cannot be written.
fn parts(file: &Path) -> Result<(&Path, &OsStr), FileError> {
    let name = file.file_name().ok_or_else(|| {
        FileError::io(
            file,
            io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"),
        )
    })?;
    let dir = match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    Ok((dir, name))
}

/// Gives the new file `old`'s permissions, and its owner where this
/// process may (root may; anyone else's file becomes theirs, as an
/// editor's save does): a file a root-run lawsuite rewrites stays the
/// user's to edit.
fn keep_owner_and_mode(staged: &File, old: &fs::Metadata) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, fchown};
        let mine = staged.metadata()?;
        if (mine.uid(), mine.gid()) != (old.uid(), old.gid()) {
            // Owner first: a change of owner clears set-id bits, which
            // the permissions below then give back.
            let _ = fchown(staged, Some(old.uid()), Some(old.gid()))
                .or_else(|_| fchown(staged, None, Some(old.gid())));
        }
    }
    staged.set_permissions(old.permissions())
}

/// Syncs `dir`, making a rename in it durable. Best effort: the rename is
/// done, and a file system that cannot sync a directory has still made it.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// The next temporary name's number in this process: two threads never
/// stage under one name.
static STAGED: AtomicU64 = AtomicU64::new(0);

/// A new file's text, staged under a hidden name beside it
/// (`.NAME.<pid>-<n>.tmp`); removed when dropped unless renamed.
struct Staged {
    path: PathBuf,
    file: File,
    renamed: bool,
}

impl Staged {
    fn create(dir: &Path, name: &OsStr, target: &Path) -> Result<Staged, FileError> {
        loop {
            let n = STAGED.fetch_add(1, Ordering::Relaxed);
            let mut staged = OsString::from(".");
            staged.push(name);
            staged.push(format!(".{}-{n}.tmp", std::process::id()));
            let path = dir.join(staged);
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => {
                    return Ok(Staged {
                        path,
                        file,
                        renamed: false,
                    });
                }
                // One a killed lawsuite of the same process id left: the
                // next number is free sooner or later (a directory holds
                // finitely many).
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(FileError::io(target, e)),
            }
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = fs::remove_file(&self.path);
        }
    }
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
