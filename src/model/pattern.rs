//! The pattern, search-contract §10 and §12: validation (§10 steps 1–7,
//! with §10.1's malformed-construct messages, §10.2's engine reasons and
//! §10.3's state budget), case handling (§12) and matching (§10.4).
//!
//! An accepted pattern is parsed once into a small tree (alternation,
//! sequence, quantified atom), the tree is counted for §10.3 and written
//! back out in the `regex` syntax, every literal as `\x{..}`, for a
//! `regex-automata` engine to answer "does this line match". The grammar
//! is ECMAScript's `u` mode restricted to what §10 lets through.

use regex_automata::meta::Regex;
use regex_automata::util::syntax;

use crate::contract::{ErrorCode, StdError};

/// «`Unsupported ripgrep pattern "{pattern}": {detail}`» (§10, §8.1, §17):
/// every refusal of a pattern or of a caller's glob.
pub(crate) fn refuse(pattern: &str, detail: &str) -> StdError {
    StdError::new(
        ErrorCode::InvalidPattern,
        format!("Unsupported ripgrep pattern \"{pattern}\": {detail}"),
    )
}

/// §12: the search is case-insensitive.
pub(crate) fn insensitive(pattern: &str, ignore_case: bool, smart_case: bool) -> bool {
    ignore_case || (smart_case && !pattern.bytes().any(|b| b.is_ascii_uppercase()))
}

/// One line matcher (§10.4).
pub(crate) struct LineMatcher {
    regex: Regex,
}

impl LineMatcher {
    /// Validate `pattern` (§10) and build its matcher.
    pub(crate) fn new(
        pattern: &str,
        fixed_strings: bool,
        insensitive: bool,
    ) -> Result<LineMatcher, StdError> {
        let tree = validate(pattern, fixed_strings)?;
        let mut text = String::new();
        write_alternation(&tree, &mut text);
        let regex = Regex::builder()
            .syntax(syntax::Config::new().case_insensitive(insensitive))
            .build(&text)
            // §10.3's budget bounds an accepted pattern well below the
            // engine's limits; were one still refused, the call fails
            // rather than answering something the spec did not ask.
            .map_err(|_| refuse(pattern, "pattern compilation exceeds its budget"))?;
        Ok(LineMatcher { regex })
    }

    /// Does the line (terminator removed) match anywhere?
    pub(crate) fn is_match(&self, line: &str) -> bool {
        self.regex.is_match(line)
    }
}

#[derive(Clone, Debug)]
enum Atom {
    Char(char),
    Any,
    Start,
    End,
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
    Group(Vec<Vec<Term>>),
}

#[derive(Clone, Debug)]
struct Term {
    atom: Atom,
    /// `(min, max)`, `max` absent for "no upper bound".
    repeat: Option<(u64, Option<u64>)>,
}

/// §3 check 4: the flow's validation of a caller's pattern (§10), with
/// `fixedStrings` as the caller gave it (absent is false).
pub(crate) fn check(pattern: &str, fixed_strings: bool) -> Result<(), StdError> {
    validate(pattern, fixed_strings).map(|_| ())
}

/// §10: the pattern's tree, or the refusal.
fn validate(pattern: &str, fixed_strings: bool) -> Result<Vec<Vec<Term>>, StdError> {
    // Step 1, in UTF-16 units.
    if pattern.encode_utf16().count() > 4096 {
        return Err(refuse(pattern, "patterns must not exceed 4096 bytes"));
    }
    // Step 2.
    if !pattern.chars().all(|c| (' '..='~').contains(&c)) {
        return Err(refuse(
            pattern,
            "patterns must contain printable ASCII only",
        ));
    }
    // Step 3: a literal is every character itself.
    if fixed_strings {
        let sequence = pattern
            .chars()
            .map(|c| Term {
                atom: Atom::Char(c),
                repeat: None,
            })
            .collect();
        return Ok(vec![sequence]);
    }
    // Step 4.
    if pattern.contains("(?") {
        return Err(refuse(
            pattern,
            "special groups and lookaround are not supported",
        ));
    }
    scan(pattern).map_err(|detail| refuse(pattern, detail))?;
    // Step 6.
    let chars: Vec<char> = pattern.chars().collect();
    let mut parser = Parser {
        chars: &chars,
        at: 0,
        depth: 0,
        deepest: 0,
    };
    let tree = match parser.alternation() {
        Ok(tree) => tree,
        Err(reason) => {
            let detail = match malformed(&chars) {
                Some(message) => message,
                None if reason.is_empty() => "invalid Smithers Ripgrep ASCII v1 expression".into(),
                None => format!("invalid expression: {reason}"),
            };
            return Err(refuse(pattern, &detail));
        }
    };
    // Step 7.
    if parser.deepest > 128 {
        return Err(refuse(
            pattern,
            "patterns must not exceed 128 nested groups",
        ));
    }
    if states_of_alternation(&tree).saturating_add(1) > 8192 {
        return Err(refuse(
            pattern,
            "patterns must not exceed 8192 compiled states",
        ));
    }
    Ok(tree)
}

/// §10 step 5: the left-to-right scan.
fn scan(pattern: &str) -> Result<(), &'static str> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut in_class = false;
    let mut class_chars = 0usize;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            match chars.get(i + 1) {
                Some(next) if !next.is_ascii_alphanumeric() => {
                    if in_class {
                        class_chars += 1;
                    }
                    i += 2;
                    continue;
                }
                _ => {
                    return Err(
                        "backreferences, shorthand classes and encoded escapes are not supported",
                    );
                }
            }
        }
        if in_class {
            if c == '[' {
                return Err("nested and named character classes are not supported");
            }
            if c == ']' {
                if class_chars == 0 || (class_chars == 1 && i > 0 && chars[i - 1] == '^') {
                    return Err("empty character classes are not supported");
                }
                in_class = false;
                i += 1;
                continue;
            }
            let next = chars.get(i + 1).copied();
            if matches!(
                (c, next),
                ('&', Some('&')) | ('-', Some('-')) | ('~', Some('~'))
            ) {
                return Err("character-class set operations are not supported");
            }
            class_chars += 1;
            i += 1;
            continue;
        }
        if c == '[' {
            in_class = true;
            class_chars = 0;
        } else if c == '{'
            && let Some(close) = chars[i + 1..].iter().position(|&d| d == '}')
        {
            let inside: String = chars[i + 1..i + 1 + close].iter().collect();
            for part in inside.split(',').filter(|p| !p.is_empty()) {
                if part.bytes().all(|b| b.is_ascii_digit())
                    && part.parse::<u64>().map_or(true, |n| n > 1000)
                {
                    return Err("repetition counts above 1000 are not supported");
                }
            }
        }
        i += 1;
    }
    Ok(())
}

/// §10.1: the malformed-construct message, when the analysis finds one.
fn malformed(chars: &[char]) -> Option<String> {
    let mut repeatable = false;
    let mut open: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let column = i + 1;
        match chars[i] {
            '\\' => {
                i += 2;
                repeatable = true;
                continue;
            }
            '[' => {
                let mut k = i + 1;
                if chars.get(k) == Some(&'^') {
                    k += 1;
                }
                if chars.get(k) == Some(&']') {
                    k += 1;
                }
                loop {
                    match chars.get(k) {
                        None => {
                            return Some(format!(
                                "\"[\" at column {column} is never closed; write \\[ for a literal bracket"
                            ));
                        }
                        Some(']') => break,
                        Some('\\') => k += 2,
                        Some(_) => k += 1,
                    }
                }
                i = k + 1;
                repeatable = true;
                continue;
            }
            '(' => {
                open.push(i);
                repeatable = false;
            }
            ')' => {
                if open.pop().is_none() {
                    return Some(format!(
                        "\")\" at column {column} closes nothing; write \\) for a literal parenthesis"
                    ));
                }
                repeatable = true;
            }
            '{' => match count_at(chars, i) {
                None => {
                    return Some(format!(
                        "\"{{\" at column {column} is not a repetition count; write \\{{ for a literal brace"
                    ));
                }
                Some(_) if !repeatable => {
                    return Some(format!(
                        "\"{{\" at column {column} repeats nothing; write \\{{ for a literal brace"
                    ));
                }
                Some((_, next)) => {
                    i = next;
                    continue;
                }
            },
            '}' => {
                return Some(format!(
                    "\"}}\" at column {column} closes nothing; write \\}} for a literal brace"
                ));
            }
            ']' => {
                return Some(format!(
                    "\"]\" at column {column} closes nothing; write \\] for a literal bracket"
                ));
            }
            c @ ('*' | '+' | '?') => {
                if !repeatable {
                    return Some(format!(
                        "\"{c}\" at column {column} repeats nothing; write \\{c} for a literal {c}"
                    ));
                }
            }
            c => repeatable = !matches!(c, '|' | '^' | '$'),
        }
        i += 1;
    }
    open.last().map(|at| {
        format!(
            "\"(\" at column {} is never closed; write \\( for a literal parenthesis",
            at + 1
        )
    })
}

/// `{n}`, `{n,}` or `{n,m}` (digits only) at `chars[at] == '{'`: the
/// bounds and the index after the `}`.
fn count_at(chars: &[char], at: usize) -> Option<((u64, Option<u64>), usize)> {
    let close = at + chars[at..].iter().position(|&c| c == '}')?;
    let inside: String = chars[at + 1..close].iter().collect();
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    // Counts past u64 are refused by step 5 long before they reach here.
    let number = |s: &str| s.parse::<u64>().unwrap_or(u64::MAX);
    let bounds = match inside.split_once(',') {
        None if digits(&inside) => (number(&inside), Some(number(&inside))),
        Some((low, "")) if digits(low) => (number(low), None),
        Some((low, high)) if digits(low) && digits(high) => (number(low), Some(number(high))),
        _ => return None,
    };
    Some((bounds, close + 1))
}

/// Characters `\` may escape outside a class in `u` mode.
const SYNTAX: &str = "^$\\.*+?()[]{}|/";

struct Parser<'a> {
    chars: &'a [char],
    at: usize,
    depth: usize,
    deepest: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    /// The whole pattern, or the V8 reason it does not compile.
    fn alternation(&mut self) -> Result<Vec<Vec<Term>>, &'static str> {
        let tree = self.branches()?;
        match self.peek() {
            None => Ok(tree),
            Some(_) => Err("Unmatched ')'"),
        }
    }

    fn branches(&mut self) -> Result<Vec<Vec<Term>>, &'static str> {
        let mut branches = vec![self.sequence()?];
        while self.peek() == Some('|') {
            self.at += 1;
            branches.push(self.sequence()?);
        }
        Ok(branches)
    }

    fn sequence(&mut self) -> Result<Vec<Term>, &'static str> {
        let mut terms = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            let quantifiable = !matches!(atom, Atom::Start | Atom::End);
            let repeat = self.quantifier()?;
            if repeat.is_some() && !quantifiable {
                return Err("Nothing to repeat");
            }
            if repeat.is_some() && self.quantifier()?.is_some() {
                return Err("Nothing to repeat");
            }
            terms.push(Term { atom, repeat });
        }
        Ok(terms)
    }

    fn quantifier(&mut self) -> Result<Option<(u64, Option<u64>)>, &'static str> {
        let bounds = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => match count_at(self.chars, self.at) {
                Some((bounds, next)) => {
                    if let (low, Some(high)) = bounds
                        && low > high
                    {
                        return Err("numbers out of order in {} quantifier");
                    }
                    self.at = next - 1;
                    bounds
                }
                None => return Err("Incomplete quantifier"),
            },
            _ => return Ok(None),
        };
        self.at += 1;
        if self.peek() == Some('?') {
            self.at += 1;
        }
        Ok(Some(bounds))
    }

    fn atom(&mut self) -> Result<Atom, &'static str> {
        let Some(c) = self.peek() else {
            return Err("Nothing to repeat");
        };
        self.at += 1;
        Ok(match c {
            '.' => Atom::Any,
            '^' => Atom::Start,
            '$' => Atom::End,
            '*' | '+' | '?' => return Err("Nothing to repeat"),
            '{' => {
                return Err(match count_at(self.chars, self.at - 1) {
                    Some(_) => "Nothing to repeat",
                    None => "Lone quantifier brackets",
                });
            }
            '}' | ']' => return Err("Lone quantifier brackets"),
            '\\' => Atom::Char(self.escaped(SYNTAX)?),
            '(' => {
                self.depth += 1;
                self.deepest = self.deepest.max(self.depth);
                let inner = self.branches()?;
                if self.peek() != Some(')') {
                    return Err("Unterminated group");
                }
                self.at += 1;
                self.depth -= 1;
                Atom::Group(inner)
            }
            '[' => self.class()?,
            other => Atom::Char(other),
        })
    }

    fn escaped(&mut self, allowed: &str) -> Result<char, &'static str> {
        match self.peek() {
            Some(c) if allowed.contains(c) => {
                self.at += 1;
                Ok(c)
            }
            _ => Err("Invalid escape"),
        }
    }

    fn class(&mut self) -> Result<Atom, &'static str> {
        let negated = self.peek() == Some('^');
        if negated {
            self.at += 1;
        }
        // Each member with whether it was escaped: only a bare `-` can mark
        // a range.
        let mut members: Vec<(char, bool)> = Vec::new();
        loop {
            match self.peek() {
                None => return Err("Unterminated character class"),
                Some(']') => {
                    self.at += 1;
                    break;
                }
                Some('\\') => {
                    self.at += 1;
                    let allowed = format!("{SYNTAX}-");
                    members.push((self.escaped(&allowed)?, true));
                }
                Some(c) => {
                    self.at += 1;
                    members.push((c, false));
                }
            }
        }
        let mut ranges = Vec::new();
        let mut k = 0;
        while k < members.len() {
            let low = members[k].0;
            if members.get(k + 1) == Some(&('-', false)) && k + 2 < members.len() {
                let high = members[k + 2].0;
                if low > high {
                    return Err("Range out of order in character class");
                }
                ranges.push((low, high));
                k += 3;
            } else {
                ranges.push((low, low));
                k += 1;
            }
        }
        Ok(Atom::Class { negated, ranges })
    }
}

/// §10.3: states of an alternation (every one, even of one branch, adds 1).
fn states_of_alternation(branches: &[Vec<Term>]) -> u128 {
    let mut total: u128 = 1;
    for branch in branches {
        for term in branch {
            total = total.saturating_add(states_of_term(term));
        }
    }
    total
}

fn states_of_term(term: &Term) -> u128 {
    let inner = match &term.atom {
        Atom::Group(branches) => states_of_alternation(branches),
        _ => 1,
    };
    match term.repeat {
        None => inner,
        Some((min, None)) => 1u128
            .saturating_add(inner)
            .saturating_add(u128::from(min).saturating_mul(inner)),
        Some((min, Some(max))) => u128::from(max.saturating_sub(min))
            .saturating_mul(1 + inner)
            .saturating_add(u128::from(min).saturating_mul(inner)),
    }
}

fn write_char(c: char, out: &mut String) {
    out.push_str(&format!("\\x{{{:X}}}", u32::from(c)));
}

fn write_alternation(branches: &[Vec<Term>], out: &mut String) {
    for (i, branch) in branches.iter().enumerate() {
        if i > 0 {
            out.push('|');
        }
        for term in branch {
            write_term(term, out);
        }
    }
}

fn write_term(term: &Term, out: &mut String) {
    match &term.atom {
        Atom::Char(c) => write_char(*c, out),
        // `.` of the `regex` syntax: any scalar but LF, as §10.4 asks.
        Atom::Any => out.push('.'),
        Atom::Start => out.push('^'),
        Atom::End => out.push('$'),
        Atom::Class { negated, ranges } => {
            out.push('[');
            if *negated {
                out.push('^');
            }
            for &(low, high) in ranges {
                write_char(low, out);
                if high != low {
                    out.push('-');
                    write_char(high, out);
                }
            }
            out.push(']');
        }
        Atom::Group(branches) => {
            out.push_str("(?:");
            write_alternation(branches, out);
            out.push(')');
        }
    }
    match term.repeat {
        None => {}
        Some((min, None)) => out.push_str(&format!("{{{min},}}")),
        Some((min, Some(max))) => out.push_str(&format!("{{{min},{max}}}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detail(pattern: &str) -> Option<String> {
        validate(pattern, false).err().map(|e| {
            let prefix = format!("Unsupported ripgrep pattern \"{pattern}\": ");
            e.message
                .strip_prefix(&prefix)
                .unwrap_or(&e.message)
                .to_string()
        })
    }

    fn states(pattern: &str) -> u128 {
        states_of_alternation(&validate(pattern, false).unwrap()) + 1
    }

    #[test]
    fn the_worked_state_totals_of_10_3() {
        for (p, n) in [
            ("a", 3),
            ("abc", 5),
            ("a|b", 4),
            ("(a)", 4),
            ("a*", 4),
            ("a+", 5),
            ("a?", 4),
            ("a{2,5}", 10),
            ("(ab)+", 9),
            ("a{1000}", 1002),
            ("a{0,1000}", 2002),
            ("(a|b){1000}", 3002),
            ("(a{1000}){8}", 8010),
        ] {
            assert_eq!(states(p), n, "{p}");
        }
        assert_eq!(
            detail("(a{1000}){9}").as_deref(),
            Some("patterns must not exceed 8192 compiled states")
        );
        let deep = format!("{}a{}", "(".repeat(128), ")".repeat(128));
        assert!(detail(&deep).is_none());
        let deeper = format!("{}a{}", "(".repeat(129), ")".repeat(129));
        assert_eq!(
            detail(&deeper).as_deref(),
            Some("patterns must not exceed 128 nested groups")
        );
    }

    #[test]
    fn the_malformed_messages_of_10_1() {
        for (p, d) in [
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
            ("a**", "invalid expression: Nothing to repeat"),
            ("\\-", "invalid expression: Invalid escape"),
            (
                "[z-a]",
                "invalid expression: Range out of order in character class",
            ),
            (
                "a{3,2}",
                "invalid expression: numbers out of order in {} quantifier",
            ),
            (
                "*",
                "\"*\" at column 1 repeats nothing; write \\* for a literal *",
            ),
        ] {
            assert_eq!(detail(p).as_deref(), Some(d), "{p}");
        }
        for ok in [
            "", "()", "(|a)", "a|", "a*?", "a{2}?", "[\\-a]", "x{1000}", "^.$",
        ] {
            assert_eq!(detail(ok), None, "{ok}");
        }
        assert!(detail("\\d").is_some() && detail("[]").is_some() && detail("(?:a)").is_some());
        assert!(detail("a{1001}").is_some() && detail("[a&&b]").is_some());
    }

    #[test]
    fn matching_follows_10_4_and_12() {
        let m = |p: &str, fixed: bool, fold: bool, line: &str| {
            LineMatcher::new(p, fixed, fold).unwrap().is_match(line)
        };
        assert!(m("k", false, true, "\u{212A}") && m("s", false, true, "\u{17F}"));
        assert!(m("^.$", false, false, "😀"));
        assert!(m("", false, false, ""));
        assert!(m("foo?", true, false, "a foo? b") && !m("foo?", true, false, "fo"));
        assert!(m("a.c", false, false, "a\rc"));
        assert!(!m("foo$", false, false, "foo\r"));
        assert!(m("[.$]", false, false, "$") && !m("[.$]", false, false, "a"));
        assert!(insensitive("abc", false, true) && !insensitive("[A-Z]", false, true));
        assert!(insensitive("A", true, true));
        assert!(LineMatcher::new("(.{1000}){8}", false, true).is_ok());
    }

    /// The engine's own size limit never refuses what §10.3 accepts: the
    /// biggest patterns the budget lets through (8,010 states of the widest
    /// atoms, either case) all build.
    #[test]
    fn the_engine_builds_every_pattern_the_budget_accepts() {
        for p in [
            "([^a]{1000}){8}",
            "(.{1000}){8}",
            "([a-z]{1000}){8}",
            "(k{1000}){8}",
        ] {
            assert!(validate(p, false).is_ok(), "{p}");
            for fold in [false, true] {
                assert!(LineMatcher::new(p, false, fold).is_ok(), "{p} {fold}");
            }
        }
        assert!(LineMatcher::new(&"s".repeat(4096), true, true).is_ok());
    }
}
