//! The plan: a generated tree plus the calls to run over it
//! (conformance-kit §1, §2.3).
//!
//! A [`Plan`] is plain data. It records which generator made it and with
//! which seed, so a regression file holding a plan names its origin (STYLE:
//! "regressions name their origin"), and it serialises to JSON whose bytes
//! depend only on the generator, the seed, the root and the generator's
//! options ([`PlanOptions`] for `smthrs`,
//! [`crate::kit::lawsuite::GeneratorOptions`] for `lawsuite`).
//!
//! File contents are bytes: the `smthrs` generator never produces invalid
//! UTF-8 (§2.3 "the generator deliberately avoids … NUL bytes"), but a
//! hand-written or shrunk plan may, and so does the `lawsuite` generator's
//! full ground. See [`GeneratedFile`] for how they appear in JSON, and for
//! the directory and symlink entries that ground also needs.

use serde::{Deserialize, Serialize};

use crate::contract::{GlobInput, GrepInput};
use crate::flow::{LsRequest, ReadRequest};
use crate::peer::Ground;

/// One entry of a generated tree (§1): a `/`-separated path relative to the
/// tree root, and its bytes.
///
/// In JSON, `content` is a string when the bytes are valid UTF-8 — the
/// common case, and the one that keeps regression files readable — and
/// otherwise an array of byte values (`0..=255`). Both forms are accepted
/// when reading.
///
/// Beyond §1, an entry may be an empty directory or a symlink ([`FileKind`])
/// and may carry unix permission bits (`mode`), so that the `lawsuite`
/// generator's full ground ([`crate::kit::lawsuite`]) can describe dangling
/// links, link loops and unreadable directories. These keys are omitted
/// from JSON when they hold their defaults, so a plain file serialises
/// exactly as before: `{"path":…,"content":…}`. Key order is
/// `path, kind?, target?, content, mode?`.
///
/// ```
/// use lawsuite::kit::plan::GeneratedFile;
/// let text = GeneratedFile::new("one/a.ts", "needle\n");
/// assert_eq!(serde_json::to_string(&text)?, r#"{"path":"one/a.ts","content":"needle\n"}"#);
///
/// let raw = GeneratedFile::new("bad.txt", vec![b'a', 0xff]);
/// let json = serde_json::to_string(&raw)?;
/// assert_eq!(json, r#"{"path":"bad.txt","content":[97,255]}"#);
/// assert_eq!(serde_json::from_str::<GeneratedFile>(&json)?, raw);
///
/// let link = GeneratedFile::symlink("one/link", "../a.txt");
/// assert_eq!(
///     serde_json::to_string(&link)?,
///     r#"{"path":"one/link","kind":"symlink","target":"../a.txt","content":""}"#,
/// );
/// let locked = GeneratedFile::dir("locked").with_mode(0o000);
/// assert_eq!(
///     serde_json::to_string(&locked)?,
///     r#"{"path":"locked","kind":"dir","content":"","mode":0}"#,
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GeneratedFile {
    /// Path relative to the tree root, `/`-separated, e.g. `one/two/gamma1.ts`.
    pub path: String,
    /// What to create at `path`; a regular file unless said otherwise.
    #[serde(default, skip_serializing_if = "FileKind::is_file")]
    pub kind: FileKind,
    /// For a [`FileKind::Symlink`], the link's target exactly as
    /// `symlink(2)` receives it (normally relative to the link's
    /// directory). It is only written into the link, never followed while
    /// materializing, so it may dangle or loop. `None` for other kinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The file's bytes; empty for directories and symlinks.
    #[serde(with = "content_serde")]
    pub content: Vec<u8>,
    /// Unix permission bits (e.g. `0o000` for an unreadable directory)
    /// applied after every entry has been written; `None` keeps the
    /// process's default. Not allowed on symlinks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
}

/// What a [`GeneratedFile`] entry creates. In JSON: `"file"`, `"dir"`,
/// `"symlink"`; the key is omitted for `file`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    /// A regular file holding `content` (§1, the only kind the TypeScript
    /// kit knows).
    #[default]
    File,
    /// A directory, created even when nothing is written inside it.
    Dir,
    /// A symbolic link to `target`.
    Symlink,
}

impl FileKind {
    /// Whether this is [`FileKind::File`], the default that JSON omits.
    pub fn is_file(&self) -> bool {
        matches!(self, FileKind::File)
    }
}

/// An entry's [`GeneratedFile::text_and_about`] as one line for a person:
/// the text quoted (escapes for what does not print), then the rest.
///
/// ```
/// use lawsuite::kit::plan::describe_entry;
/// assert_eq!(describe_entry(Some("x\n"), ""), r#""x\n""#);
/// assert_eq!(describe_entry(Some("x"), "mode 644"), r#""x", mode 644"#);
/// assert_eq!(describe_entry(None, "a directory"), "a directory");
/// ```
pub fn describe_entry(text: Option<&str>, about: &str) -> String {
    match (text, about.is_empty()) {
        (Some(text), true) => format!("{text:?}"),
        (Some(text), false) => format!("{text:?}, {about}"),
        (None, _) => about.to_string(),
    }
}

impl GeneratedFile {
    /// What the entry holds, for a report: its text quoted (shortened past
    /// 240 characters, invalid UTF-8 shown as escapes), `a directory`, or
    /// `a symlink to "…"`, with its mode when set.
    ///
    /// ```
    /// use lawsuite::kit::plan::GeneratedFile;
    /// assert_eq!(GeneratedFile::new("a", "x\n").describe(), r#""x\n""#);
    /// assert_eq!(GeneratedFile::symlink("l", "../t").describe(), r#"a symlink to "../t""#);
    /// ```
    pub fn describe(&self) -> String {
        let (text, about) = self.text_and_about();
        describe_entry(text.as_deref(), &about)
    }

    /// What a report says of the entry: its text when it is UTF-8 (the
    /// first 240 characters), and the rest (`a directory`, `a symlink to
    /// "../t"`, `bytes "\xff"`, `8915 bytes in all`, `mode 644`).
    ///
    /// ```
    /// use lawsuite::kit::plan::GeneratedFile;
    /// let (text, about) = GeneratedFile::new("a", "x".repeat(300)).text_and_about();
    /// assert_eq!((text.unwrap().len(), about.as_str()), (240, "300 bytes in all"));
    /// ```
    pub fn text_and_about(&self) -> (Option<String>, String) {
        const SHOWN: usize = 240;
        let mut about = Vec::new();
        let mut text = None;
        match self.kind {
            FileKind::Dir => about.push("a directory".to_string()),
            FileKind::Symlink => about.push(format!(
                "a symlink to {:?}",
                self.target.as_deref().unwrap_or("")
            )),
            FileKind::File => match std::str::from_utf8(&self.content) {
                Ok(all) => {
                    text = Some(all.chars().take(SHOWN).collect());
                    if all.chars().count() > SHOWN {
                        about.push(format!("{} bytes in all", self.content.len()));
                    }
                }
                Err(_) => {
                    let bytes: String = self
                        .content
                        .iter()
                        .take(SHOWN)
                        .map(|b| std::ascii::escape_default(*b).to_string())
                        .collect();
                    about.push(format!("bytes \"{bytes}\""));
                    if self.content.len() > SHOWN {
                        about.push(format!("{} bytes in all", self.content.len()));
                    }
                }
            },
        }
        if let Some(mode) = self.mode {
            about.push(format!("mode {mode:o}"));
        }
        (text, about.join(", "))
    }

    /// A file at `path` holding `content`.
    pub fn new(path: impl Into<String>, content: impl Into<Vec<u8>>) -> GeneratedFile {
        GeneratedFile {
            path: path.into(),
            kind: FileKind::File,
            target: None,
            content: content.into(),
            mode: None,
        }
    }

    /// An (empty) directory at `path`.
    pub fn dir(path: impl Into<String>) -> GeneratedFile {
        GeneratedFile {
            kind: FileKind::Dir,
            ..GeneratedFile::new(path, Vec::new())
        }
    }

    /// A symlink at `path` pointing at `target` (see [`GeneratedFile::target`]).
    pub fn symlink(path: impl Into<String>, target: impl Into<String>) -> GeneratedFile {
        GeneratedFile {
            kind: FileKind::Symlink,
            target: Some(target.into()),
            ..GeneratedFile::new(path, Vec::new())
        }
    }

    /// The same entry with permission bits `mode` (see [`GeneratedFile::mode`]).
    pub fn with_mode(self, mode: u32) -> GeneratedFile {
        GeneratedFile {
            mode: Some(mode),
            ..self
        }
    }
}

/// A reproducible plan (§1): the tree to build and the normalised peer
/// inputs to run over it, grep calls first (§2.3 "all grep calls are
/// generated before any glob call"), then the file-flow calls of
/// `read-ls-flows.md` (`read`, then `ls`), then the flow-level calls
/// (`flow/grep`, `flow/glob`, `flow/bash`).
///
/// Key order in JSON is `generator, version, seed, root, files, grep, glob,
/// read?, ls?`. `read` and `ls` are omitted when empty, so a `smthrs` plan
/// (which has neither) is the same bytes as the TypeScript kit's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Plan {
    /// The generator that produced the plan, e.g. `"smthrs"`
    /// ([`crate::kit::smthrs::GENERATOR`]).
    pub generator: String,
    /// The generator's version; a change to its draws bumps it, so old
    /// regression files are not silently replayed against a different tree.
    pub version: u32,
    /// The seed the plan was generated from.
    pub seed: u64,
    /// The ground it was generated on (the `lawsuite` generator's one
    /// option that changes its draws; absent in JSON when shared, so
    /// shared-ground and `smthrs` plans keep their bytes).
    #[serde(default, skip_serializing_if = "Ground::is_shared")]
    pub ground: Ground,
    /// The tree root every call's `root` starts with.
    pub root: String,
    /// The files of the tree, in generation order.
    pub files: Vec<GeneratedFile>,
    /// The `grep` inputs, in plan order.
    pub grep: Vec<GrepInput>,
    /// The `glob` inputs, in plan order.
    pub glob: Vec<GlobInput>,
    /// The `read` calls (read-ls-flows §1), in plan order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read: Vec<ReadRequest>,
    /// The `ls` calls (read-ls-flows §2), in plan order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ls: Vec<LsRequest>,
    /// Flow-level calls (`flow/grep`, `flow/glob`): the drawn inputs that
    /// validation refuses. A peer receives only validated input at its
    /// seam (search-contract §3–§5), so such an input is asked of the whole
    /// flow, where refusing it, with the exact error, is the contract.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flow: Vec<crate::call::Call>,
}

impl Plan {
    /// The number of calls of every method.
    pub fn call_count(&self) -> usize {
        self.grep.len() + self.glob.len() + self.read.len() + self.ls.len() + self.flow.len()
    }

    /// The calls of the plan in plan order: grep inputs, then glob inputs,
    /// then read and ls requests, then flow-level calls. A call's index in
    /// this list is its number everywhere (`--call N`, a regression's
    /// `callIndex`, a report's title).
    ///
    /// ```
    /// use lawsuite::kit::lawsuite::{plan, GeneratorOptions};
    /// let p = plan(3, "/r", &GeneratorOptions::default());
    /// let calls = p.calls();
    /// assert_eq!(calls.len(), p.call_count());
    /// assert_eq!(calls[0].method(), lawsuite::peer::Method::Grep);
    /// ```
    pub fn calls(&self) -> Vec<crate::call::Call> {
        use crate::call::Call;
        self.grep
            .iter()
            .cloned()
            .map(Call::Grep)
            .chain(self.glob.iter().cloned().map(Call::Glob))
            .chain(self.read.iter().cloned().map(Call::Read))
            .chain(self.ls.iter().cloned().map(Call::Ls))
            .chain(self.flow.iter().cloned())
            .collect()
    }

    /// The same plan with only call `index` (in [`Plan::calls`] order:
    /// grep, glob, read, ls, then the flow calls); an index past the end
    /// keeps none.
    ///
    /// ```
    /// use lawsuite::kit::lawsuite::{plan, GeneratorOptions};
    /// let full = plan(3, "/r", &GeneratorOptions::default());
    /// let one = full.only_call(full.grep.len() + full.glob.len());
    /// assert_eq!((one.call_count(), one.read.first()), (1, full.read.first()));
    /// ```
    pub fn only_call(&self, index: usize) -> Plan {
        fn keep<T: Clone>(list: &[T], index: &mut Option<usize>) -> Vec<T> {
            match *index {
                Some(i) if i < list.len() => {
                    *index = None;
                    vec![list[i].clone()]
                }
                Some(i) => {
                    *index = Some(i - list.len());
                    Vec::new()
                }
                None => Vec::new(),
            }
        }
        let mut at = Some(index);
        Plan {
            grep: keep(&self.grep, &mut at),
            glob: keep(&self.glob, &mut at),
            read: keep(&self.read, &mut at),
            ls: keep(&self.ls, &mut at),
            flow: keep(&self.flow, &mut at),
            ..self.clone()
        }
    }
}

/// The symbolic root plans are generated under by the CLI, the `cargo
/// test` trials and sweeps, so a replay command or regression file names the
/// same paths on every machine.
pub const PLAN_ROOT: &str = "/r";

/// How big a plan to generate (§1 `plan({ files?, calls? })`).
///
/// ```
/// use lawsuite::kit::plan::PlanOptions;
/// assert_eq!(PlanOptions::default(), PlanOptions { files: 12, calls: 12 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PlanOptions {
    /// Generated files, before the fixed ignore fixture (which is added only
    /// when this is non-zero).
    pub files: usize,
    /// Grep calls, and separately glob calls: `calls: 3` gives 3 of each.
    pub calls: usize,
}

impl Default for PlanOptions {
    /// The TypeScript kit's defaults: 12 files, 12 calls.
    fn default() -> PlanOptions {
        PlanOptions {
            files: 12,
            calls: 12,
        }
    }
}

/// `content` as a string when it is UTF-8, else as an array of bytes.
mod content_serde {
    use std::fmt;

    use serde::de::{self, SeqAccess, Visitor};
    use serde::{Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(bytes) {
            Ok(text) => serializer.serialize_str(text),
            // `collect_seq` rather than `serialize_bytes`: serde_json writes
            // both as an array of numbers, but this keeps that choice ours
            // for any other format too.
            Err(_) => serializer.collect_seq(bytes),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<u8>, D::Error> {
        deserializer.deserialize_any(ContentVisitor)
    }

    struct ContentVisitor;

    impl<'de> Visitor<'de> for ContentVisitor {
        type Value = Vec<u8>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a UTF-8 string or an array of byte values")
        }

        fn visit_str<E: de::Error>(self, text: &str) -> Result<Vec<u8>, E> {
            Ok(text.as_bytes().to_vec())
        }

        fn visit_string<E: de::Error>(self, text: String) -> Result<Vec<u8>, E> {
            Ok(text.into_bytes())
        }

        fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Vec<u8>, E> {
            Ok(bytes.to_vec())
        }

        fn visit_byte_buf<E: de::Error>(self, bytes: Vec<u8>) -> Result<Vec<u8>, E> {
            Ok(bytes)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
            let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(byte) = seq.next_element::<u8>()? {
                bytes.push(byte);
            }
            Ok(bytes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type TestResult = Result<(), Box<dyn std::error::Error>>;

    #[test]
    fn utf8_content_is_a_string() -> TestResult {
        let file = GeneratedFile::new("a.txt", "é\n");
        let json = serde_json::to_string(&file)?;
        assert_eq!(json, r#"{"path":"a.txt","content":"é\n"}"#);
        assert_eq!(serde_json::from_str::<GeneratedFile>(&json)?, file);
        Ok(())
    }

    #[test]
    fn invalid_utf8_content_round_trips_as_bytes() -> TestResult {
        let file = GeneratedFile::new("edge/invalid-utf8.txt", b"needle \xff\n".to_vec());
        let json = serde_json::to_string(&file)?;
        assert_eq!(
            json,
            r#"{"path":"edge/invalid-utf8.txt","content":[110,101,101,100,108,101,32,255,10]}"#
        );
        assert_eq!(serde_json::from_str::<GeneratedFile>(&json)?, file);
        Ok(())
    }

    #[test]
    fn content_refuses_other_shapes() {
        assert!(serde_json::from_str::<GeneratedFile>(r#"{"path":"a","content":3}"#).is_err());
        assert!(serde_json::from_str::<GeneratedFile>(r#"{"path":"a","content":[256]}"#).is_err());
    }

    #[test]
    fn kinds_and_modes_round_trip_and_default_when_absent() -> TestResult {
        let entries = [
            GeneratedFile::dir("empty"),
            GeneratedFile::dir("locked").with_mode(0),
            GeneratedFile::symlink("loop-a", "loop-b"),
            GeneratedFile::new("secret.txt", "needle\n").with_mode(0o600),
        ];
        for entry in entries {
            let json = serde_json::to_string(&entry)?;
            assert_eq!(
                serde_json::from_str::<GeneratedFile>(&json)?,
                entry,
                "{json}"
            );
        }
        let file: GeneratedFile = serde_json::from_str(r#"{"path":"a","content":"x"}"#)?;
        assert_eq!(file, GeneratedFile::new("a", "x"));
        let explicit: GeneratedFile =
            serde_json::from_str(r#"{"path":"a","kind":"file","content":"x"}"#)?;
        assert_eq!(explicit, file);
        assert!(
            serde_json::from_str::<GeneratedFile>(r#"{"path":"a","kind":"fifo","content":""}"#)
                .is_err()
        );
        Ok(())
    }

    #[test]
    fn empty_plan_key_order() -> TestResult {
        let plan = Plan {
            generator: "smthrs".into(),
            version: 1,
            seed: 7,
            ground: Ground::Shared,
            root: "/r".into(),
            files: vec![],
            grep: vec![],
            glob: vec![],
            read: vec![],
            ls: vec![],
            flow: vec![],
        };
        let json = serde_json::to_string(&plan)?;
        assert_eq!(
            json,
            r#"{"generator":"smthrs","version":1,"seed":7,"root":"/r","files":[],"grep":[],"glob":[]}"#
        );
        assert_eq!(serde_json::from_str::<Plan>(&json)?, plan);
        Ok(())
    }
}
