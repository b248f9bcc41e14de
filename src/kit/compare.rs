//! Running a plan through N peers and recording divergences
//! (conformance-kit §4, §5, widened from two peers to any number).
//!
//! One peer is the reference (by default `portable`, which *is* the
//! contract where the spec is silent). Every call of the plan runs through
//! the reference and each subject; a subject whose answer value differs is
//! a divergence. Answers are compared as values ([`crate::kit::case`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use super::difference::{difference_fields, difference_kind, first_difference};

use super::case::{Call, answer, is_fault, rebase};
use super::explain::{Evidence, explain};
use super::guard::Snapshot;
use super::materialize::{MaterializeError, TempTree};
use super::outsiders::{Blame, FRESH_TRIES, Outsiders, blame};
use super::plan::{GeneratedFile, Plan};
use crate::peer::{Ground, Search};

/// A short description of a tree, for reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TreeSummary {
    /// Number of entries.
    pub files: usize,
    /// Total bytes of their contents.
    pub bytes: u64,
    /// The first paths, in plan order.
    pub sample: Vec<String>,
}

impl TreeSummary {
    /// Summarise a file list.
    pub fn of(files: &[GeneratedFile]) -> TreeSummary {
        TreeSummary {
            files: files.len(),
            bytes: files.iter().map(|f| f.content.len() as u64).sum(),
            sample: files.iter().take(12).map(|f| f.path.clone()).collect(),
        }
    }
}

/// A peer compared with the reference, and the built-in it is registered
/// as, if it is one.
///
/// Only a built-in's documented differences ([`crate::differences`]) can
/// explain an answer, and which built-in a peer is comes from its
/// registration, never from the peer: a peer under test may be skipped
/// where it does not answer a method, but it never excuses itself (a
/// peer calling itself `ripgrep-walk` is judged like any other).
#[derive(Clone, Copy)]
pub struct Compared<'a> {
    /// The peer.
    pub peer: &'a dyn Search,
    /// The built-in whose documented differences may explain its answers;
    /// `None`: every difference counts.
    pub builtin: Option<&'a str>,
}

impl<'a> Compared<'a> {
    /// A peer none of whose differences are excused.
    pub fn new(peer: &'a dyn Search) -> Compared<'a> {
        Compared {
            peer,
            builtin: None,
        }
    }

    /// The built-in `builtin`, whose documented differences explain the
    /// answers they predict ([`super::explain`]).
    pub fn builtin(peer: &'a dyn Search, builtin: &'a str) -> Compared<'a> {
        Compared {
            peer,
            builtin: Some(builtin),
        }
    }
}

/// A run's peer, compared as its registration says: a built-in's
/// documented differences explain its answers, any other peer's do not.
impl<'a> From<&'a crate::peer::Subject> for Compared<'a> {
    fn from(subject: &'a crate::peer::Subject) -> Compared<'a> {
        Compared {
            peer: subject.peer.as_ref(),
            builtin: subject.builtin.as_deref(),
        }
    }
}

impl std::fmt::Debug for Compared<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compared")
            .field("peer", &self.peer.name())
            .field("builtin", &self.builtin)
            .finish()
    }
}

/// One peer's answer to one call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeerAnswer {
    /// The peer's registered name.
    pub peer: String,
    /// Its answer, rebased to the plan's symbolic root.
    pub answer: Value,
    /// When it differs from the reference in a way the peer documents
    /// ([`super::explain`]), which listed difference explains it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explained: Option<String>,
    /// When the answer is a failure on a call that diverged, the failure's
    /// message (its first line), for reports: answers are compared by code
    /// alone (§4), but a reader needs to know what the peer said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl PeerAnswer {
    /// The answer as a report shows it: a failure with its message beside
    /// its code, when there is one.
    ///
    /// ```
    /// use lawsuite::kit::compare::PeerAnswer;
    /// let a = PeerAnswer {
    ///     peer: "portable".into(),
    ///     answer: serde_json::json!({"failure": "invalid_pattern"}),
    ///     explained: None,
    ///     message: Some("Invalid pattern: unclosed group".into()),
    /// };
    /// assert_eq!(a.shown()["message"], "Invalid pattern: unclosed group");
    /// ```
    pub fn shown(&self) -> Value {
        match (&self.message, &self.answer) {
            (Some(message), Value::Object(map)) if map.contains_key("failure") => {
                let mut map = map.clone();
                map.insert("message".into(), Value::String(message.clone()));
                Value::Object(map)
            }
            _ => self.answer.clone(),
        }
    }
}

/// Ask each peer whose answer in `answers` is a failure again, with
/// `answer_with_message`, and keep the failure's message: `answers` are the
/// reference's, then those of the `subjects` that support `call`'s method,
/// as [`answer_all`] returns them. Only divergent calls pay for this.
pub fn keep_messages(
    answers: &mut [PeerAnswer],
    call: &Call,
    reference: &dyn Search,
    subjects: &[Compared<'_>],
    answer_with_message: impl Fn(&dyn Search, &Call) -> Value,
) {
    let peers = std::iter::once(reference).chain(
        subjects
            .iter()
            .filter(|s| s.peer.supports(call.method()))
            .map(|s| s.peer),
    );
    for (answer, peer) in answers.iter_mut().zip(peers) {
        if answer.answer.get("failure").is_some() {
            answer.message = answer_with_message(peer, call)
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
    }
}

/// A call on which a subject disagreed with the reference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Divergence {
    /// The generator of the plan (`smthrs`, `lawsuite`, or `regression`).
    pub generator: String,
    /// The generator's version.
    pub version: u32,
    /// The generator's ground (absent when shared).
    #[serde(default, skip_serializing_if = "Ground::is_shared")]
    pub ground: Ground,
    /// The seed of the plan.
    pub seed: u64,
    /// The call's index in the plan ([`calls`] order: grep, glob, read, ls,
    /// then the flow calls).
    pub call_index: usize,
    /// The call, with the plan's symbolic root.
    pub call: Call,
    /// What the tree held.
    pub tree: TreeSummary,
    /// The reference peer's name.
    pub reference: String,
    /// Every peer's answer, reference first.
    pub answers: Vec<PeerAnswer>,
}

impl Divergence {
    /// The reference answer.
    pub fn reference_answer(&self) -> Option<&Value> {
        self.answers.first().map(|a| &a.answer)
    }
}

/// The calls of a plan in plan order: grep inputs, then glob inputs, then
/// read and ls requests, then flow-level calls.
pub fn calls(plan: &Plan) -> Vec<Call> {
    plan.grep
        .iter()
        .cloned()
        .map(Call::Grep)
        .chain(plan.glob.iter().cloned().map(Call::Glob))
        .chain(plan.read.iter().cloned().map(Call::Read))
        .chain(plan.ls.iter().cloned().map(Call::Ls))
        .chain(plan.flow.iter().cloned())
        .collect()
}

/// A plan's tree on disk, with its calls rebased onto it, and what it held
/// when written ([`Snapshot`]), so a peer that changes it is seen
/// ([`Materialized::changes`]).
#[derive(Debug)]
pub struct Materialized {
    tree: TempTree,
    real_root: String,
    symbolic_root: String,
    written: Snapshot,
    /// The run's canary when it was written ([`super::outsiders`]).
    outsiders: Outsiders,
}

impl Materialized {
    /// Write `files` under a fresh temporary directory standing in for
    /// `symbolic_root`.
    pub fn new(
        symbolic_root: &str,
        files: &[GeneratedFile],
    ) -> Result<Materialized, MaterializeError> {
        // Taken first, so the canary is there before the tree is.
        let outsiders = Outsiders::now();
        let tree = TempTree::with_files(files)?;
        Ok(Materialized {
            real_root: tree.path().to_string_lossy().into_owned(),
            written: Snapshot::of_written(tree.path(), files),
            tree,
            symbolic_root: symbolic_root.to_string(),
            outsiders,
        })
    }

    /// The run's canary as it was when the tree was written.
    pub fn outsiders(&self) -> &Outsiders {
        &self.outsiders
    }

    /// The directory the tree lives in.
    pub fn path(&self) -> &std::path::Path {
        self.tree.path()
    }

    /// How the tree differs from what was written, or `None` when it does
    /// not ([`Snapshot::changes`]).
    pub fn changes(&self) -> Option<String> {
        self.written.changes(self.tree.path())
    }

    /// Run `call` (spelled with the symbolic root) on `peer`, and return the
    /// answer spelled with the symbolic root again.
    pub fn answer(&self, peer: &dyn Search, call: &Call) -> Value {
        let real = call.rebased(&self.symbolic_root, &self.real_root);
        rebase(&answer(peer, &real), &self.real_root, &self.symbolic_root)
    }

    /// [`Materialized::answer`] with a failure's message kept, for a
    /// report ([`super::case::answer_with_message`]).
    pub fn answer_with_message(&self, peer: &dyn Search, call: &Call) -> Value {
        let real = call.rebased(&self.symbolic_root, &self.real_root);
        let shown = super::case::answer_with_message(peer, &real);
        rebase(&shown, &self.real_root, &self.symbolic_root)
    }

    /// [`Materialized::answer`] within its byte budget
    /// ([`super::case::within_budget`]), then the tree guard: when the call only
    /// reads ([`crate::peer::Method::only_reads`]) and the tree changed,
    /// the answer is a fault naming the change ([`changed_tree`]), since
    /// whatever the peer said was said of a tree it was spoiling.
    pub fn guarded_answer(&self, peer: &dyn Search, call: &Call, with_message: bool) -> Value {
        self.guarded(peer, call, with_message).0
    }

    /// [`Materialized::guarded_answer`], and whether the tree changed: one
    /// look at the tree per call, which the caller needs to know to write
    /// it again.
    pub(crate) fn guarded(
        &self,
        peer: &dyn Search,
        call: &Call,
        with_message: bool,
    ) -> (Value, bool) {
        let answer = if with_message {
            self.answer_with_message(peer, call)
        } else {
            self.answer(peer, call)
        };
        let answer = super::case::within_budget(peer.name(), call, &self.written.size(), answer);
        if !call.method().only_reads() {
            return (answer, false);
        }
        match self.changes() {
            Some(change) => (changed_tree(peer.name(), &change), true),
            None => (answer, false),
        }
    }
}

/// The answer the tree guard gives for a peer that changed the tree it
/// was asked to search: a fault (never equal to any answer, never an
/// agreement), `request_failed` with what changed.
///
/// ```
/// use lawsuite::kit::case::{fault_text, is_fault};
/// use lawsuite::kit::compare::changed_tree;
///
/// let answer = changed_tree("vandal", "a.txt was removed");
/// assert!(is_fault(&answer));
/// assert_eq!(
///     fault_text(&answer),
///     Some("vandal changed the tree it was asked to search, which the contract's methods only read: a.txt was removed")
/// );
/// ```
pub fn changed_tree(peer: &str, change: &str) -> Value {
    serde_json::json!({
        "failure": crate::contract::ErrorCode::RequestFailed,
        "fault": format!(
            "{peer} changed the tree it was asked to search, which the contract's methods only read: {change}"
        ),
    })
}

/// One written tree per peer asked about a plan, each guarded: a peer that
/// writes into its tree gets a fault for that call ([`changed_tree`]) and
/// a fresh tree for the next one, and no other peer ever reads what it
/// wrote. Seeds shared one tree among every peer, so a peer that answered
/// and then appended to every file passed, and every peer asked after it
/// failed with the vandal's lines in its report.
struct PeerTrees<'p> {
    symbolic_root: &'p str,
    files: &'p [GeneratedFile],
    /// By peer (its address), its tree; `None` while it could not be
    /// written again after a change.
    trees: std::cell::RefCell<Vec<(*const (), Option<Materialized>)>>,
    /// The built-ins among the peers (by address): they only read, so a
    /// change found in their tree was made by something else (another
    /// process removing the run's temporary directory, say), and they are
    /// asked again on a fresh tree instead of taking the blame.
    builtins: Vec<*const ()>,
}

impl<'p> PeerTrees<'p> {
    /// Write one tree for each of `peers`.
    fn new<'a>(
        symbolic_root: &'p str,
        files: &'p [GeneratedFile],
        peers: impl Iterator<Item = Compared<'a>>,
    ) -> Result<PeerTrees<'p>, MaterializeError> {
        let mut trees = Vec::new();
        let mut builtins = Vec::new();
        for peer in peers {
            let key = address(peer.peer);
            if peer.builtin.is_some() {
                builtins.push(key);
            }
            if !trees.iter().any(|(k, _)| *k == key) {
                trees.push((key, Some(Materialized::new(symbolic_root, files)?)));
            }
        }
        Ok(PeerTrees {
            symbolic_root,
            files,
            trees: std::cell::RefCell::new(trees),
            builtins,
        })
    }

    /// `peer`'s answer to `call` on its own tree, guarded. The tree is
    /// looked at once, after the call (each look reads every file back): a
    /// change before the call is seen there as well as one made during it.
    fn answer(&self, peer: &dyn Search, call: &Call, with_message: bool) -> Value {
        let key = address(peer);
        let mut trees = self.trees.borrow_mut();
        let Some(slot) = trees.iter_mut().find(|(k, _)| *k == key) else {
            // Only the peers the trees were written for are asked.
            return serde_json::json!({
                "failure": crate::contract::ErrorCode::RequestFailed,
                "fault": format!("{} has no tree of its own for this plan", peer.name()),
            });
        };
        let (answer, changed, written) = Self::ask(
            self.symbolic_root,
            self.files,
            &mut slot.1,
            peer,
            call,
            with_message,
        );
        if !changed {
            return answer;
        }
        let mut again = || {
            let (answer, changed, written) = Self::ask(
                self.symbolic_root,
                self.files,
                &mut slot.1,
                peer,
                call,
                with_message,
            );
            Some((answer, changed, written?))
        };
        if !self.builtins.contains(&key) {
            // Its own tree: the change is its own, unless something else
            // is writing into the run's trees, which the canary tells
            // ([`super::outsiders`]); then a fresh tree's answer counts.
            let Some(written) = written else {
                return answer;
            };
            return match blame(&written, again) {
                Blame::Peer => answer,
                Blame::Fresh(again) => again,
                Blame::Unknown => serde_json::json!({
                    "failure": crate::contract::ErrorCode::RequestFailed,
                    "fault": format!(
                        "something other than {} kept writing into the run's trees while it was asked (the canary, a tree no peer is asked about, changed too), on {FRESH_TRIES} fresh trees: no verdict can be had",
                        peer.name()
                    ),
                }),
            };
        }
        // A built-in only reads: a change in its tree was made by something
        // else, so it is asked once more, on a fresh tree.
        match again() {
            Some((answer, false, _)) => answer,
            _ => serde_json::json!({
                "failure": crate::contract::ErrorCode::RequestFailed,
                "fault": format!(
                    "the tree of the built-in {} was changed during its call on two fresh trees; a built-in only reads, so something else is writing into the run's temporary directory",
                    peer.name()
                ),
            }),
        }
    }

    /// `peer`'s answer to `call` on `tree` (written first when it is
    /// `None`), whether the tree changed (the answer is then the guard's
    /// fault, and `tree` is `None` so the next call gets a fresh one), and
    /// the canary as it was when the tree was written (`None` when no tree
    /// could be written).
    fn ask(
        symbolic_root: &str,
        files: &[GeneratedFile],
        tree: &mut Option<Materialized>,
        peer: &dyn Search,
        call: &Call,
        with_message: bool,
    ) -> (Value, bool, Option<Outsiders>) {
        if tree.is_none() {
            *tree = Materialized::new(symbolic_root, files).ok();
        }
        let Some(written) = tree.as_ref() else {
            return (
                serde_json::json!({
                    "failure": crate::contract::ErrorCode::RequestFailed,
                    "fault": "the tree could not be written again after it was changed",
                }),
                false,
                None,
            );
        };
        let outsiders = written.outsiders().clone();
        let (answer, changed) = written.guarded(peer, call, with_message);
        if changed {
            *tree = None;
        }
        (answer, changed, Some(outsiders))
    }
}

/// A peer's identity within one comparison: the address of its value
/// (two subjects may share a name, never an address).
fn address(peer: &dyn Search) -> *const () {
    std::ptr::from_ref(peer).cast::<()>()
}

/// Run `call` through `reference` and each of `subjects` that
/// [supports](Search::supports) its method, asking each with `answer`
/// (which may run it on a materialised tree, or as it is); every answer,
/// the reference's first, a differing built-in's with the listed difference
/// that explains it ([`super::explain`]), if any. `None` when no subject is
/// asked (an external peer that does not declare the method is skipped,
/// not compared).
///
/// `plan` is the generated tree the call runs on (its symbolic root and
/// files), which a recogniser may rewrite to predict an answer
/// ([`super::explain`]); `None` for a tree searched in place, where only
/// recognisers that rewrite the call can predict.
pub fn answer_all(
    call: &Call,
    reference: &dyn Search,
    subjects: &[Compared<'_>],
    answer: impl Fn(&dyn Search, &Call) -> Value,
    plan: Option<(&str, &[GeneratedFile])>,
) -> Option<Vec<PeerAnswer>> {
    let asked: Vec<Compared<'_>> = subjects
        .iter()
        .copied()
        .filter(|s| s.peer.supports(call.method()))
        .collect();
    if asked.is_empty() && !subjects.is_empty() {
        return None;
    }
    let expected = answer(reference, call);
    let mut answers = vec![PeerAnswer {
        peer: reference.name().to_string(),
        answer: expected.clone(),
        explained: None,
        message: None,
    }];
    // A recogniser asks the reference again, on this tree or on one it
    // rewrote.
    let ask = |files: Option<&[GeneratedFile]>, call: &Call| match (files, plan) {
        (None, _) => Some(answer(reference, call)),
        (Some(files), Some((root, _))) => Materialized::new(root, files)
            .ok()
            .map(|t| t.answer(reference, call)),
        (Some(_), None) => None,
    };
    let (root, tree) = plan.unwrap_or(("", &[]));
    for subject in asked {
        let got = answer(subject.peer, call);
        let explained = subject
            .builtin
            .filter(|_| got != expected)
            .and_then(|builtin| {
                let evidence = Evidence {
                    call,
                    reference: &expected,
                    answer: &got,
                    root,
                    tree,
                    ask: &ask,
                };
                explain(builtin, &evidence)
            });
        answers.push(PeerAnswer {
            peer: subject.peer.name().to_string(),
            answer: got,
            explained,
            message: None,
        });
    }
    Some(answers)
}

/// Does a subject's answer differ from the reference's (the first)? A call
/// the reference did not answer ([`is_fault`]) is never an agreement: two
/// peers that both fault have compared nothing.
pub fn differs(answers: &[PeerAnswer]) -> bool {
    answers.split_first().is_some_and(|(reference, rest)| {
        is_fault(&reference.answer) || rest.iter().any(|a| a.answer != reference.answer)
    })
}

/// Run every call of `plan` through `reference` and each of `subjects`;
/// return the divergences, in call order. A subject is not asked the calls
/// whose method it does not [support](Search::supports).
///
/// Each peer is asked on a tree of its own, guarded ([`changed_tree`]);
/// [`compare_plan_with`] says which built-in the reference is.
pub fn compare_plan(
    plan: &Plan,
    reference: &dyn Search,
    subjects: &[Compared<'_>],
) -> Result<Vec<Divergence>, MaterializeError> {
    compare_plan_with(plan, Compared::new(reference), subjects)
}

/// [`compare_plan`] with the reference's registration: a built-in
/// reference (and a built-in subject) whose tree something else changed
/// is asked again on a fresh tree rather than blamed.
pub fn compare_plan_with(
    plan: &Plan,
    reference: Compared<'_>,
    subjects: &[Compared<'_>],
) -> Result<Vec<Divergence>, MaterializeError> {
    Ok(compare_plan_until(plan, reference, subjects, &|| false)?
        .map(|asked| asked.divergences)
        .unwrap_or_default())
}

/// What [`compare_plan_until`] found of a whole plan.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Asked {
    /// The divergences, in call order.
    pub divergences: Vec<Divergence>,
    /// Calls asked of a subject (a call once per subject that answers its
    /// method).
    pub calls: u64,
    /// Of those, how many the subject answered: a value or a typed
    /// failure, not a fault (a crash, a timeout, an answer past its
    /// bounds) nor a panic. A campaign in which no subject answered
    /// anything has compared nothing.
    pub answered: u64,
    /// The first fault a subject gave, for the error that says so.
    pub first_fault: Option<String>,
}

/// [`compare_plan_with`], asking `stop` before each call: `Ok(None)` when
/// it said to stop before the plan's last call was compared (a plan half
/// asked is no finding: its seed is asked again later).
pub fn compare_plan_until(
    plan: &Plan,
    reference: Compared<'_>,
    subjects: &[Compared<'_>],
    stop: &dyn Fn() -> bool,
) -> Result<Option<Asked>, MaterializeError> {
    // The reference and every subject on a tree of its own.
    let trees = PeerTrees::new(
        &plan.root,
        &plan.files,
        std::iter::once(reference).chain(subjects.iter().copied()),
    )?;
    let reference = reference.peer;
    let summary = TreeSummary::of(&plan.files);
    let mut asked = Asked::default();
    for (index, call) in calls(plan).into_iter().enumerate() {
        if stop() {
            return Ok(None);
        }
        let Some(mut answers) = answer_all(
            &call,
            reference,
            subjects,
            |peer, call| trees.answer(peer, call, false),
            Some((&plan.root, &plan.files)),
        ) else {
            continue;
        };
        for answer in answers.iter().skip(1) {
            asked.calls += 1;
            if is_fault(&answer.answer) {
                if asked.first_fault.is_none() {
                    asked.first_fault = super::case::fault_text(&answer.answer)
                        .map(|text| format!("{}: {text}", answer.peer));
                }
            } else {
                asked.answered += 1;
            }
        }
        if differs(&answers) {
            keep_messages(&mut answers, &call, reference, subjects, |peer, call| {
                trees.answer(peer, call, true)
            });
            asked.divergences.push(Divergence {
                generator: plan.generator.clone(),
                version: plan.version,
                ground: plan.ground,
                seed: plan.seed,
                call_index: index,
                call,
                tree: summary.clone(),
                reference: reference.name().to_string(),
                answers,
            });
        }
    }
    Ok(Some(asked))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A peer whose grep finds nothing, whatever it is asked.
    struct FindsNothing;

    impl Search for FindsNothing {
        fn name(&self) -> &str {
            "finds-nothing"
        }
        fn version(&self) -> String {
            "0".into()
        }
        fn grep(
            &self,
            _: &crate::contract::GrepInput,
        ) -> Result<crate::contract::GrepOutput, crate::contract::StdError> {
            Ok(crate::contract::GrepOutput::default())
        }
        fn glob(
            &self,
            _: &crate::contract::GlobInput,
        ) -> Result<crate::contract::GlobOutput, crate::contract::StdError> {
            Ok(crate::contract::GlobOutput::default())
        }
    }

    /// When the reference fails a divergent call, the divergence keeps its
    /// message for the report; the comparison stays by code.
    #[test]
    fn a_failing_reference_keeps_its_message() {
        let mut plan = crate::kit::smthrs::plan(1, "/r", &crate::kit::plan::PlanOptions::default());
        plan.grep = vec![crate::contract::GrepInput::new("(", "/r")];
        plan.glob.clear();
        plan.read.clear();
        plan.ls.clear();
        plan.flow.clear();
        let reference = crate::portable::Portable::with_threads(1);
        let subjects = [Compared {
            peer: &FindsNothing,
            builtin: None,
        }];
        let divergences = compare_plan(&plan, &reference, &subjects).unwrap();
        let answers = &divergences[0].answers;
        assert_eq!(answers[0].answer, json!({"failure": "invalid_pattern"}));
        let shown = answers[0].shown();
        let message = shown["message"].as_str().unwrap_or_default();
        assert!(!message.is_empty(), "{shown}");
        assert_eq!(answers[1].message, None, "not a failure");
        assert_eq!(answers[1].shown(), answers[1].answer);
    }

    /// The reference that another process spoils: after answering, it
    /// writes a file into its own tree on the first `spoiled` calls, as a
    /// peer removing the run's temporary directory would have it.
    struct SpoiledUnder {
        spoiled: std::sync::atomic::AtomicUsize,
    }

    impl Search for SpoiledUnder {
        fn name(&self) -> &str {
            "portable"
        }
        fn version(&self) -> String {
            "0".into()
        }
        fn grep(
            &self,
            input: &crate::contract::GrepInput,
        ) -> Result<crate::contract::GrepOutput, crate::contract::StdError> {
            let answer = crate::portable::Portable::with_threads(1).grep(input);
            let left = self.spoiled.load(std::sync::atomic::Ordering::Relaxed);
            if left > 0 {
                self.spoiled
                    .store(left - 1, std::sync::atomic::Ordering::Relaxed);
                std::fs::write(std::path::Path::new(&input.root).join("stray"), "x").unwrap();
            }
            answer
        }
        fn glob(
            &self,
            input: &crate::contract::GlobInput,
        ) -> Result<crate::contract::GlobOutput, crate::contract::StdError> {
            crate::portable::Portable::with_threads(1).glob(input)
        }
    }

    /// A built-in reference whose tree changes during its call is asked
    /// once more on a fresh tree (one look at the tree a call, after it);
    /// a second spoiled tree is a fault naming something else, never an
    /// answer compared as the reference's.
    #[test]
    fn a_builtin_whose_tree_changes_during_a_call_is_asked_on_a_fresh_one() {
        let mut plan = crate::kit::smthrs::plan(1, "/r", &crate::kit::plan::PlanOptions::default());
        plan.grep = vec![
            crate::contract::GrepInput::new("a", "/r"),
            crate::contract::GrepInput::new("e", "/r"),
        ];
        plan.glob.clear();
        plan.read.clear();
        plan.ls.clear();
        plan.flow.clear();
        let honest = crate::portable::Portable::with_threads(1);
        let subjects = [Compared {
            peer: &honest,
            builtin: Some("portable"),
        }];
        let once = SpoiledUnder {
            spoiled: std::sync::atomic::AtomicUsize::new(1),
        };
        let reference = Compared {
            peer: &once,
            builtin: Some("portable"),
        };
        let divergences = compare_plan_with(&plan, reference, &subjects).unwrap();
        assert!(divergences.is_empty(), "{divergences:?}");
        assert_eq!(once.spoiled.into_inner(), 0, "it was asked");

        let twice = SpoiledUnder {
            spoiled: std::sync::atomic::AtomicUsize::new(2),
        };
        let reference = Compared {
            peer: &twice,
            builtin: Some("portable"),
        };
        let divergences = compare_plan_with(&plan, reference, &subjects).unwrap();
        assert_eq!(divergences.len(), 1, "{divergences:?}");
        assert_eq!(divergences[0].call_index, 0);
        let fault = crate::kit::case::fault_text(&divergences[0].answers[0].answer).unwrap_or("");
        assert!(
            fault.contains("changed during its call on two fresh trees"),
            "{fault}"
        );
    }
}
