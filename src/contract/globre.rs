//! The glob → regex translation shared by caller globs (§8.3) and
//! `.gitignore` rules (§9.3).
//!
//! Both grammars reduce to the same five pieces, written down once here so
//! the two modules cannot drift apart on what `*`, `?` or "anything" means:
//!
//! | piece | regex | spec |
//! | --- | --- | --- |
//! | literal byte | `\xHH` | "every other character is literal" |
//! | `*` | `[^/]*` | any run of non-`/` bytes, `\n`/`\r` included |
//! | `?` | `[^/]` | exactly one non-`/` *byte* |
//! | `**` (anything) | `[^\n\r]*` | JavaScript `.` without the `s` flag |
//! | `**/` | `(?:[^\n\r]*/)?` | optional "anything ending in `/`" |
//!
//! Matching is over bytes: the spec converts any subject holding a character
//! outside 0x20–0x7E to its UTF-8 bytes, one matcher character per byte, and
//! for a subject inside that range the bytes *are* the characters. So every
//! regex here is compiled with Unicode and UTF-8 mode off and is run on
//! `subject.as_bytes()` directly — no conversion, no allocation per match.

use std::fmt::Write as _;

use regex_automata::meta::Regex;
use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::util::syntax;

/// `*`: zero or more bytes other than `/` (it does match `\n` and `\r`).
pub(crate) const STAR: &str = "[^/]*";
/// `?`: exactly one byte other than `/`.
pub(crate) const QMARK: &str = "[^/]";
/// "anything" from `**`: every byte but `\n` and `\r` (the reference compiled
/// it to a JavaScript `.` without the `s` flag).
pub(crate) const ANYTHING: &str = "[^\\n\\r]*";
/// `**/`: zero or more complete directory segments, each ending in `/`.
pub(crate) const ANY_DIRS: &str = "(?:[^\\n\\r]*/)?";

/// One piece of a translated glob or rule: the table above, plus the two
/// pieces only `.gitignore` rules have (a class, and a group of
/// alternatives, which caller globs get from sharing text between their
/// expansions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Piece {
    /// These bytes, exactly.
    Literal(Vec<u8>),
    /// `*`.
    Star,
    /// `?`.
    Qmark,
    /// `**` as "anything".
    Anything,
    /// `**/`.
    AnyDirs,
    /// `[…]`: one byte of the set (a negated class is stored complemented).
    Class(Box<[bool; 256]>),
    /// `{a,b}`: any one of the alternatives (none matches nothing).
    Either(Vec<Vec<Piece>>),
}

/// Appends one literal byte to `pieces`, joining a run of them into one
/// [`Piece::Literal`].
pub(crate) fn push_byte(pieces: &mut Vec<Piece>, byte: u8) {
    match pieces.last_mut() {
        Some(Piece::Literal(run)) => run.push(byte),
        _ => pieces.push(Piece::Literal(vec![byte])),
    }
}

/// Appends one literal byte, always as `\xHH` for anything that is not an
/// ASCII letter or digit: no metacharacter can slip through, and bytes
/// 0x80–0xFF stay single bytes because Unicode mode is off.
fn push_literal(re: &mut String, byte: u8) {
    if byte.is_ascii_alphanumeric() {
        re.push(char::from(byte));
    } else {
        // Writing to a String cannot fail.
        let _ = write!(re, "\\x{byte:02X}");
    }
}

/// The regex body of `pieces` (unanchored).
fn write_regex(pieces: &[Piece], re: &mut String) {
    for piece in pieces {
        match piece {
            Piece::Literal(bytes) => bytes.iter().for_each(|&b| push_literal(re, b)),
            Piece::Star => re.push_str(STAR),
            Piece::Qmark => re.push_str(QMARK),
            Piece::Anything => re.push_str(ANYTHING),
            Piece::AnyDirs => re.push_str(ANY_DIRS),
            // Written as ranges of its runs: a negated class is stored
            // complemented, and 255 members one by one would be 1 KB.
            Piece::Class(set) => {
                re.push('[');
                let mut b = 0usize;
                while b < 256 {
                    if !set[b] {
                        b += 1;
                        continue;
                    }
                    let lo = b;
                    while b < 256 && set[b] {
                        b += 1;
                    }
                    // `lo` and `b - 1` are byte values: below 256.
                    push_literal(re, lo as u8);
                    if b - 1 > lo {
                        re.push('-');
                        push_literal(re, (b - 1) as u8);
                    }
                }
                re.push(']');
            }
            Piece::Either(alternatives) if alternatives.is_empty() => re.push_str("[^\\x00-\\xFF]"),
            Piece::Either(alternatives) => {
                re.push_str("(?:");
                for (i, alt) in alternatives.iter().enumerate() {
                    if i > 0 {
                        re.push('|');
                    }
                    write_regex(alt, re);
                }
                re.push(')');
            }
        }
    }
}

/// The most heap one automaton of a compiled glob or ignore rule may use:
/// regex-automata's NFA size limit, 8 MiB. Past it, and for any regex body
/// longer than `MAX_REGEX_BODY` (1 MiB), the pieces are matched directly,
/// position set by position set: the limit bounds memory, never the answer.
///
/// Caller globs rarely come near it: the text brace groups share is
/// compiled once, a literal costs about 24 bytes of NFA a byte (a 100 KB
/// glob, 2.4 MiB) and 64 KiB of the costliest piece (`?`) about 3 MiB.
pub const MAX_MATCHER_BYTES: usize = 8 << 20;

/// The longest regex body handed to the regex compiler: 1 MiB. Parsing is
/// not bounded by [`MAX_MATCHER_BYTES`] (the limit is checked as states are
/// added, after the parse), so a longer body goes straight to the direct
/// matcher. Answer-preserving: both matchers give the same answer
/// (`direct_matching_agrees_with_the_regex`).
const MAX_REGEX_BODY: usize = 1 << 20;

/// A compiled glob or rule: its alternatives as one anchored full-string
/// matcher over bytes.
#[derive(Clone, Debug)]
pub(crate) enum Matcher {
    /// The fast path: a lazy-DFA regex.
    Regex(Regex),
    /// Too large for the regex: the pieces themselves, matched by a set of
    /// positions walked piece by piece (at most pieces × subject length
    /// steps, no backtracking, memory of one subject's length).
    Direct(Vec<Vec<Piece>>),
}

impl Matcher {
    /// Whether the matcher matches all of `subject`.
    #[inline]
    pub(crate) fn is_match(&self, subject: &[u8]) -> bool {
        match self {
            Matcher::Regex(re) => re.is_match(subject),
            Matcher::Direct(alternatives) => alternatives.iter().any(|alt| {
                // A subject shorter than the fewest bytes the pieces need
                // cannot match: a 1 MiB literal is refused at once.
                min_len(alt) <= subject.len()
                    && advance(alt, subject, vec![0]).last() == Some(&subject.len())
            }),
        }
    }
}

/// The fewest subject bytes `pieces` can match.
fn min_len(pieces: &[Piece]) -> usize {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Literal(bytes) => bytes.len(),
            Piece::Qmark | Piece::Class(_) => 1,
            Piece::Star | Piece::Anything | Piece::AnyDirs => 0,
            Piece::Either(alts) => alts.iter().map(|a| min_len(a)).min().unwrap_or(0),
        })
        .fold(0usize, usize::saturating_add)
}

/// The positions of `subject` reachable after `pieces`, from the positions
/// `at` (ascending, each once; `i` in `at`: the pieces before have matched
/// `subject[..i]`). Each piece costs the positions it is handed, or one
/// sweep of the subject for the pieces that match runs: a set of
/// positions, never a backtracking search.
fn advance(pieces: &[Piece], subject: &[u8], mut at: Vec<usize>) -> Vec<usize> {
    let n = subject.len();
    for piece in pieces {
        if at.is_empty() {
            break;
        }
        at = match piece {
            Piece::Literal(bytes) => at
                .into_iter()
                .filter(|&i| subject[i..].starts_with(bytes))
                .map(|i| i + bytes.len())
                .collect(),
            Piece::Qmark => at
                .into_iter()
                .filter(|&i| i < n && subject[i] != b'/')
                .map(|i| i + 1)
                .collect(),
            Piece::Class(set) => at
                .into_iter()
                .filter(|&i| i < n && set[usize::from(subject[i])])
                .map(|i| i + 1)
                .collect(),
            Piece::Star => runs(&at, subject, |b| b == b'/', |_| true),
            Piece::Anything => runs(&at, subject, |b| b == b'\n' || b == b'\r', |_| true),
            // Nothing, or "anything" ending in `/`: the positions just
            // past a `/` of an "anything" run, and the starts themselves.
            Piece::AnyDirs => {
                let mut past_slash = runs(
                    &at,
                    subject,
                    |b| b == b'\n' || b == b'\r',
                    |i| i > 0 && subject[i - 1] == b'/',
                );
                past_slash.extend_from_slice(&at);
                past_slash.sort_unstable();
                past_slash.dedup();
                past_slash
            }
            Piece::Either(alternatives) => {
                let mut reached: Vec<usize> = alternatives
                    .iter()
                    .flat_map(|alt| advance(alt, subject, at.clone()))
                    .collect();
                reached.sort_unstable();
                reached.dedup();
                reached
            }
        };
    }
    at
}

/// Every position a run of bytes other than `stop` reaches from one of the
/// ascending `starts`, that `keep` keeps: one sweep, each position once.
///
/// From `start`, the run reaches every position up to the first stop byte
/// at or after it (or the end). A later start inside a swept stretch has
/// the same first stop, so it adds nothing.
fn runs(
    starts: &[usize],
    subject: &[u8],
    stop: impl Fn(u8) -> bool,
    keep: impl Fn(usize) -> bool,
) -> Vec<usize> {
    let mut out = Vec::new();
    let mut swept = 0;
    for &start in starts {
        if start < swept {
            continue;
        }
        let mut i = start;
        loop {
            if keep(i) {
                out.push(i);
            }
            if i == subject.len() || stop(subject[i]) {
                break;
            }
            i += 1;
        }
        swept = i + 1;
    }
    out
}

/// Compiles alternatives (each a sequence of pieces) into one anchored
/// full-string matcher over bytes; `None` when there is no alternative.
/// Never fails: what the regex cannot hold is matched directly.
pub(crate) fn compile(alternatives: Vec<Vec<Piece>>) -> Option<Matcher> {
    if alternatives.is_empty() {
        return None;
    }
    let mut pattern = String::from("\\A(?:");
    for (i, alt) in alternatives.iter().enumerate() {
        if i > 0 {
            pattern.push('|');
        }
        write_regex(alt, &mut pattern);
        if pattern.len() > MAX_REGEX_BODY {
            return Some(Matcher::Direct(alternatives));
        }
    }
    pattern.push_str(")\\z");
    let built = Regex::builder()
        .syntax(syntax::Config::new().utf8(false).unicode(false))
        .configure(
            Regex::config()
                // Subjects are arbitrary bytes; empty matches may split a
                // code point without harm because we only ask "is it a match".
                .utf8_empty(false)
                // We never read groups; skipping them keeps the NFA small.
                .which_captures(WhichCaptures::None)
                // No fully compiled DFA: a glob or ignore rule is built for
                // one call and asked about a few paths, so determinising it
                // up front (regex-automata does for small NFAs) cost more
                // than every match it could speed up; it was the largest
                // single cost of a seed sweep. The lazy DFA builds only the
                // states the paths visit.
                .dfa(false)
                // Unbounded, one glob of 256 brace alternatives and a 100 KB
                // literal compiled for 137 s in 7 GB. The limit is checked
                // as NFA states are added, so it bounds the automaton;
                // `MAX_REGEX_BODY` bounds the parse before it.
                .nfa_size_limit(Some(MAX_MATCHER_BYTES)),
        )
        .build(&pattern);
    // Our bodies escape every literal, so the only error is the size
    // limit; any other is matched directly too, never a panic.
    Some(match built {
        Ok(re) => Matcher::Regex(re),
        Err(_) => Matcher::Direct(alternatives),
    })
}

/// Whether `matcher` (anchored by [`compile`]) matches all of `subject`.
#[inline]
pub(crate) fn is_full_match(matcher: Option<&Matcher>, subject: &[u8]) -> bool {
    matcher.is_some_and(|m| m.is_match(subject))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str) -> Piece {
        Piece::Literal(s.as_bytes().to_vec())
    }

    #[test]
    fn literals_are_escaped_bytes() {
        let mut re = String::new();
        write_regex(
            &[Piece::Literal(vec![b'a', b'.', b'*', 0xC3, b'/'])],
            &mut re,
        );
        assert_eq!(re, "a\\x2E\\x2A\\xC3\\x2F");
        let mut pieces = Vec::new();
        for b in *b"ab" {
            push_byte(&mut pieces, b);
        }
        assert_eq!(pieces, vec![lit("ab")]);
    }

    /// Both matchers on one set of pieces.
    fn both(alternatives: Vec<Vec<Piece>>) -> [Matcher; 2] {
        let regex = compile(alternatives.clone()).unwrap();
        assert!(matches!(regex, Matcher::Regex(_)));
        [regex, Matcher::Direct(alternatives)]
    }

    #[test]
    fn compiled_pieces_mean_what_the_spec_says() {
        for star in both(vec![vec![Piece::Star, lit("x")]]) {
            assert!(star.is_match(b"a\nb\rx"));
            assert!(!star.is_match(b"a/x"));
        }
        for q in both(vec![vec![Piece::Qmark]]) {
            assert!(q.is_match(&[0xC3]));
            assert!(!q.is_match("é".as_bytes()));
        }
        for any in both(vec![vec![Piece::Anything]]) {
            assert!(any.is_match(b"a/b/c"));
            assert!(!any.is_match(b"a\nb"));
            assert!(!any.is_match(b"a\rb"));
        }
        for dirs in both(vec![vec![Piece::AnyDirs, lit("x")]]) {
            assert!(dirs.is_match(b"x"));
            assert!(dirs.is_match(b"a/b/x"));
            assert!(!dirs.is_match(b"a\n/x"));
            assert!(!dirs.is_match(b"ax"));
        }
        assert!(compile(vec![]).is_none());
        assert!(!is_full_match(None, b""));
    }

    /// Past the size limit nothing is refused: the pieces are matched
    /// directly, with the regex's answers.
    #[test]
    fn a_matcher_past_the_size_limit_is_matched_directly() {
        // 512 Ki `?`: about 40 bytes of NFA each, well past 8 MiB.
        let qs = compile(vec![vec![Piece::Qmark; 1 << 19]]).unwrap();
        assert!(matches!(qs, Matcher::Direct(_)));
        assert!(qs.is_match(&vec![b'a'; 1 << 19]));
        assert!(!qs.is_match(&vec![b'a'; (1 << 19) - 1]));
        // A 1 MiB literal: straight to the direct matcher, no parse.
        let long = compile(vec![vec![Piece::Literal(vec![b'a'; 1 << 20])]]).unwrap();
        assert!(matches!(long, Matcher::Direct(_)));
        assert!(long.is_match(&vec![b'a'; 1 << 20]));
        assert!(!long.is_match(b"a"));
        assert!(matches!(
            compile(vec![vec![Piece::Qmark; 1 << 10]]),
            Some(Matcher::Regex(_))
        ));
    }

    /// The direct matcher answers as the regex does: every sequence of up
    /// to three pieces of a small alphabet rich in the pieces' edges, on
    /// every subject of another.
    #[test]
    fn direct_matching_agrees_with_the_regex() {
        let mut class = Box::new([false; 256]);
        class[usize::from(b'a')] = true;
        class[usize::from(b'/')] = true;
        let alphabet = vec![
            lit("a"),
            lit("/"),
            lit("ab"),
            Piece::Star,
            Piece::Qmark,
            Piece::Anything,
            Piece::AnyDirs,
            Piece::Class(class),
            Piece::Either(vec![vec![lit("a")], vec![Piece::Star, lit("/")], vec![]]),
        ];
        let subjects: [&[u8]; 12] = [
            b"", b"a", b"b", b"ab", b"a/b", b"/", b"a/", b"//a", b"a\nb", b"\r/", b"aab/ab",
            b"b/a/ab",
        ];
        let mut checked = 0;
        for i in 0..alphabet.len() {
            for j in 0..alphabet.len() {
                for k in 0..alphabet.len() {
                    let pieces = vec![
                        alphabet[i].clone(),
                        alphabet[j].clone(),
                        alphabet[k].clone(),
                    ];
                    let [regex, direct] = both(vec![pieces.clone(), vec![lit("zz")]]);
                    for subject in subjects {
                        assert_eq!(
                            direct.is_match(subject),
                            regex.is_match(subject),
                            "{pieces:?} on {:?}",
                            String::from_utf8_lossy(subject)
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 9 * 9 * 9 * 12);
    }
}
