//! The caller's globs, search-contract §8.1–§8.4: the flow layer's
//! validation, canonical form, brace expansion, one glob matched against a
//! root-relative path or a basename, and the ordered include/exclude list.
//!
//! Matching is a memoised recursive walk over the glob's pieces and the
//! subject's units: no translation to a regular expression, so nothing is
//! shared with an engine and no size limit can refuse a long literal glob.

/// One piece of a translated glob (§8.3 step 3).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    /// A character that must equal one unit of the subject.
    Literal(u32),
    /// `*`: any run of units other than `/`.
    Star,
    /// `?`: one unit other than `/`.
    One,
    /// `**` at the end: any run of units but CR and LF.
    Anything,
    /// `**/`: nothing, or any run of units but CR and LF that ends in `/`.
    Directories,
}

/// §8.1: why the flow layer refuses a caller's glob (the `{detail}` of
/// «`Unsupported ripgrep pattern "{g}": {detail}`»), or `None` when it
/// passes. The checks run in the spec's order; the first failing one wins.
pub(crate) fn refusal(glob: &str) -> Option<&'static str> {
    let p = glob.strip_prefix('!').unwrap_or(glob);
    // 1: only U+0020 is trimmed, so a tab is no space here (check 2 has it).
    if p.trim_end_matches(' ').is_empty() {
        return Some("glob patterns must not be empty");
    }
    // 2.
    if !p.chars().all(|c| (' '..='~').contains(&c)) {
        return Some("globs must contain printable ASCII only");
    }
    // 3.
    if p.contains(['\\', '[', ']']) {
        return Some("glob escapes and character classes are not supported");
    }
    // 4: the brace scan. Counts are u64 and saturate: a glob of a billion
    // commas has one brace of a billion alternatives, refused at its `}`.
    let mut in_brace = false;
    let mut alternatives: u64 = 0;
    let mut product: u64 = 1;
    for c in p.chars() {
        match c {
            '{' if in_brace => return Some("nested brace alternatives are not supported"),
            '{' => {
                in_brace = true;
                alternatives = 1;
            }
            ',' if in_brace => alternatives = alternatives.saturating_add(1),
            '}' => {
                if !in_brace || alternatives < 2 {
                    return Some("braces must contain alternatives");
                }
                in_brace = false;
                product = product.saturating_mul(alternatives);
                if product > 256 {
                    return Some("glob brace expansion exceeds 256 patterns");
                }
            }
            _ => {}
        }
    }
    if in_brace {
        return Some("glob braces must be balanced");
    }
    None
}

/// §8.2: the canonical form of a glob (`!` kept).
pub(crate) fn canonical(glob: &str) -> String {
    let (bang, body) = match glob.strip_prefix('!') {
        Some(rest) => ("!", rest),
        None => ("", glob),
    };
    let trimmed = body.trim_end_matches(' ');
    // Step 2: every `/.` directly followed by `/` goes, in one left-to-right
    // pass (the following `/` stays and may start the next removal).
    let chars: Vec<char> = trimmed.chars().collect();
    let mut removed = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '/' && chars.get(i + 1) == Some(&'.') && chars.get(i + 2) == Some(&'/') {
            i += 2;
            continue;
        }
        removed.push(chars[i]);
        i += 1;
    }
    let rooted = match removed.strip_prefix("./") {
        Some(rest) => format!("/{rest}"),
        None => removed,
    };
    format!("{bang}{rooted}")
}

/// §8.3 step 2: the brace expansions of a (canonical) glob, left to right.
pub(crate) fn expansions(glob: &str) -> Vec<String> {
    let Some(open) = glob.find('{') else {
        return vec![glob.to_string()];
    };
    let Some(close) = glob[open..].find('}').map(|at| at + open) else {
        return vec![glob.to_string()];
    };
    let inner = &glob[open + 1..close];
    let parts: Vec<&str> = inner.split(',').collect();
    if parts.len() < 2 {
        return vec![glob.to_string()];
    }
    let mut out = Vec::new();
    for part in parts {
        let replaced = format!("{}{}{}", &glob[..open], part, &glob[close + 1..]);
        out.extend(expansions(&replaced));
    }
    out
}

/// The subject as the matcher sees it (§8.4 step 4): its characters when
/// they are all printable ASCII, else its UTF-8 bytes, one unit each.
fn units(subject: &str) -> Vec<u32> {
    if subject.chars().all(|c| (' '..='~').contains(&c)) {
        subject.chars().map(u32::from).collect()
    } else {
        subject.bytes().map(u32::from).collect()
    }
}

/// §8.3 step 3: the pieces of one expansion without its leading `/`.
fn pieces(text: &str) -> Vec<Piece> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let at_segment_start = i == 0 || chars[i - 1] == '/';
        if c == '*' && chars.get(i + 1) == Some(&'*') && at_segment_start {
            match chars.get(i + 2) {
                None => {
                    out.push(Piece::Anything);
                    i += 2;
                    continue;
                }
                Some('/') => {
                    out.push(Piece::Directories);
                    i += 3;
                    continue;
                }
                Some(_) => {}
            }
        }
        out.push(match c {
            '*' => Piece::Star,
            '?' => Piece::One,
            other => Piece::Literal(u32::from(other)),
        });
        i += 1;
    }
    out
}

const SLASH: u32 = '/' as u32;

fn line_break(unit: u32) -> bool {
    unit == '\n' as u32 || unit == '\r' as u32
}

/// Does the whole of `pieces` match the whole of `subject`?
///
/// Bottom-up over the pieces, last first: `next[s]` says whether the pieces
/// after the current one match `subject[s..]`. Iterative, so a glob of a
/// million pieces needs no deep stack; time and memory are pieces times
/// subject units, which no cap limits and which the spec's answer needs.
fn full_match(pieces: &[Piece], subject: &[u32]) -> bool {
    let n = subject.len();
    let mut next: Vec<bool> = (0..=n).map(|s| s == n).collect();
    for piece in pieces.iter().rev() {
        let mut here = vec![false; n + 1];
        match piece {
            Piece::Literal(c) => {
                for s in 0..n {
                    here[s] = subject[s] == *c && next[s + 1];
                }
            }
            Piece::One => {
                for s in 0..n {
                    here[s] = subject[s] != SLASH && next[s + 1];
                }
            }
            Piece::Star | Piece::Anything => {
                let allowed = |u: u32| match piece {
                    Piece::Star => u != SLASH,
                    _ => !line_break(u),
                };
                here[n] = next[n];
                for s in (0..n).rev() {
                    here[s] = next[s] || (allowed(subject[s]) && here[s + 1]);
                }
            }
            Piece::Directories => {
                // `ends[s]`: some run `subject[s..j]` without CR/LF ends in
                // `/` and the rest matches from `j`.
                let mut ends = vec![false; n + 1];
                for s in (0..n).rev() {
                    let u = subject[s];
                    ends[s] = !line_break(u) && ((u == SLASH && next[s + 1]) || ends[s + 1]);
                }
                for s in 0..=n {
                    here[s] = next[s] || ends[s];
                }
            }
        }
        next = here;
    }
    next[0]
}

/// §8.3: does one positive (`!`-stripped) glob match the file at the
/// root-relative `path` (`/`-separated) with basename `name`?
pub(crate) fn glob_matches(glob: &str, path: &str, name: &str) -> bool {
    let canonical = canonical(glob);
    expansions(&canonical).iter().any(|expansion| {
        let rooted = expansion.starts_with('/');
        let rest = expansion.strip_prefix('/').unwrap_or(expansion);
        let by_path = rooted || rest.contains('/');
        let subject = units(if by_path { path } else { name });
        full_match(&pieces(rest), &subject)
    })
}

/// §8.4: the ordered include/exclude list; the last matching glob wins,
/// and with no positive glob everything starts included.
pub(crate) fn included(globs: &[String], path: &str, name: &str) -> bool {
    let mut included = !globs.iter().any(|g| !g.starts_with('!'));
    for glob in globs {
        match glob.strip_prefix('!') {
            Some(negated) => {
                if glob_matches(negated, path, name) {
                    included = false;
                }
            }
            None => {
                if glob_matches(glob, path, name) {
                    included = true;
                }
            }
        }
    }
    included
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(glob: &str, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        glob_matches(glob, path, name)
    }

    #[test]
    fn the_refusals_of_8_1_in_order() {
        for empty in ["", "   ", "!", "!  "] {
            assert_eq!(refusal(empty), Some("glob patterns must not be empty"));
        }
        assert_eq!(
            refusal("\t"),
            Some("globs must contain printable ASCII only")
        );
        assert_eq!(
            refusal("é.ts"),
            Some("globs must contain printable ASCII only")
        );
        assert_eq!(
            refusal("[ab].ts"),
            Some("glob escapes and character classes are not supported")
        );
        assert_eq!(refusal("{a}"), Some("braces must contain alternatives"));
        assert_eq!(refusal("a}"), Some("braces must contain alternatives"));
        assert_eq!(refusal("{a,b"), Some("glob braces must be balanced"));
        assert_eq!(
            refusal("{a,{b,c}}"),
            Some("nested brace alternatives are not supported")
        );
        assert_eq!(refusal("{a,}"), None);
        assert_eq!(refusal("a,b"), None);
        let alternatives = |n: usize| {
            let parts: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
            format!("{{{}}}", parts.join(","))
        };
        assert_eq!(refusal(&alternatives(256)), None);
        assert_eq!(
            refusal(&alternatives(257)),
            Some("glob brace expansion exceeds 256 patterns")
        );
        assert_eq!(refusal(&format!("{{a,b}}{}", alternatives(128))), None);
        assert_eq!(
            refusal(&format!("{{a,b}}{}", alternatives(129))),
            Some("glob brace expansion exceeds 256 patterns")
        );
        assert_eq!(refusal("{a,b,c,d,e,f,g,h}{0,1,2,3}{w,x,y,z}{m,n}.ts"), None);
        // The `!` is stripped once: `!!a` checks `!a`, which passes.
        assert_eq!(refusal("!!a"), None);
    }

    #[test]
    fn canonical_forms_of_the_spec() {
        assert_eq!(canonical("./src/**/*.ts "), "/src/**/*.ts");
        assert_eq!(canonical("!./src/./*.ts  "), "!/src/*.ts");
        assert_eq!(canonical("nested/./a.ts"), "nested/a.ts");
        assert_eq!(canonical("a/././b"), "a/b");
        assert_eq!(canonical("a/."), "a/.");
        assert_eq!(canonical("."), ".");
    }

    #[test]
    fn expansions_are_left_to_right() {
        assert_eq!(expansions("{a,b}{x,}"), vec!["ax", "a", "bx", "b"]);
        assert_eq!(expansions("{a}{b,c}"), vec!["{a}{b,c}"]);
        assert_eq!(expansions("{unfinished"), vec!["{unfinished"]);
    }

    #[test]
    fn the_examples_of_8_5() {
        assert!(m("*.ts", "src/widen.ts"));
        assert!(m("*.py", "a/b/c.py"));
        assert!(m("tests/*.py", "tests/a.py"));
        assert!(!m("tests/*.py", "src/tests/a.py"));
        assert!(m("/a.py", "a.py") && !m("/a.py", "sub/a.py"));
        for g in ["./nested/a.ts", "/nested/a.ts", "nested/./a.ts"] {
            assert!(m(g, "nested/a.ts"), "{g}");
        }
        assert!(m("**/*.ts", "a.ts") && m("**/*.ts", "x/y/a.ts"));
        assert!(m("one/**/*.ts", "one/a.ts") && m("one/**/*.ts", "one/x/a.ts"));
        assert!(m("globs/**/dd.ts", "globs/nested/deeper/dd.ts"));
        assert!(m("{globs,src}/nested/*.ts", "src/nested/b.ts"));
        assert!(m("**", "x/y"));
        assert!(m("dir/**", "dir/x") && !m("dir/**", "dir"));
        assert!(m("a**b", "axxb"));
        assert!(m("?.ts", "a.ts") && !m("?.ts", "é.ts") && !m("?.ts", "😀.ts"));
        assert!(m("??.ts", "é.ts"));
        assert!(m("a.ts ", "a.ts"));
        assert!(m("{unfinished", "{unfinished"));
        assert!(!m("/home/repo/tests/**", "tests/a"));
        let list = ["**/*.ts".to_string(), "!**/*.d.ts".to_string()];
        assert!(!included(&list, "src/a.d.ts", "a.d.ts"));
        assert!(included(&list, "src/a.ts", "a.ts"));
        assert!(!included(&["!nested".to_string()], "x", "nested"));
        assert!(included(&["!nested".to_string()], "nested/a.ts", "a.ts"));
    }

    #[test]
    fn anything_stops_at_line_breaks_but_star_does_not() {
        assert!(!m("**", "a\nb"));
        assert!(m("*", "a\nb"));
        assert!(!m("**/x", "a\n/x"));
    }

    #[test]
    fn a_long_literal_glob_is_answered() {
        let glob = "x".repeat(1 << 20);
        assert!(!m(&glob, "x"));
        let shorter = "x".repeat(10_000);
        assert!(m(&shorter, &shorter));
    }
}
