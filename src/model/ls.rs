//! The `ls` flow, read-ls-flows §2: one page of a directory's entries,
//! directories first.
//!
//! §2.3's steps in order: `stat` the path, refuse a file, list the names,
//! check the offset, describe **every** entry (one `stat` each, following
//! symlinks), order them, and only then cut the page, so paging walks the
//! unpaged order.

use std::cmp::Ordering;
use std::fs;

use crate::contract::{ErrorCode, StdError};
use crate::flow::{EntryKind, LsEntry, LsOutput, LsRequest};

use super::read::{host_path, paging, read_side, working_directory};
use super::text::utf16_order;

/// `DEFAULT_READ_LIMIT`: entries of a page when `limit` is absent, before
/// the cap.
const DEFAULT_READ_LIMIT: u64 = 2000;
/// `MAX_ENTRIES`: the page cap.
const MAX_ENTRIES: u64 = 1000;

/// `ls` (§2.3).
pub(crate) fn ls(request: &LsRequest) -> Result<LsOutput, StdError> {
    let offset = paging("ls", "offset", request.offset, 1)?;
    let limit = paging("ls", "limit", request.limit, DEFAULT_READ_LIMIT)?.min(MAX_ENTRIES);
    let base = working_directory(request.cwd.as_deref());
    let path = request.path.as_str();
    let directory = host_path(&base, path);
    let not_found = format!("Directory not found: {path}");

    // 1.
    let meta = fs::metadata(&directory).map_err(|err| read_side(path, &err, &not_found))?;
    // 2.
    if !meta.is_dir() {
        return Err(StdError::new(
            ErrorCode::NotADirectory,
            format!("Cannot list a file: {path}"),
        )
        .with_path(path));
    }
    // 3.
    let mut names = Vec::new();
    let entries = fs::read_dir(&directory).map_err(|err| read_side(path, &err, &not_found))?;
    for entry in entries {
        let entry = entry.map_err(|err| read_side(path, &err, &not_found))?;
        names.push(entry.file_name());
    }
    let total = names.len() as u64;
    // 4.
    if offset > total.max(1) {
        return Err(StdError::new(
            ErrorCode::OffsetOutOfRange,
            format!("Entry offset {offset} is outside {path}, which has {total} entries"),
        )
        .with_path(path));
    }
    // 5: a name that is not UTF-8 is shown as a JavaScript host decodes
    // it (U+FFFD), but stat-ed by its real bytes.
    let mut described: Vec<LsEntry> = names
        .iter()
        .map(|name| {
            let shown = name.to_string_lossy().into_owned();
            let is_directory = fs::metadata(directory.join(name)).is_ok_and(|m| m.is_dir());
            if is_directory {
                LsEntry {
                    name: format!("{shown}/"),
                    kind: EntryKind::Directory,
                }
            } else {
                LsEntry {
                    name: shown,
                    kind: EntryKind::File,
                }
            }
        })
        .collect();
    // 6: directories first; each group by the displayed name, a
    // directory's with its `/`.
    described.sort_by(|a, b| {
        let rank = |e: &LsEntry| u8::from(e.kind != EntryKind::Directory);
        match rank(a).cmp(&rank(b)) {
            Ordering::Equal => utf16_order(&a.name, &b.name),
            other => other,
        }
    });
    // 7.
    let skip = usize::try_from(offset - 1).unwrap_or(usize::MAX);
    let take = usize::try_from(limit).unwrap_or(usize::MAX);
    let entries: Vec<LsEntry> = described.into_iter().skip(skip).take(take).collect();
    let shown = entries.len() as u64;
    let truncated = offset - 1 + shown < total;
    let notice =
        truncated.then(|| format!("Showing {shown} of {total} entries; output was truncated."));
    Ok(LsOutput {
        entries,
        total,
        truncated,
        notice,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(out: &LsOutput) -> Vec<&str> {
        out.entries.iter().map(|e| e.name.as_str()).collect()
    }

    #[test]
    fn the_ls_examples_of_2_4() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap();
        for name in ["z.txt", "a.txt"] {
            fs::write(dir.path().join(name), "").unwrap();
        }
        for name in ["dir", "another", "a.b", "a"] {
            fs::create_dir(dir.path().join(name)).unwrap();
        }
        let out = ls(&LsRequest::new(root)).unwrap();
        assert_eq!(
            names(&out),
            ["a.b/", "a/", "another/", "dir/", "a.txt", "z.txt"]
        );
        let out = ls(&LsRequest::new(root).offset(5).limit(1)).unwrap();
        assert_eq!(names(&out), ["a.txt"]);
        assert_eq!(
            out.notice.as_deref(),
            Some("Showing 1 of 6 entries; output was truncated.")
        );
        let out = ls(&LsRequest::new(root).offset(6).limit(1)).unwrap();
        assert_eq!((names(&out), out.truncated), (vec!["z.txt"], false));
        let err = ls(&LsRequest::new(root).offset(7)).unwrap_err();
        assert_eq!(
            err.message,
            format!("Entry offset 7 is outside {root}, which has 6 entries")
        );
        let file = format!("{root}/a.txt");
        let err = ls(&LsRequest::new(file.as_str())).unwrap_err();
        assert_eq!(
            (err.code, err.path.as_deref()),
            (ErrorCode::NotADirectory, Some(file.as_str()))
        );
        let missing = format!("{root}/missing");
        let err = ls(&LsRequest::new(missing.as_str())).unwrap_err();
        assert_eq!(err.message, format!("Directory not found: {missing}"));
        let empty = format!("{root}/dir");
        let out = ls(&LsRequest::new(empty.as_str())).unwrap();
        assert_eq!((out.total, out.truncated, out.notice), (0, false, None));
    }
}
