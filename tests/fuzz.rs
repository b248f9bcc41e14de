//! Fuzzing every parser the harness exposes to input, as property tests:
//! pattern validation and compilation, glob canonicalisation, expansion and
//! matching, `.gitignore` parsing and matching, law files, regression files,
//! and protocol messages (both sides). None may panic; a regression may
//! never touch anything outside its own tree.
//!
//! `cargo test` runs a short round of each (256 inputs a target);
//! `LAWSUITE_FUZZ_CASES=100000 cargo test --release --test fuzz` runs a long
//! one. proptest prints the failing input, shrunk, and keeps it under
//! `proptest-regressions/`.

use std::path::Path;

use lawsuite::contract::gitignore::Gitignore;
use lawsuite::contract::glob::{GlobMatcher, brace_expansions};
use lawsuite::contract::{Matcher, canonical_glob, validate_glob, validate_pattern};
use lawsuite::kit::regression::Regression;
use lawsuite::portable::Portable;
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("LAWSUITE_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Text rich in the characters the grammars care about, with some of
/// everything else.
fn grammar_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        8 => prop::sample::select(vec![
            "*", "**", "?", "[", "]", "!", "^", "-", "{", "}", ",", "\\", "/", "(", ")", "|", "+",
            ".", "$", "(?", "(?=", "\\d", "\\b", "{3,2}", "[z-a]", "[[:digit:]]", "a", "ts", " ", "\t",
            "\u{212A}", "é", "\u{0}", "\n", "\r",
        ])
        .prop_map(str::to_string),
        1 => any::<String>(),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|p| p.concat())
}

/// A valid file's text with a few bytes changed, cut or repeated.
fn mutated(valid: &'static str) -> impl Strategy<Value = String> {
    let edit = (0..valid.len().max(1), 0..4u8, any::<char>());
    prop::collection::vec(edit, 0..6).prop_map(move |edits| {
        let mut text: Vec<char> = valid.chars().collect();
        for (at, what, c) in edits {
            let at = at.min(text.len());
            match what {
                0 => text.insert(at, c),
                1 if at < text.len() => {
                    text.remove(at);
                }
                2 => text.truncate(at),
                _ => {
                    let tail: Vec<char> = text[at..].iter().take(40).copied().collect();
                    text.splice(at..at, tail);
                }
            }
        }
        text.into_iter().collect()
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn patterns_validate_and_compile_without_panicking(pattern in grammar_text(), fixed in any::<bool>(), insensitive in any::<bool>()) {
        if validate_pattern(&pattern, fixed).is_ok() {
            // Every accepted pattern compiles (within the budget).
            prop_assert!(Matcher::new(&pattern, fixed, insensitive).is_ok(), "{pattern:?}");
        }
    }

    #[test]
    fn globs_canonicalise_expand_and_match_without_panicking(glob in grammar_text(), path in grammar_text()) {
        let _ = validate_glob(&glob);
        let canonical = canonical_glob(&glob);
        // Canonicalisation is idempotent.
        prop_assert_eq!(canonical_glob(&canonical), canonical.clone());
        let expansions = brace_expansions(&canonical);
        prop_assert!(expansions.len() <= 4096, "{} expansions", expansions.len());
        let basename = path.rsplit('/').next().unwrap_or("").to_string();
        if let Ok(matcher) = GlobMatcher::new(&glob) {
            let _ = matcher.is_match(&path, &basename);
        }
    }

    #[test]
    fn gitignore_rules_parse_and_decide_without_panicking(rules in prop::collection::vec(grammar_text(), 0..8), path in grammar_text(), is_dir in any::<bool>()) {
        let parsed = Gitignore::parse(&rules.join("\n"));
        let basename = path.rsplit('/').next().unwrap_or("").to_string();
        let _ = parsed.decide(&path, &basename, is_dir);
    }

    #[test]
    fn law_files_load_or_say_why(text in mutated(include_str!("../laws/grep/context.toml"))) {
        let (laws, problems) = lawsuite::law::load_text("grep/context.toml", &text);
        for p in &problems {
            prop_assert!(!p.to_string().is_empty());
        }
        let _ = laws;
    }

    #[test]
    fn law_files_of_random_text_load_or_say_why(text in grammar_text()) {
        let _ = lawsuite::law::load_text("x/y.toml", &format!("[[law]]\n{text}"));
    }

    #[test]
    fn regression_files_parse_and_replay_only_inside_their_tree(text in mutated(REGRESSION)) {
        let Ok(regression) = Regression::parse(&text, Path::new("fuzz.json")) else {
            return Ok(());
        };
        // Replaying writes only under a fresh temporary tree (refusing
        // paths that leave it) and calls only on that tree.
        let _ = regression.replay(&Portable::with_threads(1), Path::new("fuzz.json"));
    }

    #[test]
    fn the_protocol_server_answers_every_line(lines in prop::collection::vec(mutated(REQUEST), 1..6)) {
        let input = lines.join("\n") + "\n";
        let mut output = Vec::new();
        lawsuite::protocol::serve(&lawsuite::peer::Noop, input.as_bytes(), &mut output).unwrap();
        let answered = String::from_utf8_lossy(&output).lines().count();
        prop_assert!(answered <= lines.iter().map(|l| l.lines().count().max(1)).sum::<usize>() + 1);
    }

    #[test]
    fn protocol_responses_parse_or_fail_cleanly(text in mutated(RESPONSE)) {
        let _ = serde_json::from_str::<lawsuite::protocol::messages::Response>(&text);
        let _ = serde_json::from_str::<lawsuite::protocol::messages::InitializeResult>(&text);
    }
}

const REGRESSION: &str = r#"{"why":"x","generator":"smthrs","generatorVersion":1,"seed":1,"callIndex":0,"peers":["portable"],"root":"/r",
"files":[{"path":"a.ts","content":"needle\n"},{"path":"d","kind":"dir","content":""},{"path":"l","kind":"symlink","target":"a.ts","content":""}],
"call":{"method":"grep","input":{"pattern":"needle","root":"/r","fixedStrings":false,"ignoreCase":false,"smartCase":false,"globs":[],"beforeContext":0,"afterContext":0,"filesWithMatches":false,"hidden":false,"symbols":true,"noIgnore":false,"limit":100}},
"expected":{}}"#;

const REQUEST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"glob","params":{"pattern":"*","root":".","hidden":false,"noIgnore":false,"limit":5}}"#;

const RESPONSE: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"protocol":1,"peer":{"name":"py","version":"0.1"},"capabilities":{"methods":["glob"],"ground":"shared"}}}"#;
