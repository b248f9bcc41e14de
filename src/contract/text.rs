//! Reading a candidate file as text: decoding, lines, previews
//! (search-contract §11.2–§11.5, read-ls-flows §1.4).
//!
//! The streaming scanner that feeds grep lives elsewhere; this module holds
//! the pure rules it and the symbol heuristic share, so the two can never
//! disagree on what "line 7" is:
//!
//! * [`strip_bom`], [`decode_lossy`] — §11.2: one leading UTF-8 BOM removed,
//!   then lossy UTF-8 with the maximal-subpart rule.
//! * [`line_text`], [`lines`] — §11.3: grep's line model (LF only, one `\r`
//!   dropped before a terminating `\n`).
//! * [`preview`], [`preview_len`], [`PREVIEW_MAX`] — §11.4: the 500-scalar,
//!   500-byte preview of `Match.text` / `ContextLine.text`.
//! * [`source_lines`], [`source_lines_of`] — §11.5 / read-ls §1.4: the line
//!   array the symbol heuristic (§15) reads, `\r` kept.
//! * [`is_blank`] — JavaScript `String.prototype.trim()` emptiness, used by
//!   §15's *blank(line)*.
//!
//! ```
//! use lawsuite::contract::text::{decode_lossy, lines, source_lines};
//! let bytes = b"\xEF\xBB\xBFone\r\ntwo\xff\n";
//! let text = decode_lossy(bytes);
//! assert_eq!(lines(&text).collect::<Vec<_>>(), ["one", "two\u{FFFD}"]);
//! // Same numbering, but the symbol heuristic keeps the `\r`.
//! assert_eq!(source_lines(bytes), ["one\r", "two\u{FFFD}"]);
//! ```

use std::borrow::Cow;

/// The preview budget of §11.4 / §19: at most this many Unicode scalar
/// values *and* at most this many UTF-8 bytes.
pub const PREVIEW_MAX: usize = 500;

/// The UTF-8 byte order mark, removed once from the start of a file (§11.2).
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Byte length of the §11.4 preview of `line`: the longest prefix that has at
/// most [`PREVIEW_MAX`] scalars and at most [`PREVIEW_MAX`] UTF-8 bytes.
///
/// Always a `char` boundary of `line`, so `&line[..preview_len(line)]` never
/// panics and lets a caller build the preview without an extra allocation.
///
/// ```
/// use lawsuite::contract::text::preview_len;
/// assert_eq!(preview_len("short"), 5);
/// assert_eq!(preview_len(&"x".repeat(600)), 500);
/// assert_eq!(preview_len(&"😀".repeat(501)), 500); // 125 four-byte scalars
/// ```
pub fn preview_len(line: &str) -> usize {
    if line.len() <= PREVIEW_MAX {
        return line.len();
    }
    // Every scalar takes at least one byte, so a prefix of ≤ 500 bytes has
    // ≤ 500 scalars: the byte cut alone enforces both limits. Back off to a
    // scalar boundary (at most 3 steps, UTF-8 scalars are ≤ 4 bytes).
    let mut end = PREVIEW_MAX;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// The §11.4 preview of a line text (terminator already removed, see
/// [`line_text`]): its first 500 scalars, cut to at most 500 UTF-8 bytes
/// without splitting a scalar. Never introduces U+FFFD.
///
/// ```
/// use lawsuite::contract::text::preview;
/// assert_eq!(preview(&"x".repeat(600)), "x".repeat(500));
/// assert_eq!(preview(&"😀".repeat(501)), "😀".repeat(125));
/// assert_eq!(preview("needle"), "needle");
/// ```
pub fn preview(line: &str) -> String {
    line[..preview_len(line)].to_owned()
}

/// Removes one leading UTF-8 BOM (`EF BB BF`), if present (§11.2).
///
/// Only one: a second BOM is content (U+FEFF) and stays.
///
/// ```
/// use lawsuite::contract::text::strip_bom;
/// assert_eq!(strip_bom(b"\xEF\xBB\xBFabc"), b"abc");
/// assert_eq!(strip_bom(b"abc"), b"abc");
/// ```
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// Decodes a whole file as §11.2 does: BOM stripped, then lossy UTF-8 where
/// each maximal invalid subpart becomes one U+FFFD (the WHATWG rule, which is
/// what [`String::from_utf8_lossy`] implements).
///
/// Borrows when the input is valid UTF-8.
///
/// ```
/// use lawsuite::contract::text::decode_lossy;
/// assert_eq!(decode_lossy(b"needle \xff\n"), "needle \u{FFFD}\n");
/// assert_eq!(decode_lossy(b"\xEF\xBB\xBFhi"), "hi");
/// ```
pub fn decode_lossy(bytes: &[u8]) -> Cow<'_, str> {
    let bytes = strip_bom(bytes);
    // Valid text first: `from_utf8` checks it several times faster than the
    // lossy decoder's chunk loop, which was a quarter of a grep hit's cost
    // on a 128 MB one-line file (the symbol pass decodes the whole file).
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// The §11.3 text of one line given *with* its `\n` terminator if it had one:
/// the `\n` is dropped, and one `\r` before it is dropped too. A `\r` on an
/// unterminated line is content and stays.
///
/// Only the end of `line` is looked at; a caller that passes interior `\n`s
/// gets them back unchanged.
///
/// ```
/// use lawsuite::contract::text::line_text;
/// assert_eq!(line_text("a\raa\n"), "a\raa");
/// assert_eq!(line_text("crlf\r\n"), "crlf");
/// assert_eq!(line_text("trailing\r"), "trailing\r");
/// ```
pub fn line_text(line: &str) -> &str {
    match line.strip_suffix('\n') {
        Some(body) => body.strip_suffix('\r').unwrap_or(body),
        None => line,
    }
}

/// Splits a whole decoded text into §11.3 line texts: LF only, CRLF → no CR,
/// a final unterminated line counts, a trailing `\n` adds no empty line.
///
/// ```
/// use lawsuite::contract::text::lines;
/// assert_eq!(lines("a\raa\ntrailing\r").collect::<Vec<_>>(), ["a\raa", "trailing\r"]);
/// assert_eq!(lines("").count(), 0);
/// assert_eq!(lines("\n").collect::<Vec<_>>(), [""]);
/// assert_eq!(lines("a\nb\n").count(), 2);
/// ```
pub fn lines(text: &str) -> impl DoubleEndedIterator<Item = &str> + Clone {
    // `split_inclusive` yields exactly the §11.3 pieces: nothing for "", and
    // no empty piece after a final `\n`.
    text.split_inclusive('\n').map(line_text)
}

/// Splits a decoded text into the read-ls §1.4 `sourceLines`: LF only, `\r`
/// kept, no empty line after a final `\n`, `""` → no lines.
///
/// The borrowing form of [`source_lines`], for callers that already hold the
/// decoded text and want to hand `&[&str]` to
/// [`enclosing_symbol`](crate::contract::symbols::enclosing_symbol).
///
/// ```
/// use lawsuite::contract::text::source_lines_of;
/// assert_eq!(source_lines_of("one\r\ntwo\r\n").collect::<Vec<_>>(), ["one\r", "two\r"]);
/// assert_eq!(source_lines_of("alpha\nbeta\n").count(), 2);
/// ```
pub fn source_lines_of(text: &str) -> impl DoubleEndedIterator<Item = &str> + Clone {
    text.split_inclusive('\n')
        .map(|piece| piece.strip_suffix('\n').unwrap_or(piece))
}

/// The line array the symbol heuristic reads (§11.5, read-ls §1.4): the file
/// decoded with [`decode_lossy`], split on `\n` only, `\r` kept.
///
/// If the text ends with `\n`, the empty piece after it is *not* a line (the
/// reference `sourceLines` pops it), so `source_lines(b).len()` equals the
/// number of grep lines ([`lines`]) and index `i` is grep's line `i + 1`.
/// (§15 could not tell the difference anyway: a trailing empty line is blank
/// and is trimmed off every `endLine`.)
///
/// ```
/// use lawsuite::contract::text::source_lines;
/// assert_eq!(source_lines(b"alpha\nbeta\n"), ["alpha", "beta"]);
/// assert_eq!(source_lines(b"one\r\ntwo"), ["one\r", "two"]);
/// assert!(source_lines(b"").is_empty());
/// assert_eq!(source_lines(b"\n"), [""]);
/// ```
pub fn source_lines(bytes: &[u8]) -> Vec<String> {
    source_lines_of(&decode_lossy(bytes))
        .map(str::to_owned)
        .collect()
}

/// Whether `c` is removed by JavaScript `String.prototype.trim()`
/// (ECMA-262 *WhiteSpace* ∪ *LineTerminator*).
///
/// The exact set:
///
/// * *WhiteSpace*: U+0009 TAB, U+000B VT, U+000C FF, U+FEFF ZWNBSP, and every
///   `Zs` code point: U+0020, U+00A0, U+1680, U+2000–U+200A, U+202F, U+205F,
///   U+3000.
/// * *LineTerminator*: U+000A LF, U+000D CR, U+2028 LS, U+2029 PS.
///
/// Deliberately not [`char::is_whitespace`]: Unicode `White_Space` contains
/// U+0085 (NEL), which JS does not trim, and lacks U+FEFF, which JS does.
/// U+180E is `Cf` since Unicode 6.3, so modern engines keep it.
pub(crate) const fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{0009}'..='\u{000D}' // TAB, LF, VT, FF, CR
            | '\u{0020}'
            | '\u{00A0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202F}'
            | '\u{205F}'
            | '\u{3000}'
            | '\u{FEFF}'
    )
}

/// §15 *blank(line)*: the line is empty after JavaScript `trim()`.
///
/// Trimmed: ASCII whitespace incl. `\r \t \v \f`, NBSP U+00A0, U+FEFF,
/// U+2028/U+2029, U+1680 and the other Unicode `Zs` spaces. Not trimmed:
/// U+0085 (NEL), U+180E, U+200B.
///
/// ```
/// use lawsuite::contract::text::is_blank;
/// assert!(is_blank(""));
/// assert!(is_blank(" \t\r\u{0B}\u{0C}\u{A0}\u{FEFF}\u{2028}\u{3000}"));
/// assert!(!is_blank("\u{85}"));
/// assert!(!is_blank("  x  "));
/// ```
pub fn is_blank(line: &str) -> bool {
    line.chars().all(is_js_whitespace)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn cr_only_dropped_before_a_terminator() {
        assert_eq!(
            lines("a\raa\ntrailing\r").collect::<Vec<_>>(),
            ["a\raa", "trailing\r"]
        );
        assert_eq!(lines("x\r\r\n").collect::<Vec<_>>(), ["x\r"]);
        assert_eq!(lines("\r\n").collect::<Vec<_>>(), [""]);
        assert_eq!(line_text("\r"), "\r");
        assert_eq!(line_text(""), "");
    }

    #[test]
    fn line_counts_of_the_spec() {
        assert_eq!(lines("").count(), 0);
        assert_eq!(lines("\n").collect::<Vec<_>>(), [""]);
        assert_eq!(lines("a\nb\n").collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(lines("a\nb").collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(lines("\n\n").collect::<Vec<_>>(), ["", ""]);
    }

    #[test]
    fn preview_of_ascii_is_500_bytes() {
        let line = "x".repeat(600);
        assert_eq!(preview(&line), "x".repeat(500));
        assert_eq!(preview(&"x".repeat(500)), "x".repeat(500));
        assert_eq!(preview(""), "");
    }

    #[test]
    fn preview_of_emoji_is_cut_by_bytes_on_a_scalar_boundary() {
        let out = preview(&"😀".repeat(501));
        assert_eq!(out, "😀".repeat(125));
        assert_eq!(out.len(), 500);
        assert!(!out.contains('\u{FFFD}'));
        // 499 `x` + one 4-byte scalar: 500 scalars but 503 bytes → scalar dropped.
        let mixed = format!("{}😀tail", "x".repeat(499));
        assert_eq!(preview(&mixed), "x".repeat(499));
    }

    #[test]
    fn byte_limit_implies_scalar_limit() {
        // 600 two-byte scalars: 500 scalars = 1000 bytes, so bytes decide (250).
        assert_eq!(preview(&"é".repeat(600)), "é".repeat(250));
        // 400 ASCII + 200 two-byte: bytes cut at 500 = 400 + 50 `é`.
        let line = format!("{}{}", "a".repeat(400), "é".repeat(200));
        assert_eq!(
            preview(&line),
            format!("{}{}", "a".repeat(400), "é".repeat(50))
        );
    }

    #[test]
    fn bom_is_stripped_once() {
        assert_eq!(strip_bom(b"\xEF\xBB\xBF"), b"");
        assert_eq!(strip_bom(b"\xEF\xBB\xBF\xEF\xBB\xBFx"), b"\xEF\xBB\xBFx");
        assert_eq!(strip_bom(b"\xEF\xBB"), b"\xEF\xBB");
        assert_eq!(decode_lossy(b"\xEF\xBB\xBF\xEF\xBB\xBFx"), "\u{FEFF}x");
        // A BOM that is not first is content.
        assert_eq!(decode_lossy(b"x\xEF\xBB\xBF"), "x\u{FEFF}");
        // A truncated BOM is an invalid sequence: one U+FFFD (maximal subpart).
        assert_eq!(decode_lossy(b"\xEF\xBBx"), "\u{FFFD}x");
    }

    #[test]
    fn lossy_decode_uses_maximal_subparts() {
        let text = decode_lossy(b"needle \xff\n");
        assert_eq!(lines(&text).collect::<Vec<_>>(), ["needle \u{FFFD}"]);
        // F0 9F 98 is one truncated scalar → one U+FFFD; C0 80 is two.
        assert_eq!(decode_lossy(b"\xF0\x9F\x98x"), "\u{FFFD}x");
        assert_eq!(decode_lossy(b"\xC0\x80"), "\u{FFFD}\u{FFFD}");
        assert!(matches!(decode_lossy(b"valid"), Cow::Borrowed("valid")));
    }

    #[test]
    fn source_lines_keep_cr_and_match_grep_numbering() {
        assert_eq!(
            source_lines(b"one\r\ntwo\r\nthree\r\n"),
            ["one\r", "two\r", "three\r"]
        );
        assert_eq!(source_lines(b"alpha\nbeta\n"), ["alpha", "beta"]);
        assert_eq!(
            source_lines(b"alpha\nbeta\ngamma"),
            ["alpha", "beta", "gamma"]
        );
        assert_eq!(source_lines(b""), Vec::<String>::new());
        assert_eq!(source_lines(b"\n"), [""]);
        assert_eq!(source_lines(b"\xEF\xBB\xBF\n\n"), ["", ""]);
        assert_eq!(source_lines(b"a\rb"), ["a\rb"]);
        assert_eq!(source_lines(b"needle \xff\n"), ["needle \u{FFFD}"]);
    }

    /// Every code point JS `trim()` removes, per ECMA-262.
    const JS_TRIMMED: &[char] = &[
        '\u{0009}', '\u{000A}', '\u{000B}', '\u{000C}', '\u{000D}', '\u{0020}', '\u{00A0}',
        '\u{1680}', '\u{2000}', '\u{2001}', '\u{2002}', '\u{2003}', '\u{2004}', '\u{2005}',
        '\u{2006}', '\u{2007}', '\u{2008}', '\u{2009}', '\u{200A}', '\u{2028}', '\u{2029}',
        '\u{202F}', '\u{205F}', '\u{3000}', '\u{FEFF}',
    ];

    #[test]
    fn blank_is_exactly_the_js_trim_set() {
        // Exhaustive over all scalars: the set above and nothing else.
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let mut buf = [0; 4];
            let s = c.encode_utf8(&mut buf);
            assert_eq!(is_blank(s), JS_TRIMMED.contains(&c), "U+{:04X}", c as u32);
        }
        assert!(is_blank(""));
        let all: String = JS_TRIMMED.iter().collect();
        assert!(is_blank(&all));
        for kept in ['\u{0085}', '\u{180E}', '\u{200B}', '\u{001C}', '\u{0000}'] {
            assert!(!is_blank(&format!(" {kept} ")), "U+{:04X}", kept as u32);
        }
    }

    proptest! {
        #[test]
        fn preview_is_a_bounded_prefix(line in any::<String>()) {
            let out = preview(&line);
            prop_assert!(out.len() <= PREVIEW_MAX);
            prop_assert!(out.chars().count() <= PREVIEW_MAX);
            prop_assert!(line.starts_with(&out));
            prop_assert_eq!(out.len(), preview_len(&line));
        }

        #[test]
        fn preview_is_maximal(line in "(a|é|😀|\u{800}){0,700}") {
            // Extending the preview by one more scalar would break a limit.
            let out = preview(&line);
            if let Some(next) = line[out.len()..].chars().next() {
                prop_assert!(
                    out.len() + next.len_utf8() > PREVIEW_MAX
                        || out.chars().count() == PREVIEW_MAX
                );
            }
        }

        #[test]
        fn line_count_follows_terminators(text in "[a\r\n\u{85}é]{0,40}") {
            let newlines = text.matches('\n').count();
            let extra = usize::from(!text.is_empty() && !text.ends_with('\n'));
            prop_assert_eq!(lines(&text).count(), newlines + extra);
            prop_assert_eq!(source_lines(text.as_bytes()).len(), newlines + extra);
        }

        #[test]
        fn line_count_on_arbitrary_text(text in any::<String>()) {
            let newlines = text.matches('\n').count();
            let extra = usize::from(!text.is_empty() && !text.ends_with('\n'));
            prop_assert_eq!(lines(&text).count(), newlines + extra);
        }

        #[test]
        fn source_lines_differ_from_lines_only_by_cr(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let text = decode_lossy(&bytes);
            let grep: Vec<&str> = lines(&text).collect();
            let source = source_lines(&bytes);
            prop_assert_eq!(grep.len(), source.len());
            for (g, s) in grep.iter().zip(&source) {
                let with_cr = format!("{}\r", g);
                prop_assert!(*g == s.as_str() || with_cr == *s);
            }
        }
    }
}
