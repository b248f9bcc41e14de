//! The law file format: the TOML data types a law file deserialises
//! into (`laws/README.md` documents them with a worked example), the
//! limits on what a law may generate, and the expansion of [`Piece`]s.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::limits::MAX_GENERATED;
use super::problem::LawProblem;
use crate::peer::Method;

/// One law file: a list of laws.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LawFile {
    #[serde(rename = "law", default)]
    pub(super) laws: Vec<Law>,
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
    /// The expected failure code, when it fails: one of search-contract
    /// §17's codes, checked when the law is loaded (a misspelled code is a
    /// load error naming the file, not a law every peer fails).
    #[serde(default)]
    pub expect_error: Option<crate::contract::ErrorCode>,
    /// The expected failure message (optional; codes are what peers must
    /// agree on, but a law may pin the contract's exact text).
    #[serde(default)]
    pub expect_message: Option<Piece>,
    /// Top-level keys of the answer that are arrays too long to spell out,
    /// with their expected length: they are checked by length only and
    /// must not appear in `expect`.
    #[serde(default)]
    pub expect_lengths: BTreeMap<String, usize>,
}

/// A piece of generated text: a string, or a table repeating `text` (or the
/// concatenation of `parts`) `repeat` times (default once). Used for file
/// contents (`parts` of a tree entry), long inputs, long expected strings
/// and long expected messages.
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

impl Piece {
    /// The text, or why it cannot be built.
    pub(super) fn expand(&self, out: &mut String) -> Result<(), LawProblem> {
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
                    _ => return Err(LawProblem::PieceTextOrParts),
                }
                let times = r.repeat.unwrap_or(1);
                if once.len().saturating_mul(times).saturating_add(out.len()) > MAX_GENERATED {
                    return Err(LawProblem::TooMuchText);
                }
                // `repeat` copies by doubling: a 64 MiB run of one byte
                // was 64 million `push_str`s, most of a law's own time.
                let repeated = once.repeat(times);
                if out.is_empty() {
                    *out = repeated;
                } else {
                    out.push_str(&repeated);
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

/// Expand every table of `value` that is a [`Piece`] (keys among `text`,
/// `parts`, `repeat`, with `parts` or `repeat` present) into its string, so
/// an expected answer can spell a 60,000-byte page in one line, and an
/// input a 10,000-byte glob.
pub(super) fn expand_pieces(value: &mut Value) -> Result<(), LawProblem> {
    match value {
        Value::Object(map) => {
            let piece_like = !map.is_empty()
                && map
                    .keys()
                    .all(|k| matches!(k.as_str(), "text" | "parts" | "repeat"))
                && (map.contains_key("parts") || map.contains_key("repeat"));
            if piece_like {
                let piece: Piece = serde_json::from_value(Value::Object(map.clone()))
                    .map_err(LawProblem::InvalidPiece)?;
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
