//! The most bytes a correct answer to a call can hold on a known tree:
//! [`Budget`] (its documentation says how each part is counted).

use super::Call;
use super::bounds::Overrun;
use crate::contract::text::PREVIEW_MAX;
use crate::flow::MAX_ENTRIES;

/// The lengths of a written tree that bound an answer's strings, in
/// bytes (a by-product of [`crate::kit::guard::Snapshot`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeSize {
    /// The longest path of an entry, relative to the tree.
    pub longest_path: u64,
    /// The longest name of an entry (one path segment).
    pub longest_name: u64,
    /// The longest line of any file (bytes between two `\n`).
    pub longest_line: u64,
}

/// The most bytes of JSON a correct answer to one call on one tree holds.
///
/// [`Bounds`](super::Bounds) count an answer's entries from the call
/// alone. Bytes need the tree too: a glob answer's paths are as long as
/// the tree's paths, a symbol's name as long as a line (search-contract
/// §15 sets no length on a name). Where the harness wrote the tree (laws,
/// seeds, regressions), it knows those lengths before it asks, so a peer
/// that answers more bytes than any correct answer could hold (one path of
/// 60 MiB, within its `limit` of one) is refused at once, as a fault,
/// before its answer is kept, compared, reported or written to a results
/// file. Every count is an upper bound of what the spec can give, so no
/// answer the spec gives is refused:
///
/// | an answer's part | at most (bytes of JSON) |
/// | --- | --- |
/// | a path (§6.4: the root, `/`, a path below it) | 6 × (root + 1 + the tree's longest path) + 3 |
/// | a match's text or context row (§11.4) | 6 × [`PREVIEW_MAX`] + 48 |
/// | a match's symbol (§15: a name from one line) | 6 × the tree's longest line + 96 |
/// | a match | a path, its text, `2 × max(B, A)` rows, a symbol, 128 |
/// | an `ls` entry (read-ls-flows §2: a name) | 6 × the tree's longest name + 64 |
/// | a notice (§16: a sentence that may repeat the call's input) | 2 × 6 × the call's JSON + 4096 |
///
/// Six bytes a byte because JSON may spell any byte of a string as an
/// escape (`\u0001`, or a surrogate pair of 12 for a 4-byte scalar). `read`
/// and `bash` answer a file's or a command's text and have no budget here
/// (the protocol's line cap bounds them).
///
/// ```
/// use lawsuite::call::{Budget, Call, TreeSize};
/// use lawsuite::contract::GlobInput;
///
/// let call = Call::Glob(GlobInput { limit: 1, ..GlobInput::new("*", "/r") });
/// let tree = TreeSize { longest_path: 5, longest_name: 5, longest_line: 10 };
/// let budget = Budget::of(&call, &tree).unwrap();
/// let fine = r#"{"paths":["/r/a.txt"],"total":1,"truncated":false}"#;
/// assert_eq!(budget.check(fine.len()), Ok(()));
/// let huge = format!(r#"{{"paths":["/r/{}"],"total":1,"truncated":false}}"#, "x".repeat(1 << 20));
/// let refused = budget.check(huge.len()).unwrap_err();
/// assert!(refused.to_string().starts_with(&format!("answered {} bytes where", huge.len())), "{refused}");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    bytes: u64,
}

/// JSON may spell each byte of a string as a six-byte escape.
const ESCAPED: u64 = 6;

impl Budget {
    /// The budget of `call` on a tree of `size`; `None` for `read` and
    /// `bash`, whose answers are a file's or a command's text.
    pub fn of(call: &Call, size: &TreeSize) -> Option<Budget> {
        let bounds = call.bounds();
        let root = call.root().len() as u64;
        let path = ESCAPED * (root + 1 + size.longest_path) + 3;
        let row = ESCAPED * PREVIEW_MAX as u64 + 48;
        let symbol = ESCAPED * size.longest_line + 96;
        // The call itself, as its input may be repeated in a notice (a glob
        // or a pattern quoted back).
        let input = serde_json::to_string(call).map_or(0, |text| text.len() as u64);
        let fixed = 2 * ESCAPED * input + 4096;
        let items = |each: u64| bounds.items.saturating_mul(each);
        let bytes = match call {
            Call::Grep(_) | Call::FlowGrep(_) => {
                let rows = bounds.context.saturating_mul(2).saturating_mul(row);
                let one = path
                    .saturating_add(row)
                    .saturating_add(rows)
                    .saturating_add(symbol)
                    .saturating_add(128);
                // `matches`, and `files` in filesWithMatches mode.
                items(one).saturating_add(items(path))
            }
            Call::Glob(_) | Call::FlowGlob(_) => items(path),
            Call::Ls(_) => MAX_ENTRIES.saturating_mul(ESCAPED * size.longest_name + 64),
            Call::Read(_) => return None,
            #[cfg(unix)]
            Call::Bash(_) => return None,
        };
        Some(Budget {
            bytes: bytes.saturating_add(fixed),
        })
    }

    /// The budget in bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Refuse an answer of `len` bytes past the budget, saying so.
    pub fn check(&self, len: usize) -> Result<(), Overrun> {
        if len as u64 > self.bytes {
            return Err(Overrun::Bytes {
                len,
                most: self.bytes,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{GlobInput, GrepInput};

    const TREE: TreeSize = TreeSize {
        longest_path: 40,
        longest_name: 12,
        longest_line: 900,
    };

    /// The largest answer each part of the budget allows, spelled as a
    /// peer may spell it (every byte an escape), is accepted; a byte more
    /// is not.
    #[test]
    fn the_largest_correct_answer_fits_and_one_byte_more_does_not() {
        let call = Call::Glob(GlobInput {
            limit: 3,
            ..GlobInput::new("*", "/r")
        });
        let budget = Budget::of(&call, &TREE).unwrap();
        // Three paths of the tree's longest, each byte `\u0001`.
        let path = format!("\"{}\"", "\\u0001".repeat(3 + 40));
        let answer = format!(r#"{{"paths":[{path},{path},{path}],"total":3,"truncated":false}}"#);
        assert_eq!(budget.check(answer.len()), Ok(()));
        assert!(budget.check(budget.bytes() as usize).is_ok());
        assert!(budget.check(budget.bytes() as usize + 1).is_err());
    }

    /// A grep's budget has room for every match at its fullest: a preview
    /// of 500 escaped bytes, every context row, a symbol as long as the
    /// longest line, and the path.
    #[test]
    fn a_full_grep_answer_fits() {
        let call = Call::Grep(GrepInput {
            limit: 2,
            before_context: 1,
            after_context: 2,
            symbols: true,
            ..GrepInput::new("x", "/r")
        });
        let budget = Budget::of(&call, &TREE).unwrap();
        let text = "\\u0001".repeat(PREVIEW_MAX);
        let row = format!(r#"{{"line":18446744073709551615,"text":"{text}"}}"#);
        let rows = vec![row; 2].join(",");
        let one = format!(
            r#"{{"file":"{}","line":18446744073709551615,"text":"{text}","before":[{rows}],"after":[{rows}],"symbol":{{"kind":"function","name":"{}","startLine":18446744073709551615,"endLine":18446744073709551615}}}}"#,
            "\\u0001".repeat(3 + 40),
            "\\u0001".repeat(900)
        );
        let answer = format!(
            r#"{{"matches":[{one},{one}],"files":[],"filesSearched":18446744073709551615,"skippedBinary":18446744073709551615,"truncated":true}}"#
        );
        assert_eq!(budget.check(answer.len()), Ok(()), "{}", answer.len());
    }

    #[test]
    fn read_and_bash_have_no_budget() {
        let read = Call::parse(
            crate::peer::Method::FlowRead,
            serde_json::json!({"path": "/r/a"}),
        )
        .unwrap();
        assert_eq!(Budget::of(&read, &TREE), None);
    }
}
