//! A deterministic, source-like tree for the peer benchmarks.
//!
//! Every byte comes from a `ChaCha8` stream seeded by [`Shape::seed`], so a
//! tree is the same on every machine and every run; only the temp dir's
//! name changes. The layout is
//!
//! ```text
//! .gitignore               target/ and *.log
//! pkg_NN/src/mod_M/*.{rs,py,ts,go,md,txt}   the searched files
//! pkg_NN/src/mod_M/deep/er/nest/*           a few nested dirs
//! pkg_03/.gitignore        generated/
//! pkg_03/generated/*       ignored (holds the rare token)
//! target/*, pkg_*/x.log    ignored (hold the rare token)
//! .cache/*                 hidden (holds the rare token)
//! pkg_NN/blob_K.bin        binaries (NUL in the first 64 bytes)
//! ```
//!
//! The ignored and hidden files carry the rare token so a peer that walks
//! them by mistake is visibly slower *and* answers differently (the parity
//! check in `peers.rs` counts answers before timing anything).
//!
//! Token frequencies (per searched line, roughly): `return` 8 %, a
//! `TODO`/`todo`/`Todo` comment 0.2 %, an identifier ending `_handler`
//! 0.1 %, a `Type123` word (`[A-Z][a-z]+[0-9]{3}`) 0.1 %, and
//! [`RARE`] in [`Shape::rare_files`] files only.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// The rare literal: present in a handful of searched files.
pub const RARE: &str = "QuuxRareToken";

/// How big a tree to make.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// ChaCha8 seed.
    pub seed: u64,
    /// Searched (text, not ignored, not hidden) files.
    pub files: usize,
    /// `pkg_NN` directories.
    pub packages: usize,
    /// `mod_M` directories per package.
    pub modules: usize,
    /// Searched files holding [`RARE`].
    pub rare_files: usize,
}

/// Tree S: 1,000 files, about 4.4 MB.
pub const SMALL: Shape = Shape {
    seed: 0x5EED_0001,
    files: 1_000,
    packages: 5,
    modules: 4,
    rare_files: 2,
};

/// Tree M: 20,000 files, about 80 MB.
pub const MEDIUM: Shape = Shape {
    seed: 0x5EED_0002,
    files: 20_000,
    packages: 20,
    modules: 10,
    rare_files: 5,
};

/// What was written.
#[derive(Debug, Default)]
pub struct Stats {
    /// Searched text files.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Ignored, hidden and binary files (not counted above).
    pub other_files: usize,
}

const WORDS: [&str; 64] = [
    "alpha", "buffer", "cache", "delta", "entry", "frame", "graph", "heap", "index", "join", "key",
    "list", "map", "node", "offset", "page", "queue", "range", "slot", "table", "unit", "value",
    "window", "batch", "chunk", "count", "error", "field", "group", "hash", "input", "layer",
    "limit", "match", "merge", "name", "order", "parse", "path", "query", "read", "route", "scope",
    "shard", "state", "store", "task", "token", "tree", "vector", "write", "block", "codec",
    "event", "flag", "lock", "meta", "pool", "rule", "span", "sync", "time", "user", "zone",
];

const TYPES: [&str; 16] = [
    "Buffer", "Config", "Engine", "Frame", "Handle", "Index", "Layout", "Matcher", "Node",
    "Parser", "Reader", "Result", "Session", "Table", "Vector", "Writer",
];

const EXTENSIONS: [&str; 6] = ["rs", "py", "ts", "go", "md", "txt"];

struct Gen {
    rng: ChaCha8Rng,
}

impl Gen {
    fn below(&mut self, n: usize) -> usize {
        // Modulo bias is irrelevant for a benchmark corpus.
        (self.rng.next_u64() % n as u64) as usize
    }

    fn chance(&mut self, per_mille: usize) -> bool {
        self.below(1000) < per_mille
    }

    fn word(&mut self) -> &'static str {
        WORDS[self.below(WORDS.len())]
    }

    fn ty(&mut self) -> &'static str {
        TYPES[self.below(TYPES.len())]
    }

    fn ident(&mut self, out: &mut String) {
        out.push_str(self.word());
        for _ in 0..self.below(3) {
            out.push('_');
            out.push_str(self.word());
        }
        if self.chance(1) {
            out.push_str("_handler");
        }
    }

    /// One source-like line, `\n` included.
    fn line(&mut self, indent: usize, out: &mut String) {
        for _ in 0..indent {
            out.push_str("    ");
        }
        match self.below(100) {
            0..=7 => {
                out.push_str("return ");
                self.ident(out);
                out.push(';');
            }
            8..=19 => {
                out.push_str("fn ");
                self.ident(out);
                out.push('(');
                self.ident(out);
                let _ = write!(out, ": {}) -> {} {{", self.ty(), self.ty());
            }
            20..=29 => {
                out.push_str("// ");
                for _ in 0..3 + self.below(6) {
                    out.push_str(self.word());
                    out.push(' ');
                }
                if self.chance(20) {
                    out.push_str(["TODO", "todo", "Todo"][self.below(3)]);
                    out.push_str(": revisit");
                }
            }
            30..=34 => out.push('}'),
            35..=44 => {
                out.push_str("if ");
                self.ident(out);
                let _ = write!(out, " > {} {{", self.below(10_000));
            }
            _ => {
                out.push_str("let ");
                self.ident(out);
                out.push_str(" = ");
                self.ident(out);
                out.push('.');
                self.ident(out);
                out.push('(');
                self.ident(out);
                let _ = write!(out, ", {});", self.below(1_000));
                if self.chance(2) {
                    let _ = write!(out, " // {}{}", self.ty(), 100 + self.below(900));
                }
            }
        }
        out.push('\n');
    }

    /// A file body of about 4 KB on average (1 % of files are 20x bigger).
    fn body(&mut self, rare: bool) -> String {
        let mut lines = 15 + self.below(110);
        if self.chance(10) {
            lines *= 20;
        }
        let rare_at = rare.then(|| self.below(lines));
        let mut out = String::with_capacity(lines * 48);
        let mut indent = 0;
        for i in 0..lines {
            if rare_at == Some(i) {
                let _ = writeln!(out, "    let marker = \"{RARE}\";");
            }
            self.line(indent, &mut out);
            indent = self.below(3);
        }
        out
    }
}

/// Write the tree `shape` under `root` (which must exist and be empty).
pub fn generate(root: &Path, shape: Shape) -> std::io::Result<Stats> {
    let mut g = Gen {
        rng: ChaCha8Rng::seed_from_u64(shape.seed),
    };
    let mut stats = Stats::default();
    fs::write(root.join(".gitignore"), "target/\n*.log\n")?;

    let leaves = shape.packages * shape.modules;
    let per_leaf = shape.files.div_ceil(leaves);
    // Rare files are spread over the tree, at fixed indices.
    let rare: Vec<usize> = (0..shape.rare_files)
        .map(|i| (i * shape.files) / shape.rare_files + shape.files / 7)
        .collect();
    let mut index = 0;
    'outer: for p in 0..shape.packages {
        for m in 0..shape.modules {
            let leaf = root.join(format!("pkg_{p:02}/src/mod_{m}"));
            let deep = leaf.join("deep/er/nest");
            fs::create_dir_all(&deep)?;
            for f in 0..per_leaf {
                if index == shape.files {
                    break 'outer;
                }
                // Every leaf puts its last three files in the nested dirs.
                let dir = if f + 3 >= per_leaf { &deep } else { &leaf };
                let ext = EXTENSIONS[g.below(EXTENSIONS.len())];
                let body = g.body(rare.contains(&index));
                stats.bytes += body.len() as u64;
                stats.files += 1;
                fs::write(dir.join(format!("{}_{f:03}.{ext}", g.word())), body)?;
                index += 1;
            }
        }
    }

    // Ignored, hidden and binary files, each holding the rare token.
    let mut others: Vec<(String, Vec<u8>)> = Vec::new();
    for i in 0..shape.files / 100 {
        others.push((
            format!("target/debug/out_{i}.rs"),
            g.body(true).into_bytes(),
        ));
    }
    for p in 0..shape.packages {
        others.push((format!("pkg_{p:02}/build.log"), g.body(true).into_bytes()));
        let mut blob = vec![0u8; 32];
        blob.extend_from_slice(g.body(true).as_bytes());
        others.push((format!("pkg_{p:02}/blob_{p}.bin"), blob));
    }
    fs::create_dir_all(root.join("pkg_03/generated"))?;
    fs::write(root.join("pkg_03/.gitignore"), "generated/\n")?;
    for i in 0..shape.files / 200 {
        others.push((
            format!("pkg_03/generated/gen_{i}.rs"),
            g.body(true).into_bytes(),
        ));
        others.push((format!(".cache/c_{i}.rs"), g.body(true).into_bytes()));
    }
    for (relative, bytes) in others {
        let path = root.join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(path, bytes)?;
        stats.other_files += 1;
    }
    Ok(stats)
}
