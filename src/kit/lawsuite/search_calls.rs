//! Steps 4 and 5 of [the draw order](super#reproducibility-and-the-draw-order):
//! grep and glob calls, with the pattern grammar, the glob grammar and
//! the roots they draw from.

use super::tree::{Tree, basename};
use crate::contract::{GlobInput, GrepInput};
use crate::kit::draws::Draws;

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

/// What calls draw from: the root, and the tree's names.
pub(super) struct CallContext<'a> {
    pub(super) root: &'a str,
    /// Regular files, root-relative.
    pub(super) files: Vec<String>,
    /// Directories that exist, root-relative, root excluded.
    pub(super) dirs: Vec<String>,
    pub(super) notable: Vec<String>,
    /// ASCII words of the tree's lines.
    words: Vec<String>,
}

impl CallContext<'_> {
    pub(super) fn new<'a>(tree: &Tree, root: &'a str) -> CallContext<'a> {
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
    pub(super) fn under(&self, relative: &str) -> String {
        format!("{}/{relative}", self.root)
    }
}

/// Step 4: one grep call.
pub(super) fn grep_call(draws: &mut Draws, context: &CallContext<'_>) -> GrepInput {
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
pub(super) fn glob_call(draws: &mut Draws, context: &CallContext<'_>) -> GlobInput {
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
