//! Caller globs: the `globs` of `grep` and the `pattern` of `glob`
//! (search-contract §8; the brace-expansion limit is §19).
//!
//! A caller glob goes through four steps, each a function here:
//!
//! 1. [`validate_glob`] (§8.1) — done once by the flow layer; a failure is an
//!    `invalid_pattern` [`StdError`] with the spec's exact detail.
//! 2. [`canonical_glob`] (§8.2) — trailing spaces, `/./` and a leading `./`
//!    are normalised away; notices (§16) quote this form too.
//! 3. [`brace_expansions`] (§8.3 step 2) — `{a,b}` groups become separate
//!    expansions, left to right; incomplete braces stay literal.
//! 4. Matching (§8.3 steps 3–5, §8.4) — each expansion is matched against the
//!    root-relative path when it is *by path* (rooted or containing `/`) and
//!    against the basename otherwise; an ordered list of positive and `!`
//!    globs decides by its last match ([`included_by_globs`]).
//!
//! [`GlobList`] is the compiled form of step 4 for the walk's hot path:
//! every glob is compiled once into at most two anchored byte regexes (one
//! for its by-path expansions, one for its basename expansions) and a call to
//! [`GlobList::includes`] allocates nothing.
//!
//! # Why not `globset`
//!
//! `globset` (and `ignore`, built on it) is the obvious crate for this, and
//! the tests use it as a second opinion on the common ground (`*.ts`,
//! `**/*.ts`, `tests/*.py`, …). It is not used for matching because its
//! semantics differ from the contract's in ways a conformance harness must
//! not paper over: its `**` matches across `\n` and `\r` (the contract's
//! "anything" was a JavaScript `.` without the `s` flag); it rejects an
//! unclosed `{` where the contract uses the glob literally; it expands a
//! one-alternative group `{a}` where the contract keeps it literal; and it
//! discards the empty alternative of `{a,}` where the contract keeps it.
//! Each difference is pinned by a test below that runs `globset` on the case.
//! (Its `?` consumes one byte, exactly like ours, for the same reason: the
//! regex runs with Unicode off. The brief for this module expected a
//! difference there; `globset_agrees_on_the_common_ground` pins the agreement
//! instead.)
//!
//! # Example
//!
//! ```
//! use lawsuite::contract::glob::{GlobList, included_by_globs, validate_glob};
//!
//! let globs = vec!["**/*.ts".to_string(), "!**/*.d.ts".to_string()];
//! for g in &globs {
//!     validate_glob(g)?;
//! }
//! let list = GlobList::new(&globs)?;
//! assert!(list.includes("src/a.ts", "a.ts"));
//! assert!(!list.includes("src/a.d.ts", "a.d.ts"));
//! assert_eq!(
//!     list.includes("src/a.d.ts", "a.d.ts"),
//!     included_by_globs(&globs, "src/a.d.ts", "a.d.ts"),
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::StdError;
use super::globre::{self, Matcher, Piece};

/// The most brace expansions a glob may produce (§19).
///
/// [`validate_glob`] rejects a glob whose groups multiply past this;
/// [`brace_expansions`] stops after this many for an unvalidated glob, so a
/// hostile string cannot make the matcher exponential.
pub const MAX_BRACE_EXPANSIONS: usize = 256;

/// The most bytes of intermediate text brace expansion may write for one
/// glob (every string it queues, finished or not): 64 MiB, or more for a
/// long glob that [`validate_glob`] accepts.
///
/// A valid glob never reaches it: it has at most 8 groups (each of at least
/// two alternatives, 256 expansions in all), so expanding it queues at most
/// 8 × 256 copies of its length ([`work_bound`]). Only an unvalidated one
/// on the seam does: 15,000 groups `{a,b}` queued 15,000 copies of the
/// 75 KB glob before the first expansion was done.
const MAX_EXPANSION_WORK: usize = 64 << 20;

/// The expansion work a glob of `len` bytes is allowed: enough for any
/// valid glob of that length, so the contract's answer is never refused
/// for size (search-contract §8.1 lists the glob checks, and size is not
/// one of them).
fn work_bound(len: usize) -> usize {
    MAX_EXPANSION_WORK.max(len.saturating_mul(8 * MAX_BRACE_EXPANSIONS + 1))
}

/// The `{detail}` past [`MAX_BRACE_EXPANSIONS`] (the §8.1 wording).
const TOO_MANY: &str = "glob brace expansion exceeds 256 patterns";
/// The `{detail}` past [`work_bound`].
const TOO_MUCH_WORK: &str =
    "glob brace expansion needs more intermediate text than a valid glob of its length could";

/// §8.1: checks a caller glob, in the spec's order, and fails with the first
/// broken rule as an `invalid_pattern` error quoting `glob` as given.
///
/// One leading `!` (an exclusion) is allowed and not part of what is checked.
///
/// ```
/// use lawsuite::contract::glob::validate_glob;
///
/// assert!(validate_glob("!src/**/*.{ts,tsx}").is_ok());
/// let err = validate_glob("{a,b").unwrap_err();
/// assert_eq!(
///     err.message,
///     r#"Unsupported ripgrep pattern "{a,b": glob braces must be balanced"#,
/// );
/// ```
pub fn validate_glob(glob: &str) -> Result<(), StdError> {
    let fail = |detail: &str| Err(StdError::invalid_pattern(glob, detail));
    let p = glob.strip_prefix('!').unwrap_or(glob);
    if p.trim_end_matches(' ').is_empty() {
        return fail("glob patterns must not be empty");
    }
    if !p.bytes().all(|b| (0x20..=0x7E).contains(&b)) {
        return fail("globs must contain printable ASCII only");
    }
    if p.contains(['\\', '[', ']']) {
        return fail("glob escapes and character classes are not supported");
    }
    let mut in_brace = false;
    let mut alternatives = 0usize;
    let mut product = 1usize;
    for b in p.bytes() {
        match b {
            b'{' if in_brace => return fail("nested brace alternatives are not supported"),
            b'{' => {
                in_brace = true;
                alternatives = 1;
            }
            b',' if in_brace => alternatives += 1,
            b'}' => {
                if !in_brace || alternatives < 2 {
                    return fail("braces must contain alternatives");
                }
                in_brace = false;
                // Saturating: checked against 256 at every `}`, so this only
                // matters for absurd alternative counts on 32-bit targets.
                product = product.saturating_mul(alternatives);
                if product > MAX_BRACE_EXPANSIONS {
                    return fail("glob brace expansion exceeds 256 patterns");
                }
            }
            _ => {}
        }
    }
    if in_brace {
        return fail("glob braces must be balanced");
    }
    Ok(())
}

/// §8.2: the canonical form of a glob (a leading `!` is kept in front).
///
/// Trailing U+0020 spaces go, every `/.` followed by `/` goes, and a leading
/// `./` becomes `/`. A trailing `/.` or a lone `.` is left alone.
///
/// ```
/// use lawsuite::contract::glob::canonical_glob;
///
/// assert_eq!(canonical_glob("./src/**/*.ts "), "/src/**/*.ts");
/// assert_eq!(canonical_glob("!./src/./*.ts  "), "!/src/*.ts");
/// assert_eq!(canonical_glob("nested/./a.ts"), "nested/a.ts");
/// ```
pub fn canonical_glob(glob: &str) -> String {
    let (bang, p) = match glob.strip_prefix('!') {
        Some(rest) => ("!", rest),
        None => ("", glob),
    };
    let p = p.trim_end_matches(' ');
    // Step 2 is the reference's `replace(/\/\.(?=\/)/g, "")`: after a removal
    // the scan resumes at the `/` that followed, so `a/././b` → `a/b`.
    let mut dotless = String::with_capacity(p.len());
    let mut rest = p;
    while let Some(at) = rest.find("/./") {
        dotless.push_str(&rest[..at]);
        rest = &rest[at + 2..];
    }
    dotless.push_str(rest);
    let mut out = String::with_capacity(dotless.len() + 1);
    out.push_str(bang);
    match dotless.strip_prefix("./") {
        Some(tail) => {
            out.push('/');
            out.push_str(tail);
        }
        None => out.push_str(&dotless),
    }
    out
}

/// §8.3 step 2: the brace expansions of a canonical glob, left to right.
///
/// The first `{` and the first `}` after it delimit a group; if either is
/// missing, or the group holds no `,`, the text is used literally (braces
/// included). Otherwise each comma-separated part (empty parts too) replaces
/// the group and the result is expanded again. At most
/// [`MAX_BRACE_EXPANSIONS`] are returned, after a bounded amount of work;
/// only a glob that
/// [`validate_glob`] would reject reaches a bound, and then the expansions
/// found so far are returned ([`GlobMatcher::new`] refuses such a glob).
///
/// ```
/// use lawsuite::contract::glob::brace_expansions;
///
/// assert_eq!(brace_expansions("{a,b}/{c,}.ts"), ["a/c.ts", "a/.ts", "b/c.ts", "b/.ts"]);
/// assert_eq!(brace_expansions("{unfinished"), ["{unfinished"]);
/// assert_eq!(brace_expansions("{a}.ts"), ["{a}.ts"]);
/// ```
pub fn brace_expansions(canonical: &str) -> Vec<String> {
    expand(canonical).0
}

/// [`brace_expansions`], and the `{detail}` of the bound that stopped it
/// early, if one did.
fn expand(canonical: &str) -> (Vec<String>, Option<&'static str>) {
    let mut out = Vec::new();
    let bound = work_bound(canonical.len());
    let mut work = canonical.len();
    // An explicit stack instead of recursion: an unvalidated glob may nest
    // thousands of groups deep, which must not overflow the call stack.
    let mut pending = vec![canonical.to_string()];
    while let Some(text) = pending.pop() {
        match first_group(&text) {
            None => {
                if out.len() == MAX_BRACE_EXPANSIONS {
                    return (out, Some(TOO_MANY));
                }
                out.push(text);
            }
            Some((open, close)) => {
                let (prefix, inner, suffix) =
                    (&text[..open], &text[open + 1..close], &text[close + 1..]);
                // Reversed so the leftmost part is popped (expanded) first.
                for part in inner.rsplit(',') {
                    work += prefix.len() + part.len() + suffix.len();
                    if work > bound {
                        return (out, Some(TOO_MUCH_WORK));
                    }
                    pending.push(format!("{prefix}{part}{suffix}"));
                }
            }
        }
    }
    (out, None)
}

/// Byte offsets of the first `{` and the first `}` after it, when the text
/// between holds at least two comma-separated parts.
fn first_group(text: &str) -> Option<(usize, usize)> {
    let open = text.find('{')?;
    let close = open + text[open..].find('}')?;
    text[open + 1..close].contains(',').then_some((open, close))
}

/// §16 step 2: the literal directory segments of one brace expansion — the
/// directories a match would have to live under, as far as they are spelled
/// without wildcards.
///
/// No `/` → none. Otherwise one leading `/` is removed, the rest split on `/`
/// with empty segments dropped, and the segments before the first one holding
/// `*`, `?`, `{` or `}` are returned — or, when none does, all but the last
/// (which names the file).
///
/// ```
/// use lawsuite::contract::glob::literal_dir_segments;
///
/// assert_eq!(literal_dir_segments("/missing/**/*.ts"), ["missing"]);
/// assert_eq!(literal_dir_segments("a/b/file.txt"), ["a", "b"]);
/// assert!(literal_dir_segments("*.ts").is_empty());
/// assert!(literal_dir_segments("**/x/*.ts").is_empty());
/// ```
pub fn literal_dir_segments(expansion: &str) -> Vec<String> {
    if !expansion.contains('/') {
        return Vec::new();
    }
    let rest = expansion.strip_prefix('/').unwrap_or(expansion);
    let segments: Vec<&str> = rest.split('/').filter(|s| !s.is_empty()).collect();
    let literal = match segments
        .iter()
        .position(|s| s.contains(['*', '?', '{', '}']))
    {
        Some(first_wild) => &segments[..first_wild],
        None => &segments[..segments.len().saturating_sub(1)],
    };
    literal.iter().map(|s| s.to_string()).collect()
}

/// The piece sequences that match exactly the expansion remainders `rests`
/// (each as [`translate`] reads it): the text they all begin and end with
/// is written once, around one group of what lies between.
///
/// Expanding a brace group repeats the text around it in every expansion:
/// 256 alternatives before a 100 KB literal are 25.6 MB of regex written
/// one by one, which took 4.7 s and 4.6 GB to compile; factored, it is the
/// literal once. The answer is the same: [`translate`] reads each byte on
/// its own except `**`, whose meaning depends on its neighbours, so the
/// shared text is only cut where no `*` touches the cut.
fn alternation(rests: &[&str]) -> Vec<Vec<Piece>> {
    let shortest = rests.iter().map(|r| r.len()).min().unwrap_or(0);
    let Some((first, others)) = rests.split_first() else {
        return Vec::new();
    };
    let first = first.as_bytes();
    let at = |r: &&str, i: usize| r.as_bytes().get(i).copied();
    let mut head = (0..shortest)
        .take_while(|&i| others.iter().all(|r| at(r, i) == Some(first[i])))
        .count();
    let mut tail = (0..shortest - head)
        .take_while(|&k| {
            let byte = first[first.len() - 1 - k];
            others.iter().all(|r| at(r, r.len() - 1 - k) == Some(byte))
        })
        .count();
    // A cut with a `*` on either side could split or re-read a `**`.
    let star = |r: &&str, i: Option<usize>| i.and_then(|i| at(r, i)) == Some(b'*');
    while head > 0
        && rests
            .iter()
            .any(|r| star(r, Some(head - 1)) || star(r, Some(head)))
    {
        head -= 1;
    }
    while tail > 0
        && rests.iter().any(|r| {
            let cut = r.len() - tail;
            star(r, Some(cut)) || star(r, cut.checked_sub(1))
        })
    {
        tail -= 1;
    }
    // Worth it only when the shared text is long; a single expansion (or
    // no shared text) is written as it is.
    if rests.len() == 1 || head + tail < 64 {
        return rests.iter().map(|r| translate(r.as_bytes())).collect();
    }
    let mut pieces = translate(&first[..head]);
    pieces.push(Piece::Either(
        rests
            .iter()
            .map(|r| translate(&r.as_bytes()[head..r.len() - tail]))
            .collect(),
    ));
    pieces.extend(translate(&first[first.len() - tail..]));
    vec![pieces]
}

/// §8.3 step 3: translates one expansion remainder (leading `/` already
/// stripped) into the pieces of an unanchored matcher over bytes.
fn translate(b: &[u8]) -> Vec<Piece> {
    let mut re = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            // `**` is special only as a whole segment: at the start or after
            // `/`, and followed by the end or `/`. Anywhere else (`a**b`) the
            // two stars are ordinary.
            b'*' if b.get(i + 1) == Some(&b'*')
                && (i == 0 || b[i - 1] == b'/')
                && matches!(b.get(i + 2), None | Some(b'/')) =>
            {
                if i + 2 < b.len() {
                    re.push(Piece::AnyDirs);
                    i += 3;
                } else {
                    re.push(Piece::Anything);
                    i += 2;
                }
                continue;
            }
            b'*' => re.push(Piece::Star),
            b'?' => re.push(Piece::Qmark),
            byte => globre::push_byte(&mut re, byte),
        }
        i += 1;
    }
    re
}

/// One compiled positive glob (§8.3): its by-path expansions and its
/// basename expansions, each set an anchored alternation over bytes.
///
/// ```
/// use lawsuite::contract::glob::GlobMatcher;
///
/// let m = GlobMatcher::new("{globs,src}/nested/*.ts")?;
/// assert!(m.is_match("src/nested/b.ts", "b.ts"));
/// assert!(!m.is_match("lib/nested/b.ts", "b.ts"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct GlobMatcher {
    /// Expansions matched against the root-relative path.
    by_path: Option<Matcher>,
    /// Expansions matched against the basename.
    by_name: Option<Matcher>,
}

impl GlobMatcher {
    /// Compiles one positive glob (its `!`, if any, already stripped by the
    /// caller). Any string is accepted; unvalidated input never panics.
    ///
    /// # Errors
    ///
    /// `invalid_pattern`, quoting `glob`, when the glob has more than
    /// [`MAX_BRACE_EXPANSIONS`] expansions (or needs more expansion text
    /// than a valid glob of its length could). A glob that
    /// [`validate_glob`] accepts is never refused here: one too large for
    /// a regex of [`MAX_MATCHER_BYTES`](crate::contract::MAX_MATCHER_BYTES)
    /// is matched piece by piece, with the same answers.
    ///
    /// ```
    /// use lawsuite::contract::glob::GlobMatcher;
    ///
    /// // 257 expansions: refused on the seam as §8.1 refuses them.
    /// let err = GlobMatcher::new(&"{a,b}".repeat(9)).unwrap_err();
    /// assert!(err.message.ends_with("glob brace expansion exceeds 256 patterns"));
    /// // A long glob is no reason to refuse: matched as §8.3 says.
    /// let long = format!("{{x,y}}{}", "a".repeat(100_000));
    /// let path = format!("y{}", "a".repeat(100_000));
    /// assert!(GlobMatcher::new(&long)?.is_match(&path, &path));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(glob: &str) -> Result<GlobMatcher, StdError> {
        GlobMatcher::build(glob).map_err(|detail| StdError::invalid_pattern(glob, detail))
    }

    /// [`GlobMatcher::new`] with the bare `{detail}` (one of the
    /// expansion bounds' fixed sentences) as the error.
    fn build(glob: &str) -> Result<GlobMatcher, &'static str> {
        let (expansions, stopped) = expand(&canonical_glob(glob));
        if let Some(detail) = stopped {
            return Err(detail);
        }
        let mut path_alts: Vec<&str> = Vec::new();
        let mut name_alts: Vec<&str> = Vec::new();
        for expansion in &expansions {
            let (rooted, rest) = match expansion.strip_prefix('/') {
                Some(rest) => (true, rest),
                None => (false, expansion.as_str()),
            };
            if rooted || rest.contains('/') {
                path_alts.push(rest);
            } else {
                name_alts.push(rest);
            }
        }
        Ok(GlobMatcher {
            by_path: globre::compile(alternation(&path_alts)),
            by_name: globre::compile(alternation(&name_alts)),
        })
    }

    /// Does any expansion match its subject? `relative` is the root-relative
    /// `/`-separated path, `basename` its last segment. Allocation-free.
    #[inline]
    pub fn is_match(&self, relative: &str, basename: &str) -> bool {
        globre::is_full_match(self.by_path.as_ref(), relative.as_bytes())
            || globre::is_full_match(self.by_name.as_ref(), basename.as_bytes())
    }
}

/// §8.3: does one positive glob (its `!` already stripped) match the entry?
///
/// Compiles the glob on every call; use [`GlobMatcher`] or [`GlobList`] in a
/// loop.
///
/// ```
/// use lawsuite::contract::glob::matches_glob;
///
/// assert!(matches_glob("*.ts", "src/widen.ts", "widen.ts"));
/// assert!(matches_glob("tests/*.py", "tests/a.py", "a.py"));
/// assert!(!matches_glob("tests/*.py", "src/tests/a.py", "a.py"));
/// assert!(!matches_glob("?.ts", "é.ts", "é.ts")); // `?` is one byte
/// ```
pub fn matches_glob(glob: &str, relative: &str, basename: &str) -> bool {
    // A glob past a size bound matches nothing here; [`GlobList::new`]
    // refuses it instead.
    GlobMatcher::build(glob).is_ok_and(|m| m.is_match(relative, basename))
}

/// §8.4 `includedByGlobs`: the last matching glob wins; with no positive
/// glob, everything starts included.
///
/// This is the spec's pseudo-code, transcribed; [`GlobList`] is the compiled
/// form and must agree with it on every input.
///
/// ```
/// use lawsuite::contract::glob::included_by_globs;
///
/// let globs = ["!nested".to_string()];
/// // Globs apply to files only: `!nested` does not reach into `nested/`.
/// assert!(included_by_globs(&globs, "nested/a.ts", "a.ts"));
/// ```
pub fn included_by_globs(globs: &[String], relative: &str, basename: &str) -> bool {
    let mut included = !globs.iter().any(|g| !g.starts_with('!'));
    for glob in globs {
        match glob.strip_prefix('!') {
            Some(negative) => {
                if matches_glob(negative, relative, basename) {
                    included = false;
                }
            }
            None => {
                if matches_glob(glob, relative, basename) {
                    included = true;
                }
            }
        }
    }
    included
}

/// A compiled ordered include/exclude list (§8.4), built once per call and
/// consulted for every file of the walk.
///
/// ```
/// use lawsuite::contract::glob::GlobList;
///
/// let list = GlobList::new(&["*.txt".to_string(), "!other.txt".to_string()])?;
/// assert!(list.includes("a/b.txt", "b.txt"));
/// assert!(!list.includes("other.txt", "other.txt"));
/// assert!(!list.includes("a.rs", "a.rs"));
/// assert!(GlobList::new(&[])?.includes("anything", "anything"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct GlobList {
    /// `(negated, matcher)` in the caller's order.
    globs: Vec<(bool, GlobMatcher)>,
    /// The answer when no glob matches: true iff there is no positive glob.
    default: bool,
}

impl GlobList {
    /// Compiles every glob once. A leading `!` marks an exclusion.
    ///
    /// # Errors
    ///
    /// The first glob that [`GlobMatcher::new`] refuses, as an
    /// `invalid_pattern` error quoting it as given (`!` included).
    pub fn new(globs: &[String]) -> Result<GlobList, StdError> {
        let globs = globs
            .iter()
            .map(|g| {
                let (negated, positive) = match g.strip_prefix('!') {
                    Some(negative) => (true, negative),
                    None => (false, g.as_str()),
                };
                GlobMatcher::build(positive)
                    .map(|m| (negated, m))
                    .map_err(|detail| StdError::invalid_pattern(g, detail))
            })
            .collect::<Result<Vec<(bool, GlobMatcher)>, StdError>>()?;
        let default = globs.iter().all(|(negated, _)| *negated);
        Ok(GlobList { globs, default })
    }

    /// §8.4 for one file: `relative` is its root-relative `/`-path, `basename`
    /// its name. Allocation-free.
    pub fn includes(&self, relative: &str, basename: &str) -> bool {
        // The last matching glob decides, so scanning backwards can stop at
        // the first match instead of testing every glob.
        for (negated, matcher) in self.globs.iter().rev() {
            if matcher.is_match(relative, basename) {
                return !negated;
            }
        }
        self.default
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn globs(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn detail(glob: &str) -> Option<String> {
        validate_glob(glob).err().map(|e| {
            let prefix = format!("Unsupported ripgrep pattern \"{glob}\": ");
            assert!(e.message.starts_with(&prefix), "{}", e.message);
            assert!(e.is_contract_rejection());
            e.message[prefix.len()..].to_string()
        })
    }

    const EMPTY: &str = "glob patterns must not be empty";
    const ASCII: &str = "globs must contain printable ASCII only";
    const ESCAPES: &str = "glob escapes and character classes are not supported";
    const NESTED: &str = "nested brace alternatives are not supported";
    const ALTS: &str = "braces must contain alternatives";
    const EXCEEDS: &str = "glob brace expansion exceeds 256 patterns";
    const BALANCED: &str = "glob braces must be balanced";

    // ---- §8.1 ----

    #[test]
    fn validation_rule_1_empty() {
        for g in ["", "   ", "!", "!  "] {
            assert_eq!(detail(g).as_deref(), Some(EMPTY), "{g:?}");
        }
        // Only U+0020 counts as trailing space; a tab is then rule 2.
        assert_eq!(detail("\t").as_deref(), Some(ASCII));
        // Only one `!` is stripped.
        assert_eq!(detail("!!"), None);
        assert_eq!(detail("  a"), None);
    }

    #[test]
    fn validation_rule_2_printable_ascii() {
        for g in ["a\tb", "a\nb", "é.ts", "!é", "a\u{7f}", "😀"] {
            assert_eq!(detail(g).as_deref(), Some(ASCII), "{g:?}");
        }
        assert_eq!(detail(" ~*?.ts"), None);
    }

    #[test]
    fn validation_rule_3_escapes_and_classes() {
        for g in ["a\\b", "[ab].ts", "a]", "!x[", "{a,[}"] {
            assert_eq!(detail(g).as_deref(), Some(ESCAPES), "{g:?}");
        }
    }

    #[test]
    fn validation_rule_4_braces() {
        assert_eq!(detail("{a}").as_deref(), Some(ALTS));
        assert_eq!(detail("a}").as_deref(), Some(ALTS));
        assert_eq!(detail("{}").as_deref(), Some(ALTS));
        assert_eq!(detail("{a,b").as_deref(), Some(BALANCED));
        assert_eq!(detail("{a,{b,c}}").as_deref(), Some(NESTED));
        assert_eq!(detail("{a,}"), None);
        assert_eq!(detail("{,}"), None);
        assert_eq!(detail("a,b"), None, "a comma outside braces is literal");
        // Order: the first broken rule wins, left to right.
        assert_eq!(detail("{a}{b,{").as_deref(), Some(ALTS));
        assert_eq!(detail("{a,{b}").as_deref(), Some(NESTED));
        assert_eq!(detail("é{a").as_deref(), Some(ASCII));
        assert_eq!(detail("[{a").as_deref(), Some(ESCAPES));
    }

    fn alternatives(prefix: &str, n: usize) -> String {
        let parts: Vec<String> = (0..n).map(|i| format!("{prefix}{i}")).collect();
        format!("{{{}}}", parts.join(","))
    }

    #[test]
    fn brace_limit_is_256_expansions() {
        assert_eq!(detail(&alternatives("x", 256)), None);
        assert_eq!(detail(&alternatives("x", 257)).as_deref(), Some(EXCEEDS));
        let ok = format!("{{a,b}}{}", alternatives("x", 128));
        assert_eq!(detail(&ok), None);
        assert_eq!(brace_expansions(&ok).len(), 256);
        let too_many = format!("{{a,b}}{}", alternatives("x", 129));
        assert_eq!(detail(&too_many).as_deref(), Some(EXCEEDS));
        let product = "{a,b,c,d,e,f,g,h}{0,1,2,3}{w,x,y,z}{m,n}.ts";
        assert_eq!(detail(product), None);
        assert_eq!(brace_expansions(product).len(), 256);
        // The limit is checked when the group closes, before balance.
        let unbalanced = format!("{}{{", alternatives("x", 257));
        assert_eq!(detail(&unbalanced).as_deref(), Some(EXCEEDS));
        // The message quotes the glob as given, `!` included.
        let err = validate_glob("!{a}").unwrap_err();
        assert_eq!(
            err.message,
            r#"Unsupported ripgrep pattern "!{a}": braces must contain alternatives"#
        );
    }

    // ---- size: not a check of §8.1, so never a refusal ----

    /// The matcher as it was before brace groups shared their text: one
    /// regex body per expansion.
    fn unfactored(glob: &str) -> (Option<Matcher>, Option<Matcher>) {
        let (expansions, _) = expand(&canonical_glob(glob));
        let (mut path, mut name) = (Vec::new(), Vec::new());
        for e in &expansions {
            match e.strip_prefix('/') {
                Some(rest) => path.push(translate(rest.as_bytes())),
                None if e.contains('/') => path.push(translate(e.as_bytes())),
                None => name.push(translate(e.as_bytes())),
            }
        }
        (globre::compile(path), globre::compile(name))
    }

    #[test]
    fn long_globs_are_valid_and_matched_by_the_same_rules() {
        let alts = alternatives("x", 256);
        for suffix in [252, 254, 32 * 1024, 100_000] {
            let glob = format!("{alts}{}", "a".repeat(suffix));
            assert_eq!(detail(&glob), None, "{suffix}");
            let m = GlobMatcher::new(&glob).unwrap();
            let hit = format!("x255{}", "a".repeat(suffix));
            assert!(m.is_match(&hit, &hit), "{suffix}");
            let miss = format!("x256{}", "a".repeat(suffix));
            assert!(!m.is_match(&miss, &miss), "{suffix}");
            assert!(!m.is_match(&hit[..hit.len() - 1], "x"), "{suffix}");
        }
    }

    /// Sharing text never changes a match: every glob of a small alphabet
    /// rich in `*`, `/` and braces, on every path of another, answers as
    /// the one-body-per-expansion matcher does.
    #[test]
    fn shared_text_matches_as_expansions_do() {
        let long = "ab".repeat(40);
        let pieces = [
            "*", "**", "/", "a", "?", "{x,y/}", "{*,**/}", "{,b}", &long, "{a*,/b}",
        ];
        let subjects = [
            "a", "x", "ab", "y/ab", "x/y/ab", "b", "aab", "a/b", "xa", "q/r/s",
        ];
        let mut checked = 0;
        for i in 0..pieces.len() {
            for j in 0..pieces.len() {
                for k in 0..pieces.len() {
                    let glob = format!("{}{}{}", pieces[i], pieces[j], pieces[k]);
                    if validate_glob(&glob).is_err() {
                        continue;
                    }
                    let m = GlobMatcher::new(&glob).unwrap();
                    let (path, name) = unfactored(&glob);
                    for subject in subjects {
                        for subject in [
                            subject.to_string(),
                            format!("{subject}{long}"),
                            format!("{long}/{subject}"),
                        ] {
                            let base = subject.rsplit('/').next().unwrap_or(&subject);
                            let want = globre::is_full_match(path.as_ref(), subject.as_bytes())
                                || globre::is_full_match(name.as_ref(), base.as_bytes());
                            assert_eq!(m.is_match(&subject, base), want, "{glob:?} on {subject:?}");
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn the_matcher_refuses_what_validation_refuses() {
        // Too many expansions on the seam, where nothing was validated.
        let many = "{a,b}".repeat(9);
        assert!(
            GlobMatcher::new(&many)
                .unwrap_err()
                .message
                .ends_with(TOO_MANY)
        );
        assert!(!matches_glob(&many, "a", "a"), "refused: matches nothing");
    }

    /// 15,000 groups `{a,b}` (30,000 alternatives) on the seam: the
    /// expansion stops at its work bound long before its first expansion
    /// (which needs 15,000 levels of 75 KB strings), and the matcher is
    /// refused. Unbounded, this glob queued 1 GB of copies.
    #[test]
    fn brace_expansion_work_is_bounded() {
        let glob = "{a,b}".repeat(15_000);
        let (found, stopped) = expand(&glob);
        assert!(found.is_empty());
        assert_eq!(stopped, Some(TOO_MUCH_WORK));
        assert!(GlobMatcher::new(&glob).is_err());
        // One group of 30,000 alternatives stops at the 257th.
        let wide = format!("{{{}}}", vec!["a"; 30_000].join(","));
        let (found, stopped) = expand(&wide);
        assert_eq!(
            (found.len(), stopped),
            (MAX_BRACE_EXPANSIONS, Some(TOO_MANY))
        );
    }

    // ---- §8.2 ----

    #[test]
    fn canonical_form_examples() {
        for (glob, canonical) in [
            ("./src/**/*.ts ", "/src/**/*.ts"),
            ("!./src/./*.ts  ", "!/src/*.ts"),
            ("nested/./a.ts", "nested/a.ts"),
            ("a.ts ", "a.ts"),
            ("a/././b", "a/b"),
            ("././a", "/a"),
            ("a/.", "a/."),
            (".", "."),
            ("./", "/"),
            ("a/../b", "a/../b"),
            ("a/.hidden/b", "a/.hidden/b"),
            ("!", "!"),
            ("! ", "!"),
            ("a\t ", "a\t"),
        ] {
            assert_eq!(canonical_glob(glob), canonical, "{glob:?}");
        }
    }

    // ---- §8.3 ----

    #[test]
    fn brace_expansion_rules() {
        assert_eq!(brace_expansions("a.ts"), ["a.ts"]);
        assert_eq!(
            brace_expansions("{a,b}.{x,y}"),
            ["a.x", "a.y", "b.x", "b.y"]
        );
        assert_eq!(brace_expansions("{a,}b"), ["ab", "b"]);
        assert_eq!(brace_expansions("{,}"), ["", ""]);
        // Literal fallbacks: no `}`, no `{`, or a first group without `,`.
        assert_eq!(brace_expansions("{a,b"), ["{a,b"]);
        assert_eq!(brace_expansions("a}b{"), ["a}b{"]);
        assert_eq!(brace_expansions("{a}{b,c}"), ["{a}{b,c}"]);
        // Nested text is split at the first `}` and re-expanded.
        assert_eq!(brace_expansions("{a,{b,c}}"), ["a}", "{b}", "c}"]);
        // Capped for unvalidated globs.
        let huge = "{a,b}".repeat(20);
        assert_eq!(brace_expansions(&huge).len(), MAX_BRACE_EXPANSIONS);
        assert_eq!(brace_expansions(&huge)[0], "a".repeat(20));
    }

    /// The §8.5 table, plus the edge cases around it.
    #[test]
    fn examples_table() {
        let cases: &[(&str, &str, bool)] = &[
            ("*.ts", "src/widen.ts", true),
            ("*.py", "a/b/c.py", true),
            ("tests/*.py", "tests/a.py", true),
            ("tests/*.py", "src/tests/a.py", false),
            ("/a.py", "a.py", true),
            ("/a.py", "sub/a.py", false),
            ("./nested/a.ts", "nested/a.ts", true),
            ("/nested/a.ts", "nested/a.ts", true),
            ("nested/./a.ts", "nested/a.ts", true),
            ("nested/a.ts", "nested/a.ts", true),
            ("**/*.ts", "a.ts", true),
            ("**/*.ts", "x/y/a.ts", true),
            ("one/**/*.ts", "one/a.ts", true),
            ("one/**/*.ts", "one/x/a.ts", true),
            ("globs/**/dd.ts", "globs/nested/deeper/dd.ts", true),
            ("{globs,src}/nested/*.ts", "src/nested/b.ts", true),
            ("**", "x/y/z", true),
            ("**", "a", true),
            ("dir/**", "dir/x", true),
            ("dir/**", "dir/x/y", true),
            ("dir/**", "dir", false),
            ("a**b", "axxb", true),
            ("a**b", "ax/xb", false),
            ("?.ts", "a.ts", true),
            ("?.ts", "é.ts", false),
            ("?.ts", "😀.ts", false),
            ("??.ts", "é.ts", true),
            ("????.ts", "😀.ts", true),
            ("a.ts ", "a.ts", true),
            ("{unfinished", "{unfinished", true),
            ("/home/repo/tests/**", "tests/a.py", false),
            ("/home/repo/tests/**", "home/repo/tests/a.py", true),
            // Case-sensitive.
            ("*.TS", "a.ts", false),
            // `*` and `?` match `\n`/`\r`; `**` does not.
            ("*.ts", "a\nb.ts", true),
            ("?.ts", "\r.ts", true),
            ("dir/**", "dir/a\nb", false),
            ("**/x.ts", "a\r/x.ts", false),
            ("**/x.ts", "a/b/x.ts", true),
            // `**` only as a whole segment.
            ("x**/a.ts", "xy/a.ts", true),
            ("x**/a.ts", "x/y/a.ts", false),
            ("**x/a.ts", "y/z/x/a.ts", false),
            // Literal fallback keeps braces.
            ("{a}.ts", "{a}.ts", true),
            ("{a}.ts", "a.ts", false),
            // Empty alternatives are kept.
            ("{a,}.ts", ".ts", true),
            ("{a,}.ts", "a.ts", true),
        ];
        for &(glob, path, expected) in cases {
            let base = path.rsplit('/').next().unwrap_or(path);
            assert_eq!(
                matches_glob(glob, path, base),
                expected,
                "{glob:?} vs {path:?}"
            );
        }
    }

    #[test]
    fn by_path_is_decided_per_expansion() {
        // `a/b.ts` is by path, `c.ts` by basename, within one glob.
        assert!(matches_glob("{a/b,c}.ts", "x/c.ts", "c.ts"));
        assert!(matches_glob("{a/b,c}.ts", "a/b.ts", "b.ts"));
        assert!(!matches_glob("{a/b,c}.ts", "x/a/b.ts", "b.ts"));
    }

    // ---- §8.4 ----

    #[test]
    fn ordered_include_exclude() {
        let cases: &[(&[&str], &str, bool)] = &[
            (&[], "a.rs", true),
            (&["**/*.ts", "!**/*.d.ts"], "src/a.d.ts", false),
            (&["**/*.ts", "!**/*.d.ts"], "src/a.ts", true),
            (&["!**/*.d.ts", "**/*.ts"], "src/a.d.ts", true),
            (&["!nested"], "nested/a.ts", true),
            (&["!nested/**"], "nested/a.ts", false),
            (&["!**/nested/**"], "x/nested/a.ts", false),
            (&["!*.rs"], "a.ts", true),
            (&["!*.rs"], "a.rs", false),
            (&["*.rs"], "a.ts", false),
            (&["*.txt", "!other.txt"], "other.txt", false),
            (&["*.txt", "!other.txt", "other.*"], "other.txt", true),
            (&["!!a"], "!a", false),
            (&["!!a"], "a", true),
        ];
        for &(list, path, expected) in cases {
            let list = globs(list);
            let base = path.rsplit('/').next().unwrap_or(path);
            assert_eq!(
                included_by_globs(&list, path, base),
                expected,
                "{list:?} {path:?}"
            );
            assert_eq!(
                GlobList::new(&list).unwrap().includes(path, base),
                expected,
                "{list:?} {path:?}"
            );
        }
    }

    // ---- §16 step 2 ----

    #[test]
    fn literal_directory_segments() {
        assert!(literal_dir_segments("a.ts").is_empty());
        assert!(literal_dir_segments("/a.ts").is_empty());
        assert_eq!(literal_dir_segments("missing/file.txt"), ["missing"]);
        assert_eq!(
            literal_dir_segments("/home/repo/tests/**"),
            ["home", "repo", "tests"]
        );
        assert_eq!(literal_dir_segments("a//b/*.ts"), ["a", "b"]);
        assert_eq!(literal_dir_segments("a/b{/c"), ["a"]);
        assert_eq!(literal_dir_segments(".hidden/*.ts"), [".hidden"]);
        assert!(literal_dir_segments("/").is_empty());
        assert!(literal_dir_segments("//").is_empty());
        assert!(literal_dir_segments("?/x").is_empty());
    }

    // ---- globset: the second opinion ----

    fn globset_matches(glob: &str, subject: &str) -> Result<bool, globset::Error> {
        Ok(globset::GlobBuilder::new(glob)
            .literal_separator(true)
            .build()?
            .compile_matcher()
            .is_match(subject))
    }

    /// Same subject (the one our by-path rule picks), same answer: the
    /// translation agrees with `globset` wherever the contract is ordinary.
    #[test]
    fn globset_agrees_on_the_common_ground() {
        let cases: &[(&str, &str, bool)] = &[
            ("*.ts", "widen.ts", true),
            ("*.ts", "widen.rs", false),
            ("**/*.ts", "a.ts", true),
            ("**/*.ts", "x/y/a.ts", true),
            ("tests/*.py", "tests/a.py", true),
            ("tests/*.py", "src/tests/a.py", false),
            ("tests/*.py", "tests/x/a.py", false),
            ("/a.py", "a.py", true),
            ("one/**/*.ts", "one/a.ts", true),
            ("dir/**", "dir/x/y", true),
            ("{globs,src}/nested/*.ts", "src/nested/b.ts", true),
            ("*.tmp", "a.tmp", true),
            // One byte per `?` in both: globset's regex also runs with
            // Unicode off.
            ("?.ts", "é.ts", false),
            ("??.ts", "é.ts", true),
            ("*.ts", "a\nb.ts", true),
        ];
        for &(glob, subject, expected) in cases {
            let base = subject.rsplit('/').next().unwrap_or(subject);
            assert_eq!(
                matches_glob(glob, subject, base),
                expected,
                "ours {glob:?} {subject:?}"
            );
            // globset has no notion of "rooted"; give it the remainder.
            let remainder = glob.strip_prefix('/').unwrap_or(glob);
            let by_path = glob.starts_with('/') || glob.contains('/');
            let their_subject = if by_path { subject } else { base };
            assert_eq!(
                globset_matches(remainder, their_subject).ok(),
                Some(expected),
                "globset {glob:?} {subject:?}"
            );
        }
    }

    #[test]
    fn globset_differs_recursive_star_crosses_newlines() {
        assert!(!matches_glob("dir/**", "dir/a\nb", "a\nb"));
        assert_eq!(globset_matches("dir/**", "dir/a\nb").ok(), Some(true));
        assert!(!matches_glob("**/x.ts", "a\r/x.ts", "x.ts"));
        assert_eq!(globset_matches("**/x.ts", "a\r/x.ts").ok(), Some(true));
    }

    #[test]
    fn globset_differs_unclosed_brace_is_literal() {
        assert!(matches_glob("{unfinished", "{unfinished", "{unfinished"));
        assert!(globset_matches("{unfinished", "{unfinished").is_err());
    }

    #[test]
    fn globset_differs_single_alternative_is_literal() {
        assert!(matches_glob("{a}.ts", "{a}.ts", "{a}.ts"));
        assert!(!matches_glob("{a}.ts", "a.ts", "a.ts"));
        assert_eq!(globset_matches("{a}.ts", "a.ts").ok(), Some(true));
        assert_eq!(globset_matches("{a}.ts", "{a}.ts").ok(), Some(false));
    }

    #[test]
    fn globset_differs_empty_alternative_is_kept() {
        assert!(matches_glob("{a,}.ts", ".ts", ".ts"));
        assert_eq!(globset_matches("{a,}.ts", ".ts").ok(), Some(false));
    }

    // ---- properties ----

    /// A backtracking matcher written straight from the §8.3 prose, for the
    /// differential property below. Exponential, so only for short strings.
    mod oracle {
        #[derive(Clone, Copy)]
        enum Tok {
            Lit(u8),
            Star,
            Q,
            Anything,
            AnyDirs,
        }

        fn tokens(rem: &[u8]) -> Vec<Tok> {
            let mut out = Vec::new();
            let mut i = 0;
            while i < rem.len() {
                let seg_start = i == 0 || rem[i - 1] == b'/';
                if rem[i..].starts_with(b"**") && seg_start && rem.get(i + 2).is_none() {
                    out.push(Tok::Anything);
                    i += 2;
                } else if rem[i..].starts_with(b"**/") && seg_start {
                    out.push(Tok::AnyDirs);
                    i += 3;
                } else {
                    out.push(match rem[i] {
                        b'*' => Tok::Star,
                        b'?' => Tok::Q,
                        b => Tok::Lit(b),
                    });
                    i += 1;
                }
            }
            out
        }

        fn run(toks: &[Tok], s: &[u8]) -> bool {
            let Some((first, rest)) = toks.split_first() else {
                return s.is_empty();
            };
            match *first {
                Tok::Lit(b) => s.first() == Some(&b) && run(rest, &s[1..]),
                Tok::Q => s.first().is_some_and(|&c| c != b'/') && run(rest, &s[1..]),
                Tok::Star => (0..=s.len())
                    .take_while(|&k| k == 0 || s[k - 1] != b'/')
                    .any(|k| run(rest, &s[k..])),
                Tok::Anything => (0..=s.len())
                    .take_while(|&k| k == 0 || !matches!(s[k - 1], b'\n' | b'\r'))
                    .any(|k| run(rest, &s[k..])),
                Tok::AnyDirs => {
                    run(rest, s)
                        || (0..s.len())
                            .take_while(|&k| k == 0 || !matches!(s[k - 1], b'\n' | b'\r'))
                            .any(|k| s[k] == b'/' && run(rest, &s[k + 1..]))
                }
            }
        }

        pub fn matches(glob: &str, relative: &str, basename: &str) -> bool {
            super::brace_expansions(&super::canonical_glob(glob))
                .iter()
                .any(|e| {
                    let (rooted, rem) = match e.strip_prefix('/') {
                        Some(r) => (true, r),
                        None => (false, e.as_str()),
                    };
                    let subject = if rooted || rem.contains('/') {
                        relative
                    } else {
                        basename
                    };
                    run(&tokens(rem.as_bytes()), subject.as_bytes())
                })
        }
    }

    fn piece_string(pieces: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(pieces), 0..max).prop_map(|v| v.concat())
    }

    fn glob_text() -> impl Strategy<Value = String> {
        const PIECES: &[&str] = &[
            "a", "b", "/", "*", "**", "?", "{", "}", ",", ".", "./", "!", " ", "é", "\n",
        ];
        piece_string(PIECES, 10)
    }

    fn path_text() -> impl Strategy<Value = String> {
        const PIECES: &[&str] = &["a", "b", "/", ".", "é", "\n", "\r", "{", "!", " "];
        piece_string(PIECES, 10).prop_map(|p| p.trim_matches('/').to_string())
    }

    fn big_text() -> impl Strategy<Value = String> {
        proptest::collection::vec(any::<char>(), 0..10_000).prop_map(String::from_iter)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        #[test]
        fn validate_never_panics_on_big_input(g in big_text()) {
            let _ = validate_glob(&g);
        }

        #[test]
        fn matching_never_panics_on_big_input(g in big_text(), p in big_text()) {
            let base = p.rsplit('/').next().unwrap_or(&p).to_string();
            let _ = matches_glob(&g, &p, &base);
        }
    }

    proptest! {
        #[test]
        fn validate_never_panics(g in "\\PC{0,64}|[{},!a ]{0,64}") {
            let _ = validate_glob(&g);
        }

        #[test]
        fn canonical_is_idempotent(g in glob_text()) {
            let once = canonical_glob(&g);
            prop_assert_eq!(canonical_glob(&once), once);
        }

        #[test]
        fn valid_globs_expand_to_the_validated_product(g in glob_text()) {
            if validate_glob(&g).is_ok() {
                let n = brace_expansions(&canonical_glob(g.strip_prefix('!').unwrap_or(&g))).len();
                prop_assert!((1..=MAX_BRACE_EXPANSIONS).contains(&n));
            }
        }

        #[test]
        fn valid_globs_never_reach_a_bound(g in glob_text()) {
            let p = g.strip_prefix('!').unwrap_or(&g);
            if validate_glob(&g).is_ok() {
                prop_assert_eq!(expand(&canonical_glob(p)).1, None);
                prop_assert!(GlobMatcher::new(p).is_ok());
            }
        }

        #[test]
        fn regex_translation_equals_the_spec_oracle(g in glob_text(), p in path_text()) {
            let base = p.rsplit('/').next().unwrap_or(&p).to_string();
            prop_assert_eq!(matches_glob(&g, &p, &base), oracle::matches(&g, &p, &base));
        }

        #[test]
        fn glob_list_equals_included_by_globs(
            list in proptest::collection::vec(glob_text(), 0..4),
            p in path_text(),
        ) {
            let base = p.rsplit('/').next().unwrap_or(&p).to_string();
            prop_assert_eq!(
                GlobList::new(&list).unwrap().includes(&p, &base),
                included_by_globs(&list, &p, &base)
            );
        }
    }
}
