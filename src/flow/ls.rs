//! The `ls` flow (read-ls-flows §2): one page of a directory listing,
//! directories first.
//!
//! * §2.1 / §2.2 — [`LsRequest`] / [`LsOutput`] / [`LsEntry`].
//! * §2.3 — [`ls_in`]: `stat`, not-a-directory, list, offset check, then
//!   *every* entry described (one `stat` each, following symlinks; a failed
//!   `stat` — a dangling symlink, a denied entry — is a `file`), ordered, and
//!   only then paged, so paging with `limit: 1` walks the unpaged order.
//!
//! Entries are `stat`-ed one after another rather than 16 at a time: the
//! concurrency of the reference is a latency detail, and the result (one
//! `stat` per entry, order independent of completion order) is the same.

use std::cmp::Ordering;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{DEFAULT_READ_LIMIT, Effects, MAX_ENTRIES, at_least_one, resolve};
use crate::contract::notice::{Unit, truncation};
use crate::contract::{StdError, utf16_cmp};

/// The `ls` input (§2.1).
///
/// ```
/// use lawsuite::flow::LsRequest;
/// let req: LsRequest = serde_json::from_str(r#"{"path":"/ws","limit":1}"#)?;
/// assert_eq!(req, LsRequest::new("/ws").limit(1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LsRequest {
    /// The directory, absolute or relative to the base directory.
    pub path: String,
    /// First entry (1-based) of the ordered listing; default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// Entries per page; default 2000, then capped at 1000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// The directory a relative `path` resolves against (itself relative to
    /// the base directory); default: the base directory, which for a peer
    /// is its working directory.
    ///
    /// Not one of the spec's input fields: lawsuite sends it so that laws
    /// can pin what relative paths do (read-ls-flows §1.3, and §1.6's hint
    /// for `read`) on every peer, as `flow/bash` has its `cwd`. A peer that
    /// ignores it still passes every law that gives absolute paths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

impl LsRequest {
    /// A request for `path` with every default.
    pub fn new(path: impl Into<String>) -> LsRequest {
        LsRequest {
            path: path.into(),
            offset: None,
            limit: None,
            cwd: None,
        }
    }

    /// The same request starting at entry `offset`.
    pub fn offset(mut self, offset: u64) -> LsRequest {
        self.offset = Some(offset);
        self
    }

    /// The same request returning at most `limit` entries (capped at 1000).
    pub fn limit(mut self, limit: u64) -> LsRequest {
        self.limit = Some(limit);
        self
    }

    /// Resolve a relative `path` against `cwd` (relative to the base
    /// directory, or absolute).
    pub fn cwd(mut self, cwd: impl Into<String>) -> LsRequest {
        self.cwd = Some(cwd.into());
        self
    }
}

/// What an entry is, as `ls` reports it (§2.3 step 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    /// Anything that is not a directory after following symlinks, including
    /// FIFOs, sockets, devices and entries whose `stat` failed.
    File,
    /// A directory, or a symlink to one.
    Directory,
}

/// One listed entry (§2.2).
///
/// ```
/// use lawsuite::flow::{EntryKind, LsEntry};
/// let entry = LsEntry { name: "src/".into(), kind: EntryKind::Directory };
/// assert_eq!(serde_json::to_string(&entry)?, r#"{"name":"src/","kind":"directory"}"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LsEntry {
    /// The basename; a directory's ends with `/`.
    pub name: String,
    /// `file` or `directory`.
    pub kind: EntryKind,
}

/// The `ls` output (§2.2), keys in the spec's order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LsOutput {
    /// This page of the ordered listing.
    pub entries: Vec<LsEntry>,
    /// Entries in the directory.
    pub total: u64,
    /// Entries remain after this page.
    pub truncated: bool,
    /// Present only when `truncated`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
}

/// `effects` (spec preamble): sealed, hermetic, `reads = ["/**"]`.
pub fn effects() -> Effects {
    Effects::read_only(vec!["/**".to_string()])
}

/// `effectsFor(input)`: `reads = [input.path]`.
pub fn effects_for(req: &LsRequest) -> Effects {
    Effects::read_only(vec![req.path.clone()])
}

/// `ls` against the process's working directory: [`ls_in`] with base `.`.
pub fn ls(req: &LsRequest) -> Result<LsOutput, StdError> {
    ls_in(Path::new("."), req)
}

/// `ls` with a relative `path` resolved against `base` (§2.3).
///
/// ```
/// use lawsuite::flow::ls::{ls_in, LsRequest};
/// let dir = tempfile::tempdir()?;
/// for name in ["z.txt", "a.txt"] { std::fs::write(dir.path().join(name), "")?; }
/// for name in ["dir", "another"] { std::fs::create_dir(dir.path().join(name))?; }
/// let out = ls_in(dir.path(), &LsRequest::new("."))?;
/// let names: Vec<_> = out.entries.iter().map(|e| e.name.as_str()).collect();
/// assert_eq!(names, ["another/", "dir/", "a.txt", "z.txt"]);
/// let page = ls_in(dir.path(), &LsRequest::new(".").offset(2).limit(1))?;
/// assert_eq!(page.notice.as_deref(), Some("Showing 1 of 4 entries; output was truncated."));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn ls_in(base: &Path, req: &LsRequest) -> Result<LsOutput, StdError> {
    let base = super::working_directory(base, req.cwd.as_deref());
    let base = base.as_path();
    let offset = at_least_one("ls", "offset", req.offset, 1)?;
    let limit = at_least_one("ls", "limit", req.limit, DEFAULT_READ_LIMIT)?.min(MAX_ENTRIES);
    let path = req.path.as_str();
    let target = resolve(base, path);
    let not_found = format!("Directory not found: {path}");

    let meta = fs::metadata(&target).map_err(|err| StdError::read_side(path, &err, &not_found))?;
    if !meta.is_dir() {
        return Err(StdError::cannot_list_file(path));
    }
    let names = list(&target).map_err(|err| StdError::read_side(path, &err, &not_found))?;
    let total = names.len() as u64;
    if offset > total.max(1) {
        return Err(StdError::entry_offset_out_of_range(path, offset, total));
    }

    let ordered = ordered_entries(names, |name| {
        fs::metadata(target.join(name)).is_ok_and(|meta| meta.is_dir())
    });
    // offset ≤ max(total, 1), so the start is in range (or 0 of an empty list).
    let entries: Vec<LsEntry> = ordered
        .into_iter()
        .skip((offset - 1) as usize)
        .take(limit as usize)
        .collect();
    let truncated = offset - 1 + (entries.len() as u64) < total;
    let notice = truncated.then(|| truncation(entries.len() as u64, total, Unit::Entries));
    Ok(LsOutput {
        entries,
        total,
        truncated,
        notice,
    })
}

/// Every name in `dir`, as the host spells it (hidden names included; the
/// search skip list does not apply to `ls`).
fn list(dir: &Path) -> std::io::Result<Vec<OsString>> {
    fs::read_dir(dir)?
        .map(|entry| entry.map(|entry| entry.file_name()))
        .collect()
}

/// §2.3 steps 5–6: describe each name with exactly one call of `is_dir`,
/// then order directories first, each group by UTF-16 code units of the
/// displayed name (a directory *with* its `/`, so `a.b/` precedes `a/`).
///
/// Names that are not UTF-8 are displayed lossily (U+FFFD), as a JavaScript
/// host would decode them; `is_dir` still sees the real name.
fn ordered_entries(names: Vec<OsString>, mut is_dir: impl FnMut(&OsStr) -> bool) -> Vec<LsEntry> {
    let mut entries: Vec<LsEntry> = names
        .into_iter()
        .map(|name| {
            let display = name.to_string_lossy().into_owned();
            if is_dir(&name) {
                LsEntry {
                    name: display + "/",
                    kind: EntryKind::Directory,
                }
            } else {
                LsEntry {
                    name: display,
                    kind: EntryKind::File,
                }
            }
        })
        .collect();
    entries.sort_by(|a, b| match (a.kind, b.kind) {
        (EntryKind::Directory, EntryKind::File) => Ordering::Less,
        (EntryKind::File, EntryKind::Directory) => Ordering::Greater,
        _ => utf16_cmp(&a.name, &b.name),
    });
    entries
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn names(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn every_entry_is_described_exactly_once() {
        // conformance-kit §7.4 #5: listing `e d c b a`, only `d` a directory.
        let mut calls: HashMap<OsString, usize> = HashMap::new();
        let ordered = ordered_entries(names(&["e", "d", "c", "b", "a"]), |name| {
            *calls.entry(name.to_os_string()).or_default() += 1;
            name == "d"
        });
        let shown: Vec<&str> = ordered.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(shown, ["d/", "a", "b", "c", "e"]);
        assert_eq!(calls.len(), 5);
        assert!(calls.values().all(|&n| n == 1), "{calls:?}");
    }

    #[test]
    fn directories_compare_with_their_slash() {
        let ordered = ordered_entries(names(&["a", "a.b", "a-c"]), |_| true);
        let shown: Vec<&str> = ordered.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(shown, ["a-c/", "a.b/", "a/"]);
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_names_are_shown_lossily() {
        use std::os::unix::ffi::OsStringExt;
        let raw = OsString::from_vec(b"bad\xff".to_vec());
        let ordered = ordered_entries(vec![raw.clone()], |name| {
            assert_eq!(name, raw.as_os_str());
            false
        });
        assert_eq!(ordered[0].name, "bad\u{FFFD}");
    }
}
