//! Shrinking a divergent case to a minimal tree and call that still
//! diverges in the same way, as proptest and delta debugging shrink a
//! failing input.
//!
//! **Deterministic.** Shrinking is bounded by steps (predicate
//! evaluations), never by time: the same divergence shrinks to the same
//! case on any machine at any load. A caller that must stop early (a
//! campaign's deadline, an interrupt) says so through the predicate
//! ([`Judged::Stop`]); the answers given so far are kept
//! ([`Decisions`]), and [`resume`] replays them without asking again, then
//! goes on, so a shrink cut in two ends where an uncut one does.
//!
//! **1-minimal.** The passes, repeated until a whole round changes
//! nothing: remove runs of files (all of them, halves, quarters, … one at a
//! time, as delta debugging does), reset call fields to their defaults and
//! lower its numbers, remove runs of the grep globs and of each glob's
//! characters, of the pattern's characters, and of each file's lines and
//! then characters (bytes for a file that is not UTF-8; line terminators
//! are characters too). A round that changes nothing has tried removing
//! every single file, glob, line and character of the case it ends with,
//! so when shrinking ends by itself ([`Ended::Minimal`]) none of them can
//! go and the bug stay.
//!
//! **The same bug.** As proptest keeps the *same* failure while it
//! shrinks, a candidate is kept only when its call is one validation
//! treats as it treats the original's ([`Call::validation`]: a seam call
//! stays one a flow would send, a refused flow call stays refused with the
//! same code) and the predicate says it is the same bug. The kit's
//! predicate is "the peers still differ in the same way"
//! ([`super::regression::shrink_to_regression`],
//! [`super::difference::Difference::keeps`]), so a peer that lists an
//! ignored file never shrinks to an empty glob the flow refuses, which
//! fails for another reason.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};

use super::plan::GeneratedFile;
use crate::call::Call;

/// A self-contained case: a tree under a symbolic root and one call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Case {
    /// The symbolic root the call's `root` is spelled with.
    pub root: String,
    /// The tree.
    pub files: Vec<GeneratedFile>,
    /// The call.
    pub call: Call,
}

/// How far shrinking may go: predicate evaluations at most.
///
/// The default ([`DEFAULT_STEPS`]) takes a generated tree of a few dozen
/// files and tens of kilobytes to one file and one line with room to
/// spare; a bigger case says so when the bound stops it
/// ([`Ended::StepBound`]), and the same shrink with a higher bound goes on
/// from where it stopped (it is deterministic: the first steps are the
/// same).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Predicate evaluations at most.
    pub steps: usize,
}

/// The default bound of [`Budget`]: predicate evaluations of one shrink.
pub const DEFAULT_STEPS: usize = 4_000;

impl Default for Budget {
    fn default() -> Self {
        Budget {
            steps: DEFAULT_STEPS,
        }
    }
}

/// What the predicate says of one candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judged {
    /// The same bug: the candidate is kept.
    SameBug,
    /// Not the same bug (or none at all): the candidate is dropped.
    Other,
    /// No answer: the caller must stop (a deadline, an interrupt). The
    /// candidate is neither kept nor recorded, and shrinking ends at once.
    Stop,
}

impl From<bool> for Judged {
    fn from(same: bool) -> Judged {
        if same { Judged::SameBug } else { Judged::Other }
    }
}

/// How a shrink ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Ended {
    /// A whole round changed nothing: no single file, glob, line or
    /// character can be removed, nor a call field reset, and keep the bug.
    Minimal,
    /// The step bound stopped it; a higher bound goes on.
    StepBound,
    /// The predicate said [`Judged::Stop`]; [`resume`] goes on.
    Stopped,
}

/// The predicate's answers of one shrink, in order: what [`resume`]
/// replays. Written as `count:hex` (one bit an answer), a few hundred
/// bytes for a whole shrink.
///
/// ```
/// use lawsuite::kit::shrink::Decisions;
/// let d: Decisions = "5:0d".parse().unwrap();
/// assert_eq!(d.len(), 5);
/// assert_eq!(d.to_string(), "5:0d");
/// assert!("5:zz".parse::<Decisions>().is_err());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decisions(Vec<bool>);

impl Decisions {
    /// How many answers it holds.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::fmt::Display for Decisions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:", self.0.len())?;
        for chunk in self.0.chunks(8) {
            let byte = chunk
                .iter()
                .enumerate()
                .fold(0u8, |b, (i, &bit)| b | (u8::from(bit) << i));
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

/// A [`Decisions`] text that is not one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadDecisions(pub String);

impl std::fmt::Display for BadDecisions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} is not a shrink's decisions (count:hex)", self.0)
    }
}

impl std::error::Error for BadDecisions {}

impl std::str::FromStr for Decisions {
    type Err = BadDecisions;

    fn from_str(text: &str) -> Result<Decisions, BadDecisions> {
        let bad = || BadDecisions(text.to_string());
        let (count, hex) = text.split_once(':').ok_or_else(bad)?;
        let count: usize = count.parse().map_err(|_| bad())?;
        if hex.len() != count.div_ceil(8) * 2 || !hex.is_ascii() {
            return Err(bad());
        }
        let mut bits = Vec::with_capacity(count);
        for i in 0..hex.len() / 2 {
            let byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
            for bit in 0..8 {
                if bits.len() < count {
                    bits.push(byte & (1 << bit) != 0);
                }
            }
        }
        Ok(Decisions(bits))
    }
}

impl Serialize for Decisions {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Decisions {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Decisions, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// What a shrink found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shrunk {
    /// The smallest case that is still the same bug.
    pub case: Case,
    /// Predicate evaluations spent (replayed ones included).
    pub steps: usize,
    /// How it ended.
    pub ended: Ended,
    /// Every answer of the predicate, for [`resume`].
    pub decisions: Decisions,
}

/// Shrink `case` while `judge` says it is the same bug and its call
/// validates as the original's does.
///
/// ```
/// use lawsuite::call::Call;
/// use lawsuite::contract::GrepInput;
/// use lawsuite::kit::plan::GeneratedFile;
/// use lawsuite::kit::shrink::{shrink, Budget, Case, Ended, Judged};
///
/// let case = Case {
///     root: "/r".into(),
///     files: vec![GeneratedFile::new("a.txt", "one\nthe needle\n"), GeneratedFile::new("b.txt", "two\n")],
///     call: Call::Grep(GrepInput::new("needle", "/r")),
/// };
/// // "The same bug" while some file holds an `n`.
/// let shrunk = shrink(case, Budget::default(), |c| {
///     Judged::from(c.files.iter().any(|f| f.content.contains(&b'n')))
/// });
/// assert_eq!(shrunk.ended, Ended::Minimal);
/// assert_eq!(shrunk.case.files.len(), 1);
/// assert_eq!(shrunk.case.files[0].content, b"n");
/// ```
pub fn shrink(case: Case, budget: Budget, judge: impl FnMut(&Case) -> Judged) -> Shrunk {
    resume(case, budget, &Decisions::default(), judge)
}

/// [`shrink`] from the start again, with the first answers taken from
/// `decisions` instead of `judge` (which is asked only past them): a shrink
/// cut by [`Judged::Stop`] and resumed ends exactly where an uncut one
/// does.
pub fn resume(
    case: Case,
    budget: Budget,
    decisions: &Decisions,
    judge: impl FnMut(&Case) -> Judged,
) -> Shrunk {
    let mut shrinker = Shrinker {
        validation: case.call.validation(),
        best: case,
        steps: 0,
        budget,
        replay: decisions.0.clone().into_iter(),
        log: Vec::new(),
        seen: HashMap::new(),
        stopped: false,
        bound_hit: false,
        judge,
    };
    shrinker.run();
    Shrunk {
        ended: if shrinker.stopped {
            Ended::Stopped
        } else if shrinker.bound_hit {
            Ended::StepBound
        } else {
            Ended::Minimal
        },
        steps: shrinker.steps,
        decisions: Decisions(shrinker.log),
        case: shrinker.best,
    }
}

/// One shrink under way.
struct Shrinker<F> {
    best: Case,
    validation: crate::call::Validation,
    steps: usize,
    budget: Budget,
    /// Answers still to replay before `judge` is asked.
    replay: std::vec::IntoIter<bool>,
    /// Every answer so far.
    log: Vec<bool>,
    /// Answers by candidate digest: a candidate met twice (the last round
    /// retries what the one before tried on the same case) is not asked
    /// twice.
    seen: HashMap<u64, bool>,
    stopped: bool,
    bound_hit: bool,
    judge: F,
}

impl<F: FnMut(&Case) -> Judged> Shrinker<F> {
    /// Whether no more candidates will be asked about.
    fn done(&self) -> bool {
        self.stopped || self.bound_hit
    }

    /// Ask about `candidate`; keep it when it is the same bug. `true` when
    /// it was kept.
    fn try_keep(&mut self, candidate: Case) -> bool {
        if self.done() || candidate == self.best {
            return false;
        }
        // Outside the contract, or refused for another reason: not the same
        // case, whatever the peers say (and not worth a step).
        if candidate.call != self.best.call && candidate.call.validation() != self.validation {
            return false;
        }
        let key = digest(&candidate);
        let same = match self.seen.get(&key) {
            Some(&same) => same,
            None => {
                if self.steps >= self.budget.steps {
                    self.bound_hit = true;
                    return false;
                }
                let same = match self.replay.next() {
                    Some(same) => same,
                    None => match (self.judge)(&candidate) {
                        Judged::SameBug => true,
                        Judged::Other => false,
                        Judged::Stop => {
                            self.stopped = true;
                            return false;
                        }
                    },
                };
                self.steps += 1;
                self.log.push(same);
                self.seen.insert(key, same);
                same
            }
        };
        if same {
            self.best = candidate;
        }
        same
    }

    /// Rounds of every pass until one changes nothing.
    fn run(&mut self) {
        loop {
            let before = self.best.clone();
            self.files();
            self.call_fields();
            self.globs();
            self.pattern();
            self.contents();
            if self.done() || self.best == before {
                return;
            }
        }
    }

    /// Remove runs of `n(best)` units (all, halves, quarters, … single
    /// ones), each candidate made by `without(best, range)` (`None`: no
    /// such candidate).
    fn remove_runs(
        &mut self,
        n: impl Fn(&Case) -> usize,
        without: impl Fn(&Case, std::ops::Range<usize>) -> Option<Case>,
    ) {
        let mut chunk = n(&self.best);
        while chunk >= 1 && !self.done() {
            let mut i = 0;
            while i < n(&self.best) && !self.done() {
                let end = (i + chunk).min(n(&self.best));
                let kept = match without(&self.best, i..end) {
                    Some(candidate) => self.try_keep(candidate),
                    None => false,
                };
                if !kept {
                    i += chunk;
                }
            }
            if chunk == 1 {
                break;
            }
            chunk = chunk.div_ceil(2);
        }
    }

    fn files(&mut self) {
        self.remove_runs(
            |c| c.files.len(),
            |c, range| {
                let mut c = c.clone();
                c.files.drain(range);
                Some(c)
            },
        );
    }

    /// One field at a time, each built from the current best so an
    /// accepted reset is never undone by the next candidate.
    fn call_fields(&mut self) {
        for k in 0.. {
            if self.done() {
                return;
            }
            let Some(call) = call_simplifications(&self.best.call).into_iter().nth(k) else {
                return;
            };
            let candidate = Case {
                root: self.best.root.clone(),
                files: self.best.files.clone(),
                call,
            };
            self.try_keep(candidate);
        }
    }

    fn globs(&mut self) {
        self.remove_runs(
            |c| globs_of(&c.call).map_or(0, Vec::len),
            |c, range| {
                let mut c = c.clone();
                globs_of_mut(&mut c.call)?.drain(range);
                Some(c)
            },
        );
        let count = globs_of(&self.best.call).map_or(0, Vec::len);
        for g in 0..count {
            self.remove_runs(
                |c| {
                    globs_of(&c.call)
                        .and_then(|gs| gs.get(g))
                        .map_or(0, |s| s.chars().count())
                },
                |c, range| {
                    let mut c = c.clone();
                    let glob = globs_of_mut(&mut c.call)?.get_mut(g)?;
                    *glob = without_chars(glob, range);
                    Some(c)
                },
            );
        }
    }

    fn pattern(&mut self) {
        self.remove_runs(
            |c| pattern_of(&c.call).map_or(0, |p| p.chars().count()),
            |c, range| {
                let mut c = c.clone();
                let pattern = pattern_of_mut(&mut c.call)?;
                *pattern = without_chars(pattern, range);
                Some(c)
            },
        );
    }

    /// Each file's lines, then its characters (bytes when it is not
    /// UTF-8), terminators included.
    fn contents(&mut self) {
        let mut f = 0;
        while f < self.best.files.len() && !self.done() {
            self.remove_runs(
                |c| {
                    c.files
                        .get(f)
                        .map_or(0, |file| split_lines(&file.content).len())
                },
                |c, range| {
                    let mut c = c.clone();
                    let file = c.files.get_mut(f)?;
                    let mut lines = split_lines(&file.content);
                    lines.drain(range);
                    file.content = lines.concat();
                    Some(c)
                },
            );
            self.remove_runs(
                |c| c.files.get(f).map_or(0, |file| units(&file.content).len()),
                |c, range| {
                    let mut c = c.clone();
                    let file = c.files.get_mut(f)?;
                    let mut units = units(&file.content);
                    units.drain(range);
                    file.content = units.concat();
                    Some(c)
                },
            );
            f += 1;
        }
    }
}

/// A digest of a candidate, for [`Shrinker::seen`]: SipHash with fixed
/// keys over its JSON, the same for the same case in every process.
fn digest(case: &Case) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    match serde_json::to_vec(case) {
        Ok(bytes) => bytes.hash(&mut hasher),
        // Every case serialises; were one not to, its Debug text still
        // tells candidates apart.
        Err(_) => format!("{case:?}").hash(&mut hasher),
    }
    hasher.finish()
}

/// The characters of `bytes` when it is UTF-8 (so every candidate stays
/// text), its bytes otherwise.
fn units(bytes: &[u8]) -> Vec<&[u8]> {
    match std::str::from_utf8(bytes) {
        Ok(text) => text
            .char_indices()
            .map(|(i, c)| &bytes[i..i + c.len_utf8()])
            .collect(),
        Err(_) => bytes.chunks(1).collect(),
    }
}

/// `text` without the characters at `range` (counted in characters).
fn without_chars(text: &str, range: std::ops::Range<usize>) -> String {
    text.chars()
        .enumerate()
        .filter(|(i, _)| !range.contains(i))
        .map(|(_, c)| c)
        .collect()
}

/// Lines with their terminators, so joining them gives the bytes back.
fn split_lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

/// The call's pattern, for a call that has one.
fn pattern_of(call: &Call) -> Option<&String> {
    match call {
        Call::Grep(g) => Some(&g.pattern),
        Call::Glob(g) => Some(&g.pattern),
        Call::FlowGrep(g) => Some(&g.pattern),
        Call::FlowGlob(g) => Some(&g.pattern),
        _ => None,
    }
}

fn pattern_of_mut(call: &mut Call) -> Option<&mut String> {
    match call {
        Call::Grep(g) => Some(&mut g.pattern),
        Call::Glob(g) => Some(&mut g.pattern),
        Call::FlowGrep(g) => Some(&mut g.pattern),
        Call::FlowGlob(g) => Some(&mut g.pattern),
        _ => None,
    }
}

/// A grep call's globs.
fn globs_of(call: &Call) -> Option<&Vec<String>> {
    match call {
        Call::Grep(g) => Some(&g.globs),
        Call::FlowGrep(g) => g.globs.as_ref(),
        _ => None,
    }
}

fn globs_of_mut(call: &mut Call) -> Option<&mut Vec<String>> {
    match call {
        Call::Grep(g) => Some(&mut g.globs),
        Call::FlowGrep(g) => g.globs.as_mut(),
        _ => None,
    }
}

/// Candidate calls with one field reset towards the default, or one
/// number lowered.
fn call_simplifications(call: &Call) -> Vec<Call> {
    let mut out = Vec::new();
    let mut with = |f: &dyn Fn(&mut Call)| {
        // Every candidate, a no-op too: the k-th candidate of a case must
        // be the k-th of the case that kept an earlier one.
        let mut c = call.clone();
        f(&mut c);
        out.push(c);
    };
    with(&|c| match c {
        Call::Grep(g) => g.root = root_of(&g.root),
        Call::Glob(g) => g.root = root_of(&g.root),
        // A read or ls path names its target; the root is another call.
        _ => {}
    });
    with(&|c| match c {
        Call::Read(r) => r.offset = None,
        Call::Ls(l) => l.offset = None,
        _ => {}
    });
    with(&|c| match c {
        Call::Read(r) => r.limit = None,
        Call::Ls(l) => l.limit = None,
        _ => {}
    });
    with(&|c| {
        if let Call::Grep(g) = c {
            g.before_context = 0;
            g.after_context = 0;
        }
    });
    with(&|c| {
        if let Call::Grep(g) = c {
            g.max_count = None;
        }
    });
    with(&|c| {
        if let Call::Grep(g) = c {
            g.symbols = false;
        }
    });
    with(&|c| {
        if let Call::Grep(g) = c {
            g.files_with_matches = false;
        }
    });
    with(&|c| {
        if let Call::Grep(g) = c {
            g.ignore_case = false;
            g.smart_case = false;
        }
    });
    with(&|c| {
        if let Call::Grep(g) = c {
            g.fixed_strings = false;
        }
    });
    with(&|c| match c {
        Call::Grep(g) => g.hidden = false,
        Call::Glob(g) => g.hidden = false,
        _ => {}
    });
    with(&|c| match c {
        Call::Grep(g) => g.no_ignore = false,
        Call::Glob(g) => g.no_ignore = false,
        _ => {}
    });
    with(&|c| match c {
        Call::Grep(g) => g.limit = crate::contract::MAX_GREP_MATCHES,
        Call::Glob(g) => g.limit = crate::contract::MAX_ENTRIES,
        _ => {}
    });
    // Smaller numbers, so a divergence that needs a limit to be reached
    // needs fewer files: to 1, then halves. A default limit stays (it was
    // not what the divergence needed, and it reads as no limit at all).
    for smaller in [|n: u64| 1.min(n), |n: u64| n / 2] {
        with(&|c| match c {
            Call::Grep(g) if g.limit != crate::contract::MAX_GREP_MATCHES => {
                g.limit = smaller(g.limit).max(1);
            }
            Call::Glob(g) if g.limit != crate::contract::MAX_ENTRIES => {
                g.limit = smaller(g.limit).max(1);
            }
            _ => {}
        });
        with(&|c| {
            if let Call::Grep(g) = c {
                g.max_count = g.max_count.map(|n| smaller(n).max(1));
            }
        });
        with(&|c| {
            if let Call::Grep(g) = c {
                g.before_context = smaller(g.before_context);
                g.after_context = smaller(g.after_context);
            }
        });
    }
    // The simplest patterns whole: a pattern that only validates with all
    // of its characters (`*{,}`) cannot lose them one at a time.
    with(&|c| match c {
        Call::Grep(g) => g.pattern.clear(),
        Call::Glob(g) => g.pattern = "*".into(),
        _ => {}
    });
    with(&|c| {
        if let Call::Glob(g) = c {
            g.pattern = "**".into();
        }
    });
    out.extend(flow_field_resets(call));
    out
}

/// A flow-level `grep` or `glob` request with one of its optional fields
/// left out (the flow's default), each in turn, always the same number for
/// one kind of call (so the k-th reset of a case is the k-th of its
/// successor). The pattern stays (it is shrunk by characters), and so does
/// the root: without one the flow would search the working directory,
/// outside the case's tree.
fn flow_field_resets(call: &Call) -> Vec<Call> {
    type Reset<T> = fn(&mut T);
    let grep: [Reset<crate::contract::GrepRequest>; 13] = [
        |r| r.fixed_strings = None,
        |r| r.ignore_case = None,
        |r| r.smart_case = None,
        |r| r.globs = None,
        |r| r.before_context = None,
        |r| r.after_context = None,
        |r| r.context = None,
        |r| r.max_count = None,
        |r| r.files_with_matches = None,
        |r| r.hidden = None,
        |r| r.symbols = None,
        |r| r.no_ignore = None,
        |r| r.limit = None,
    ];
    let glob: [Reset<crate::contract::GlobRequest>; 3] = [
        |r| r.hidden = None,
        |r| r.no_ignore = None,
        |r| r.limit = None,
    ];
    match call {
        Call::FlowGrep(request) => grep
            .iter()
            .map(|reset| {
                let mut r = request.clone();
                reset(&mut r);
                Call::FlowGrep(r)
            })
            .collect(),
        Call::FlowGlob(request) => glob
            .iter()
            .map(|reset| {
                let mut r = request.clone();
                reset(&mut r);
                Call::FlowGlob(r)
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The first segment of an absolute root (`/r/sub/x` → `/r`), which is
/// where every plan's tree lives.
fn root_of(root: &str) -> String {
    match root.strip_prefix('/') {
        Some(rest) => format!("/{}", rest.split('/').next().unwrap_or_default()),
        None => root.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::GrepInput;

    /// `shrink` with a yes/no predicate.
    fn shrink_while(case: Case, same: impl Fn(&Case) -> bool) -> Shrunk {
        shrink(case, Budget::default(), |c| Judged::from(same(c)))
    }

    #[test]
    fn shrinks_to_the_one_file_and_line_that_matter() {
        let mut input = GrepInput::new("needle", "/r/sub");
        input.before_context = 2;
        input.globs = vec!["*.txt".into()];
        let case = Case {
            root: "/r".into(),
            files: vec![
                GeneratedFile::new("a.txt", "one\ntwo\n"),
                GeneratedFile::new("sub/b.txt", "x\nthe needle here\ny\n"),
                GeneratedFile::new("c.txt", "three\n"),
            ],
            call: Call::Grep(input),
        };
        // "Diverges" whenever some file still holds "needle".
        let shrunk = shrink_while(case, |c| {
            c.files
                .iter()
                .any(|f| f.content.windows(6).any(|w| w == b"needle"))
        });
        assert!(shrunk.steps > 0);
        assert_eq!(shrunk.ended, Ended::Minimal);
        let small = shrunk.case;
        assert_eq!(small.files.len(), 1);
        assert_eq!(small.files[0].path, "sub/b.txt");
        assert_eq!(small.files[0].content, b"needle");
        let Call::Grep(g) = small.call else { panic!() };
        assert_eq!(
            (g.root.as_str(), g.before_context, g.globs.len()),
            ("/r", 0, 0)
        );
        assert_eq!(g.pattern, "");
    }

    /// A long run of emoji before the part that matters goes, character by
    /// character boundaries kept, and the line keeps its terminator when
    /// the bug needs it.
    #[test]
    fn shrinks_inside_a_line() {
        let line = format!("{}needle{}\n", "😀".repeat(2412), "x".repeat(300));
        let case = Case {
            root: "/r".into(),
            files: vec![GeneratedFile::new("a.txt", line)],
            call: Call::Grep(GrepInput::new("needle", "/r")),
        };
        let shrunk = shrink_while(case, |c| {
            c.files.iter().any(|f| {
                let text = String::from_utf8_lossy(&f.content);
                text.contains("needle") && text.ends_with('\n')
            })
        });
        assert_eq!(shrunk.case.files[0].content, b"needle\n");
        assert_eq!(shrunk.ended, Ended::Minimal);
    }

    /// Whatever the predicate says, no step leaves the contract: a seam
    /// glob keeps a pattern validation passes (an empty one is refused,
    /// §5), and a refused flow call stays refused for the same reason.
    #[test]
    fn a_step_never_leaves_the_contract() {
        use crate::call::Validation;
        use crate::contract::{GlobInput, GrepRequest};
        let files = vec![GeneratedFile::new("a.ts", "x\n")];
        let case = |call| Case {
            root: "/r".into(),
            files: files.clone(),
            call,
        };
        let small = shrink_while(case(Call::Glob(GlobInput::new("*.ts", "/r"))), |_| true).case;
        assert_eq!(small.call.validation(), Validation::Passes);
        let Call::Glob(g) = &small.call else { panic!() };
        assert_eq!(g.pattern.chars().count(), 1, "{g:?}");

        // `\b` is refused (§10); shrinking it to `b` or `` would be asking
        // another question, one validation passes.
        let refused = Call::FlowGrep(GrepRequest::new("a\\bc"));
        let code = refused.validation();
        assert!(matches!(code, Validation::Refused(_)), "{code:?}");
        let small = shrink_while(case(refused), |_| true).case;
        assert_eq!(small.call.validation(), code);
        let Call::FlowGrep(r) = &small.call else {
            panic!()
        };
        assert!(r.pattern.len() < 4 && r.pattern.contains('\\'), "{r:?}");
    }

    #[test]
    fn a_read_call_loses_its_paging_fields_and_unneeded_files() {
        use crate::flow::ReadRequest;
        let case = Case {
            root: "/r".into(),
            files: vec![
                GeneratedFile::new("a.txt", "one\r\ntwo\r\n"),
                GeneratedFile::new("b.txt", "x\n"),
            ],
            call: Call::Read(ReadRequest::new("/r/a.txt").offset(2).limit(1)),
        };
        // "Diverges" while a CR is in the tree.
        let small = shrink_while(case, |c| c.files.iter().any(|f| f.content.contains(&b'\r'))).case;
        assert_eq!(small.files.len(), 1);
        assert_eq!(small.files[0].content, b"\r");
        assert_eq!(small.call, Call::Read(ReadRequest::new("/r/a.txt")));
    }

    /// A flow call loses every optional field the bug does not need, but
    /// never its root (without one the flow searches the working
    /// directory).
    #[test]
    fn a_flow_call_loses_its_optional_fields_but_not_its_root() {
        use crate::contract::GrepRequest;
        let mut request = GrepRequest::new("needle");
        request.root = Some("/r".into());
        request.ignore_case = Some(true);
        request.limit = Some(5);
        request.globs = Some(vec!["*.txt".into(), "!b*".into()]);
        let case = Case {
            root: "/r".into(),
            files: vec![GeneratedFile::new("a.txt", "needle\n")],
            call: Call::FlowGrep(request),
        };
        let small = shrink_while(case, |c| !c.files.is_empty()).case;
        let Call::FlowGrep(r) = &small.call else {
            panic!()
        };
        assert_eq!(r.root.as_deref(), Some("/r"));
        assert_eq!(
            (r.ignore_case, r.limit, r.globs.as_ref()),
            (None, None, None),
            "{r:?}"
        );
    }

    /// A case built so that each of many files, lines and characters may
    /// or may not matter: the result is 1-minimal (no single file, line or
    /// character can go and the predicate still hold), the same every
    /// time, and the same when the shrink is stopped at any step and
    /// resumed from its decisions.
    #[test]
    fn the_result_is_one_minimal_and_the_same_when_cut_and_resumed() {
        let files: Vec<GeneratedFile> = (0..12)
            .map(|i| {
                GeneratedFile::new(
                    format!("f{i}.txt"),
                    format!("alpha {i}\nbeta needle\ngamma {i} q\n"),
                )
            })
            .collect();
        let case = Case {
            root: "/r".into(),
            files,
            call: Call::Grep(GrepInput::new("needle", "/r")),
        };
        // Needs a `q` in one file and "dl" somewhere in another.
        let holds = |c: &Case| {
            let with = |needle: &[u8]| {
                c.files
                    .iter()
                    .position(|f| f.content.windows(needle.len()).any(|w| w == needle))
            };
            match (with(b"q"), with(b"dl")) {
                (Some(a), Some(b)) => a != b || c.files.len() == 1,
                _ => false,
            }
        };
        let whole = shrink_while(case.clone(), holds);
        assert_eq!(whole.ended, Ended::Minimal);
        let total: usize = whole.case.files.iter().map(|f| f.content.len()).sum();
        assert_eq!(total, 3, "{:?}", whole.case.files);
        // 1-minimal: no single file or byte can go.
        for f in 0..whole.case.files.len() {
            let mut fewer = whole.case.clone();
            fewer.files.remove(f);
            assert!(!holds(&fewer));
            for b in 0..whole.case.files[f].content.len() {
                let mut less = whole.case.clone();
                less.files[f].content.remove(b);
                assert!(!holds(&less), "byte {b} of file {f} could go");
            }
        }
        assert_eq!(shrink_while(case.clone(), holds), whole, "deterministic");
        // Stopped after k answers, then resumed: the same case.
        for k in [0, 1, 7, whole.steps / 2, whole.steps - 1] {
            let mut asked = 0;
            let cut = shrink(case.clone(), Budget::default(), |c| {
                if asked == k {
                    return Judged::Stop;
                }
                asked += 1;
                Judged::from(holds(c))
            });
            assert_eq!(cut.ended, Ended::Stopped);
            assert_eq!(cut.decisions.len(), k);
            let mut asked_again = 0;
            let resumed = resume(case.clone(), Budget::default(), &cut.decisions, |c| {
                asked_again += 1;
                Judged::from(holds(c))
            });
            assert_eq!(resumed.case, whole.case, "cut at {k}");
            assert_eq!(asked_again, whole.steps - k, "the first {k} are replayed");
            assert_eq!(resumed.decisions, whole.decisions);
        }
    }

    /// The step bound stops a shrink and says so; a higher bound goes on
    /// from the same first steps.
    #[test]
    fn the_step_bound_says_when_it_stopped_the_shrink() {
        let case = Case {
            root: "/r".into(),
            files: (0..40)
                .map(|i| GeneratedFile::new(format!("f{i}"), format!("{i}\n")))
                .collect(),
            call: Call::Grep(GrepInput::new("x", "/r")),
        };
        let holds = |c: &Case| c.files.iter().any(|f| f.content == b"17\n");
        let bounded = shrink(case.clone(), Budget { steps: 5 }, |c| {
            Judged::from(holds(c))
        });
        assert_eq!((bounded.ended, bounded.steps), (Ended::StepBound, 5));
        let whole = shrink_while(case, holds);
        assert_eq!(whole.ended, Ended::Minimal);
        assert!(whole.steps > 5);
        assert_eq!(whole.decisions.0[..5], bounded.decisions.0[..]);
        assert_eq!(whole.case.files.len(), 1);
    }

    #[test]
    fn decisions_round_trip_as_text() {
        for bits in [
            vec![],
            vec![true],
            vec![false; 9],
            vec![true, false, true, true, false, false, true, true, true],
        ] {
            let d = Decisions(bits);
            let again: Decisions = d.to_string().parse().unwrap();
            assert_eq!(again, d);
            let json = serde_json::to_string(&d).unwrap();
            assert_eq!(serde_json::from_str::<Decisions>(&json).unwrap(), d);
        }
        for bad in ["", "3", "3:", "3:0", "1:0g", "x:00", "9:00"] {
            assert!(bad.parse::<Decisions>().is_err(), "{bad}");
        }
    }
}
