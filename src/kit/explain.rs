//! Recognising a known difference in a divergence, by predicting the
//! answer it implies (the `recogniser` of an entry of
//! [`crate::differences`]).
//!
//! A sweep must tell a new bug from a difference already listed. Looking
//! at the call's shape is not enough: a call with a `!` glob can still
//! meet a real bug, and would be excused with it. So each recogniser turns
//! the documented rule into a prediction, and the divergence is documented
//! only when the peer answered exactly that:
//!
//! * a rule about how `rg` reads a glob rewrites the call into the
//!   contract's spelling of `rg`'s reading (`x{a,}.ts` → `xa.ts`;
//!   `{nested/a.ts,b.ts}` → `{nested/a.ts,/b.ts}`);
//! * a rule about what `rg` walks rewrites the tree (a directory a `!` glob
//!   matches is pruned: the tree without the files under it);
//!
//! and the reference answers the rewritten call on the rewritten tree.
//! Recognisers that apply compose (one call may meet two differences). The
//! ignore-notice entry is the one exception: its rule only says the ignore
//! sentence may differ, so it accepts the prediction with that sentence
//! alone changed.

use std::collections::BTreeSet;

use serde_json::Value;

use super::answer::Answer;
use super::plan::{FileKind, GeneratedFile};
use crate::call::Call;
use crate::contract::glob::{brace_expansions, canonical_glob, matches_glob};
use crate::contract::notice::IGNORE_NOTICE;
use crate::differences::{self, Difference};

mod readings;

/// What a recogniser may look at: a divergent call, both answers, the
/// plan's tree, and the reference, to ask again.
pub struct Evidence<'a> {
    /// The call, spelled with the plan's symbolic root.
    pub call: &'a Call,
    /// The reference's answer.
    pub reference: &'a Answer,
    /// The peer's answer.
    pub answer: &'a Answer,
    /// The plan's symbolic root (e.g. `/r`).
    pub root: &'a str,
    /// The plan's tree, paths relative to `root`.
    pub tree: &'a [GeneratedFile],
    /// The reference's answer to `call` on `tree` (or on the same tree,
    /// given `None`); `None` when that tree cannot be written.
    pub ask: &'a Ask<'a>,
}

/// The reference's answer to a call on a tree ([`Evidence::ask`]).
pub type Ask<'a> = dyn Fn(Option<&[GeneratedFile]>, &Call) -> Option<Answer> + 'a;

impl std::fmt::Debug for Evidence<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Evidence")
            .field("call", self.call)
            .field("reference", self.reference)
            .field("answer", self.answer)
            .field("root", &self.root)
            .field("tree", &self.tree.len())
            .finish()
    }
}

/// How one difference predicts an answer.
enum Recogniser {
    /// Rewrites the call (`None`: the call does not meet the difference).
    Call(fn(&Call) -> Option<Call>),
    /// Rewrites the tree the call runs on.
    Tree(fn(&Call, &str, &[GeneratedFile]) -> Option<Vec<GeneratedFile>>),
    /// git's reading of each `.gitignore` line ([`readings::git_reading`]):
    /// one reading shows several listed differences, so every entry with
    /// this recogniser is applied at once, line by line, and a line is
    /// rewritten only when each difference it shows is listed.
    GitRules,
    /// Accepts the prediction with only the ignore sentence changed.
    IgnoreSentence,
}

/// The differences with a recogniser, by id (each must be an entry of the
/// table with a `recogniser` sentence: a test checks both ways).
#[cfg(test)]
const RECOGNISED: [&str; 11] = [
    "gitignore-braces-are-literal",
    "empty-brace-alternative",
    "brace-alternatives-share-anchoring",
    "negative-glob-prunes-directories",
    "ignore-notice-inferred-from-listings",
    "gitignore-empty-pattern-matches-every-path",
    readings::git_ids::CLASS,
    readings::git_ids::TRAILING_ESCAPE,
    readings::git_ids::AFTER_A_NAME,
    readings::git_ids::TRIPLE,
    readings::git_ids::BEFORE_AN_ESCAPED_SLASH,
];

fn recogniser(d: &Difference) -> Option<Recogniser> {
    d.recogniser.as_ref()?;
    match d.id.as_str() {
        "empty-brace-alternative" => Some(Recogniser::Call(|call| {
            rewrite_globs(call, drop_empty_alternatives)
        })),
        "brace-alternatives-share-anchoring" => {
            Some(Recogniser::Call(|call| rewrite_globs(call, anchor_all)))
        }
        "negative-glob-prunes-directories" => Some(Recogniser::Tree(prune)),
        "gitignore-braces-are-literal" => Some(Recogniser::Tree(literal_braces)),
        "gitignore-empty-pattern-matches-every-path" => {
            Some(Recogniser::Tree(|call, root, tree| {
                rewrite_rules(call, root, tree, readings::rg_everything)
            }))
        }
        readings::git_ids::CLASS
        | readings::git_ids::TRAILING_ESCAPE
        | readings::git_ids::AFTER_A_NAME
        | readings::git_ids::TRIPLE
        | readings::git_ids::BEFORE_AN_ESCAPED_SLASH => Some(Recogniser::GitRules),
        "ignore-notice-inferred-from-listings" => Some(Recogniser::IgnoreSentence),
        _ => None,
    }
}

/// The known differences of the built-in `builtin` that explain the
/// divergence: their ids joined by ` + `, when the answer is exactly what
/// they predict together; `None` when it is not (the divergence counts).
pub fn explain(builtin: crate::peer::Builtin, evidence: &Evidence<'_>) -> Option<String> {
    let mut call = evidence.call.clone();
    let mut tree: Option<Vec<GeneratedFile>> = None;
    let mut applied: Vec<&str> = Vec::new();
    let mut sentence = None;
    // Rewrites of the call first: which directories rg prunes depends on
    // how it reads the globs (`!*{.ts,}` is `!*.ts` to rg, which prunes
    // no directory, not `!*`, which would prune them all).
    let mut recognisers: Vec<(&Difference, Recogniser)> = differences::of(builtin)
        .filter_map(|d| Some((d, recogniser(d)?)))
        .collect();
    // git's reading of a line after the trees' rewrites: its braces are
    // escaped first (`gitignore-braces-are-literal`), which it reads as
    // literal braces too.
    recognisers.sort_by_key(|(_, r)| match r {
        Recogniser::Call(_) => 0,
        Recogniser::Tree(_) => 1,
        Recogniser::GitRules => 2,
        Recogniser::IgnoreSentence => 3,
    });
    let git_listed: Vec<&str> = recognisers
        .iter()
        .filter(|(_, r)| matches!(r, Recogniser::GitRules))
        .map(|(d, _)| d.id.as_str())
        .collect();
    let mut git_read = false;
    for (d, recogniser) in recognisers {
        match recogniser {
            Recogniser::GitRules if !git_read => {
                git_read = true;
                let files = tree.as_deref().unwrap_or(evidence.tree);
                let call = &call;
                if let Some((rewritten, shown)) = git_rules(call, evidence.root, files, &git_listed)
                {
                    tree = Some(rewritten);
                    applied.extend(shown);
                }
            }
            Recogniser::GitRules => {}
            Recogniser::Call(rewrite) => {
                if let Some(rewritten) = rewrite(&call) {
                    call = rewritten;
                    applied.push(&d.id);
                }
            }
            Recogniser::Tree(rewrite) => {
                let files = tree.as_deref().unwrap_or(evidence.tree);
                if let Some(rewritten) = rewrite(&call, evidence.root, files) {
                    tree = Some(rewritten);
                    applied.push(&d.id);
                }
            }
            Recogniser::IgnoreSentence => sentence = Some(d.id.as_str()),
        }
    }
    let predicted = if applied.is_empty() {
        evidence.reference.clone()
    } else {
        (evidence.ask)(tree.as_deref(), &call)?
    };
    if !applied.is_empty() && predicted.agrees(evidence.answer) {
        return Some(applied.join(" + "));
    }
    let id = sentence?;
    if equal_but_for_the_ignore_sentence(&predicted, evidence.answer) {
        applied.push(id);
        return Some(applied.join(" + "));
    }
    None
}

/// The call with each glob rewritten by `rewrite` (`None` keeps it);
/// `None` when no glob changed.
fn rewrite_globs(call: &Call, rewrite: fn(&str) -> Option<String>) -> Option<Call> {
    let mut call = call.clone();
    let mut changed = false;
    let mut apply = |glob: &mut String| {
        if let Some(new) = rewrite(glob) {
            *glob = new;
            changed = true;
        }
    };
    match &mut call {
        Call::Grep(g) => g.globs.iter_mut().for_each(&mut apply),
        Call::Glob(g) => apply(&mut g.pattern),
        // rg reads no glob of the flow calls: they are validated first,
        // and the file flows have none.
        _ => return None,
    }
    changed.then_some(call)
}

/// globset's reading of `x{a,}.ts`: the empty alternative dropped, a
/// group left with one part replaced by it (`xa.ts`). `None` when the glob
/// has no empty alternative, or has nested braces or only empty parts
/// (no prediction: such a divergence counts).
fn drop_empty_alternatives(glob: &str) -> Option<String> {
    let mut out = String::with_capacity(glob.len());
    let mut rest = glob;
    let mut changed = false;
    // The contract's groups (§8.3 step 2): the first `{`, the first `}`
    // after it, at least one `,` between.
    while let Some(open) = rest.find('{') {
        let Some(len) = rest[open..].find('}') else {
            break;
        };
        let inner = &rest[open + 1..open + len];
        if !inner.contains(',') {
            out.push_str(&rest[..=open + len]);
            rest = &rest[open + len + 1..];
            continue;
        }
        if inner.contains('{') {
            return None;
        }
        let parts: Vec<&str> = inner.split(',').filter(|p| !p.is_empty()).collect();
        changed |= parts.len() != inner.split(',').count();
        out.push_str(&rest[..open]);
        match parts.len() {
            0 => return None,
            1 => out.push_str(parts[0]),
            _ => {
                out.push('{');
                out.push_str(&parts.join(","));
                out.push('}');
            }
        }
        rest = &rest[open + len + 1..];
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// rg's reading of a glob whose brace alternatives are anchored in part
/// (some hold a `/`, some do not): anchored as a whole, so every
/// alternative matches the root-relative path, which the contract spells
/// with a leading `/`. `None` for a glob anchored alike throughout, or
/// whose expansions hold a brace or comma (no prediction).
fn anchor_all(glob: &str) -> Option<String> {
    let (bang, positive) = match glob.strip_prefix('!') {
        Some(rest) => ("!", rest),
        None => ("", glob),
    };
    let expansions = brace_expansions(&canonical_glob(positive));
    let slashed = |e: &str| e.trim_start_matches('/').contains('/');
    let anchored = expansions.iter().filter(|e| slashed(e)).count();
    if anchored == 0 || anchored == expansions.len() {
        return None;
    }
    if expansions.iter().any(|e| e.contains(['{', '}', ','])) {
        return None;
    }
    let parts: Vec<String> = expansions
        .iter()
        .map(|e| {
            if slashed(e) {
                e.clone()
            } else {
                format!("/{}", e.trim_start_matches('/'))
            }
        })
        .collect();
    Some(format!("{bang}{{{}}}", parts.join(",")))
}

/// rg's walk with a `!` glob: a directory whose last matching glob is a
/// `!` one is pruned, as if its files were not there (the directory itself
/// stays, empty). `None` when the call prunes nothing.
fn prune(call: &Call, root: &str, tree: &[GeneratedFile]) -> Option<Vec<GeneratedFile>> {
    let globs: Vec<&str> = match call {
        Call::Grep(g) => g.globs.iter().map(String::as_str).collect(),
        Call::Glob(g) => vec![g.pattern.as_str()],
        _ => return None,
    };
    if !globs.iter().any(|g| g.starts_with('!')) {
        return None;
    }
    // The call's root below the plan's, as a tree path prefix.
    let below = call.root().strip_prefix(root)?;
    let below = below.trim_start_matches('/');
    let pruned: Vec<&str> = dirs_of(tree)
        .into_iter()
        .filter_map(|dir| {
            let relative = if below.is_empty() {
                dir
            } else {
                dir.strip_prefix(below)?.strip_prefix('/')?
            };
            let basename = relative.rsplit('/').next().unwrap_or(relative);
            let last = globs.iter().rev().find(|g| {
                let positive = g.strip_prefix('!').unwrap_or(g);
                // rg reads a glob ending in `/` as one that matches
                // directories only, the `/` not part of what it matches:
                // `!b/` prunes the directory `b` (found by the `glob`
                // family of `kit::exhaustive`, where `!b/`, `!*/`, `!?/`
                // and `!**/` pruned directories this did not predict).
                let positive = positive
                    .strip_suffix('/')
                    .filter(|p| !p.is_empty())
                    .unwrap_or(positive);
                matches_glob(positive, relative, basename)
            })?;
            last.starts_with('!').then_some(dir)
        })
        .collect();
    if pruned.is_empty() {
        return None;
    }
    let under = |path: &str| {
        pruned
            .iter()
            .any(|d| path.strip_prefix(d).is_some_and(|r| r.starts_with('/')))
    };
    // Only the files go: every directory stays, so what the contract asks
    // of directories (a glob's literal directory for the §16 notice) is
    // answered as on the real tree.
    let mut kept: Vec<GeneratedFile> = tree
        .iter()
        .filter(|f| f.kind == FileKind::Dir || !under(&f.path))
        .cloned()
        .collect();
    for dir in dirs_of(tree) {
        if (under(dir) || pruned.contains(&dir)) && !kept.iter().any(|f| f.path == dir) {
            kept.push(GeneratedFile::dir(dir));
        }
    }
    Some(kept)
}

/// git's reading of braces in a `.gitignore`, spelled for the contract:
/// every `{` and `}` escaped, so the rule names them literally (§9.3: `\x`
/// is `x`). `None` when no `.gitignore` of the tree holds a brace.
///
/// Only a brace outside a class: in git a class holds `{` as a member, and
/// `\{` there would add `\` to it in the contract. (The generator writes
/// braces in rules only outside classes.)
fn literal_braces(_: &Call, _: &str, tree: &[GeneratedFile]) -> Option<Vec<GeneratedFile>> {
    let is_rules = |f: &GeneratedFile| {
        f.kind == FileKind::File
            && f.path.rsplit('/').next() == Some(".gitignore")
            && f.content.iter().any(|b| matches!(b, b'{' | b'}'))
    };
    if !tree.iter().any(is_rules) {
        return None;
    }
    Some(
        tree.iter()
            .map(|f| {
                if !is_rules(f) {
                    return f.clone();
                }
                let mut escaped = Vec::with_capacity(f.content.len() + 8);
                let mut in_class = false;
                let mut previous = 0u8;
                for &b in &f.content {
                    match b {
                        b'\n' => in_class = false,
                        b'[' if previous != b'\\' => in_class = true,
                        b']' => in_class = false,
                        b'{' | b'}' if !in_class && previous != b'\\' => escaped.push(b'\\'),
                        _ => {}
                    }
                    escaped.push(b);
                    previous = b;
                }
                let mut file = f.clone();
                file.content = escaped;
                file
            })
            .collect(),
    )
}

/// The tree with each line `read` rewrites rewritten, in the `.gitignore`
/// files the call reads (`\r\n` line ends kept); `None` when no line
/// changed.
fn rewrite_rules(
    call: &Call,
    root: &str,
    tree: &[GeneratedFile],
    read: fn(&str) -> Option<String>,
) -> Option<Vec<GeneratedFile>> {
    rewrite_lines(call, root, tree, |line| {
        read(line).map(|text| (text, Vec::new()))
    })
    .map(|(tree, _)| tree)
}

/// git's reading of every `.gitignore` line of the tree
/// ([`readings::git_reading`]), for the lines each of whose differences
/// is in `listed`; `None` when no line changed. With the tree, the
/// differences the rewritten lines show, in `listed`'s order.
fn git_rules(
    call: &Call,
    root: &str,
    tree: &[GeneratedFile],
    listed: &[&'static str],
) -> Option<(Vec<GeneratedFile>, Vec<&'static str>)> {
    let (tree, shown) = rewrite_lines(call, root, tree, |line| {
        let git = readings::git_reading(line)?;
        git.shows
            .iter()
            .all(|id| listed.contains(id))
            .then_some((git.text, git.shows))
    })?;
    let shown = listed
        .iter()
        .copied()
        .filter(|id| shown.contains(id))
        .collect();
    Some((tree, shown))
}

/// The tree with each line `read` rewrites so, in the `.gitignore` files
/// the call reads (those at or below its root, §9.1: a family's batch
/// holds many roots, and a rule elsewhere neither changes this answer nor
/// explains it), and what each rewrite showed; `None` when no line
/// changed. A file that is not UTF-8 is left as it is (no reading here is
/// written for one).
fn rewrite_lines(
    call: &Call,
    root: &str,
    tree: &[GeneratedFile],
    read: impl Fn(&str) -> Option<(String, Vec<&'static str>)>,
) -> Option<(Vec<GeneratedFile>, Vec<&'static str>)> {
    let below = call.root().strip_prefix(root)?.trim_start_matches('/');
    let read_by_the_call = |path: &str| {
        below.is_empty()
            || path
                .strip_prefix(below)
                .is_some_and(|rest| rest.starts_with('/'))
    };
    let mut changed = false;
    let mut shown: Vec<&'static str> = Vec::new();
    let rewritten = tree
        .iter()
        .map(|f| {
            let rules = f.kind == FileKind::File
                && f.path.rsplit('/').next() == Some(".gitignore")
                && read_by_the_call(&f.path);
            let Some(text) = rules
                .then(|| std::str::from_utf8(&f.content).ok())
                .flatten()
            else {
                return f.clone();
            };
            let lines: Vec<String> = text
                .split('\n')
                .map(|line| {
                    let (body, cr) = match line.strip_suffix('\r') {
                        Some(body) => (body, "\r"),
                        None => (line, ""),
                    };
                    match read(body) {
                        Some((new, shows)) => {
                            changed = true;
                            shown.extend(shows);
                            format!("{new}{cr}")
                        }
                        None => line.to_string(),
                    }
                })
                .collect();
            let mut file = f.clone();
            file.content = lines.join("\n").into_bytes();
            file
        })
        .collect();
    changed.then_some((rewritten, shown))
}

/// Every directory of a tree: its directory entries and the ancestors of
/// every entry.
fn dirs_of(tree: &[GeneratedFile]) -> BTreeSet<&str> {
    tree.iter()
        .flat_map(|f| {
            let own = (f.kind == FileKind::Dir).then_some(f.path.as_str());
            ancestors(&f.path).chain(own)
        })
        .collect()
}

/// The proper ancestors of a `/`-separated path (`a/b/c` → `a`, `a/b`).
fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    path.match_indices('/').map(move |(i, _)| &path[..i])
}

/// The answers are equal but for the ignore sentence of the notice.
fn equal_but_for_the_ignore_sentence(predicted: &Answer, answer: &Answer) -> bool {
    let (Some(predicted), Some(answer)) = (predicted.value(), answer.value()) else {
        return false;
    };
    let strip = |v: &Value| {
        let mut v = v.clone();
        if let Some(obj) = v.as_object_mut() {
            let notice = obj
                .get("notice")
                .and_then(Value::as_str)
                .map(|n| n.replace(IGNORE_NOTICE, "").trim().to_string());
            match notice {
                Some(n) if n.is_empty() => {
                    obj.remove("notice");
                }
                Some(n) => {
                    obj.insert("notice".into(), Value::String(n));
                }
                None => {}
            }
        }
        v
    };
    predicted != answer && strip(predicted) == strip(answer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::GlobInput;
    use serde_json::json;

    #[test]
    fn every_recogniser_is_a_table_entry_and_every_entry_with_one_has_code() {
        for id in RECOGNISED {
            let d = differences::table()
                .differences
                .iter()
                .find(|d| d.id == id)
                .unwrap_or_else(|| panic!("{id} is not in the table"));
            assert!(recogniser(d).is_some(), "{id} has no `recogniser` sentence");
        }
        for d in &differences::table().differences {
            assert_eq!(
                d.recogniser.is_some(),
                RECOGNISED.contains(&d.id.as_str()),
                "{}: a `recogniser` sentence and code go together",
                d.id
            );
        }
    }

    #[test]
    fn gitignore_braces_are_escaped_outside_classes_only() {
        let call = Call::Glob(GlobInput::new("*", "/r"));
        let tree = [
            GeneratedFile::new("a/.gitignore", "{lemon,mango}.alt\n[{]x\n\\{kept\n"),
            GeneratedFile::new("b/.gitignore", "plain\n"),
            GeneratedFile::new("c{d}", "{x}"),
        ];
        let rewritten = literal_braces(&call, "/r", &tree).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&rewritten[0].content),
            "\\{lemon,mango\\}.alt\n[{]x\n\\{kept\n"
        );
        assert_eq!(&rewritten[1..], &tree[1..]);
        assert!(literal_braces(&call, "/r", &tree[1..]).is_none());
    }

    #[test]
    fn empty_alternatives_are_dropped_as_globset_does() {
        assert_eq!(
            drop_empty_alternatives("x{a,}.ts").as_deref(),
            Some("xa.ts")
        );
        assert_eq!(
            drop_empty_alternatives("{a,,b}/{c,d}").as_deref(),
            Some("{a,b}/{c,d}")
        );
        assert_eq!(drop_empty_alternatives("{a,b}.ts"), None);
        assert_eq!(drop_empty_alternatives("{,}"), None);
        assert_eq!(drop_empty_alternatives("{a}{b,}"), Some("{a}b".into()));
    }

    #[test]
    fn mixed_anchoring_is_anchored_throughout() {
        assert_eq!(
            anchor_all("{nested/a.ts,b.ts}").as_deref(),
            Some("{nested/a.ts,/b.ts}")
        );
        assert_eq!(anchor_all("!{a/b,c}").as_deref(), Some("!{a/b,/c}"));
        assert_eq!(anchor_all("{a,b}.ts"), None);
        assert_eq!(anchor_all("{x/a,y/b}"), None);
    }

    #[test]
    fn a_negative_glob_prunes_the_directories_it_matches_last() {
        let tree = vec![
            GeneratedFile::new("nested/a.ts", "x"),
            GeneratedFile::new("nested/sub/deep.ts", "x"),
            GeneratedFile::new("keep/a.ts", "x"),
        ];
        let call = |globs: &[&str]| {
            let mut input = crate::contract::GrepInput::new("x", "/r");
            input.globs = globs.iter().map(|g| g.to_string()).collect();
            Call::Grep(input)
        };
        let paths = |t: Option<Vec<GeneratedFile>>| -> Vec<String> {
            t.unwrap().into_iter().map(|f| f.path).collect()
        };
        assert_eq!(
            paths(prune(&call(&["!nested"]), "/r", &tree)),
            ["keep/a.ts", "nested", "nested/sub"]
        );
        assert_eq!(
            paths(prune(&call(&["!nested/*"]), "/r", &tree)),
            ["nested/a.ts", "keep/a.ts", "nested/sub"]
        );
        // A glob ending in `/` matches the directory its rest matches.
        assert_eq!(
            paths(prune(&call(&["!nested/"]), "/r", &tree)),
            ["keep/a.ts", "nested", "nested/sub"]
        );
        assert_eq!(
            paths(prune(&call(&["!*/"]), "/r", &tree)),
            ["keep", "nested", "nested/sub"]
        );
        assert_eq!(prune(&call(&["!/"]), "/r", &tree), None);
        // A later positive glob matching the directory keeps it.
        assert_eq!(prune(&call(&["!nested", "nested"]), "/r", &tree), None);
        assert_eq!(prune(&call(&["*.ts"]), "/r", &tree), None);
        // Relative to the call's root.
        let mut below = call(&["!sub"]);
        if let Call::Grep(g) = &mut below {
            g.root = "/r/nested".into();
        }
        assert_eq!(
            paths(prune(&below, "/r", &tree)),
            ["nested/a.ts", "keep/a.ts", "nested/sub"]
        );
    }

    /// The `.gitignore` readings of `rg` and git, on the reference itself:
    /// an answer is documented when it is what the reading predicts for
    /// the rules the call reads, under the difference the reading shows,
    /// and counts otherwise; a rule under another root neither changes
    /// the prediction nor explains it.
    #[test]
    fn gitignore_readings_predict_rg_and_git_on_the_rules_the_call_reads() {
        use crate::kit::ask::Materialized;
        use crate::peer::Builtin;
        let portable = crate::portable::Portable::default();
        let tree = |rules: &str| {
            let mut files = vec![
                GeneratedFile::new("one/.gitignore", format!("{rules}\n")),
                GeneratedFile::new("two/.gitignore", "[\n"),
            ];
            for dir in ["one", "two"] {
                for path in ["a/a", "[", "b"] {
                    files.push(GeneratedFile::new(format!("{dir}/{path}"), "x"));
                }
            }
            files
        };
        let ask_on = |files: &[GeneratedFile], call: &Call| {
            Materialized::new("/r", files)
                .ok()
                .map(|t| t.answer(&portable, call))
        };
        let listing = |paths: &[&str]| {
            let paths: Vec<String> = paths.iter().map(|p| format!("/r/one/{p}")).collect();
            Answer::Value(json!({"paths": paths, "total": paths.len(), "truncated": false}))
        };
        let call = Call::Glob(GlobInput::new("**", "/r/one"));
        let explained = |builtin: Builtin, rules: &str, answer: &Answer| {
            let files = tree(rules);
            let reference = ask_on(&files, &call).unwrap();
            let ask = |rewritten: Option<&[GeneratedFile]>, call: &Call| {
                ask_on(rewritten.unwrap_or(&files), call)
            };
            explain(
                builtin,
                &Evidence {
                    call: &call,
                    reference: &reference,
                    answer,
                    root: "/r",
                    tree: &files,
                    ask: &ask,
                },
            )
        };
        // git: an unclosed `[` matches nothing, so the file `[` is kept.
        let everything = listing(&["[", "a/a", "b"]);
        assert_eq!(
            explained(Builtin::Git, "[", &everything).as_deref(),
            Some("gitignore-class-dialect")
        );
        assert_eq!(explained(Builtin::Git, "[", &listing(&["a/a", "b"])), None);
        // `a**/a` to git: `a`, any run of directories, `a`.
        assert_eq!(
            explained(Builtin::Git, "a**/a", &listing(&["[", "b"])).as_deref(),
            Some("gitignore-double-star-after-a-name")
        );
        // The `[` of `two/.gitignore` is not read by this call: with a rule
        // git reads as the contract does, nothing is predicted.
        assert_eq!(explained(Builtin::Git, "b", &everything), None);
        // rg: `\/` ignores every directory.
        assert_eq!(
            explained(Builtin::RipgrepWalk, "\\/", &listing(&["[", "b"])).as_deref(),
            Some("gitignore-empty-pattern-matches-every-path")
        );
        assert_eq!(
            explained(Builtin::RipgrepWalk, "\\/", &listing(&["b"])),
            None
        );
        // Each built-in's reading is its own.
        assert_eq!(
            explained(Builtin::Ripgrep, "\\/", &listing(&["[", "b"])),
            None
        );
        assert_eq!(explained(Builtin::RipgrepWalk, "[", &everything), None);
    }

    /// A difference is documented only when the answer is the predicted
    /// one: the same call with a wrong answer counts.
    #[test]
    fn only_the_predicted_answer_is_documented() {
        let tree = vec![
            GeneratedFile::new("nested/a.ts", "x"),
            GeneratedFile::new("b.ts", "x"),
        ];
        let listing = |paths: &[&str]| {
            Answer::Value(json!({"paths": paths, "total": paths.len(), "truncated": false}))
        };
        let reference = listing(&["/r/b.ts", "/r/nested/a.ts"]);
        // A stand-in reference: lists the tree's `.ts` files.
        let ask = |files: Option<&[GeneratedFile]>, _: &Call| {
            let files = files.unwrap_or(&tree);
            let mut paths: Vec<String> = files
                .iter()
                .filter(|f| f.kind == FileKind::File)
                .map(|f| format!("/r/{}", f.path))
                .collect();
            paths.sort();
            let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
            Some(listing(&paths))
        };
        let call = Call::Glob(GlobInput::new("!nested", "/r"));
        let evidence = |answer: &Answer| {
            explain(
                crate::peer::Builtin::RipgrepWalk,
                &Evidence {
                    call: &call,
                    reference: &reference,
                    answer,
                    root: "/r",
                    tree: &tree,
                    ask: &ask,
                },
            )
        };
        assert_eq!(
            evidence(&listing(&["/r/b.ts"])).as_deref(),
            Some("negative-glob-prunes-directories")
        );
        // The same call, an answer no listed rule predicts: a bug.
        assert_eq!(evidence(&listing(&[])), None);
        assert_eq!(evidence(&listing(&["/r/nested/a.ts"])), None);
        // The ignore sentence alone may differ on top of a prediction.
        let mut noted = json!({"paths": ["/r/b.ts"], "total": 1, "truncated": false});
        noted["notice"] = json!(IGNORE_NOTICE);
        let noted = Answer::Value(noted);
        assert_eq!(
            evidence(&noted).as_deref(),
            Some("negative-glob-prunes-directories + ignore-notice-inferred-from-listings")
        );
        // rg reads `!*{.ts,}` as `!*.ts`, which prunes no directory: the
        // call is rewritten before the tree (a seed found the other order
        // pruning every directory).
        let call = Call::Glob(GlobInput::new("!*{.ts,}", "/r"));
        let answer = listing(&["/r/b.ts", "/r/nested/a.ts"]);
        let documented = explain(
            crate::peer::Builtin::RipgrepWalk,
            &Evidence {
                call: &call,
                reference: &listing(&[]),
                answer: &answer,
                root: "/r",
                tree: &tree,
                ask: &ask,
            },
        );
        assert_eq!(documented.as_deref(), Some("empty-brace-alternative"));
        // Other peers have no recognisers.
        assert_eq!(
            explain(
                crate::peer::Builtin::Ripgrep,
                &Evidence {
                    call: &call,
                    reference: &reference,
                    answer: &listing(&["/r/b.ts"]),
                    root: "/r",
                    tree: &tree,
                    ask: &ask,
                }
            ),
            None
        );
    }
}
