//! Deterministic, source-like corpora for `lawsuite bench` and the
//! criterion benchmarks in `benches/peers.rs`.
//!
//! Every byte comes from a `ChaCha8` stream seeded by [`Shape::seed`], so a
//! tree is the same on every machine and every run; only the temp dir's
//! name changes. A generated tree is laid out as
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
//! them by mistake is visibly slower *and* answers differently (every
//! benchmark checks the answers agree before timing anything).
//!
//! Token frequencies (per searched line, roughly): `return` 8 %, a
//! `TODO`/`todo`/`Todo` comment 0.2 %, an identifier ending `_handler`
//! 0.1 %, a `Type123` word (`[A-Z][a-z]+[0-9]{3}`) 0.1 %, and
//! [`RARE`] in [`Shape::rare_files`] files only.
//!
//! [`Corpus`] names what a benchmark searches: one of the trees
//! ([`SMALL`], [`MEDIUM`], [`LARGE`]), one [`HUGE_BYTES`]-long file, or a
//! directory searched in place. Generated corpora are written under a fresh
//! [`TempTree`], removed when the [`Prepared`] corpus is dropped; nothing
//! is ever written anywhere else.
//!
//! ```
//! use lawsuite::bench::corpus::Corpus;
//!
//! let corpus: Corpus = "generated:S".parse()?;
//! let prepared = corpus.prepare()?;
//! let stats = prepared.stats.as_ref().expect("a generated corpus counts its files");
//! assert_eq!(stats.files, 1_000);
//! assert!(prepared.root.join("pkg_00").is_dir());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt::{self, Write as _};
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::kit::chacha::ChaCha8;

use crate::kit::materialize::{MaterializeError, TempTree};

/// The rare literal: present in a handful of searched files.
pub const RARE: &str = "QuuxRareToken";

/// How big a tree to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Its short name (`S`, `M`, `L`).
    pub name: &'static str,
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
    name: "S",
    seed: 0x5EED_0001,
    files: 1_000,
    packages: 5,
    modules: 4,
    rare_files: 2,
};

/// Tree M: 20,000 files, about 80 MB.
pub const MEDIUM: Shape = Shape {
    name: "M",
    seed: 0x5EED_0002,
    files: 20_000,
    packages: 20,
    modules: 10,
    rare_files: 5,
};

/// Tree L: 200,000 files, about 800 MB.
pub const LARGE: Shape = Shape {
    name: "L",
    seed: 0x5EED_0003,
    files: 200_000,
    packages: 40,
    modules: 25,
    rare_files: 10,
};

/// The size of the single-file corpus (`generated:huge`): 1 GiB.
pub const HUGE_BYTES: u64 = 1 << 30;

/// The single file's name under its corpus root.
pub const HUGE_FILE: &str = "huge.txt";

/// What was written.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    /// Searched text files.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Ignored, hidden and binary files (not counted above).
    pub other_files: usize,
}

/// What a benchmark searches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Corpus {
    /// A generated tree (`generated:S`, `generated:M`, `generated:L`).
    Tree(Shape),
    /// One generated file of [`HUGE_BYTES`] (`generated:huge`).
    Huge,
    /// An existing directory, searched in place and never written to.
    Path(PathBuf),
}

/// A corpus that cannot be prepared.
#[derive(Debug)]
pub enum CorpusError {
    /// `generated:X` with an `X` that is not a generated corpus.
    UnknownShape(String),
    /// `cargo:registry` where cargo has unpacked no crate sources.
    NoRegistry,
    /// The directory to search in place does not exist.
    Missing {
        /// The path as given.
        path: PathBuf,
        /// What the OS said.
        source: io::Error,
    },
    /// The temp dir could not be made.
    Temp(MaterializeError),
    /// Writing the generated corpus failed.
    Write {
        /// The temp dir.
        root: PathBuf,
        /// What the OS said.
        source: io::Error,
    },
}

impl fmt::Display for CorpusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CorpusError::UnknownShape(name) => write!(
                f,
                "generated:{name} is not a generated corpus; use generated:S, generated:M, generated:L or generated:huge, or a directory's path"
            ),
            CorpusError::Missing { path, source } => write!(
                f,
                "the corpus directory {} cannot be searched ({source}); give an existing directory",
                path.display()
            ),
            CorpusError::NoRegistry => write!(
                f,
                "cargo:registry names the crate sources cargo unpacked under $CARGO_HOME/registry/src (default ~/.cargo), and there are none here; build any crate with dependencies first, or give a directory's path"
            ),
            CorpusError::Temp(e) => write!(f, "could not make a temp dir for the corpus: {e}"),
            CorpusError::Write { root, source } => write!(
                f,
                "could not write the generated corpus under {} ({source}); check the free space of the temp dir",
                root.display()
            ),
        }
    }
}

impl std::error::Error for CorpusError {}

impl FromStr for Corpus {
    type Err = CorpusError;

    /// `generated:S|M|L|huge`, `cargo:registry` ([`cargo_registry`]), or
    /// any other text as a directory's path.
    fn from_str(text: &str) -> Result<Corpus, CorpusError> {
        if text == "cargo:registry" {
            return cargo_registry()
                .map(Corpus::Path)
                .ok_or(CorpusError::NoRegistry);
        }
        let Some(name) = text.strip_prefix("generated:") else {
            return Ok(Corpus::Path(PathBuf::from(text)));
        };
        match name {
            "S" | "s" => Ok(Corpus::Tree(SMALL)),
            "M" | "m" => Ok(Corpus::Tree(MEDIUM)),
            "L" | "l" => Ok(Corpus::Tree(LARGE)),
            "huge" => Ok(Corpus::Huge),
            other => Err(CorpusError::UnknownShape(other.to_string())),
        }
    }
}

/// A real source tree most Rust machines have: the first directory (by
/// name) of crate sources cargo unpacked under `$CARGO_HOME/registry/src`
/// (`~/.cargo` by default), or `None` when there is none. Nested
/// `.gitignore` files, files from bytes to megabytes, deep directories:
/// what a generated tree does not have.
pub fn cargo_registry() -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    registry_sources(&home)
}

/// [`cargo_registry`] under the cargo home `home`.
fn registry_sources(home: &Path) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(home.join("registry/src"))
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.into_iter().next()
}

impl fmt::Display for Corpus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Corpus::Tree(shape) => write!(f, "generated:{}", shape.name),
            Corpus::Huge => f.write_str("generated:huge"),
            Corpus::Path(path) => write!(f, "{}", path.display()),
        }
    }
}

/// A corpus ready to search: its root, and the temp dir that holds it
/// (removed on drop) when it was generated.
#[derive(Debug)]
pub struct Prepared {
    /// The directory to search (absolute).
    pub root: PathBuf,
    /// What was written, for a generated corpus.
    pub stats: Option<Stats>,
    /// Keeps a generated corpus alive; `None` for a directory searched in place.
    _temp: Option<TempTree>,
}

impl Corpus {
    /// Generate the corpus under a fresh temp dir, or check that the
    /// directory to search in place exists.
    pub fn prepare(&self) -> Result<Prepared, CorpusError> {
        let write = |temp: TempTree, what: &dyn Fn(&Path) -> io::Result<Stats>| {
            let root = temp.path().to_path_buf();
            match what(&root) {
                Ok(stats) => Ok(Prepared {
                    root,
                    stats: Some(stats),
                    _temp: Some(temp),
                }),
                Err(source) => Err(CorpusError::Write { root, source }),
            }
        };
        match self {
            Corpus::Tree(shape) => write(TempTree::new().map_err(CorpusError::Temp)?, &|root| {
                generate(root, *shape)
            }),
            Corpus::Huge => write(TempTree::new().map_err(CorpusError::Temp)?, &|root| {
                generate_huge(root, HUGE_BYTES)
            }),
            Corpus::Path(path) => {
                let root = fs::canonicalize(path).map_err(|source| CorpusError::Missing {
                    path: path.clone(),
                    source,
                })?;
                Ok(Prepared {
                    root,
                    stats: None,
                    _temp: None,
                })
            }
        }
    }
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
    rng: ChaCha8,
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
pub fn generate(root: &Path, shape: Shape) -> io::Result<Stats> {
    let mut g = Gen {
        rng: ChaCha8::seed_from_u64(shape.seed),
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

/// The block the single-file corpus repeats: generating 1 GiB line by line
/// takes tens of seconds, writing one 8 MiB block 128 times about one.
const HUGE_BLOCK: usize = 8 << 20;

/// The seed of the single-file corpus.
const HUGE_SEED: u64 = 0x5EED_0004;

/// Write [`HUGE_FILE`] of about `bytes` bytes under `root`: one seeded
/// block of source-like lines, repeated and cut at a line end, with a
/// [`RARE`] line after the block at 1/7, 1/2 and the end of the file (three
/// hits in all).
///
/// ```
/// use lawsuite::bench::corpus::{HUGE_FILE, RARE, generate_huge};
/// use lawsuite::kit::materialize::TempTree;
///
/// let dir = TempTree::new()?;
/// let stats = generate_huge(dir.path(), 1 << 20)?;
/// let text = std::fs::read_to_string(dir.path().join(HUGE_FILE))?;
/// assert_eq!(text.len() as u64, stats.bytes);
/// assert_eq!(text.matches(RARE).count(), 3);
/// assert!(text.ends_with('\n'));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn generate_huge(root: &Path, bytes: u64) -> io::Result<Stats> {
    let mut g = Gen {
        rng: ChaCha8::seed_from_u64(HUGE_SEED),
    };
    let block_len = usize::try_from(bytes).map_or(HUGE_BLOCK, |b| b.min(HUGE_BLOCK));
    let mut block = String::with_capacity(block_len + 256);
    while block.len() < block_len {
        let indent = g.below(3);
        g.line(indent, &mut block);
    }
    let rare_line = format!("    let marker = \"{RARE}\";\n");
    let blocks = bytes.div_ceil(block_len as u64).max(1);
    let rare_after = [blocks / 7, blocks / 2, blocks - 1];
    let mut file = io::BufWriter::with_capacity(1 << 20, fs::File::create(root.join(HUGE_FILE))?);
    let mut written = 0u64;
    for i in 0..blocks {
        let left = bytes.saturating_sub(written);
        let mut chunk = block.as_bytes();
        if (chunk.len() as u64) > left {
            // Cut at the last line end that fits (the block starts a line).
            let fits = &chunk[..usize::try_from(left).unwrap_or(chunk.len())];
            let end = memchr::memrchr(b'\n', fits).map_or(0, |at| at + 1);
            chunk = &chunk[..end];
        }
        file.write_all(chunk)?;
        written += chunk.len() as u64;
        for _ in rare_after.iter().filter(|&&after| after == i) {
            file.write_all(rare_line.as_bytes())?;
            written += rare_line.len() as u64;
        }
    }
    file.flush()?;
    Ok(Stats {
        files: 1,
        bytes: written,
        other_files: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpus_names_parse() {
        assert_eq!(
            "generated:M".parse::<Corpus>().unwrap(),
            Corpus::Tree(MEDIUM)
        );
        assert_eq!("generated:huge".parse::<Corpus>().unwrap(), Corpus::Huge);
        assert_eq!(
            "some/dir".parse::<Corpus>().unwrap(),
            Corpus::Path("some/dir".into())
        );
        let err = "generated:XL".parse::<Corpus>().unwrap_err().to_string();
        assert!(err.contains("generated:S, generated:M"), "{err}");
    }

    #[test]
    fn the_registry_is_its_first_source_directory() {
        let home = tempfile::tempdir().unwrap();
        assert_eq!(registry_sources(home.path()), None);
        let src = home.path().join("registry/src");
        for name in ["index.b", "index.a"] {
            fs::create_dir_all(src.join(name)).unwrap();
        }
        fs::write(src.join("index.0"), "a file, not sources").unwrap();
        assert_eq!(registry_sources(home.path()), Some(src.join("index.a")));
        let err = CorpusError::NoRegistry.to_string();
        assert!(err.contains("registry/src"), "{err}");
    }

    #[test]
    fn trees_are_the_same_bytes_every_time() {
        let shape = Shape {
            name: "t",
            seed: 7,
            files: 40,
            packages: 2,
            modules: 2,
            rare_files: 1,
        };
        let (a, b) = (TempTree::new().unwrap(), TempTree::new().unwrap());
        let (sa, sb) = (
            generate(a.path(), shape).unwrap(),
            generate(b.path(), shape).unwrap(),
        );
        assert_eq!(sa, sb);
        assert_eq!(sa.files, 40);
        let file = "pkg_01/src/mod_1/deep/er/nest";
        let names = |root: &Path| {
            let mut v: Vec<_> = fs::read_dir(root.join(file))
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            v.sort();
            v
        };
        assert_eq!(names(a.path()), names(b.path()));
    }

    #[test]
    fn a_missing_directory_is_a_sentence() {
        let err = Corpus::Path("/no/such/lawsuite/dir".into())
            .prepare()
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("the corpus directory /no/such/lawsuite/dir cannot be searched"),
            "{err}"
        );
    }
}
