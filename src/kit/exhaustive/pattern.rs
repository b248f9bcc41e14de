//! The `pattern` family: every pattern of at most *k* characters over an
//! alphabet of metacharacters and a letter (search-contract §10) against
//! every line of at most three characters over `a`, `b` and `.`.
//!
//! Characters, and the rules they reach:
//!
//! | character | reaches |
//! | --- | --- |
//! | `a` | literals (§10.4); `\a` a refused escape (§10 check 5) |
//! | `.` | any character but `\n` (§10.4); `\.` a literal dot |
//! | `*` `+` `?` | quantifiers, lazy suffixes, stacked quantifiers (`a**`: §10 check 6, "Nothing to repeat"), a quantifier at the start (§10.1 "repeats nothing") |
//! | `\|` | alternation, empty alternatives |
//! | `(` `)` | groups, empty groups, `(?` (§10 check 4), unbalanced parentheses (§10.1) |
//! | `[` `]` `^` `-` | classes, negation, empty classes (`[]`, `[^]`: check 5), nested `[[` (check 5), `--` (set operations), unterminated classes (§10.1) |
//! | `^` `$` | anchors (§10.4); a quantified anchor is refused (check 6) |
//! | `{` `}` `,` `1` | `{1}` (a count repeating nothing, §10.1), a lone `}` or `{`, `\1` (a backreference: check 5), `\,` (an invalid escape: check 6) |
//! | `\` | escapes: of metacharacters (accepted), of letters and digits (check 5), of others (check 6), a trailing `\` |
//!
//! Each pattern is one `grep` call (`symbols: false`, the other options
//! at their defaults) over one file holding every line of at most three
//! characters over `a`, `b` and `.` (40 lines, the empty one included),
//! so each answer says which lines the pattern matches; a pattern the flow
//! refuses is a `flow/grep` call, its message compared (§10.1). Not
//! reached here, and pinned by laws instead: the numeric bounds of §10
//! (4096 characters, counts above 1000, 128 nested groups, 8192 states),
//! which no shape of a few characters reaches, and case folding (§12).

use super::{Alphabet, grep_call, push_call};
use crate::contract::GrepRequest;
use crate::kit::plan::{GeneratedFile, Plan};

/// The pattern alphabet: one character a token (see the module
/// documentation).
pub static ALPHABET: Alphabet = Alphabet {
    prefixes: &[&[]],
    body: &[
        "a", ".", "*", "+", "?", "|", "(", ")", "[", "]", "^", "$", "{", "}", ",", "1", "-", "\\",
    ],
    suffixes: &[""],
    follows: |_, _| true,
};

/// The characters the lines are made of.
pub const LINE_CHARS: [char; 3] = ['a', 'b', '.'];

/// The longest line.
pub const LINE_MAX: usize = 3;

/// Every line of at most [`LINE_MAX`] characters over [`LINE_CHARS`],
/// shortest first, each ending in `\n`.
pub fn lines() -> String {
    let mut all = vec![String::new()];
    let mut last = vec![String::new()];
    for _ in 0..LINE_MAX {
        let next: Vec<String> = last
            .iter()
            .flat_map(|l| LINE_CHARS.iter().map(move |c| format!("{l}{c}")))
            .collect();
        all.extend(next.iter().cloned());
        last = next;
    }
    all.into_iter().map(|l| l + "\n").collect()
}

/// Batch `patterns` into `plan`: the one file, a call per pattern.
pub(super) fn fill(plan: &mut Plan, patterns: &[String]) {
    plan.files = vec![GeneratedFile::new("lines.txt", lines())];
    for pattern in patterns {
        let call = grep_call(GrepRequest {
            pattern: pattern.clone(),
            root: Some(plan.root.clone()),
            symbols: Some(false),
            ..GrepRequest::default()
        });
        push_call(plan, call);
    }
}

#[cfg(test)]
mod tests {
    use super::super::Family;
    use super::*;

    /// The counts `docs/exhaustive.md` quotes: 18 characters, so
    /// `1 + 18 + 18² + 18³` patterns at size 3.
    #[test]
    fn counts_per_size() {
        let counts: Vec<u64> = (0..=3).map(|k| Family::Pattern.count(k).shapes).collect();
        assert_eq!(counts, [1, 19, 343, 6175]);
    }

    #[test]
    fn forty_lines_the_empty_one_first() {
        let text = lines();
        assert_eq!(text.lines().count(), 40);
        assert!(text.starts_with("\na\nb\n.\naa\n"));
        assert!(text.ends_with("...\n"));
    }
}
