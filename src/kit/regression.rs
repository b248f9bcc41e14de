//! Regression files: shrunk divergences kept under `fixtures/regressions/`
//! and replayed against every peer by `cargo test`.
//!
//! A file names its origin (STYLE: "regressions name their origin"): the
//! generator and its version, the seed and call it came from, why it was
//! recorded, then the shrunk tree and call and the agreed answer (the
//! reference peer's, which is the contract).
//!
//! A divergence is shrunk to the same bug ([`shrink_to_regression`]: the
//! call stays inside the contract, the answers keep differing in the same
//! fields) and kept once ([`record`]: not while a file of the same method
//! still fails on the peer). Trees are written only under a
//! fresh temporary directory, through [`crate::kit::materialize`], which
//! refuses any path that would leave it.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::answer::{Answer, UnknownCode};
use super::compare::Materialized;
use super::difference::{Difference, difference_kind};
use super::materialize::MaterializeError;
use super::outsiders::{Blame, blame};
use super::plan::{GeneratedFile, Plan};
use super::report::json_diff;
use super::shrink::{Budget, Case, Decisions, Ended, Judged};
use crate::call::Call;
use crate::file_error::{FileError, FileErrorKind};
use crate::peer::{Ground, Search};

/// One regression file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Regression {
    /// Why it was recorded: the divergence it pins.
    pub why: String,
    /// The spec section the shrunk difference suggests it pins (what a
    /// law drafted from it names; absent in files kept before it was).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
    /// The generator of the original plan.
    pub generator: String,
    /// That generator's version.
    pub generator_version: u32,
    /// The generator's ground (absent when shared).
    #[serde(default, skip_serializing_if = "Ground::is_shared")]
    pub ground: Ground,
    /// The seed of the original plan.
    pub seed: u64,
    /// The index of the call in the original plan.
    pub call_index: usize,
    /// The seeds of the edits a guided campaign made to that call and its
    /// tree before it diverged ([`crate::kit::campaign::guide::Origin`]);
    /// empty for a seed's own call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mutations: Vec<u64>,
    /// The peers that disagreed, and the reference.
    pub peers: Vec<String>,
    /// The symbolic root the tree and call are spelled with.
    pub root: String,
    /// The shrunk tree.
    pub files: Vec<GeneratedFile>,
    /// The shrunk call.
    pub call: Call,
    /// The agreed answer, spelled with the symbolic root.
    pub expected: Value,
}

/// A harness problem with a regression file.
#[derive(Debug)]
pub enum RegressionError {
    /// The file could not be read or written, or is not a valid
    /// regression.
    File(FileError),
    /// The tree could not be materialised (e.g. a path escaping the root).
    Tree {
        /// The file.
        path: PathBuf,
        /// Why.
        source: MaterializeError,
    },
    /// The call reaches outside the regression's own tree (a root of
    /// `/etc`, or one that climbs out with `..`).
    Escapes {
        /// The file.
        path: PathBuf,
        /// The call's root.
        root: String,
        /// The tree's symbolic root.
        tree: String,
    },
    /// The name is not a plain file name.
    BadName {
        /// The rejected name.
        name: String,
    },
}

impl fmt::Display for RegressionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegressionError::File(e) => match e.kind() {
                FileErrorKind::Parse { line, message } => write!(
                    f,
                    "Regression file {} is not valid at line {}: {message}; fix it or delete it.",
                    e.path().display(),
                    line.unwrap_or(0)
                ),
                kind => write!(
                    f,
                    "Could not read or write regression file {} ({kind}); check the path and permissions.",
                    e.path().display()
                ),
            },
            RegressionError::Tree { path, source } => write!(
                f,
                "Regression file {} holds a tree lawsuite refuses to write: {source}",
                path.display()
            ),
            RegressionError::Escapes { path, root, tree } => write!(
                f,
                "Regression file {} calls on {root:?}, outside its own tree {tree:?}; a regression runs only on the tree it carries, so fix the call's root.",
                path.display()
            ),
            RegressionError::BadName { name } => write!(
                f,
                "Regression name {name:?} must be letters, digits, '-' or '_' only; pick a plain name."
            ),
        }
    }
}

impl std::error::Error for RegressionError {}

/// A replay that did not give the recorded answer.
#[derive(Debug)]
pub struct Mismatch {
    /// The recorded answer, as the file holds it.
    pub expected: Value,
    /// What the peer said.
    pub actual: Answer,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "answer differs from the recorded one (- recorded, + actual):\n{}",
            json_diff(&self.expected, &self.actual.shown(), false)
        )
    }
}

impl Regression {
    /// Load a regression file.
    pub fn load(path: &Path) -> Result<Regression, RegressionError> {
        let text = FileError::read_to_string(path).map_err(RegressionError::File)?;
        Regression::parse(&text, path)
    }

    /// Parse a regression file's text (`path` names it in errors): its
    /// `expected` must be an answer ([`Answer::from_wire`]).
    pub fn parse(text: &str, path: &Path) -> Result<Regression, RegressionError> {
        let regression: Regression = serde_json::from_str(text).map_err(|e| {
            RegressionError::File(FileError::parse(path, Some(e.line()), e.to_string()))
        })?;
        regression.expected_answer().map_err(|e| {
            RegressionError::File(FileError::parse(path, None, format!("expected: {e}")))
        })?;
        Ok(regression)
    }

    /// The recorded answer, read from the file's wire form.
    pub fn expected_answer(&self) -> Result<Answer, UnknownCode> {
        Answer::from_wire(&self.expected)
    }

    /// Replay on `peer`: materialise the tree, run the call, compare.
    pub fn replay(
        &self,
        peer: &dyn Search,
        origin: &Path,
    ) -> Result<Result<(), Mismatch>, RegressionError> {
        self.confined(origin)?;
        let tree =
            Materialized::new(&self.root, &self.files).map_err(|source| RegressionError::Tree {
                path: origin.into(),
                source,
            })?;
        // Compared by code, shown with the peer's message; a peer that
        // changes the tree gets the guard's fault, unless something else
        // is writing into the run's trees (the canary tells), when a fresh
        // tree's answer counts.
        let (first, changed) = tree.guarded(peer, &self.call);
        let actual = if changed {
            match blame(tree.outsiders(), || {
                let fresh = Materialized::new(&self.root, &self.files).ok()?;
                let (answer, changed) = fresh.guarded(peer, &self.call);
                Some((answer, changed, fresh.outsiders().clone()))
            }) {
                Blame::Peer => first,
                Blame::Fresh(again) => again,
                Blame::Unknown => Answer::fault(format!(
                    "something other than {} kept writing into the run's trees while it was asked (the canary, a tree no peer is asked about, changed too): no verdict can be had",
                    peer.name()
                )),
            }
        } else {
            first
        };
        let agrees = self
            .expected_answer()
            .is_ok_and(|expected| expected.agrees(&actual));
        Ok(if agrees {
            Ok(())
        } else {
            Err(Mismatch {
                expected: self.expected.clone(),
                actual,
            })
        })
    }

    /// Refuse a call that would run outside the regression's tree: its
    /// root (or path) must be the symbolic root or below it, with no `..`
    /// segment, so replaying can only ever touch the tree written for it.
    fn confined(&self, origin: &Path) -> Result<(), RegressionError> {
        let root = self.call.root();
        // A read or ls `path` relative to a `cwd` must stay below it too.
        let relative = match &self.call {
            Call::Read(r) if r.cwd.is_some() => Some(r.path.as_str()),
            Call::Ls(r) if r.cwd.is_some() => Some(r.path.as_str()),
            _ => None,
        };
        if let Some(path) =
            relative.filter(|p| p.starts_with('/') || p.split('/').any(|s| s == ".."))
        {
            return Err(RegressionError::Escapes {
                path: origin.into(),
                root: format!("{root}/{path}"),
                tree: self.root.clone(),
            });
        }
        let inside = self.root.starts_with('/')
            && match root.strip_prefix(self.root.as_str()) {
                Some("") => true,
                Some(rest) => rest.starts_with('/') && !rest.split('/').any(|s| s == ".."),
                None => false,
            };
        if inside {
            Ok(())
        } else {
            Err(RegressionError::Escapes {
                path: origin.into(),
                root: root.to_string(),
                tree: self.root.clone(),
            })
        }
    }

    /// Write as `dir/<name>.json`, pretty-printed. Never overwrites a
    /// different file of the same name: a numeric suffix is added instead.
    pub fn write(&self, dir: &Path, name: &str) -> Result<PathBuf, RegressionError> {
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(RegressionError::BadName { name: name.into() });
        }
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| RegressionError::File(FileError::parse(dir, Some(0), e.to_string())))?
            + "\n";
        fs::create_dir_all(dir)
            .map_err(|source| RegressionError::File(FileError::io(dir, source)))?;
        // Written whole under a temporary name in the same directory, then
        // linked to its name: a full disk or a killed run leaves no cut or
        // empty regression (which would break every later run), only a
        // hidden `.tmp` file at worst. `hard_link` never follows a symlink
        // planted at the name and never replaces any entry (dangling links
        // included): an identical file is the same regression, any other
        // entry means the next free name.
        let staged = Staged::write(dir, name, text.as_bytes())?;
        for n in 0..10_000u32 {
            let file = if n == 0 {
                dir.join(format!("{name}.json"))
            } else {
                dir.join(format!("{name}-{n}.json"))
            };
            match fs::hard_link(&staged.path, &file) {
                Ok(()) => return Ok(file),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let same = fs::symlink_metadata(&file).is_ok_and(|m| m.is_file())
                        && crate::regular_file::read(&file)
                            .is_ok_and(|existing| existing == text.as_bytes());
                    if same {
                        return Ok(file);
                    }
                }
                // A file system without hard links: a rename, which could
                // only replace a file created in the instant since the check.
                Err(e)
                    if e.kind() == std::io::ErrorKind::Unsupported
                        && fs::symlink_metadata(&file).is_err() =>
                {
                    return fs::rename(&staged.path, &file)
                        .map(|()| file.clone())
                        .map_err(|source| RegressionError::File(FileError::io(file, source)));
                }
                Err(source) => return Err(RegressionError::File(FileError::io(file, source))),
            }
        }
        Err(RegressionError::File(FileError::io(
            dir.join(format!("{name}.json")),
            std::io::Error::other("10,000 files of that name exist already"),
        )))
    }
}

/// A regression's text written whole (and synced) under a hidden name in
/// its directory; removed when dropped, once it is linked to its name.
struct Staged {
    path: PathBuf,
}

impl Staged {
    fn write(dir: &Path, name: &str, text: &[u8]) -> Result<Staged, RegressionError> {
        use std::io::Write as _;
        let mut last = None;
        for n in 0..100u32 {
            let path = dir.join(format!(".{name}.json.{}-{n}.tmp", std::process::id()));
            let mut out = match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(out) => out,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    last = Some(e);
                    continue;
                }
                Err(source) => return Err(RegressionError::File(FileError::io(path, source))),
            };
            let staged = Staged { path };
            return match out.write_all(text).and_then(|()| out.sync_all()) {
                Ok(()) => Ok(staged),
                Err(source) => Err(RegressionError::File(FileError::io(
                    staged.path.clone(),
                    source,
                ))),
            };
        }
        Err(RegressionError::File(FileError::io(
            dir.join(format!(".{name}.json.tmp")),
            last.unwrap_or_else(|| std::io::Error::other("no temporary name is free")),
        )))
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// Do `reference` and `peer` answer `case` differently? (A tree that
/// cannot be written counts as "no": the shrinker never keeps it.)
pub fn diverges(case: &Case, reference: &dyn Search, peer: &dyn Search) -> bool {
    answers(case, reference, peer).is_some_and(|(e, a)| !e.agrees(&a))
}

/// How `peer`'s answer to `case` differs from `reference`'s
/// ([`difference_kind`]), or `None` when they agree or the tree cannot be
/// written.
pub fn divergence_kind(case: &Case, reference: &dyn Search, peer: &dyn Search) -> Option<String> {
    let (expected, actual) = answers(case, reference, peer)?;
    difference_kind(&expected, &actual)
}

/// The reference's answer to `case` and the peer's, or `None` when the
/// tree cannot be written.
fn answers(case: &Case, reference: &dyn Search, peer: &dyn Search) -> Option<(Answer, Answer)> {
    let tree = Materialized::new(&case.root, &case.files).ok()?;
    Some((
        tree.answer(reference, &case.call),
        tree.answer(peer, &case.call),
    ))
}

/// A divergence that would not be recorded, and why.
#[derive(Debug)]
pub enum NotShrunk {
    /// The peers agree on the call: there is nothing to shrink.
    Agrees,
    /// The tree cannot be written.
    Tree(MaterializeError),
}

impl fmt::Display for NotShrunk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotShrunk::Agrees => f.write_str("the peers agree on this call: nothing to shrink"),
            NotShrunk::Tree(e) => write!(f, "its tree cannot be written: {e}"),
        }
    }
}

impl std::error::Error for NotShrunk {}

/// One divergent call of a plan, between the reference and a peer: what
/// [`Divergent::shrink`] makes a regression of.
#[derive(Clone, Copy)]
pub struct Divergent<'a> {
    /// The plan the call is from.
    pub plan: &'a Plan,
    /// The call's index in the plan.
    pub call_index: usize,
    /// The call.
    pub call: &'a Call,
    /// The reference.
    pub reference: &'a dyn Search,
    /// The peer that disagrees with it.
    pub peer: &'a dyn Search,
}

impl fmt::Debug for Divergent<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Divergent")
            .field(
                "plan",
                &format_args!("{} seed {}", self.plan.generator, self.plan.seed),
            )
            .field("call_index", &self.call_index)
            .field("reference", &self.reference.name())
            .field("peer", &self.peer.name())
            .finish()
    }
}

/// How a shrink went: its steps, how it ended, and the predicate's answers
/// ([`super::shrink::resume`] goes on from them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShrinkStats {
    /// Predicate evaluations spent, replayed ones included.
    pub steps: usize,
    /// How it ended.
    pub ended: Ended,
    /// Every answer of the predicate.
    pub decisions: Decisions,
}

/// What [`Divergent::shrink`] made.
#[derive(Clone, Debug)]
pub enum Shrinking {
    /// Shrunk (to a minimal case, or as far as the step bound let it):
    /// the regression that pins it and how the shrunk case differs.
    Done {
        /// The regression (`why` still to be set by the caller when it has
        /// its own).
        regression: Box<Regression>,
        /// How the peer's answer to the shrunk case differs from the
        /// reference's.
        difference: Difference,
        /// How it went.
        stats: ShrinkStats,
    },
    /// The caller's `stop` said to stop: the answers so far, to resume.
    Stopped(ShrinkStats),
}

impl Divergent<'_> {
    /// How the peer's answer to `case` differs from the reference's, or
    /// `None` when they agree or the tree cannot be written.
    fn difference(&self, case: &Case) -> Option<Difference> {
        let (expected, actual) = answers(case, self.reference, self.peer)?;
        Difference::between(&expected, &actual)
    }

    /// Shrink it ([`super::shrink`]), keeping the same bug
    /// ([`Difference::keeps`]: some of the same fields, the same rules behind a
    /// notice, or the same two sides), at most `budget` steps, the first
    /// taken from `resume`. `stop` is asked around every step: once it
    /// says so the shrink ends as [`Shrinking::Stopped`], and the step
    /// that was under way is not counted (a peer stopped in the middle of
    /// a call answered nothing worth keeping).
    pub fn shrink(
        &self,
        budget: Budget,
        resume: &Decisions,
        stop: &dyn Fn() -> bool,
    ) -> Result<Shrinking, NotShrunk> {
        let case = Case {
            root: self.plan.root.clone(),
            files: self.plan.files.clone(),
            call: self.call.clone(),
        };
        Materialized::new(&case.root, &case.files).map_err(NotShrunk::Tree)?;
        let original = self.difference(&case).ok_or(NotShrunk::Agrees)?;
        let shrunk = super::shrink::resume(case, budget, resume, |c| {
            if stop() {
                return Judged::Stop;
            }
            let same = self.difference(c).is_some_and(|d| d.keeps(&original));
            if stop() {
                Judged::Stop
            } else {
                Judged::from(same)
            }
        });
        let stats = ShrinkStats {
            steps: shrunk.steps,
            ended: shrunk.ended,
            decisions: shrunk.decisions,
        };
        if stats.ended == Ended::Stopped {
            return Ok(Shrinking::Stopped(stats));
        }
        let small = shrunk.case;
        let tree = Materialized::new(&small.root, &small.files).map_err(NotShrunk::Tree)?;
        let expected = tree.answer(self.reference, &small.call);
        let actual = tree.answer(self.peer, &small.call);
        // A peer that answers one call two ways (a flaky peer) may agree
        // this time: the kind the shrink kept stands for it.
        let difference = Difference::between(&expected, &actual).unwrap_or(original);
        let why = format!(
            "{} disagreed with {} on {} seed {} call {}: {difference}",
            self.peer.name(),
            self.reference.name(),
            self.plan.generator,
            self.plan.seed,
            self.call_index
        );
        let regression = Regression {
            why,
            spec: Some(difference.section(&small.call, &small.files).to_string()),
            generator: self.plan.generator.clone(),
            generator_version: self.plan.version,
            ground: self.plan.ground,
            seed: self.plan.seed,
            call_index: self.call_index,
            mutations: Vec::new(),
            peers: vec![
                self.reference.name().to_string(),
                self.peer.name().to_string(),
            ],
            root: small.root,
            files: small.files,
            call: small.call,
            // The one place a regression's answer is written: its wire form.
            expected: expected.to_wire(),
        };
        Ok(Shrinking::Done {
            regression: Box::new(regression),
            difference,
            stats,
        })
    }
}

/// Shrink the divergence of call `call_index` of `plan` between `reference`
/// and `peer` ([`Divergent::shrink`], with the default step bound and
/// nothing to stop it), and build the regression that pins it: the shrunk
/// tree and call, the reference's answer, the spec section the difference
/// suggests, and the plan's origin. `why` defaults to which peers disagreed
/// where, and how (the shrunk case's [`Difference`]). `lawsuite record` and
/// `LAWSUITE_RECORD=1` both come through here.
pub fn shrink_to_regression(
    plan: &Plan,
    call_index: usize,
    call: Call,
    reference: &dyn Search,
    peer: &dyn Search,
    why: Option<String>,
) -> Result<(Regression, ShrinkStats), NotShrunk> {
    let divergent = Divergent {
        plan,
        call_index,
        call: &call,
        reference,
        peer,
    };
    match divergent.shrink(Budget::default(), &Decisions::default(), &|| false)? {
        Shrinking::Done {
            mut regression,
            stats,
            ..
        } => {
            if let Some(why) = why {
                regression.why = why;
            }
            Ok((*regression, stats))
        }
        // Nothing here says stop.
        Shrinking::Stopped(_) => Err(NotShrunk::Agrees),
    }
}

/// The regression file under `dir` that already pins a divergence of
/// `peer` on `method`: a file of that method that `peer` fails today.
///
/// One bug is kept as one file, however many calls and seeds meet it: a
/// peer that lists ignored files diverges on hundreds of generated calls,
/// in a dozen shapes (more paths, a different total, a missing notice),
/// and each shrinks to a case of its own. While a file of the method fails
/// there is a red, minimal case to fix; once it passes, the next divergence
/// of that method is recorded (as proptest reports one minimal failure at
/// a time). The seed reports still show every divergent call. A file that
/// cannot be read or replayed pins nothing.
pub fn pinned_by(dir: &Path, peer: &dyn Search, method: crate::peer::Method) -> Option<PathBuf> {
    list(dir).into_iter().find(|path| {
        Regression::load(path).is_ok_and(|regression| {
            regression.call.method() == method
                && matches!(regression.replay(peer, path), Ok(Err(_)))
        })
    })
}

/// What [`record`] did with a divergence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// Shrunk and written to this file.
    Written(PathBuf),
    /// Not written: this file, of the same method, already fails on the
    /// peer ([`pinned_by`]).
    AlreadyPinned {
        /// The file that pins it.
        by: PathBuf,
    },
}

impl fmt::Display for Recorded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Recorded::Written(path) => write!(f, "recorded {}", path.display()),
            Recorded::AlreadyPinned { by } => write!(
                f,
                "not recorded: {} already fails on this peer and method; once it passes, the next run records the next divergence",
                by.display()
            ),
        }
    }
}

/// Why [`record`] wrote nothing.
#[derive(Debug)]
pub enum RecordError {
    /// The divergence could not be shrunk.
    Shrink(NotShrunk),
    /// The file could not be written.
    Write(RegressionError),
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::Shrink(e) => e.fmt(f),
            RecordError::Write(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RecordError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RecordError::Shrink(e) => Some(e),
            RecordError::Write(e) => Some(e),
        }
    }
}

/// Keep the divergence of `peer` from `reference` on call `call_index` of
/// `plan` as a regression file under `dir`, once: when a file there already pins a divergence of the
/// same kind on the same method ([`pinned_by`]), nothing is written.
/// Otherwise it is shrunk ([`shrink_to_regression`]) and written under its
/// [`Regression::default_name`]. `why` defaults to the origin and kind.
pub fn record(
    plan: &Plan,
    call_index: usize,
    call: &Call,
    reference: &dyn Search,
    peer: &dyn Search,
    dir: &Path,
    why: Option<String>,
) -> Result<(Recorded, usize), RecordError> {
    let case = Case {
        root: plan.root.clone(),
        files: plan.files.clone(),
        call: call.clone(),
    };
    if !diverges(&case, reference, peer) {
        return Err(RecordError::Shrink(NotShrunk::Agrees));
    }
    if let Some(by) = pinned_by(dir, peer, call.method()) {
        return Ok((Recorded::AlreadyPinned { by }, 0));
    }
    let (regression, stats) =
        shrink_to_regression(plan, call_index, call.clone(), reference, peer, why)
            .map_err(RecordError::Shrink)?;
    let path = regression
        .write(dir, &regression.default_name())
        .map_err(RecordError::Write)?;
    Ok((Recorded::Written(path), stats.steps))
}

impl Regression {
    /// The file name `write` is given by default: `generator-seed-call-peer`.
    pub fn default_name(&self) -> String {
        let peer: String = self
            .peers
            .last()
            .map_or("peer", String::as_str)
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!(
            "{}-{}-{}-{peer}",
            self.generator, self.seed, self.call_index
        )
    }
}

/// Every `*.json` file under `dir`, sorted; a missing directory is empty.
pub fn list(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(root: &str) -> Regression {
        Regression {
            why: "x".into(),
            spec: None,
            generator: "smthrs".into(),
            generator_version: 1,
            ground: Ground::Shared,
            seed: 1,
            call_index: 0,
            mutations: Vec::new(),
            peers: vec!["portable".into(), "mine".into()],
            root: "/r".into(),
            files: vec![GeneratedFile::new("a.ts", "needle\n")],
            call: Call::Glob(crate::contract::GlobInput::new("*", root)),
            expected: serde_json::json!({}),
        }
    }

    /// `write` never follows a link planted at the name, never overwrites
    /// a file there (UTF-8 or not), and takes the next free name.
    #[cfg(unix)]
    #[test]
    fn writing_never_follows_a_planted_link_nor_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join("kept");
        fs::create_dir(&kept).unwrap();
        let outside = dir.path().join("outside.json");
        std::os::unix::fs::symlink(&outside, kept.join("name.json")).unwrap();
        fs::write(kept.join("name-1.json"), [0xff, 0xfe, 0x00]).unwrap();
        let path = sample("/r").write(&kept, "name").unwrap();
        assert_eq!(path, kept.join("name-2.json"));
        assert!(!outside.exists(), "written through the dangling link");
        assert_eq!(
            fs::read(kept.join("name-1.json")).unwrap(),
            [0xff, 0xfe, 0x00]
        );
        // The same regression again is the same file.
        assert_eq!(sample("/r").write(&kept, "name").unwrap(), path);
    }

    /// A regression's call runs only on its own tree.
    #[test]
    fn a_call_outside_the_tree_is_refused() {
        for root in ["/etc", "/r/../..", "/r/a/../../etc", "/rx", "relative"] {
            let err =
                sample(root).replay(&crate::portable::Portable::default(), Path::new("f.json"));
            assert!(
                matches!(err, Err(RegressionError::Escapes { .. })),
                "{root}: {err:?}"
            );
        }
        assert!(
            sample("/r/sub")
                .replay(&crate::portable::Portable::default(), Path::new("f.json"))
                .is_ok()
        );
    }

    /// A failure is compared by its code, and a mismatch shows the peer's
    /// message beside it.
    #[test]
    fn a_failure_replays_by_code_and_shows_its_message() {
        let portable = crate::portable::Portable::default();
        let mut regression = sample("/r/missing");
        regression.expected = serde_json::json!({"failure": "not_found"});
        assert!(matches!(
            regression.replay(&portable, Path::new("f.json")),
            Ok(Ok(()))
        ));
        regression.expected = serde_json::json!({"paths": []});
        let Ok(Err(mismatch)) = regression.replay(&portable, Path::new("f.json")) else {
            panic!("a mismatch expected");
        };
        let shown = mismatch.actual.shown();
        assert_eq!(shown["failure"], "not_found");
        let message = shown["message"].as_str().unwrap_or_default();
        assert!(message.contains("/r/missing"), "{shown}");
    }

    /// A read with a `cwd` inside the tree may not climb out of it with
    /// its relative path, nor name an absolute one.
    #[test]
    fn a_relative_read_climbing_out_of_its_cwd_is_refused() {
        let read = |path: &str| {
            let mut regression = sample("/r");
            regression.call = Call::Read(crate::flow::ReadRequest::new(path).cwd("/r/sub"));
            regression.replay(&crate::portable::Portable::default(), Path::new("f.json"))
        };
        for path in ["../../etc/passwd", "/etc/passwd", "a/../../x"] {
            assert!(
                matches!(read(path), Err(RegressionError::Escapes { .. })),
                "{path}"
            );
        }
        assert!(!matches!(
            read("a.ts"),
            Err(RegressionError::Escapes { .. })
        ));
    }

    /// On a full disk a regression is not written at all: no empty or cut
    /// file under its name (which broke every later run), no temporary
    /// file left. Needs a tmpfs of 16 KiB, so root; skipped with the reason
    /// elsewhere.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_full_disk_leaves_no_cut_regression() {
        let dir = tempfile::tempdir().unwrap();
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=16k", "tmpfs"])
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !mounted {
            eprintln!(
                "a_full_disk_leaves_no_cut_regression: skipped: cannot mount a tmpfs here (needs root)"
            );
            return;
        }
        let big = Regression {
            why: "x".repeat(64 * 1024),
            ..sample("/r")
        };
        let err = big.write(dir.path(), "full").unwrap_err();
        let listing: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        let _ = std::process::Command::new("umount")
            .arg(dir.path())
            .status();
        assert!(matches!(err, RegressionError::File(_)), "{err}");
        assert!(listing.is_empty(), "left behind: {listing:?}");
    }
}
