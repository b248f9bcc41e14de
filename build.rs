//! Embeds the shipped data (the laws under `laws/` and lawsuite's expected
//! failures for its built-in peers under `peers/expected/`) into the
//! library, so an installed binary and a path or git dependency carry them
//! with no path to find at run time (the way regex-automata embeds its TOML
//! test corpus). The generated file is a list of `(relative path, text)`
//! pairs; `src/shipped.rs` includes it.
//!
//! It also records where this source is (`LAWSUITE_SOURCE_DIR`), so
//! `lawsuite init --lang rust` can point a skeleton at it; `init` checks at
//! run time that the directory still holds lawsuite at the same version.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));
    println!("cargo:rustc-env=LAWSUITE_SOURCE_DIR={}", root.display());
    let mut code = String::new();
    for (name, dir) in [("LAWS", "laws"), ("EXPECTED", "peers/expected")] {
        let base = root.join(dir);
        // A directory is scanned recursively for changes.
        println!("cargo:rerun-if-changed={dir}");
        let mut files = Vec::new();
        collect(&base, &mut files);
        files.sort();
        let _ = writeln!(code, "pub(crate) static {name}: &[(&str, &str)] = &[");
        for file in files {
            let rel = file
                .strip_prefix(&base)
                .expect("collected under base")
                .to_string_lossy()
                .replace('\\', "/");
            let _ = writeln!(
                code,
                "    ({rel:?}, include_str!({:?})),",
                file.display().to_string()
            );
        }
        code.push_str("];\n");
    }
    std::fs::write(out.join("shipped.rs"), code).expect("OUT_DIR is writable");
}

/// Every `*.toml` file under `dir`.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
}
