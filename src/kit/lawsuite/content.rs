//! A generated file's bytes ([the content draws](super#content-draws)):
//! vocabulary lines, code for the symbol heuristic, binaries, lines at
//! and past the preview edge, and on the full ground CRLF, invalid UTF-8
//! and a BOM. The file-flow fixture borrows some of the vocabularies.

use super::tree::Tree;
use crate::kit::draws::Draws;

/// The line vocabulary. No line holds `\r` or `\n` (no lone CR, README Q3).
pub(super) const LINES: [&str; 32] = [
    "needle",
    "a needle in the line",
    "Needle capitalised",
    "NEEDLE SHOUTED",
    "no match here",
    "needle? with a question mark",
    "a+b and x*y and [z]",
    "value = compute(a, b)",
    "price: $5.00 (approx.)",
    "path/to/file.txt",
    "def widen(value):",
    "class Widget:",
    "    needle = value",
    "function widen(value) {",
    "}",
    "",
    "   ",
    "\tindented with a tab needle",
    "trailing needle",
    "café needle naïve",
    "日本語のneedle",
    "😀 emoji needle",
    "straße STRASSE",
    "\u{212A}elvin kelvin",
    "\u{17F}ong s and long s",
    "a\u{a0}b nbsp",
    "x^2 + y^2 {braces}",
    "back\\slash \\d literal",
    "-dash-leading line",
    "pub(crate) fn needle_fn() {",
    "foo?",
    "fo",
];

/// Lines that match `needle` in some case, for context-heavy files.
const NEEDLE_LINES: [&str; 5] = [
    "needle",
    "needle needle",
    "Needle capitalised",
    "    needle = value",
    "trailing needle",
];

/// Code for the symbol heuristic (§15), one line per element.
const SNIPPETS: [&[&str]; 5] = [
    &[
        "class Widget:",
        "    def widen(self, value):",
        "        needle = value",
        "        return needle",
        "",
        "",
        "def other():",
        "    pass",
    ],
    &[
        "export default async function work() {",
        "\treturn 'needle'",
        "}",
        "next()",
    ],
    &[
        "pub(crate) unsafe fn work() {",
        "    needle();",
        "}",
        "",
        "impl Widget {",
        "    fn widen(&self) {}",
        "}",
    ],
    &["func (r T) M() {", "\tneedle()", "}"],
    &[
        "class Outer:",
        "    def inner():",
        "        needle",
        "",
        "    sibling = 1",
        "",
        "outside = 2",
    ],
];

/// Fillers and last characters of a line at the preview edge (§11.4).
pub(super) const EDGE_FILL: [&str; 3] = ["x", "é", "😀"];
pub(super) const EDGE_LAST: [&str; 4] = ["x", "é", "😀", "日"];

/// Invalid UTF-8 (full ground): a stray byte, a cut sequence, a surrogate,
/// an overlong encoding. None holds `\r` or `\n`.
pub(super) const INVALID_UTF8: [&[u8]; 4] = [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf"];

/// What a generated file holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum ContentKind {
    /// 1–8 vocabulary lines.
    #[default]
    Lines,
    /// A code snippet plus 0–2 vocabulary lines.
    Code,
    /// Zero bytes.
    Empty,
    /// Exactly `\n`.
    NewlineOnly,
    /// Vocabulary lines with a NUL, early or after 9000 bytes.
    Binary,
    /// One line longer than the preview.
    Long,
    /// A line of 499, 500 or 501 characters.
    Edge,
    /// 5–20 lines, many matching, for context and maxCount.
    Context,
}

const CONTENT_KINDS: [(usize, ContentKind); 8] = [
    (40, ContentKind::Lines),
    (12, ContentKind::Code),
    (5, ContentKind::Empty),
    (4, ContentKind::NewlineOnly),
    (9, ContentKind::Binary),
    (7, ContentKind::Long),
    (9, ContentKind::Edge),
    (14, ContentKind::Context),
];

/// A file's bytes and kind ([draw order](super#content-draws)).
pub(super) fn content(draws: &mut Draws, tree: &mut Tree, full: bool) -> (Vec<u8>, ContentKind) {
    let kind = draws.weighted(&CONTENT_KINDS);
    let mut lines: Vec<Vec<u8>> = Vec::new();
    let mut push = |tree: &mut Tree, line: &str| {
        tree.learn_words(line);
        lines.push(line.as_bytes().to_vec());
    };
    // For a binary: where the NUL goes, in thousandths of the text, or
    // `None` for "after 9000 bytes".
    let mut nul_at = None;
    match kind {
        ContentKind::Empty => return (Vec::new(), kind),
        ContentKind::NewlineOnly => return (b"\n".to_vec(), kind),
        ContentKind::Lines => {
            for _ in 0..1 + draws.below(8) {
                push(tree, draws.word(&LINES));
            }
        }
        ContentKind::Code => {
            let snippet = draws.pick(&SNIPPETS).copied().unwrap_or_default();
            for line in snippet {
                push(tree, line);
            }
            for _ in 0..draws.below(3) {
                push(tree, draws.word(&LINES));
            }
        }
        ContentKind::Binary => {
            for _ in 0..1 + draws.below(6) {
                push(tree, draws.word(&LINES));
            }
            let late = draws.percent(30);
            let at = draws.below(1000);
            if !late {
                nul_at = Some(at);
            }
        }
        ContentKind::Long => {
            let length = 501 + draws.below(3000);
            let filler = draws.word(&EDGE_FILL);
            let place = draws.below(3);
            let body = filler.repeat(length - 6);
            // The needle at the start, past the 500-character preview, or
            // in the middle.
            let line = match place {
                0 => format!("needle{body}"),
                1 => format!("{body}needle"),
                _ => {
                    let half: String = body.chars().take((length - 6) / 2).collect();
                    let rest: String = body.chars().skip((length - 6) / 2).collect();
                    format!("{half}needle{rest}")
                }
            };
            push(tree, &line);
        }
        ContentKind::Edge => {
            let before = draws.below(3);
            for _ in 0..before {
                push(tree, draws.word(&LINES));
            }
            let chars = 499 + draws.below(3);
            let fill = draws.word(&EDGE_FILL);
            let last = draws.word(&EDGE_LAST);
            // "needle" (6) + fill × (chars − 7) + last (1) = chars.
            let line = format!("needle{}{last}", fill.repeat(chars - 7));
            push(tree, &line);
        }
        ContentKind::Context => {
            for _ in 0..5 + draws.below(16) {
                let line = if draws.percent(40) {
                    draws.word(&NEEDLE_LINES)
                } else {
                    draws.word(&LINES)
                };
                push(tree, line);
            }
        }
    }

    let (crlf, bom) = if full {
        let crlf = draws.percent(20);
        if draws.percent(12) {
            let bytes = draws.pick(&INVALID_UTF8).copied().unwrap_or_default();
            let at = draws.below(lines.len());
            if let Some(line) = lines.get_mut(at) {
                line.extend_from_slice(bytes);
            }
        }
        (crlf, draws.percent(5))
    } else {
        (false, false)
    };
    let final_newline = draws.percent(75);

    let terminator: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    let mut bytes = Vec::new();
    if bom {
        bytes.extend_from_slice("\u{feff}".as_bytes());
    }
    bytes.extend_from_slice(&lines.join(terminator));
    if final_newline {
        bytes.extend_from_slice(terminator);
    }
    if kind == ContentKind::Binary {
        match nul_at {
            Some(thousandths) => {
                // Back to a character boundary and never between `\r` and
                // `\n`: the NUL must not add invalid UTF-8 or a lone CR.
                let mut at = bytes.len() * thousandths / 1000;
                while at > 0
                    && (bytes.get(at).is_some_and(|byte| byte & 0xC0 == 0x80)
                        || bytes.get(at - 1) == Some(&b'\r'))
                {
                    at -= 1;
                }
                bytes.insert(at, 0);
            }
            None => {
                // Past any prefix sniffing: the NUL comes after 9000 bytes
                // of matching text.
                while bytes.len() < 9000 {
                    bytes.extend_from_slice(b"needle after needle");
                    bytes.extend_from_slice(terminator);
                }
                bytes.extend_from_slice(b"late\0binary");
                bytes.extend_from_slice(terminator);
            }
        }
    }
    (bytes, kind)
}
