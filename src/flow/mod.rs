//! The flow layer: what a caller's request goes through before and after
//! the seam. `grep` and `glob` (search-contract §3, §5, §18) validate,
//! normalise and call the seam; the read-only file flows and the `bash`
//! capture rules (`read-ls-flows.md`) are whole handlers.
//!
//! | module | spec section |
//! | --- | --- |
//! | [`search`] | search-contract §3, §5, §18: `grep` and `glob` over a seam function, the literal retry (in one pass with the regex where the peer offers it), `effectsFor` |
//! | [`read`](mod@read) | §1: `read` — input, procedure and errors, the `sourceLines` line model, paging and rendering (2,000 lines, 2,000 scalars, 60,000 bytes), the not-found hint |
//! | [`ls`](mod@ls) | §2: `ls` — input, entry kinds, directories-first UTF-16 order, paging |
//! | [`bash`](mod@bash) | §4: `bash` — a reference handler for the capture and timeout rules |
//!
//! §3 (`glob` paging) is the glob flow's own business (`search-contract.md`
//! §14): it has no offset, so there is nothing to page here.
//!
//! The shared constants of the spec's first table live in this module. Every
//! handler takes the base directory that relative paths resolve against
//! ([`read::read_in`], [`ls::ls_in`], [`bash::bash_in`]), so tests never
//! `chdir`; the plain forms ([`read::read`], …) use the process's working
//! directory.
//!
//! Failures are [`StdError`](crate::contract::StdError)s with the spec's
//! codes and exact messages; the constructors live in
//! [`contract::error`](crate::contract::error), notices come from
//! [`contract::notice`](crate::contract::notice).
//!
//! ```
//! use lawsuite::flow::{ls::{ls_in, LsRequest}, read::{read_in, ReadRequest}};
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("a.txt"), "alpha\nbeta\n")?;
//! let page = read_in(dir.path(), &ReadRequest::new("a.txt"))?;
//! assert_eq!((page.content.as_str(), page.end_line), ("alpha\nbeta", 2));
//! let listing = ls_in(dir.path(), &LsRequest::new("."))?;
//! assert_eq!(listing.entries[0].name, "a.txt");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::{Path, PathBuf};

use serde::Serialize;

#[cfg(unix)]
pub mod bash;
pub mod ls;
pub mod read;
pub mod search;

#[cfg(unix)]
pub use bash::{BashOutput, BashRequest, bash, bash_in};
pub use ls::{EntryKind, LsEntry, LsOutput, LsRequest, ls, ls_in};
pub use read::{ReadOutput, ReadRequest, read, read_in};
pub use search::{WithLiteral, glob, grep, grep_with_literal, reads_for_root};

/// `DEFAULT_READ_LIMIT`: the default page of `read` (lines) and of `ls`
/// (entries, before the [`MAX_ENTRIES`] cap).
pub const DEFAULT_READ_LIMIT: u64 = 2000;
/// `MAX_ENTRIES`: the `ls` page cap (the same value as glob's cap).
pub const MAX_ENTRIES: u64 = crate::contract::MAX_ENTRIES;
/// `MAX_LINE_CHARS`: Unicode scalar values kept of one displayed `read` line.
pub const MAX_LINE_CHARS: usize = 2000;
/// `MAX_OUTPUT_BYTES`: UTF-8 bytes of one rendered `read` page.
pub const MAX_OUTPUT_BYTES: usize = 60_000;
/// `MAX_READ_FILE_BYTES`: the largest file `read` loads (64 MiB).
pub const MAX_READ_FILE_BYTES: u64 = 67_108_864;
/// `MAX_SHELL_OUTPUT_BYTES`: the tail bound of each `bash` stream.
pub const MAX_SHELL_OUTPUT_BYTES: usize = 30_000;
/// `DEFAULT_TIMEOUT_MS`: the `bash` timeout when the request gives none.
pub const DEFAULT_TIMEOUT_MS: u64 = 600_000;
/// `TIMEOUT_EXIT_CODE`: the exit code the *`shell_command`* flow reports on a
/// timeout. `bash` never reports it: a `bash` timeout fails with `timeout`
/// (§4), which [`bash::bash_in`] pins.
pub const TIMEOUT_EXIT_CODE: i32 = 124;

/// A flow's effect declaration (the spec's preamble): `read` and `ls` are
/// `tier: "sealed"`, `mode: "hermetic"`, capability `fs:read:/**`, and
/// declare `reads = ["/**"]` statically and `[input.path]` per call.
///
/// ```
/// use lawsuite::flow::{read, Effects};
/// assert_eq!(read::effects().reads, ["/**"]);
/// let call = read::effects_for(&read::ReadRequest::new("/a.txt"));
/// assert_eq!(call, Effects { reads: vec!["/a.txt".into()], ..read::effects() });
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Effects {
    /// Always `"sealed"` for the read-only flows.
    pub tier: &'static str,
    /// Always `"hermetic"` for the read-only flows.
    pub mode: &'static str,
    /// The one capability the flow needs: `fs:read:/**`.
    pub capability: &'static str,
    /// The paths the flow (or one call of it) may read.
    pub reads: Vec<String>,
}

impl Effects {
    /// The read-only envelope with the given `reads`.
    pub(crate) fn read_only(reads: Vec<String>) -> Effects {
        Effects {
            tier: "sealed",
            mode: "hermetic",
            capability: "fs:read:/**",
            reads,
        }
    }
}

/// The host path a caller's `path` names: absolute as given, relative
/// against `base`.
///
/// An empty `path` stays empty rather than naming `base` itself, so it fails
/// `stat` with NotFound as it does on the reference host (Node's
/// `stat("")` is `ENOENT`).
pub(crate) fn resolve(base: &Path, path: &str) -> PathBuf {
    if path.is_empty() {
        PathBuf::new()
    } else {
        base.join(path)
    }
}

/// The directory a request's relative paths resolve against: its `cwd`
/// against `base`, or `base` itself (`read` and `ls` take a `cwd`, as
/// `bash` does).
pub(crate) fn working_directory(base: &Path, cwd: Option<&str>) -> PathBuf {
    match cwd {
        Some(cwd) => base.join(cwd),
        None => base.to_path_buf(),
    }
}

/// Rejects a paging field of 0: the spec types `offset` and `limit` as
/// integers ≥ 1, which a JSON `u64` alone does not enforce.
pub(crate) fn at_least_one(
    flow: &str,
    field: &str,
    value: Option<u64>,
    default: u64,
) -> Result<u64, crate::contract::StdError> {
    match value {
        Some(0) => Err(crate::contract::StdError::invalid_flow_input(
            flow,
            &format!("{field} must be an integer of at least 1, got 0"),
        )),
        Some(n) => Ok(n),
        None => Ok(default),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_path_does_not_name_the_base() {
        assert_eq!(resolve(Path::new("/base"), ""), PathBuf::new());
        assert_eq!(resolve(Path::new("/base"), "a"), PathBuf::from("/base/a"));
        assert_eq!(resolve(Path::new("/base"), "/abs"), PathBuf::from("/abs"));
    }

    #[test]
    fn zero_is_refused_with_a_typed_error() {
        let err = at_least_one("read", "offset", Some(0), 1).unwrap_err();
        assert_eq!(err.code, crate::contract::ErrorCode::InvalidInput);
        assert_eq!(
            err.message,
            "Invalid read input: offset must be an integer of at least 1, got 0"
        );
        assert_eq!(at_least_one("read", "offset", None, 1).unwrap(), 1);
        assert_eq!(at_least_one("read", "limit", Some(7), 2000).unwrap(), 7);
    }
}
