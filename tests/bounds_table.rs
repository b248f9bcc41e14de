//! `docs/bounds.md` lists every numeric constant of the code that answers
//! calls (`src/contract`, `src/call`, `src/portable`, `src/flow`,
//! `src/protocol`, `src/ripgrep`, `src/git`): a cap added without a row there, saying
//! its basis in the spec and whether it can change an answer, fails here.

use std::fs;
use std::path::{Path, PathBuf};

const FOLDERS: [&str; 7] = [
    "contract", "call", "portable", "flow", "protocol", "ripgrep", "git",
];
const NUMERIC: [&str; 8] = [
    "usize",
    "u64",
    "u32",
    "u16",
    "i64",
    "i32",
    "Duration",
    "(u64, u64, u64)",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `const NAME: TYPE` of a numeric type, outside test modules.
fn numeric_constants(text: &str) -> Vec<String> {
    let body = text.split("#[cfg(test)]").next().unwrap_or(text);
    body.lines()
        .filter_map(|line| {
            let rest = line.trim_start();
            let rest = rest
                .strip_prefix("pub(crate) ")
                .or_else(|| rest.strip_prefix("pub(super) "))
                .or_else(|| rest.strip_prefix("pub "))
                .unwrap_or(rest);
            let (name, ty) = rest.strip_prefix("const ")?.split_once(':')?;
            let ty = ty.split('=').next()?.trim();
            NUMERIC.contains(&ty).then(|| name.trim().to_string())
        })
        .collect()
}

#[test]
fn every_numeric_constant_is_in_the_bounds_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let table = fs::read_to_string(root.join("docs/bounds.md")).unwrap();
    let mut files = Vec::new();
    for folder in FOLDERS {
        rust_files(&root.join("src").join(folder), &mut files);
    }
    let mut seen = 0;
    let mut missing = Vec::new();
    for file in &files {
        for name in numeric_constants(&fs::read_to_string(file).unwrap()) {
            seen += 1;
            if !table.contains(&format!("`{name}`")) {
                missing.push(format!(
                    "{name} ({})",
                    file.strip_prefix(root).unwrap().display()
                ));
            }
        }
    }
    assert!(
        seen > 30,
        "the scan found only {seen} constants: is it still reading the code?"
    );
    assert!(
        missing.is_empty(),
        "docs/bounds.md has no row for {missing:?}: say where each is, what it guards, its basis in the spec, whether it can change an answer, and the laws on both sides"
    );
}

/// The scan itself: what it must find and what it must not.
#[test]
fn the_scan_finds_numeric_constants_only() {
    let text = "pub const MAX_A: usize = 1;\n    const KEEP: u64 = 2;\npub(crate) const T: Duration = x;\nconst S: &str = \"\";\n#[cfg(test)]\nconst HIDDEN: usize = 3;\n";
    assert_eq!(numeric_constants(text), ["MAX_A", "KEEP", "T"]);
}
