//! The Smithers Ripgrep Subset v1 contract as a library
//! (`search-contract.md`).
//!
//! Everything a peer, a law or a report needs to agree on lives here, one
//! module per rule of the spec:
//!
//! | module | spec section |
//! | --- | --- |
//! | [`wire`] | §2, §4, §5, §6: requests, normalised inputs, outputs |
//! | [`error`] | §17: `StdError` and the closed code list |
//! | [`normalize`] | §3, §5: flow-layer validation and defaults |
//! | [`pattern`] | §10, §12: the pattern grammar, state budget and matcher |
//! | [`glob`] | §8: caller globs, canonical form, ordered include/exclude |
//! | [`gitignore`] | §9: `.gitignore` parsing and evaluation |
//! | [`text`] | §11: decoding, lines, previews |
//! | [`grouping`] | §13.1: context ownership |
//! | [`symbols`] | §15: the enclosing-definition heuristic |
//! | [`notice`] | §14, §16: truncation, unsatisfiable-glob and ignore notices |
//! | [`order`] | conventions: UTF-16 code-unit ordering |
//! | [`paths`] | §6.4: output path spelling |
//! | [`skip`] | §7.3: the fixed skip list and the hidden rule |
//!
//! The contract is validated once, at the flow layer ([`normalize_grep`],
//! [`normalize_glob`]); peers receive a [`GrepInput`]/[`GlobInput`] and never
//! re-validate (STYLE: "validate once, then trust").

pub mod error;
pub mod gitignore;
pub mod glob;
mod globre;
pub mod grouping;
pub mod normalize;
pub mod notice;
pub mod order;
pub mod paths;
pub mod pattern;
pub mod skip;
pub mod symbols;
pub mod text;
pub mod wire;

pub use error::{ErrorCode, StdError, message_is_fixed};
pub use glob::{canonical_glob, included_by_globs, matches_glob, validate_glob};
/// The size limit on every compiled glob and `.gitignore` matcher.
pub use globre::MAX_MATCHER_BYTES;
pub use normalize::{normalize_glob, normalize_grep};
pub use order::{sort_utf16, utf16_cmp};
pub use paths::{join_path, normalize_path};
pub use pattern::{Matcher, is_insensitive, validate_pattern};
pub use wire::{
    ContextLine, GlobInput, GlobOutput, GlobRequest, GrepFlowOutput, GrepInput, GrepOutput,
    GrepRequest, Match, Symbol,
};

/// Grep limit cap and default (§19 `MAX_GREP_MATCHES`).
pub const MAX_GREP_MATCHES: u64 = 200;
/// Glob (and `ls`) page cap and default (§19 `MAX_ENTRIES`).
pub const MAX_ENTRIES: u64 = 1000;
