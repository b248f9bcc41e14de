//! A differential over a real directory, searched in place (`lawsuite
//! differ`): many calls drawn from the tree's own words, extensions and
//! directories, run through a reference and any number of subjects, and
//! counted.
//!
//! Generated plans ([`super::lawsuite`]) reach the contract's corners on
//! small trees; a real tree holds what no generator thought of: executables
//! and shared objects, megabyte sources, thousands of files. A draw here is
//! a seam call (`grep` or `glob`, as in a plan) of one of these shapes:
//!
//! * `grep` with a pattern taken from the tree: a word as a fixed string,
//!   as a regex, case-insensitive (another case of the word), smart case,
//!   two words as an alternation, a word in a regex template (a whole
//!   word, a call `W *\(`, ...), or one of a few patterns that need no word
//!   (`^$`, `[^ -~]`, `^ *//`, ...); with globs built from a file under the
//!   root (its extension, directory or name), context, `maxCount`,
//!   `filesWithMatches`, `hidden`, `noIgnore`, `symbols` and a limit drawn
//!   independently;
//! * `glob` with a pattern built the same way;
//! * roots: the directory itself, a subdirectory, or a file (an explicit
//!   file root, binary ones included).
//!
//! Every call is one the flow layer could hand a peer (search-contract §3,
//! §5): its pattern passes [`validate_pattern`], its globs
//! [`validate_glob`], its limit is within the cap. A call outside the
//! contract is refused before any peer is asked, so it compares nothing;
//! unlike a generated plan, which draws refused patterns on purpose to
//! test the validator, a real tree is for the peers' searching. So the
//! templates are spelt in the grammar (no `\b`, `\s`, `\w`, `\t` or
//! non-ASCII text, §10), words are identifier-like, and a glob is built
//! only from names the glob grammar can spell (printable ASCII without
//! `\`, `[`, `]`, `{` or `}`, §8.1).
//!
//! Every answer is compared with the reference's as in a plan
//! ([`super::compare::answer_all`]: values, failures by code), and each
//! subject's is counted as an agreement, a *documented* difference (one
//! that the known differences of the built-in it is registered as predict
//! exactly, [`super::explain`] and [`crate::differences`]; on a tree
//! searched in place only the recognisers that rewrite the call can
//! predict) or a divergence.
//!
//! Nothing is written in the tree: the survey reads (the contract's own
//! walk, and the first bytes of a sample of files), and so do the peers.
//! The survey's sample and the draws come from ChaCha8 seeded with the
//! run's seed, so the same tree, seed and count give the same calls.
//!
//! ```no_run
//! use std::sync::Arc;
//! use lawsuite::kit::real_tree::{Survey, draw, run};
//! use lawsuite::peer::{Builtin, Subject};
//! use lawsuite::portable::Portable;
//! use lawsuite::ripgrep::Ripgrep;
//!
//! let survey = Survey::of("/home/me/src", 7)?;
//! let calls = draw(&survey, 7, 500);
//! let reference = Subject::new("portable", Portable::default());
//! // A built-in's documented differences are recognised, as on seeds.
//! let rg = Subject::from_builtin("ripgrep", Builtin::Ripgrep, Arc::new(Ripgrep::default()));
//! let tally = run(&calls, &reference, &[rg], &mut |_| {});
//! println!("{}", tally.summary());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io::Read;

use serde::Serialize;

use super::answer::Answer;
use super::compare::{Compared, PeerAnswer, answer_all, difference_kind};
use super::draws::Draws;
use crate::call::Call;
use crate::contract::glob::GlobList;
#[cfg(doc)]
use crate::contract::validate_pattern;
use crate::contract::{
    GlobInput, GrepInput, MAX_ENTRIES, MAX_GREP_MATCHES, StdError, join_path, validate_glob,
};
use crate::peer::Subject;
use crate::portable::walk::{self, WalkOptions};

/// How many files the survey reads words from.
const SAMPLE_FILES: usize = 400;
/// How much of each sampled file it reads: words come from the top.
const SAMPLE_BYTES: u64 = 16 * 1024;
/// The most distinct words it keeps (the first in sorted order).
const MAX_WORDS: usize = 20_000;
/// How many divergent calls a tally keeps whole; the rest are counted.
pub const KEPT_DIVERGENCES: usize = 100;

/// Why a directory cannot be surveyed.
#[derive(Debug)]
pub enum SurveyError {
    /// The path is not a directory that can be read.
    NotADirectory {
        /// The path as given.
        path: String,
        /// What the filesystem said.
        why: String,
    },
    /// The contract's walk refused the root.
    Walk(StdError),
    /// The walk found no file to draw calls from.
    Empty {
        /// The path as given.
        path: String,
    },
}

impl fmt::Display for SurveyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SurveyError::NotADirectory { path, why } => write!(
                f,
                "{path} is not a directory that can be read ({why}); name an existing directory"
            ),
            SurveyError::Walk(e) => write!(f, "the walk refused the directory: {e}"),
            SurveyError::Empty { path } => write!(
                f,
                "the walk of {path} found no file (hidden, ignored and skip-listed names are left out); name a directory holding files"
            ),
        }
    }
}

impl std::error::Error for SurveyError {}

/// What a directory holds, as far as drawing calls needs: its candidate
/// files (the contract's walk, hidden and ignored files left out), the
/// directories holding them, their extensions and the words of a sample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Survey {
    /// The directory, as given.
    pub root: String,
    /// Candidate files, relative to the root, in the walk's order.
    pub files: Vec<String>,
    /// Directories holding a candidate at any depth, relative, sorted.
    pub dirs: Vec<String>,
    /// Extensions (without the dot) of the candidates, sorted.
    pub extensions: Vec<String>,
    /// Identifier-like words (4 to 24 ASCII letters, digits and `_`,
    /// not starting with a digit) of the sampled files, sorted.
    pub words: Vec<String>,
}

impl Survey {
    /// Survey the directory `root` (read only), sampling files with
    /// ChaCha8 seeded with `seed`.
    pub fn of(root: &str, seed: u64) -> Result<Survey, SurveyError> {
        let not_a_dir = |why: String| SurveyError::NotADirectory {
            path: root.to_string(),
            why,
        };
        let meta = std::fs::metadata(root).map_err(|e| not_a_dir(e.to_string()))?;
        if !meta.is_dir() {
            return Err(not_a_dir("it is not a directory".to_string()));
        }
        let globs = GlobList::new(&[]).map_err(SurveyError::Walk)?;
        let walked = walk::walk(&WalkOptions {
            root,
            hidden: false,
            no_ignore: false,
            globs: &globs,
        })
        .map_err(SurveyError::Walk)?;
        if walked.candidates.is_empty() {
            return Err(SurveyError::Empty {
                path: root.to_string(),
            });
        }
        let mut dirs = BTreeSet::new();
        let mut extensions = BTreeSet::new();
        for c in &walked.candidates {
            dirs.extend(
                c.relative
                    .match_indices('/')
                    .map(|(at, _)| &c.relative[..at]),
            );
            if let Some(ext) = extension(&c.relative) {
                extensions.insert(ext);
            }
        }
        let mut draws = Draws::seeded(seed);
        let mut words = BTreeSet::new();
        // A partial Fisher-Yates shuffle: distinct files, every file of a
        // small tree.
        let mut order: Vec<usize> = (0..walked.candidates.len()).collect();
        for i in 0..SAMPLE_FILES.min(order.len()) {
            let j = i + draws.below(order.len() - i);
            order.swap(i, j);
            let file = &walked.candidates[order[i]];
            // An unreadable file or a binary one gives no words.
            let mut head = Vec::new();
            let read = crate::regular_file::open(&file.fs_path)
                .and_then(|f| f.take(SAMPLE_BYTES).read_to_end(&mut head));
            if read.is_ok() && memchr::memchr(0, &head).is_none() {
                words.extend(tokens(&head));
            }
        }
        Ok(Survey {
            root: root.to_string(),
            dirs: dirs.into_iter().map(str::to_string).collect(),
            extensions: extensions.into_iter().map(str::to_string).collect(),
            words: words.into_iter().take(MAX_WORDS).collect(),
            files: walked.candidates.into_iter().map(|c| c.relative).collect(),
        })
    }
}

/// The extension of a relative path's base name, if it has one (a leading
/// dot does not start one).
fn extension(path: &str) -> Option<&str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rfind('.') {
        Some(at) if at > 0 && at + 1 < name.len() => Some(&name[at + 1..]),
        _ => None,
    }
}

/// Identifier-like words of `bytes` (see [`Survey::words`]).
fn tokens(bytes: &[u8]) -> impl Iterator<Item = String> + '_ {
    bytes
        .split(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .filter(|w| is_word(w))
        // ASCII by construction.
        .map(|w| String::from_utf8_lossy(w).into_owned())
}

/// Is `w` identifier-like (see [`Survey::words`])? Such a word is a valid
/// pattern as it is, inside a template too: no metacharacter, printable
/// ASCII (§10).
fn is_word(w: &[u8]) -> bool {
    (4..=24).contains(&w.len())
        && !w[0].is_ascii_digit()
        && w.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

/// Can a glob hold `name` as it is? Printable ASCII without the escapes,
/// classes and braces §8.1 refuses.
fn spellable(name: &str) -> bool {
    name.bytes()
        .all(|b| (0x20..=0x7e).contains(&b) && !matches!(b, b'\\' | b'[' | b']' | b'{' | b'}'))
}

/// Patterns that need no word of the tree: the ones that found the large
/// binary overflow (`^$`, `[^ -~]`), indentation and trailing spaces,
/// digits, comments, runs of non-ASCII characters. The grammar has no
/// `\s` or `\t` and no non-ASCII text (§10): spaces stand for whitespace,
/// and `[^ -~]` for tabs and any non-ASCII character.
const WORDLESS: [&str; 10] = [
    "^$",
    "[^ -~]",
    "^    ",
    "TODO|FIXME",
    "^#",
    "[0-9]{4}",
    " +$",
    "^ *//",
    "fn [a-z_]+\\(",
    "[^ -~]{2}",
];

/// Regex templates; `{W}` and `{V}` stand for two words of the tree (no
/// word holds a brace, so putting one in never makes another marker). A
/// class spells what `\w` would (§10 has no shorthand classes), and a
/// whole word is one between non-word characters or the line's ends
/// (there is no `\b`).
const TEMPLATES: [&str; 8] = [
    "(^|[^A-Za-z0-9_]){W}([^A-Za-z0-9_]|$)",
    "{W} *\\(",
    "^ *{W}",
    "{W}[0-9]+",
    "{W}.*{V}",
    "{W}[A-Za-z0-9_]*",
    "({W}|{V})\\.",
    "[A-Z]{W}",
];

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum PatternKind {
    #[default]
    Literal,
    Word,
    IgnoreCase,
    SmartCase,
    Alternation,
    Template,
    Wordless,
}

/// Weights of the pattern kinds, in percent.
const PATTERN_KINDS: [(usize, PatternKind); 7] = [
    (20, PatternKind::Literal),
    (15, PatternKind::Word),
    (10, PatternKind::IgnoreCase),
    (10, PatternKind::SmartCase),
    (10, PatternKind::Alternation),
    (20, PatternKind::Template),
    (15, PatternKind::Wordless),
];

/// Limits a grep is given: small ones exercise truncation, the largest
/// (the flow layer's cap, §4) returns every hit of many calls.
const GREP_LIMITS: [u64; 4] = [1, 10, 50, MAX_GREP_MATCHES];
/// Limits a glob is given, up to its cap (§5).
const GLOB_LIMITS: [u64; 5] = [1, 10, 50, 200, MAX_ENTRIES];

/// `count` calls over `survey`, drawn with ChaCha8 seeded with `seed`:
/// three in four `grep`, one in four `glob` (module doc), every one inside
/// the contract.
pub fn draw(survey: &Survey, seed: u64, count: usize) -> Vec<Call> {
    let names = Names::of(survey);
    // Another stream than the survey's sample, from the same seed.
    let mut draws = Draws::seeded(seed ^ 0x5eed_ca11);
    (0..count)
        .map(|_| {
            if draws.percent(75) {
                Call::Grep(grep_call(&mut draws, &names))
            } else {
                Call::Glob(glob_call(&mut draws, &names))
            }
        })
        .collect()
}

/// What calls are drawn from: the survey, with the words and extensions a
/// pattern or a glob can hold. [`Survey::of`] finds only such words, but
/// a survey's fields are public; filtering here keeps every draw in the
/// contract whoever built the survey.
struct Names<'a> {
    survey: &'a Survey,
    words: Vec<&'a str>,
    extensions: Vec<&'a str>,
}

impl<'a> Names<'a> {
    fn of(survey: &'a Survey) -> Names<'a> {
        Names {
            survey,
            words: survey
                .words
                .iter()
                .map(String::as_str)
                .filter(|w| is_word(w.as_bytes()))
                .collect(),
            extensions: survey
                .extensions
                .iter()
                .map(String::as_str)
                .filter(|e| spellable(e))
                .collect(),
        }
    }

    /// A word of the tree (`main` if the sample found none).
    fn word(&self, d: &mut Draws) -> String {
        d.pick(&self.words).map_or("main", |w| w).to_string()
    }
}

fn grep_call(d: &mut Draws, n: &Names<'_>) -> GrepInput {
    let (root, under) = root(d, n.survey);
    let mut input = GrepInput::new("", root);
    input.pattern = match d.weighted(&PATTERN_KINDS) {
        PatternKind::Literal => {
            input.fixed_strings = true;
            n.word(d)
        }
        PatternKind::Word => n.word(d),
        PatternKind::IgnoreCase => {
            input.ignore_case = true;
            let w = n.word(d);
            if d.percent(50) {
                w.to_uppercase()
            } else {
                w.to_lowercase()
            }
        }
        PatternKind::SmartCase => {
            input.smart_case = true;
            let w = n.word(d);
            if d.percent(50) { w.to_lowercase() } else { w }
        }
        PatternKind::Alternation => format!("{}|{}", n.word(d), n.word(d)),
        PatternKind::Template => {
            let template = d.pick(&TEMPLATES).copied().unwrap_or("{W}");
            let (w, v) = (n.word(d), n.word(d));
            template.replace("{W}", &w).replace("{V}", &v)
        }
        PatternKind::Wordless => d.pick(&WORDLESS).copied().unwrap_or("^$").to_string(),
    };
    if d.percent(25) {
        let count = 1 + d.below(2);
        input.globs = (0..count).map(|_| glob_text(d, n, &under)).collect();
    }
    if d.percent(25) {
        input.before_context = d.below(4) as u64;
        input.after_context = d.below(4) as u64;
    }
    if d.percent(15) {
        input.max_count = Some(1 + d.below(3) as u64);
    }
    input.files_with_matches = d.percent(15);
    input.hidden = d.percent(10);
    input.no_ignore = d.percent(10);
    input.symbols = d.percent(20);
    input.limit = d.pick(&GREP_LIMITS).copied().unwrap_or(MAX_GREP_MATCHES);
    input
}

fn glob_call(d: &mut Draws, n: &Names<'_>) -> GlobInput {
    let (root, under) = root(d, n.survey);
    let pattern = glob_text(d, n, &under);
    let mut input = GlobInput::new(pattern, root);
    input.hidden = d.percent(10);
    input.no_ignore = d.percent(10);
    input.limit = d.pick(&GLOB_LIMITS).copied().unwrap_or(200);
    input
}

/// A root (the directory, one in seven calls; a subdirectory; or a file,
/// one in seven) and the candidates under it that a glob can spell,
/// relative to it. Any root is in the contract, whatever its name.
fn root(d: &mut Draws, s: &Survey) -> (String, Vec<String>) {
    let at = d.below(7);
    let relative = match at {
        0 => String::new(),
        6 => d.pick(&s.files).cloned().unwrap_or_default(),
        _ => d.pick(&s.dirs).cloned().unwrap_or_default(),
    };
    let prefix = format!("{relative}/");
    let under = s
        .files
        .iter()
        .filter_map(|f| match relative.as_str() {
            "" => Some(f.as_str()),
            _ => f.strip_prefix(&prefix),
        })
        .filter(|f| spellable(f))
        .map(str::to_string)
        .collect();
    if relative.is_empty() {
        return (s.root.clone(), under);
    }
    (join_path(&s.root, &relative), under)
}

/// A glob built from a file under the call's root (`under`): its
/// extension, directory or name; `*` when the root holds no candidate.
fn glob_text(d: &mut Draws, n: &Names<'_>, under: &[String]) -> String {
    let form = d.below(10);
    let Some(file) = d.pick(under) else {
        return "*".to_string();
    };
    let ext = extension(file).unwrap_or("rs");
    let (dir, name) = match file.rfind('/') {
        Some(at) => (Some(&file[..at]), &file[at + 1..]),
        None => (None, file.as_str()),
    };
    let other = d.pick(&n.extensions).map_or("toml", |e| e);
    let glob = match (form, dir) {
        (0, _) => format!("*.{ext}"),
        (1, _) => format!("**/*.{ext}"),
        (2, Some(dir)) => format!("{dir}/**"),
        (3, Some(dir)) => format!("{dir}/*.{ext}"),
        (4, _) => {
            let stem: String = name.chars().take(3).collect();
            format!("*{stem}*")
        }
        (5, _) => format!("{{*.{ext},*.{other}}}"),
        (6, _) => name.to_string(),
        (7, _) => format!("!*.{ext}"),
        (8, Some(dir)) => {
            let last = dir.rsplit('/').next().unwrap_or(dir);
            format!("**/{last}/**")
        }
        _ => format!("*.{other}"),
    };
    // A spellable name can still make a refused glob: a name of spaces, or
    // `!` alone, is empty once trailing spaces or the exclusion are taken
    // off (§8.1). Those few calls list everything instead.
    match validate_glob(&glob) {
        Ok(()) => glob,
        Err(_) => "*".to_string(),
    }
}

/// One subject's counts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PeerTally {
    /// The subject's name.
    pub peer: String,
    /// Calls it was asked (those whose method it supports).
    pub asked: usize,
    /// Calls it answered as the reference did.
    pub agree: usize,
    /// Calls where it differed in a way it documents, by listed difference.
    pub documented: BTreeMap<String, usize>,
    /// Calls where it differed and nothing explains it.
    pub divergent: usize,
    /// Those calls by kind of difference ([`difference_kind`]: the error
    /// codes, or which fields differ and how).
    pub divergent_kinds: BTreeMap<String, usize>,
}

impl PeerTally {
    /// All documented differences.
    pub fn documented_total(&self) -> usize {
        self.documented.values().sum()
    }
}

/// A call on which some subject diverged, with every answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Divergent {
    /// The call's index in the drawn list.
    pub index: usize,
    /// The call.
    pub call: Call,
    /// Every answer, the reference's first.
    pub answers: Vec<PeerAnswer>,
}

/// The counts of a run; as JSON its keys are camelCase, like every other
/// output's (`divergentCalls`, `divergentKinds`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Tally {
    /// The reference's name.
    pub reference: String,
    /// Calls run.
    pub calls: usize,
    /// Per subject, in the order given.
    pub peers: Vec<PeerTally>,
    /// Calls on which a subject diverged (unexplained).
    pub divergent_calls: usize,
    /// The first [`KEPT_DIVERGENCES`] of them, whole.
    pub divergences: Vec<Divergent>,
}

impl Tally {
    /// Did any subject diverge?
    pub fn has_divergence(&self) -> bool {
        self.divergent_calls > 0
    }

    /// One line per subject: `ripgrep: 1990 agree, 4 documented, 6 divergent (of 2000)`,
    /// the documented differences by name, and the divergences by kind,
    /// the commonest first.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        for p in &self.peers {
            out.push_str(&format!(
                "{}: {} agree, {} documented, {} divergent (of {} calls asked; reference {})\n",
                p.peer,
                p.agree,
                p.documented_total(),
                p.divergent,
                p.asked,
                self.reference
            ));
            for (case, n) in &p.documented {
                out.push_str(&format!("  documented {case}: {n}\n"));
            }
            let mut kinds: Vec<(&String, &usize)> = p.divergent_kinds.iter().collect();
            kinds.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            for (kind, n) in kinds {
                out.push_str(&format!("  divergent {n}: {kind}\n"));
            }
        }
        out
    }
}

/// Run every call through `reference` and `subjects`, in order, reporting
/// each finished call's index to `progress`; count the verdicts. Each call
/// goes through the seeds' call loop ([`answer_all`]): a subject is asked
/// only what it supports, and only a built-in's documented differences
/// explain an answer.
pub fn run(
    calls: &[Call],
    reference: &Subject,
    subjects: &[Subject],
    progress: &mut dyn FnMut(usize),
) -> Tally {
    let reference = reference.peer().as_ref();
    let subjects: Vec<Compared<'_>> = subjects.iter().map(Compared::from).collect();
    let subjects = subjects.as_slice();
    let mut tally = Tally {
        reference: reference.name().to_string(),
        peers: subjects
            .iter()
            .map(|s| PeerTally {
                peer: s.peer.name().to_string(),
                ..PeerTally::default()
            })
            .collect(),
        ..Tally::default()
    };
    for (index, call) in calls.iter().enumerate() {
        tally.calls += 1;
        // A tree searched in place needs no rebasing: answers are asked as is.
        let Some(answers) = answer_all(call, reference, subjects, Answer::of, None) else {
            progress(index);
            continue;
        };
        let mut diverged = false;
        if let Some((expected, rest)) = answers.split_first() {
            // The answers after the reference's are those of the subjects
            // that support the method, in order (names may repeat).
            let asked = (0..subjects.len()).filter(|&i| subjects[i].peer.supports(call.method()));
            for (i, got) in asked.zip(rest) {
                let counts = &mut tally.peers[i];
                counts.asked += 1;
                if got.answer.agrees(&expected.answer) {
                    counts.agree += 1;
                } else if let Some(case) = &got.explained {
                    *counts.documented.entry(case.clone()).or_default() += 1;
                } else {
                    counts.divergent += 1;
                    let kind = difference_kind(&expected.answer, &got.answer)
                        .unwrap_or_else(|| "differs".to_string());
                    *counts.divergent_kinds.entry(kind).or_default() += 1;
                    diverged = true;
                }
            }
        }
        if diverged {
            tally.divergent_calls += 1;
            if tally.divergences.len() < KEPT_DIVERGENCES {
                tally.divergences.push(Divergent {
                    index,
                    call: call.clone(),
                    answers,
                });
            }
        }
        progress(index);
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;

    fn survey() -> Survey {
        Survey {
            root: "/r".into(),
            files: vec!["a.rs".into(), "src/lib.rs".into(), "src/x/y.toml".into()],
            dirs: vec!["src".into(), "src/x".into()],
            extensions: vec!["rs".into(), "toml".into()],
            words: vec!["alpha".into(), "beta_two".into(), "Gamma".into()],
        }
    }

    #[test]
    fn draws_are_reproducible_and_stay_under_the_root() {
        let s = survey();
        let a = draw(&s, 3, 300);
        assert_eq!(a, draw(&s, 3, 300));
        assert_ne!(a, draw(&s, 4, 300));
        assert!(
            a.iter()
                .all(|c| c.root() == "/r" || c.root().starts_with("/r/"))
        );
        assert!(a.iter().any(|c| matches!(c, Call::Glob(_))));
        assert!(a.iter().any(|c| c.root() == "/r/src/lib.rs"));
    }

    #[test]
    fn a_survey_reads_the_tree_and_a_run_counts_each_subject() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "pub fn needle_one() {}\n").unwrap();
        std::fs::write(dir.path().join("b.bin"), "needle\0\n").unwrap();
        std::fs::write(dir.path().join(".hidden"), "secret_word\n").unwrap();
        let root = dir.path().to_str().unwrap();
        let s = Survey::of(root, 1).unwrap();
        assert_eq!(s.files, ["b.bin", "src/lib.rs"]);
        assert_eq!(s.dirs, ["src"]);
        assert_eq!(s.extensions, ["bin", "rs"]);
        // The binary and the hidden file give no words.
        assert_eq!(s.words, ["needle_one"]);

        let calls = draw(&s, 1, 40);
        let noop = Subject::new("noop", crate::peer::Noop);
        let same = Subject::new("portable", crate::portable::Portable::default());
        let tally = run(&calls, &same, &[same.clone(), noop], &mut |_| {});
        assert_eq!(tally.calls, 40);
        assert_eq!((tally.peers[0].agree, tally.peers[0].divergent), (40, 0));
        assert_eq!((tally.peers[1].agree, tally.peers[1].divergent), (0, 40));
        assert_eq!(tally.divergent_calls, 40);
        // The reference may fail too (a file root of a glob); every kind
        // is `error code ... vs ...`, and they add up.
        let kinds = &tally.peers[1].divergent_kinds;
        assert_eq!(kinds.values().sum::<usize>(), 40, "{kinds:?}");
        assert!(
            kinds.keys().all(|k| k.starts_with("error code ")),
            "{kinds:?}"
        );
        assert!(
            tally.summary().contains("  divergent "),
            "{}",
            tally.summary()
        );
        assert_eq!(tally.divergences.len(), 40);
        assert!(tally.has_divergence());

        let missing = dir.path().join("nope");
        let err = Survey::of(missing.to_str().unwrap(), 1).unwrap_err();
        assert!(matches!(err, SurveyError::NotADirectory { .. }), "{err}");
    }

    /// The drawn calls the flow layer would refuse (§3, §5), as
    /// `(call, why)`.
    fn outside_the_contract(calls: &[Call]) -> Vec<(String, String)> {
        use crate::contract::validate_pattern;

        let mut out = Vec::new();
        for call in calls {
            let refused = match call {
                Call::Grep(g) => validate_pattern(&g.pattern, g.fixed_strings)
                    .err()
                    .or_else(|| g.globs.iter().find_map(|glob| validate_glob(glob).err()))
                    .map(|e| e.message)
                    .or_else(|| (g.limit > MAX_GREP_MATCHES).then(|| "limit".to_string())),
                Call::Glob(g) => validate_glob(&g.pattern)
                    .err()
                    .map(|e| e.message)
                    .or_else(|| (g.limit > MAX_ENTRIES).then(|| "limit".to_string())),
                _ => None,
            };
            if let Some(why) = refused {
                out.push((format!("{call:?}"), why));
            }
        }
        out
    }

    #[test]
    fn every_drawn_call_is_inside_the_contract() {
        let dir = tempfile::tempdir().unwrap();
        let files: [(&str, &str); 9] = [
            ("src/lib.rs", "pub fn naïve_café() {}\n\tlet résumé = 1;\n"),
            ("src/données/été.rs", "struct Größe; // 日本語 TODO\n"),
            (
                "docs/naïve notes.md",
                "# Café\n\nwords: Ünïcödé, plain_word\n",
            ),
            ("a[1].txt", "bracket_name\n"),
            ("x{y}.md", "brace_name\n"),
            ("back\\slash.txt", "backslash_name\n"),
            ("a,b.toml", "comma_name = 1\n"),
            ("   ", "spaces_only\n"),
            ("日本/語.txt", "日本語 only\n"),
        ];
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let root = dir.path().to_str().unwrap();
        for seed in 0..6 {
            let s = Survey::of(root, seed).unwrap();
            assert!(s.files.iter().any(|f| !f.is_ascii()), "{s:?}");
            let calls = draw(&s, seed, 800);
            let outside = outside_the_contract(&calls);
            assert!(
                outside.is_empty(),
                "seed {seed}: {} of {} calls outside the contract, the first: {:?}",
                outside.len(),
                calls.len(),
                &outside[..outside.len().min(5)]
            );
        }
        // A survey built by hand may hold any word; none reaches a pattern.
        let mut s = survey();
        s.words = vec!["café".into(), "a b".into(), "x(y".into(), "日本".into()];
        s.extensions = vec!["é".into(), "{a".into()];
        assert_eq!(outside_the_contract(&draw(&s, 9, 800)), []);
    }

    #[test]
    fn words_and_extensions() {
        let words: Vec<String> = tokens(b"fn main() { let x_1 = 2abc + foo_bar; }").collect();
        assert_eq!(words, ["main", "foo_bar"]);
        assert_eq!(extension("a/b.tar.gz"), Some("gz"));
        assert_eq!(extension("a/.hidden"), None);
        assert_eq!(extension("a.d/Makefile"), None);
    }
}
