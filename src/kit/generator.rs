//! The `lawsuite` generator, the harness's default: a seed becomes a
//! [`Plan`] over a much wider ground than the TypeScript kit's
//! ([`crate::kit::smthrs`], conformance-kit §2).
//!
//! Where `smthrs` reproduces a fixed vocabulary draw for draw, this
//! generator aims at the corners of `search-contract.md` that §2's ground
//! never reaches:
//!
//! * **the walk (§7)**: trees up to five directory levels deep; names with
//!   spaces, non-ASCII (`é`, `😀`, CJK), dots and leading dashes; hidden
//!   files and directories; skip-list directories with contents and a
//!   skip-list name used as a *file* (§7.3);
//! * **`.gitignore` (§9)**: a root file and nested ones whose rules are
//!   drawn from the names actually under them — negation, anchoring,
//!   directory rules, `**`, comments, blank lines, trailing spaces, classes
//!   and malformed lines (`[z-a]`, `{broken`);
//! * **reading (§11)**: binaries (a NUL early or after 9000 bytes), empty
//!   files, a file holding only `\n`, lines longer than the 500-character
//!   preview and lines of 499, 500 and 501 characters with a multibyte
//!   character at the edge, missing final newlines, symbol-bearing code
//!   (§15);
//! * **patterns (§10, §12, §18)**: literals from the tree's own words,
//!   classes, alternation, every quantifier, anchors, escaped
//!   metacharacters, `.`; a share of invalid patterns, of non-ASCII ones and
//!   of metacharacter-bearing literals that exercise the literal retry;
//! * **every input field**, including `ignoreCase` + `smartCase` together
//!   in about 3 % of calls (peer-level calls may do that; the flow layer
//!   refuses it, §3 check 1), `limit: 0`, globs (§8) positive and `!`,
//!   anchored, braced, with trailing spaces or `./`, and roots that are the
//!   plan root, a subdirectory, a file (hidden, binary, skipped…) or a
//!   missing path.
//!
//! [`Ground::Full`] adds what needs more than plain files: CRLF lines,
//! invalid UTF-8, a BOM, symlinks (to files, to directories, dangling,
//! loops), an unreadable directory and an unreadable file (mode `0o000`),
//! an empty directory. A lone `\r` is never generated where grep and glob
//! can see it (spec README Q3: the peers are unreconciled there); the
//! file-flow fixture of steps 6–8, which only `read` and `ls` calls see,
//! has CRLF, lone CRs and invalid UTF-8 on both grounds, since the flows
//! leave nothing unreconciled there.
//!
//! # Reproducibility and the draw order
//!
//! The PRNG is [`ChaCha8Rng`](rand_chacha::ChaCha8Rng)`::seed_from_u64(seed)`,
//! whose stream is fixed by its specification on every platform. Only integer draws are used:
//! every draw is one `next_u64` mapped to `0..n` by the multiply-shift
//! `(x · n) >> 64`, and a percentage is `below(100) < p`. A plan's JSON is
//! therefore the same bytes everywhere for the same seed, root, options
//! and [`VERSION`]. **Any change to the order below, to a weight table or
//! to a vocabulary changes plans and must bump [`VERSION`]** (and the
//! golden hashes in this module's tests).
//!
//! 1. *Shape*: the directory count (`3 + below(6)`), then per directory:
//!    chain-or-pick (`percent(50)`), the parent (a pick, only when not
//!    chaining), the name.
//! 2. *Files*, for each index `0..files`: directory, name form, stem,
//!    extension, then the content ([`content`'s order](#content-draws)).
//! 3. *Extras*, only when `files > 0`: two skip-list directories (name,
//!    parent, deep?), one skip-list name used as a file (name, parent),
//!    each name being two draws (undotted?, pick); on the full ground, in
//!    this order, a link to a file, a link to a directory, a dangling link,
//!    link loops, a link to the parent, an unreadable directory, an
//!    unreadable file and an empty directory, each gated by one percentage
//!    draw followed (when it passes) by its picks; then the `.gitignore` files: the nested count, the nested
//!    directories, and per file (root first) the rule count, per rule the
//!    form, a file pick, a directory pick, the form's own pick (if any) and
//!    the negation draw (comments, blanks and malformed lines take no
//!    negation draw), and on the full ground the CRLF and BOM draws.
//! 4. *Grep calls*, `calls` of them, each: pattern (its grammar branch,
//!    then that branch's draws), `fixedStrings`, case mode, globs (count,
//!    then each glob), `beforeContext`, `afterContext`, `maxCount`
//!    (present?, then its value), `filesWithMatches`, `hidden`,
//!    `noIgnore`, `symbols`, `limit`, root.
//! 5. *Glob calls*, `calls` of them, each: pattern (one glob), `hidden`,
//!    `noIgnore`, `limit` (bucket, then a value in it), root.
//! 6. *File-flow fixture* (version 2), only when `files > 0`: the number of
//!    `read` fixture files, each one's kind and that kind's draws; the
//!    listed directory's size (bucket, then a value), per entry a
//!    directory-or-file draw; on the full ground a dangling link and a link
//!    to the parent, each gated by one percentage draw.
//! 7. *Read calls*, `calls` of them, each: target (kind, then its pick or
//!    spelling), `offset` (kind, then its value), `limit` (likewise).
//! 8. *Ls calls*, `calls` of them, each: target (kind, then its pick and,
//!    for a directory, the trailing-`/` draw), `offset`, `limit`.
//!
//! Steps 6–8 come after every earlier draw, so version 2 kept each seed's
//! tree (plus the fixture) and its grep and glob calls from version 1. The
//! fixture lives under `flows.fixture/node_modules/`, a skip-listed
//! directory (§7.3) that none of those calls can reach, so their answers
//! are version 1's too. It holds, on both grounds, what the file flows of
//! `read-ls-flows.md` need: around 2,000 lines, lines around 2,000
//! scalars, pages around 60,000 bytes, CRLF and lone CRs, NULs, invalid
//! UTF-8, a BOM, empty and newline-only files, and a directory of 0–1,005
//! entries whose names need UTF-16 order (and, on the full ground, links).
//! `read` calls name fixture files, tree files, notable entries,
//! directories, missing paths and the root; `ls` calls the fixture's
//! directory, tree directories, the root, files, missing paths and notable
//! entries; offsets and limits are absent, 1, small, at or past the count,
//! around the 2,000 / 1,000 caps, huge, or 0 (which the flows refuse).
//!
//! A glob is: its form, a file pick, a directory pick, the form's own pick
//! (if any), the negation draw. A root is: its kind, then for a directory a
//! pick and a spelling draw, for a file or notable entry a pick, for a
//! missing path one of three spellings.
//!
//! <a id="content-draws"></a>Content: the kind, then the kind's own draws,
//! then (full ground only) CRLF, invalid UTF-8 (and where), BOM, then the
//! final-newline draw. The empty and newline-only kinds draw nothing after
//! the kind.
//!
//! Draws whose result is thrown away (a path already taken, a pick from an
//! empty list) are still made, so the order never depends on them.
//!
//! Since version 3, a drawn grep or glob call that validation refuses
//! (search-contract §3–§5) is not put at the peer seam, which receives only
//! validated input, but in [`Plan::flow`] as the same request to the whole
//! flow, where refusing it with the exact error is the contract. The draws
//! are the same; a seam call carries the normalised input.
//!
//! ```
//! use lawsuite::kit::generator::{plan, GeneratorOptions, Ground, GENERATOR, VERSION};
//!
//! let options = GeneratorOptions { ground: Ground::Full, ..GeneratorOptions::default() };
//! let first = plan(7, "/r", &options);
//! assert_eq!((first.generator.as_str(), first.version, first.seed), (GENERATOR, VERSION, 7));
//! // 16 grep and 16 glob draws: at the seam when validation passes them,
//! // else asked of the flow (`flow/grep`, `flow/glob`).
//! assert_eq!(first.grep.len() + first.glob.len() + first.flow.len(), 32);
//! assert_eq!((first.read.len(), first.ls.len()), (16, 16));
//! // Every call's root is the plan root or the plan root plus "/…".
//! assert!(first.grep.iter().all(|call| call.root == "/r" || call.root.starts_with("/r/")));
//! // Same seed, same bytes.
//! assert_eq!(serde_json::to_string(&first)?, serde_json::to_string(&plan(7, "/r", &options))?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::call::Call;
use crate::contract::skip::SKIP_LIST;
use crate::contract::{GlobInput, GlobRequest, GrepInput, GrepRequest};
use crate::flows::{LsRequest, ReadRequest};
use crate::kit::draws::Draws;
use crate::kit::plan::{FileKind, GeneratedFile, Plan};

/// The name recorded in [`Plan::generator`].
pub const GENERATOR: &str = "lawsuite";

/// The version recorded in [`Plan::version`]. Bump it with any change to
/// the draw order, a weight table or a vocabulary (see the module doc), so
/// that a regression file is never replayed against a different tree.
pub const VERSION: u32 = 3;

/// Deepest directory level the shape step creates (the root is level 0).
const MAX_DEPTH: usize = 5;

/// The ground a plan covers: the peer seam's [`Ground`], re-exported here
/// because the generator is what it chooses between.
pub use crate::peer::Ground;

/// How big a plan to generate, and over which ground.
///
/// ```
/// use lawsuite::kit::generator::{GeneratorOptions, Ground};
/// let options: GeneratorOptions = serde_json::from_str(r#"{"ground":"full"}"#)?;
/// assert_eq!(options, GeneratorOptions { files: 24, calls: 16, ground: Ground::Full });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GeneratorOptions {
    /// Generated files, before the extras (skip-list directories,
    /// `.gitignore` files, full-ground links…), which are added only when
    /// this is non-zero. A file whose drawn path is already taken is
    /// dropped, so a plan may hold fewer.
    pub files: usize,
    /// Grep calls, and separately glob calls.
    pub calls: usize,
    /// The ground to cover.
    pub ground: Ground,
}

impl Default for GeneratorOptions {
    /// 24 files, 16 calls of each kind, the shared ground.
    fn default() -> GeneratorOptions {
        GeneratorOptions {
            files: 24,
            calls: 16,
            ground: Ground::Shared,
        }
    }
}

/// Directory names for the shape step: spaces, non-ASCII, dots, a leading
/// dash, hidden ones, and names `.gitignore` rules like to mention.
const DIR_NAMES: [&str; 20] = [
    "src",
    "lib",
    "one",
    "two",
    "deep",
    "nested",
    "with space",
    "café",
    "数据",
    "😀dir",
    "v1.2",
    "-dash",
    "a-b",
    "tests",
    ".hidden",
    ".config",
    "cache",
    "frames",
    "sub",
    "build",
];

/// File stems; the index is appended, so names never collide by stem.
const STEMS: [&str; 12] = [
    "alpha",
    "Beta",
    "gamma",
    "with space",
    "e-psilon",
    "ze_ta",
    "th.eta",
    "café",
    "日本",
    "😀",
    "naïve",
    "needle",
];

/// File extensions, `""` for none.
const EXTENSIONS: [&str; 10] = [
    ".ts", ".js", ".txt", ".py", ".md", ".rs", ".tmp", ".log", ".d.ts", "",
];

/// How a file name is built from stem, index and extension.
#[derive(Clone, Copy, Debug, Default)]
enum NameForm {
    /// `{stem}{index}{ext}`
    #[default]
    Plain,
    /// `.{stem}{index}{ext}`
    Hidden,
    /// `-{stem}{index}{ext}`
    Dash,
    /// `{stem}.{index}.bak{ext}`
    Dotted,
    /// `{stem}{index}`
    Bare,
    /// `{stem} {index}{ext}`
    Spaced,
}

const NAME_FORMS: [(usize, NameForm); 6] = [
    (60, NameForm::Plain),
    (12, NameForm::Hidden),
    (7, NameForm::Dash),
    (7, NameForm::Dotted),
    (7, NameForm::Bare),
    (7, NameForm::Spaced),
];

/// The line vocabulary. No line holds `\r` or `\n` (no lone CR, README Q3).
const LINES: [&str; 32] = [
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
const EDGE_FILL: [&str; 3] = ["x", "é", "😀"];
const EDGE_LAST: [&str; 4] = ["x", "é", "😀", "日"];

/// Invalid UTF-8 (full ground): a stray byte, a cut sequence, a surrogate,
/// an overlong encoding. None holds `\r` or `\n`.
const INVALID_UTF8: [&[u8]; 4] = [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf"];

/// What a generated file holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum ContentKind {
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

/// Literals holding regex metacharacters: some are invalid as regexes,
/// some valid but find nothing, so the flow layer retries them literally
/// (§18).
const META_LITERALS: [&str; 14] = [
    "compute(a, b)",
    "foo?",
    "a+b",
    "x*y",
    "[z]",
    "$5.00",
    "(approx.)",
    "{braces}",
    "x^2",
    "back\\slash",
    "widen(value)",
    "path/to/file.txt",
    "needle?",
    "a|b",
];

/// Patterns the validator refuses (§10): unbalanced or stacked syntax,
/// lookaround, shorthand classes, empty or reversed classes, counts and
/// budgets over the limits.
const INVALID_PATTERNS: [&str; 20] = [
    "(",
    "a**",
    "(?=x)",
    "\\d",
    "[",
    ")",
    "]",
    "}",
    "{1}",
    "*needle",
    "[z-a]",
    "a{3,2}",
    "a{1001}",
    "[]",
    "\\-",
    "needle\\",
    "a{2}{3}",
    "(?i)needle",
    "[a&&b]",
    "(a{1000}){9}",
];

/// Patterns outside printable ASCII, refused even as fixed strings (§10
/// check 2).
const NON_ASCII_PATTERNS: [&str; 5] = ["café", "naïve", "日本", "needle\t", "😀"];

/// Regex atoms other than words.
const CLASSES: [&str; 8] = [
    "[a-z]", "[^x]", "[A-Z]", "[0-9]", "[aeiou]", "[.$]", "[^ ]", "[\\]]",
];
const ESCAPES: [&str; 12] = [
    "\\.", "\\(", "\\)", "\\[", "\\*", "\\+", "\\?", "\\$", "\\^", "\\{", "\\|", "\\\\",
];
const QUANTIFIERS: [&str; 9] = ["*", "+", "?", "{2}", "{1,3}", "{0,}", "*?", "{0,2}", "+?"];

/// Words for patterns when the tree has none of its own.
const FALLBACK_WORDS: [&str; 3] = ["needle", "Needle", "widen"];

#[derive(Clone, Copy, Debug, Default)]
enum PatternKind {
    #[default]
    Word,
    Regex,
    MetaLiteral,
    Invalid,
    NonAscii,
    Empty,
    Long,
}

const PATTERN_KINDS: [(usize, PatternKind); 7] = [
    (26, PatternKind::Word),
    (38, PatternKind::Regex),
    (14, PatternKind::MetaLiteral),
    (12, PatternKind::Invalid),
    (5, PatternKind::NonAscii),
    (3, PatternKind::Empty),
    (2, PatternKind::Long),
];

#[derive(Clone, Copy, Debug, Default)]
enum Atom {
    #[default]
    Word,
    Dot,
    Class,
    Escape,
    Group,
}

const ATOMS: [(usize, Atom); 5] = [
    (40, Atom::Word),
    (12, Atom::Dot),
    (18, Atom::Class),
    (12, Atom::Escape),
    (18, Atom::Group),
];

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum CaseMode {
    #[default]
    Sensitive,
    Ignore,
    Smart,
    /// Both flags: "ignoreCase wins" at the peer level (conformance-kit §6
    /// item 3).
    Both,
}

const CASE_MODES: [(usize, CaseMode); 4] = [
    (55, CaseMode::Sensitive),
    (20, CaseMode::Ignore),
    (22, CaseMode::Smart),
    (3, CaseMode::Both),
];

const GLOB_COUNTS: [(usize, usize); 4] = [(45, 0), (30, 1), (15, 2), (10, 3)];

const GREP_LIMITS: [(usize, u64); 6] = [(6, 0), (10, 1), (10, 2), (20, 5), (24, 40), (30, 200)];

#[derive(Clone, Copy, Debug, Default)]
enum GlobLimit {
    Zero,
    #[default]
    Small,
    Medium,
    Large,
    Max,
}

const GLOB_LIMITS: [(usize, GlobLimit); 5] = [
    (5, GlobLimit::Zero),
    (35, GlobLimit::Small),
    (35, GlobLimit::Medium),
    (15, GlobLimit::Large),
    (10, GlobLimit::Max),
];

#[derive(Clone, Copy, Debug, Default)]
enum GlobForm {
    #[default]
    Ext,
    DeepExt,
    Brace,
    DirAll,
    Anchored,
    DotSlash,
    Basename,
    TrailingSpace,
    Question,
    Stars,
    BareDir,
    Invalid,
}

const GLOB_FORMS: [(usize, GlobForm); 12] = [
    (14, GlobForm::Ext),
    (12, GlobForm::DeepExt),
    (8, GlobForm::Brace),
    (10, GlobForm::DirAll),
    (8, GlobForm::Anchored),
    (6, GlobForm::DotSlash),
    (10, GlobForm::Basename),
    (6, GlobForm::TrailingSpace),
    (5, GlobForm::Question),
    (5, GlobForm::Stars),
    (4, GlobForm::BareDir),
    (6, GlobForm::Invalid),
];

const GLOB_EXTS: [&str; 7] = [".ts", ".js", ".txt", ".py", ".md", ".d.ts", ".tmp"];
const BRACE_GLOBS: [&str; 5] = [
    "*.{ts,js}",
    "**/*.{md,txt}",
    "{src,lib}/**",
    "*{.ts,}",
    "**/{alpha,Beta}*",
];
const QUESTION_GLOBS: [&str; 4] = ["?.ts", "??.txt", "*?.md", "?????*"];
const STAR_GLOBS: [&str; 4] = ["**", "*", "**/*", "a**b"];
/// Globs the flow layer refuses (§8.1).
const INVALID_GLOBS: [&str; 8] = [
    "[ab].ts",
    "{a}",
    "{a,b",
    "",
    "   ",
    "é*.txt",
    "a\\b",
    "{a,{b,c}}",
];

#[derive(Clone, Copy, Debug, Default)]
enum RootKind {
    #[default]
    Root,
    Dir,
    File,
    Notable,
    Missing,
}

const ROOT_KINDS: [(usize, RootKind); 5] = [
    (50, RootKind::Root),
    (16, RootKind::Dir),
    (14, RootKind::File),
    (12, RootKind::Notable),
    (8, RootKind::Missing),
];

#[derive(Clone, Copy, Debug, Default)]
enum Rule {
    #[default]
    Ext,
    Base,
    Anchored,
    DirOnly,
    DeepBase,
    DirAll,
    DirDeep,
    Class,
    Comment,
    Blank,
    Trailing,
    Malformed,
}

const RULES: [(usize, Rule); 12] = [
    (14, Rule::Ext),
    (14, Rule::Base),
    (10, Rule::Anchored),
    (10, Rule::DirOnly),
    (6, Rule::DeepBase),
    (6, Rule::DirAll),
    (4, Rule::DirDeep),
    (4, Rule::Class),
    (6, Rule::Comment),
    (5, Rule::Blank),
    (5, Rule::Trailing),
    (6, Rule::Malformed),
];

/// The skip-list names that do not start with `.`.
const UNDOTTED_SKIPS: [&str; 3] = ["worktrees", "node_modules", "__pycache__"];

const IGNORE_EXTS: [&str; 6] = [".tmp", ".log", ".md", ".js", ".d.ts", ".txt"];
const CLASS_RULES: [&str; 5] = ["[ab]*", "[!a]*.txt", "[a-m]*.ts", "?.tmp", "??.tmp"];
const COMMENT_RULES: [&str; 3] = ["# comment", "#needle.txt", "  # indented, so a rule"];
const BLANK_RULES: [&str; 2] = ["", "   "];
const MALFORMED_RULES: [&str; 5] = ["[z-a]", "{broken", "bad}.txt", "invalid\\", "[z-a].txt"];

/// What the tree holds, and the names later steps draw from.
#[derive(Default)]
struct Tree {
    /// The plan's entries, in generation order.
    entries: Vec<GeneratedFile>,
    /// Directories files may be placed in, `""` (the root) first; a
    /// directory nothing lands in never exists on disk.
    dirs: Vec<String>,
    /// Paths of entries that are not directories (files and links).
    leaves: HashSet<String>,
    /// Every directory path claimed, including all ancestors of entries.
    claimed_dirs: HashSet<String>,
    /// ASCII words of the lines written, in first-use order.
    words: Vec<String>,
    word_set: HashSet<String>,
    /// Paths worth using as explicit roots: hidden, binary, skipped,
    /// ignored-looking, linked, unreadable.
    notable: Vec<String>,
}

impl Tree {
    /// Whether `path` can be a new leaf: not taken, not a directory, and no
    /// ancestor is a leaf.
    fn leaf_free(&self, path: &str) -> bool {
        !self.leaves.contains(path)
            && !self.claimed_dirs.contains(path)
            && ancestors(path).all(|dir| !self.leaves.contains(dir))
    }

    /// Whether `path` can be (or already is) a directory.
    fn dir_free(&self, path: &str) -> bool {
        !self.leaves.contains(path) && ancestors(path).all(|dir| !self.leaves.contains(dir))
    }

    fn claim_dir(&mut self, path: &str) -> bool {
        if !self.dir_free(path) {
            return false;
        }
        for dir in ancestors(path).chain(std::iter::once(path)) {
            self.claimed_dirs.insert(dir.to_string());
        }
        true
    }

    /// Adds a file or symlink entry if its path is free.
    fn add_leaf(&mut self, entry: GeneratedFile) -> bool {
        if !self.leaf_free(&entry.path) {
            return false;
        }
        for dir in ancestors(&entry.path) {
            self.claimed_dirs.insert(dir.to_string());
        }
        self.leaves.insert(entry.path.clone());
        self.entries.push(entry);
        true
    }

    /// Adds a directory entry if its path can be a directory.
    fn add_dir(&mut self, entry: GeneratedFile) -> bool {
        if !self.claim_dir(&entry.path) {
            return false;
        }
        self.entries.push(entry);
        true
    }

    fn note(&mut self, path: &str) {
        self.notable.push(path.to_string());
    }

    fn learn_words(&mut self, line: &str) {
        for word in line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if word.len() >= 2 && self.word_set.insert(word.to_string()) {
                self.words.push(word.to_string());
            }
        }
    }

    /// Regular files, in entry order.
    fn files(&self) -> Vec<String> {
        self.entries
            .iter()
            .filter(|entry| entry.kind == FileKind::File)
            .map(|entry| entry.path.clone())
            .collect()
    }

    /// Directories that will exist on disk, in first-seen order, root
    /// excluded.
    fn existing_dirs(&self) -> Vec<String> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for entry in &self.entries {
            let own = (entry.kind == FileKind::Dir).then_some(entry.path.as_str());
            for dir in ancestors(&entry.path).chain(own) {
                if seen.insert(dir) {
                    out.push(dir.to_string());
                }
            }
        }
        out
    }
}

/// The proper ancestors of a `/`-separated path, shallowest first
/// (`a/b/c` → `a`, `a/b`).
fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    path.match_indices('/').map(move |(at, _)| &path[..at])
}

/// `dir/name`, or `name` at the root.
fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// Directory depth: `""` is 0, `a` is 1, `a/b` is 2.
fn depth(dir: &str) -> usize {
    if dir.is_empty() {
        0
    } else {
        dir.matches('/').count() + 1
    }
}

/// The last segment of a path.
fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The first segment of a path.
fn first_segment(path: &str) -> &str {
    path.split('/').next().unwrap_or(path)
}

/// A link target reaching `to` (root-relative) from a link in `from_dir`.
fn relative(from_dir: &str, to: &str) -> String {
    let mut parts = vec![".."; depth(from_dir)];
    if !to.is_empty() {
        parts.push(to);
    }
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

/// Builds a plan for `seed`: the tree, then `options.calls` grep calls,
/// as many glob calls, then (version 2) the file-flow fixture and as many
/// `read` and `ls` calls (draw order in the module doc).
///
/// Every call's `root` (or `path`) is `root` itself or `"{root}/{relative}"`
/// by plain concatenation (as in [`crate::kit::smthrs::plan`]), so a caller
/// can rebase a plan by replacing that prefix. The tree holds at most
/// `options.files` generated files plus extras: five skip-list entries,
/// three `.gitignore` files, and on the full ground at most eleven links,
/// directories and unreadable entries; and the file-flow fixture under
/// `flows.fixture/node_modules/`, which grep and glob never see: at most
/// five files for `read`, a directory of at most 1,005 entries for `ls`,
/// and two links. Nothing here panics, whatever the options.
///
/// ```
/// use lawsuite::kit::generator::{plan, GeneratorOptions};
/// use lawsuite::kit::materialize::TempTree;
///
/// let plan = plan(0, "/r", &GeneratorOptions::default());
/// let fixture = plan.files.iter().filter(|f| f.path.starts_with("flows.fixture/")).count();
/// assert!(plan.files.len() - fixture <= 24 + 5 + 3);
/// assert!(fixture <= 5 + 1 + 1005);
/// let tree = TempTree::with_files(&plan.files)?;
/// assert!(tree.path().join(".gitignore").is_file());
/// assert!(plan.ls.iter().all(|call| call.path.starts_with("/r")));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn plan(seed: u64, root: &str, options: &GeneratorOptions) -> Plan {
    let mut draws = Draws::seeded(seed);
    let full = options.ground == Ground::Full;
    let mut tree = Tree::default();

    shape(&mut draws, &mut tree);
    for index in 0..options.files {
        generated_file(&mut draws, &mut tree, index, full);
    }
    if options.files > 0 {
        skip_list_extras(&mut draws, &mut tree);
        if full {
            full_extras(&mut draws, &mut tree);
        }
        gitignores(&mut draws, &mut tree, full);
    }

    let context = CallContext::new(&tree, root);
    // A drawn input that validation refuses goes to the flow (version 3):
    // the seam gets only validated input, as the contract promises a peer.
    // The draws are the same; only where a call goes changed.
    let mut flow = Vec::new();
    let mut grep = Vec::new();
    for _ in 0..options.calls {
        let input = grep_call(&mut draws, &context);
        match seam_or_flow_grep(input) {
            Ok(input) => grep.push(input),
            Err(call) => flow.push(*call),
        }
    }
    let mut glob = Vec::new();
    for _ in 0..options.calls {
        let input = glob_call(&mut draws, &context);
        match seam_or_flow_glob(input) {
            Ok(input) => glob.push(input),
            Err(call) => flow.push(*call),
        }
    }

    // Everything for the file flows is drawn after every grep and glob
    // draw, so those calls are the same for a seed as before they existed.
    let fixture = if options.files > 0 {
        flow_fixture(&mut draws, &mut tree, full)
    } else {
        Vec::new()
    };
    let flows = FlowContext::new(&context, &tree, fixture);
    let read = (0..options.calls)
        .map(|_| read_call(&mut draws, &flows))
        .collect();
    let ls = (0..options.calls)
        .map(|_| ls_call(&mut draws, &flows))
        .collect();

    Plan {
        generator: GENERATOR.to_string(),
        version: VERSION,
        seed,
        ground: options.ground,
        root: root.to_string(),
        files: tree.entries,
        grep,
        glob,
        read,
        ls,
        flow,
    }
}

/// `input` normalised for the seam when validation passes it
/// (search-contract §3: the pattern, the globs, the numbers); else the same
/// call as a caller's request to the whole grep flow.
fn seam_or_flow_grep(input: GrepInput) -> Result<GrepInput, Box<Call>> {
    let request = GrepRequest {
        pattern: input.pattern.clone(),
        root: Some(input.root.clone()),
        fixed_strings: Some(input.fixed_strings),
        ignore_case: Some(input.ignore_case),
        smart_case: Some(input.smart_case),
        globs: Some(input.globs.clone()),
        before_context: Some(input.before_context),
        after_context: Some(input.after_context),
        context: None,
        max_count: input.max_count,
        files_with_matches: Some(input.files_with_matches),
        hidden: Some(input.hidden),
        symbols: Some(input.symbols),
        no_ignore: Some(input.no_ignore),
        limit: Some(input.limit),
    };
    // The seam gets what the flow would hand a peer: the normalised input.
    crate::contract::normalize_grep(&request).map_err(|_| Box::new(Call::FlowGrep(request)))
}

/// As [`seam_or_flow_grep`], for a glob call (search-contract §5).
fn seam_or_flow_glob(input: GlobInput) -> Result<GlobInput, Box<Call>> {
    let request = GlobRequest {
        pattern: input.pattern.clone(),
        root: Some(input.root.clone()),
        hidden: Some(input.hidden),
        no_ignore: Some(input.no_ignore),
        limit: Some(input.limit),
    };
    crate::contract::normalize_glob(&request).map_err(|_| Box::new(Call::FlowGlob(request)))
}

/// Step 1: the directories files will be placed in.
fn shape(draws: &mut Draws, tree: &mut Tree) {
    tree.dirs.push(String::new());
    let count = 3 + draws.below(6);
    for _ in 0..count {
        // Chaining onto the newest directory makes deep trees likely.
        let chain = draws.percent(50);
        let mut parent = if chain {
            tree.dirs.last().cloned().unwrap_or_default()
        } else {
            draws.pick(&tree.dirs).cloned().unwrap_or_default()
        };
        if depth(&parent) >= MAX_DEPTH {
            parent.clear();
        }
        let path = join(&parent, draws.word(&DIR_NAMES));
        if !tree.claimed_dirs.contains(&path) && tree.claim_dir(&path) {
            tree.dirs.push(path);
        }
    }
}

/// Step 2: one generated file.
fn generated_file(draws: &mut Draws, tree: &mut Tree, index: usize, full: bool) {
    let dir = draws.pick(&tree.dirs).cloned().unwrap_or_default();
    let form = draws.weighted(&NAME_FORMS);
    let stem = draws.word(&STEMS);
    let ext = draws.word(&EXTENSIONS);
    let name = match form {
        NameForm::Plain => format!("{stem}{index}{ext}"),
        NameForm::Hidden => format!(".{stem}{index}{ext}"),
        NameForm::Dash => format!("-{stem}{index}{ext}"),
        NameForm::Dotted => format!("{stem}.{index}.bak{ext}"),
        NameForm::Bare => format!("{stem}{index}"),
        NameForm::Spaced => format!("{stem} {index}{ext}"),
    };
    let path = join(&dir, &name);
    let (content, kind) = content(draws, tree, full);
    let hidden = path.split('/').any(|segment| segment.starts_with('.'));
    let ignorable = ext == ".tmp" || ext == ".log";
    if tree.add_leaf(GeneratedFile::new(path.clone(), content))
        && (hidden || ignorable || kind == ContentKind::Binary)
    {
        tree.note(&path);
    }
}

/// A file's bytes and kind (draw order in the module doc).
fn content(draws: &mut Draws, tree: &mut Tree, full: bool) -> (Vec<u8>, ContentKind) {
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

/// Step 3a: skip-list directories with contents, and a skip-list name used
/// as a file (§7.3).
fn skip_list_extras(draws: &mut Draws, tree: &mut Tree) {
    for k in 0..2 {
        let name = skip_name(draws);
        let parent = draws.pick(&tree.dirs).cloned().unwrap_or_default();
        let deep = draws.percent(50);
        let dir = join(&parent, name);
        let inner = join(&dir, &format!("inner{k}.ts"));
        if tree.add_leaf(GeneratedFile::new(
            inner.clone(),
            "needle in a skipped dir\n",
        )) {
            tree.note(&inner);
        }
        if deep {
            let nested = join(&dir, &format!("pkg/deep{k}.js"));
            tree.add_leaf(GeneratedFile::new(nested, "needle deeper\n"));
        }
    }
    let name = skip_name(draws);
    let parent = draws.pick(&tree.dirs).cloned().unwrap_or_default();
    let path = join(&parent, name);
    if tree.add_leaf(GeneratedFile::new(
        path.clone(),
        "needle in a file named like a skipped dir\n",
    )) {
        tree.note(&path);
    }
}

/// A skip-list name, half the time one without a leading dot: those are
/// the names the skip list alone hides when `hidden` is false (§7.3).
fn skip_name(draws: &mut Draws) -> &'static str {
    if draws.percent(50) {
        draws.word(&UNDOTTED_SKIPS)
    } else {
        draws.word(&SKIP_LIST)
    }
}

/// Step 3b (full ground): links, unreadable entries, an empty directory.
fn full_extras(draws: &mut Draws, tree: &mut Tree) {
    // A link to a file.
    if draws.percent(80) {
        let dir = draws.pick(&tree.dirs).cloned().unwrap_or_default();
        let files = tree.files();
        if let Some(target) = draws.pick(&files) {
            let link = join(&dir, "link-file");
            let to = relative(&dir, target);
            if tree.add_leaf(GeneratedFile::symlink(link.clone(), to)) {
                tree.note(&link);
            }
        }
    }
    // A link to a directory (never descended, §7.4).
    if draws.percent(60) {
        let dir = draws.pick(&tree.dirs).cloned().unwrap_or_default();
        let existing = tree.existing_dirs();
        if let Some(target) = draws.pick(&existing) {
            let link = join(&dir, "link-dir");
            let to = relative(&dir, target);
            if tree.add_leaf(GeneratedFile::symlink(link.clone(), to)) {
                tree.note(&link);
            }
        }
    }
    // A dangling link.
    if draws.percent(60) {
        let dir = draws.pick(&tree.dirs).cloned().unwrap_or_default();
        let link = join(&dir, "dangling");
        if tree.add_leaf(GeneratedFile::symlink(link.clone(), "missing/nowhere.txt")) {
            tree.note(&link);
        }
    }
    // A two-link loop and a self loop.
    if draws.percent(50) {
        let dir = draws.pick(&tree.dirs).cloned().unwrap_or_default();
        tree.add_leaf(GeneratedFile::symlink(join(&dir, "loop-a"), "loop-b"));
        tree.add_leaf(GeneratedFile::symlink(join(&dir, "loop-b"), "loop-a"));
        let own = join(&dir, "self-loop");
        if tree.add_leaf(GeneratedFile::symlink(own.clone(), "self-loop")) {
            tree.note(&own);
        }
    }
    // A link to an ancestor directory: a cycle for any walker that follows
    // directory links.
    if draws.percent(40) {
        let dir = draws.pick(&tree.dirs).cloned().unwrap_or_default();
        let to = if dir.is_empty() { "." } else { ".." };
        tree.add_leaf(GeneratedFile::symlink(join(&dir, "up"), to));
    }
    // An unreadable directory holding a match; its mode is applied last.
    if draws.percent(55) {
        let parent = draws.pick(&tree.dirs).cloned().unwrap_or_default();
        let locked = join(&parent, "locked");
        if tree.dir_free(&locked) && !tree.claimed_dirs.contains(&locked) {
            tree.add_leaf(GeneratedFile::new(join(&locked, "secret.txt"), "needle\n"));
            if tree.add_dir(GeneratedFile::dir(locked.clone()).with_mode(0o000)) {
                tree.note(&locked);
            }
        }
    }
    // An unreadable file.
    if draws.percent(35) {
        let dir = draws.pick(&tree.dirs).cloned().unwrap_or_default();
        let path = join(&dir, "unreadable.txt");
        if tree.add_leaf(GeneratedFile::new(path.clone(), "needle\n").with_mode(0o000)) {
            tree.note(&path);
        }
    }
    // An empty directory.
    if draws.percent(50) {
        let parent = draws.pick(&tree.dirs).cloned().unwrap_or_default();
        let path = join(&parent, "empty");
        if !tree.claimed_dirs.contains(&path) {
            tree.add_dir(GeneratedFile::dir(path));
        }
    }
}

/// Step 3c: the root `.gitignore` and one or two nested ones.
fn gitignores(draws: &mut Draws, tree: &mut Tree, full: bool) {
    let nested = 1 + draws.below(2);
    let mut scopes = vec![String::new()];
    for _ in 0..nested {
        let candidates: Vec<String> = tree.dirs.iter().skip(1).cloned().collect();
        if let Some(dir) = draws.pick(&candidates) {
            if !scopes.contains(dir) {
                scopes.push(dir.clone());
            }
        }
    }
    for scope in scopes {
        let text = ignore_file(draws, tree, &scope, full);
        tree.add_leaf(GeneratedFile::new(join(&scope, ".gitignore"), text));
    }
}

/// One `.gitignore`'s bytes, its rules drawn from the names under `scope`.
fn ignore_file(draws: &mut Draws, tree: &mut Tree, scope: &str, full: bool) -> Vec<u8> {
    let prefix = if scope.is_empty() {
        String::new()
    } else {
        format!("{scope}/")
    };
    let files: Vec<String> = tree
        .entries
        .iter()
        .filter(|entry| entry.kind != FileKind::Dir)
        .filter_map(|entry| entry.path.strip_prefix(&prefix).map(str::to_string))
        .collect();
    let dirs: Vec<String> = tree
        .existing_dirs()
        .iter()
        .filter_map(|dir| dir.strip_prefix(&prefix).map(str::to_string))
        .collect();

    let mut lines = Vec::new();
    for _ in 0..2 + draws.below(5) {
        let form = draws.weighted(&RULES);
        let file = draws.pick(&files).cloned();
        let dir = draws.pick(&dirs).cloned();
        let rule = match (form, file, dir) {
            (Rule::Comment, ..) => {
                lines.push(draws.word(&COMMENT_RULES).to_string());
                continue;
            }
            (Rule::Blank, ..) => {
                lines.push(draws.word(&BLANK_RULES).to_string());
                continue;
            }
            (Rule::Malformed, ..) => {
                lines.push(draws.word(&MALFORMED_RULES).to_string());
                continue;
            }
            (Rule::Class, ..) => draws.word(&CLASS_RULES).to_string(),
            (Rule::Base, Some(file), _) => basename(&file).to_string(),
            (Rule::Anchored, Some(file), _) => format!("/{}", first_segment(&file)),
            (Rule::DirOnly, _, Some(dir)) => format!("{}/", basename(&dir)),
            (Rule::DeepBase, Some(file), _) => format!("**/{}", basename(&file)),
            (Rule::DirAll, _, Some(dir)) => format!("{dir}/**"),
            (Rule::DirDeep, Some(file), Some(dir)) => {
                format!("{}/**/{}", first_segment(&dir), basename(&file))
            }
            (Rule::Trailing, Some(file), _) => format!("{}   ", basename(&file)),
            // `Ext`, and every form whose names the scope lacks.
            _ => format!("*{}", draws.word(&IGNORE_EXTS)),
        };
        let negated = draws.percent(25);
        if let Some(named) = files.iter().find(|file| rule.trim_end() == basename(file)) {
            let path = join(scope, named);
            tree.note(&path);
        }
        lines.push(if negated { format!("!{rule}") } else { rule });
    }

    let (crlf, bom) = if full {
        (draws.percent(15), draws.percent(10))
    } else {
        (false, false)
    };
    let terminator = if crlf { "\r\n" } else { "\n" };
    let mut text = String::new();
    if bom {
        text.push('\u{feff}');
    }
    for line in lines {
        text.push_str(&line);
        text.push_str(terminator);
    }
    text.into_bytes()
}

/// What calls draw from: the root, and the tree's names.
struct CallContext<'a> {
    root: &'a str,
    /// Regular files, root-relative.
    files: Vec<String>,
    /// Directories that exist, root-relative, root excluded.
    dirs: Vec<String>,
    notable: Vec<String>,
    /// ASCII words of the tree's lines.
    words: Vec<String>,
}

impl CallContext<'_> {
    fn new<'a>(tree: &Tree, root: &'a str) -> CallContext<'a> {
        let words = if tree.words.is_empty() {
            FALLBACK_WORDS.iter().map(|word| word.to_string()).collect()
        } else {
            tree.words.clone()
        };
        CallContext {
            root,
            files: tree.files(),
            dirs: tree.existing_dirs(),
            notable: tree.notable.clone(),
            words,
        }
    }

    /// `{root}/{relative}` by plain concatenation.
    fn under(&self, relative: &str) -> String {
        format!("{}/{relative}", self.root)
    }
}

/// Step 4: one grep call.
fn grep_call(draws: &mut Draws, context: &CallContext<'_>) -> GrepInput {
    let (pattern, kind) = pattern(draws, context);
    // Metacharacter literals are the ones where fixedStrings matters most.
    let fixed_strings = draws.percent(match kind {
        PatternKind::MetaLiteral => 50,
        _ => 25,
    });
    let case = draws.weighted(&CASE_MODES);
    let glob_count = draws.weighted(&GLOB_COUNTS);
    let globs = (0..glob_count).map(|_| glob(draws, context)).collect();
    let before_context = draws.below(4) as u64;
    let after_context = draws.below(4) as u64;
    let max_count = if draws.percent(30) {
        Some(1 + draws.below(3) as u64)
    } else {
        None
    };
    let files_with_matches = draws.percent(20);
    let hidden = draws.percent(45);
    let no_ignore = draws.percent(25);
    let symbols = draws.percent(50);
    let limit = draws.weighted(&GREP_LIMITS);
    let root = call_root(draws, context);
    GrepInput {
        pattern,
        root,
        fixed_strings,
        ignore_case: matches!(case, CaseMode::Ignore | CaseMode::Both),
        smart_case: matches!(case, CaseMode::Smart | CaseMode::Both),
        globs,
        before_context,
        after_context,
        max_count,
        files_with_matches,
        hidden,
        no_ignore,
        symbols,
        limit,
    }
}

/// Step 5: one glob call.
fn glob_call(draws: &mut Draws, context: &CallContext<'_>) -> GlobInput {
    let pattern = glob(draws, context);
    let hidden = draws.percent(45);
    let no_ignore = draws.percent(25);
    let limit = match draws.weighted(&GLOB_LIMITS) {
        GlobLimit::Zero => 0,
        GlobLimit::Small => 1 + draws.below(5),
        GlobLimit::Medium => 6 + draws.below(45),
        GlobLimit::Large => 51 + draws.below(950),
        GlobLimit::Max => 1000,
    };
    let limit = limit as u64;
    let root = call_root(draws, context);
    GlobInput {
        pattern,
        root,
        hidden,
        no_ignore,
        limit,
    }
}

/// A grep pattern and the branch of the grammar it came from.
fn pattern(draws: &mut Draws, context: &CallContext<'_>) -> (String, PatternKind) {
    let kind = draws.weighted(&PATTERN_KINDS);
    let pattern = match kind {
        PatternKind::Word => word(draws, context),
        PatternKind::Regex => regex(draws, context),
        PatternKind::MetaLiteral => draws.word(&META_LITERALS).to_string(),
        PatternKind::Invalid => draws.word(&INVALID_PATTERNS).to_string(),
        PatternKind::NonAscii => draws.word(&NON_ASCII_PATTERNS).to_string(),
        PatternKind::Empty => String::new(),
        // At the 4096-byte limit (§10 check 1), or one past it.
        PatternKind::Long => "n".repeat(4096 + draws.below(2)),
    };
    (pattern, kind)
}

fn word(draws: &mut Draws, context: &CallContext<'_>) -> String {
    draws
        .pick(&context.words)
        .cloned()
        .unwrap_or_else(|| "needle".to_string())
}

/// A valid regex from the grammar: `^`? term{1,3} (`|` word)? `$`?, where a
/// term is a word, `.`, a class, an escaped metacharacter or a group of
/// alternatives, optionally quantified.
fn regex(draws: &mut Draws, context: &CallContext<'_>) -> String {
    let mut out = String::new();
    if draws.percent(20) {
        out.push('^');
    }
    for _ in 0..1 + draws.below(3) {
        match draws.weighted(&ATOMS) {
            Atom::Word => out.push_str(&word(draws, context)),
            Atom::Dot => out.push('.'),
            Atom::Class => out.push_str(draws.word(&CLASSES)),
            Atom::Escape => out.push_str(draws.word(&ESCAPES)),
            Atom::Group => {
                let alternatives: Vec<String> = (0..2 + draws.below(2))
                    .map(|_| word(draws, context))
                    .collect();
                out.push('(');
                out.push_str(&alternatives.join("|"));
                out.push(')');
            }
        }
        if draws.percent(35) {
            out.push_str(draws.word(&QUANTIFIERS));
        }
    }
    if draws.percent(15) {
        out.push('|');
        out.push_str(&word(draws, context));
    }
    if draws.percent(20) {
        out.push('$');
    }
    out
}

/// A glob from the grammar, `!`-negated a quarter of the time.
fn glob(draws: &mut Draws, context: &CallContext<'_>) -> String {
    let form = draws.weighted(&GLOB_FORMS);
    let file = draws.pick(&context.files).cloned();
    let dir = draws.pick(&context.dirs).cloned();
    let glob = match (form, file, dir) {
        (GlobForm::DeepExt, ..) => format!("**/*{}", draws.word(&GLOB_EXTS)),
        (GlobForm::Brace, ..) => draws.word(&BRACE_GLOBS).to_string(),
        (GlobForm::DirAll, _, Some(dir)) => format!("{dir}/**"),
        (GlobForm::Anchored, Some(file), _) => match file.split_once('/') {
            Some((top, _)) => format!("/{top}/**"),
            None => format!("/{file}"),
        },
        (GlobForm::DotSlash, Some(file), _) => format!("./{file}"),
        (GlobForm::Basename, Some(file), _) => basename(&file).to_string(),
        (GlobForm::TrailingSpace, ..) => format!("*{}  ", draws.word(&GLOB_EXTS)),
        (GlobForm::Question, ..) => draws.word(&QUESTION_GLOBS).to_string(),
        (GlobForm::Stars, ..) => draws.word(&STAR_GLOBS).to_string(),
        (GlobForm::BareDir, _, Some(dir)) => basename(&dir).to_string(),
        (GlobForm::Invalid, ..) => draws.word(&INVALID_GLOBS).to_string(),
        // `Ext`, and every form whose names the tree lacks.
        _ => format!("*{}", draws.word(&GLOB_EXTS)),
    };
    if draws.percent(25) {
        format!("!{glob}")
    } else {
        glob
    }
}

/// A call's root: the plan root, a directory (sometimes spelt with a
/// trailing `/` or a `./`), a file, a notable entry, or a missing path.
fn call_root(draws: &mut Draws, context: &CallContext<'_>) -> String {
    let root = || context.root.to_string();
    match draws.weighted(&ROOT_KINDS) {
        RootKind::Root => root(),
        RootKind::Dir => {
            let dir = draws.pick(&context.dirs).cloned();
            let spelling = draws.below(6);
            match (dir, spelling) {
                (None, _) => root(),
                (Some(dir), 0) => context.under(&format!("{dir}/")),
                (Some(dir), 1) => context.under(&format!("./{dir}")),
                (Some(dir), _) => context.under(&dir),
            }
        }
        RootKind::File => draws
            .pick(&context.files)
            .map_or_else(root, |file| context.under(file)),
        RootKind::Notable => draws
            .pick(&context.notable)
            .map_or_else(root, |path| context.under(path)),
        RootKind::Missing => match (draws.below(3), context.files.first()) {
            (0, _) | (_, None) => context.under("does-not-exist"),
            (1, _) => context.under("missing/deeper.txt"),
            // A file used as a directory: ENOTDIR, neither NotFound nor
            // PermissionDenied (§7.1).
            (_, Some(file)) => context.under(&format!("{file}/child")),
        },
    }
}

// ---------------------------------------------------------------------------
// Steps 6–8: the file-flow fixture and the `read` and `ls` calls.
// ---------------------------------------------------------------------------

/// Where the file-flow fixture lives: a skip-listed directory (§7.3) under a
/// name no vocabulary uses, so no grep or glob call of the plan ever sees
/// it (their roots were drawn before it existed) and their answers are the
/// ones the plan had without it.
const FLOW_FIXTURE: &str = "flows.fixture/node_modules";

/// The directory of the fixture that `ls` calls list.
const FLOW_LIST: &str = "flows.fixture/node_modules/list";

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

/// What a `read` call names.
#[derive(Clone, Copy, Debug, Default)]
enum ReadTarget {
    /// A fixture file.
    #[default]
    Fixture,
    /// A generated file of the tree.
    TreeFile,
    /// A notable entry (links, unreadable entries, skip-list names…).
    Notable,
    /// A directory.
    Dir,
    /// A missing path (three spellings).
    Missing,
    /// The plan root.
    Root,
}

const READ_TARGETS: [(usize, ReadTarget); 6] = [
    (50, ReadTarget::Fixture),
    (20, ReadTarget::TreeFile),
    (8, ReadTarget::Notable),
    (6, ReadTarget::Dir),
    (10, ReadTarget::Missing),
    (6, ReadTarget::Root),
];

/// What an `ls` call names.
#[derive(Clone, Copy, Debug, Default)]
enum LsTarget {
    /// The fixture's listed directory.
    #[default]
    List,
    /// A directory of the tree.
    Dir,
    /// The plan root.
    Root,
    /// A file.
    File,
    /// A missing path.
    Missing,
    /// A notable entry.
    Notable,
}

const LS_TARGETS: [(usize, LsTarget); 6] = [
    (50, LsTarget::List),
    (20, LsTarget::Dir),
    (10, LsTarget::Root),
    (6, LsTarget::File),
    (6, LsTarget::Missing),
    (8, LsTarget::Notable),
];

/// A paging field: absent, 1, small, at the count, past it, around a cap,
/// huge, or 0 (refused by the flow with `invalid_input`).
#[derive(Clone, Copy, Debug, Default)]
enum Paging {
    #[default]
    Absent,
    One,
    Small,
    AtCount,
    PastCount,
    NearCap,
    Huge,
    Zero,
}

const OFFSETS: [(usize, Paging); 8] = [
    (40, Paging::Absent),
    (8, Paging::One),
    (15, Paging::Small),
    (10, Paging::AtCount),
    (10, Paging::PastCount),
    (7, Paging::NearCap),
    (5, Paging::Huge),
    (5, Paging::Zero),
];

const LIMITS: [(usize, Paging); 7] = [
    (40, Paging::Absent),
    (15, Paging::One),
    (20, Paging::Small),
    (5, Paging::AtCount),
    (10, Paging::NearCap),
    (5, Paging::Huge),
    (5, Paging::Zero),
];

/// The §1.4 line count of `bytes` (decoded or not: only `\n` counts).
fn line_count(bytes: &[u8]) -> u64 {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    newlines + u64::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// Step 6: the fixture files `read` calls draw from, and the directory `ls`
/// calls list. Returns the fixture files' paths.
fn flow_fixture(draws: &mut Draws, tree: &mut Tree, full: bool) -> Vec<String> {
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

/// What `read` and `ls` calls draw from, besides the [`CallContext`].
struct FlowContext<'a> {
    calls: &'a CallContext<'a>,
    /// The fixture's files.
    fixture: Vec<String>,
    /// Line counts of every regular file, root-relative.
    lines: std::collections::HashMap<String, u64>,
    /// Entry counts of every directory, root-relative (`""` is the root).
    children: std::collections::HashMap<String, u64>,
}

impl<'a> FlowContext<'a> {
    fn new(calls: &'a CallContext<'a>, tree: &Tree, fixture: Vec<String>) -> FlowContext<'a> {
        let mut lines = std::collections::HashMap::new();
        let mut names: HashSet<(String, String)> = HashSet::new();
        for entry in &tree.entries {
            if entry.kind == FileKind::File {
                lines.insert(entry.path.clone(), line_count(&entry.content));
            }
            // Every entry and every ancestor is one name in its parent.
            let mut path = entry.path.as_str();
            loop {
                let (parent, name) = path.rsplit_once('/').unwrap_or(("", path));
                names.insert((parent.to_string(), name.to_string()));
                if parent.is_empty() {
                    break;
                }
                path = parent;
            }
        }
        let mut children = std::collections::HashMap::new();
        for (parent, _) in names {
            *children.entry(parent).or_insert(0) += 1;
        }
        FlowContext {
            calls,
            fixture,
            lines,
            children,
        }
    }
}

/// A paging value for a listing or file of `count` items around `cap`.
fn paging(draws: &mut Draws, table: &[(usize, Paging)], count: u64, cap: u64) -> Option<u64> {
    match draws.weighted(table) {
        Paging::Absent => None,
        Paging::One => Some(1),
        Paging::Small => Some(2 + draws.below(19) as u64),
        Paging::AtCount => Some(count.max(1)),
        Paging::PastCount => Some(count.max(1) + 1 + draws.below(3) as u64),
        Paging::NearCap => Some(cap - 1 + draws.below(3) as u64),
        Paging::Huge => Some(1_000_000),
        Paging::Zero => Some(0),
    }
}

/// A missing path: absent, under an absent directory, or below a file.
fn missing(draws: &mut Draws, context: &CallContext<'_>) -> String {
    match (draws.below(3), context.files.first()) {
        (0, _) | (_, None) => context.under("does-not-exist.txt"),
        (1, _) => context.under("missing/deeper.txt"),
        (_, Some(file)) => context.under(&format!("{file}/child")),
    }
}

/// Step 7: one `read` call: the target, then `offset`, then `limit`.
fn read_call(draws: &mut Draws, flows: &FlowContext<'_>) -> ReadRequest {
    let context = flows.calls;
    let root = || (context.root.to_string(), None);
    let (path, lines) = match draws.weighted(&READ_TARGETS) {
        ReadTarget::Fixture => draws
            .pick(&flows.fixture)
            .map_or_else(root, |f| (context.under(f), flows.lines.get(f).copied())),
        ReadTarget::TreeFile => draws
            .pick(&context.files)
            .map_or_else(root, |f| (context.under(f), flows.lines.get(f).copied())),
        ReadTarget::Notable => draws
            .pick(&context.notable)
            .map_or_else(root, |p| (context.under(p), flows.lines.get(p).copied())),
        ReadTarget::Dir => draws
            .pick(&context.dirs)
            .map_or_else(root, |d| (context.under(d), None)),
        ReadTarget::Missing => (missing(draws, context), None),
        ReadTarget::Root => root(),
    };
    let lines = lines.unwrap_or(3);
    ReadRequest {
        path,
        offset: paging(draws, &OFFSETS, lines, 2000),
        limit: paging(draws, &LIMITS, lines, 2000),
        cwd: None,
    }
}

/// Step 8: one `ls` call: the target (and for a directory, a trailing-`/`
/// draw), then `offset`, then `limit`.
fn ls_call(draws: &mut Draws, flows: &FlowContext<'_>) -> LsRequest {
    let context = flows.calls;
    let count = |dir: &str| flows.children.get(dir).copied().unwrap_or(0);
    let (path, entries) = match draws.weighted(&LS_TARGETS) {
        LsTarget::List => (context.under(FLOW_LIST), count(FLOW_LIST)),
        LsTarget::Dir => match draws.pick(&context.dirs) {
            Some(dir) if draws.percent(15) => (context.under(&format!("{dir}/")), count(dir)),
            Some(dir) => (context.under(dir), count(dir)),
            None => (context.root.to_string(), count("")),
        },
        LsTarget::Root => (context.root.to_string(), count("")),
        LsTarget::File => draws.pick(&context.files).map_or_else(
            || (context.root.to_string(), count("")),
            |f| (context.under(f), 0),
        ),
        LsTarget::Missing => (missing(draws, context), 0),
        LsTarget::Notable => draws.pick(&context.notable).map_or_else(
            || (context.root.to_string(), count("")),
            |p| (context.under(p), count(p)),
        ),
    };
    LsRequest {
        path,
        offset: paging(draws, &OFFSETS, entries, crate::flows::MAX_ENTRIES),
        limit: paging(draws, &LIMITS, entries, crate::flows::MAX_ENTRIES),
        cwd: None,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use proptest::prelude::*;

    use super::*;
    use crate::contract::{validate_glob, validate_pattern};
    use crate::kit::materialize::{TempTree, validate};

    type TestResult = Result<(), Box<dyn std::error::Error>>;

    fn full() -> GeneratorOptions {
        GeneratorOptions {
            ground: Ground::Full,
            ..GeneratorOptions::default()
        }
    }

    /// FNV-1a, 64 bits: a tiny, dependency-free fingerprint of plan JSON.
    fn fnv1a64(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }

    #[test]
    fn same_seed_same_bytes() -> TestResult {
        for seed in [0, 1, 7, 42, u64::MAX] {
            for options in [GeneratorOptions::default(), full()] {
                let first = serde_json::to_string(&plan(seed, "/r", &options))?;
                let second = serde_json::to_string(&plan(seed, "/r", &options))?;
                assert_eq!(first, second, "seed {seed}");
            }
        }
        assert_ne!(
            serde_json::to_string(&plan(1, "/r", &full()))?,
            serde_json::to_string(&plan(2, "/r", &full()))?
        );
        Ok(())
    }

    /// Pins the draw order. These values change whenever the generator's
    /// output does; update them **together with [`VERSION`]**, never alone.
    #[test]
    fn golden_hashes_pin_the_draw_order() -> TestResult {
        assert_eq!(VERSION, 3);
        let shared = serde_json::to_string(&plan(0, "/r", &GeneratorOptions::default()))?;
        // A full-ground plan names its ground (so a replay knows it); the
        // draws are pinned by the rest of the plan, hashed as before.
        let mut full = serde_json::to_value(plan(7, "/r", &full()))?;
        let ground = full.as_object_mut().and_then(|o| o.shift_remove("ground"));
        assert_eq!(ground, Some(serde_json::json!("full")));
        let full = serde_json::to_string(&full)?;
        assert_eq!(
            (fnv1a64(shared.as_bytes()), fnv1a64(full.as_bytes())),
            (GOLDEN_SHARED_0, GOLDEN_FULL_7),
            "the plans changed: bump VERSION and update the golden hashes together"
        );
        Ok(())
    }

    // Version 2 (the file-flow fixture and the read and ls calls, steps
    // 6–8) changed both: the plans gained `read` and `ls` calls and the
    // fixture entries. Their grep and glob calls, and version 1's tree,
    // are unchanged (checked against version 1's plans for seeds 0..60 of
    // both grounds, answers included, when the version was bumped).
    // Version 3 changed both again, with the same draws: a drawn grep or
    // glob call that validation refuses moved from the seam to the plan's
    // `flow` calls, and seam calls carry the normalised input (v2 hashes:
    // 10604507409621557384, 16896025765646918678).
    const GOLDEN_SHARED_0: u64 = 12031549120750662757;
    const GOLDEN_FULL_7: u64 = 5428331139100247037;

    /// Seam calls carry only what validation passes, normalised; what it
    /// refuses is asked of the flow (search-contract §3–§5).
    #[test]
    fn seam_calls_are_inside_the_contract_and_the_rest_go_to_the_flow() -> TestResult {
        let mut flow_calls = 0;
        for seed in 0..300 {
            for options in [GeneratorOptions::default(), full()] {
                let plan = plan(seed, "/r", &options);
                for input in &plan.grep {
                    crate::contract::validate_pattern(&input.pattern, input.fixed_strings)?;
                    for glob in &input.globs {
                        crate::contract::validate_glob(glob)?;
                    }
                }
                for input in &plan.glob {
                    crate::contract::validate_glob(&input.pattern)?;
                }
                for call in &plan.flow {
                    let refused = match call {
                        Call::FlowGrep(r) => crate::contract::normalize_grep(r).is_err(),
                        Call::FlowGlob(r) => crate::contract::normalize_glob(r).is_err(),
                        other => panic!("a seam call among the flow calls: {other:?}"),
                    };
                    assert!(refused, "seed {seed}: {call:?} would pass validation");
                }
                flow_calls += plan.flow.len();
            }
        }
        assert!(
            flow_calls > 100,
            "only {flow_calls} flow calls in 600 plans"
        );
        Ok(())
    }

    #[test]
    fn options_serde() -> TestResult {
        assert_eq!(
            serde_json::to_string(&full())?,
            r#"{"files":24,"calls":16,"ground":"full"}"#
        );
        let partial: GeneratorOptions = serde_json::from_str(r#"{"files":3}"#)?;
        assert_eq!(
            partial,
            GeneratorOptions {
                files: 3,
                ..GeneratorOptions::default()
            }
        );
        assert!(serde_json::from_str::<GeneratorOptions>(r#"{"ground":"Full"}"#).is_err());
        Ok(())
    }

    #[test]
    fn draws_are_integer_and_in_range() {
        let mut draws = Draws::seeded(3);
        assert_eq!(draws.below(0), 0);
        assert!((0..1000).all(|_| draws.below(7) < 7));
        assert!((0..1000).all(|_| draws.below(1) == 0));
        let empty: [u8; 0] = [];
        assert_eq!(draws.pick(&empty), None);
        assert_eq!(draws.weighted::<u8>(&[]), 0);
        assert_eq!(draws.weighted(&[(0, 1u8), (5, 2)]), 2);
    }

    #[test]
    fn undotted_skips_are_the_skip_lists_undotted_names() {
        let undotted: Vec<&str> = SKIP_LIST
            .iter()
            .copied()
            .filter(|name| !name.starts_with('.'))
            .collect();
        assert_eq!(undotted, UNDOTTED_SKIPS);
    }

    #[test]
    fn helpers() {
        assert_eq!(ancestors("a/b/c").collect::<Vec<_>>(), ["a", "a/b"]);
        assert_eq!(ancestors("a").count(), 0);
        assert_eq!(relative("", "x/y.txt"), "x/y.txt");
        assert_eq!(relative("a/b", "x"), "../../x");
        assert_eq!(relative("", ""), ".");
        assert_eq!(relative("a", ""), "..");
        assert_eq!((depth(""), depth("a"), depth("a/b")), (0, 1, 2));
    }

    /// Counts of each feature over many plans.
    #[derive(Default, Debug)]
    struct Seen(HashMap<&'static str, usize>);

    impl Seen {
        fn add(&mut self, feature: &'static str, present: bool) {
            *self.0.entry(feature).or_default() += usize::from(present);
        }
        fn count(&self, feature: &str) -> usize {
            self.0.get(feature).copied().unwrap_or(0)
        }
    }

    fn lines_of(content: &[u8]) -> impl Iterator<Item = String> + '_ {
        content.split(|&b| b == b'\n').map(|line| {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            String::from_utf8_lossy(line).into_owned()
        })
    }

    /// The plan without its file-flow fixture: what grep and glob calls
    /// can see, to which the tree's own invariants apply (no lone CR, CRLF
    /// and invalid UTF-8 on the full ground only, the extras budget).
    fn search_visible(plan: &Plan) -> Plan {
        let mut visible = plan.clone();
        visible
            .files
            .retain(|f| !f.path.starts_with("flows.fixture/"));
        visible
    }

    /// Every `\r` is followed by `\n` (README Q3).
    fn no_lone_cr(content: &[u8]) -> bool {
        content
            .iter()
            .enumerate()
            .all(|(at, &b)| b != b'\r' || content.get(at + 1) == Some(&b'\n'))
    }

    fn survey(seen: &mut Seen, plan: &Plan) {
        let plan = &search_visible(plan);
        let skip: HashSet<&str> = SKIP_LIST.iter().copied().collect();
        let files: HashSet<&str> = plan
            .files
            .iter()
            .filter(|f| f.kind == FileKind::File)
            .map(|f| f.path.as_str())
            .collect();
        let links: HashMap<&str, &str> = plan
            .files
            .iter()
            .filter(|f| f.kind == FileKind::Symlink)
            .map(|f| (f.path.as_str(), f.target.as_deref().unwrap_or("")))
            .collect();
        for file in &plan.files {
            let segments: Vec<&str> = file.path.split('/').collect();
            let (name, parents) = segments.split_last().unwrap_or((&"", &[]));
            let is_file = file.kind == FileKind::File;
            seen.add(
                "hidden file",
                is_file && name.starts_with('.') && *name != ".gitignore",
            );
            seen.add("hidden dir", parents.iter().any(|p| p.starts_with('.')));
            seen.add("skip-list dir", parents.iter().any(|p| skip.contains(p)));
            seen.add("skip-list name as file", is_file && skip.contains(name));
            seen.add("depth 5", parents.len() >= 5);
            seen.add("space in name", file.path.contains(' '));
            seen.add("non-ascii name", !file.path.is_ascii());
            seen.add("leading dash", name.starts_with('-'));
            let text = String::from_utf8_lossy(&file.content);
            let gitignore = *name == ".gitignore";
            seen.add(
                "nested .gitignore with negation",
                gitignore && !parents.is_empty() && text.lines().any(|l| l.starts_with('!')),
            );
            seen.add(
                "malformed ignore line",
                gitignore && text.lines().any(|l| l == "[z-a]" || l == "{broken"),
            );
            seen.add(
                "ignore comment",
                gitignore && text.lines().any(|l| l.starts_with('#')),
            );
            seen.add(
                "ignore trailing spaces",
                gitignore && text.lines().any(|l| l.ends_with("   ")),
            );
            seen.add("ignore ** rule", gitignore && text.contains("**"));
            seen.add(
                "ignore dir rule",
                gitignore && text.lines().any(|l| l.ends_with('/')),
            );
            seen.add(
                "ignore anchored rule",
                gitignore && text.lines().any(|l| l.starts_with('/')),
            );
            seen.add("binary", file.content.contains(&0));
            seen.add(
                "late NUL",
                file.content
                    .iter()
                    .position(|&b| b == 0)
                    .is_some_and(|at| at > 8192),
            );
            seen.add("empty file", is_file && file.content.is_empty());
            seen.add("newline only", file.content == b"\n");
            seen.add(
                "no final newline",
                !file.content.is_empty() && !file.content.ends_with(b"\n"),
            );
            let lengths: Vec<usize> = lines_of(&file.content).map(|l| l.chars().count()).collect();
            seen.add("long line", lengths.iter().any(|&n| n > 501));
            for (feature, n) in [("499 line", 499), ("500 line", 500), ("501 line", 501)] {
                seen.add(feature, lengths.contains(&n));
            }
            seen.add(
                "multibyte at the edge",
                lines_of(&file.content)
                    .any(|l| (499..=501).contains(&l.chars().count()) && !l.ends_with('x')),
            );
            seen.add("crlf", file.content.windows(2).any(|w| w == b"\r\n"));
            seen.add("invalid utf-8", std::str::from_utf8(&file.content).is_err());
            seen.add("lone cr", !no_lone_cr(&file.content));
            seen.add("symlink", file.kind == FileKind::Symlink);
            seen.add(
                "unreadable dir",
                file.kind == FileKind::Dir && file.mode == Some(0),
            );
            seen.add("unreadable file", is_file && file.mode == Some(0));
            seen.add(
                "empty dir",
                file.kind == FileKind::Dir && file.mode.is_none(),
            );
            if let Some(target) = file.target.as_deref() {
                let parent = parents.join("/");
                let resolved = resolve(&parent, target);
                seen.add(
                    "link to file",
                    resolved.as_deref().is_some_and(|p| files.contains(p)),
                );
                seen.add("dangling link", target.starts_with("missing/"));
                seen.add(
                    "link loop",
                    resolved.as_deref().is_some_and(|p| {
                        links.get(p).is_some_and(|next| {
                            resolve(&parent, next).as_deref() == Some(&file.path[..])
                        })
                    }),
                );
            }
        }
        let prefix = format!("{}/", plan.root);
        let entries: HashSet<String> = plan.files.iter().map(|f| f.path.clone()).collect();
        let dirs: HashSet<&str> = plan.files.iter().flat_map(|f| ancestors(&f.path)).collect();
        // Every drawn call, wherever it went: the seam's, and the flow's
        // (whose requests carry every field, so the defaults restore them).
        let drawn_grep: Vec<GrepInput> = plan
            .grep
            .iter()
            .cloned()
            .chain(plan.flow.iter().filter_map(|c| match c {
                Call::FlowGrep(r) => Some(crate::contract::normalize::grep_defaults(r)),
                _ => None,
            }))
            .collect();
        let drawn_glob: Vec<GlobInput> = plan
            .glob
            .iter()
            .cloned()
            .chain(plan.flow.iter().filter_map(|c| match c {
                Call::FlowGlob(r) => Some(crate::contract::normalize::glob_defaults(r)),
                _ => None,
            }))
            .collect();
        for call in &drawn_grep {
            let invalid = validate_pattern(&call.pattern, call.fixed_strings).is_err()
                || call.globs.iter().any(|g| validate_glob(g).is_err());
            seen.add(
                "invalid pattern",
                validate_pattern(&call.pattern, call.fixed_strings).is_err(),
            );
            seen.add("grep call", true);
            seen.add("invalid grep call", invalid);
            seen.add("non-ascii pattern", !call.pattern.is_ascii());
            seen.add(
                "meta literal",
                call.fixed_strings && call.pattern.contains(['(', '?', '+', '*', '[']),
            );
            seen.add(
                "regex class",
                call.pattern.contains("[a-z]") || call.pattern.contains("[^"),
            );
            seen.add("regex alternation", call.pattern.contains('|'));
            seen.add("regex count", call.pattern.contains("{1,3}"));
            seen.add(
                "regex anchors",
                call.pattern.starts_with('^') && call.pattern.ends_with('$'),
            );
            seen.add("escaped meta", call.pattern.contains("\\."));
            seen.add("! glob", call.globs.iter().any(|g| g.starts_with('!')));
            seen.add("3 globs", call.globs.len() == 3);
            seen.add("limit 0", call.limit == 0);
            seen.add(
                "ignoreCase and smartCase",
                call.ignore_case && call.smart_case,
            );
            seen.add("maxCount", call.max_count.is_some());
            let rel = call.root.strip_prefix(&prefix).unwrap_or("");
            seen.add("file root", entries.contains(rel) && files.contains(rel));
            seen.add("subdir root", dirs.contains(rel));
            seen.add(
                "missing root",
                call.root != plan.root
                    && !entries.contains(rel)
                    && !dirs.contains(rel)
                    && !rel.ends_with('/')
                    && !rel.starts_with("./"),
            );
            seen.add("link root", links.contains_key(rel));
        }
        for call in &drawn_glob {
            seen.add("! glob pattern", call.pattern.starts_with('!'));
            seen.add("glob limit 0", call.limit == 0);
            seen.add("invalid glob", validate_glob(&call.pattern).is_err());
        }
    }

    /// A link target resolved lexically against the link's directory;
    /// `None` when it leaves the tree.
    fn resolve(dir: &str, target: &str) -> Option<String> {
        let mut parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
        for segment in target.split('/') {
            match segment {
                "." | "" => {}
                ".." => {
                    parts.pop()?;
                }
                name => parts.push(name),
            }
        }
        Some(parts.join("/"))
    }

    #[test]
    fn every_feature_appears_over_500_seeds() {
        let mut shared = Seen::default();
        let mut full_seen = Seen::default();
        for seed in 0..500 {
            survey(&mut shared, &plan(seed, "/r", &GeneratorOptions::default()));
            survey(&mut full_seen, &plan(seed, "/r", &full()));
        }
        let everywhere = [
            "hidden file",
            "hidden dir",
            "skip-list dir",
            "skip-list name as file",
            "depth 5",
            "space in name",
            "non-ascii name",
            "leading dash",
            "nested .gitignore with negation",
            "malformed ignore line",
            "ignore comment",
            "ignore trailing spaces",
            "ignore ** rule",
            "ignore dir rule",
            "ignore anchored rule",
            "binary",
            "late NUL",
            "empty file",
            "newline only",
            "no final newline",
            "long line",
            "499 line",
            "500 line",
            "501 line",
            "multibyte at the edge",
            "invalid pattern",
            "non-ascii pattern",
            "meta literal",
            "regex class",
            "regex alternation",
            "regex count",
            "regex anchors",
            "escaped meta",
            "! glob",
            "3 globs",
            "limit 0",
            "ignoreCase and smartCase",
            "maxCount",
            "file root",
            "subdir root",
            "missing root",
            "! glob pattern",
            "glob limit 0",
            "invalid glob",
        ];
        for feature in everywhere {
            assert!(
                shared.count(feature) > 0,
                "shared never had {feature}: {shared:?}"
            );
            assert!(full_seen.count(feature) > 0, "full never had {feature}");
        }
        let full_only = [
            "crlf",
            "invalid utf-8",
            "symlink",
            "link to file",
            "dangling link",
            "link loop",
            "unreadable dir",
            "unreadable file",
            "empty dir",
            "link root",
        ];
        for feature in full_only {
            assert!(
                full_seen.count(feature) > 0,
                "full never had {feature}: {full_seen:?}"
            );
            assert_eq!(shared.count(feature), 0, "shared had {feature}");
        }
        assert_eq!(shared.count("lone cr") + full_seen.count("lone cr"), 0);

        // Shares: both case flags in about 3 % of grep calls; invalid
        // patterns a minority, valid calls the majority.
        let calls = shared.count("grep call");
        let both = shared.count("ignoreCase and smartCase");
        assert!(
            both * 100 >= calls && both * 100 <= calls * 6,
            "{both} of {calls}"
        );
        let invalid = shared.count("invalid grep call");
        assert!(
            invalid * 100 >= calls * 10 && invalid * 100 <= calls * 40,
            "{invalid} of {calls}"
        );
    }

    #[test]
    fn calls_respect_their_ranges() {
        for seed in 0..200 {
            for options in [GeneratorOptions::default(), full()] {
                let plan = plan(seed, "/r", &options);
                // Every drawn call is at the seam or, refused, in the flow.
                assert_eq!(plan.grep.len() + plan.glob.len() + plan.flow.len(), 32);
                for call in &plan.grep {
                    assert!(
                        call.root == "/r" || call.root.starts_with("/r/"),
                        "{}",
                        call.root
                    );
                    assert!(call.before_context <= 3 && call.after_context <= 3);
                    assert!(matches!(call.max_count, None | Some(1..=3)));
                    assert!([0, 1, 2, 5, 40, 200].contains(&call.limit));
                    assert!(call.globs.len() <= 3);
                }
                for call in &plan.glob {
                    assert!(
                        call.root == "/r" || call.root.starts_with("/r/"),
                        "{}",
                        call.root
                    );
                    assert!(call.limit <= 1000);
                }
            }
        }
    }

    /// Found by the proptest below: an early NUL landed between `\r` and
    /// `\n`, making a lone CR (README Q3). The NUL now backs off to a
    /// character boundary outside a CRLF.
    #[test]
    fn early_nul_never_splits_a_crlf_or_a_character() {
        let options = GeneratorOptions {
            files: 10,
            calls: 0,
            ground: Ground::Full,
        };
        let plan = search_visible(&plan(1_497_729_987_305_842_942, "", &options));
        assert!(plan.files.iter().all(|file| no_lone_cr(&file.content)));
        for seed in 0..300 {
            for file in &search_visible(&plan_for(seed)).files {
                assert!(no_lone_cr(&file.content), "seed {seed}: {}", file.path);
                if let Some(at) = file.content.iter().position(|&b| b == 0) {
                    let next = file.content.get(at + 1).copied().unwrap_or(b'\n');
                    assert!(next & 0xC0 != 0x80, "seed {seed}: NUL inside a character");
                }
            }
        }
    }

    fn plan_for(seed: u64) -> Plan {
        plan(seed, "/r", &full())
    }

    #[test]
    fn zero_files_means_no_tree() {
        let options = GeneratorOptions {
            files: 0,
            calls: 3,
            ground: Ground::Full,
        };
        let plan = plan(5, "/r", &options);
        assert!(plan.files.is_empty());
        assert_eq!(plan.grep.len() + plan.glob.len() + plan.flow.len(), 6);
        assert!(
            plan.grep
                .iter()
                .all(|call| call.root == "/r" || call.root.starts_with("/r/"))
        );
    }

    #[cfg(unix)]
    #[test]
    fn materialized_full_plans_drop_cleanly() -> TestResult {
        use std::os::unix::fs::PermissionsExt;
        let mut locked_seen = 0;
        for seed in 0..12 {
            let plan = plan(seed, "/r", &full());
            let tree = TempTree::with_files(&plan.files)?;
            let path = tree.path().to_path_buf();
            for entry in &plan.files {
                let on_disk = std::fs::symlink_metadata(path.join(&entry.path))?;
                match entry.kind {
                    FileKind::Symlink => assert!(on_disk.file_type().is_symlink()),
                    FileKind::Dir => {
                        assert!(on_disk.is_dir());
                        if let Some(mode) = entry.mode {
                            assert_eq!(on_disk.permissions().mode() & 0o777, mode);
                            locked_seen += 1;
                        }
                    }
                    FileKind::File => assert!(on_disk.is_file()),
                }
            }
            drop(tree);
            assert!(!path.exists(), "seed {seed} left {}", path.display());
        }
        assert!(locked_seen > 0);
        Ok(())
    }

    /// The file-flow calls reach the corners of read-ls-flows §1 and §2
    /// over a few hundred seeds.
    #[test]
    fn file_flow_calls_reach_the_spec_corners() {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        let mut note = |what: &'static str, yes: bool| {
            *seen.entry(what).or_default() += usize::from(yes);
        };
        for seed in 0..300 {
            let plan = if seed % 2 == 0 {
                plan(seed, "/r", &GeneratorOptions::default())
            } else {
                plan_for(seed)
            };
            let content = |path: &str| {
                plan.files
                    .iter()
                    .find(|f| format!("/r/{}", f.path) == path)
                    .map(|f| f.content.clone())
            };
            let listed = plan
                .files
                .iter()
                .filter(|f| f.path.starts_with(&format!("{FLOW_LIST}/")))
                .count();
            note("list over MAX_ENTRIES", listed > 1000);
            note("list at most MAX_ENTRIES", listed > 990 && listed <= 1000);
            note("empty list", listed == 0);
            for call in &plan.read {
                let bytes = content(&call.path);
                let lines = bytes.as_deref().map(line_count);
                note("read fixture", call.path.contains(FLOW_FIXTURE));
                note("read missing", call.path.contains("does-not-exist"));
                note("read a directory", call.path == "/r");
                note("read offset 0", call.offset == Some(0));
                note("read limit 0", call.limit == Some(0));
                note(
                    "read offset past the end",
                    matches!((call.offset, lines), (Some(o), Some(n)) if o > n.max(1)),
                );
                note("read over 2000 lines", lines.is_some_and(|n| n > 2000));
                note(
                    "read over 60000 bytes",
                    bytes.as_ref().is_some_and(|b| b.len() > 60_000),
                );
                note(
                    "read crlf",
                    bytes
                        .as_ref()
                        .is_some_and(|b| b.windows(2).any(|w| w == b"\r\n")),
                );
                note("read nul", bytes.as_ref().is_some_and(|b| b.contains(&0)));
                note(
                    "read invalid utf-8",
                    bytes
                        .as_ref()
                        .is_some_and(|b| std::str::from_utf8(b).is_err() && !b.contains(&0)),
                );
                note(
                    "read long line",
                    bytes.as_ref().is_some_and(|b| {
                        String::from_utf8_lossy(b)
                            .lines()
                            .any(|l| l.chars().count() > 2000)
                    }),
                );
            }
            for call in &plan.ls {
                note("ls list", call.path.ends_with("/list"));
                note(
                    "ls offset past 1000",
                    call.offset.is_some_and(|o| o > 1000 && o < 1_000_000),
                );
                note("ls limit over 1000", call.limit.is_some_and(|l| l > 1000));
                note("ls missing", call.path.contains("does-not-exist"));
                note("ls a file", content(&call.path).is_some());
            }
        }
        for (what, count) in &seen {
            assert!(*count > 0, "never saw {what}: {seen:?}");
        }
    }

    proptest! {
        #[test]
        fn plans_validate_and_fit_the_budget(
            seed in any::<u64>(),
            files in 0usize..40,
            calls in 0usize..20,
            full_ground in any::<bool>(),
            root in "[a-z/]{0,8}",
        ) {
            let ground = if full_ground { Ground::Full } else { Ground::Shared };
            let options = GeneratorOptions { files, calls, ground };
            let plan = plan(seed, &root, &options);
            prop_assert!(validate(&plan.files).is_ok(), "{:?}", validate(&plan.files));
            let visible = search_visible(&plan);
            let extras = if files == 0 { 0 } else if full_ground { 5 + 3 + 11 } else { 5 + 3 };
            prop_assert!(visible.files.len() <= files + extras);
            // The fixture: at most 5 read files, the listed directory, 1,005
            // entries and 2 links.
            prop_assert!(plan.files.len() - visible.files.len() <= 5 + 1 + 1005 + 2);
            prop_assert_eq!(plan.grep.len() + plan.glob.len() + plan.flow.len(), 2 * calls);
            prop_assert_eq!((plan.read.len(), plan.ls.len()), (calls, calls));
            // No entry sits under a file or a link, and no path repeats.
            let leaves: HashSet<&str> = plan
                .files
                .iter()
                .filter(|f| f.kind != FileKind::Dir)
                .map(|f| f.path.as_str())
                .collect();
            let mut paths = HashSet::new();
            for entry in &plan.files {
                prop_assert!(paths.insert(entry.path.as_str()), "{} twice", entry.path);
                prop_assert!(ancestors(&entry.path).all(|dir| !leaves.contains(dir)), "{}", entry.path);
            }
            for entry in &visible.files {
                prop_assert!(no_lone_cr(&entry.content));
            }
            let prefix = format!("{root}/");
            let roots = plan.grep.iter().map(|c| &c.root).chain(plan.glob.iter().map(|c| &c.root));
            let paths = plan.read.iter().map(|c| &c.path).chain(plan.ls.iter().map(|c| &c.path));
            for call_root in roots.chain(paths) {
                prop_assert!(*call_root == root || call_root.starts_with(&prefix));
            }
            let json = serde_json::to_string(&plan).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let back: Plan = serde_json::from_str(&json).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(back, plan);
        }
    }
}
