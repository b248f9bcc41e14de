//! Running a plan through N peers and recording divergences
//! (conformance-kit §4, §5, widened from two peers to any number).
//!
//! One peer is the reference (by default `portable`, which *is* the
//! contract where the spec is silent). Every call of the plan runs through
//! the reference and each subject; a subject whose answer value differs is
//! a divergence. Answers are compared as values ([`crate::kit::case`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::case::{Call, answer, is_fault, rebase};
use super::explain::{Evidence, explain};
use super::guard::Snapshot;
use super::materialize::{MaterializeError, TempTree};
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
}

impl Materialized {
    /// Write `files` under a fresh temporary directory standing in for
    /// `symbolic_root`.
    pub fn new(
        symbolic_root: &str,
        files: &[GeneratedFile],
    ) -> Result<Materialized, MaterializeError> {
        let tree = TempTree::with_files(files)?;
        Ok(Materialized {
            real_root: tree.path().to_string_lossy().into_owned(),
            written: Snapshot::of(tree.path()),
            tree,
            symbolic_root: symbolic_root.to_string(),
        })
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
    fn guarded(&self, peer: &dyn Search, call: &Call, with_message: bool) -> (Value, bool) {
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
        let answer = Self::ask(
            self.symbolic_root,
            self.files,
            &mut slot.1,
            peer,
            call,
            with_message,
        );
        if !self.builtins.contains(&key) {
            return answer.unwrap_or_else(|answer| answer);
        }
        // A built-in only reads: a change in its tree was made by something
        // else, so it is asked once more, on a fresh tree.
        answer
            .or_else(|_| Self::ask(self.symbolic_root, self.files, &mut slot.1, peer, call, with_message))
            .unwrap_or_else(|_| {
                serde_json::json!({
                    "failure": crate::contract::ErrorCode::RequestFailed,
                    "fault": format!(
                        "the tree of the built-in {} was changed during its call on two fresh trees; a built-in only reads, so something else is writing into the run's temporary directory",
                        peer.name()
                    ),
                })
            })
    }

    /// `peer`'s answer to `call` on `tree` (written first when it is
    /// `None`): `Err` with the guard's fault when the tree changed, and
    /// `tree` is then `None` so the next call gets a fresh one.
    fn ask(
        symbolic_root: &str,
        files: &[GeneratedFile],
        tree: &mut Option<Materialized>,
        peer: &dyn Search,
        call: &Call,
        with_message: bool,
    ) -> Result<Value, Value> {
        if tree.is_none() {
            *tree = Materialized::new(symbolic_root, files).ok();
        }
        let Some(written) = tree.as_ref() else {
            return Ok(serde_json::json!({
                "failure": crate::contract::ErrorCode::RequestFailed,
                "fault": "the tree could not be written again after it was changed",
            }));
        };
        let (answer, changed) = written.guarded(peer, call, with_message);
        if changed {
            *tree = None;
            return Err(answer);
        }
        Ok(answer)
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
    // The reference and every subject on a tree of its own.
    let trees = PeerTrees::new(
        &plan.root,
        &plan.files,
        std::iter::once(reference).chain(subjects.iter().copied()),
    )?;
    let reference = reference.peer;
    let summary = TreeSummary::of(&plan.files);
    let mut out = Vec::new();
    for (index, call) in calls(plan).into_iter().enumerate() {
        let Some(mut answers) = answer_all(
            &call,
            reference,
            subjects,
            |peer, call| trees.answer(peer, call, false),
            Some((&plan.root, &plan.files)),
        ) else {
            continue;
        };
        if differs(&answers) {
            keep_messages(&mut answers, &call, reference, subjects, |peer, call| {
                trees.answer(peer, call, true)
            });
            out.push(Divergence {
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
    Ok(out)
}

/// One step of a JSON pointer.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// What differs where two answers first differ.
enum What<'a> {
    /// A key of the expected answer the actual one lacks.
    Missing,
    /// A key of the actual answer the expected one lacks.
    NotExpected,
    /// Arrays equal as far as both go, of different lengths.
    Count { expected: usize, actual: usize },
    /// Two different values of which neither holds the other.
    Value {
        expected: &'a Value,
        actual: &'a Value,
    },
}

/// Where `actual` first differs from `expected`: the path to it (in `at`)
/// and what differs there; `None` when they are equal. Keys in the
/// expected answer's order, then the keys only the actual one has.
fn walk<'a>(expected: &'a Value, actual: &'a Value, at: &mut Vec<Step<'a>>) -> Option<What<'a>> {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (key, ev) in e {
                at.push(Step::Key(key));
                let Some(av) = a.get(key) else {
                    return Some(What::Missing);
                };
                if let Some(what) = walk(ev, av, at) {
                    return Some(what);
                }
                at.pop();
            }
            let extra = a.keys().find(|k| !e.contains_key(*k))?;
            at.push(Step::Key(extra));
            Some(What::NotExpected)
        }
        (Value::Array(e), Value::Array(a)) => {
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                at.push(Step::Index(i));
                if let Some(what) = walk(ev, av, at) {
                    return Some(what);
                }
                at.pop();
            }
            (e.len() != a.len()).then_some(What::Count {
                expected: e.len(),
                actual: a.len(),
            })
        }
        _ if expected == actual => None,
        _ => Some(What::Value { expected, actual }),
    }
}

/// `at` as a JSON pointer after `prefix`, `/` for the whole value; an index
/// is written as `index(i)` says.
fn pointer(prefix: &str, at: &[Step<'_>], index: impl Fn(usize) -> String) -> String {
    let mut out = prefix.to_string();
    for step in at {
        out.push('/');
        match step {
            Step::Key(key) => out.push_str(key),
            Step::Index(i) => out.push_str(&index(*i)),
        }
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// Where `actual` first differs from `expected`, as a JSON pointer (after
/// `at`) and the two values (shortened), or `None` when they are equal.
///
/// ```
/// use lawsuite::kit::compare::first_difference;
/// use serde_json::json;
///
/// let a = json!({"matches": [{"line": 3}], "truncated": false});
/// let b = json!({"truncated": false, "matches": [{"line": 4}]});
/// assert_eq!(first_difference(&a, &a, ""), None);
/// assert_eq!(first_difference(&a, &b, "").unwrap(), "/matches/0/line: 4, expected 3");
/// ```
pub fn first_difference(expected: &Value, actual: &Value, at: &str) -> Option<String> {
    let mut steps = Vec::new();
    let what = walk(expected, actual, &mut steps)?;
    let here = pointer(at, &steps, |i| i.to_string());
    Some(match what {
        What::Missing => format!("{here}: missing"),
        What::NotExpected => format!("{here}: not expected"),
        What::Count { expected, actual } => format!("{here}: {actual} items, expected {expected}"),
        What::Value { expected, actual } => {
            format!(
                "{here}: {}, expected {}",
                shorten(actual),
                shorten(expected)
            )
        }
    })
}

/// The kind of a difference between a subject's answer (`actual`) and the
/// reference's (`expected`): what a report groups divergences by, what
/// the shrinker keeps while it shrinks, and what makes two recorded
/// divergences the same one. `None` when the answers are equal.
///
/// A failure or a panic on either side is the kind (`error code timeout vs
/// answer`: the subject failed where the reference answered). Between two
/// answers it is every top-level field that differs and how, sorted:
/// `missing` or `not expected` for a field one side lacks, and for a list
/// whether it gained items, lost items, or holds the same items in
/// another order, so the kind does not depend on where in the list a wrong
/// item lands, nor on how many others the tree adds around it. A peer that
/// lists an ignored file is `/paths: items added` in a tree of 3 files and
/// of 300; a peer that drops a notice is `/notice: missing`, another bug.
///
/// ```
/// use lawsuite::kit::compare::difference_kind;
/// use serde_json::json;
///
/// let answer = json!({"paths": ["a", "b"], "truncated": false});
/// let kind = |actual| difference_kind(&answer, &actual);
/// assert_eq!(kind(json!({"paths": ["a"], "truncated": false})).unwrap(), "/paths: items lost");
/// assert_eq!(kind(json!({"paths": ["i", "a", "b"], "truncated": false})).unwrap(), "/paths: items added");
/// assert_eq!(kind(json!({"paths": ["b", "a"], "truncated": false})).unwrap(), "/paths: order differs");
/// assert_eq!(
///     kind(json!({"paths": ["a", "x"], "truncated": true})).unwrap(),
///     "/paths: items added, items lost; /truncated: differs",
/// );
/// assert_eq!(kind(json!({"failure": "timeout"})).unwrap(), "error code timeout vs answer");
/// assert_eq!(difference_kind(&json!({"failure": "not_found"}), &answer).unwrap(), "answer vs error code not_found");
/// assert_eq!(kind(answer.clone()), None);
/// ```
pub fn difference_kind(expected: &Value, actual: &Value) -> Option<String> {
    Some(match field_differences(expected, actual)? {
        Differences::Sides(sides) => sides,
        Differences::Fields(fields) => {
            let mut kinds: Vec<String> = fields
                .into_iter()
                .map(|(field, how)| format!("{field}: {how}"))
                .collect();
            kinds.sort();
            kinds.join("; ")
        }
    })
}

/// Where two answers differ, for keeping a divergence while it shrinks:
/// the fields that differ (sorted, without how), or the error codes as in
/// [`difference_kind`]. A peer that lists an ignored file differs in
/// `/paths` whether the tree's other files push a right path past the
/// limit or not; an empty glob the flow refuses differs in `/notice`
/// instead, and is not the same divergence.
///
/// ```
/// use lawsuite::kit::compare::difference_fields;
/// use serde_json::json;
///
/// let answer = json!({"paths": ["a", "b"], "truncated": false});
/// let fields = |actual| difference_fields(&answer, &actual);
/// assert_eq!(fields(json!({"paths": ["a", "x"], "truncated": false})).unwrap(), "/paths");
/// assert_eq!(fields(json!({"paths": ["x"], "truncated": true})).unwrap(), "/paths, /truncated");
/// assert_eq!(fields(json!({"failure": "timeout"})).unwrap(), "error code timeout vs answer");
/// ```
pub fn difference_fields(expected: &Value, actual: &Value) -> Option<String> {
    Some(match field_differences(expected, actual)? {
        Differences::Sides(sides) => sides,
        Differences::Fields(fields) => {
            let mut fields: Vec<String> = fields.into_iter().map(|(field, _)| field).collect();
            fields.sort();
            fields.join(", ")
        }
    })
}

/// How two unequal answers differ.
enum Differences {
    /// Either is a failure or a panic: the two sides, `error code timeout
    /// vs answer`.
    Sides(String),
    /// The fields of `expected` that `actual` has differently, in
    /// `expected`'s order then `actual`'s extra ones, each with how it
    /// differs.
    Fields(Vec<(String, &'static str)>),
}

/// How `actual` differs from `expected`; `None` when equal.
fn field_differences(expected: &Value, actual: &Value) -> Option<Differences> {
    if expected == actual {
        return None;
    }
    // A failure is `{"failure": code}` and a panic `{"panic": message}`
    // ([`super::case::answer`]); no answer of the contract has either key.
    let side = |v: &Value| match (v.get("failure"), v.get("panic")) {
        (Some(Value::String(code)), _) => Some(format!("error code {code}")),
        (Some(code), _) => Some(format!("error code {code}")),
        (None, Some(_)) => Some("panic".to_string()),
        (None, None) => None,
    };
    match (side(actual), side(expected)) {
        (None, None) => {}
        (actual, expected) => {
            return Some(Differences::Sides(format!(
                "{} vs {}",
                actual.as_deref().unwrap_or("answer"),
                expected.as_deref().unwrap_or("answer")
            )));
        }
    }
    let (Value::Object(e), Value::Object(a)) = (expected, actual) else {
        return Some(Differences::Fields(vec![(
            "/".to_string(),
            how_differs(expected, actual),
        )]));
    };
    let mut fields = Vec::new();
    for (key, ev) in e {
        match a.get(key) {
            None => fields.push((format!("/{key}"), "missing")),
            Some(av) if av != ev => fields.push((format!("/{key}"), how_differs(ev, av))),
            Some(_) => {}
        }
    }
    for key in a.keys().filter(|k| !e.contains_key(*k)) {
        fields.push((format!("/{key}"), "not expected"));
    }
    Some(Differences::Fields(fields))
}

/// How two unequal values of one field differ: for two lists, whether
/// items were added, lost, or only reordered (items compared whole, as
/// multisets); else `differs`.
fn how_differs(expected: &Value, actual: &Value) -> &'static str {
    let (Value::Array(e), Value::Array(a)) = (expected, actual) else {
        return "differs";
    };
    // Items counted by their JSON text: `Value` has no `Hash`, and one pass
    // over each list keeps a huge wrong answer linear.
    let mut count: std::collections::HashMap<String, i64> = std::collections::HashMap::new();
    for item in e {
        *count.entry(item.to_string()).or_default() += 1;
    }
    for item in a {
        *count.entry(item.to_string()).or_default() -= 1;
    }
    let lost = count.values().any(|n| *n > 0);
    let added = count.values().any(|n| *n < 0);
    match (added, lost) {
        (true, true) => "items added, items lost",
        (true, false) => "items added",
        (false, true) => "items lost",
        (false, false) => "order differs",
    }
}

/// `value` as compact JSON, cut after 80 characters.
pub(crate) fn shorten(value: &Value) -> String {
    const MAX: usize = 80;
    let text = value.to_string();
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
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

    #[test]
    fn differences_name_the_first_path() {
        let e = json!({"a": [1, 2], "b": "x"});
        assert_eq!(
            first_difference(&e, &json!({"a": [1, 2, 3], "b": "x"}), "").unwrap(),
            "/a: 3 items, expected 2"
        );
        assert_eq!(
            first_difference(&e, &json!({"a": [1, 2]}), "").unwrap(),
            "/b: missing"
        );
        assert_eq!(
            first_difference(&e, &json!({"a": [1, 2], "b": "x", "c": 1}), "").unwrap(),
            "/c: not expected"
        );
        assert_eq!(
            first_difference(&json!({"failure": "timeout"}), &json!([]), "").unwrap(),
            "/: [], expected {\"failure\":\"timeout\"}"
        );
        assert_eq!(
            first_difference(&json!({"a": {"b": 1}}), &json!({"a": {"b": 2}}), "/x").unwrap(),
            "/x/a/b: 2, expected 1"
        );
        let long = json!("x".repeat(200));
        assert!(
            first_difference(&json!(1), &long, "")
                .unwrap()
                .ends_with("…, expected 1")
        );
    }

    #[test]
    fn kinds_of_difference() {
        let answer = json!({"matches": [{"line": 1}, {"line": 2}], "notice": "n"});
        let kind = |actual: Value| difference_kind(&answer, &actual).unwrap();
        assert_eq!(
            kind(json!({"matches": [{"line": 1}, {"line": 3}], "notice": "n"})),
            "/matches: items added, items lost"
        );
        assert_eq!(
            kind(json!({"matches": [{"line": 1}]})),
            "/matches: items lost; /notice: missing"
        );
        assert_eq!(
            kind(json!({"matches": [{"line": 1}, {"line": 2}]})),
            "/notice: missing"
        );
        assert_eq!(
            kind(json!({"matches": [{"line": 1}, {"line": 2}], "notice": "n", "x": 1})),
            "/x: not expected"
        );
        // Where the extra item lands, and how many others there are, is
        // not the kind: the same bug in a bigger tree is the same kind.
        let extra_first =
            json!({"matches": [{"line": 9}, {"line": 1}, {"line": 2}], "notice": "n"});
        let small = json!({"matches": [], "notice": "n"});
        assert_eq!(kind(extra_first), "/matches: items added");
        assert_eq!(
            difference_kind(&small, &json!({"matches": [{"line": 9}], "notice": "n"})).unwrap(),
            "/matches: items added"
        );
        // A repeated item is an added one.
        assert_eq!(
            kind(json!({"matches": [{"line": 1}, {"line": 1}, {"line": 2}], "notice": "n"})),
            "/matches: items added"
        );
        assert_eq!(kind(json!({"panic": "boom"})), "panic vs answer");
        assert_eq!(
            difference_kind(
                &json!({"failure": "timeout"}),
                &json!({"failure": "not_found"})
            )
            .unwrap(),
            "error code not_found vs error code timeout"
        );
        assert_eq!(difference_kind(&json!(1), &json!(2)).unwrap(), "/: differs");
    }
}
