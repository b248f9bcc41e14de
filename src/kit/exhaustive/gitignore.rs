//! The `gitignore` family: every `.gitignore` rule of at most *k* tokens
//! (search-contract §9), at the root of a walk and nested below it,
//! against every path of one small tree.
//!
//! Tokens, and the rules they reach:
//!
//! | token | where | reaches |
//! | --- | --- | --- |
//! | `!` | prefix | §9.2 negation; §9.4 a negated match re-admits (the nested placement's parent ignores what it may re-admit) |
//! | `#` | prefix | §9.2 comments |
//! | `a` | body | literals, basename rules against path rules (§9.2 `byPath`) |
//! | `*`, `**`, `?` | body | §9.3: `*` within a segment, `**` special after start, `/`, `{` or `,` and before end, `/`, `}` or `,` — in every position, so `a**/a` (git's reading differs) is a shape — `?` one byte |
//! | `/` | body | §9.2 leading `/` (anchored), trailing `/` (directories only), a `/` inside (anchored) |
//! | `\` | body | §9.3 escapes, a trailing `\` (a compile error: the rule is dropped), §9.2 `\ ` keeps a trailing space, a trailing `/` after `\` |
//! | `[`, `]`, and `!` right after `[` | body | §9.3 classes: negation, `]` first is literal, an unclosed `[` is literal |
//! | ` ` | suffix | §9.2 trailing whitespace trimmed unless escaped |
//!
//! Each rule is asked in two [`PLACEMENTS`], each a directory of its own
//! (a rule's scope) holding [`TREE`]: `rNN/.gitignore` is the rule,
//! asked with the root `rNN`; `nNN/.gitignore` is `/d/*` (every entry
//! directly under `d` ignored, so a negation has something to re-admit)
//! and `nNN/d/.gitignore` is the rule, over `nNN/d/`'s tree, asked with
//! the root `nNN` (§9.4: the nested scope first, then its parent's). `NN`
//! is the rule's place in its batch. The call is `glob` `**` (every file the walk keeps).
//! Not reached here, and pinned by laws instead: §9.2's BOM and CRLF
//! handling, the order of several rules in one file (the shapes are one
//! rule each), and §9.3's `{`…`}` groups: three more tokens would make
//! size 4 two and a half times as large (14,327 rules against 6,359, past
//! the 30 CPU-seconds a default run may spend), and git, the other
//! reader of these files, has no groups at all.

use super::{Alphabet, glob_call, push_call};
use crate::contract::GlobRequest;
use crate::kit::plan::{GeneratedFile, Plan};

/// The `.gitignore` alphabet (see the module documentation).
pub static ALPHABET: Alphabet = Alphabet {
    prefixes: &[&[], &["!"], &["#"]],
    body: &["a", "*", "**", "?", "/", "\\", "[", "!", "]"],
    suffixes: &["", " "],
    follows,
};

/// A `*` is never followed by a star (one spelling of each star run), and
/// a `!` in the body only opens a negated class.
fn follows(prev: Option<&str>, next: &str) -> bool {
    super::stars_once(prev, next) && (next != "!" || prev == Some("["))
}

/// The tree below each placement: a directory `a` holding `a` and a
/// deeper `a` (a directory rule, `**` crossing a segment: git reads
/// `a**/a` as crossing it), a directory `aa` (git's `a**/a` also matches
/// it), a *file* `a` in `b` (a directory rule leaves it), and the names a
/// literal `*`, `[` or a kept trailing space spell.
pub const TREE: &[&str] = &["a/a", "a/b/a", "aa/b", "b/a", "ab", "*", "[", "a "];

/// Where a rule is put: the directory prefix of its scope in the batch's
/// tree, and whether it sits below a parent scope.
pub const PLACEMENTS: [Placement; 2] = [Placement::Root, Placement::Nested];

/// One way a rule is put into a tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// The rule is the `.gitignore` of the walk's root.
    Root,
    /// The rule is the `.gitignore` of `d`, below a root whose own
    /// `.gitignore` ignores every entry directly under `d`.
    Nested,
}

/// Rules per batch: each brings `2 × (TREE + 1)` files, so 64 rules is a
/// tree of about 1,100 files per peer, written once and listed once a call.
pub const RULES_PER_BATCH: usize = 64;

/// Batch `rules` into `plan`: the two placements of each rule, a `glob`
/// call for each.
pub(super) fn fill(plan: &mut Plan, rules: &[String]) {
    // Directories are named by the rule's place in its batch, not in the
    // family: every full batch has the same paths, so a peer's tree is
    // rewritten in place from one batch to the next ([`super::BatchTrees`]).
    for (i, rule) in rules.iter().enumerate() {
        for placement in PLACEMENTS {
            let dir = match placement {
                Placement::Root => format!("r{i:02}"),
                Placement::Nested => format!("n{i:02}"),
            };
            match placement {
                Placement::Root => {
                    plan.files.push(GeneratedFile::new(
                        format!("{dir}/.gitignore"),
                        format!("{rule}\n"),
                    ));
                    plan.files.extend(super::files_under(&dir, TREE));
                }
                Placement::Nested => {
                    plan.files
                        .push(GeneratedFile::new(format!("{dir}/.gitignore"), "/d/*\n"));
                    plan.files.push(GeneratedFile::new(
                        format!("{dir}/d/.gitignore"),
                        format!("{rule}\n"),
                    ));
                    plan.files
                        .extend(super::files_under(&format!("{dir}/d"), TREE));
                }
            }
            push_call(
                plan,
                glob_call(GlobRequest {
                    pattern: "**".into(),
                    root: Some(format!("{}/{dir}", plan.root)),
                    hidden: None,
                    no_ignore: None,
                    limit: None,
                }),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Family;

    /// The counts `docs/exhaustive.md` quotes.
    #[test]
    fn counts_per_size() {
        let counts: Vec<u64> = (0..=4).map(|k| Family::Gitignore.count(k).shapes).collect();
        assert_eq!(counts, [1, 12, 101, 804, 6359]);
    }

    /// The shape git reads differently is asked at the default size.
    #[test]
    fn the_shape_git_reads_otherwise_is_asked() {
        let size = Family::Gitignore.default_size();
        assert!(Family::Gitignore.shapes(size).any(|s| s == "a**/a"));
        assert!(!Family::Gitignore.shapes(3).any(|s| s == "a**/a"));
    }

    /// A `!` in the body only opens a negated class.
    #[test]
    fn a_bang_in_the_body_follows_a_bracket() {
        for shape in Family::Gitignore.shapes(3) {
            // Past a leading `!` (the prefix), every `!` follows a `[`.
            let body = shape.strip_prefix('!').unwrap_or(&shape);
            for (i, _) in body.match_indices('!') {
                assert_eq!(body.get(i.saturating_sub(1)..i), Some("["), "{shape}");
            }
        }
    }
}
