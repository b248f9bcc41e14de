//! The pattern grammar "Smithers Ripgrep ASCII v1" and its matcher
//! (search-contract §10, §10.1–§10.4, §12; constants of §19; used by the
//! flow layer at §3 step 4).
//!
//! A grep pattern is the intersection of Rust `regex` and JavaScript
//! `RegExp`: printable ASCII, captures, alternation, bracket classes and
//! ordinary quantifiers. [`validate_pattern`] decides, with the reference's
//! exact messages, whether a pattern belongs to it; [`Matcher`] answers
//! "does this line match" with the reference's per-line semantics and offers
//! a buffer-level candidate search for fast scanners.
//!
//! | file | spec |
//! | --- | --- |
//! | `validate.rs` | §10 steps 1–7 in order; §10 step 5's scan |
//! | `ecma.rs` | §10 step 6: ECMAScript `u`-mode syntax and V8's reasons (§10.2) |
//! | `malformed.rs` | §10.1: the malformed-construct messages |
//! | `budget.rs` | §10.3: compiled states and group depth |
//! | `matcher.rs` | §10.4 and §12: per-line and buffer matching |
//!
//! The reference validates by compiling with V8; this port has no JS engine,
//! so step 6 is a parser for the `u`-mode grammar restricted to what steps
//! 1–5 let through. Its tree feeds both the state budget and the matcher, so
//! the three can never disagree on what a pattern means.
//!
//! ```
//! use lawsuite::contract::{Matcher, is_insensitive, validate_pattern};
//!
//! let pattern = "fn [a-z_]+\\(";
//! validate_pattern(pattern, false)?;
//! let m = Matcher::new(pattern, false, is_insensitive(pattern, false, true))?;
//! assert!(m.is_match("pub FN do_it(x)"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod budget;
mod ecma;
mod malformed;
mod matcher;
mod validate;

pub use matcher::Matcher;
pub use validate::{state_count, validate_pattern};

/// §12: whether the search is case-insensitive.
///
/// `ignore_case || (smart_case && no ASCII uppercase in pattern)`. The test
/// is on the raw pattern text, also under fixed strings and inside classes
/// (`[A-Z]` disables smart case). When both flags are set (the flow layer
/// refuses that, §3 step 1) `ignore_case` wins.
///
/// ```
/// use lawsuite::contract::is_insensitive;
/// assert!(is_insensitive("needle", false, true));
/// assert!(!is_insensitive("[A-Z]x", false, true));
/// assert!(is_insensitive("Needle", true, true));
/// assert!(!is_insensitive("needle", false, false));
/// ```
pub fn is_insensitive(pattern: &str, ignore_case: bool, smart_case: bool) -> bool {
    ignore_case || (smart_case && !pattern.bytes().any(|b| b.is_ascii_uppercase()))
}

#[cfg(test)]
mod tests;
