//! The pieces of a report a person can act on (conformance-kit §5,
//! extended): a unified diff of two pretty JSON answers, with look-alike
//! characters made visible. Whole reports, with the replay command, are
//! [`crate::conformance::format`]'s.

use std::fmt::Write;

use similar::{ChangeTag, TextDiff};

/// A unified diff of two JSON values, `-` expected, `+` actual; coloured
/// with ANSI escapes when `color` is set. Characters that would read as
/// something else (U+212A KELVIN SIGN looks like `K`, a no-break space like
/// a space) are shown as escapes ([`visible`]).
pub fn json_diff(expected: &serde_json::Value, actual: &serde_json::Value, color: bool) -> String {
    let e = serde_json::to_string_pretty(expected).unwrap_or_default();
    let a = serde_json::to_string_pretty(actual).unwrap_or_default();
    let diff = TextDiff::from_lines(&e, &a);
    let mut out = String::new();
    for group in diff.grouped_ops(3) {
        for op in group {
            for change in diff.iter_changes(&op) {
                let (sign, on, off) = match change.tag() {
                    ChangeTag::Delete => ("-", "\x1b[31m", "\x1b[0m"),
                    ChangeTag::Insert => ("+", "\x1b[32m", "\x1b[0m"),
                    ChangeTag::Equal => (" ", "", ""),
                };
                let line = change.to_string_lossy();
                let line = visible(line.trim_end_matches('\n'));
                if color && !on.is_empty() {
                    let _ = writeln!(out, "{on}{sign}{line}{off}");
                } else {
                    let _ = writeln!(out, "{sign}{line}");
                }
            }
        }
        out.push_str("...\n");
    }
    out
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
