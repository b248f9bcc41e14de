//! The `read` flow, read-ls-flows §1: one page of a UTF-8 text file.
//!
//! * §1.1: the paging fields are integers of at least 1 (a schema
//!   constraint, so checked before anything is touched);
//! * §1.3: the procedure in the spec's order, each step's failure as the
//!   spec words it (the read-side mapping is [`read_side`]);
//! * §1.4: `sourceLines`, LF only, CR kept;
//! * §1.5: the page, each line clipped to 2,000 scalars, the page cut to
//!   60,000 bytes and back to its last whole line, the notice;
//! * §1.6: the hint a missing relative path earns, naming what the nearest
//!   directory that lists holds.
//!
//! The whole file is read into memory and split, the slow obvious way:
//! the 64 MiB cap (§1.3 step 4) is checked on `stat` first, so no more is
//! ever read.
//!
//! Relative paths resolve against the process's working directory, or the
//! request's `cwd` (lawsuite's own field, relative to it), as lawsuite's
//! flows do: the spec says only "the host's working directory".

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::contract::{ErrorCode, StdError};
use crate::flow::{ReadOutput, ReadRequest};

use super::text::utf16_order;

/// `DEFAULT_READ_LIMIT`: lines of a page when `limit` is absent.
const DEFAULT_READ_LIMIT: u64 = 2000;
/// `MAX_LINE_CHARS`: scalars kept of one line.
const MAX_LINE_CHARS: usize = 2000;
/// `MAX_OUTPUT_BYTES`: UTF-8 bytes of one page.
const MAX_OUTPUT_BYTES: usize = 60_000;
/// `MAX_READ_FILE_BYTES`: the largest file `read` loads.
const MAX_READ_FILE_BYTES: u64 = 67_108_864;
/// §1.6: names a hint shows before «` and {n} more`».
const HINT_NAMES: usize = 12;

/// What §1.5 appends to the notice when a line was clipped.
const CLIPPED: &str = " Lines longer than 2000 Unicode scalar values are clipped, so such a line is not an edit anchor.";

/// The host's reason without Rust's ` (os error N)`, which a JavaScript
/// host's message does not carry.
pub(crate) fn host_reason(err: &io::Error) -> String {
    let text = err.to_string();
    match text.rfind(" (os error ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// The read-side mapping shared by `read` and `ls` (read-ls-flows, before
/// §1): every failure carries `path` as given.
pub(crate) fn read_side(path: &str, err: &io::Error, not_found: &str) -> StdError {
    let (code, message) = match err.kind() {
        io::ErrorKind::PermissionDenied => (
            ErrorCode::PermissionDenied,
            format!("Permission denied: {path}"),
        ),
        io::ErrorKind::NotFound => (ErrorCode::NotFound, not_found.to_string()),
        _ => (
            ErrorCode::CommandFailed,
            format!("Could not read {path}: {}", host_reason(err)),
        ),
    };
    StdError::new(code, message).with_path(path)
}

/// §1.1 / §2.1: a paging field is an integer of at least 1. The schema
/// refuses a 0 before `run`; the spec gives that refusal no words, so
/// these are lawsuite's (`invalid_input`, naming the field).
pub(crate) fn paging(
    flow: &str,
    field: &str,
    value: Option<u64>,
    default: u64,
) -> Result<u64, StdError> {
    match value {
        Some(0) => Err(StdError::new(
            ErrorCode::InvalidInput,
            format!("Invalid {flow} input: {field} must be an integer of at least 1, got 0"),
        )),
        Some(n) => Ok(n),
        None => Ok(default),
    }
}

/// The directory relative paths resolve against: the working directory,
/// or the request's `cwd` taken from it.
pub(crate) fn working_directory(cwd: Option<&str>) -> PathBuf {
    match cwd {
        Some(cwd) => Path::new(".").join(cwd),
        None => PathBuf::from("."),
    }
}

/// Where the host finds `path`. An empty path names nothing (a JavaScript
/// host's `stat("")` fails with NotFound), not the directory itself.
pub(crate) fn host_path(base: &Path, path: &str) -> PathBuf {
    if path.is_empty() {
        PathBuf::new()
    } else {
        base.join(path)
    }
}

/// `read` (§1.3).
pub(crate) fn read(request: &ReadRequest) -> Result<ReadOutput, StdError> {
    let offset = paging("read", "offset", request.offset, 1)?;
    let limit = paging("read", "limit", request.limit, DEFAULT_READ_LIMIT)?;
    let base = working_directory(request.cwd.as_deref());
    let path = request.path.as_str();
    let file = host_path(&base, path);
    let not_found = format!("File not found: {path}");

    // 1.
    let meta = match fs::metadata(&file) {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            let message = format!("{not_found}{}", hint(&base, path));
            return Err(StdError::new(ErrorCode::NotFound, message).with_path(path));
        }
        Err(err) => return Err(read_side(path, &err, &not_found)),
    };
    // 2.
    if meta.is_dir() {
        return Err(StdError::new(
            ErrorCode::IsDirectory,
            format!("Cannot read a directory: {path}"),
        )
        .with_path(path));
    }
    // 3.
    if !meta.is_file() {
        return Err(StdError::new(ErrorCode::NotFound, not_found).with_path(path));
    }
    // 4.
    if meta.len() > MAX_READ_FILE_BYTES {
        return Err(StdError::new(
            ErrorCode::ResponseTooLarge,
            format!(
                "{path} is {} bytes, over the {MAX_READ_FILE_BYTES}-byte read limit; search it with grep or print a line range with bash",
                meta.len()
            ),
        )
        .with_path(path));
    }
    // 5.
    let bytes = fs::read(&file).map_err(|err| read_side(path, &err, &not_found))?;
    // 6.
    if bytes.contains(&0) {
        return Err(StdError::new(
            ErrorCode::BinaryFile,
            format!("Cannot read binary file: {path}"),
        )
        .with_path(path));
    }
    // 7: strict, and the decoder removes one leading BOM.
    let text = match std::str::from_utf8(&bytes) {
        Ok(text) => text.strip_prefix('\u{FEFF}').unwrap_or(text),
        Err(_) => {
            return Err(StdError::new(
                ErrorCode::BinaryFile,
                format!("File is not valid UTF-8: {path}"),
            )
            .with_path(path));
        }
    };
    // 8.
    let lines = source_lines(text);
    let total = lines.len() as u64;
    // 9.
    if offset > total.max(1) {
        return Err(StdError::new(
            ErrorCode::OffsetOutOfRange,
            format!("Line offset {offset} is outside {path}"),
        )
        .with_path(path));
    }
    // 10.
    Ok(page(&lines, offset, limit))
}

/// §1.4 `sourceLines`: split on LF; the empty piece after a final LF is no
/// line, so `""` has none.
fn source_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.is_empty() || text.ends_with('\n') {
        lines.pop();
    }
    lines
}

/// §1.5 over the file's lines, `offset` already checked (§1.3 step 9).
fn page(lines: &[&str], offset: u64, limit: u64) -> ReadOutput {
    let total = lines.len() as u64;
    let start = offset;
    let page_end = total.min(offset.saturating_add(limit - 1));
    // Lines `start..=page_end`, 1-based; none when `page_end < start` (the
    // offset 1 page of an empty file).
    let first = (start - 1) as usize;
    let taken: &[&str] = if page_end >= start {
        &lines[first..page_end as usize]
    } else {
        &[]
    };
    let mut long_lines = false;
    let clipped: Vec<&str> = taken
        .iter()
        .map(|line| match line.char_indices().nth(MAX_LINE_CHARS) {
            Some((at, _)) => {
                long_lines = true;
                &line[..at]
            }
            None => *line,
        })
        .collect();
    let mut content = clipped.join("\n");
    let byte_truncated = content.len() > MAX_OUTPUT_BYTES;
    let shown = if byte_truncated {
        let mut end = MAX_OUTPUT_BYTES;
        while !content.is_char_boundary(end) {
            end -= 1;
        }
        content.truncate(end);
        match content.rfind('\n') {
            Some(newline) => content.truncate(newline),
            None => content.clear(),
        }
        if content.is_empty() {
            0
        } else {
            content.split('\n').count() as u64
        }
    } else {
        taken.len() as u64
    };
    let truncated = long_lines || byte_truncated || page_end < total;
    let notice = truncated.then(|| {
        let mut notice = format!("Showing {shown} of {total} lines; output was truncated.");
        if long_lines {
            notice.push_str(CLIPPED);
        }
        notice
    });
    ReadOutput {
        content,
        start_line: start,
        end_line: start + shown - 1,
        total_lines: total,
        truncated,
        notice,
    }
}

/// §1.6: the hint after «`File not found: {path}`», or `""`.
fn hint(base: &Path, path: &str) -> String {
    if path.starts_with('/') || path.split('/').any(|segment| segment == "..") {
        return String::new();
    }
    let segs: Vec<&str> = path
        .split('/')
        .filter(|segment| !segment.is_empty() && *segment != ".")
        .collect();
    for depth in (0..segs.len()).rev() {
        let directory = if depth == 0 {
            ".".to_string()
        } else {
            segs[..depth].join("/")
        };
        let Some(names) = listing(&base.join(&directory)) else {
            continue;
        };
        // The first level that lists decides, even with nothing to show.
        let missing = segs[depth].to_lowercase();
        let mut scored: Vec<(usize, String)> = names
            .into_iter()
            .filter(|name| !name.starts_with('.'))
            .map(|name| (common_prefix(&name.to_lowercase(), &missing), name))
            .collect();
        if scored.is_empty() {
            return String::new();
        }
        // Stable: equal scores keep listing order.
        scored.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
        let label = if depth == 0 {
            "The working directory"
        } else {
            directory.as_str()
        };
        let shown: Vec<&str> = scored
            .iter()
            .take(HINT_NAMES)
            .map(|(_, name)| name.as_str())
            .collect();
        let more = if scored.len() > HINT_NAMES {
            format!(" and {} more", scored.len() - HINT_NAMES)
        } else {
            String::new()
        };
        return format!(". {label} holds: {}{more}.", shown.join(", "));
    }
    String::new()
}

/// The names in `directory`, or `None` when it does not list. The host
/// lists in no fixed order, so the "listing order" that breaks ties is
/// the spec's one sort, UTF-16 code units, the same on every filesystem.
fn listing(directory: &Path) -> Option<Vec<String>> {
    let mut names = Vec::new();
    for entry in fs::read_dir(directory).ok()? {
        names.push(entry.ok()?.file_name().to_string_lossy().into_owned());
    }
    names.sort_by(|a, b| utf16_order(a, b));
    Some(names)
}

/// The length of the common prefix of two names, in scalars.
fn common_prefix(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_page(text: &str, offset: u64, limit: u64) -> ReadOutput {
        page(&source_lines(text), offset, limit)
    }

    #[test]
    fn source_lines_of_1_4() {
        assert_eq!(source_lines(""), Vec::<&str>::new());
        assert_eq!(source_lines("\n"), [""]);
        assert_eq!(source_lines("alpha\nbeta\n"), ["alpha", "beta"]);
        assert_eq!(source_lines("a\r\nb"), ["a\r", "b"]);
    }

    #[test]
    fn the_read_examples_of_1_7() {
        let out = text_page("alpha\nbeta\ngamma", 1, 2000);
        assert_eq!(
            (out.content.as_str(), out.end_line, out.truncated),
            ("alpha\nbeta\ngamma", 3, false)
        );
        let out = text_page("one\ntwo\nthree", 2, 1);
        assert_eq!(out.content, "two");
        assert_eq!(
            out.notice.as_deref(),
            Some("Showing 1 of 3 lines; output was truncated.")
        );
        let out = text_page("one\r\ntwo\r\nthree\r\n", 1, 2000);
        assert_eq!(out.content, "one\r\ntwo\r\nthree\r");
        let out = text_page("", 1, 2000);
        assert_eq!(
            (out.start_line, out.end_line, out.total_lines, out.truncated),
            (1, 0, 0, false)
        );
        let out = text_page(&format!("{}😀tail", "a".repeat(1999)), 1, 2000);
        assert_eq!(out.content, format!("{}😀", "a".repeat(1999)));
        assert_eq!(
            out.notice.as_deref(),
            Some(
                "Showing 1 of 1 lines; output was truncated. Lines longer than 2000 Unicode scalar values are clipped, so such a line is not an edit anchor."
            )
        );
        let out = text_page(&format!("{}e\u{301}tail", "a".repeat(1998)), 1, 2000);
        assert_eq!(out.content, format!("{}e\u{301}", "a".repeat(1998)));
    }

    #[test]
    fn the_byte_cut_drops_the_line_it_lands_on() {
        let lines: Vec<String> = (0..2000)
            .map(|i| format!("{i}:{}", "x".repeat(100)))
            .collect();
        let out = text_page(&lines.join("\n"), 1, 2000);
        assert!(out.truncated);
        assert!(out.content.len() <= MAX_OUTPUT_BYTES);
        let shown = out.content.split('\n').count() as u64;
        assert_eq!(out.end_line, shown);
        assert_eq!(
            out.content.split('\n').next_back(),
            Some(lines[shown as usize - 1].as_str())
        );
        // A line that ends exactly at the cut is dropped too: 29 lines of
        // 2,000 bytes and their newlines, then one of 1,971 that ends at
        // byte 60,000, then one more.
        let mut text: Vec<String> = vec!["x".repeat(2000); 29];
        text.push("y".repeat(1971));
        text.push("z".into());
        assert_eq!(text[..30].join("\n").len(), MAX_OUTPUT_BYTES);
        let out = text_page(&text.join("\n"), 1, 2000);
        assert_eq!((out.end_line, out.truncated), (29, true));
    }

    #[test]
    fn hints_score_prefixes_and_keep_ties_in_listing_order() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["zebra", "apple", "aardvark", ".apricot"] {
            fs::write(dir.path().join(name), "").unwrap();
        }
        assert_eq!(
            hint(dir.path(), "./apricot"),
            ". The working directory holds: apple, aardvark, zebra."
        );
        assert_eq!(hint(dir.path(), "/apricot"), "");
        assert_eq!(hint(dir.path(), "../apricot"), "");
        let deep = dir.path().join("a/b");
        fs::create_dir_all(&deep).unwrap();
        for i in 0..14 {
            fs::write(deep.join(format!("entry{i:02}")), "").unwrap();
        }
        assert!(hint(dir.path(), "a/b/c/d.ts").ends_with("entry11 and 2 more."));
        assert!(hint(dir.path(), "a/b/c/d.ts").starts_with(". a/b holds: entry00, "));
    }
}
