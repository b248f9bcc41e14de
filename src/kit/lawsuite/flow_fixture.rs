//! Step 6 of [the draw order](super#reproducibility-and-the-draw-order):
//! the file-flow fixture, the files `read` calls name and the directory
//! `ls` calls list (`read-ls-flows.md`).

use super::content::{EDGE_FILL, EDGE_LAST, INVALID_UTF8, LINES};
use super::tree::Tree;
use crate::kit::draws::Draws;
use crate::kit::plan::GeneratedFile;

/// Where the file-flow fixture lives: a skip-listed directory (§7.3) under a
/// name no vocabulary uses, so no grep or glob call of the plan ever sees
/// it (their roots were drawn before it existed) and their answers are the
/// ones the plan had without it.
pub(super) const FLOW_FIXTURE: &str = "flows.fixture/node_modules";

/// The directory of the fixture that `ls` calls list.
pub(super) const FLOW_LIST: &str = "flows.fixture/node_modules/list";

/// What a fixture file for `read` holds.
#[derive(Clone, Copy, Debug, Default)]
enum ReadKind {
    /// Around 2,000 lines (1,995–2,005): the default page's edge.
    #[default]
    ManyLines,
    /// A line of 1,995–2,005 scalars (`x`, `é` or `😀`) among short ones:
    /// the clip's edge.
    LongLine,
    /// Lines of one width whose page is just under or over 60,000 bytes.
    BigPage,
    /// CRLF lines, sometimes a lone CR, sometimes no final newline.
    Crlf,
    /// Text with a NUL somewhere.
    Binary,
    /// Text with an invalid UTF-8 sequence.
    InvalidUtf8,
    /// A BOM, then a few lines.
    Bom,
    /// One of [`TINY`]: empty, newline-only, unterminated…
    Tiny,
}

const READ_KINDS: [(usize, ReadKind); 8] = [
    (16, ReadKind::ManyLines),
    (16, ReadKind::LongLine),
    (16, ReadKind::BigPage),
    (14, ReadKind::Crlf),
    (8, ReadKind::Binary),
    (10, ReadKind::InvalidUtf8),
    (8, ReadKind::Bom),
    (12, ReadKind::Tiny),
];

/// Small files whose line counts are the §1.4 corner cases.
const TINY: [&str; 7] = [
    "",
    "\n",
    "\n\n",
    "one line",
    "a\rb\n",
    "alpha\nbeta\n",
    "\r\n",
];

/// Line widths (in scalars) of a [`ReadKind::BigPage`] file: some under the
/// clip, some at it, some over.
const PAGE_WIDTHS: [usize; 8] = [40, 99, 100, 150, 999, 1999, 2000, 2500];

/// Names for the listed directory, in no particular order: they need UTF-16
/// order to sort (`𐀀` before `😀`, decomposed before precomposed `é`, and
/// `𐀀` — a surrogate pair, D800 DC00 — before the fullwidth `ｚ` U+FF5A,
/// which code-point order puts the other way round), and `a`, `a.b`, `a-c`
/// sort differently as directories (with their `/`).
const LIST_NAMES: [&str; 17] = [
    "😀x",
    "zx",
    "a",
    "ｚx",
    "𐀀x",
    "!x",
    "é",
    "e\u{301}",
    "Zx",
    "a.b",
    "_x",
    "Ωx",
    "ax",
    "a-c",
    "Ax",
    ".hidden",
    "node_modules",
];

/// How many entries the listed directory holds: few, some, many, or around
/// `MAX_ENTRIES` (995–1,005).
const LIST_SIZES: [(usize, (usize, usize)); 4] = [
    (25, (0, 5)),
    (40, (5, 36)),
    (20, (41, 160)),
    (15, (995, 11)),
];

/// Step 6: the fixture files `read` calls draw from, and the directory `ls`
/// calls list. Returns the fixture files' paths.
pub(super) fn flow_fixture(draws: &mut Draws, tree: &mut Tree, full: bool) -> Vec<String> {
    let mut files = Vec::new();
    for index in 0..2 + draws.below(4) {
        let path = format!("{FLOW_FIXTURE}/read{index}.txt");
        let content = read_fixture_content(draws);
        if tree.add_leaf(GeneratedFile::new(path.clone(), content)) {
            files.push(path);
        }
    }
    let (low, span) = draws.weighted(&LIST_SIZES);
    let count = low + draws.below(span);
    tree.add_dir(GeneratedFile::dir(FLOW_LIST));
    for i in 0..count {
        let name = match LIST_NAMES.get(i) {
            Some(name) => (*name).to_string(),
            None => format!("n{i}"),
        };
        let path = format!("{FLOW_LIST}/{name}");
        if draws.percent(20) {
            tree.add_dir(GeneratedFile::dir(path));
        } else {
            tree.add_leaf(GeneratedFile::new(path, "x\n"));
        }
    }
    if full {
        // Links are stat-ed through: a dangling one is a file, one to a
        // directory is a directory (§2.3 step 5).
        if draws.percent(50) {
            tree.add_leaf(GeneratedFile::symlink(
                format!("{FLOW_LIST}/dangling"),
                "nowhere",
            ));
        }
        if draws.percent(50) {
            tree.add_leaf(GeneratedFile::symlink(format!("{FLOW_LIST}/up"), ".."));
        }
    }
    files
}

/// One fixture file's bytes (the kind, then its own draws).
fn read_fixture_content(draws: &mut Draws) -> Vec<u8> {
    let short = |i: usize| format!("line {i}");
    match draws.weighted(&READ_KINDS) {
        ReadKind::ManyLines => {
            let n = 1995 + draws.below(11);
            let eol = if draws.percent(25) { "\r\n" } else { "\n" };
            let mut text: String = (1..=n).map(|i| short(i) + eol).collect();
            if draws.percent(30) {
                text.truncate(text.len() - eol.len());
            }
            text.into_bytes()
        }
        ReadKind::LongLine => {
            let before = draws.below(3);
            let width = 1995 + draws.below(11);
            let fill = draws.word(&EDGE_FILL);
            let last = draws.word(&EDGE_LAST);
            let after = draws.below(3);
            let mut text: String = (1..=before).map(|i| short(i) + "\n").collect();
            text.push_str(&fill.repeat(width - 1));
            text.push_str(last);
            for i in 0..after {
                text.push('\n');
                text.push_str(&short(i));
            }
            text.into_bytes()
        }
        ReadKind::BigPage => {
            let width = draws.pick(&PAGE_WIDTHS).copied().unwrap_or(100);
            let fill = draws.word(&EDGE_FILL);
            // Rendered bytes per line, after the clip, with its `\n`.
            let per_line = width.min(2000) * fill.len() + 1;
            let n = (60_000 / per_line).saturating_sub(1) + draws.below(4);
            let line = fill.repeat(width);
            let mut text = String::with_capacity(n * (line.len() + 1));
            for _ in 0..n.max(1) {
                text.push_str(&line);
                text.push('\n');
            }
            text.into_bytes()
        }
        ReadKind::Crlf => {
            let n = 2 + draws.below(7);
            let lone_cr = draws.percent(20);
            let final_eol = draws.percent(70);
            let mut text = String::new();
            for i in 0..n {
                text.push_str(draws.word(&LINES));
                if lone_cr && i == 0 {
                    text.push_str("\rafter a lone CR");
                }
                if i + 1 < n || final_eol {
                    text.push_str("\r\n");
                }
            }
            text.into_bytes()
        }
        ReadKind::Binary => {
            let mut bytes: Vec<u8> = (1..=1 + draws.below(6))
                .flat_map(|i| (short(i) + "\n").into_bytes())
                .collect();
            let at = draws.below(bytes.len() + 1);
            bytes.insert(at, 0);
            bytes
        }
        ReadKind::InvalidUtf8 => {
            let mut bytes: Vec<u8> = (1..=1 + draws.below(6))
                .flat_map(|i| (short(i) + "\n").into_bytes())
                .collect();
            let bad = draws.pick(&INVALID_UTF8).copied().unwrap_or(b"\xff");
            let at = draws.below(bytes.len() + 1);
            bytes.splice(at..at, bad.iter().copied());
            bytes
        }
        ReadKind::Bom => {
            let text: String = (1..=draws.below(4)).map(|i| short(i) + "\n").collect();
            format!("\u{FEFF}{text}").into_bytes()
        }
        ReadKind::Tiny => draws.word(&TINY).as_bytes().to_vec(),
    }
}
