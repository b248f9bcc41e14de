//! The `read` flow (read-ls-flows §1): one page of a UTF-8 text file, whole
//! lines only.
//!
//! * §1.1 / §1.2 — [`ReadRequest`] / [`ReadOutput`], key order as the spec's
//!   tables, `notice` present only when `truncated`.
//! * §1.3 — [`read_in`] runs the procedure in the spec's order: `stat`,
//!   directory, other non-regular types, the 64 MiB cap, load, NUL bytes,
//!   strict UTF-8 (BOM removed), offset check, page.
//! * §1.4 — lines are [`source_lines_of`] (LF only, `\r` kept).
//! * §1.5 — [`render_page`]: the page, the 2,000-scalar clip of each line,
//!   the 60,000-byte cut back to the last whole line, the notice.
//! * §1.6 — the not-found hint for relative paths, listing directories
//!   relative to the base directory.
//!
//! The read is not recorded for stale-write checks (§1.3 step 10): lawsuite
//! has no write flows, so there is nothing to check against.

use std::ffi::OsString;
use std::fs;
use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{
    DEFAULT_READ_LIMIT, Effects, MAX_LINE_CHARS, MAX_OUTPUT_BYTES, MAX_READ_FILE_BYTES,
    at_least_one, resolve,
};
use crate::contract::StdError;
use crate::contract::notice::{LONG_LINE_SUFFIX, Unit, truncation};
use crate::contract::sort_utf16;
use crate::contract::text::{source_lines_of, strip_bom};

/// How many names the not-found hint shows before «` and {n} more`» (§1.6).
const HINT_NAMES: usize = 12;

/// The `read` input (§1.1).
///
/// ```
/// use lawsuite::flow::ReadRequest;
/// let req: ReadRequest = serde_json::from_str(r#"{"path":"a.txt","offset":2}"#)?;
/// assert_eq!(req, ReadRequest::new("a.txt").offset(2));
/// assert_eq!(serde_json::to_string(&req)?, r#"{"path":"a.txt","offset":2}"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadRequest {
    /// The file, absolute or relative to the base directory.
    pub path: String,
    /// First line to return, 1-based; default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// Maximum lines to return; default 2000.
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

impl ReadRequest {
    /// A request for `path` with every default.
    pub fn new(path: impl Into<String>) -> ReadRequest {
        ReadRequest {
            path: path.into(),
            offset: None,
            limit: None,
            cwd: None,
        }
    }

    /// The same request starting at line `offset`.
    pub fn offset(mut self, offset: u64) -> ReadRequest {
        self.offset = Some(offset);
        self
    }

    /// The same request returning at most `limit` lines.
    pub fn limit(mut self, limit: u64) -> ReadRequest {
        self.limit = Some(limit);
        self
    }

    /// Resolve a relative `path` against `cwd` (relative to the base
    /// directory, or absolute).
    pub fn cwd(mut self, cwd: impl Into<String>) -> ReadRequest {
        self.cwd = Some(cwd.into());
        self
    }
}

/// The `read` output (§1.2), keys in the spec's order.
///
/// ```
/// use lawsuite::flow::read::render_page;
/// let page = render_page("a.txt", "one\ntwo\nthree", 2, 1)?;
/// assert_eq!(
///     serde_json::to_string(&page)?,
///     r#"{"content":"two","startLine":2,"endLine":2,"totalLines":3,"truncated":true,"notice":"Showing 1 of 3 lines; output was truncated."}"#,
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadOutput {
    /// Whole lines joined with `\n`, no gutter, no final `\n`, CRs kept.
    pub content: String,
    /// First line of the page (the effective offset).
    pub start_line: u64,
    /// Last line returned; `start_line - 1` when none.
    pub end_line: u64,
    /// Lines in the file (§1.4).
    pub total_lines: u64,
    /// Lines were clipped, the page was cut to 60,000 bytes, or lines remain.
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
pub fn effects_for(req: &ReadRequest) -> Effects {
    Effects::read_only(vec![req.path.clone()])
}

/// `read` against the process's working directory: [`read_in`] with base
/// `.`.
pub fn read(req: &ReadRequest) -> Result<ReadOutput, StdError> {
    read_in(Path::new("."), req)
}

/// `read` with relative paths (and the not-found hint's listings) resolved
/// against `base` (§1.3).
///
/// ```
/// use lawsuite::contract::ErrorCode;
/// use lawsuite::flow::read::{read_in, ReadRequest};
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("crlf.txt"), "one\r\ntwo\r\nthree\r\n")?;
/// let page = read_in(dir.path(), &ReadRequest::new("crlf.txt").offset(2).limit(1))?;
/// assert_eq!(page.content, "two\r");
/// let err = read_in(dir.path(), &ReadRequest::new("crlf.txt").offset(5)).unwrap_err();
/// assert_eq!((err.code, err.message.as_str()), (ErrorCode::OffsetOutOfRange, "Line offset 5 is outside crlf.txt"));
/// let err = read_in(dir.path(), &ReadRequest::new("./crlf.md")).unwrap_err();
/// assert_eq!(err.message, "File not found: ./crlf.md. The working directory holds: crlf.txt.");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_in(base: &Path, req: &ReadRequest) -> Result<ReadOutput, StdError> {
    let base = super::working_directory(base, req.cwd.as_deref());
    let base = base.as_path();
    let offset = at_least_one("read", "offset", req.offset, 1)?;
    let limit = at_least_one("read", "limit", req.limit, DEFAULT_READ_LIMIT)?;
    let path = req.path.as_str();
    let target = resolve(base, path);
    let not_found = || format!("File not found: {path}");

    // Steps 1–4: decided on `stat` alone, so a directory or a FIFO is never
    // opened (opening a FIFO would block until a writer appears).
    let meta = match fs::metadata(&target) {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Err(StdError::file_not_found(path, &not_found_hint(base, path)));
        }
        Err(err) => return Err(StdError::read_side(path, &err, &not_found())),
    };
    if meta.is_dir() {
        return Err(StdError::is_directory(path));
    }
    if !meta.is_file() {
        return Err(StdError::file_not_found(path, ""));
    }
    if meta.len() > MAX_READ_FILE_BYTES {
        return Err(StdError::file_too_large(
            path,
            meta.len(),
            MAX_READ_FILE_BYTES,
        ));
    }

    // Step 5, bounded: a file that grew after the `stat` costs at most one
    // byte over the cap before it is refused the same way.
    let bytes = load(&target).map_err(|err| match err {
        Load::Io(err) => StdError::read_side(path, &err, &not_found()),
        Load::TooLarge(size) => StdError::file_too_large(path, size, MAX_READ_FILE_BYTES),
    })?;

    // Steps 6–7.
    if memchr::memchr(0, &bytes).is_some() {
        return Err(StdError::binary_file(path));
    }
    let text = std::str::from_utf8(strip_bom(&bytes)).map_err(|_| StdError::not_utf8(path))?;

    // Steps 8–10.
    render_page(path, text, offset, limit)
}

/// Why [`load`] failed.
enum Load {
    Io(std::io::Error),
    /// The file holds more than [`MAX_READ_FILE_BYTES`]; at least this many.
    TooLarge(u64),
}

/// Reads at most `MAX_READ_FILE_BYTES + 1` bytes of `target`. (The extra
/// byte matters only for a file that grew past the cap after its `stat`,
/// which no law can arrange.)
fn load(target: &Path) -> Result<Vec<u8>, Load> {
    let file = fs::File::open(target).map_err(Load::Io)?;
    let hint = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut bytes = Vec::with_capacity(hint.min(MAX_READ_FILE_BYTES) as usize);
    file.take(MAX_READ_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(Load::Io)?;
    let read = bytes.len() as u64;
    if read > MAX_READ_FILE_BYTES {
        return Err(Load::TooLarge(read.max(hint)));
    }
    Ok(bytes)
}

/// §1.3 steps 8–9 and §1.5 over an already decoded text (BOM removed):
/// count the lines, check the offset, then page, clip, cut and write the
/// notice. `path` is only used in the offset error.
///
/// This is the whole of `read` that does not touch the filesystem, so an
/// in-memory peer can share it.
///
/// ```
/// use lawsuite::flow::read::render_page;
/// let line = format!("{}😀tail", "a".repeat(1999));
/// let page = render_page("f", &line, 1, 2000)?;
/// assert_eq!(page.content, format!("{}😀", "a".repeat(1999)));
/// assert!(page.truncated);
/// assert_eq!(
///     page.notice.as_deref(),
///     Some("Showing 1 of 1 lines; output was truncated. Lines longer than 2000 Unicode scalar values are clipped, so such a line is not an edit anchor."),
/// );
/// let empty = render_page("f", "", 1, 2000)?;
/// assert_eq!((empty.start_line, empty.end_line, empty.total_lines), (1, 0, 0));
/// assert!(render_page("f", "", 2, 2000).is_err());
/// # Ok::<(), lawsuite::contract::StdError>(())
/// ```
pub fn render_page(
    path: &str,
    text: &str,
    offset: u64,
    limit: u64,
) -> Result<ReadOutput, StdError> {
    let offset = at_least_one("read", "offset", Some(offset), 1)?;
    let limit = at_least_one("read", "limit", Some(limit), 1)?;
    let total = line_count(text);
    if offset > total.max(1) {
        return Err(StdError::line_offset_out_of_range(path, offset));
    }
    // offset ≤ max(total, 1), so `page_end ≥ offset - 1` and `skip` fits.
    let page_end = total.min(offset.saturating_add(limit - 1));
    let page_len = page_end + 1 - offset;

    let mut content = String::new();
    let mut long_lines = false;
    let lines = source_lines_of(text)
        .skip((offset - 1) as usize)
        .take(page_len as usize);
    for (i, line) in lines.enumerate() {
        let clipped = clip_line(line);
        long_lines |= clipped.len() < line.len();
        // Past the byte cap nothing more can survive the cut, but a clipped
        // line further down still earns the long-line suffix (§1.5 says
        // "at least one line was clipped", of the page, not of the content).
        if content.len() <= MAX_OUTPUT_BYTES {
            if i > 0 {
                content.push('\n');
            }
            content.push_str(clipped);
        }
    }

    let byte_truncated = content.len() > MAX_OUTPUT_BYTES;
    let shown = if byte_truncated {
        cut_to_whole_lines(&mut content);
        if content.is_empty() {
            0
        } else {
            memchr::memchr_iter(b'\n', content.as_bytes()).count() as u64 + 1
        }
    } else {
        page_len
    };
    let truncated = long_lines || byte_truncated || page_end < total;
    let notice = truncated.then(|| {
        let mut notice = truncation(shown, total, Unit::Lines);
        if long_lines {
            notice.push_str(LONG_LINE_SUFFIX);
        }
        notice
    });
    Ok(ReadOutput {
        content,
        start_line: offset,
        end_line: offset + shown - 1,
        total_lines: total,
        truncated,
        notice,
    })
}

/// The number of §1.4 `sourceLines`: one per `\n`, plus an unterminated last
/// line. Counted with `memchr` rather than by splitting, since a 64 MiB file
/// may be paged from its first line.
fn line_count(text: &str) -> u64 {
    let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64;
    newlines + u64::from(!text.is_empty() && !text.ends_with('\n'))
}

/// A line's first [`MAX_LINE_CHARS`] Unicode scalar values (§1.5): a
/// combining mark or a ZWJ sequence is cut by scalar count like anything
/// else, and a `&str` cut can never split a scalar.
fn clip_line(line: &str) -> &str {
    // Each scalar is at least one byte, so a short line has few scalars.
    if line.len() <= MAX_LINE_CHARS {
        return line;
    }
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((end, _)) => &line[..end],
        None => line,
    }
}

/// The §1.5 byte cut: the longest prefix of ≤ [`MAX_OUTPUT_BYTES`] ending on
/// a scalar boundary, then everything from its last `\n` dropped (so a line
/// that ends exactly at the cut is dropped too), or nothing left without a
/// `\n`.
fn cut_to_whole_lines(content: &mut String) {
    let mut end = MAX_OUTPUT_BYTES.min(content.len());
    // Back to a scalar boundary. (Forward would do as well: a scalar holds
    // no `\n`, so the last `\n` before either boundary is the same one.)
    while !content.is_char_boundary(end) {
        end -= 1;
    }
    match memchr::memrchr(b'\n', &content.as_bytes()[..end]) {
        Some(newline) => content.truncate(newline),
        None => content.clear(),
    }
}

/// The §1.6 hint appended to «`File not found: {path}`», or `""`.
///
/// Directories are listed relative to `base`; the label names them as the
/// caller would (the `path` segments, `.` segments dropped).
fn not_found_hint(base: &Path, path: &str) -> String {
    if path.starts_with('/') || path.split('/').any(|seg| seg == "..") {
        return String::new();
    }
    let segs: Vec<&str> = path
        .split('/')
        .filter(|seg| !seg.is_empty() && *seg != ".")
        .collect();
    for depth in (0..segs.len()).rev() {
        let dir = if depth == 0 {
            ".".to_string()
        } else {
            segs[..depth].join("/")
        };
        let Some(names) = list_names(&base.join(&dir)) else {
            continue;
        };
        // The first directory that lists decides, even when it has nothing
        // to show.
        return hint_sentence(&dir, depth, segs[depth], names);
    }
    String::new()
}

/// The names in `dir`, or `None` when it cannot be listed. Sorted by UTF-16
/// code units: the spec's "listing order" is whatever the host returns,
/// and lawsuite pins it so the hint is the same on every filesystem.
fn list_names(dir: &Path) -> Option<Vec<String>> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).ok()? {
        let name: OsString = entry.ok()?.file_name();
        names.push(name.to_string_lossy().into_owned());
    }
    sort_utf16(&mut names);
    Some(names)
}

/// «`. {label} holds: {names}{more}.`» for the listing of one level (§1.6).
fn hint_sentence(dir: &str, depth: usize, missing: &str, names: Vec<String>) -> String {
    let missing: Vec<char> = missing.to_lowercase().chars().collect();
    let mut scored: Vec<(usize, String)> = names
        .into_iter()
        .filter(|name| !name.starts_with('.'))
        .map(|name| {
            let score = name
                .to_lowercase()
                .chars()
                .zip(&missing)
                .take_while(|(a, b)| a == *b)
                .count();
            (score, name)
        })
        .collect();
    if scored.is_empty() {
        return String::new();
    }
    // `sort_by_key` is stable: equal scores keep listing order.
    scored.sort_by_key(|&(score, _)| std::cmp::Reverse(score));
    let label = if depth == 0 {
        "The working directory"
    } else {
        dir
    };
    let shown: Vec<&str> = scored
        .iter()
        .take(HINT_NAMES)
        .map(|(_, name)| name.as_str())
        .collect();
    let more = match scored.len().saturating_sub(HINT_NAMES) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!(". {label} holds: {}{more}.", shown.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::ErrorCode;

    #[test]
    fn clip_counts_scalars_not_bytes() {
        let s = "é".repeat(2500);
        assert_eq!(clip_line(&s), "é".repeat(2000));
        assert_eq!(clip_line(&"x".repeat(2000)), "x".repeat(2000));
        let zwj = format!("{}👩\u{200D}💻tail", "a".repeat(1997));
        assert_eq!(clip_line(&zwj), format!("{}👩\u{200D}💻", "a".repeat(1997)));
        // The cut can land inside a ZWJ sequence: scalars decide, not graphemes.
        let zwj = format!("{}👩\u{200D}💻tail", "a".repeat(1998));
        assert_eq!(clip_line(&zwj), format!("{}👩\u{200D}", "a".repeat(1998)));
    }

    #[test]
    fn cut_backs_off_to_a_scalar_then_to_a_newline() {
        // 59,998 `x`, `\n`, then a 4-byte scalar straddling byte 60,000.
        let mut s = format!("{}\n😀😀", "x".repeat(59_998));
        cut_to_whole_lines(&mut s);
        assert_eq!(s, "x".repeat(59_998));
        let mut no_newline = "é".repeat(40_000);
        cut_to_whole_lines(&mut no_newline);
        assert_eq!(no_newline, "");
    }

    #[test]
    fn line_count_is_source_lines() {
        for text in ["", "\n", "a", "a\n", "a\nb", "a\r\nb\r\n", "\n\n"] {
            assert_eq!(line_count(text), source_lines_of(text).count() as u64);
        }
    }

    #[test]
    fn zero_paging_fields_are_refused() {
        assert_eq!(
            render_page("f", "a", 0, 1).unwrap_err().code,
            ErrorCode::InvalidInput
        );
        assert_eq!(
            render_page("f", "a", 1, 0).unwrap_err().code,
            ErrorCode::InvalidInput
        );
    }

    #[test]
    fn huge_offset_and_limit_do_not_overflow() {
        let page = render_page("f", "a\nb", 2, u64::MAX).unwrap();
        assert_eq!((page.content.as_str(), page.end_line), ("b", 2));
        let err = render_page("f", "a", u64::MAX, u64::MAX).unwrap_err();
        assert_eq!(err.code, ErrorCode::OffsetOutOfRange);
    }

    #[test]
    fn hint_scores_prefixes_case_insensitively_and_keeps_ties_in_order() {
        let names = ["zebra", "Apple", "aardvark", ".apricot-secret"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            hint_sentence(".", 0, "APRicot", names),
            ". The working directory holds: Apple, aardvark, zebra."
        );
        assert_eq!(hint_sentence("d", 1, "x", vec![".only".into()]), "");
        let many: Vec<String> = (0..13).map(|i| format!("n{i}")).collect();
        assert!(hint_sentence("a/b", 2, "x", many).ends_with(", n11 and 1 more."));
    }
}
