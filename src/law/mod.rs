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
//!
//! # Parts
//!
//! * The format ([`Law`], its tree [`Entry`]s, generated text as
//!   [`Piece`]s), what a law file deserialises into.
//! * Loading: [`load_dir`], [`shipped`] (the laws compiled into the
//!   library) and [`load_text`] give [`LoadedLaw`]s, each checked, with a
//!   [`LawError`] beside them for every problem.
//! * Running: [`Setup`] writes a law's [`Tree`] and builds its call and
//!   expected answer, then [judges](Setup::judge) a peer's answer to a
//!   [`LawOutcome`]; [`run`] does both for one peer. [`tree_listing`]
//!   shows a law's tree in a report.
//! * Coverage, as above: [`uncovered_sections`] of the spec and of
//!   [`READ_LS_SECTIONS`].
//! * Drafting (feature `tools`): `draft` turns a kept regression into a
//!   law and appends it to a law file, checked by the loader above.

mod call;
mod coverage;
#[cfg(feature = "tools")]
pub mod draft;
mod format;
mod limits;
mod load;
mod problem;
mod run;
mod tree;

pub use coverage::{READ_LS_SECTIONS, uncovered_sections};
pub use format::{Entry, EntrySpec, Law, Piece, Repeat};
pub use limits::{MAX_COUNT, MAX_SIZE};
pub use load::{LoadedLaw, load_dir, load_text, shipped, shipped_where};
pub use problem::{Escape, LawError, LawProblem, SetupError};
pub use run::{LawFailure, LawOutcome, Setup, run};
pub use tree::{TREE_PREVIEW, Tree, tree_listing};

#[cfg(test)]
mod tests;
