//! Cross-file tests of the pattern module: the §10.4 and §12 examples, the
//! compile worst cases, and properties of `validate_pattern` and `Matcher`.

use proptest::prelude::*;

use super::*;
use crate::contract::ErrorCode;

fn matcher(pattern: &str, fixed: bool, insensitive: bool) -> Matcher {
    Matcher::new(pattern, fixed, insensitive)
        .unwrap_or_else(|err| panic!("{pattern:?} should compile: {err}"))
}

/// `(pattern, fixed, insensitive, line, expected)`.
type Case = (&'static str, bool, bool, &'static str, bool);

#[test]
fn matching_semantics() {
    let table: &[Case] = &[
        // §10.4 `expression` examples.
        ("n.edle$", false, true, "Needle", true),
        ("n.edle$", false, true, "N\redle", true),
        ("n.edle$", false, true, "N\nedle", false),
        ("n.edle$", false, true, "Needle\n", false),
        ("n.edle$", false, false, "Needle", false),
        ("[.$]", false, false, ".", true),
        ("[.$]", false, false, "$", true),
        ("[.$]", false, false, "a", false),
        ("[.$]", false, false, "", false),
        // `.` is one scalar, astral included; `^`/`$` are the line's ends.
        ("^.$", false, false, "😀", true),
        ("^.$", false, false, "ab", false),
        ("^..$", false, false, "😀", false),
        ("^.$", false, false, "\r", true),
        ("^a", false, false, "ba", false),
        ("a$", false, false, "ab", false),
        ("^$", false, false, "", true),
        ("^$", false, false, " ", false),
        // The empty pattern matches every line, the empty one included.
        ("", false, false, "", true),
        ("", false, false, "anything", true),
        ("", true, false, "", true),
        // Unanchored search.
        ("b+c", false, false, "aabbbcc", true),
        ("x{2,3}", false, false, "axxa", true),
        ("x{2,3}", false, false, "axa", false),
        ("(ab|cd)+e", false, false, "zcdabe", true),
        ("a|", false, false, "zzz", true),
        ("()", false, false, "", true),
        // Classes: ranges, negation, escaped members.
        ("[a-c]", false, false, "b", true),
        ("[^a-c]", false, false, "abc", false),
        ("[^a-c]", false, false, "abcé", true),
        ("[\\]]", false, false, "]", true),
        ("[\\--/]", false, false, ".", true),
        ("[a-b-d]", false, false, "-", true),
        ("[a-b-d]", false, false, "c", false),
        ("[&]&", false, false, "&&", true),
        ("[~]", false, false, "~", true),
        ("[<>]", false, false, "<", true),
        ("\\/\\*", false, false, "/*", true),
        ("a<b>", false, false, "a<b>", true),
        ("#\"", false, false, "#\"", true),
        // §12 case folding: Unicode simple folding (KELVIN SIGN, LONG S).
        ("k", false, true, "\u{212A}", true),
        ("s", false, true, "\u{17F}", true),
        ("K", false, true, "k", true),
        ("[a-z]", false, true, "\u{212A}", true),
        ("[^k]", false, true, "K", false),
        ("k", false, false, "\u{212A}", false),
        // §12 fixed strings: every character literal.
        ("foo?", true, false, "foo?", true),
        ("foo?", true, false, "foo", false),
        ("foo?", true, false, "fo", false),
        ("?", true, false, "what?", true),
        ("?", true, false, "what", false),
        ("a+b", true, false, "a+b", true),
        ("a+b", true, false, "aab", false),
        ("x*y", true, false, "x*y", true),
        ("x*y", true, false, "xxy", false),
        ("[z]", true, false, "[z]", true),
        ("[z]", true, false, "z", false),
        ("^$\\.|(){}", true, false, "^$\\.|(){}", true),
        ("&&--~~", true, false, "&&--~~", true),
        ("KELVIN", true, true, "\u{212A}elvin", true),
    ];
    for &(pattern, fixed, insensitive, line, expected) in table {
        assert_eq!(
            matcher(pattern, fixed, insensitive).is_match(line),
            expected,
            "{pattern:?} fixed={fixed} insensitive={insensitive} on {line:?}"
        );
    }
}

#[test]
fn matcher_rejects_exactly_what_validation_rejects() {
    for (pattern, fixed) in [
        ("(?=needle)", false),
        ("a{10000000}", false),
        ("(a)\\1", false),
        ("[", false),
        ("a**", false),
        ("(a{1000}){9}", false),
        ("é", true),
    ] {
        let err = Matcher::new(pattern, fixed, false).unwrap_err();
        assert_eq!(Some(err), validate_pattern(pattern, fixed).err());
    }
}

#[test]
fn worst_case_patterns_compile() {
    let deep = format!("{}a{}", "(".repeat(128), ")*".repeat(128));
    let deep_alt = format!("{}a{}", "(b|".repeat(128), ")?".repeat(128));
    let long_fixed = "(.{1000}){8}".repeat(342);
    for pattern in [
        "([^a]{1000}){8}",
        "(.{1000}){8}",
        "([^a-z]{1000}){8}",
        // Most UTF-8 fragments per atom: a negated class full of holes, with
        // `k`/`s` folding to U+212A/U+017F when insensitive (~14 MB NFA).
        "([^bdfhjkmoqsuwy!#%')+/13579;=?ACEGI]{1000}){8}",
        "((a|.){1000}){2}(a|.){700}",
        ".{0,1000}.{0,1000}.{0,1000}.{0,1000}",
        "((.{1000}){2}){4}",
        &deep,
        &deep_alt,
    ] {
        assert!(
            state_count(pattern).is_ok_and(|n| n <= 8192),
            "{pattern:?} is within budget"
        );
        for insensitive in [false, true] {
            let m = matcher(pattern, false, insensitive);
            let _ = m.is_match(&"x".repeat(2000));
            let _ = m.find_candidate("x\n", 0);
        }
    }
    let fixed = matcher(&long_fixed[..4096], true, true);
    assert!(fixed.is_match(&long_fixed[..4096]));
    // Astral scalars count once per `.` (a full `(.{1000}){8}` run over an
    // 8 000-scalar line works too, but takes a minute in a debug build).
    let m = matcher("^(.{10}){8}$", false, true);
    assert!(m.is_match(&"😀".repeat(80)));
    assert!(!m.is_match(&"😀".repeat(79)));
    assert!(!m.is_match(&"😀".repeat(81)));
}

#[test]
fn matcher_is_shareable() {
    fn assert_traits<T: Send + Sync + Clone + std::fmt::Debug>() {}
    assert_traits::<Matcher>();
    let m = matcher("ne+dle", false, false);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| assert!(m.is_match("a needle")));
        }
    });
}

#[test]
fn find_candidate_examples() {
    let m = matcher("[a-z]+_RESUME", false, false);
    let haystack = "alpha\nBETA_RESUME\r\nx gamma_RESUME y\n";
    // Line 2 holds the literal but does not match: a false positive is
    // allowed, skipping line 3 is not.
    let at = m.find_candidate(haystack, 0).expect("line 3 matches");
    assert!((6..=36).contains(&at), "{at}");
    assert!(!m.is_match("BETA_RESUME"));
    // `meta`'s reverse suffix search answers the match's own start.
    assert_eq!(m.find_candidate(haystack, 19), Some(21));

    // `$` before CRLF, and not on a bare final `\r` (§11.3).
    let m = matcher("end$", false, false);
    assert_eq!(m.find_candidate("the end\r\nx\n", 0), Some(4));
    assert_eq!(m.find_candidate("x\nthe end", 0), Some(6));
    assert!(m.is_match("the end"));
    assert!(!m.is_match("the end\r"));

    // `^` is a line start, not `from`.
    let m = matcher("^b", false, false);
    assert_eq!(m.find_candidate("ab\nb\n", 1), Some(3));

    // Empty-width matches after the last line are not lines.
    let m = matcher("", false, false);
    assert_eq!(m.find_candidate("a\n", 0), Some(0));
    assert_eq!(m.find_candidate("a\n", 2), None);
    assert_eq!(m.find_candidate("", 0), None);
    assert_eq!(m.find_candidate("a", 1), Some(1));
    assert_eq!(m.find_candidate("a", 7), None);
    // `from` at the end of an unterminated last line still sits on that
    // line (a kept `\r`, §11.3), so an empty-width candidate there is fine.
    assert_eq!(m.find_candidate("\r", 1), Some(1));

    // A negated class never crosses a line in the buffer.
    let m = matcher("x[^a]y", false, false);
    assert_eq!(m.find_candidate("x\ny\n", 0), None);

    let m = matcher("needle", false, true);
    assert_eq!(m.find_candidate("hay\nhay NEEDLE\n", 0), Some(8));
    assert_eq!(m.find_candidate("hay\nhay\n", 0), None);
}

/// Records which strategy `meta` picks for inner literals, and that this
/// module's own inner-literal prefilter covers the cases where `meta` has no
/// literal strategy. Pins optimisations of `regex-automata` 0.4.19 (read
/// from its `Debug` output), not behaviour: update the expectations if a
/// new version changes them.
#[test]
fn inner_literal_prefilters() {
    let strategy = |pattern: &str, insensitive: bool| {
        let m = matcher(pattern, false, insensitive);
        let debug = format!("{:?}", m.candidate_regex());
        let strategy = debug
            .split("strat: ")
            .nth(1)
            .and_then(|rest| rest.split([' ', '{', '(']).next())
            .unwrap_or("")
            .to_string();
        (strategy, m.has_inner_prefilter())
    };
    // A literal suffix or a truly inner literal: `meta` alone is fast, and
    // is left to it (as ripgrep leaves it), a one-byte suffix too.
    assert_eq!(
        strategy("[a-z]+_RESUME", false),
        ("ReverseSuffix".into(), false)
    );
    assert_eq!(
        strategy("[a-z]+_RESUME[0-9]", false),
        ("ReverseInner".into(), false)
    );
    assert_eq!(
        strategy("[a-z]{3}[A-Z]{4}[A-Z]{3}q", false),
        ("ReverseSuffix".into(), false)
    );
    // An alternation of literals is `meta`'s.
    assert!(!strategy("zzq_handler|xyzzyq", true).1);
    // Case-insensitive, the literal becomes case variants and `meta` falls
    // back to its core engines; the inner prefilter keeps the scan fast.
    assert_eq!(strategy("[a-z]+_resume", true), ("Core".into(), true));
    assert_eq!(strategy("[a-z]+_resume[0-9]", true), ("Core".into(), true));
    // A literal prefix is `meta`'s job alone.
    assert_eq!(strategy("foo[a-z]+", false), ("Core".into(), false));
    assert_eq!(strategy("(a|b)RESUME", false), ("Pre".into(), false));

    let insensitive = matcher("[a-z]+_resume", false, true);
    let haystack = format!("{}\n{}x_RESUMEz\n", "a".repeat(200), "b".repeat(50));
    assert_eq!(insensitive.find_candidate(&haystack, 0), Some(201));
    assert_eq!(insensitive.find_candidate(&"abc\n".repeat(100), 0), None);
}

#[test]
fn insensitivity_rule() {
    assert!(is_insensitive("needle", false, true));
    assert!(!is_insensitive("Needle", false, true));
    assert!(!is_insensitive("[A-Z]", false, true));
    assert!(!is_insensitive("FOO?", false, true));
    assert!(is_insensitive("Needle", true, false));
    assert!(is_insensitive("Needle", true, true));
    assert!(!is_insensitive("needle", false, false));
    assert!(is_insensitive("é", false, true));
}

#[test]
fn error_code_is_invalid_pattern() {
    let err = validate_pattern("a**", false).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidPattern);
    assert!(err.is_contract_rejection());
}

// ---- properties -------------------------------------------------------

/// Small pieces of the grammar, valid and invalid, so that the generated
/// patterns reach every step of §10 and the matcher.
fn piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "a", "b", "k", "s", "K", "x", "_", "-", " ", ".", "^", "$", "|", "(", ")", "*", "+", "?",
        "*?", "{2}", "{1,3}", "{0,}", "{2,1}", "{", "}", "[", "]", "[a-c]", "[^b]", "[^\\n",
        "[.$]", "[k-s]", "\\.", "\\-", "\\(", "\\[", "\\", "(?", "[]", "&&", "--", "{1000}",
        "{1001}",
    ])
}

fn grammar_pattern() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..12).prop_map(|pieces| pieces.concat())
}

fn line_text() -> impl Strategy<Value = String> {
    let chars = prop::sample::select(vec![
        'a', 'b', 'k', 's', 'x', 'K', 'A', '_', '-', ' ', '.', '$', '^', '\r', '\u{212A}',
        '\u{17F}', '😀', 'é',
    ]);
    prop::collection::vec(chars, 0..8).prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    // Generating 10 000-character inputs dominates; 64 cases suffice to
    // reach every step on long inputs.
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Long inputs around the 4096-unit boundary, mostly grammar characters
    /// so the later steps run too.
    #[test]
    fn validate_never_panics_on_long_strings(
        chars in prop::collection::vec(
            prop_oneof![
                8 => prop::sample::select(vec!['a', '(', ')', '[', ']', '{', '}', '1', ',', '\\', '*', '|', '^', '-']),
                1 => any::<char>(),
            ],
            3000..10_000,
        ),
    ) {
        let pattern: String = chars.into_iter().collect();
        let _ = validate_pattern(&pattern, false);
        let _ = state_count(&pattern);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn validate_never_panics(pattern in any::<String>(), fixed in any::<bool>()) {
        let _ = validate_pattern(&pattern, fixed);
        let _ = state_count(&pattern);
    }

    #[test]
    fn validate_never_panics_on_printable_ascii(pattern in "[ -~]{0,64}") {
        let _ = validate_pattern(&pattern, false);
    }

    #[test]
    fn every_accepted_pattern_compiles(
        pattern in prop_oneof![grammar_pattern(), "[ -~]{0,24}".prop_map(String::from)],
        fixed in any::<bool>(),
        insensitive in any::<bool>(),
    ) {
        match validate_pattern(&pattern, fixed) {
            Ok(()) => {
                if !fixed {
                    let states = state_count(&pattern);
                    prop_assert!(states.as_ref().is_ok_and(|&n| n <= 8192), "{:?}", states);
                }
                let m = Matcher::new(&pattern, fixed, insensitive);
                prop_assert!(m.is_ok(), "{:?}", m.err());
            }
            Err(err) => {
                prop_assert_eq!(err.code, ErrorCode::InvalidPattern);
                prop_assert!(err.is_contract_rejection());
                let m = Matcher::new(&pattern, fixed, insensitive);
                prop_assert_eq!(m.err(), Some(err));
            }
        }
    }

    /// The `find_candidate` guarantee: no matching line is ever skipped.
    #[test]
    fn find_candidate_is_a_superset(
        pattern in grammar_pattern(),
        fixed in any::<bool>(),
        insensitive in any::<bool>(),
        lines in prop::collection::vec((line_text(), any::<bool>()), 0..6),
        terminate_last in any::<bool>(),
        skip in 0usize..3,
    ) {
        let Ok(m) = Matcher::new(&pattern, fixed, insensitive) else {
            return Ok(());
        };
        // Build the buffer and remember each line's (start, text end, text),
        // the text split off as §11.3 does: LF, then one `\r` before it.
        let mut haystack = String::new();
        let mut spans = Vec::new();
        for (i, (text, crlf)) in lines.iter().enumerate() {
            let start = haystack.len();
            haystack.push_str(text);
            if *crlf {
                haystack.push('\r');
            }
            let raw = &haystack[start..];
            let terminated = i + 1 < lines.len() || terminate_last;
            if !terminated && raw.is_empty() {
                // An empty unterminated tail is not a line (§11.3).
                break;
            }
            let text = match raw.strip_suffix('\r') {
                Some(stripped) if terminated => stripped.to_string(),
                _ => raw.to_string(),
            };
            spans.push((start, start + text.len(), text));
            if terminated {
                haystack.push('\n');
            }
        }
        let skip = skip.min(spans.len());
        let from = spans.get(skip).map_or(haystack.len(), |s| s.0);
        for &(start, text_end, ref text) in &spans[skip..] {
            if m.is_match(text) {
                let found = m.find_candidate(&haystack, from);
                prop_assert!(
                    found.is_some_and(|p| p >= from && p <= text_end),
                    "{:?} on {:?}: line {:?} at {}..{} matches but find_candidate({}) = {:?}",
                    pattern, haystack, text, start, text_end, from, found
                );
                break;
            }
        }
        // And a full scan driven by find_candidate sees every matching line.
        let mut seen = Vec::new();
        let mut at = from;
        while let Some(p) = m.find_candidate(&haystack, at) {
            prop_assert!(p >= at);
            let line = spans.iter().position(|&(s, _, _)| s > p).map_or(spans.len(), |i| i) - 1;
            let (_, _, ref text) = spans[line];
            // `from` past the last line start still sits on that line.
            if line >= skip && m.is_match(text) {
                seen.push(line);
            }
            at = spans.get(line + 1).map_or(haystack.len() + 1, |s| s.0);
        }
        let expected: Vec<usize> = (skip..spans.len()).filter(|&i| m.is_match(&spans[i].2)).collect();
        prop_assert_eq!(seen, expected);
    }

    /// A line confirmed on its bytes gets the answer of its lossy decoding
    /// (§11.2), invalid sequences and all.
    #[test]
    fn a_line_confirmed_on_its_bytes_is_confirmed_as_decoded(
        pattern in grammar_pattern(),
        fixed in any::<bool>(),
        insensitive in any::<bool>(),
        pieces in prop::collection::vec(
            prop_oneof![
                line_text().prop_map(String::into_bytes),
                prop::sample::select(vec![
                    b"\xff".to_vec(), b"\xef\xbf".to_vec(), b"\xc3".to_vec(), b"\xed\xa0\x80".to_vec(),
                ]),
            ],
            0..5,
        ),
    ) {
        let Ok(m) = Matcher::new(&pattern, fixed, insensitive) else {
            return Ok(());
        };
        let line = pieces.concat();
        prop_assert_eq!(
            m.is_match_bytes(&line),
            m.is_match(&String::from_utf8_lossy(&line)),
            "{:?} on {:?}", pattern, line
        );
    }
}

#[test]
fn validate_never_panics_on_long_inputs() {
    for pattern in [
        "a".repeat(10_000),
        "é".repeat(5_000),
        "(".repeat(4096),
        "[".repeat(4096),
        "{".repeat(4096),
        "\\".repeat(4096),
        "(".repeat(2048) + &")".repeat(2048),
        "a{1000}".repeat(585),
        "(a)".repeat(1365),
    ] {
        let _ = validate_pattern(&pattern, false);
        let _ = validate_pattern(&pattern, true);
        let _ = state_count(&pattern);
    }
    assert!(validate_pattern(&("(".repeat(2048) + &")".repeat(2048)), false).is_err());
}

/// A required literal gates a search of raw bytes (the literals that could
/// not are tested beside `may_overlap_replacement`), and so does a pattern
/// none of whose parts can match U+FFFD.
#[test]
fn raw_byte_search_needs_literals_clear_of_the_replacement_character() {
    for (pattern, raw) in [
        ("needle", true),
        ("todo", true),
        ("[a-z]+_handler\\.[a-z]+", true),
        // No literal, but nothing that matches U+FFFD.
        ("[a-z]+", true),
        ("[A-Z][a-z]+[0-9]{3}", true),
        ("^[0-9]{4}-[0-9]{2}$", true),
        // Each of these can match U+FFFD in a decoded line.
        (".+", false),
        ("[^a]{3}", false),
        ("[^ -~]", false),
    ] {
        let m = Matcher::new(pattern, false, true).unwrap();
        assert_eq!(m.searches_raw_bytes(), raw, "{pattern:?}");
    }
    let m = Matcher::new("needle", false, false).unwrap();
    let bytes = b"\xff\nx needle\xfe\n";
    assert_eq!(m.find_line_candidate(bytes, 0), Some(2));
    assert_eq!(m.find_line_candidate(bytes, 3), Some(3));
    assert_eq!(m.find_line_candidate(bytes, 13), None);
}
