//! §10 `validatePattern`: steps 1–7 in the reference's order, first failure
//! wins.

use super::budget::{self, OverBudget};
use super::ecma::{self, Ast};
use super::malformed::malformed;
use crate::contract::StdError;

/// Longest accepted pattern, in UTF-16 units (§19).
const MAX_PATTERN_UNITS: usize = 4096;
/// Largest counted repetition (§19).
const MAX_REPETITION: u32 = 1000;

/// Checks `pattern` against the Smithers Ripgrep ASCII v1 grammar (§10).
///
/// Runs the seven checks of §10 in order and returns the first failure as
/// `invalid_pattern` with the exact detail the spec gives: length (in UTF-16
/// units), printable ASCII, then — unless `fixed_strings` — the `(?` test,
/// the escape/class/count scan, ECMAScript `u`-mode syntax (with the §10.1
/// malformed-construct message or the §10.2 engine reason) and the §10.3
/// state budget.
///
/// ```
/// use lawsuite::contract::{ErrorCode, validate_pattern};
///
/// assert!(validate_pattern("fn [a-z_]+\\(", false).is_ok());
/// assert!(validate_pattern("foo(", true).is_ok()); // fixed strings are literals
///
/// let err = validate_pattern("Rule({", false).unwrap_err();
/// assert_eq!(err.code, ErrorCode::InvalidPattern);
/// assert_eq!(
///     err.message,
///     r#"Unsupported ripgrep pattern "Rule({": "{" at column 6 is not a repetition count; write \{ for a literal brace"#,
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn validate_pattern(pattern: &str, fixed_strings: bool) -> Result<(), StdError> {
    compile_tree(pattern, fixed_strings).map(|_| ())
}

/// The number of states the reference's compiler would build for `pattern`
/// (§10.3), accept state included, or the error `validate_pattern` gives
/// for anything that fails before the count (steps 1–6, or the 128-group
/// depth cap). The count is *not* capped: `(a{1000}){9}` is `Ok(9011)` even
/// though `validate_pattern` rejects it; astronomically large counts
/// saturate at `usize::MAX`.
///
/// ```
/// use lawsuite::contract::pattern::state_count;
/// assert_eq!(state_count("a{2,5}")?, 10);
/// assert_eq!(state_count("(a{1000}){8}")?, 8010);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn state_count(pattern: &str) -> Result<usize, StdError> {
    check_text(pattern)?;
    let ast = syntax_tree(pattern)?;
    let total = budget::count(&ast).map_err(|e| StdError::invalid_pattern(pattern, e.detail()))?;
    Ok(usize::try_from(total).unwrap_or(usize::MAX))
}

/// Steps 1–7; on success the tree the matcher compiles (for fixed strings,
/// a concatenation of literals — nothing else is checked, §10 step 3).
pub(crate) fn compile_tree(pattern: &str, fixed_strings: bool) -> Result<Ast, StdError> {
    check_text(pattern)?;
    if fixed_strings {
        return Ok(Ast::literal(pattern));
    }
    let ast = syntax_tree(pattern)?;
    budget::check(&ast).map_err(|e: OverBudget| StdError::invalid_pattern(pattern, e.detail()))?;
    Ok(ast)
}

/// Steps 1 and 2.
fn check_text(pattern: &str) -> Result<(), StdError> {
    // The reference checks `string.length` (UTF-16 units) before ASCII, so
    // 4097 `é` fail on length, not on ASCII. A `str` never has more UTF-16
    // units than bytes, so only long inputs need counting.
    if pattern.len() > MAX_PATTERN_UNITS && pattern.encode_utf16().count() > MAX_PATTERN_UNITS {
        return Err(StdError::invalid_pattern(
            pattern,
            "patterns must not exceed 4096 bytes",
        ));
    }
    if !pattern.bytes().all(|b| (0x20..=0x7e).contains(&b)) {
        return Err(StdError::invalid_pattern(
            pattern,
            "patterns must contain printable ASCII only",
        ));
    }
    Ok(())
}

/// Steps 4–6 for a pattern that passed steps 1–2: the accepted tree.
fn syntax_tree(pattern: &str) -> Result<Ast, StdError> {
    if pattern.contains("(?") {
        return Err(StdError::invalid_pattern(
            pattern,
            "special groups and lookaround are not supported",
        ));
    }
    scan(pattern).map_err(|detail| StdError::invalid_pattern(pattern, detail))?;
    ecma::parse(pattern).map_err(|engine| {
        let detail = malformed(pattern)
            .unwrap_or_else(|| format!("invalid expression: {}", engine.reason()));
        StdError::invalid_pattern(pattern, &detail)
    })
}

/// Step 5, the reference's left-to-right scan, quirks included (`[\^]` is
/// "empty"; a `{` looks at the next `}` wherever it is, even inside a class
/// or past an escape).
fn scan(pattern: &str) -> Result<(), &'static str> {
    let bytes = pattern.as_bytes();
    let mut in_class = false;
    let mut class_chars = 0usize;
    let mut index = 0;
    while index < bytes.len() {
        let character = bytes[index];
        if character == b'\\' {
            match bytes.get(index + 1) {
                Some(escaped) if !escaped.is_ascii_alphanumeric() => {}
                _ => {
                    return Err(
                        "backreferences, shorthand classes and encoded escapes are not supported",
                    );
                }
            }
            index += 2;
            if in_class {
                class_chars += 1;
            }
            continue;
        }
        if character == b'[' {
            if in_class {
                return Err("nested and named character classes are not supported");
            }
            in_class = true;
            class_chars = 0;
            index += 1;
            continue;
        }
        if character == b'{'
            && !in_class
            && let Some(offset) = memchr::memchr(b'}', &bytes[index + 1..])
        {
            let inside = &pattern[index + 1..index + 1 + offset];
            if inside.split(',').any(count_too_large) {
                return Err("repetition counts above 1000 are not supported");
            }
        }
        if character == b']' && in_class {
            if class_chars == 0 || (class_chars == 1 && bytes[index - 1] == b'^') {
                return Err("empty character classes are not supported");
            }
            in_class = false;
            index += 1;
            continue;
        }
        if in_class {
            let next = bytes.get(index + 1);
            if matches!(character, b'&' | b'-' | b'~') && next == Some(&character) {
                return Err("character-class set operations are not supported");
            }
            class_chars += 1;
        }
        index += 1;
    }
    Ok(())
}

/// An all-digit part of a `{…}` whose number is above 1000 (empty parts are
/// dropped by the reference, so they never count).
fn count_too_large(part: &str) -> bool {
    if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let significant = part.trim_start_matches('0');
    significant.len() > 4 || significant.parse::<u32>().is_ok_and(|n| n > MAX_REPETITION)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::ErrorCode;

    fn detail(pattern: &str, fixed: bool) -> Option<String> {
        validate_pattern(pattern, fixed).err().map(|err| {
            assert_eq!(err.code, ErrorCode::InvalidPattern);
            let prefix = format!("Unsupported ripgrep pattern \"{pattern}\": ");
            err.message
                .strip_prefix(&prefix)
                .unwrap_or_else(|| panic!("{:?} lacks its prefix", err.message))
                .to_string()
        })
    }

    const LENGTH: &str = "patterns must not exceed 4096 bytes";
    const ASCII: &str = "patterns must contain printable ASCII only";
    const SPECIAL: &str = "special groups and lookaround are not supported";
    const ESCAPES: &str = "backreferences, shorthand classes and encoded escapes are not supported";
    const NESTED: &str = "nested and named character classes are not supported";
    const COUNTS: &str = "repetition counts above 1000 are not supported";
    const EMPTY: &str = "empty character classes are not supported";
    const SETOPS: &str = "character-class set operations are not supported";
    const DEPTH: &str = "patterns must not exceed 128 nested groups";
    const STATES: &str = "patterns must not exceed 8192 compiled states";

    #[test]
    fn step1_length_in_utf16_units() {
        assert_eq!(detail(&"a".repeat(4096), false), None);
        assert_eq!(detail(&"a".repeat(4097), false).as_deref(), Some(LENGTH));
        assert_eq!(detail(&"a".repeat(4097), true).as_deref(), Some(LENGTH));
        // Length runs before ASCII: 4097 `é` (8194 bytes) fail on length ...
        assert_eq!(detail(&"é".repeat(4097), false).as_deref(), Some(LENGTH));
        // ... but 4096 `é` are 4096 units and fail on ASCII.
        assert_eq!(detail(&"é".repeat(4096), false).as_deref(), Some(ASCII));
        // 2048 astral scalars are 4096 units; 2049 are 4098.
        assert_eq!(detail(&"😀".repeat(2048), false).as_deref(), Some(ASCII));
        assert_eq!(detail(&"😀".repeat(2049), false).as_deref(), Some(LENGTH));
    }

    #[test]
    fn step2_printable_ascii() {
        for pattern in ["a\tb", "a\nb", "\u{7f}", "\u{1f}", "é", "\0"] {
            assert_eq!(
                detail(pattern, false).as_deref(),
                Some(ASCII),
                "{pattern:?}"
            );
            assert_eq!(detail(pattern, true).as_deref(), Some(ASCII), "{pattern:?}");
        }
        assert_eq!(detail(" ~", false), None);
    }

    #[test]
    fn step3_fixed_strings_skip_the_grammar() {
        for pattern in [
            "foo(",
            "(?=x)",
            "\\d",
            "[",
            "a**",
            "a{10000000}",
            "",
            "?",
            "\\",
        ] {
            assert_eq!(detail(pattern, true), None, "{pattern:?}");
        }
    }

    #[test]
    fn step4_special_groups_raw_substring() {
        for pattern in ["(?=needle)", "(?:a)", "(?<n>a)", "\\(?", "[(?]", "a(?"] {
            assert_eq!(
                detail(pattern, false).as_deref(),
                Some(SPECIAL),
                "{pattern:?}"
            );
        }
    }

    #[test]
    fn step5_scan() {
        let table = [
            ("(a)\\1", ESCAPES),
            ("\\d", ESCAPES),
            ("\\w", ESCAPES),
            ("\\b", ESCAPES),
            ("\\x41", ESCAPES),
            ("\\u0041", ESCAPES),
            ("\\n", ESCAPES),
            ("\\t", ESCAPES),
            ("abc\\", ESCAPES),
            ("[a\\d]", ESCAPES),
            ("[[a]]", NESTED),
            ("[[:alpha:]]", NESTED),
            ("a{10000000}", COUNTS),
            ("a{1001}", COUNTS),
            ("a{0,1001}", COUNTS),
            ("a{1001,}", COUNTS),
            ("a{00000000000000000001001}", COUNTS),
            // The scan looks at the next `}` whatever lies between.
            ("{x,2000}", COUNTS),
            ("a{1[,2000}", COUNTS),
            ("[]", EMPTY),
            ("[^]", EMPTY),
            ("[\\^]", EMPTY),
            ("[]a]", EMPTY),
            ("[a&&b]", SETOPS),
            ("[a--b]", SETOPS),
            ("[a~~b]", SETOPS),
            // First failure wins: the escape comes before the class.
            ("\\d[]", ESCAPES),
            ("[]\\d", EMPTY),
        ];
        for (pattern, expected) in table {
            assert_eq!(
                detail(pattern, false).as_deref(),
                Some(expected),
                "{pattern:?}"
            );
        }
        for pattern in [
            "a{1000}",
            "a{0001000}",
            "[\\^a]",
            "[^^]",
            "[\\--a]",
            "a&&b",
            "a--b",
            "[a-b]",
            "[{]",
            // An escaped `{` is skipped with its `\`, so it starts no count.
            "\\{1001}",
        ] {
            assert_ne!(
                detail(pattern, false).as_deref(),
                Some(COUNTS),
                "{pattern:?}"
            );
        }
        assert_eq!(detail("a{1000}", false), None);
        assert_eq!(detail("[^^]", false), None);
        assert_eq!(detail("[\\^a]", false), None);
    }

    #[test]
    fn step6_malformed_then_engine_reason() {
        let table = [
            (
                "Rule({",
                "\"{\" at column 6 is not a repetition count; write \\{ for a literal brace",
            ),
            (
                "\\.(",
                "\"(\" at column 3 is never closed; write \\( for a literal parenthesis",
            ),
            (
                "[^a](",
                "\"(\" at column 5 is never closed; write \\( for a literal parenthesis",
            ),
            (
                "[\\]](",
                "\"(\" at column 5 is never closed; write \\( for a literal parenthesis",
            ),
            (
                "(a)(",
                "\"(\" at column 4 is never closed; write \\( for a literal parenthesis",
            ),
            (
                "a{2}(",
                "\"(\" at column 5 is never closed; write \\( for a literal parenthesis",
            ),
            (
                "a*(",
                "\"(\" at column 3 is never closed; write \\( for a literal parenthesis",
            ),
            (
                "{1}",
                "\"{\" at column 1 repeats nothing; write \\{ for a literal brace",
            ),
            (
                "}",
                "\"}\" at column 1 closes nothing; write \\} for a literal brace",
            ),
            (
                "]",
                "\"]\" at column 1 closes nothing; write \\] for a literal bracket",
            ),
            (
                "[\\]",
                "\"[\" at column 1 is never closed; write \\[ for a literal bracket",
            ),
            (
                "[",
                "\"[\" at column 1 is never closed; write \\[ for a literal bracket",
            ),
            (
                "*",
                "\"*\" at column 1 repeats nothing; write \\* for a literal *",
            ),
            (
                "a|*",
                "\"*\" at column 3 repeats nothing; write \\* for a literal *",
            ),
            (
                "^+",
                "\"+\" at column 2 repeats nothing; write \\+ for a literal +",
            ),
            (
                "a$?",
                "\"?\" at column 3 repeats nothing; write \\? for a literal ?",
            ),
            ("(?", SPECIAL),
            (
                "a)",
                "\")\" at column 2 closes nothing; write \\) for a literal parenthesis",
            ),
            // Malformed wins over an earlier engine error.
            (
                "\\-(",
                "\"(\" at column 3 is never closed; write \\( for a literal parenthesis",
            ),
            // §10.2 examples: no malformed message, so the engine reason.
            ("a**", "invalid expression: Nothing to repeat"),
            ("a?+", "invalid expression: Nothing to repeat"),
            ("a{2}{3}", "invalid expression: Nothing to repeat"),
            ("\\-", "invalid expression: Invalid escape"),
            ("\\ ", "invalid expression: Invalid escape"),
            ("[\\ ]", "invalid expression: Invalid escape"),
            ("\\_", "invalid expression: Invalid escape"),
            ("\\\"", "invalid expression: Invalid escape"),
            ("\\#", "invalid expression: Invalid escape"),
            ("\\,", "invalid expression: Invalid escape"),
            ("\\:", "invalid expression: Invalid escape"),
            (
                "[z-a]",
                "invalid expression: Range out of order in character class",
            ),
            (
                "a{3,2}",
                "invalid expression: numbers out of order in {} quantifier",
            ),
        ];
        for (pattern, expected) in table {
            assert_eq!(
                detail(pattern, false).as_deref(),
                Some(expected),
                "{pattern:?}"
            );
        }
    }

    #[test]
    fn step6_accepts_the_rest() {
        for pattern in [
            "",
            "a*?",
            "a+?",
            "a??",
            "a{2}?",
            "()",
            "(|a)",
            "a|",
            "[\\-]",
            "\\/",
            "[^a-z]",
            "n.edle$",
            "^.$",
            "[.$]",
            "a{0,1000}",
            "x{2,}",
        ] {
            assert_eq!(detail(pattern, false), None, "{pattern:?}");
        }
    }

    #[test]
    fn step7_budget() {
        let nest = |n: usize| format!("{}a{}", "(".repeat(n), ")".repeat(n));
        assert_eq!(detail(&nest(128), false), None);
        assert_eq!(detail(&nest(129), false).as_deref(), Some(DEPTH));
        assert_eq!(detail("(a{1000}){8}", false), None);
        assert_eq!(detail("(a{1000}){9}", false).as_deref(), Some(STATES));
        assert_eq!(detail("(a{1000}){1000}", false).as_deref(), Some(STATES));
        assert_eq!(detail(&"a{1000}".repeat(9), false).as_deref(), Some(STATES));
        // Fixed strings never reach the budget.
        assert_eq!(detail(&"a{1000}".repeat(9), true), None);
        // A syntax error wins over depth (step 6 before step 7).
        let deep_broken = format!("{}a{}\\-", "(".repeat(200), ")".repeat(200));
        assert_eq!(
            detail(&deep_broken, false).as_deref(),
            Some("invalid expression: Invalid escape")
        );
    }

    /// §3-level examples other modules rely on.
    #[test]
    fn flow_examples() {
        assert_eq!(detail("(?=needle)", false).as_deref(), Some(SPECIAL));
        assert_eq!(detail("a{10000000}", false).as_deref(), Some(COUNTS));
        assert_eq!(detail("(a)\\1", false).as_deref(), Some(ESCAPES));
        assert_eq!(detail("\\d", false).as_deref(), Some(ESCAPES));
        assert_eq!(
            detail("[", false).as_deref(),
            Some("\"[\" at column 1 is never closed; write \\[ for a literal bracket")
        );
        let err = validate_pattern("foo(bar", false).unwrap_err();
        assert_eq!(
            err.message,
            "Unsupported ripgrep pattern \"foo(bar\": \"(\" at column 4 is never closed; write \\( for a literal parenthesis"
        );
        assert!(err.is_contract_rejection());
    }

    #[test]
    fn state_count_reports_uncapped_totals() {
        assert_eq!(state_count("a").unwrap(), 3);
        assert_eq!(state_count("(a{1000}){9}").unwrap(), 9011);
        assert_eq!(
            state_count("((a{1000}){1000}){1000}").unwrap(),
            1_001_001_002
        );
        assert!(state_count("a**").is_err());
    }
}
