//! §10.1: the malformed-construct message, computed only after step 6 has
//! rejected a pattern.
//!
//! This is deliberately *not* the step-6 parser: it is the reference's own
//! cheaper scan, with its own idea of where a class ends and what can be
//! repeated, and its answer wins over the engine's reason even when the
//! engine failed somewhere else (`\-(` reports the unclosed group, not the
//! escape). Reusing the parser here would drift from those messages.

/// The §10.1 detail for `pattern`, or `None` when the scan finds nothing and
/// the engine reason (§10.2) is used. Columns are 1-based UTF-16 indexes;
/// the pattern is printable ASCII by then, so they are character indexes.
pub(crate) fn malformed(pattern: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut open: Vec<usize> = Vec::new();
    let mut repeatable = false;
    let mut index = 0;
    while index < chars.len() {
        let character = chars[index];
        let at = format!("\"{character}\" at column {}", index + 1);
        match character {
            '\\' => {
                index += 2;
                repeatable = true;
                continue;
            }
            '[' => {
                let mut end = index + 1;
                if chars.get(end) == Some(&'^') {
                    end += 1;
                }
                if chars.get(end) == Some(&']') {
                    end += 1;
                }
                while end < chars.len() && chars[end] != ']' {
                    end += if chars[end] == '\\' { 2 } else { 1 };
                }
                if end >= chars.len() {
                    return Some(format!(
                        "{at} is never closed; write \\[ for a literal bracket"
                    ));
                }
                index = end + 1;
                repeatable = true;
                continue;
            }
            '(' => {
                open.push(index);
                repeatable = false;
            }
            ')' => {
                if open.pop().is_none() {
                    return Some(format!(
                        "{at} closes nothing; write \\) for a literal parenthesis"
                    ));
                }
                repeatable = true;
            }
            '{' => {
                let Some(len) = counted_repetition(&chars[index..]) else {
                    return Some(format!(
                        "{at} is not a repetition count; write \\{{ for a literal brace"
                    ));
                };
                if !repeatable {
                    return Some(format!(
                        "{at} repeats nothing; write \\{{ for a literal brace"
                    ));
                }
                index += len;
                continue;
            }
            '}' => {
                return Some(format!(
                    "{at} closes nothing; write \\}} for a literal brace"
                ));
            }
            ']' => {
                return Some(format!(
                    "{at} closes nothing; write \\] for a literal bracket"
                ));
            }
            '*' | '+' | '?' => {
                if !repeatable {
                    return Some(format!(
                        "{at} repeats nothing; write \\{character} for a literal {character}"
                    ));
                }
            }
            _ => repeatable = !matches!(character, '|' | '^' | '$'),
        }
        index += 1;
    }
    open.last().map(|unclosed| {
        format!(
            "\"(\" at column {} is never closed; write \\( for a literal parenthesis",
            unclosed + 1
        )
    })
}

/// Length of a leading `{digits}`, `{digits,}` or `{digits,digits}`
/// (the reference's `/^\{\d+(,\d*)?\}/`).
fn counted_repetition(chars: &[char]) -> Option<usize> {
    let digits = |from: usize| {
        chars[from.min(chars.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    if chars.first() != Some(&'{') {
        return None;
    }
    let min = digits(1);
    if min == 0 {
        return None;
    }
    let mut at = 1 + min;
    if chars.get(at) == Some(&',') {
        at += 1 + digits(at + 1);
    }
    (chars.get(at) == Some(&'}')).then_some(at + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row of the §10.1 table.
    #[test]
    fn spec_table() {
        let table = [
            (
                "Rule({",
                Some("\"{\" at column 6 is not a repetition count; write \\{ for a literal brace"),
            ),
            (
                "\\.(",
                Some("\"(\" at column 3 is never closed; write \\( for a literal parenthesis"),
            ),
            (
                "[^a](",
                Some("\"(\" at column 5 is never closed; write \\( for a literal parenthesis"),
            ),
            (
                "[\\]](",
                Some("\"(\" at column 5 is never closed; write \\( for a literal parenthesis"),
            ),
            (
                "(a)(",
                Some("\"(\" at column 4 is never closed; write \\( for a literal parenthesis"),
            ),
            (
                "a{2}(",
                Some("\"(\" at column 5 is never closed; write \\( for a literal parenthesis"),
            ),
            (
                "a*(",
                Some("\"(\" at column 3 is never closed; write \\( for a literal parenthesis"),
            ),
            (
                "{1}",
                Some("\"{\" at column 1 repeats nothing; write \\{ for a literal brace"),
            ),
            (
                "}",
                Some("\"}\" at column 1 closes nothing; write \\} for a literal brace"),
            ),
            (
                "]",
                Some("\"]\" at column 1 closes nothing; write \\] for a literal bracket"),
            ),
            (
                "[\\]",
                Some("\"[\" at column 1 is never closed; write \\[ for a literal bracket"),
            ),
            (
                "[",
                Some("\"[\" at column 1 is never closed; write \\[ for a literal bracket"),
            ),
            ("a**", None),
        ];
        for (pattern, expected) in table {
            assert_eq!(malformed(pattern).as_deref(), expected, "{pattern:?}");
        }
    }

    #[test]
    fn other_rows() {
        let table = [
            (
                "a)",
                Some("\")\" at column 2 closes nothing; write \\) for a literal parenthesis"),
            ),
            (
                "*a",
                Some("\"*\" at column 1 repeats nothing; write \\* for a literal *"),
            ),
            (
                "(+)",
                Some("\"+\" at column 2 repeats nothing; write \\+ for a literal +"),
            ),
            (
                "a|?",
                Some("\"?\" at column 3 repeats nothing; write \\? for a literal ?"),
            ),
            (
                "^*",
                Some("\"*\" at column 2 repeats nothing; write \\* for a literal *"),
            ),
            (
                "a{,2}",
                Some("\"{\" at column 2 is not a repetition count; write \\{ for a literal brace"),
            ),
            // The last unclosed `(` is named, not the first.
            (
                "((a",
                Some("\"(\" at column 2 is never closed; write \\( for a literal parenthesis"),
            ),
            ("a{2}{3}", None),
            ("a{2,}", None),
            ("\\-", None),
            ("[z-a]", None),
            ("a{3,2}", None),
            // A trailing `\` skips past the end without panicking.
            ("a\\", None),
        ];
        for (pattern, expected) in table {
            assert_eq!(malformed(pattern).as_deref(), expected, "{pattern:?}");
        }
    }
}
