//! STUB — to be replaced: the symbol heuristic (§15).
use super::Symbol;
/// §15.
pub fn enclosing_symbol<S: AsRef<str>>(_lines: &[S], _line: u64) -> Option<Symbol> {
    todo!()
}
