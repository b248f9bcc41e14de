//! Laws: hand-written cases as data under `laws/`, each pinning one rule
//! of the spec, run against every peer (the way the `regex` crate runs one
//! TOML corpus against every engine). The format is documented, with a
//! worked example, in `laws/README.md`.
//!
//! A law names the spec section it pins, builds a small tree, makes one
//! call, and states the expected answer (or failure code). Paths are
//! written relative to the tree: the runner builds the tree in a fresh
//! temporary directory `T`, turns a relative `root` (grep, glob) or `path`
//! (`flow/read`, `flow/ls`) into `T/<it>` (or, when a read or ls law gives
//! a `cwd`, sends its `path` as written with `cwd` = `T/<cwd>`), runs
//! `flow/bash` commands with `cwd` = `T` (or `T/<cwd>`), and reads answers
//! back as if it had run from
//! inside `T` (`T/src/a.ts` reads `src/a.ts`, a notice about `T` reads `.`).
//!
//! Coverage ([`uncovered_sections`]): every section §2–§18 of
//! `search-contract.md` and every section of `read-ls-flows.md` needs a law.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use crate::call::Call;
use crate::contract::normalize::{glob_defaults, grep_defaults};
use crate::contract::{GlobRequest, GrepRequest, normalize_path};
use crate::kit::case::rebase;
use crate::kit::plan::{FileKind, GeneratedFile};
use crate::peer::{Method, Search};

mod tree;
pub use tree::Tree;

/// One law file: a list of laws.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LawFile {
    #[serde(rename = "law", default)]
    laws: Vec<Law>,
}

/// One law.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Law {
    /// A short kebab-case name, unique within its file.
    pub name: String,
    /// The spec section it pins, e.g. `search-contract §13.1`.
    pub spec: String,
    /// Where the spec is silent or ambiguous: what was chosen and why.
    #[serde(default)]
    pub decision: Option<String>,
    /// `grep`, `glob` (peer-level, normalised input with defaults filled
    /// but *not* validated), `flow/grep`, `flow/glob` (the whole flow:
    /// lawsuite's flow layer over the peer's seam, or the peer's own when
    /// it declares the flow), or the file flows `flow/read`, `flow/ls`,
    /// `flow/bash`.
    pub method: Method,
    /// The call's input; `root` (or `path`, `cwd`) is relative to the tree
    /// (default `.`).
    pub input: toml::Table,
    /// The tree: path → content.
    #[serde(default)]
    pub tree: BTreeMap<String, Entry>,
    /// The expected answer, when the call succeeds.
    #[serde(default)]
    pub expect: Option<toml::Table>,
    /// The expected failure code, when it fails.
    #[serde(default)]
    pub expect_error: Option<String>,
    /// The expected failure message (optional; codes are what peers must
    /// agree on, but a law may pin the contract's exact text).
    #[serde(default)]
    pub expect_message: Option<String>,
    /// Top-level keys of the answer that are arrays too long to spell out,
    /// with their expected length: they are checked by length only and
    /// must not appear in `expect`.
    #[serde(default)]
    pub expect_lengths: BTreeMap<String, usize>,
}

/// A piece of generated text: a string, or a table repeating `text` (or the
/// concatenation of `parts`) `repeat` times (default once). Used for file
/// contents (`parts` of a tree entry) and for long expected strings.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Piece {
    /// Literal text.
    Text(String),
    /// Repeated text.
    Repeat(Repeat),
}

/// The table form of a [`Piece`].
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repeat {
    /// The text to repeat.
    #[serde(default)]
    pub text: Option<String>,
    /// Or pieces to concatenate, then repeat.
    #[serde(default)]
    pub parts: Option<Vec<Piece>>,
    /// How many times; default 1.
    #[serde(default)]
    pub repeat: Option<usize>,
}

/// The most text one law may generate (a file or an expected string): far
/// above any cap of the spec, far below what would exhaust memory.
const MAX_GENERATED: usize = 256 << 20;

/// The most entries one `count` form may make: ten times the largest cap
/// the spec counts to (1,000 glob entries), and small enough that writing
/// them takes well under a second.
pub const MAX_COUNT: usize = 10_000;

/// The largest `size` a sparse file may be given: 1 GiB, sixteen times the
/// 64 MiB read cap the `size` form exists to get past.
pub const MAX_SIZE: u64 = 1 << 30;

impl Piece {
    /// The text, or why it cannot be built.
    fn expand(&self, out: &mut String) -> Result<(), String> {
        match self {
            Piece::Text(text) => out.push_str(text),
            Piece::Repeat(r) => {
                let mut once = String::new();
                match (&r.text, &r.parts) {
                    (Some(text), None) => once.push_str(text),
                    (None, Some(parts)) => {
                        for part in parts {
                            part.expand(&mut once)?;
                        }
                    }
                    _ => return Err("a repeated piece gives `text` or `parts`, not both".into()),
                }
                let times = r.repeat.unwrap_or(1);
                if once.len().saturating_mul(times).saturating_add(out.len()) > MAX_GENERATED {
                    return Err(format!(
                        "generated text is over {MAX_GENERATED} bytes; use `size` for big files"
                    ));
                }
                for _ in 0..times {
                    out.push_str(&once);
                }
            }
        }
        Ok(())
    }
}

/// A tree entry: plain text, or a table for bytes, directories, links and modes.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Entry {
    /// A file holding this UTF-8 text (TOML escapes such as `\u0000` work).
    Text(String),
    /// Anything else.
    Spec(EntrySpec),
}

/// The table form of a tree entry.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntrySpec {
    /// File content as text.
    #[serde(default)]
    pub text: Option<String>,
    /// File content as bytes written with `\xNN` escapes (and `\\`).
    #[serde(default)]
    pub bytes: Option<String>,
    /// Repeat `text` this many times (for long lines and big files).
    #[serde(default)]
    pub repeat: Option<usize>,
    /// File content as a list of [`Piece`]s, concatenated (instead of
    /// `text` or `bytes`).
    #[serde(default)]
    pub parts: Option<Vec<Piece>>,
    /// Make the file this many bytes long by extending it with a hole
    /// (zeros that take no disk space): for files over the 64 MiB read cap.
    #[serde(default)]
    pub size: Option<u64>,
    /// A named pipe (`mkfifo`), never opened by the runner.
    #[serde(default)]
    pub fifo: bool,
    /// A unix-domain socket file.
    #[serde(default)]
    pub socket: bool,
    /// Make this many entries: the path holds `{i}`, replaced by `0`,
    /// `1`, … zero-padded to the width of the largest index.
    #[serde(default)]
    pub count: Option<usize>,
    /// An empty directory.
    #[serde(default)]
    pub dir: bool,
    /// A symlink with this (relative) target.
    #[serde(default)]
    pub symlink: Option<String>,
    /// Unix permission bits, e.g. `0o000`.
    #[serde(default)]
    pub mode: Option<u32>,
}

/// A law file problem: reported as its own failing trial; the rest runs.
#[derive(Debug)]
pub struct LawError {
    /// The file.
    pub file: PathBuf,
    /// The law, when the problem is in one.
    pub law: Option<String>,
    /// What is wrong (with the line for parse errors).
    pub message: String,
}

impl fmt::Display for LawError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.law {
            Some(law) => write!(f, "{}: law {law:?}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for LawError {}

/// A loaded law with where it came from.
#[derive(Clone, Debug)]
pub struct LoadedLaw {
    /// `area::file::name`, e.g. `grep::context::tie-goes-to-earlier`.
    pub id: String,
    /// The file.
    pub file: PathBuf,
    /// The law.
    pub law: Law,
}

/// Every `*.toml` under `dir` (recursively), parsed; problems are returned
/// beside the good laws so one bad file never hides the others. A missing
/// or unreadable directory is one problem, not an empty set of laws.
pub fn load_dir(dir: &Path) -> (Vec<LoadedLaw>, Vec<LawError>) {
    if !dir.is_dir() {
        return (
            Vec::new(),
            vec![LawError {
                file: dir.to_path_buf(),
                law: None,
                message: "is not a directory of law files; give a directory holding *.toml laws"
                    .into(),
            }],
        );
    }
    let mut files = Vec::new();
    collect(dir, &mut files);
    files.sort();
    let texts = files.into_iter().map(|file| {
        let rel = file
            .strip_prefix(dir)
            .unwrap_or(&file)
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&file).map_err(|e| format!("cannot be read ({e})"));
        (file, rel, text)
    });
    load_texts(texts)
}

/// The laws lawsuite ships ([`crate::shipped::laws`]), compiled into the
/// library: the same ids wherever it runs. Their files are named
/// `laws/<path>` in reports.
pub fn shipped() -> (Vec<LoadedLaw>, Vec<LawError>) {
    shipped_where(|_| true)
}

/// The shipped laws of the files whose id prefix (`grep::context` for
/// `laws/grep/context.toml`) `wanted` admits: a process that runs one law
/// parses one file.
pub fn shipped_where(wanted: impl Fn(&str) -> bool) -> (Vec<LoadedLaw>, Vec<LawError>) {
    let files = crate::shipped::laws()
        .iter()
        .filter(|(rel, _)| wanted(&rel.trim_end_matches(".toml").replace('/', "::")));
    load_texts(files.map(|(rel, text)| {
        (
            Path::new("laws").join(rel),
            rel.to_string(),
            Ok(text.to_string()),
        )
    }))
}

/// Parse one law file's `text`, as if it were `rel` (e.g. `grep/x.toml`)
/// under a law directory: the laws, and the problems beside them.
///
/// ```
/// let (laws, problems) = lawsuite::law::load_text("grep/x.toml", "[[law]]\nname = 3\n");
/// assert!(laws.is_empty() && problems[0].to_string().contains("line 2"));
/// ```
pub fn load_text(rel: &str, text: &str) -> (Vec<LoadedLaw>, Vec<LawError>) {
    load_texts(std::iter::once((
        PathBuf::from(rel),
        rel.to_string(),
        Ok(text.to_string()),
    )))
}

/// Parse law files given as `(file, path relative to the law root, text)`;
/// the id prefix is the relative path without `.toml`, `/` as `::`.
fn load_texts(
    files: impl Iterator<Item = (PathBuf, String, Result<String, String>)>,
) -> (Vec<LoadedLaw>, Vec<LawError>) {
    let mut laws = Vec::new();
    let mut errors = Vec::new();
    for (file, rel, text) in files {
        let prefix = rel.trim_end_matches(".toml").replace('/', "::");
        let text = match text {
            Ok(t) => t,
            Err(message) => {
                errors.push(LawError {
                    file,
                    law: None,
                    message,
                });
                continue;
            }
        };
        let parsed: LawFile = match toml::from_str(&text) {
            Ok(p) => p,
            Err(e) => {
                errors.push(LawError {
                    file,
                    law: None,
                    message: format!("is not a valid law file: {e}"),
                });
                continue;
            }
        };
        let mut seen = std::collections::HashSet::new();
        for law in parsed.laws {
            if let Err(message) = check(&law) {
                errors.push(LawError {
                    file: file.clone(),
                    law: Some(law.name.clone()),
                    message,
                });
                continue;
            }
            if !seen.insert(law.name.clone()) {
                errors.push(LawError {
                    file: file.clone(),
                    law: Some(law.name.clone()),
                    message: "the name is used twice in this file; names must be unique".into(),
                });
                continue;
            }
            laws.push(LoadedLaw {
                id: format!("{prefix}::{}", law.name),
                file: file.clone(),
                law,
            });
        }
    }
    (laws, errors)
}

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

/// The static checks of one law.
fn check(law: &Law) -> Result<(), String> {
    if !law.spec.contains('§') {
        return Err(format!(
            "`spec` must name a section, e.g. \"search-contract §13.1\", not {:?}",
            law.spec
        ));
    }
    match (&law.expect, &law.expect_error) {
        (Some(_), None) | (None, Some(_)) => {}
        _ => return Err("give exactly one of `expect` and `expect_error`".into()),
    }
    if law.expect_message.is_some() && law.expect_error.is_none() {
        return Err("`expect_message` goes with `expect_error`".into());
    }
    let text = |key: &str| -> Result<Option<&str>, String> {
        law.input
            .get(key)
            .map(|v| v.as_str().ok_or(format!("`input.{key}` must be a string")))
            .transpose()
    };
    for key in ["root", "path", "cwd"] {
        if let Some(value) = text(key)? {
            // A read or ls path relative to a `cwd` is checked from there
            // (`../x` from `sub` stays in the tree).
            let value = match (key, text("cwd")?) {
                ("path", Some(cwd)) => format!("{cwd}/{value}"),
                _ => value.to_string(),
            };
            inside(&value).map_err(|e| format!("`input.{key}` {e}"))?;
        }
    }
    if matches!(law.method, Method::FlowRead | Method::FlowLs) && !law.input.contains_key("path") {
        return Err(format!("{} needs `input.path`", law.method));
    }
    if let Some(table) = &law.expect {
        if let Some(key) = law.expect_lengths.keys().find(|k| table.contains_key(*k)) {
            return Err(format!(
                "`{key}` is in `expect_lengths`, so it cannot be in `expect` too"
            ));
        }
    } else if !law.expect_lengths.is_empty() {
        return Err("`expect_lengths` goes with `expect`".into());
    }
    for (path, entry) in &law.tree {
        inside(path).map_err(|e| format!("tree path {path:?} {e}"))?;
        if let Entry::Spec(spec) = entry {
            if let Some(target) = &spec.symlink {
                if target.starts_with('/') {
                    return Err(format!(
                        "symlink {path:?} points outside the tree ({target:?}); use a relative target"
                    ));
                }
            }
            if spec.count.is_some() != path.contains("{i}") {
                return Err(format!(
                    "tree path {path:?}: `count` and a `{{i}}` in the path go together"
                ));
            }
            if let Some(count) = spec.count.filter(|n| *n > MAX_COUNT) {
                return Err(format!(
                    "tree path {path:?}: `count = {count}` is over the limit of {MAX_COUNT} entries; a law pins one rule on a small tree"
                ));
            }
            if let Some(size) = spec.size.filter(|n| *n > MAX_SIZE) {
                return Err(format!(
                    "tree path {path:?}: `size = {size}` is over the limit of {MAX_SIZE} bytes (1 GiB)"
                ));
            }
        }
    }
    Ok(())
}

/// A path must stay inside the tree.
fn inside(path: &str) -> Result<(), String> {
    if path.starts_with('/') {
        return Err("is absolute; write it relative to the tree".into());
    }
    let normal = normalize_path(path);
    if normal == ".." || normal.starts_with("../") {
        return Err("leaves the tree".into());
    }
    Ok(())
}

/// Decode `\xNN` and `\\` escapes.
fn unescape_bytes(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            match bytes.get(i + 1) {
                Some(b'\\') => {
                    out.push(b'\\');
                    i += 2;
                }
                Some(b'x') => {
                    let hex = text
                        .get(i + 2..i + 4)
                        .ok_or("a \\x escape needs two hex digits")?;
                    out.push(
                        u8::from_str_radix(hex, 16)
                            .map_err(|_| format!("bad \\x escape {hex:?}"))?,
                    );
                    i += 4;
                }
                _ => return Err("only \\xNN and \\\\ escapes are allowed in `bytes`".into()),
            }
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Ok(out)
}

/// The tree as plan files, and the special entries (FIFOs, sockets, sizes)
/// the plan format has no kind for, made after it is written.
fn files(law: &Law) -> Result<(Vec<GeneratedFile>, Vec<Special>), String> {
    let mut out = Vec::new();
    let mut special = Vec::new();
    for (path, entry) in &law.tree {
        let spec = match entry {
            Entry::Text(text) => {
                out.push(GeneratedFile::new(path.clone(), text.clone()));
                continue;
            }
            Entry::Spec(spec) => spec,
        };
        let paths: Vec<String> = match spec.count {
            None => vec![path.clone()],
            Some(n) => {
                let width = n.saturating_sub(1).to_string().len();
                (0..n)
                    .map(|i| path.replace("{i}", &format!("{i:0width$}")))
                    .collect()
            }
        };
        for path in paths {
            if spec.fifo || spec.socket {
                special.push(if spec.fifo {
                    Special::Fifo(path)
                } else {
                    Special::Socket(path)
                });
                continue;
            }
            let mut f = if spec.dir {
                GeneratedFile::dir(path.clone())
            } else if let Some(target) = &spec.symlink {
                GeneratedFile::symlink(path.clone(), target.clone())
            } else {
                let mut content = match (&spec.text, &spec.bytes, &spec.parts) {
                    (Some(t), None, None) => t.clone().into_bytes(),
                    (None, Some(b), None) => unescape_bytes(b)?,
                    (None, None, Some(parts)) => {
                        let mut text = String::new();
                        for part in parts {
                            part.expand(&mut text)
                                .map_err(|e| format!("{path:?}: {e}"))?;
                        }
                        text.into_bytes()
                    }
                    (None, None, None) => Vec::new(),
                    _ => {
                        return Err(format!("{path:?}: give one of `text`, `bytes` and `parts`"));
                    }
                };
                if let Some(n) = spec.repeat {
                    if content.len().saturating_mul(n) > MAX_GENERATED {
                        return Err(format!(
                            "{path:?}: the content is over {MAX_GENERATED} bytes; use `size`"
                        ));
                    }
                    content = content.repeat(n);
                }
                if let Some(size) = spec.size {
                    special.push(Special::Size(path.clone(), size));
                }
                GeneratedFile::new(path.clone(), content)
            };
            if let Some(mode) = spec.mode {
                f = f.with_mode(mode);
            }
            out.push(f);
        }
    }
    // Directories and files before links, so a link's target exists first.
    out.sort_by_key(|f| matches!(f.kind, FileKind::Symlink));
    Ok((out, special))
}

/// A tree entry made after the plan files are written.
#[derive(Debug)]
enum Special {
    /// A named pipe.
    Fifo(String),
    /// A unix-domain socket file.
    Socket(String),
    /// A file extended to this many bytes.
    Size(String, u64),
}

impl Special {
    /// Make the entry under `root` (its directory is made too).
    fn make(&self, root: &Path) -> Result<(), String> {
        let (path, what) = match self {
            Special::Fifo(p) => (p, "fifo"),
            Special::Socket(p) => (p, "socket"),
            Special::Size(p, _) => (p, "size"),
        };
        let failed = |e: &dyn fmt::Display| format!("cannot make the {what} entry {path:?}: {e}");
        // The one checked path every entry kind takes: no parent may be a
        // symlink (a law's `out = { symlink = ".." }` would otherwise put
        // `out/pwned` outside the tree), nor the entry itself.
        let target = crate::kit::materialize::place(root, path).map_err(|e| failed(&e))?;
        match self {
            Special::Fifo(_) => {
                let status = std::process::Command::new("mkfifo")
                    .arg(&target)
                    .status()
                    .map_err(|e| failed(&e))?;
                if !status.success() {
                    return Err(failed(&format!("mkfifo exited with {status}")));
                }
            }
            #[cfg(unix)]
            Special::Socket(_) => {
                // Binding creates the socket file; it stays after the
                // listener is dropped, with nobody listening.
                std::os::unix::net::UnixListener::bind(&target).map_err(|e| failed(&e))?;
            }
            #[cfg(not(unix))]
            Special::Socket(_) => return Err(failed(&"sockets are unix-only")),
            Special::Size(_, size) => {
                // `place` has made sure the path is not a symlink, so this
                // opens the plan's own file.
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&target)
                    .map_err(|e| failed(&e))?;
                file.set_len(*size).map_err(|e| failed(&e))?;
            }
        }
        Ok(())
    }
}

/// Expand every table of `value` that is a [`Piece`] (keys among `text`,
/// `parts`, `repeat`, with `parts` or `repeat` present) into its string, so
/// an expected answer can spell a 60,000-byte page in one line.
fn expand_pieces(value: &mut Value) -> Result<(), String> {
    match value {
        Value::Object(map) => {
            let piece_like = !map.is_empty()
                && map
                    .keys()
                    .all(|k| matches!(k.as_str(), "text" | "parts" | "repeat"))
                && (map.contains_key("parts") || map.contains_key("repeat"));
            if piece_like {
                let piece: Piece = serde_json::from_value(Value::Object(map.clone()))
                    .map_err(|e| format!("a repeated piece is not valid: {e}"))?;
                let mut text = String::new();
                piece.expand(&mut text)?;
                *value = Value::String(text);
                return Ok(());
            }
            for v in map.values_mut() {
                expand_pieces(v)?;
            }
        }
        Value::Array(items) => {
            for v in items {
                expand_pieces(v)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn table_to_json(table: &toml::Table) -> Result<Value, String> {
    serde_json::to_value(table).map_err(|e| e.to_string())
}

/// How one law went on one peer.
#[derive(Clone, Debug, PartialEq)]
pub enum LawOutcome {
    /// The answer is the expected one.
    Pass,
    /// The peer answered, and not as the law expects.
    Fail(LawFailure),
    /// The law could not even be put to the peer (its tree cannot be
    /// written, its input does not parse): a problem of the law or the
    /// host, never the peer's answer, so it never satisfies an expected
    /// failure.
    Broken(String),
}

/// What a failing law expected and got, both read as if run from inside
/// the tree (`T/src/a.ts` reads `src/a.ts`).
#[derive(Clone, Debug, PartialEq)]
pub struct LawFailure {
    /// The expected answer (a failure as `{"failure": code}`), without the
    /// keys checked by length.
    pub expected: Value,
    /// The peer's answer, compared the same way; a failure with its
    /// message, which the comparison leaves out.
    pub actual: Value,
    /// Every difference, one sentence each: the answer, array lengths, the
    /// message.
    pub problems: Vec<String>,
}

/// The call a law makes, with its tree at `real` (the law's relative
/// `root`, `path` or `cwd` turned into `real/<it>`).
fn law_call(l: &Law, real: &str) -> Result<Call, String> {
    let mut input = table_to_json(&l.input)?;
    // `{tree}` spells the tree's absolute path, for rules about inputs
    // that repeat it (search-contract §16's root-relative suffix: a glob
    // `<T>/globs/**/*.ts` under the root `<T>/globs`).
    substitute_tree(&mut input, real);
    let inside_tree = |relative: Option<&str>| match relative.unwrap_or(".") {
        "." => real.to_string(),
        rel => format!("{real}/{rel}"),
    };
    // The one field naming a place in the tree, per method. A read or ls
    // law that gives a `cwd` sends its `path` as written, relative to the
    // `cwd` (read-ls-flows §1.3, §1.6); otherwise the path is made absolute.
    let key = match l.method {
        Method::FlowRead | Method::FlowLs if !l.input.contains_key("cwd") => "path",
        Method::FlowRead | Method::FlowLs | Method::FlowBash => "cwd",
        _ => "root",
    };
    let place = inside_tree(input.get(key).and_then(Value::as_str));
    if let Some(obj) = input.as_object_mut() {
        obj.insert(key.into(), Value::String(place));
    }
    let parse_err = |e: serde_json::Error| format!("the input is not valid for {}: {e}", l.method);
    // Seam laws write a request and get the contract's defaults filled in
    // (but no validation: the seam trusts its input).
    match l.method {
        Method::Grep => {
            let req: GrepRequest = serde_json::from_value(input).map_err(parse_err)?;
            Ok(Call::Grep(grep_defaults(&req)))
        }
        Method::Glob => {
            let req: GlobRequest = serde_json::from_value(input).map_err(parse_err)?;
            Ok(Call::Glob(glob_defaults(&req)))
        }
        method => Call::parse(method, input).map_err(|e| e.to_string()),
    }
}

/// Replace `{tree}` by `real` in every string of `value`.
fn substitute_tree(value: &mut Value, real: &str) {
    match value {
        Value::String(s) if s.contains(TREE) => *s = s.replace(TREE, real),
        Value::Array(items) => items.iter_mut().for_each(|v| substitute_tree(v, real)),
        Value::Object(map) => map.values_mut().for_each(|v| substitute_tree(v, real)),
        _ => {}
    }
}

/// What a law's input writes for the tree's absolute path.
const TREE: &str = "{tree}";

/// Run one law on one peer: [`Setup::new`], then [`Setup::judge`].
pub fn run(law: &LoadedLaw, peer: &dyn Search) -> LawOutcome {
    match Setup::new(law) {
        Ok(setup) => setup.judge(peer),
        Err(why) => LawOutcome::Broken(why),
    }
}

/// Whether a call of `method` leaves its tree as it found it: every
/// method but `flow/bash` (search, listing and reading only).
fn only_reads(method: Method) -> bool {
    method != Method::FlowBash
}

/// A law made ready to ask peers: its [`Tree`] written, its call and
/// expected answer built. Peers may share one setup when the law
/// [only reads its tree](Setup::shared); the engine asks every peer of a
/// law with one, so a tree is written once per law, not once per peer.
#[derive(Debug)]
pub struct Setup {
    /// The law's checks beyond the answer (kept, not borrowed, so a setup
    /// can outlive the trial that made it).
    method: Method,
    expect_lengths: BTreeMap<String, usize>,
    expect_message: Option<String>,
    tree: Arc<Tree>,
    call: Call,
    expected: Value,
}

impl Setup {
    /// Write the law's tree and build its call; a law that cannot be set
    /// up is broken ([`LawOutcome::Broken`]), for the reason given here,
    /// which names its file and name.
    pub fn new(law: &LoadedLaw) -> Result<Setup, String> {
        Setup::on(law, Arc::new(Tree::write(law)?))
    }

    /// Build the law's call on `tree`, already written (by this law or by
    /// one with the same [`Tree::key`]).
    pub fn on(law: &LoadedLaw, tree: Arc<Tree>) -> Result<Setup, String> {
        let broken = |e: String| format!("{}: law {}: {e}", law.file.display(), law.law.name);
        let l = &law.law;
        let real = tree.path().to_string_lossy().into_owned();
        let call = law_call(l, &real).map_err(broken)?;
        let mut expected = match (&l.expect, &l.expect_error) {
            (Some(table), _) => table_to_json(table).map_err(broken)?,
            (None, Some(code)) => serde_json::json!({ "failure": code }),
            (None, None) => return Err(broken("a law needs `expect` or `expect_error`".into())),
        };
        expand_pieces(&mut expected).map_err(broken)?;
        Ok(Setup {
            method: l.method,
            expect_lengths: l.expect_lengths.clone(),
            expect_message: l.expect_message.clone(),
            tree,
            call,
            expected,
        })
    }

    /// A peer changed this setup's tree: ask no one else on it.
    pub fn is_spoiled(&self) -> bool {
        self.tree.is_spoiled()
    }

    /// The tree the law's call is asked on.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// May several laws and peers be asked on one tree of `law`'s? Every
    /// method but `flow/bash` only reads it; a bash command may write, and
    /// the next peer must not see what the last one left.
    pub fn shares_tree(law: &Law) -> bool {
        only_reads(law.method)
    }

    /// May several peers be asked on this one tree? See
    /// [`Setup::shares_tree`].
    pub fn shared(&self) -> bool {
        only_reads(self.method)
    }

    /// Ask `peer` and compare its answer with the law's.
    pub fn judge(&self, peer: &dyn Search) -> LawOutcome {
        let real = self.tree.path().to_string_lossy();
        let answer = with_message(peer, &self.call);
        // Read the answer as if run from inside the tree.
        let answer = rebase(&rebase(&answer, &format!("{real}/"), ""), &real, ".");
        // Failures compare by code; the message, when present, is checked apart.
        let mut actual = crate::kit::case::comparable(&answer);
        let mut problems = Vec::new();
        for (key, want) in &self.expect_lengths {
            let got = actual.as_object_mut().and_then(|obj| obj.shift_remove(key));
            match got.as_ref().and_then(Value::as_array).map(Vec::len) {
                Some(len) if len == *want => {}
                Some(len) => problems.push(format!("`{key}` holds {len} items, not {want}")),
                None => problems.push(format!("`{key}` is not an array in the answer")),
            }
        }
        if actual != self.expected {
            problems.insert(0, "the answer differs from the expected one".into());
        }
        if self.shared() {
            if let Some(change) = self.tree.changes() {
                problems.push(format!(
                    "the peer changed the law's tree, which {} only reads: {change}",
                    self.method.name()
                ));
            }
        }
        if let (Some(want), Some(got)) = (
            &self.expect_message,
            answer.get("message").and_then(Value::as_str),
        ) {
            if got != want {
                problems.push(format!(
                    "the message differs:\n  expected: {want}\n  actual:   {got}"
                ));
            }
        }
        if problems.is_empty() {
            LawOutcome::Pass
        } else {
            // Compared by code, a failure is shown with the peer's message
            // (an external peer's `data.message`), so the report says why.
            if answer.get("failure").is_some() {
                actual = crate::kit::case::for_report(answer);
            }
            LawOutcome::Fail(LawFailure {
                expected: self.expected.clone(),
                actual,
                problems,
            })
        }
    }
}

/// The law's tree for a report: each entry's path and what it holds (text
/// shortened past [`TREE_PREVIEW`] characters, links, directories, the
/// special forms by name).
pub fn tree_listing(law: &Law) -> Vec<(String, String)> {
    law.tree
        .iter()
        .map(|(path, entry)| {
            let what = match entry {
                Entry::Text(text) => preview(text),
                Entry::Spec(spec) => {
                    let mut parts = Vec::new();
                    if let Some(n) = spec.count {
                        parts.push(format!("{n} entries"));
                    }
                    if spec.dir {
                        parts.push("a directory".into());
                    }
                    if let Some(target) = &spec.symlink {
                        parts.push(format!("a symlink to {target:?}"));
                    }
                    if spec.fifo {
                        parts.push("a named pipe".into());
                    }
                    if spec.socket {
                        parts.push("a socket".into());
                    }
                    if let Some(text) = &spec.text {
                        parts.push(preview(text));
                    }
                    if let Some(bytes) = &spec.bytes {
                        parts.push(format!("bytes {}", preview(bytes)));
                    }
                    if spec.parts.is_some() {
                        let mut text = String::new();
                        let built = spec
                            .parts
                            .iter()
                            .flatten()
                            .try_for_each(|p| p.expand(&mut text));
                        parts.push(match built {
                            Ok(()) => preview(&text),
                            Err(e) => e,
                        });
                    }
                    if let Some(n) = spec.repeat {
                        parts.push(format!("repeated {n} times"));
                    }
                    if let Some(size) = spec.size {
                        parts.push(format!("extended to {size} bytes"));
                    }
                    if let Some(mode) = spec.mode {
                        parts.push(format!("mode {mode:o}"));
                    }
                    if parts.is_empty() {
                        parts.push("an empty file".into());
                    }
                    parts.join(", ")
                }
            };
            (path.clone(), what)
        })
        .collect()
}

/// How much of a file's text a report shows.
pub const TREE_PREVIEW: usize = 240;

fn preview(text: &str) -> String {
    let count = text.chars().count();
    if count <= TREE_PREVIEW {
        return format!("{text:?}");
    }
    let head: String = text.chars().take(TREE_PREVIEW).collect();
    format!("{head:?}… ({count} characters)")
}

/// Make the call; a failure renders as `{"failure": code, "message": ...}`,
/// a panic as `{"panic": message}` (one broken peer never stops a run).
fn with_message(peer: &dyn Search, call: &Call) -> Value {
    let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| call.run(peer)));
    match answer {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => serde_json::json!({ "failure": e.code, "message": e.message }),
        Err(payload) => serde_json::json!({ "panic": crate::kit::case::panic_message(&*payload) }),
    }
}

/// The sections of `read-ls-flows.md` every law set must pin: `read`
/// (§1.1–§1.7), `ls` (§2.1–§2.4), glob paging (§3) and the `bash` capture
/// rules (§4).
pub const READ_LS_SECTIONS: [&str; 13] = [
    "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "2.1", "2.2", "2.3", "2.4", "3", "4",
];

/// The sections no law pins, e.g. `search-contract §5` or `read-ls-flows
/// §1.6`: every `search-contract` section §2–§18 (a law on §13.1 covers
/// §13) and every one of [`READ_LS_SECTIONS`] (exactly, or by one of its
/// subsections).
pub fn uncovered_sections(laws: &[LoadedLaw]) -> Vec<String> {
    let mut search = std::collections::BTreeSet::new();
    let mut flows = std::collections::BTreeSet::new();
    for law in laws {
        let spec = &law.law.spec;
        let Some(after) = spec.split('§').nth(1) else {
            continue;
        };
        let section: String = after
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let section = section.trim_end_matches('.');
        if spec.starts_with("search-contract") {
            let digits: String = section.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = digits.parse::<u32>() {
                search.insert(n);
            }
        } else if spec.starts_with("read-ls-flows") {
            flows.insert(section.to_string());
        }
    }
    let mut out: Vec<String> = (2..=18)
        .filter(|n| !search.contains(n))
        .map(|n| format!("search-contract §{n}"))
        .collect();
    for section in READ_LS_SECTIONS {
        let covered = flows
            .iter()
            .any(|s| s == section || s.starts_with(&format!("{section}.")));
        if !covered {
            out.push(format!("read-ls-flows §{section}"));
        }
    }
    out
}

#[cfg(test)]
mod tests;
