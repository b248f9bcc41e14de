//! STUB — to be replaced: the pattern grammar (§10) and matcher (§10.4, §12).
use super::StdError;

/// §10 `validatePattern`.
pub fn validate_pattern(_pattern: &str, _fixed_strings: bool) -> Result<(), StdError> {
    todo!()
}

/// §12: `ignoreCase || (smartCase && no ASCII uppercase in pattern)`.
pub fn is_insensitive(pattern: &str, ignore_case: bool, smart_case: bool) -> bool {
    ignore_case || (smart_case && !pattern.bytes().any(|b| b.is_ascii_uppercase()))
}

/// A compiled, validated pattern.
#[derive(Debug)]
pub struct Matcher;

impl Matcher {
    /// Validate and compile.
    pub fn new(
        _pattern: &str,
        _fixed_strings: bool,
        _insensitive: bool,
    ) -> Result<Matcher, StdError> {
        todo!()
    }
    /// Exact per-line test (line without terminator).
    pub fn is_match(&self, _line: &str) -> bool {
        todo!()
    }
    /// Buffer-level candidate search.
    pub fn find_candidate(&self, _haystack: &str, _from: usize) -> Option<usize> {
        todo!()
    }
}
