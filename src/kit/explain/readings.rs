//! How `rg` and git read one `.gitignore` line, spelled in the contract's
//! dialect (search-contract §9.2, §9.3): the reference, asked on a tree
//! whose lines are so rewritten, predicts what `ripgrep-walk` and `git`
//! answer ([`super::explain`]).
//!
//! Each reading is written from the tool's own rules (rg 15.2's `ignore`
//! crate, git 2.47's `dir.c` and `wildmatch.c`) and checked against the
//! tool on every rule of the `gitignore` family at size 4
//! (`kit::exhaustive`, `cargo bench --bench exhaustive`): a line is
//! rewritten only where the tool's reading is known to differ, and a
//! shape the reading does not know is left alone, so the divergence it
//! makes still counts.

/// How `rg` reads `line` when it matches every path and the contract's
/// reading matches none: the contract's spelling of that reading (`!**`,
/// `**/`, `!**/`), or `None`.
///
/// rg's `ignore` strips a `!`, a leading `/`, a trailing `/` and a `\`
/// before it, as §9.2 does, then gives an unanchored pattern with no `/`
/// the prefix `**/`. A pattern left empty (`!`, `! `, `\/`, `!\/`) is then
/// `**/`, and so is a pattern that is one or more `**/` (`**//`, `/**//`,
/// `**/\/`, `!**//`): globset matches `**/` against every path. §9.2
/// compiles the empty pattern, which matches no name, and §9.3 reads `**/`
/// as an optional run ending in `/`, which no path is.
pub(super) fn rg_everything(line: &str) -> Option<String> {
    if line.starts_with('#') || line.starts_with("\\!") || line.starts_with("\\#") {
        return None;
    }
    // rg trims as Rust's `trim_end` does, unless the line ends in `\ `;
    // the lines read here end in none of the characters where that and
    // §9.2's trim differ (U+FEFF, U+0085: other listed differences).
    let text = if line.ends_with("\\ ") {
        line
    } else {
        line.trim_end()
    };
    if text.is_empty() {
        return None;
    }
    let (negated, text) = match text.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (anchored, text) = match text.strip_prefix('/') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (dir_only, text) = match text.strip_suffix('/') {
        Some(rest) => (true, rest.strip_suffix('\\').unwrap_or(rest)),
        None => (false, text),
    };
    let every = (text.is_empty() && !anchored)
        || (!text.is_empty()
            && text.len() % 3 == 0
            && text.as_bytes().chunks(3).all(|c| c == b"**/"));
    // An empty line after the strips is no rule in either reading.
    if !every || (!negated && !dir_only && text.is_empty()) {
        return None;
    }
    Some(format!(
        "{}**{}",
        if negated { "!" } else { "" },
        if dir_only { "/" } else { "" }
    ))
}

/// The listed differences of `git` a rewritten line shows (their ids in
/// `peers/expected/differences.toml`).
pub(super) mod git_ids {
    /// A class as wildmatch reads it: `\` escapes a member, a class never
    /// matches `/`, an unclosed `[` matches nothing.
    pub const CLASS: &str = "gitignore-class-dialect";
    /// A `\` left before the trailing `/`: the rule matches nothing.
    pub const TRAILING_ESCAPE: &str = "gitignore-trailing-whitespace-and-escapes";
    /// `**` special after a literal name (`foo**/bar`).
    pub const AFTER_A_NAME: &str = "gitignore-double-star-after-a-name";
    /// `***` read as `**`.
    pub const TRIPLE: &str = "gitignore-triple-star";
    /// `**` special before an escaped `/` (`**\/a`).
    pub const BEFORE_AN_ESCAPED_SLASH: &str = "gitignore-double-star-before-an-escaped-slash";
}

/// git's reading of one line, where it differs from the contract's.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct GitLine {
    /// The line in the contract's spelling (empty: a rule git never
    /// matches, dropped).
    pub text: String,
    /// The listed differences it shows ([`git_ids`]).
    pub shows: Vec<&'static str>,
}

/// git's reading of `line` (its `\r` and `\n` removed) in the contract's
/// spelling, when it differs from the contract's in a way the table lists;
/// `None` when git reads it as the contract does, or in a way this reading
/// does not know (a POSIX class, a range, a trailing tab: such a divergence
/// counts).
///
/// git (`dir.c`) trims trailing spaces not escaped by `\`, takes a leading
/// `!`, then one trailing `/` (directory only; a `\` before it stays, and a
/// pattern ending in `\` matches nothing); a pattern with no `/` matches
/// the basename, any other the path, the literal text before its first
/// `*`, `?`, `[` or `\` compared first and the rest matched by wildmatch
/// with `WM_PATHNAME` (`wildmatch.c`): so a `**` after that literal text
/// starts the pattern wildmatch sees, and is special.
pub(super) fn git_reading(line: &str) -> Option<GitLine> {
    if line.starts_with('#') {
        return None;
    }
    let (bom, line) = match line.strip_prefix('\u{FEFF}') {
        Some(rest) => ("\u{FEFF}", rest),
        None => ("", line),
    };
    let text = trim_trailing_spaces(line);
    if text.is_empty() {
        return None;
    }
    // §9.2 trims every trailing white space; git only spaces. A line
    // that still ends in white space is read apart (a listed difference
    // this reading does not spell).
    if text.ends_with(char::is_whitespace) && !text.ends_with("\\ ") {
        return None;
    }
    let (negated, pattern) = match text.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (dir_only, pattern) = match pattern.strip_suffix('/') {
        Some(rest) => (true, rest),
        None => (false, pattern),
    };
    let mut shows = Vec::new();
    let by_path = pattern.contains('/');
    let (anchored, pattern) = match pattern.strip_prefix('/') {
        Some(rest) if by_path => (true, rest),
        _ => (false, pattern),
    };
    let translated = match translate(pattern, by_path, &mut shows) {
        Ok(t) => t,
        Err(Unknown) => return None,
    };
    let text = match translated {
        None => {
            // A rule git never matches: as if it were not there. §9.2
            // takes a `\` before the trailing `/` away with it, so the
            // rule then names what is left, unless nothing is.
            if dir_only && ends_in_an_escape(pattern) && pattern != "\\" {
                shows.push(git_ids::TRAILING_ESCAPE);
            }
            String::new()
        }
        Some(body) => {
            // §9.2 takes a `\` left before the trailing `/` with it.
            if body.ends_with('\\') {
                return None;
            }
            // The contract matches by path when anchored or when a `/`
            // is left; git when the pattern held one.
            let anchor = if by_path && (anchored || !body.contains('/')) {
                "/"
            } else {
                ""
            };
            format!(
                "{bom}{}{anchor}{body}{}",
                if negated { "!" } else { "" },
                if dir_only { "/" } else { "" }
            )
        }
    };
    if shows.is_empty() {
        return None;
    }
    shows.sort_unstable();
    shows.dedup();
    Some(GitLine { text, shows })
}

/// A shape this reading does not know.
struct Unknown;

/// git's `trim_trailing_spaces`: trailing spaces go, unless escaped by a
/// `\` (itself not escaped).
fn trim_trailing_spaces(line: &str) -> &str {
    let bytes = line.as_bytes();
    let mut last_space: Option<usize> = None;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b' ' => {
                if last_space.is_none() {
                    last_space = Some(i);
                }
            }
            b'\\' => {
                i += 1;
                if i >= bytes.len() {
                    return line;
                }
                last_space = None;
            }
            _ => last_space = None,
        }
        i += 1;
    }
    match last_space {
        Some(at) => &line[..at],
        None => line,
    }
}

/// Whether `pattern` ends in a `\` that escapes nothing.
fn ends_in_an_escape(pattern: &str) -> bool {
    let run = pattern.bytes().rev().take_while(|b| *b == b'\\').count();
    run % 2 == 1
}

/// git's matcher of `pattern` spelled for §9.3: `Ok(None)` when it
/// matches nothing (an unclosed class, a trailing `\`, a class left with
/// no member), `Err` for a shape this reading does not know. Pushes onto
/// `shows` each listed difference the reading meets.
fn translate(
    pattern: &str,
    by_path: bool,
    shows: &mut Vec<&'static str>,
) -> Result<Option<String>, Unknown> {
    let b = pattern.as_bytes();
    if !pattern.is_ascii() {
        return Err(Unknown);
    }
    let mut out = String::new();
    // The literal text git compares before wildmatch sees the rest (only
    // for a path rule: a basename is matched whole).
    let prefix = if by_path {
        b.iter()
            .position(|c| matches!(c, b'*' | b'?' | b'[' | b'\\'))
            .unwrap_or(b.len())
    } else {
        0
    };
    for &c in &b[..prefix] {
        push_literal(&mut out, c);
    }
    // wildmatch's `pattern` starts here.
    let start = prefix;
    let mut i = start;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                let Some(&c) = b.get(i + 1) else {
                    return Ok(None);
                };
                push_literal(&mut out, c);
                i += 2;
            }
            b'?' => {
                out.push('?');
                i += 1;
            }
            b'*' => {
                let run = b[i..].iter().take_while(|c| **c == b'*').count();
                let after = i + run;
                let before_ok = i == start || b[i - 1] == b'/';
                let slash_next = b.get(after) == Some(&b'/');
                let escaped_slash_next =
                    b.get(after) == Some(&b'\\') && b.get(after + 1) == Some(&b'/');
                let end_next = after == b.len();
                let special = by_path
                    && run >= 2
                    && before_ok
                    && (end_next || slash_next || escaped_slash_next);
                if !special {
                    out.push('*');
                    i = after;
                    continue;
                }
                // After literal text the contract reads `**` as two
                // stars: a group makes it special there too.
                let open = !(out.is_empty() || out.ends_with('/'));
                if open {
                    shows.push(git_ids::AFTER_A_NAME);
                }
                if run >= 3 {
                    shows.push(git_ids::TRIPLE);
                }
                if escaped_slash_next {
                    shows.push(git_ids::BEFORE_AN_ESCAPED_SLASH);
                }
                let star = if end_next { "**" } else { "**/" };
                if open {
                    out.push('{');
                    out.push_str(star);
                    out.push('}');
                } else {
                    out.push_str(star);
                }
                i = after
                    + if slash_next {
                        1
                    } else if escaped_slash_next {
                        2
                    } else {
                        0
                    };
            }
            b'[' => {
                let original_end;
                let mut members: Vec<u8> = Vec::new();
                let mut j = i + 1;
                let negated = matches!(b.get(j), Some(b'!' | b'^'));
                if negated {
                    j += 1;
                }
                // wildmatch's do-while: the first member is taken before
                // a `]` can close the class.
                let mut first = true;
                loop {
                    let Some(&c) = b.get(j) else {
                        // Unclosed: wildmatch gives up on the whole rule.
                        shows.push(git_ids::CLASS);
                        return Ok(None);
                    };
                    if c == b']' && !first {
                        original_end = j + 1;
                        break;
                    }
                    first = false;
                    match c {
                        b'\\' => {
                            let Some(&m) = b.get(j + 1) else {
                                shows.push(git_ids::CLASS);
                                return Ok(None);
                            };
                            members.push(m);
                            j += 2;
                        }
                        b'-' | b':' => return Err(Unknown),
                        _ => {
                            members.push(c);
                            j += 1;
                        }
                    }
                }
                let class = contract_class(negated, members, by_path);
                let Some(class) = class else {
                    shows.push(git_ids::CLASS);
                    return Ok(None);
                };
                if class.as_bytes() != &b[i..original_end] {
                    shows.push(git_ids::CLASS);
                }
                out.push_str(&class);
                i = original_end;
            }
            c => {
                push_literal(&mut out, c);
                i += 1;
            }
        }
    }
    Ok(Some(out))
}

/// A character literally, escaped where §9.3 would read it otherwise.
fn push_literal(out: &mut String, c: u8) {
    if matches!(c, b'\\' | b'*' | b'?' | b'[' | b'{' | b'}' | b',') {
        out.push('\\');
    }
    out.push(char::from(c));
}

/// git's class of `members` spelled for §9.3: a class never matches `/`
/// in a path rule; `None` when it can match nothing.
fn contract_class(negated: bool, mut members: Vec<u8>, by_path: bool) -> Option<String> {
    if by_path {
        if negated {
            members.push(b'/');
        } else {
            members.retain(|c| *c != b'/');
        }
    }
    members.sort_unstable();
    members.dedup();
    if members.is_empty() {
        return None;
    }
    if !negated && members.len() == 1 {
        let mut out = String::new();
        push_literal(&mut out, members[0]);
        return Some(out);
    }
    // §9.3: a `]` is a member only right after `[` (or the negation
    // mark); a `!` or `^` there would negate.
    let close = members.contains(&b']');
    members.retain(|c| *c != b']');
    if !negated && !close {
        members.sort_by_key(|c| matches!(c, b'!' | b'^'));
        if matches!(members.first(), Some(b'!' | b'^')) {
            // Only `!` and `^`: no order keeps them members; a group of
            // the two literals says the same.
            let parts: Vec<String> = members
                .iter()
                .map(|c| {
                    let mut part = String::new();
                    push_literal(&mut part, *c);
                    part
                })
                .collect();
            return Some(format!("{{{}}}", parts.join(",")));
        }
    }
    let mut out = String::from(if negated { "[!" } else { "[" });
    if close {
        out.push(']');
    }
    out.extend(members.into_iter().map(char::from));
    out.push(']');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rg_reads_an_empty_pattern_or_double_star_slash_as_every_path() {
        let read = |line: &str| rg_everything(line);
        assert_eq!(read("!").as_deref(), Some("!**"));
        assert_eq!(read("! ").as_deref(), Some("!**"));
        for line in ["**//", "**// ", "/**//", "\\/", "\\/ ", "**/\\/", "**/**//"] {
            assert_eq!(read(line).as_deref(), Some("**/"), "{line:?}");
        }
        for line in ["!**//", "!\\/", "!\\/ ", "!/**//"] {
            assert_eq!(read(line).as_deref(), Some("!**/"), "{line:?}");
        }
        // Anchored and empty, or anything else: rg reads them as §9.2 does.
        for line in [
            "/", "!/", "//", "/\\/", "**/", "**", "a", "", "#!", "\\!", "**/a/",
        ] {
            assert_eq!(read(line), None, "{line:?}");
        }
    }

    fn git(line: &str) -> Option<(String, Vec<&'static str>)> {
        git_reading(line).map(|g| (g.text, g.shows))
    }

    #[test]
    fn git_drops_a_rule_with_an_unclosed_class() {
        use git_ids::CLASS;
        for line in ["[", "[ ", "![", "*[", "a[*", "[a\\]", "[!\\]", "**/["] {
            assert_eq!(git(line), Some((String::new(), vec![CLASS])), "{line:?}");
        }
    }

    #[test]
    fn git_classes_never_match_a_slash_in_a_path_rule() {
        use git_ids::CLASS;
        assert_eq!(git("/x[!a]y"), Some(("/x[!/a]y".into(), vec![CLASS])));
        assert_eq!(git("a/[/]"), Some((String::new(), vec![CLASS])));
        assert_eq!(git("a/[\\]]b"), Some(("a/]b".into(), vec![CLASS])));
        // A basename rule, or a class read alike: nothing to rewrite.
        assert_eq!(git("[!a]y"), None);
        assert_eq!(git("a/[ab]"), None);
        assert_eq!(git("[]a]"), None);
        // Ranges and POSIX classes are not read here.
        assert_eq!(git("/[a-z]x"), None);
        assert_eq!(git("f[[:digit:]].txt"), None);
    }

    #[test]
    fn git_reads_a_trailing_escape_before_the_slash_as_no_rule() {
        use git_ids::TRAILING_ESCAPE;
        for line in ["a\\/", "*\\/ ", "!?\\/", "/a\\/"] {
            assert_eq!(
                git(line),
                Some((String::new(), vec![TRAILING_ESCAPE])),
                "{line:?}"
            );
        }
        assert_eq!(git("\\/"), None, "no rule in either reading");
        assert_eq!(git("a\\\\/"), None, "an escaped backslash");
    }

    #[test]
    fn git_reads_a_double_star_after_a_name_or_before_an_escaped_slash() {
        use git_ids::{AFTER_A_NAME, BEFORE_AN_ESCAPED_SLASH, TRIPLE};
        assert_eq!(
            git("foo**/bar"),
            Some(("foo{**/}bar".into(), vec![AFTER_A_NAME]))
        );
        assert_eq!(git("a**//"), Some(("a{**/}/".into(), vec![AFTER_A_NAME])));
        assert_eq!(git("a/b**"), Some(("a/b{**}".into(), vec![AFTER_A_NAME])));
        assert_eq!(git("***/a"), Some(("**/a".into(), vec![TRIPLE])));
        assert_eq!(
            git("**\\/a"),
            Some(("**/a".into(), vec![BEFORE_AN_ESCAPED_SLASH]))
        );
        // Special in both, or in neither.
        for line in ["**/a", "a/**", "a/**/b", "?**/a", "a**", "**a", "/**"] {
            assert_eq!(git(line), None, "{line:?}");
        }
    }

    #[test]
    fn git_keeps_negation_anchoring_and_directory_only() {
        use git_ids::AFTER_A_NAME;
        assert_eq!(
            git("!/a**/b/"),
            Some(("!/a{**/}b/".into(), vec![AFTER_A_NAME]))
        );
        // The only `/` was the one git read for the directory: a basename.
        assert_eq!(git("[/"), Some((String::new(), vec![git_ids::CLASS])));
        // A trailing tab is trimmed by §9.2 only: not read here.
        assert_eq!(git("a**/b\t"), None);
    }
}
