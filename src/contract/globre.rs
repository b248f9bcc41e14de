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

/// Compiles alternatives (each an unanchored regex body) into one anchored
/// full-string matcher over bytes. `None` when there is no alternative.
///
/// The bodies come from our translators, which escape every literal, so a
/// build error is not expected; should one happen anyway (e.g. a resource
/// limit), `None` makes the matcher match nothing instead of panicking.
pub(crate) fn compile<S: AsRef<str>>(alternatives: &[S]) -> Option<Regex> {
    if alternatives.is_empty() {
        return None;
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
                // A validated glob has at most 256 expansions of a few
                // hundred bytes each; the default 10 MiB limit could reject
                // long but legal globs, and a rejected glob would silently
                // match nothing.
                .nfa_size_limit(None),
        )
        .build(&pattern)
        .ok()
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
        let star = compile(&[format!("{STAR}x")]);
        assert!(is_full_match(star.as_ref(), b"a\nb\rx"));
        assert!(!is_full_match(star.as_ref(), b"a/x"));
        let q = compile(&[QMARK]);
        assert!(is_full_match(q.as_ref(), &[0xC3]));
        assert!(!is_full_match(q.as_ref(), "é".as_bytes()));
        let any = compile(&[ANYTHING]);
        assert!(is_full_match(any.as_ref(), b"a/b/c"));
        assert!(!is_full_match(any.as_ref(), b"a\nb"));
        assert!(!is_full_match(any.as_ref(), b"a\rb"));
        let dirs = compile(&[format!("{ANY_DIRS}x")]);
        assert!(is_full_match(dirs.as_ref(), b"x"));
        assert!(is_full_match(dirs.as_ref(), b"a/b/x"));
        assert!(!is_full_match(dirs.as_ref(), b"a\n/x"));
        assert!(compile::<&str>(&[]).is_none());
        assert!(!is_full_match(None, b""));
    }
}
