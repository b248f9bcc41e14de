//! The `glob` family: every glob of at most *k* tokens (search-contract
//! §8) against every path of one small tree.
//!
//! Tokens, and the rules they reach:
//!
//! | token | where | reaches |
//! | --- | --- | --- |
//! | `!` | prefix | §5, §8.4 (an exclusion alone lists what it does not match), §8.1 check 1 (`!` alone) |
//! | `a`, `b` | body | literals; basename against path subjects (§8.3 step 3) |
//! | `*`, `**`, `?` | body | §8.3: `*` within a segment, `**` special only between `/`s and the ends (`a**` is two stars), `?` one byte (`??` matches `é`) |
//! | `/` | body | rooted globs (a leading `/`), path subjects, trailing `/` |
//! | `./` | body | §8.2 steps 2–3: a leading `./` is `/`, `/./` is `/` |
//! | `{` `,` `}` | body | §8.1 check 4 (nested, unbalanced, no alternatives) and §8.3 step 2 (expansion, empty alternatives) |
//! | `[` | body | §8.1 check 3 |
//! | `é` | body | §8.1 check 2 |
//! | ` ` | suffix | §8.1 check 1 (`! `), §8.2 step 1 (trailing spaces) |
//!
//! Each glob is one `glob` call on [`TREE`] with `hidden: true`, so every
//! path of the tree is a subject; a glob the flow refuses is a `flow/glob`
//! call. Not reached here, and pinned by laws instead: the 256 expansions
//! of §8.1 (a count no small shape reaches), an order of several globs
//! (§8.4 with more than one; the `grep` family of a seed asks those), and
//! names holding `\n` or `\r` (§8.3: `ripgrep-walk`'s `**` matches them,
//! a listed difference with no recogniser, `double-star-matches-newline`).

use super::{Alphabet, glob_call, push_call, stars_once};
use crate::contract::GlobRequest;
use crate::kit::plan::Plan;

/// The glob alphabet (see the module documentation).
pub static ALPHABET: Alphabet = Alphabet {
    prefixes: &[&[], &["!"]],
    body: &["a", "b", "*", "**", "?", "/", "./", "{", ",", "}", "[", "é"],
    suffixes: &["", " "],
    follows: stars_once,
};

/// The tree every glob is asked about: names made of the body's letters
/// at three depths, a name of each length up to three bytes (`é` is two),
/// a hidden directory, and names a brace or a star run tells apart.
pub const TREE: &[&str] = &[
    "a", "ab", "ba", "é", "b/a", "b/ab", "b/b/a", "b/b/ba", "aa/b", ".h/a",
];

/// Batch `shapes` into `plan`: the tree once, a call per glob.
pub(super) fn fill(plan: &mut Plan, shapes: &[String]) {
    plan.files = super::files_under("", TREE);
    for glob in shapes {
        let call = glob_call(GlobRequest {
            pattern: glob.clone(),
            root: Some(plan.root.clone()),
            hidden: Some(true),
            no_ignore: None,
            limit: None,
        });
        push_call(plan, call);
    }
}

#[cfg(test)]
mod tests {
    use super::super::Family;

    /// The counts `docs/exhaustive.md` quotes.
    #[test]
    fn counts_per_size() {
        let counts: Vec<u64> = (0..=4).map(|k| Family::Glob.count(k).shapes).collect();
        assert_eq!(counts, [1, 15, 182, 2160, 25588]);
    }

    /// Both validators' refusals go to the flow; the rest to the seam.
    #[test]
    fn refused_globs_are_flow_calls() {
        let plan = Family::Glob
            .batches(1)
            .next()
            .unwrap_or_else(|| unreachable!());
        let flow: Vec<String> = plan
            .flow
            .iter()
            .map(|c| serde_json::to_value(c).unwrap_or_default()["input"]["pattern"].to_string())
            .collect();
        assert!(flow.contains(&"\"!\"".to_string()), "{flow:?}");
        assert!(flow.contains(&"\"[\"".to_string()), "{flow:?}");
        assert!(plan.glob.iter().any(|g| g.pattern == "**"));
    }
}
