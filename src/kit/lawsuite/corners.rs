//! Step 9 of [the draw order](super#reproducibility-and-the-draw-order)
//! (version 4): corners of the contract that the uniform draws of steps
//! 1–8 reach too rarely for a default run to see them, each gated by one
//! percentage draw.
//!
//! Why these: a mutant sample of the rules showed the laws breaking
//! answers here that no default seed put to a peer (docs/mutants.md,
//! "Seeds alone"). Each corner is the smallest ground on which such a rule
//! decides an answer, with its draws varying the details:
//!
//! * a nested `.gitignore` whose rules hold brace groups (§9.3);
//! * globs whose brace alternatives share 64 bytes or more of text, with
//!   `**` beside the shared text (§8.3), and a long valid glob (§8.1 has no
//!   size check, so it is answered, not refused);
//! * a pattern that matches empty lines, with `maxCount` and context
//!   (§11, §13, §14);
//! * a file longer than one 64 KiB read with a hit just past the first
//!   read and before-context reaching back across it (§13);
//! * a `read` of a relative path that is missing, whose error names what
//!   the working directory holds (read-ls-flows §1.6);
//! * (version 5) bracket classes whose `-` sits beside an escaped `-`,
//!   which §10 accepts, and set-operation look-alikes it refuses.
//!
//! The class corner decides where its calls go by construction, not by
//! asking lawsuite's own validation (which steps 4 and 5 use to put a
//! refused call in the flow list): a seed that let the rule under test
//! route its own calls would send an accepted pattern that a wrong
//! validator refuses to the flow, where every subject shares that
//! validator and agrees. At the seam, `portable` refuses it and `model`
//! (its own §10 parser) answers.
//!
//! Everything lives under `corners/` at the plan root, a name the earlier
//! steps never draw, and the calls go after every earlier step's calls.

use super::tree::{Tree, join};
use crate::contract::{GlobInput, GrepInput};
use crate::flow::ReadRequest;
use crate::kit::draws::Draws;
use crate::kit::plan::GeneratedFile;

/// The directory every corner lives under.
const CORNERS: &str = "corners";

/// Words for the brace-rule files: plain ASCII, and none starts with `a`
/// or `b`, which step 3's class rules (`[ab]*`) would ignore.
const FRUITS: [&str; 6] = ["kiwi", "lemon", "mango", "olive", "peach", "plum"];

/// A directory name longer than the 64 bytes of shared text that makes
/// the glob compiler write the shared text once (`contract::glob`).
const SHARED: &str = "shared-text-long-enough-that-the-glob-compiler-writes-it-only-once";

/// The calls step 9 adds, in the order they are drawn.
#[derive(Default)]
pub(super) struct Corners {
    pub(super) grep: Vec<GrepInput>,
    pub(super) glob: Vec<GlobInput>,
    pub(super) read: Vec<ReadRequest>,
    /// Greps §10 accepts by construction: put at the seam as they are,
    /// never routed by lawsuite's validation (module doc).
    pub(super) accepted_grep: Vec<GrepInput>,
    /// Greps §10 refuses by construction: asked of the whole flow.
    pub(super) refused_grep: Vec<GrepInput>,
}

/// Step 9: for each corner in turn (brace rules, shared-text globs, the
/// long glob, empty lines, the long file, the relative read, the class
/// dashes), one
/// percentage draw, then (when it passes) that corner's own draws.
pub(super) fn corners(draws: &mut Draws, tree: &mut Tree, root: &str) -> Corners {
    let mut out = Corners::default();
    if !tree.claim_dir(CORNERS) {
        return out;
    }
    let under = |relative: &str| format!("{root}/{relative}");
    if draws.percent(40) {
        brace_rules(draws, tree, &mut out, &under);
    }
    if draws.percent(40) {
        shared_text_glob(draws, tree, &mut out, root);
    }
    if draws.percent(30) {
        out.glob.push(GlobInput::new(long_glob(draws), root));
    }
    if draws.percent(40) {
        empty_lines(draws, tree, &mut out, &under);
    }
    if draws.percent(40) {
        long_file(draws, tree, &mut out, &under);
    }
    if draws.percent(40) {
        relative_read(draws, tree, &mut out, root);
    }
    // Version 5.
    if draws.percent(40) {
        class_dashes(draws, tree, &mut out, &under);
    }
    out
}

/// `corners/rules/`: four fruit files and a `.gitignore` whose brace rule
/// names some of them; a glob lists what is left. Draws: the first fruit,
/// then the rule's form.
fn brace_rules(
    draws: &mut Draws,
    tree: &mut Tree,
    out: &mut Corners,
    under: &dyn Fn(&str) -> String,
) {
    let start = draws.below(FRUITS.len());
    let word = |k: usize| FRUITS[(start + k) % FRUITS.len()];
    let dir = join(CORNERS, "rules");
    for k in 0..4 {
        let name = format!("{}.alt", word(k));
        tree.add_leaf(GeneratedFile::new(
            join(&dir, &name),
            format!("{}\n", word(k)),
        ));
    }
    let (w0, w1, w2) = (word(0), word(1), word(2));
    // No nested group: rg's gitignore (globset) refuses nesting and drops
    // the line, where §9.3 nests, and no recogniser predicts that answer.
    let rules = match draws.below(4) {
        0 => format!("{{{w0},{w1}}}.alt\n"),
        1 => format!("*.alt\n!{{{w0},{w1}}}.alt\n"),
        2 => format!("{{{w0},{w1}}}*\n"),
        _ => format!("/{{{w0},{w2}.alt}}\n"),
    };
    tree.add_leaf(GeneratedFile::new(join(&dir, ".gitignore"), rules));
    out.glob.push(GlobInput::new("*", under(&dir)));
}

/// `corners/<SHARED>/…`: files a shared-text glob can and cannot match,
/// and one such glob over the plan root. Draws: the glob's form.
fn shared_text_glob(draws: &mut Draws, tree: &mut Tree, out: &mut Corners, root: &str) {
    let dir = join(CORNERS, SHARED);
    for name in [
        "xa.md", "xbb.md", "xb.md", "z.ts", "a/z.ts", "q/r/z.ts", "xq/z.ts", "qa", "q/b",
    ] {
        tree.add_leaf(GeneratedFile::new(join(&dir, name), "shared\n"));
    }
    // No `**` inside a group: globset reads it as two stars in one segment
    // where §8.3 expands first (a known difference of `ripgrep-walk` with
    // no recogniser; the laws pin it).
    let pattern = match draws.below(5) {
        0 => format!("{dir}/x{{a,bb}}.md"),
        1 => format!("{dir}/**{{a,b}}"),
        2 => format!("{dir}/{{x*,z}}.{{md,ts}}"),
        3 => format!("{dir}/{{x?,q/*}}"),
        _ => format!("{dir}/{{q,xq}}/**"),
    };
    out.glob.push(GlobInput::new(pattern, root));
}

/// A valid glob of 18–30 KB: a long literal, a group of two long
/// alternatives, a long literal. Nothing matches it; §8.1 sets no size, so
/// the answer is an empty list. Draws: the three lengths.
fn long_glob(draws: &mut Draws) -> String {
    let prefix = 6000 + draws.below(3001);
    let alternative = 3000 + draws.below(4001);
    let suffix = 6000 + draws.below(3001);
    format!(
        "{}{{{},{}}}{}",
        "p".repeat(prefix),
        "a".repeat(alternative),
        "b".repeat(alternative),
        "s".repeat(suffix)
    )
}

/// Blank-line texts: blank runs at the start, the middle and the end.
const BLANK_TEXTS: [&str; 4] = [
    "one\n\ntwo\n\n\nthree\n",
    "\n\nfirst\nsecond\n\nthird\n\n",
    "solo\n\n",
    "  \n\t\nx\n\ny\n",
];

/// Patterns that match an empty line.
const EMPTY_LINE_PATTERNS: [&str; 3] = ["^$", "^ *$", "^ ?$"];

/// `corners/blank.txt` and a grep for empty lines in it. Draws: the text,
/// the pattern, `maxCount` (present?, then its value), `beforeContext`,
/// `afterContext`, `symbols`, then whether the root is the file or
/// `corners`.
fn empty_lines(
    draws: &mut Draws,
    tree: &mut Tree,
    out: &mut Corners,
    under: &dyn Fn(&str) -> String,
) {
    let path = join(CORNERS, "blank.txt");
    tree.add_leaf(GeneratedFile::new(&path, draws.word(&BLANK_TEXTS)));
    let mut input = GrepInput::new(draws.word(&EMPTY_LINE_PATTERNS), "");
    input.max_count = draws.percent(70).then(|| 1 + draws.below(3) as u64);
    input.before_context = draws.below(3) as u64;
    input.after_context = draws.below(3) as u64;
    input.symbols = draws.percent(50);
    input.root = if draws.percent(50) {
        under(&path)
    } else {
        under(CORNERS)
    };
    out.grep.push(input);
}

/// The word on the long file's hit line; no filler line holds it.
const NEEDLE: &str = "cornered";

/// `corners/long.txt`: filler lines past the first 64 KiB read, with one
/// hit line a few lines after the first read ends, and a grep with
/// before-context reaching back into the first read. Draws: the line
/// width, how many lines past the boundary the hit is, `beforeContext`,
/// `afterContext`.
fn long_file(
    draws: &mut Draws,
    tree: &mut Tree,
    out: &mut Corners,
    under: &dyn Fn(&str) -> String,
) {
    // The reader's chunk (`portable::scan`); any peer's read size is its
    // own, and the answer may not depend on it.
    const FIRST_READ: usize = 64 * 1024;
    let width = [60, 64, 70][draws.below(3)];
    let past = draws.below(3);
    let boundary_line = FIRST_READ / width;
    let mut text = String::new();
    for line in 0..boundary_line + 40 {
        if line == boundary_line + past {
            text.push_str(&format!("{NEEDLE} line {line}\n"));
        } else {
            let head = format!("filler {line:05} ");
            text.push_str(&head);
            text.push_str(&"-".repeat(width - head.len() - 1));
            text.push('\n');
        }
    }
    let path = join(CORNERS, "long.txt");
    tree.add_leaf(GeneratedFile::new(&path, text));
    let mut input = GrepInput::new(NEEDLE, under(&path));
    input.before_context = 1 + draws.below(3) as u64;
    input.after_context = draws.below(2) as u64;
    out.grep.push(input);
}

/// A `read` of a relative path that is missing, its `cwd` the plan root or
/// `corners` (which gets `notes.txt`, so it exists): a near miss of a name
/// there, or that name under a missing directory. Draws: the `cwd`, then
/// the spelling. No spelling differs from a real name by case alone, which
/// a case-insensitive filesystem would find.
fn relative_read(draws: &mut Draws, tree: &mut Tree, out: &mut Corners, root: &str) {
    tree.add_leaf(GeneratedFile::new(join(CORNERS, "notes.txt"), "notes\n"));
    let (cwd, name) = if draws.percent(50) {
        (root.to_string(), CORNERS)
    } else {
        (format!("{root}/{CORNERS}"), "notes.txt")
    };
    let path = match draws.below(3) {
        0 => name[..name.len() - 1].to_string(),
        1 => format!("./{name}x"),
        _ => format!("missing/{name}"),
    };
    out.read.push(ReadRequest::new(path).cwd(cwd));
}

/// Bracket classes §10 accepts although a `-` follows a `-`: the first is
/// escaped (`\-`), so no `--` set operation is written. Every one matches
/// a line of [`CLASS_TEXT`].
pub(super) const CLASS_ACCEPTED: [&str; 4] = [r"[\--/]", r"[a\--]", r"[\--\-]", r"[\-\-]"];

/// Set-operation look-alikes §10 refuses (`--`, `&&`, `~~` inside a class,
/// one after an escape).
pub(super) const CLASS_REFUSED: [&str; 4] = [r"[\---]", r"[--/]", r"[x&&y]", r"[a~~b]"];

/// What the class patterns search.
const CLASS_TEXT: &str = "a-b\nx/y\n--\nplain\n\\-\n";

/// `corners/classes.txt`, a grep with a class §10 accepts (at the seam)
/// and one with a look-alike it refuses (to the flow). Draws: the
/// accepted pattern, the refused one, whether the root is the file or
/// `corners`.
fn class_dashes(
    draws: &mut Draws,
    tree: &mut Tree,
    out: &mut Corners,
    under: &dyn Fn(&str) -> String,
) {
    let path = join(CORNERS, "classes.txt");
    tree.add_leaf(GeneratedFile::new(&path, CLASS_TEXT));
    let accepted = draws.word(&CLASS_ACCEPTED);
    let refused = draws.word(&CLASS_REFUSED);
    let root = if draws.percent(50) {
        under(&path)
    } else {
        under(CORNERS)
    };
    out.accepted_grep.push(GrepInput::new(accepted, &root));
    out.refused_grep.push(GrepInput::new(refused, &root));
}
