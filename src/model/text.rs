//! Strings as the spec sees them: UTF-16 order (the conventions at the top
//! of search-contract), path normalisation (§6.4), JavaScript whitespace
//! (§9.2, §15), decoding and line splitting (§11.2–§11.3) and preview
//! text (§11.4).
//!
//! Each helper is written the slow, obvious way from the spec's sentence.

use std::cmp::Ordering;

/// The conventions' order: compare the strings as sequences of UTF-16 code
/// units (so an astral scalar, a surrogate pair, sorts before U+E000).
pub(crate) fn utf16_order(a: &str, b: &str) -> Ordering {
    let a: Vec<u16> = a.encode_utf16().collect();
    let b: Vec<u16> = b.encode_utf16().collect();
    a.cmp(&b)
}

/// §6.4: the host's POSIX normalisation: collapse `//`, drop `.` segments,
/// resolve `..` (a `..` that would climb above a relative start is kept,
/// one above `/` is dropped), and keep one trailing `/` if there was one.
/// An empty result is `.`.
pub(crate) fn normalize(path: &str) -> String {
    if path.is_empty() {
        return ".".to_string();
    }
    let absolute = path.starts_with('/');
    let trailing = path.ends_with('/');
    let mut kept: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                if kept.last().is_some_and(|last| *last != "..") {
                    kept.pop();
                } else if !absolute {
                    kept.push("..");
                }
            }
            other => kept.push(other),
        }
    }
    let mut out = String::new();
    if absolute {
        out.push('/');
    }
    out.push_str(&kept.join("/"));
    if out.is_empty() {
        out.push('.');
    }
    if trailing && !out.ends_with('/') {
        out.push('/');
    }
    out
}

/// `normalize(join(root, relative))` (§6.4, §7.2 step 6): the spelling of a
/// walked file in every answer.
pub(crate) fn output_path(root: &str, relative: &str) -> String {
    if relative.is_empty() {
        return normalize(root);
    }
    normalize(&format!("{root}/{relative}"))
}

/// JavaScript's `WhiteSpace` and `LineTerminator` characters: what `trim`,
/// `trimStart` and `trimEnd` remove (§9.2, §15). Not U+0085, which Rust's
/// `char::is_whitespace` would include, and U+FEFF, which it would not.
pub(crate) fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// §11.2: lossy UTF-8 with one leading BOM removed.
pub(crate) fn decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    String::from_utf8_lossy(bytes).into_owned()
}

/// §11.3: the lines of a decoded file. Split on LF only; a line that ended
/// with LF loses one CR before it; the last line counts only if it is not
/// empty (a trailing LF makes no extra line).
pub(crate) fn lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut pieces: Vec<&str> = text.split('\n').collect();
    // `split` yields one more piece than there are LFs: the text after the
    // last one, which is a line only when it has characters.
    let last = pieces.pop().unwrap_or("");
    for piece in pieces {
        out.push(piece.strip_suffix('\r').unwrap_or(piece).to_string());
    }
    if !last.is_empty() {
        out.push(last.to_string());
    }
    out
}

/// §11.4: at most 500 scalars, then at most 500 UTF-8 bytes without
/// splitting a scalar.
pub(crate) fn preview(line: &str) -> String {
    let mut out = String::new();
    for (taken, c) in line.chars().enumerate() {
        if taken == 500 || out.len() + c.len_utf8() > 500 {
            break;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_follows_posix() {
        assert_eq!(normalize("./src"), "src");
        assert_eq!(normalize("/repo/"), "/repo/");
        assert_eq!(output_path("/repo/", "src/a.ts"), "/repo/src/a.ts");
        assert_eq!(output_path(".", "src/a.ts"), "src/a.ts");
        assert_eq!(output_path("./src", "a.ts"), "src/a.ts");
        assert_eq!(normalize("a//b/../c"), "a/c");
        assert_eq!(normalize("../x"), "../x");
        assert_eq!(normalize("/.."), "/");
        assert_eq!(normalize("."), ".");
    }

    #[test]
    fn sorting_is_by_utf16_units() {
        assert_eq!(utf16_order("a-b/x", "a/b"), Ordering::Less);
        assert_eq!(utf16_order("\u{1F600}", "\u{E000}"), Ordering::Less);
    }

    #[test]
    fn lines_and_terminators() {
        assert_eq!(lines(""), Vec::<String>::new());
        assert_eq!(lines("\n"), vec![""]);
        assert_eq!(lines("a\nb\n"), vec!["a", "b"]);
        assert_eq!(lines("a\raa\ntrailing\r"), vec!["a\raa", "trailing\r"]);
        assert_eq!(lines("x\r\ny"), vec!["x", "y"]);
        assert_eq!(decode(b"\xEF\xBB\xBFneedle \xff"), "needle \u{FFFD}");
    }

    #[test]
    fn preview_cuts_scalars_then_bytes() {
        assert_eq!(preview(&"x".repeat(600)).len(), 500);
        assert_eq!(preview(&"\u{1F600}".repeat(501)).chars().count(), 125);
        assert_eq!(preview(&"é".repeat(400)).len(), 500);
    }
}
