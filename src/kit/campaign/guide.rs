//! Guidance: a campaign that keeps what it has seen and mutates it.
//!
//! A campaign asks fresh seeds, and also (NEZHA's lesson: guide a
//! differential search by the diversity of its outcomes) keeps a
//! **corpus** of the calls whose [`Behaviour`](crate::kit::compare::Behaviour) (the shape of the
//! reference's answer and how each subject's stood to it) was new, and
//! spends part of its time **mutating** them: a mutant is one such call on
//! its tree with one to three edits, of the call (a flag flipped, a limit
//! or a context lowered, a pattern or a glob edited, a root moved) or of
//! the tree (a file removed, copied under another name, given a line, an
//! ignore rule or a binary byte). A call near a rare shape reaches its
//! neighbours far sooner than fresh seeds do.
//!
//! Every mutant is reproducible from its lineage ([`Origin`]): the seed
//! of the plan it came from, the call, and the seeds of the edits applied
//! in turn; the corpus is kept beside the campaign's state and resumes.
//! Edits stay inside the contract: a seam call is what validation would
//! hand a peer ([`crate::contract::normalize_grep`]), and a tree keeps to
//! its ground (no CRLF or invalid UTF-8 on the shared one).

use serde::{Deserialize, Serialize};

use crate::call::Call;
use crate::contract::{GlobRequest, GrepRequest, normalize_glob, normalize_grep};
use crate::kit::draws::Draws;
use crate::kit::plan::{FileKind, GeneratedFile, Plan};
use crate::peer::Ground;

/// Where a call of the corpus comes from: a plan of a seed sequence, one
/// of its calls, and the seeds of the edits applied to them in turn.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Origin {
    /// `smthrs`, `lawsuite` or `lawsuite@full`.
    pub sequence: String,
    /// The plan's seed.
    pub seed: u64,
    /// The call's index in the plan.
    pub call: usize,
    /// The seeds of the edits, in the order applied ([`mutate`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mutations: Vec<u64>,
}

impl Origin {
    /// The one-call plan this origin names: the seed's plan reduced to its
    /// call, then each edit applied in turn. `None` when the seed has no
    /// plan or an edit no longer applies (a corpus written by another
    /// version of the generator).
    pub fn plan(&self, root: &str) -> Option<Plan> {
        let slot = super::Slot::from_name(&self.sequence)?;
        let plan = crate::kit::generate(slot.generator, self.seed, root, slot.ground).ok()?;
        if self.call >= plan.call_count() {
            return None;
        }
        let mut one = plan.only_call(self.call);
        for &m in &self.mutations {
            one = mutate(&one, m)?;
        }
        Some(one)
    }

    /// The same origin, one edit further (`mutation` names a mutant:
    /// [`mutate`]).
    pub fn then(&self, mutation: u64) -> Origin {
        let mut next = self.clone();
        next.mutations.push(mutation);
        next
    }

    /// The origin a mutant of this entry starts from: the entry itself, or,
    /// once its lineage holds [`MAX_LINEAGE`] edits, the entry's own call
    /// with none (a lineage is replayed edit by edit, so it stays short).
    pub fn to_mutate(&self) -> Origin {
        if self.mutations.len() >= MAX_LINEAGE {
            Origin {
                mutations: Vec::new(),
                ..self.clone()
            }
        } else {
            self.clone()
        }
    }

    /// `lawsuite seed 17 call 3`, with its edits when it has some.
    pub fn describe(&self) -> String {
        let mut out = format!("{} seed {} call {}", self.sequence, self.seed, self.call);
        if !self.mutations.is_empty() {
            out.push_str(&format!(
                ", mutated {} {} ({})",
                self.mutations.len(),
                if self.mutations.len() == 1 {
                    "time"
                } else {
                    "times"
                },
                self.mutations
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        out
    }
}

/// The calls kept for mutation: each showed a behaviour nothing before it
/// had.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Corpus {
    /// The calls, in the order kept.
    pub entries: Vec<Origin>,
}

/// The longest chain of edits a mutant may carry: past it the corpus
/// mutates the entry's own origin instead, so a lineage stays short to
/// replay (each edit is one more plan to build). A count of edits, not a
/// bound on any answer.
pub const MAX_LINEAGE: usize = 8;

/// How many mutants of one corpus call are asked together, on one tree:
/// writing a tree costs more than asking a call on it, so a mutant asked
/// alone cost as much as a whole plan of calls. A count of calls, not a
/// bound on any answer.
pub const BATCH: usize = 24;

/// One mutant of the one-call plan `plan` ([`Plan::only_call`]), named by
/// `m`: the tree edited as mutant batch `m >> 8` edits it (maybe not at
/// all; every mutant of a batch shares its tree) and the call with one to
/// three edits drawn from `m` ([`mutate_batch`] asks the batch's mutants
/// together), the call kept inside the contract. `None` when the draws
/// changed nothing, or made a call validation refuses.
///
/// ```
/// use lawsuite::kit::campaign::guide::mutate;
/// use lawsuite::kit::lawsuite::{plan, GeneratorOptions};
///
/// let one = plan(3, "/r", &GeneratorOptions::default()).only_call(0);
/// let mutants: Vec<_> = (0..40).filter_map(|m| mutate(&one, m)).collect();
/// assert!(mutants.len() > 20, "most draws make a mutant");
/// assert!(mutants.iter().all(|m| m.call_count() == 1));
/// assert_eq!(mutate(&one, 7), mutate(&one, 7), "the same seed, the same mutant");
/// ```
pub fn mutate(plan: &Plan, m: u64) -> Option<Plan> {
    let files = edited_tree(plan, m >> 8);
    crate::kit::materialize::validate(&files).ok()?;
    let call = plan.calls().into_iter().next()?;
    let call = edited_call(&call, &files, m)?;
    let mutant = with_calls(plan, files, vec![call]);
    (mutant != *plan).then_some(mutant)
}

/// The mutants `batch << 8 | i` of `plan` for `i` in `0..count`, on their
/// one shared tree: one plan of up to `count` calls, and the name of each
/// call's mutant ([`mutate`] makes it alone). `None` when the batch's tree
/// cannot be written.
pub fn mutate_batch(plan: &Plan, batch: u64, count: usize) -> Option<(Plan, Vec<u64>)> {
    let batch = batch & (u64::MAX >> 8);
    let files = edited_tree(plan, batch);
    crate::kit::materialize::validate(&files).ok()?;
    let call = plan.calls().into_iter().next()?;
    let mut calls = Vec::new();
    let mut names = Vec::new();
    for i in 0..count.min(256) as u64 {
        let m = batch << 8 | i;
        let Some(mutant) = edited_call(&call, &files, m) else {
            continue;
        };
        if files == plan.files && mutant == call {
            continue;
        }
        calls.push(mutant);
        names.push(m);
    }
    Some((with_calls(plan, files, calls), names))
}

/// The tree of mutant batch `batch`: `plan`'s, or, for two batches in five,
/// with one edit.
fn edited_tree(plan: &Plan, batch: u64) -> Vec<GeneratedFile> {
    let mut draws = Draws::seeded(batch ^ 0x7472_6565);
    let mut files = plan.files.clone();
    if draws.percent(40)
        && let Some(call) = plan.calls().into_iter().next()
    {
        edit_tree(&mut files, &call, plan.ground, &mut draws);
    }
    files
}

/// The call of mutant `m`: one to three edits, kept inside the contract.
fn edited_call(call: &Call, files: &[GeneratedFile], m: u64) -> Option<Call> {
    let mut draws = Draws::seeded(m);
    let mut call = call.clone();
    for _ in 0..1 + draws.below(3) {
        call = edit_call(&call, files, &mut draws).unwrap_or(call);
    }
    within_contract(call)
}

/// `plan` with `files` and `calls` (of one method: every mutant of a call
/// keeps its method, so their order is kept).
fn with_calls(plan: &Plan, files: Vec<GeneratedFile>, calls: Vec<Call>) -> Plan {
    let mut out = Plan {
        files,
        grep: Vec::new(),
        glob: Vec::new(),
        read: Vec::new(),
        ls: Vec::new(),
        flow: Vec::new(),
        ..plan.clone()
    };
    for call in calls {
        match call {
            Call::Grep(g) => out.grep.push(g),
            Call::Glob(g) => out.glob.push(g),
            Call::Read(r) => out.read.push(r),
            Call::Ls(l) => out.ls.push(l),
            other => out.flow.push(other),
        }
    }
    out
}

/// A seam call as validation hands it to a peer (normalised), a flow call
/// as it is; `None` for a seam call validation refuses.
fn within_contract(call: Call) -> Option<Call> {
    Some(match call {
        Call::Grep(g) => Call::Grep(normalize_grep(&GrepRequest::from(&g)).ok()?),
        Call::Glob(g) => Call::Glob(normalize_glob(&GlobRequest::from(&g)).ok()?),
        other => other,
    })
}

/// What a grep pattern is edited with: letters, the metacharacters of
/// §10, and what makes a class or a repetition.
const PATTERN_UNITS: [&str; 24] = [
    "a", "e", "n", "x", "A", ".", "*", "+", "?", "|", "(", ")", "[", "]", "{2}", "^", "$", "\\",
    "-", " ", "0", "\\w", "\\d", "_",
];

/// What a glob is edited with (§8).
const GLOB_UNITS: [&str; 16] = [
    "*", "**", "?", "/", "{", "}", ",", "!", "[", "]", "a", ".", "ts", "md", "-", "x",
];

/// Globs a grep call may gain.
const GLOBS: [&str; 10] = [
    "*.ts",
    "!*.md",
    "**/*.py",
    "*.{ts,js}",
    "!**/two/**",
    "one/**",
    "*",
    "**",
    "!*",
    "?*.txt",
];

/// Rules an ignore file may gain.
const RULES: [&str; 10] = [
    "*.md", "!*.md", "one/", "/root.ts", "**/two", "*.ts", "!keep*", "#comment", "a/**/b", "\\#x",
];

/// The call with one edit.
fn edit_call(call: &Call, files: &[GeneratedFile], draws: &mut Draws) -> Option<Call> {
    let mut call = call.clone();
    match &mut call {
        Call::Grep(g) => match draws.below(9) {
            0 => g.hidden = !g.hidden,
            1 => g.no_ignore = !g.no_ignore,
            2 => g.ignore_case = !g.ignore_case,
            3 => g.fixed_strings = !g.fixed_strings,
            4 => g.files_with_matches = !g.files_with_matches,
            5 => g.symbols = !g.symbols,
            6 => match draws.below(4) {
                0 => g.limit = 1 + draws.below(3) as u64,
                1 => g.max_count = [None, Some(1), Some(2)][draws.below(3)],
                2 => g.before_context = draws.below(4) as u64,
                _ => g.after_context = draws.below(4) as u64,
            },
            7 => edit_globs(&mut g.globs, files, draws),
            _ => g.pattern = edit_text(&g.pattern, &PATTERN_UNITS, files, draws),
        },
        Call::Glob(g) => match draws.below(5) {
            0 => g.hidden = !g.hidden,
            1 => g.no_ignore = !g.no_ignore,
            2 => g.limit = 1 + draws.below(3) as u64,
            3 => g.root = root_in(&g.root, files, draws),
            _ => g.pattern = edit_text(&g.pattern, &GLOB_UNITS, files, draws),
        },
        Call::FlowGrep(r) => match draws.below(6) {
            0 => r.hidden = Some(!r.hidden.unwrap_or(false)),
            1 => r.ignore_case = Some(!r.ignore_case.unwrap_or(false)),
            2 => r.fixed_strings = Some(!r.fixed_strings.unwrap_or(false)),
            3 => r.limit = Some(1 + draws.below(3) as u64),
            4 => edit_globs(r.globs.get_or_insert_with(Vec::new), files, draws),
            _ => r.pattern = edit_text(&r.pattern, &PATTERN_UNITS, files, draws),
        },
        Call::FlowGlob(r) => match draws.below(4) {
            0 => r.hidden = Some(!r.hidden.unwrap_or(false)),
            1 => r.no_ignore = Some(!r.no_ignore.unwrap_or(false)),
            2 => r.limit = Some(1 + draws.below(3) as u64),
            _ => r.pattern = edit_text(&r.pattern, &GLOB_UNITS, files, draws),
        },
        Call::Read(r) => match draws.below(2) {
            0 => r.offset = Some(1 + draws.below(4) as u64),
            _ => r.limit = Some(1 + draws.below(3) as u64),
        },
        Call::Ls(l) => match draws.below(2) {
            0 => l.offset = Some(1 + draws.below(4) as u64),
            _ => l.limit = Some(1 + draws.below(3) as u64),
        },
        #[cfg(unix)]
        Call::Bash(_) => return None,
    }
    Some(call)
}

/// `text` with one unit inserted, one removed, or one word of the tree
/// put in its place.
fn edit_text(text: &str, units: &[&str], files: &[GeneratedFile], draws: &mut Draws) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = draws.below(chars.len() + 1);
    let mut out: String = chars[..at].iter().collect();
    match draws.below(3) {
        0 => out.push_str(units[draws.below(units.len())]),
        1 if at < chars.len() => {
            // One character removed.
            out.extend(&chars[at + 1..]);
            return out;
        }
        _ => {
            // A word of the tree's text: what makes a pattern find something.
            if let Some(word) = word_of(files, draws) {
                return word;
            }
        }
    }
    out.extend(&chars[at..]);
    out
}

/// A word of some file's text.
fn word_of(files: &[GeneratedFile], draws: &mut Draws) -> Option<String> {
    let texts: Vec<&GeneratedFile> = files
        .iter()
        .filter(|f| f.kind == FileKind::File && !f.content.is_empty())
        .collect();
    let file = draws.pick(&texts)?;
    let text = String::from_utf8_lossy(&file.content);
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .collect();
    draws.pick(&words).map(|w| w.to_string())
}

/// A glob added or one taken away.
fn edit_globs(globs: &mut Vec<String>, files: &[GeneratedFile], draws: &mut Draws) {
    if !globs.is_empty() && draws.percent(40) {
        globs.remove(draws.below(globs.len()));
        return;
    }
    let glob = match draws.below(3) {
        // A directory of the tree, to reach under it or keep out of it.
        0 => files
            .iter()
            .filter_map(|f| f.path.rsplit_once('/').map(|(dir, _)| dir))
            .nth(draws.below(files.len().max(1)))
            .map(|dir| {
                if draws.percent(50) {
                    format!("{dir}/**")
                } else {
                    format!("!{dir}/**")
                }
            })
            .unwrap_or_else(|| GLOBS[0].to_string()),
        _ => GLOBS[draws.below(GLOBS.len())].to_string(),
    };
    globs.push(glob);
}

/// A directory of the tree under `root` (the symbolic root's own
/// children), or the root itself.
fn root_in(root: &str, files: &[GeneratedFile], draws: &mut Draws) -> String {
    let top = root.split('/').take(2).collect::<Vec<_>>().join("/");
    let dirs: Vec<&str> = files
        .iter()
        .filter_map(|f| f.path.rsplit_once('/').map(|(dir, _)| dir))
        .collect();
    match draws.pick(&dirs) {
        Some(dir) if draws.percent(70) => format!("{top}/{dir}"),
        _ => top,
    }
}

/// The tree with one edit.
fn edit_tree(files: &mut Vec<GeneratedFile>, call: &Call, ground: Ground, draws: &mut Draws) {
    let regular: Vec<usize> = (0..files.len())
        .filter(|&i| files[i].kind == FileKind::File)
        .collect();
    let Some(&i) = draws.pick(&regular) else {
        files.push(GeneratedFile::new("a.txt", "a\n"));
        return;
    };
    match draws.below(6) {
        0 if files.len() > 1 => {
            files.remove(i);
        }
        1 => {
            // A copy under another name: a digit, a capital, a dot, another
            // extension, another directory.
            let path = &files[i].path;
            let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
            let renamed = match draws.below(5) {
                0 => format!("{name}1"),
                1 => name.to_uppercase(),
                2 => format!(".{name}"),
                3 => format!("{}.md", name.split('.').next().unwrap_or(name)),
                _ => format!("x-{name}"),
            };
            let path = if dir.is_empty() || draws.percent(30) {
                renamed
            } else {
                format!("{dir}/{renamed}")
            };
            if !files.iter().any(|f| f.path == path) {
                let mut copy = files[i].clone();
                copy.path = path;
                files.push(copy);
            }
        }
        2 => {
            // A line the call's pattern (or another file) holds.
            let line = match call {
                Call::Grep(g) if !g.pattern.is_empty() => g.pattern.clone(),
                Call::FlowGrep(r) if !r.pattern.is_empty() => r.pattern.clone(),
                _ => "needle".to_string(),
            };
            let file = &mut files[i];
            if !file.content.ends_with(b"\n") && !file.content.is_empty() {
                file.content.push(b'\n');
            }
            file.content.extend_from_slice(line.as_bytes());
            file.content.push(b'\n');
        }
        3 => {
            // An ignore rule, at the root or beside the file.
            let rule = if draws.percent(40) {
                files[i].path.rsplit('/').next().unwrap_or("x").to_string()
            } else {
                RULES[draws.below(RULES.len())].to_string()
            };
            let dir = match files[i].path.rsplit_once('/') {
                Some((dir, _)) if draws.percent(50) => format!("{dir}/.gitignore"),
                _ => ".gitignore".to_string(),
            };
            match files.iter_mut().find(|f| f.path == dir) {
                Some(ignore) => {
                    ignore.content.extend_from_slice(rule.as_bytes());
                    ignore.content.push(b'\n');
                }
                None => files.push(GeneratedFile::new(dir, format!("{rule}\n"))),
            }
        }
        4 => {
            // A NUL byte: the file is binary (§11.1).
            let file = &mut files[i];
            let at = draws.below(file.content.len() + 1);
            file.content.insert(at, 0);
        }
        _ if ground == Ground::Full => {
            // CRLF line ends (the full ground's).
            let file = &mut files[i];
            let text = String::from_utf8_lossy(&file.content).replace('\n', "\r\n");
            file.content = text.into_bytes();
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kit::lawsuite::{GeneratorOptions, plan};

    /// A lineage replays to the same plan; every mutant's call is one
    /// validation hands a peer, and its tree can be written.
    #[test]
    fn mutants_replay_and_stay_inside_the_contract() {
        let origin = Origin {
            sequence: "lawsuite".into(),
            seed: 5,
            call: 2,
            mutations: Vec::new(),
        };
        let base = origin.plan("/r").unwrap();
        let mut seen = 0;
        for m in (0..200u64).map(|i| (i / 8) << 8 | (i % 8)) {
            let Some(mutant) = mutate(&base, m) else {
                continue;
            };
            seen += 1;
            let call = mutant.calls().remove(0);
            assert_ne!(
                call.validation(),
                crate::call::Validation::NotForTheSeam,
                "{call:?}"
            );
            crate::kit::materialize::validate(&mutant.files).unwrap();
            assert_eq!(origin.then(m).plan("/r"), Some(mutant));
        }
        assert!(seen > 120, "{seen} mutants of 200 draws");
        // A batch is its mutants, asked together on their one tree.
        let (batch, names) = mutate_batch(&base, 3, BATCH).unwrap();
        assert_eq!(batch.call_count(), names.len());
        assert!(names.len() > BATCH / 2);
        for (call, m) in batch.calls().into_iter().zip(&names) {
            let alone = mutate(&base, *m).unwrap();
            assert_eq!(alone.files, batch.files);
            assert_eq!(alone.calls(), [call]);
        }
    }

    /// A lineage of `MAX_LINEAGE - 1` edits grows by one; one of
    /// `MAX_LINEAGE` starts again from its call: no kept mutant carries
    /// more than `MAX_LINEAGE` edits.
    #[test]
    fn a_lineage_stays_within_its_bound() {
        let origin = |edits: usize| Origin {
            sequence: "lawsuite".into(),
            seed: 5,
            call: 2,
            mutations: (0..edits as u64).collect(),
        };
        let below = origin(MAX_LINEAGE - 1).to_mutate().then(99);
        assert_eq!(below.mutations.len(), MAX_LINEAGE);
        let at = origin(MAX_LINEAGE).to_mutate().then(99);
        assert_eq!(at.mutations, [99]);
        assert_eq!((at.sequence.as_str(), at.seed, at.call), ("lawsuite", 5, 2));
    }

    /// The shared ground never gets CRLF from an edit.
    #[test]
    fn the_shared_ground_keeps_its_line_ends() {
        let base = plan(8, "/r", &GeneratorOptions::default()).only_call(0);
        let mut chain = base.clone();
        for m in 0..300u64 {
            if let Some(next) = mutate(&chain, m) {
                chain = next;
            }
        }
        assert!(
            chain
                .files
                .iter()
                .all(|f| !f.content.windows(2).any(|w| w == b"\r\n")),
            "CRLF on the shared ground"
        );
    }
}
