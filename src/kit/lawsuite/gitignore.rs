//! Step 3c of [the draw order](super#reproducibility-and-the-draw-order):
//! the root `.gitignore` and nested ones, their rules drawn from the names
//! under them (search-contract §9).

use super::tree::{Tree, basename, first_segment, join};
use crate::kit::draws::Draws;
use crate::kit::plan::{FileKind, GeneratedFile};

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

const IGNORE_EXTS: [&str; 6] = [".tmp", ".log", ".md", ".js", ".d.ts", ".txt"];
const CLASS_RULES: [&str; 5] = ["[ab]*", "[!a]*.txt", "[a-m]*.ts", "?.tmp", "??.tmp"];
const COMMENT_RULES: [&str; 3] = ["# comment", "#needle.txt", "  # indented, so a rule"];
const BLANK_RULES: [&str; 2] = ["", "   "];
const MALFORMED_RULES: [&str; 5] = ["[z-a]", "{broken", "bad}.txt", "invalid\\", "[z-a].txt"];

/// Step 3c: the root `.gitignore` and one or two nested ones.
pub(super) fn gitignores(draws: &mut Draws, tree: &mut Tree, full: bool) {
    let nested = 1 + draws.below(2);
    let mut scopes = vec![String::new()];
    for _ in 0..nested {
        let candidates: Vec<String> = tree.dirs.iter().skip(1).cloned().collect();
        if let Some(dir) = draws.pick(&candidates)
            && !scopes.contains(dir)
        {
            scopes.push(dir.clone());
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
