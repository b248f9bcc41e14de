//! `.gitignore` rules, search-contract §9: parsing one file (§9.2), the
//! rule grammar (§9.3) and deciding one entry against the scopes inherited
//! from its ancestors (§9.4). `.ignore` and `.rgignore` are never read
//! (§9.1): the walk asks only for `.gitignore`.
//!
//! A rule is matched by brute force: the set of subject positions each
//! piece can reach, piece after piece. There is no engine and no size
//! limit, so a rule line of any length is kept (§9.2 sets none).

use super::text::is_js_whitespace;

/// One piece of a rule (§9.3), over the rule's UTF-8 bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Literal(u8),
    /// `*`: a run of bytes other than `/`.
    Star,
    /// `?`: one byte other than `/`.
    One,
    /// `**` not followed by `/`: a run of bytes but CR and LF.
    Anything,
    /// `**/`: nothing, or a run of bytes but CR and LF ending in `/`.
    Directories,
    /// `[...]`: one byte in (or, negated, not in) the inclusive ranges.
    Class {
        negated: bool,
        ranges: Vec<(u8, u8)>,
    },
    /// `{a,b}`: any one of the (non-empty) alternatives; none = empty.
    Group(Vec<Vec<Piece>>),
}

/// One usable line of a `.gitignore` (§9.2 step 3).
#[derive(Clone, Debug)]
pub(crate) struct Rule {
    negated: bool,
    directory_only: bool,
    by_path: bool,
    pieces: Vec<Piece>,
}

/// The rules of one directory's `.gitignore`: a scope (§7.2 step 2).
#[derive(Clone, Debug)]
pub(crate) struct Scope {
    /// The directory, relative to the walk's root (`""` for the root).
    pub(crate) directory: String,
    pub(crate) rules: Vec<Rule>,
}

/// A rule the grammar refuses; §9.2 drops only that line.
#[derive(Debug)]
struct Unusable;

/// §9.2: the usable rules of one file's content, in file order.
pub(crate) fn parse(content: &str) -> Vec<Rule> {
    let content = content.strip_prefix('\u{feff}').unwrap_or(content);
    let mut rules = Vec::new();
    for raw in content.split('\n') {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.starts_with('#') {
            continue;
        }
        let mut text: &str = if line.ends_with("\\ ") {
            line
        } else {
            line.trim_end_matches(is_js_whitespace)
        };
        if text.is_empty() {
            continue;
        }
        let negated = text.starts_with('!');
        if negated {
            text = &text[1..];
        }
        let anchored = text.starts_with('/');
        if anchored {
            text = &text[1..];
        }
        let directory_only = text.ends_with('/');
        if directory_only {
            text = &text[..text.len() - 1];
            text = text.strip_suffix('\\').unwrap_or(text);
        }
        let by_path = anchored || text.contains('/');
        if let Ok(pieces) = compile(text.as_bytes()) {
            rules.push(Rule {
                negated,
                directory_only,
                by_path,
                pieces,
            });
        }
    }
    rules
}

type Open = Vec<(Vec<Vec<Piece>>, Vec<Piece>)>;

/// The alternative being written: the innermost open group's, or the
/// rule's own (the bottom entry, popped only at the end).
fn current(stack: &mut Open) -> &mut Vec<Piece> {
    let last = stack.len() - 1;
    &mut stack[last].1
}

/// §9.3: the pieces of one rule's text, left to right.
fn compile(text: &[u8]) -> Result<Vec<Piece>, Unusable> {
    // A stack of open groups: each holds its finished alternatives and the
    // one being written; the bottom entry is the rule itself.
    let mut stack: Open = vec![(Vec::new(), Vec::new())];
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        match b {
            b'\\' => {
                let &escaped = text.get(i + 1).ok_or(Unusable)?;
                current(&mut stack).push(Piece::Literal(escaped));
                i += 2;
            }
            b'[' => match class(text, i) {
                Some((piece, next)) => {
                    current(&mut stack).push(piece?);
                    i = next;
                }
                None => {
                    current(&mut stack).push(Piece::Literal(b'['));
                    i += 1;
                }
            },
            b'{' => {
                stack.push((Vec::new(), Vec::new()));
                i += 1;
            }
            b',' if stack.len() > 1 => {
                let (alternatives, written) = stack.last_mut().expect("an open group");
                let done = std::mem::take(written);
                if !done.is_empty() {
                    alternatives.push(done);
                }
                i += 1;
            }
            b'}' => {
                if stack.len() < 2 {
                    return Err(Unusable);
                }
                let (mut alternatives, written) = stack.pop().expect("an open group");
                if !written.is_empty() {
                    alternatives.push(written);
                }
                current(&mut stack).push(Piece::Group(alternatives));
                i += 1;
            }
            b'*' if text.get(i + 1) == Some(&b'*')
                && (i == 0 || matches!(text[i - 1], b'/' | b'{' | b','))
                && matches!(text.get(i + 2), None | Some(b'/' | b'}' | b',')) =>
            {
                if text.get(i + 2) == Some(&b'/') {
                    current(&mut stack).push(Piece::Directories);
                    i += 3;
                } else {
                    current(&mut stack).push(Piece::Anything);
                    i += 2;
                }
            }
            b'*' => {
                current(&mut stack).push(Piece::Star);
                i += 1;
            }
            b'?' => {
                current(&mut stack).push(Piece::One);
                i += 1;
            }
            other => {
                current(&mut stack).push(Piece::Literal(other));
                i += 1;
            }
        }
    }
    if stack.len() != 1 {
        return Err(Unusable);
    }
    Ok(stack.pop().map(|(_, pieces)| pieces).unwrap_or_default())
}

/// The class starting at `text[open] == b'['`: the piece (or the error of
/// an out-of-order range) and the index after its `]`; `None` when no `]`
/// closes it (then the `[` is literal).
fn class(text: &[u8], open: usize) -> Option<(Result<Piece, Unusable>, usize)> {
    let mut i = open + 1;
    let negated = matches!(text.get(i), Some(b'!' | b'^'));
    if negated {
        i += 1;
    }
    let body_start = i;
    if text.get(i) == Some(&b']') {
        i += 1;
    }
    let close = i + text.get(i..)?.iter().position(|&b| b == b']')?;
    let body = &text[body_start..close];
    // An ordinary class body: `x-y` is a range when something follows the
    // `-`; every other byte (a `-` at either end too) is itself.
    let mut ranges = Vec::new();
    let mut k = 0;
    while k < body.len() {
        let lo = body[k];
        if body.get(k + 1) == Some(&b'-') && k + 2 < body.len() {
            let hi = body[k + 2];
            if lo > hi {
                return Some((Err(Unusable), close + 1));
            }
            ranges.push((lo, hi));
            k += 3;
        } else {
            ranges.push((lo, lo));
            k += 1;
        }
    }
    Some((Ok(Piece::Class { negated, ranges }), close + 1))
}

fn line_break(b: u8) -> bool {
    b == b'\n' || b == b'\r'
}

/// The positions of `subject` that `pieces`, started at any position in
/// `from`, can end at.
fn reach(pieces: &[Piece], subject: &[u8], from: Vec<bool>) -> Vec<bool> {
    let n = subject.len();
    let mut at = from;
    for piece in pieces {
        if !at.iter().any(|&b| b) {
            break;
        }
        let mut next = vec![false; n + 1];
        match piece {
            Piece::Literal(c) => {
                for s in 0..n {
                    next[s + 1] = at[s] && subject[s] == *c;
                }
            }
            Piece::One => {
                for s in 0..n {
                    next[s + 1] = at[s] && subject[s] != b'/';
                }
            }
            Piece::Class { negated, ranges } => {
                for s in 0..n {
                    let member = ranges
                        .iter()
                        .any(|&(lo, hi)| lo <= subject[s] && subject[s] <= hi);
                    next[s + 1] = at[s] && member != *negated;
                }
            }
            Piece::Star | Piece::Anything => {
                let allowed = |b: u8| match piece {
                    Piece::Star => b != b'/',
                    _ => !line_break(b),
                };
                let mut running = false;
                for s in 0..=n {
                    running = at[s] || (running && s > 0 && allowed(subject[s - 1]));
                    next[s] = running;
                }
            }
            Piece::Directories => {
                let mut running = false;
                for s in 0..=n {
                    if s > 0 {
                        let b = subject[s - 1];
                        running = running && !line_break(b);
                        next[s] = at[s] || (running && b == b'/');
                    } else {
                        next[s] = at[s];
                    }
                    running = running || at[s];
                }
            }
            Piece::Group(alternatives) => {
                if alternatives.is_empty() {
                    next = at.clone();
                }
                for alternative in alternatives {
                    let ends = reach(alternative, subject, at.clone());
                    for (slot, end) in next.iter_mut().zip(ends) {
                        *slot |= end;
                    }
                }
            }
        }
        at = next;
    }
    at
}

impl Rule {
    fn matches(&self, subject: &[u8]) -> bool {
        let mut start = vec![false; subject.len() + 1];
        start[0] = true;
        reach(&self.pieces, subject, start)[subject.len()]
    }
}

/// §9.4: is the entry at root-relative `path` (a directory when
/// `is_directory`) ignored by `scopes` (shallowest first)?
pub(crate) fn ignored(scopes: &[Scope], path: &str, is_directory: bool) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    for scope in scopes.iter().rev() {
        let relative = if scope.directory.is_empty() {
            path
        } else {
            match path
                .strip_prefix(scope.directory.as_str())
                .and_then(|rest| rest.strip_prefix('/'))
            {
                Some(rest) => rest,
                // A scope is only ever an ancestor of what it judges.
                None => continue,
            }
        };
        for rule in scope.rules.iter().rev() {
            if rule.directory_only && !is_directory {
                continue;
            }
            let subject = if rule.by_path { relative } else { name };
            if rule.matches(subject.as_bytes()) {
                return !rule.negated;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_root(content: &str) -> Vec<Scope> {
        vec![Scope {
            directory: String::new(),
            rules: parse(content),
        }]
    }

    fn file(scopes: &[Scope], path: &str) -> bool {
        ignored(scopes, path, false)
    }

    #[test]
    fn the_facts_of_9_4() {
        let s = at_root("*.tmp\n");
        assert!(file(&s, "a.tmp") && file(&s, "sub/b.tmp"));
        let s = at_root("/a.txt\none/a.txt\n");
        assert!(file(&s, "a.txt") && !file(&s, "sub/a.txt"));
        assert!(file(&s, "one/a.txt") && !file(&s, "sub/one/a.txt"));
        let s = at_root("cache/\n");
        assert!(ignored(&s, "cache", true) && !file(&s, "cache"));
        let s = at_root("a/**/b.txt\n**/gone.txt\ntree/**\n");
        assert!(file(&s, "a/b.txt") && file(&s, "a/x/y/b.txt"));
        assert!(file(&s, "gone.txt") && file(&s, "sub/gone.txt"));
        assert!(file(&s, "tree/x") && !ignored(&s, "tree", true));
        let s = at_root("*.tmp\n!keep.tmp\nkeep.tmp\n!sub/keep.tmp\n");
        assert!(file(&s, "keep.tmp") && !file(&s, "sub/keep.tmp"));
        let s = at_root("# comment\n\n\\#literal\n\\!literal\n");
        assert!(file(&s, "#literal") && file(&s, "!literal") && !file(&s, "# comment"));
        let s = at_root("drop.txt   \nspace\\ \nliteral\\*.txt\n");
        assert!(file(&s, "drop.txt") && file(&s, "space ") && !file(&s, "space"));
        assert!(file(&s, "literal*.txt") && !file(&s, "literalx.txt"));
        let s = at_root("[ab]?.txt\n[!ab].txt\n[literal\n[]a].x\n");
        assert!(file(&s, "a1.txt") && file(&s, "b2.txt") && !file(&s, "c3.txt"));
        assert!(file(&s, "c.txt") && !file(&s, "a.txt"));
        assert!(file(&s, "[literal"));
        assert!(file(&s, "a.x") && file(&s, "].x"));
        let s = at_root("?.tmp\n");
        assert!(file(&s, "a.tmp") && !file(&s, "é.tmp") && !file(&s, "😀.tmp"));
        assert!(file(&at_root("??.tmp"), "é.tmp"));
        assert!(!file(&at_root("end.txt"), "end.txt\n"));
        let s = at_root("\u{feff}drop.txt\r\n[z-a]\n{broken\nother.txt\r\n");
        assert!(file(&s, "drop.txt") && file(&s, "other.txt") && !file(&s, "keep.txt"));
        assert_eq!(parse("first.txt\ninvalid\\\nbad}.txt\nlast.txt\n").len(), 2);
    }

    #[test]
    fn groups_drop_empty_alternatives() {
        let s = at_root("{a,}\nx{,}y\n{b,{c,d}}.z\n");
        assert!(file(&s, "a") && file(&s, "xy") && file(&s, "c.z") && file(&s, "b.z"));
        assert!(!file(&s, "x") && !file(&s, "e.z"));
        assert!(file(&at_root("{**,x}/k"), "deep/er/k"));
    }

    #[test]
    fn nested_scopes_fall_back_to_the_parent() {
        let scopes = vec![
            Scope {
                directory: String::new(),
                rules: parse("*.tmp\n"),
            },
            Scope {
                directory: "sub".into(),
                rules: parse("!keep.tmp\ncache/\n"),
            },
        ];
        assert!(!file(&scopes, "sub/keep.tmp") && file(&scopes, "sub/other.tmp"));
        assert!(ignored(&scopes, "sub/cache", true) && !file(&scopes, "sub/cache"));
    }

    #[test]
    fn a_long_rule_line_is_kept() {
        let line = format!("x{}", " ".repeat(65_536));
        assert!(file(&at_root(&line), "x"));
        let long = "y".repeat(1 << 20);
        assert!(!file(&at_root(&long), "y"));
        let shorter = "y".repeat(10_000);
        assert!(file(&at_root(&shorter), &shorter));
    }
}
