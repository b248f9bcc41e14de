//! The pieces of a report a person can act on (conformance-kit §5,
//! extended): a unified diff of two pretty JSON answers, with look-alike
//! characters made visible. Whole reports, with the replay command, are
//! [`crate::report`]'s.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::time::Duration;

use similar::{ChangeTag, TextDiff};

use super::plan::GeneratedFile;
use crate::call::Call;

/// The most of one answer a diff reads: its pretty JSON past this is cut
/// (at a line) and the cut said.
pub const DIFF_READ_BYTES: usize = 4 << 20;
/// The most lines of either answer compared past their common head and
/// tail; answers that differ over more than this are said to.
pub const DIFF_WINDOW_LINES: usize = 2_000;
/// The most lines a diff prints.
pub const DIFF_PRINT_LINES: usize = 400;
/// The longest a diff may take to compute; past it the diff is coarser
/// (whole runs shown as removed and added), never late.
pub const DIFF_TIME: Duration = Duration::from_millis(250);

/// A unified diff of two JSON values, `-` expected, `+` actual; coloured
/// with ANSI escapes when `color` is set. Characters that would read as
/// something else (U+212A KELVIN SIGN looks like `K`, a no-break space like
/// a space) are shown as escapes ([`visible`]).
///
/// Bounded whatever the answers hold: each is read up to
/// [`DIFF_READ_BYTES`], their common head and tail are skipped in linear
/// time, at most [`DIFF_WINDOW_LINES`] of what lies between are compared,
/// within [`DIFF_TIME`], and at most [`DIFF_PRINT_LINES`] are printed. A
/// wrong answer with a million matches costs milliseconds, not the
/// quarter of an hour an unbounded Myers diff took.
///
/// ```
/// use lawsuite::kit::report::json_diff;
/// let diff = json_diff(&serde_json::json!({"a": 1}), &serde_json::json!({"a": 2}), false);
/// assert!(diff.contains("-  \"a\": 1\n+  \"a\": 2\n"), "{diff}");
/// ```
pub fn json_diff(expected: &serde_json::Value, actual: &serde_json::Value, color: bool) -> String {
    let (e, e_cut) = pretty(expected);
    let (a, a_cut) = pretty(actual);
    let e: Vec<&str> = e.lines().collect();
    let a: Vec<&str> = a.lines().collect();
    let head = e.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let tail = e[head..]
        .iter()
        .rev()
        .zip(a[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    // Three lines of context either side, as the grouped diff shows.
    let from = head.saturating_sub(3);
    let window = |lines: &[&str]| -> (usize, usize) {
        let end = lines.len() - tail + tail.min(3);
        let shown = (end - from).min(DIFF_WINDOW_LINES);
        (from + shown, end - from - shown)
    };
    let (e_end, e_left) = window(&e);
    let (a_end, a_left) = window(&a);
    let diff = TextDiff::configure()
        .timeout(DIFF_TIME)
        .diff_slices(&e[from..e_end], &a[from..a_end]);
    let mut out = String::new();
    let mut printed = 0usize;
    let mut unprinted = 0usize;
    // Lines both answers share are left out between groups of changes,
    // and said to be: `... 12 lines the same`.
    let same = |out: &mut String, n: usize| {
        if n > 0 {
            let _ = writeln!(
                out,
                "... {n} line{} the same",
                if n == 1 { "" } else { "s" }
            );
        }
    };
    let mut at = 0usize; // the next expected line (in `e`) not yet accounted for
    for group in diff.grouped_ops(3) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        if printed < DIFF_PRINT_LINES {
            same(&mut out, from + first.old_range().start - at);
        }
        at = from + last.old_range().end;
        for op in group {
            for change in diff.iter_changes(&op) {
                if printed == DIFF_PRINT_LINES {
                    unprinted += 1;
                    continue;
                }
                printed += 1;
                let (sign, on, off) = match change.tag() {
                    ChangeTag::Delete => ("-", "\x1b[31m", "\x1b[0m"),
                    ChangeTag::Insert => ("+", "\x1b[32m", "\x1b[0m"),
                    ChangeTag::Equal => (" ", "", ""),
                };
                let line = visible(change.value());
                if color && !on.is_empty() {
                    let _ = writeln!(out, "{on}{sign}{line}{off}");
                } else {
                    let _ = writeln!(out, "{sign}{line}");
                }
            }
        }
    }
    if printed < DIFF_PRINT_LINES && e_left == 0 && a_left == 0 && !out.is_empty() {
        same(&mut out, e.len().saturating_sub(at));
    }
    if unprinted > 0 {
        let _ = writeln!(out, "... {unprinted} more lines of the diff not shown");
    }
    if e_left > 0 || a_left > 0 {
        let _ = writeln!(
            out,
            "... the answers differ further: {e_left} more expected and {a_left} more actual lines not compared"
        );
    }
    for (cut, which) in [(e_cut, "expected"), (a_cut, "actual")] {
        if cut {
            let _ = writeln!(
                out,
                "... the {which} answer is longer than {} MiB; the rest is not compared",
                DIFF_READ_BYTES >> 20
            );
        }
    }
    out
}

/// `value` as pretty JSON, up to [`DIFF_READ_BYTES`] (cut after a whole
/// line), and whether it was cut.
fn pretty(value: &serde_json::Value) -> (String, bool) {
    struct Capped(Vec<u8>);
    impl std::io::Write for Capped {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let room = DIFF_READ_BYTES - self.0.len();
            if room == 0 {
                return Err(std::io::Error::other("full"));
            }
            let n = buf.len().min(room);
            self.0.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut out = Capped(Vec::new());
    let cut = serde_json::to_writer_pretty(&mut out, value).is_err();
    let mut bytes = out.0;
    if cut {
        // Whole lines only: a cut never splits a character.
        let end = bytes.iter().rposition(|&b| b == b'\n').unwrap_or(0);
        bytes.truncate(end);
    }
    (String::from_utf8_lossy(&bytes).into_owned(), cut)
}

/// The longest value a report line prints whole, in bytes. Longer ones
/// (a 60 KB pattern, a peer's message carrying its whole stderr) print as
/// their first [`LINE_HEAD`] and last [`LINE_TAIL`] bytes around how many
/// were left out: one law failure printed four lines of about 60 KB each.
/// Only what is printed is cut; answers are compared whole, and the JSON
/// formats keep every byte.
pub const LINE_BYTES: usize = 480;
/// The bytes of a long value kept before the cut ([`bounded`]).
pub const LINE_HEAD: usize = 320;
/// The bytes of a long value kept after the cut ([`bounded`]).
pub const LINE_TAIL: usize = 120;

/// `text` whole when it is at most [`LINE_BYTES`] long; else its head,
/// `…`, how many bytes are left out, `…`, and its tail, cut on character
/// boundaries.
///
/// ```
/// use lawsuite::kit::report::{LINE_BYTES, bounded};
/// let fits = "a".repeat(LINE_BYTES);
/// assert_eq!(bounded(&fits), fits);
/// let long = format!("{}{}", "a".repeat(LINE_BYTES), "z");
/// assert_eq!(
///     bounded(&long),
///     format!("{} … [41 bytes left out] … {}z", "a".repeat(320), "a".repeat(119))
/// );
/// ```
pub fn bounded(text: &str) -> std::borrow::Cow<'_, str> {
    cut(text, LINE_HEAD, LINE_TAIL)
}

/// `text` whole when it is at most `head + tail + 40` bytes long; else
/// its first `head` and last `tail` bytes (at character boundaries)
/// around how many bytes were left out: [`bounded`] for a report line,
/// and longer cuts for what a results file keeps of an answer.
///
/// ```
/// use lawsuite::kit::report::cut;
/// assert_eq!(cut("short", 2, 2), "short");
/// let long = "a".repeat(50) + "z";
/// assert_eq!(cut(&long, 2, 1), "aa … [48 bytes left out] … z");
/// ```
pub fn cut(text: &str, head: usize, tail: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= head + tail + 40 {
        return text.into();
    }
    let mut head = head;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - tail;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    format!(
        "{} … [{} bytes left out] … {}",
        &text[..head],
        tail - head,
        &text[tail..]
    )
    .into()
}

/// `text` with every character that would read as another, or not at
/// all, written as a `\u{…}` escape: non-ASCII letters that look like ASCII
/// ones (U+212A KELVIN SIGN, U+017F LONG S, U+0130/U+0131 dotted and
/// dotless I, fullwidth forms), invisible and spacing characters (no-break
/// and typographic spaces, zero-width characters, BOMs, bidi controls),
/// combining marks, and control characters. Everything else is kept, so
/// CJK or emoji text still reads as itself.
///
/// ```
/// use lawsuite::kit::report::visible;
/// assert_eq!(visible("\u{212A}elvin ok"), r"\u{212A}elvin ok");
/// assert_eq!(visible("a\u{00A0}b\u{200B}"), r"a\u{00A0}b\u{200B}");
/// assert_eq!(visible("日本 ✓"), "日本 ✓");
/// ```
pub fn visible(text: &str) -> String {
    fn confusable(c: char) -> bool {
        matches!(c,
            '\u{0000}'..='\u{0008}' | '\u{000B}'..='\u{001F}' | '\u{007F}'..='\u{00A0}'
            | '\u{00AD}' | '\u{0130}' | '\u{0131}' | '\u{017F}'
            | '\u{0300}'..='\u{036F}' | '\u{1680}' | '\u{180E}'
            | '\u{2000}'..='\u{200F}' | '\u{2028}'..='\u{202F}' | '\u{205F}'..='\u{206F}'
            | '\u{2126}' | '\u{212A}' | '\u{212B}' | '\u{3000}' | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}' | '\u{FF01}'..='\u{FF5E}' | '\u{FFF9}'..='\u{FFFB}')
    }
    if !text.chars().any(confusable) {
        return text.to_string();
    }
    text.chars()
        .map(|c| {
            if confusable(c) {
                format!("\\u{{{:04X}}}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The files of a tree a report lists, as indices into `files` in tree
/// order, and how many it leaves out.
///
/// Every file a call or an answer names is listed (an answer's paths, a
/// call's file root or path), and every ignore file (`.gitignore`,
/// `.ignore`, `.rgignore`, `.git/info/exclude`), since those are where the
/// cause of a divergence is; then other files in tree order until `at_least`
/// are listed. `root` is the symbolic root the paths are spelled with.
///
/// ```
/// use lawsuite::call::Call;
/// use lawsuite::kit::plan::GeneratedFile;
/// use lawsuite::kit::report::files_to_show;
/// use lawsuite::contract::GlobInput;
///
/// let mut files: Vec<GeneratedFile> =
///     (0..20).map(|i| GeneratedFile::new(format!("f{i}.txt"), "x\n")).collect();
/// files.push(GeneratedFile::new("sub/.gitignore", "*.ts\n"));
/// files.push(GeneratedFile::new("sub/a.ts", "x\n"));
/// let call = Call::Glob(GlobInput::new("**/*.ts", "/r"));
/// let answer = serde_json::json!({"paths": ["/r/sub/a.ts"], "truncated": false});
/// let (shown, left_out) = files_to_show(&files, "/r", &[&call], &[&answer], 4);
/// let paths: Vec<&str> = shown.iter().map(|&i| files[i].path.as_str()).collect();
/// assert_eq!(paths, ["f0.txt", "f1.txt", "sub/.gitignore", "sub/a.ts"]);
/// assert_eq!(left_out, 18);
/// ```
pub fn files_to_show(
    files: &[GeneratedFile],
    root: &str,
    calls: &[&Call],
    answers: &[&serde_json::Value],
    at_least: usize,
) -> (Vec<usize>, usize) {
    let prefix = format!("{root}/");
    let mut named: BTreeSet<String> = BTreeSet::new();
    // `text` as a path of the tree, when it is one: under the symbolic
    // root, or relative (as it is, and below `base`, the call's root: an
    // `ls` entry, a glob path relative to its root).
    let mut name = |text: &str, base: Option<&str>| {
        let text = text.trim_end_matches('/');
        match text.strip_prefix(&prefix) {
            Some(rel) => {
                named.insert(rel.to_string());
            }
            None if !text.starts_with('/') => {
                named.insert(text.to_string());
                if let Some(base) = base {
                    named.insert(format!("{base}/{text}"));
                }
            }
            None => {}
        }
    };
    let bases: Vec<String> = calls
        .iter()
        .filter_map(|call| call.root().strip_prefix(&prefix))
        .map(|rel| rel.trim_end_matches('/').to_string())
        .collect();
    for call in calls {
        name(call.root(), None);
        // A read or ls path relative to its `cwd` (which is `root()`).
        let relative = match call {
            Call::Read(r) => r.cwd.as_ref().map(|_| r.path.as_str()),
            Call::Ls(r) => r.cwd.as_ref().map(|_| r.path.as_str()),
            _ => None,
        };
        if let Some(path) = relative {
            name(&format!("{}/{path}", call.root()), None);
        }
    }
    fn strings<'v>(value: &'v serde_json::Value, out: &mut Vec<&'v str>) {
        match value {
            serde_json::Value::String(s) => out.push(s),
            serde_json::Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
            serde_json::Value::Object(map) => map.values().for_each(|v| strings(v, out)),
            _ => {}
        }
    }
    let mut texts = Vec::new();
    for answer in answers {
        strings(answer, &mut texts);
    }
    for text in texts {
        name(text, None);
        for base in &bases {
            name(text, Some(base));
        }
    }
    let is_ignore_file = |path: &str| {
        let base = path.rsplit('/').next().unwrap_or(path);
        matches!(base, ".gitignore" | ".ignore" | ".rgignore")
            || path.ends_with(".git/info/exclude")
    };
    let wanted: Vec<bool> = files
        .iter()
        .map(|f| named.contains(&f.path) || is_ignore_file(&f.path))
        .collect();
    let mut room = at_least.saturating_sub(wanted.iter().filter(|w| **w).count());
    let mut shown = Vec::new();
    for (i, wanted) in wanted.into_iter().enumerate() {
        if wanted {
            shown.push(i);
        } else if room > 0 {
            room -= 1;
            shown.push(i);
        }
    }
    let left_out = files.len() - shown.len();
    (shown, left_out)
}

#[cfg(test)]
mod bounded_tests {
    use super::*;
    use serde_json::json;

    fn matches(n: usize, text: &str) -> serde_json::Value {
        let one = json!({"file": "a", "line": 1, "text": text, "before": [], "after": []});
        json!({ "matches": vec![one; n], "truncated": false })
    }

    /// A wrong answer of a million matches against a small right one: the
    /// diff is printed at once, capped, and says what it left out.
    #[test]
    fn a_huge_wrong_answer_gives_a_short_diff() {
        let expected = matches(2, "x");
        let actual = matches(1_000_000, "y");
        let started = std::time::Instant::now();
        let diff = json_diff(&expected, &actual, false);
        let took = started.elapsed();
        eprintln!("json_diff of 1,000,000 matches against 2: {took:?}");
        assert!(took < std::time::Duration::from_secs(20), "took {took:?}");
        assert!(
            diff.lines().count() <= DIFF_PRINT_LINES + 4,
            "{}",
            diff.lines().count()
        );
        assert!(diff.contains("-      \"text\": \"x\""), "{diff}");
        assert!(diff.contains("more lines of the diff not shown"), "{diff}");
        assert!(diff.contains("the answers differ further"), "{diff}");
        assert!(
            diff.contains("the actual answer is longer than 4 MiB"),
            "{diff}"
        );
    }

    /// Far apart differences in two long answers: the common head and tail
    /// are skipped, so the change is found and shown with its context.
    #[test]
    fn one_change_in_a_long_answer_is_found_with_context() {
        let expected = matches(5_000, "x");
        let mut actual = expected.clone();
        actual["matches"][4_000]["line"] = json!(7);
        let diff = json_diff(&expected, &actual, false);
        assert_eq!(
            diff.matches("\n-").count() + diff.starts_with('-') as usize,
            1,
            "{diff}"
        );
        assert!(
            diff.contains("-      \"line\": 1,\n+      \"line\": 7,"),
            "{diff}"
        );
        // What is left out is said, before and after the change.
        assert!(diff.starts_with("... "), "{diff}");
        assert!(diff.ends_with(" lines the same\n"), "{diff}");
        let said: usize = diff
            .lines()
            .filter_map(|l| l.strip_prefix("... ")?.strip_suffix(" lines the same"))
            .map(|n| n.parse::<usize>().unwrap())
            .sum();
        let expected_lines = serde_json::to_string_pretty(&expected)
            .unwrap()
            .lines()
            .count();
        let shown = diff
            .lines()
            .filter(|l| !l.starts_with("...") && !l.starts_with('+'))
            .count();
        assert_eq!(said + shown, expected_lines, "{diff}");
    }

    /// A small diff ends with its last change's context, or says how many
    /// lines it leaves out: never an unexplained `...`.
    #[test]
    fn a_diff_never_ends_with_an_unexplained_ellipsis() {
        let diff = json_diff(&json!({"a": 1, "b": 2}), &json!({"a": 1, "b": 3}), false);
        assert!(!diff.lines().any(|l| l == "..."), "{diff}");
        assert_eq!(diff, " {\n   \"a\": 1,\n-  \"b\": 2\n+  \"b\": 3\n }\n");
    }
}
