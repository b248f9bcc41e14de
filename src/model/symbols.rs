//! The enclosing definition of a returned hit, search-contract §15, step by
//! step over the file's text split on LF with every CR kept (§11.5).

use std::sync::OnceLock;

use regex_automata::meta::Regex;
use regex_automata::util::captures::Captures;

use crate::contract::Symbol;

use super::text::is_js_whitespace;

/// §15's *declaration(line)*: modifiers, a keyword and a name, from the
/// line's start after spaces and tabs.
fn declaration_regex() -> &'static Regex {
    static REGEX: OnceLock<Regex> = OnceLock::new();
    REGEX.get_or_init(|| {
        let modifiers = "async|export|default|public|private|protected|internal|static|final\
                         |abstract|open|pub(?:\\([^)]*\\))?|unsafe|const|declare";
        let keywords = "def|class|function|fn|func|struct|impl|interface|trait|enum|module\
                        |namespace|type|sub|method";
        let text = format!(
            "^[ \\t]*(?:(?:{modifiers})[ \\t]+)*({keywords})[ \\t]+([A-Za-z_$][A-Za-z0-9_$]*)"
        );
        // A fixed, tested expression: building it cannot fail.
        Regex::new(&text).expect("the declaration expression is valid")
    })
}

fn declaration(line: &str) -> Option<(String, String)> {
    let regex = declaration_regex();
    let mut caps: Captures = regex.create_captures();
    regex.captures(line, &mut caps);
    let kind = caps.get_group(1)?;
    let name = caps.get_group(2)?;
    Some((
        line[kind.range()].to_string(),
        line[name.range()].to_string(),
    ))
}

fn blank(line: &str) -> bool {
    line.chars().all(is_js_whitespace)
}

fn indent(line: &str) -> usize {
    line.chars().take_while(|&c| c == ' ' || c == '\t').count()
}

/// §15's algorithm for the hit on line `n` (1-based) of `text`.
pub(crate) fn enclosing(text: &str, n: u64) -> Option<Symbol> {
    // JavaScript's `split("\n")`: a trailing LF leaves one empty last line.
    let lines: Vec<&str> = text.split('\n').collect();
    let n = usize::try_from(n).ok()?;
    if n < 1 || n > lines.len() {
        return None;
    }
    let mut reference = n - 1;
    while reference > 0 && blank(lines[reference]) {
        reference -= 1;
    }
    let target = indent(lines[reference]);
    let mut found = None;
    for c in (0..n).rev() {
        if blank(lines[c]) {
            continue;
        }
        let Some(decl) = declaration(lines[c]) else {
            continue;
        };
        if c != n - 1 && indent(lines[c]) >= target {
            continue;
        }
        found = Some((c, decl));
        break;
    }
    let (start, (kind, name)) = found?;
    let open = indent(lines[start]);
    let mut end = lines.len() - 1;
    for (c, line) in lines.iter().enumerate().skip(start + 1) {
        if blank(line) || indent(line) > open {
            continue;
        }
        let rest = line.trim_start_matches([' ', '\t']);
        end = if rest.starts_with([')', '}', ']']) {
            c
        } else {
            c - 1
        };
        break;
    }
    while end > start && blank(lines[end]) {
        end -= 1;
    }
    Some(Symbol {
        kind,
        name,
        start_line: start as u64 + 1,
        end_line: end as u64 + 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, n: u64) -> Option<(String, String, u64, u64)> {
        enclosing(text, n).map(|s| (s.kind, s.name, s.start_line, s.end_line))
    }

    fn sym(kind: &str, name: &str, a: u64, b: u64) -> Option<(String, String, u64, u64)> {
        Some((kind.into(), name.into(), a, b))
    }

    #[test]
    fn the_examples_of_15() {
        let py = "class Widget:\n    def widen(self, value):\n        return value\n\n\ndef other():\n    pass\n";
        assert_eq!(at(py, 3), sym("def", "widen", 2, 3));
        let outer = "class Outer:\n    def inner():\n        hit\n\n    sibling = 1\n\noutside = 2";
        assert_eq!(at(outer, 3), sym("def", "inner", 2, 3));
        assert_eq!(at(outer, 4), sym("def", "inner", 2, 3));
        assert_eq!(at(outer, 5), sym("class", "Outer", 1, 5));
        assert_eq!(at(outer, 7), None);
        let js = "export default async function work() {\n\treturn 1\n}\nnext()";
        assert_eq!(at(js, 2), sym("function", "work", 1, 3));
        assert_eq!(at(js, 1), sym("function", "work", 1, 3));
        assert_eq!(
            at("pub(crate) unsafe fn work() {\n    hit", 2),
            sym("fn", "work", 1, 2)
        );
        let gaps = "def work():\n\n    hit\n\n";
        assert_eq!(at(gaps, 3), sym("def", "work", 1, 3));
        assert_eq!(at("def work():", 1), sym("def", "work", 1, 1));
        assert_eq!(
            at("function example() {\n  return 'needle'\n}\n", 2),
            sym("function", "example", 1, 3)
        );
        assert_eq!(at("needle at top level", 1), None);
        assert_eq!(at("def\n    missing_name()", 2), None);
        assert_eq!(at("def a():", 0), None);
        assert_eq!(at("def a():", 2), None);
    }
}
