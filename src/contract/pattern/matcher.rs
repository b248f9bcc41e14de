//! §10.4 and §12: matching an accepted pattern, per line and over a buffer.
//!
//! The validated ECMAScript tree is translated to `regex-syntax` syntax by
//! hand rather than handing the pattern text to the Rust parser: the two
//! dialects disagree on exactly the characters this grammar allows (`&&`,
//! `--`, `~~`, `[` inside classes; `\<` is a word boundary in Rust and an
//! invalid escape in `u` mode). Every non-alphanumeric character is written
//! as `\x{HH}`, which means the same thing in and out of a class, so no
//! escaping rule of one dialect can leak into the other.

use std::fmt::Write as _;

use regex_automata::{
    Input, MatchKind, Span,
    meta::{self, Regex},
    nfa::thompson::WhichCaptures,
    util::{prefilter::Prefilter, syntax},
};
use regex_syntax::hir::{
    Hir, HirKind,
    literal::{ExtractKind, Extractor},
};

use super::ecma::{Ast, Node, NodeId};
use super::validate::compile_tree;
use crate::contract::StdError;

/// Detail of the typed failure for a pattern the validator accepted but the
/// Rust engine could not build (§10 step 7's fallback text). Never observed
/// with the limits below; kept so that a future engine limit is an error,
/// not a panic.
const BUDGET_FALLBACK: &str = "pattern compilation exceeds its budget";

/// NFA size cap for one compiled regex. §10.3 allows ~8 000 atoms, each of
/// which may be a negated class compiled to a UTF-8 automaton. Measured
/// (regex-automata 0.4.19): `(?i)([^ks]{1000}){8}` needs 9.7 MB reversed,
/// `(?i)([^bdfhjkmoqsuwy]{1000}){8}` 14 MB; the default cap of 10 MiB would
/// reject patterns the contract accepts. 128 MiB leaves ample room while
/// still bounding memory.
const NFA_SIZE_LIMIT: usize = 128 << 20;

/// `regex-syntax` nesting cap. §10.3 allows 128 groups; each becomes up to
/// four syntax levels (group, alternation, concatenation, repetition), so the
/// default of 250 would reject accepted patterns.
const NEST_LIMIT: u32 = 1024;

/// A validated, compiled pattern: the exact per-line matcher of §10.4 and a
/// buffer-level candidate search for scanners.
///
/// Cloning is cheap (the compiled regexes are reference counted) and the
/// value is `Send + Sync`, so one `Matcher` serves every scanning thread.
///
/// ```
/// use lawsuite::contract::Matcher;
///
/// let m = Matcher::new("n.edle$", false, true)?;
/// assert!(m.is_match("Needle"));
/// assert!(m.is_match("N\redle"));
/// assert!(!m.is_match("N\nedle"));
///
/// // Fixed strings: every character literal.
/// let q = Matcher::new("foo?", true, false)?;
/// assert!(q.is_match("is foo? yes"));
/// assert!(!q.is_match("fo"));
///
/// // Skip to the first line that may match, as a scanner would.
/// let haystack = "alpha\nbeta\r\ngamma_RESUME\n";
/// let r = Matcher::new("[a-z]+_RESUME", false, false)?;
/// let at = r.find_candidate(haystack, 0).expect("a candidate");
/// assert!(at >= 12 && at <= 24);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Matcher {
    /// Per-line semantics: `^` = `\A`, `$` = `\z`.
    exact: Regex,
    /// Multi-line superset used over a buffer of lines.
    candidate: Regex,
    /// A required inner literal set, when the candidate regex has no fast
    /// prefix prefilter of its own (see [`Matcher::find_candidate`]).
    inner: Option<Prefilter>,
    /// A literal set every matching line holds verbatim in its raw bytes,
    /// UTF-8 or not (see [`Matcher::find_line_candidate`]).
    gate: Option<Prefilter>,
    /// The pattern can match no U+FFFD, so the candidate regex may search
    /// raw bytes (see [`Matcher::searches_raw_bytes`]).
    raw_regex: bool,
}

/// Which of the two translations to write.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavor {
    /// One line, no terminator: `^`/`$` are the text's ends.
    Line,
    /// A buffer of `\n`-terminated lines: `^`/`$` are line boundaries and no
    /// atom may consume `\n`, so a match never spans two lines.
    Buffer,
}

impl Matcher {
    /// Validates `pattern` with [`validate_pattern`](super::validate_pattern)
    /// and compiles it; `insensitive` is §12's flag (see
    /// [`is_insensitive`](super::is_insensitive)).
    ///
    /// Fails exactly when `validate_pattern` fails, with the same error. A
    /// failure of the Rust engine itself on an accepted pattern (not known
    /// to happen) is `invalid_pattern` with detail
    /// «`pattern compilation exceeds its budget`», never a panic.
    pub fn new(pattern: &str, fixed_strings: bool, insensitive: bool) -> Result<Matcher, StdError> {
        let ast = compile_tree(pattern, fixed_strings)?;
        Matcher::compile(&ast, insensitive)
            .ok_or_else(|| StdError::invalid_pattern(pattern, BUDGET_FALLBACK))
    }

    fn compile(ast: &Ast, insensitive: bool) -> Option<Matcher> {
        let exact_hir = parse(&translate(ast, Flavor::Line), insensitive)?;
        let candidate_hir = parse(&translate(ast, Flavor::Buffer), insensitive)?;
        let candidate = build(&candidate_hir)?;
        let prefix = prefix_prefilter(&candidate_hir).filter(|pre| pre.filter.is_fast());
        let inner = if prefix.is_some() || regex_is_fast_alone(&candidate, &candidate_hir) {
            None
        } else {
            inner_prefilter(&candidate_hir)
        };
        let gate = [&inner, &prefix]
            .into_iter()
            .flatten()
            .find(|pre| pre.raw_safe)
            .map(|pre| pre.filter.clone());
        Some(Matcher {
            exact: build(&exact_hir)?,
            candidate,
            inner: inner.map(|pre| pre.filter),
            gate,
            raw_regex: !may_match_replacement(&candidate_hir),
        })
    }

    /// Whether `line` (its text, without terminator) contains a match
    /// (§10.4): unanchored, `.` is any scalar but `\n`, `^`/`$` are the
    /// line's ends, case folding is Unicode simple folding when insensitive.
    /// The empty pattern matches every line, the empty one included.
    pub fn is_match(&self, line: &str) -> bool {
        self.exact.is_match(line)
    }

    /// [`is_match`](Matcher::is_match) of the lossy decoding (§11.2) of
    /// `line`, a line's bytes without terminator, decoding only when the
    /// answer could depend on it.
    ///
    /// A line of UTF-8 is its own decoding. A line that is not is asked as
    /// it is when no part of the pattern can match U+FFFD (see
    /// [`searches_raw_bytes`](Matcher::searches_raw_bytes)): a match in the
    /// decoded line is then made of characters the bytes hold verbatim,
    /// and an invalid byte, like the U+FFFD standing for it, is matched by
    /// no atom. So a scanner confirms candidate lines on their bytes and
    /// decodes only the lines it keeps, as `grep-searcher` does.
    ///
    /// ```
    /// use lawsuite::contract::Matcher;
    /// let m = Matcher::new("a.c", false, false)?;
    /// assert!(m.is_match_bytes(b"xa\xffc"));            // `.` matches the U+FFFD
    /// assert!(!Matcher::new("ac", false, false)?.is_match_bytes(b"a\xffc"));
    /// assert!(Matcher::new("^needle$", false, false)?.is_match_bytes(b"needle"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_match_bytes(&self, line: &[u8]) -> bool {
        if self.raw_regex || std::str::from_utf8(line).is_ok() {
            self.exact.is_match(line)
        } else {
            self.exact
                .is_match(String::from_utf8_lossy(line).as_bytes())
        }
    }

    /// The first place at or after `from` where a matching line may start
    /// being looked at, for scanning many lines at once.
    ///
    /// `haystack` is a run of complete lines, each ended by `\n` (LF or
    /// CRLF; the last may be unterminated), and `from` is normally a line
    /// start. The answer is the start of the leftmost match of a *candidate*
    /// regex — the pattern with `^` as a line start, `$` as an optional `\r`
    /// then a line end, and no atom consuming `\n` — or, when a required
    /// inner literal drives the search, the start of the first line (at or
    /// after `from`) holding that literal.
    ///
    /// **Guarantee:** for every line `L` lying within `haystack[from..]`
    /// whose text (without `\n` and one `\r` before it) satisfies
    /// [`is_match`](Matcher::is_match), this returns `Some(p)` with
    /// `from <= p <= ` the offset where `L`'s text ends. False positives are
    /// allowed: the caller verifies the line holding `p` with `is_match` and
    /// continues from the next line start. `None` therefore means no line in
    /// `haystack[from..]` matches. A position past the last line (after a
    /// final `\n`) is never returned, and `from` past the end gives `None`.
    ///
    /// Speed: the candidate regex is a `regex_automata::meta::Regex`, so a
    /// literal prefix (`foo[a-z]+`, `(a|b)RESUME`) is found by its
    /// memchr/memmem/Teddy prefilter. For a literal that is not a prefix,
    /// `meta` (0.4.19) only helps when it can prove a reverse strategy safe:
    /// case-sensitive `[a-z]+_RESUME` gets `ReverseSuffix` and
    /// `[a-z]+_RESUME[0-9]` gets `ReverseInner`, but case-insensitive
    /// `[a-z]+_resume` (the literal becomes case variants, and the single
    /// class prefix gives no separator proof) falls back to the plain core
    /// engines. So, like ripgrep, this module extracts the required inner
    /// literals itself where `meta` has no accelerated strategy, scans for
    /// them with a `regex-automata` prefilter and answers the start of the
    /// line holding the first hit; the caller's `is_match` replaces `meta`'s
    /// reverse confirmation.
    ///
    /// Worst case (no usable literal, a pattern near the 8192-state budget,
    /// a very long line) the search is linear in the line times the NFA
    /// size, as in the reference's Thompson NFA.
    pub fn find_candidate(&self, haystack: &str, from: usize) -> Option<usize> {
        self.search(haystack.as_bytes(), from, self.inner.as_ref())
    }

    /// Whether [`find_line_candidate`](Matcher::find_line_candidate) may be
    /// given bytes that are not UTF-8.
    ///
    /// A lossily decoded line differs from its bytes only by the U+FFFD
    /// replacing each invalid sequence. So the answer is true when
    ///
    /// * the pattern has a required literal set (a fast prefix or inner
    ///   one, as in [`find_candidate`](Matcher::find_candidate)) none of
    ///   whose literals holds a byte of U+FFFD's encoding (`EF BF BD`): such
    ///   a literal occurs in the decoded line exactly where it occurs,
    ///   verbatim, in its bytes; or
    /// * no part of the pattern can match U+FFFD (no `.`, negated class,
    ///   `\W`, `\S`, `\D` or Unicode word boundary): a match in a decoded
    ///   line is then made of characters the line's bytes hold verbatim,
    ///   where the candidate regex finds it too (it never matches an
    ///   invalid sequence, and a false candidate is checked by
    ///   [`is_match`](Matcher::is_match) on the decoded line).
    ///
    /// A scanner can then skip lines without decoding (or validating) them
    /// (for a regex with no literal, validating every region was 5 % of the
    /// CPU time of a search of the cargo registry's sources).
    pub fn searches_raw_bytes(&self) -> bool {
        self.gate.is_some() || self.raw_regex
    }

    /// [`find_candidate`](Matcher::find_candidate) over bytes, for a
    /// scanner that decodes only the lines it looks at. The guarantee is the
    /// same, for the lines of the lossily decoded `haystack`, whatever its
    /// bytes when [`searches_raw_bytes`](Matcher::searches_raw_bytes) holds;
    /// otherwise `haystack` must be UTF-8.
    pub fn find_line_candidate(&self, haystack: &[u8], from: usize) -> Option<usize> {
        self.search(haystack, from, self.gate.as_ref().or(self.inner.as_ref()))
    }

    fn search(&self, bytes: &[u8], from: usize, literals: Option<&Prefilter>) -> Option<usize> {
        if from > bytes.len() {
            return None;
        }
        let at = match literals {
            Some(pre) => {
                let hit = pre.find(bytes, Span::from(from..bytes.len()))?;
                let line_start = memchr::memrchr(b'\n', &bytes[..hit.start]).map_or(0, |nl| nl + 1);
                line_start.max(from)
            }
            None => self
                .candidate
                .search(&Input::new(bytes).range(from..))?
                .start(),
        };
        // After a final `\n` (or in an empty haystack) there is no line; an
        // empty-width match there (empty pattern, `^`, `$`) is not one.
        let phantom = at == bytes.len() && (bytes.is_empty() || bytes.ends_with(b"\n"));
        (!phantom).then_some(at)
    }
}

#[cfg(test)]
impl Matcher {
    pub(crate) fn candidate_regex(&self) -> &Regex {
        &self.candidate
    }

    pub(crate) fn has_inner_prefilter(&self) -> bool {
        self.inner.is_some()
    }
}

// Engine errors are not shown to anyone (the contract has one fallback
// text), so only success matters.
fn parse(pattern: &str, insensitive: bool) -> Option<Hir> {
    let config = syntax::Config::new()
        .case_insensitive(insensitive)
        .nest_limit(NEST_LIMIT)
        .unicode(true)
        .utf8(true);
    syntax::parse_with(pattern, &config).ok()
}

fn build(hir: &Hir) -> Option<Regex> {
    let config = meta::Config::new()
        .match_kind(MatchKind::LeftmostFirst)
        // Only "is there a match" and its start are ever asked for.
        .which_captures(WhichCaptures::Implicit)
        .nfa_size_limit(Some(NFA_SIZE_LIMIT));
    meta::Builder::new()
        .configure(config)
        .build_from_hir(hir)
        .ok()
}

/// Whether the candidate regex needs no inner literal prefilter of ours,
/// as ripgrep decides (`grep-regex`'s `InnerLiterals::new`): `meta` says it
/// is accelerated (a prefix prefilter, or a reverse suffix or inner
/// literal strategy it proved safe) and no Unicode word boundary could make
/// it fall back to a slower engine; or the pattern is an alternation of
/// literals, which `meta` searches as well as anything would.
///
/// Our own inner literal search answers the start of each line holding a
/// literal, which the scanner then confirms with the per-line regex: where
/// the literal is common, that is a line's work for every occurrence. A
/// one-byte literal (`[a-z]{3}[A-Z]{4}[A-Z]{3}q`) cost 33 % more CPU than a
/// strong one, where `rg` pays 8 % (issue 47); `meta`'s reverse suffix
/// search checks each occurrence with a few bytes of a reverse DFA.
fn regex_is_fast_alone(candidate: &Regex, hir: &Hir) -> bool {
    let looks = hir.properties().look_set();
    (candidate.is_accelerated() && !looks.contains_word_unicode())
        || hir.properties().is_alternation_literal()
}

/// The required inner literals of `hir`, as a fast prefilter (asked only
/// when `hir` has no fast prefix prefilter, and `meta` has no accelerated
/// strategy of its own: see [`regex_is_fast_alone`]).
///
/// Sound because every match of a top-level concatenation contains a match
/// of each of its children, and the prefix literal set of a child is
/// complete: every match of the child starts with one of them. A buffer
/// match never spans lines, so the literal lies within the matching line.
fn inner_prefilter(hir: &Hir) -> Option<Literals> {
    let HirKind::Concat(children) = hir.kind() else {
        return None;
    };
    // The first child with a fast literal set marks where the required
    // literals start; the whole suffix from there may give longer, rarer
    // literals (`[a-z]+ RESUME` → " RESUME", not " "), as `meta` does.
    let (at, child) = children.iter().enumerate().skip(1).find_map(|(i, child)| {
        Some((
            i,
            prefix_prefilter(child).filter(|pre| pre.filter.is_fast())?,
        ))
    })?;
    let suffix = Hir::concat(children[at..].to_vec());
    Some(
        prefix_prefilter(&suffix)
            .filter(|pre| pre.filter.is_fast())
            .unwrap_or(child),
    )
}

/// A prefilter over a literal set, and whether it may search raw bytes.
struct Literals {
    filter: Prefilter,
    /// No literal holds a byte of U+FFFD's UTF-8 encoding, so no literal
    /// can overlap a replacement character of a lossy decoding
    /// ([`Matcher::searches_raw_bytes`]).
    raw_safe: bool,
}

fn prefix_prefilter(hir: &Hir) -> Option<Literals> {
    let mut extractor = Extractor::new();
    extractor.kind(ExtractKind::Prefix);
    let mut literals = extractor.extract(hir);
    // Inner literals never prove a match; marking them inexact keeps the
    // optimiser from preferring many short "exact" literals (as `meta` does).
    literals.make_inexact();
    literals.optimize_for_prefix_by_preference();
    let literals = literals.literals()?;
    if literals.is_empty() || literals.iter().any(|lit| lit.is_empty()) {
        return None;
    }
    let raw_safe = !literals
        .iter()
        .any(|lit| may_overlap_replacement(lit.as_bytes()));
    Some(Literals {
        filter: Prefilter::new(MatchKind::LeftmostFirst, literals)?,
        raw_safe,
    })
}

/// U+FFFD's UTF-8 encoding, which a lossy decoding puts in place of each
/// invalid sequence.
const REPLACEMENT: &[u8] = "\u{FFFD}".as_bytes();

/// Whether an occurrence of `literal` in a decoded text could share a byte
/// with a U+FFFD there: some shift of the two agrees on every byte where
/// they overlap. Patterns are printable ASCII (§10), so only a case-folded
/// letter (`ſ` is `C5 BF`, `K` is `E2 84 AA`) brings in other bytes, and
/// none of them fits; the check keeps that an argument, not an accident.
fn may_overlap_replacement(literal: &[u8]) -> bool {
    let n = literal.len() as isize;
    // `shift` is where the replacement starts relative to the literal.
    (1 - REPLACEMENT.len() as isize..n).any(|shift| {
        literal.iter().enumerate().all(|(i, b)| {
            let j = i as isize - shift;
            !(0..REPLACEMENT.len() as isize).contains(&j) || REPLACEMENT[j as usize] == *b
        })
    })
}

/// Whether some match of `hir` could use a U+FFFD: a class or literal that
/// holds it, any class with a non-ASCII byte, or a Unicode word boundary
/// (whose sides a replacement character and an invalid byte might not
/// decide alike). Conservative: `true` when unsure.
fn may_match_replacement(hir: &Hir) -> bool {
    use regex_syntax::hir::{Class, Look};
    match hir.kind() {
        HirKind::Empty => false,
        HirKind::Literal(literal) => literal
            .0
            .windows(REPLACEMENT.len())
            .any(|w| w == REPLACEMENT),
        HirKind::Class(Class::Unicode(class)) => class
            .ranges()
            .iter()
            .any(|r| r.start() <= '\u{FFFD}' && '\u{FFFD}' <= r.end()),
        HirKind::Class(Class::Bytes(class)) => class.ranges().iter().any(|r| r.end() >= 0x80),
        HirKind::Look(look) => matches!(
            look,
            Look::WordUnicode
                | Look::WordUnicodeNegate
                | Look::WordStartUnicode
                | Look::WordEndUnicode
                | Look::WordStartHalfUnicode
                | Look::WordEndHalfUnicode
        ),
        HirKind::Repetition(rep) => may_match_replacement(&rep.sub),
        HirKind::Capture(cap) => may_match_replacement(&cap.sub),
        HirKind::Concat(hirs) | HirKind::Alternation(hirs) => {
            hirs.iter().any(may_match_replacement)
        }
    }
}

/// The tree as `regex-syntax` syntax.
fn translate(ast: &Ast, flavor: Flavor) -> String {
    let mut out = String::new();
    write_node(ast, ast.root, flavor, &mut out);
    out
}

fn write_char(c: char, out: &mut String) {
    if c.is_ascii_alphanumeric() {
        out.push(c);
    } else {
        // `write!` to a `String` cannot fail.
        let _ = write!(out, "\\x{{{:X}}}", u32::from(c));
    }
}

// Recursion is bounded by the 128-group cap (checked before compiling).
fn write_node(ast: &Ast, id: NodeId, flavor: Flavor, out: &mut String) {
    match ast.node(id) {
        Node::Literal(c) => write_char(*c, out),
        // Lines never hold `\n`, so `[^\n]` is "any scalar" per line and
        // cannot cross a line in a buffer.
        Node::Any => out.push_str("[^\\n]"),
        Node::Start => out.push_str(match flavor {
            Flavor::Line => "\\A",
            Flavor::Buffer => "(?m:^)",
        }),
        Node::End => out.push_str(match flavor {
            Flavor::Line => "\\z",
            // A CRLF line's text ends before its `\r` (§11.3).
            Flavor::Buffer => "(?:\\r?(?m:$))",
        }),
        Node::Class { negated, ranges } => {
            if ranges.is_empty() {
                // `[]` / `[^]`: refused by §10 step 5, written for totality.
                out.push_str(match (negated, flavor) {
                    (false, _) => "[^\\x{0}-\\x{10FFFF}]",
                    (true, Flavor::Line) => "[\\x{0}-\\x{10FFFF}]",
                    (true, Flavor::Buffer) => "[^\\n]",
                });
                return;
            }
            out.push('[');
            if *negated {
                out.push('^');
            }
            for &(lo, hi) in ranges {
                write_char(lo, out);
                if hi != lo {
                    out.push('-');
                    write_char(hi, out);
                }
            }
            if *negated && flavor == Flavor::Buffer {
                out.push_str("\\n");
            }
            out.push(']');
        }
        Node::Group(alternation) => {
            out.push_str("(?:");
            write_node(ast, *alternation, flavor, out);
            out.push(')');
        }
        Node::Alternation(branches) => {
            for (i, &branch) in branches.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                write_node(ast, branch, flavor, out);
            }
        }
        Node::Concat(terms) => {
            for &term in terms {
                write_node(ast, term, flavor, out);
            }
        }
        Node::Repeat { sub, min, max } => {
            let simple = matches!(
                ast.node(*sub),
                Node::Literal(_) | Node::Any | Node::Class { .. } | Node::Group(_)
            );
            if !simple {
                out.push_str("(?:");
            }
            write_node(ast, *sub, flavor, out);
            if !simple {
                out.push(')');
            }
            let _ = match max {
                None => write!(out, "{{{min},}}"),
                Some(max) if max == min => write!(out, "{{{min}}}"),
                Some(max) => write!(out, "{{{min},{max}}}"),
            };
        }
    }
}

#[cfg(test)]
mod raw_tests {
    use super::may_overlap_replacement;

    #[test]
    fn literals_that_could_share_a_byte_with_a_replacement_character() {
        for lit in [
            &b"\xEF\xBF\xBD"[..],
            b"a\xEF\xBF\xBDb",
            b"\xBDx",
            b"\xBF\xBDx",
            b"x\xEF",
            b"x\xEF\xBF",
            b"\xBF",
        ] {
            assert!(may_overlap_replacement(lit), "{lit:?}");
        }
        for lit in [
            &b"needle"[..],
            "ſ".as_bytes(),
            "K".as_bytes(),
            b"\xBFx",
            b"x\xBD",
        ] {
            assert!(!may_overlap_replacement(lit), "{lit:?}");
        }
    }
}
