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

/// Appends one literal byte, always as `\xHH` for anything that is not an
/// ASCII letter or digit: no metacharacter can slip through, and bytes
/// 0x80–0xFF stay single bytes because Unicode mode is off.
pub(crate) fn push_literal(re: &mut String, byte: u8) {
    if byte.is_ascii_alphanumeric() {
        re.push(char::from(byte));
    } else {
        // Writing to a String cannot fail.
        let _ = write!(re, "\\x{byte:02X}");
    }
}

/// The most heap one automaton of a compiled glob or ignore rule may use:
/// regex-automata's NFA size limit, 8 MiB.
///
/// Caller globs rarely come near it: the text brace groups share is
/// compiled once, a literal costs about 24 bytes of NFA a byte (a 100 KB
/// glob, 2.4 MiB) and 64 KiB of the costliest piece (`?`) about 3 MiB. It
/// is the backstop for the unvalidated seam and for `.gitignore` rules,
/// whose matchers would otherwise grow without bound.
pub const MAX_MATCHER_BYTES: usize = 8 << 20;

/// Why [`compile`] built no matcher, as the `{detail}` of an
/// `invalid_pattern` message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TooLarge(pub(crate) String);

/// Compiles alternatives (each an unanchored regex body) into one anchored
/// full-string matcher over bytes. `Ok(None)` when there is no alternative.
///
/// The bodies come from our translators, which escape every literal, so the
/// only expected error is the size limit ([`MAX_MATCHER_BYTES`]); any other
/// is reported the same way rather than panicking.
pub(crate) fn compile<S: AsRef<str>>(alternatives: &[S]) -> Result<Option<Regex>, TooLarge> {
    if alternatives.is_empty() {
        return Ok(None);
    }
    let mut pattern = String::from("\\A(?:");
    for (i, alt) in alternatives.iter().enumerate() {
        if i > 0 {
            pattern.push('|');
        }
        pattern.push_str(alt.as_ref());
    }
    pattern.push_str(")\\z");
    Regex::builder()
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
                // as NFA states are added, so it bounds the automaton, not
                // the parse before it: callers bound the text too.
                .nfa_size_limit(Some(MAX_MATCHER_BYTES)),
        )
        .build(&pattern)
        .map(Some)
        .map_err(|e| {
            TooLarge(match e.size_limit() {
                Some(limit) => {
                    format!("the compiled glob matcher exceeds the {limit}-byte size limit")
                }
                None => format!("the glob could not be compiled ({e})"),
            })
        })
}

/// Whether `re` (anchored by [`compile`]) matches all of `subject`.
#[inline]
pub(crate) fn is_full_match(re: Option<&Regex>, subject: &[u8]) -> bool {
    re.is_some_and(|re| re.is_match(subject))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_escaped_bytes() {
        let mut re = String::new();
        for b in [b'a', b'.', b'*', 0xC3, b'/'] {
            push_literal(&mut re, b);
        }
        assert_eq!(re, "a\\x2E\\x2A\\xC3\\x2F");
    }

    #[test]
    fn compiled_pieces_mean_what_the_spec_says() {
        let compile = |alts: &[String]| compile(alts).unwrap();
        let star = compile(&[format!("{STAR}x")]);
        assert!(is_full_match(star.as_ref(), b"a\nb\rx"));
        assert!(!is_full_match(star.as_ref(), b"a/x"));
        let q = compile(&[QMARK.to_string()]);
        assert!(is_full_match(q.as_ref(), &[0xC3]));
        assert!(!is_full_match(q.as_ref(), "é".as_bytes()));
        let any = compile(&[ANYTHING.to_string()]);
        assert!(is_full_match(any.as_ref(), b"a/b/c"));
        assert!(!is_full_match(any.as_ref(), b"a\nb"));
        assert!(!is_full_match(any.as_ref(), b"a\rb"));
        let dirs = compile(&[format!("{ANY_DIRS}x")]);
        assert!(is_full_match(dirs.as_ref(), b"x"));
        assert!(is_full_match(dirs.as_ref(), b"a/b/x"));
        assert!(!is_full_match(dirs.as_ref(), b"a\n/x"));
        assert!(compile(&[]).is_none());
        assert!(!is_full_match(None, b""));
    }

    #[test]
    fn a_matcher_past_the_size_limit_is_refused() {
        // 512 Ki `?`: about 40 bytes of NFA each, well past 8 MiB.
        let err = compile(&[QMARK.repeat(1 << 19)]).unwrap_err();
        assert_eq!(
            err.0,
            "the compiled glob matcher exceeds the 8388608-byte size limit"
        );
        assert!(compile(&[QMARK.repeat(1 << 10)]).unwrap().is_some());
    }
}
