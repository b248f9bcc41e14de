//! Steps 1 and 2 of [the draw order](super#reproducibility-and-the-draw-order):
//! the directories files are placed in, and each generated file's place
//! and name (its bytes come from [`content`]).

use super::content::{ContentKind, content};
use super::tree::{Tree, depth, join};
use crate::kit::draws::Draws;
use crate::kit::plan::GeneratedFile;

/// Deepest directory level the shape step creates (the root is level 0).
const MAX_DEPTH: usize = 5;

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

/// Step 1: the directories files will be placed in.
pub(super) fn shape(draws: &mut Draws, tree: &mut Tree) {
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
pub(super) fn generated_file(draws: &mut Draws, tree: &mut Tree, index: usize, full: bool) {
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
