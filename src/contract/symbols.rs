//! The enclosing-definition (`symbol`) heuristic (search-contract §15).
//!
//! Given a file's line array (§11.5, [`source_lines`]) and a 1-based hit
//! line, name the definition the hit sits in: the nearest declaration above
//! it that is less indented than the hit, and the block that declaration
//! opens. It is a plain-shape heuristic: it answers nothing rather than
//! guessing when the shape is not plain (a top-level line, a declaration split
//! across lines, `function*`, `impl<T>`, Go methods, …).
//!
//! The two rules are public so laws and peers can share them:
//!
//! * [`is_declaration`] — §15 *declaration(line)*, returning `(kind, name)`.
//! * [`enclosing_symbol`] — §15 steps 1–6.
//!
//! *blank(line)* is [`is_blank`] (JavaScript `trim()` emptiness) and
//! *indent(line)* counts leading spaces and tabs, one each.
//!
//! ```
//! use lawsuite::contract::symbols::enclosing_symbol;
//! use lawsuite::contract::text::source_lines;
//! let lines = source_lines(b"function example() {\n  return 'needle'\n}\n");
//! let symbol = enclosing_symbol(&lines, 2).expect("inside example()");
//! assert_eq!((symbol.kind.as_str(), symbol.name.as_str()), ("function", "example"));
//! assert_eq!((symbol.start_line, symbol.end_line), (1, 3));
//! ```
//!
//! [`source_lines`]: crate::contract::text::source_lines

use super::Symbol;
use super::text::is_blank;

/// §15 modifiers that may precede the keyword, each followed by ≥ 1
/// space/tab. `pub` may also carry a `(...)` group; see [`skip_modifier`].
const MODIFIERS: &[&str] = &[
    "async",
    "export",
    "default",
    "public",
    "private",
    "protected",
    "internal",
    "static",
    "final",
    "abstract",
    "open",
    "pub",
    "unsafe",
    "const",
    "declare",
];

/// §15 keywords; the one found is the symbol's `kind`.
const KEYWORDS: &[&str] = &[
    "def",
    "class",
    "function",
    "fn",
    "func",
    "struct",
    "impl",
    "interface",
    "trait",
    "enum",
    "module",
    "namespace",
    "type",
    "sub",
    "method",
];

/// The §15 separator and indentation characters (not general whitespace).
fn is_space_or_tab(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Byte length of the leading run of spaces/tabs. Both are one byte, so this
/// is also §15 *indent(line)* (a tab counts 1).
fn indent(line: &str) -> usize {
    line.bytes().take_while(|&b| is_space_or_tab(b)).count()
}

/// `rest` with its leading spaces/tabs removed, or `None` if it has none
/// (every separator of the grammar is "≥ 1 space/tab").
fn after_separator(rest: &str) -> Option<&str> {
    let n = indent(rest);
    (n > 0).then(|| &rest[n..])
}

/// The longest modifier or keyword, in bytes (`protected`, `namespace`...).
const LONGEST_WORD: usize = 9;

/// The leading whitespace-delimited word of `rest` (up to a space, tab or
/// the end), or `""` when it is longer than every modifier and keyword.
///
/// Only a word that could be one of them is worth finding: looking further
/// made every hit on a 128 MB line scan the whole line twice, byte by byte.
/// `""` is neither a modifier nor a keyword, so the answer is the same.
fn word(rest: &str) -> &str {
    let head = &rest.as_bytes()[..rest.len().min(LONGEST_WORD + 1)];
    match head.iter().position(|&b| is_space_or_tab(b)) {
        // A space or tab is one byte, so `end` is a char boundary.
        Some(end) => &rest[..end],
        None if rest.len() <= LONGEST_WORD => rest,
        None => "",
    }
}

/// Consumes one modifier and its separator from the front of `rest`.
///
/// Words are delimited by spaces/tabs because the reference regex demands
/// `[ \t]+` after every modifier and after the keyword, and no word is both a
/// modifier and a keyword, so its backtracking can never split a word
/// differently; a word-at-a-time scan therefore accepts exactly the same
/// lines (checked against the regex itself in this module's tests).
fn skip_modifier(rest: &str) -> Option<&str> {
    // `pub(...)`: the group is `\([^)]*\)`, so it runs to the first `)` and
    // may itself contain spaces (`pub(in crate)`).
    if let Some(group) = rest.strip_prefix("pub(") {
        let close = group.find(')')?;
        return after_separator(&group[close + 1..]);
    }
    let w = word(rest);
    if MODIFIERS.contains(&w) {
        after_separator(&rest[w.len()..])
    } else {
        None
    }
}

/// Length of the §15 name `[A-Za-z_$][A-Za-z0-9_$]*` at the front of
/// `rest` (0 if there is none).
fn name_len(rest: &str) -> usize {
    let bytes = rest.as_bytes();
    match bytes.first() {
        Some(b) if b.is_ascii_alphabetic() || *b == b'_' || *b == b'$' => bytes
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_' || **b == b'$')
            .count(),
        _ => 0,
    }
}

/// §15 *declaration(line)*: `(kind, name)` when the line, after optional
/// leading spaces/tabs, is zero or more modifiers each followed by ≥ 1
/// space/tab, a keyword, ≥ 1 space/tab, and a name
/// `[A-Za-z_$][A-Za-z0-9_$]*`. Anything may follow the name. Case-sensitive.
///
/// Both strings borrow from `line`; nothing is allocated.
///
/// ```
/// use lawsuite::contract::symbols::is_declaration;
/// assert_eq!(is_declaration("pub(crate) unsafe fn work() {"), Some(("fn", "work")));
/// assert_eq!(is_declaration("export default async function work() {"), Some(("function", "work")));
/// assert_eq!(is_declaration("    def widen(self, value):"), Some(("def", "widen")));
/// assert_eq!(is_declaration("function* gen() {"), None);
/// assert_eq!(is_declaration("impl<T> Foo for T {"), None);
/// assert_eq!(is_declaration("func (r T) M() {"), None);
/// assert_eq!(is_declaration("def"), None);
/// ```
pub fn is_declaration(line: &str) -> Option<(&str, &str)> {
    let mut rest = &line[indent(line)..];
    loop {
        let w = word(rest);
        if let Some(kind) = KEYWORDS.iter().copied().find(|k| *k == w) {
            let after = after_separator(&rest[w.len()..])?;
            let n = name_len(after);
            return (n > 0).then(|| (kind, &after[..n]));
        }
        rest = skip_modifier(rest)?;
    }
}

/// The definition enclosing 1-based line `line` of `lines` (§15), or `None`
/// when there is none to read plainly.
///
/// `lines` is the file's [`source_lines`] (`\r` kept). `line` 0 or past the
/// end answers `None`; so does a hit with no less-indented declaration above
/// it (a top-level line), unless the hit line is itself a declaration.
///
/// ```
/// use lawsuite::contract::symbols::enclosing_symbol;
/// let lines = ["class Outer:", "    def inner():", "        hit", "", "    sibling = 1", "", "outside = 2"];
/// let inner = enclosing_symbol(&lines, 3).expect("inside inner()");
/// assert_eq!((inner.name.as_str(), inner.start_line, inner.end_line), ("inner", 2, 3));
/// let outer = enclosing_symbol(&lines, 5).expect("inside Outer");
/// assert_eq!((outer.kind.as_str(), outer.start_line, outer.end_line), ("class", 1, 5));
/// assert_eq!(enclosing_symbol(&lines, 7), None);
/// assert_eq!(enclosing_symbol(&lines, 0), None);
/// assert_eq!(enclosing_symbol(&lines, 8), None);
/// ```
///
/// [`source_lines`]: crate::contract::text::source_lines
pub fn enclosing_symbol<S: AsRef<str>>(lines: &[S], line: u64) -> Option<Symbol> {
    let text = |i: usize| lines[i].as_ref();
    // Step 1. A line number that does not fit usize cannot be in range.
    let hit = usize::try_from(line).ok()?.checked_sub(1)?;
    if hit >= lines.len() {
        return None;
    }

    // Step 2: a blank hit line takes its indentation from the nearest
    // non-blank line above (or line 1 as is).
    let mut reference = hit;
    while reference > 0 && is_blank(text(reference)) {
        reference -= 1;
    }
    let target = indent(text(reference));

    // Step 3: nearest declaration above that is less indented; the hit line
    // itself qualifies at any indentation. The indent test runs before the
    // (costlier) grammar test; all three are pure filters, so order is free.
    let (start, (kind, name)) = (0..=hit).rev().find_map(|c| {
        let l = text(c);
        if is_blank(l) || (c != hit && indent(l) >= target) {
            return None;
        }
        is_declaration(l).map(|decl| (c, decl))
    })?;

    // Step 4: the block ends before the first non-blank line at or left of
    // the declaration's indentation, or on it when it is a closing bracket.
    let open = indent(text(start));
    let mut end = lines.len() - 1;
    for c in start + 1..lines.len() {
        let l = text(c);
        let i = indent(l);
        if is_blank(l) || i > open {
            continue;
        }
        end = if matches!(l.as_bytes().get(i), Some(b')' | b'}' | b']')) {
            c
        } else {
            c - 1
        };
        break;
    }

    // Step 5: trailing blank lines are not part of the definition.
    while end > start && is_blank(text(end)) {
        end -= 1;
    }

    // Step 6. usize → u64 is lossless on every supported target.
    Some(Symbol {
        kind: kind.to_owned(),
        name: name.to_owned(),
        start_line: start as u64 + 1,
        end_line: end as u64 + 1,
    })
}

/// Annotate the returned hits of one file (§15): read it again as text,
/// split it with the `sourceLines` rule (§11.5), and set each hit's symbol.
/// A read failure leaves the hits without symbols, never drops them. Both
/// built-in peers call this, so the rule lives in one place.
pub fn annotate_file(path: &std::path::Path, matches: &mut [crate::contract::Match]) {
    use std::io::Read;
    // One buffer per thread, kept between the files the thread annotates
    // (the portable peer's symbol pass runs on threads of its own, so the
    // buffer lives for one answer): reading each file into a fresh one
    // grew and copied it while reading.
    thread_local! {
        static BYTES: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    /// Past this, a buffer is let go after its file rather than kept.
    const KEEP: usize = 16 << 20;
    if matches.is_empty() {
        return;
    }
    let Ok(mut file) = std::fs::File::open(path) else {
        return;
    };
    BYTES.with(|cell| {
        let mut own = Vec::new();
        let mut kept = cell.try_borrow_mut().ok();
        let bytes = kept.as_deref_mut().unwrap_or(&mut own);
        bytes.clear();
        // Sized once from the file's length: growing while reading copied
        // the bytes read so far at every doubling.
        let len = file.metadata().map_or(0, |m| m.len());
        let len = usize::try_from(len).unwrap_or(usize::MAX).saturating_add(1);
        // A file larger than memory leaves its hits without symbols, as a
        // failed read does; `reserve` would abort the process instead.
        if bytes.try_reserve_exact(len).is_ok() && file.read_to_end(bytes).is_ok() {
            // Borrowed lines: for a valid UTF-8 file nothing is copied (owned
            // lines copied a 128 MB one-line file once more just to look
            // above a hit).
            let text = crate::contract::text::decode_lossy(bytes);
            let lines = line_array(&text);
            for m in matches.iter_mut() {
                m.symbol = enclosing_symbol(&lines, m.line);
            }
        }
        if bytes.capacity() > KEEP {
            *bytes = Vec::new();
        }
    });
}

/// `source_lines_of(text)` collected, split with memchr's vector search:
/// the `str` splitter, one line at a time, was half of `annotate_file`'s
/// cost (2.5 % of a case-insensitive search of the cargo registry sources).
fn line_array(text: &str) -> Vec<&str> {
    // Counted first, so the array is allocated once at its size.
    let mut lines = Vec::with_capacity(memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', text.as_bytes()) {
        // `\n` is a whole scalar, so both ends are char boundaries.
        lines.push(&text[start..end]);
        start = end + 1;
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

#[cfg(test)]
mod tests {
    use std::sync::LazyLock;

    use proptest::prelude::*;
    use regex_automata::meta::Regex;

    use super::*;
    use crate::contract::text::source_lines;

    #[test]
    fn longest_word_bounds_every_modifier_and_keyword() {
        let longest = MODIFIERS.iter().chain(KEYWORDS).map(|w| w.len()).max();
        assert_eq!(longest, Some(LONGEST_WORD));
        // A long first word is neither, and costs a bounded look.
        assert_eq!(word(&"x".repeat(1 << 20)), "");
        assert_eq!(word("protected fn"), "protected");
        assert_eq!(word("namespace"), "namespace");
        assert_eq!(word("éééééé fn"), "");
        assert_eq!(is_declaration(&format!("{} fn x", "a".repeat(100))), None);
    }

    fn sym(kind: &str, name: &str, start_line: u64, end_line: u64) -> Option<Symbol> {
        Some(Symbol {
            kind: kind.into(),
            name: name.into(),
            start_line,
            end_line,
        })
    }

    fn file(text: &str) -> Vec<String> {
        source_lines(text.as_bytes())
    }

    #[test]
    fn python_method() {
        let lines = file(
            "class Widget:\n    def widen(self, value):\n        return value\n\n\ndef other():\n    pass\n",
        );
        assert_eq!(enclosing_symbol(&lines, 3), sym("def", "widen", 2, 3));
        let lines = file(
            "class Widget:\n    def widen(self, value):\n        needle = value\n        return needle\n\n\ndef other():\n    pass\n",
        );
        assert_eq!(enclosing_symbol(&lines, 3), sym("def", "widen", 2, 4));
    }

    #[test]
    fn nested_python_blocks() {
        let lines = [
            "class Outer:",
            "    def inner():",
            "        hit",
            "",
            "    sibling = 1",
            "",
            "outside = 2",
        ];
        assert_eq!(enclosing_symbol(&lines, 3), sym("def", "inner", 2, 3));
        assert_eq!(enclosing_symbol(&lines, 4), sym("def", "inner", 2, 3));
        assert_eq!(enclosing_symbol(&lines, 5), sym("class", "Outer", 1, 5));
        assert_eq!(enclosing_symbol(&lines, 7), None);
    }

    #[test]
    fn brace_block_includes_its_closer() {
        let lines = [
            "export default async function work() {",
            "\treturn 1",
            "}",
            "next()",
        ];
        assert_eq!(enclosing_symbol(&lines, 2), sym("function", "work", 1, 3));
        assert_eq!(enclosing_symbol(&lines, 1), sym("function", "work", 1, 3));
        let lines = file("function example() {\n  return 'needle'\n}\n");
        assert_eq!(
            enclosing_symbol(&lines, 2),
            sym("function", "example", 1, 3)
        );
    }

    #[test]
    fn rust_visibility_group() {
        let lines = ["pub(crate) unsafe fn work() {", "    hit"];
        assert_eq!(enclosing_symbol(&lines, 2), sym("fn", "work", 1, 2));
    }

    #[test]
    fn trailing_blanks_are_trimmed() {
        let lines = ["def work():", "", "    hit", "", ""];
        assert_eq!(enclosing_symbol(&lines, 3), sym("def", "work", 1, 3));
        assert_eq!(
            enclosing_symbol(&["def work():"], 1),
            sym("def", "work", 1, 1)
        );
    }

    #[test]
    fn nothing_to_read_plainly() {
        assert_eq!(enclosing_symbol(&["needle at top level"], 1), None);
        assert_eq!(enclosing_symbol(&["def", "    missing_name()"], 2), None);
        let lines = ["def work():", "    hit"];
        assert_eq!(enclosing_symbol(&lines, 0), None);
        assert_eq!(enclosing_symbol(&lines, 3), None);
        assert_eq!(enclosing_symbol(&lines, u64::MAX), None);
        assert_eq!(enclosing_symbol::<&str>(&[], 1), None);
    }

    #[test]
    fn unrecognised_shapes_fall_through_to_an_outer_declaration() {
        for inner in [
            "    function* gen() {",
            "    impl<T> Foo for T {",
            "    func (r T) M() {",
            "    def",
            "    def 1x():",
            "    Def upper():",
            "    const f = () => {",
        ] {
            assert_eq!(is_declaration(inner), None, "{inner:?}");
            let lines = ["class Outer {", inner, "        hit", "    }", "}"];
            assert_eq!(
                enclosing_symbol(&lines, 3),
                sym("class", "Outer", 1, 5),
                "{inner:?}"
            );
            // Without the outer declaration there is nothing.
            assert_eq!(enclosing_symbol(&lines[1..], 2), None, "{inner:?}");
        }
    }

    #[test]
    fn declaration_grammar() {
        let yes = [
            ("fn main() {", ("fn", "main")),
            ("  \t struct $Point<T>", ("struct", "$Point")),
            ("pub(in crate::a) const fn f", ("fn", "f")),
            ("pub((x) fn f", ("fn", "f")),
            ("pub() fn f", ("fn", "f")),
            ("export\tdefault\t\tclass _X extends Y", ("class", "_X")),
            ("def class", ("def", "class")),
            ("type type = 1", ("type", "type")),
            ("declare module Foo", ("module", "Foo")),
            ("static final sub x9$", ("sub", "x9$")),
            ("def work():\r", ("def", "work")),
            ("def a-b", ("def", "a")),
        ];
        for (line, want) in yes {
            assert_eq!(is_declaration(line), Some(want), "{line:?}");
        }
        let no = [
            "",
            "def",
            "def ",
            "def\r",
            "pub fn",
            "pub(crate fn f",
            "pub (crate) fn f",
            "pub(crate)fn f",
            "pub(crate)\u{A0}fn f",
            "export,fn f",
            "pubx fn f",
            "async",
            "default x",
            "functionx y",
            "fn\u{A0}f",
            "\u{A0}fn f",
            "\u{3000}fn f",
            "// fn f",
            "const x = 1",
            "  return fn",
            "FN f",
            "func_x fn y",
        ];
        for line in no {
            assert_eq!(is_declaration(line), None, "{line:?}");
        }
    }

    #[test]
    fn cr_line_ends_do_not_change_the_answer() {
        let lines = file("def work():\r\n    hit\r\n\r\nnext\r\n");
        assert_eq!(enclosing_symbol(&lines, 2), sym("def", "work", 1, 2));
        let lines = file("fn f() {\r\n    x\r\n}\r\n");
        assert_eq!(enclosing_symbol(&lines, 2), sym("fn", "f", 1, 3));
    }

    #[test]
    fn a_trailing_empty_line_is_invisible() {
        // §11.5 vs a plain `split("\n")`: the extra "" is blank and trimmed.
        let text = "def work():\n    hit\n\n";
        let mut with_empty: Vec<&str> = text.split('\n').collect();
        let lines = file(text);
        assert_eq!(lines.len() + 1, with_empty.len());
        for n in 1..=lines.len() as u64 {
            assert_eq!(
                enclosing_symbol(&lines, n),
                enclosing_symbol(&with_empty, n)
            );
        }
        with_empty.pop();
        assert_eq!(lines, with_empty);
    }

    /// The reference regex (§15), verbatim, so the hand-written scanner can be
    /// checked against it. Built once: compiling it per case dominated the run.
    static REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"^([ \t]*)(?:(?:async|export|default|public|private|protected|internal|static|final|abstract|open|pub(?:\([^)]*\))?|unsafe|const|declare)[ \t]+)*(def|class|function|fn|func|struct|impl|interface|trait|enum|module|namespace|type|sub|method)[ \t]+([A-Za-z_$][A-Za-z0-9_$]*)",
        )
        .expect("the reference pattern compiles")
    });

    fn reference_declaration(line: &str) -> Option<(&str, &str)> {
        let mut caps = REFERENCE.create_captures();
        REFERENCE.captures(line, &mut caps);
        let kind = caps.get_group(2)?;
        let name = caps.get_group(3)?;
        Some((&line[kind.range()], &line[name.range()]))
    }

    /// Lines built from the grammar's own words, so matches are common.
    fn declaration_like() -> impl Strategy<Value = String> {
        let token = prop_oneof![
            3 => proptest::sample::select(MODIFIERS).prop_map(str::to_owned),
            3 => proptest::sample::select(KEYWORDS).prop_map(str::to_owned),
            2 => "pub\\([a-z )(]{0,4}\\)?",
            2 => "[A-Za-z0-9_$*<>(){}\\[\\]:\u{A0}é-]{0,4}",
        ];
        // Separators are often missing or wrong, to probe word boundaries.
        let separator = prop_oneof!["[ \t]{1,2}", Just(String::new()), "[\u{A0}(]"];
        (
            "[ \t]{0,3}",
            proptest::collection::vec((token, separator), 0..6),
        )
            .prop_map(|(lead, parts)| {
                let mut line = lead;
                for (t, sep) in parts {
                    line.push_str(&t);
                    line.push_str(&sep);
                }
                line
            })
    }

    proptest! {
        // Cheap cases; more of them reach the rare word-boundary shapes.
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn scanner_agrees_with_the_reference_regex(line in declaration_like()) {
            prop_assert_eq!(is_declaration(&line), reference_declaration(&line));
        }
    }

    proptest! {
        #[test]
        fn line_array_is_source_lines(text in "[a\r\n\u{e9}]{0,12}") {
            let expected: Vec<&str> = crate::contract::text::source_lines_of(&text).collect();
            prop_assert_eq!(line_array(&text), expected);
        }

        #[test]
        fn scanner_agrees_on_arbitrary_text(line in any::<String>()) {
            prop_assert_eq!(is_declaration(&line), reference_declaration(&line));
        }

        #[test]
        fn enclosing_symbol_never_panics_and_stays_in_range(
            lines in proptest::collection::vec(
                prop_oneof![declaration_like(), "[ \t]{0,6}[a-z}\\])]{0,3}", "[ \t\r\u{A0}]{0,2}"],
                0..12,
            ),
            line in prop_oneof![0u64..14, any::<u64>()],
        ) {
            if let Some(s) = enclosing_symbol(&lines, line) {
                prop_assert!(1 <= s.start_line && s.start_line <= line);
                // `end_line` may lie above the hit: a less-indented
                // non-declaration between them closes the block (§15 step 4).
                prop_assert!(s.start_line <= s.end_line && s.end_line <= lines.len() as u64);
                let decl = is_declaration(&lines[(s.start_line - 1) as usize]);
                prop_assert_eq!(decl, Some((s.kind.as_str(), s.name.as_str())));
            }
        }
    }
}
