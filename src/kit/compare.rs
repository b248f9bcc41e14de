//! Comparing a plan's answers across N peers and recording divergences
//! (conformance-kit §4, §5, widened from two peers to any number).
//!
//! One peer is the reference (by default `portable`, which *is* the
//! contract where the spec is silent). Every call of the plan runs through
//! the reference and each subject ([`super::ask`] writes the trees and asks
//! them); a subject whose answer does not agree with the reference's
//! ([`Answer::agrees`]) is a divergence, unless a listed difference of the
//! built-in it is registered as predicts it ([`super::explain`]).

use serde::{Deserialize, Serialize};

pub use super::ask::{Compared, Materialized, changed_tree};
pub use super::difference::{difference_fields, difference_kind, first_difference};

use super::answer::Answer;
use super::ask::PeerTrees;
use super::explain::{Evidence, explain};
use super::materialize::MaterializeError;
use super::plan::{GeneratedFile, Plan};
use crate::call::Call;
use crate::peer::{Ground, Method, Search};

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

/// One peer's answer to one call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeerAnswer {
    /// The peer's registered name.
    pub peer: String,
    /// Its answer, rebased to the plan's symbolic root (written as a
    /// report shows it, [`Answer::shown`]).
    pub answer: Answer,
    /// When it differs from the reference in a way the peer documents
    /// ([`super::explain`]), which listed difference explains it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explained: Option<String>,
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
    /// The call's index in the plan ([`Plan::calls`] order: grep, glob,
    /// read, ls, then the flow calls).
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
    pub fn reference_answer(&self) -> Option<&Answer> {
        self.answers.first().map(|a| &a.answer)
    }
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
    answer: impl Fn(&dyn Search, &Call) -> Answer,
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
            .filter(|_| !got.agrees(&expected))
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
        });
    }
    Some(answers)
}

/// Does a subject's answer differ from the reference's (the first)? A call
/// the reference did not answer ([`Answer::is_fault`]) is never an
/// agreement: two peers that both fault have compared nothing.
pub fn differs(answers: &[PeerAnswer]) -> bool {
    answers.split_first().is_some_and(|(reference, rest)| {
        reference.answer.is_fault() || rest.iter().any(|a| !a.answer.agrees(&reference.answer))
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
    /// What each call asked showed across the peers ([`Behaviour`]), by
    /// its index in the plan.
    pub behaviours: Vec<(usize, Behaviour)>,
}

/// What one call showed across the peers, coarsely: the method, the shape
/// of the reference's answer, and how each subject's answer stood to it.
/// The "species" a guided campaign counts (as NEZHA guides differential
/// fuzzing by the tuple of outcomes across implementations): a call whose
/// behaviour was never seen before is worth mutating, and the share of
/// behaviours seen only once estimates the chance that the next call shows
/// something new (Good–Turing).
///
/// ```
/// use lawsuite::kit::answer::Answer;
/// use lawsuite::kit::compare::{Behaviour, PeerAnswer, Relation, Shape};
/// use lawsuite::peer::Method;
/// use serde_json::json;
///
/// let answer = |peer: &str, v| PeerAnswer { peer: peer.into(), answer: Answer::Value(v), explained: None };
/// let answers = [
///     answer("portable", json!({"paths": ["/r/a"], "total": 1, "truncated": false})),
///     answer("mine", json!({"paths": [], "total": 0, "truncated": false})),
/// ];
/// let b = Behaviour::of(Method::Glob, &answers);
/// assert_eq!(b.reference, Shape::Found { truncated: false, notice: vec![], sizes: "paths 1, total 1".into() });
/// assert_eq!(b.subjects, [Relation::Differs("/paths: items lost; /total: differs".into())]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Behaviour {
    /// The call's method.
    pub method: Method,
    /// The reference's answer.
    pub reference: Shape,
    /// Each subject asked, in order.
    pub subjects: Vec<Relation>,
}

/// The shape of an answer: what it found, not which items.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Shape {
    /// Nothing found (every list empty), with the rules behind its notice.
    Empty {
        /// The notice's sentences' rules.
        notice: Vec<crate::contract::notice::Sentence>,
    },
    /// Something found.
    Found {
        /// Whether it says it was truncated.
        truncated: bool,
        /// The notice's sentences' rules.
        notice: Vec<crate::contract::notice::Sentence>,
        /// Its sizes, coarsely: each list's length and each count as `0`,
        /// `1`, `2-3` or `4+`, and which parts of a match it holds
        /// (context rows, a symbol): `matches 2-3, total 4+, after, symbol`.
        sizes: String,
    },
    /// A typed failure, by its code.
    Failure(crate::contract::ErrorCode),
    /// No answer.
    Fault,
}

/// How a subject's answer stood to the reference's.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Relation {
    /// The same answer.
    Agrees,
    /// Another answer, which a listed difference of its built-in predicts.
    Explained,
    /// Another answer, and how ([`super::difference::Difference`]).
    Differs(String),
}

impl Shape {
    /// The shape of `answer`.
    pub fn of(answer: &Answer) -> Shape {
        let value = match answer {
            Answer::Value(value) => value,
            Answer::Failure { code, .. } => return Shape::Failure(*code),
            Answer::Fault { .. } | Answer::Panic(_) => return Shape::Fault,
        };
        let notice = value
            .get("notice")
            .and_then(serde_json::Value::as_str)
            .map(crate::contract::notice::Sentence::all_in)
            .unwrap_or_default();
        let found = value.as_object().is_some_and(|fields| {
            fields
                .values()
                .any(|v| v.as_array().is_some_and(|items| !items.is_empty()))
        });
        if found {
            Shape::Found {
                truncated: value.get("truncated") == Some(&serde_json::Value::Bool(true)),
                notice,
                sizes: sizes(value),
            }
        } else {
            Shape::Empty { notice }
        }
    }
}

/// A size as a shape keeps it: `0`, `1`, `2-3`, `4+`.
fn bucket(n: u64) -> &'static str {
    match n {
        0 => "0",
        1 => "1",
        2 | 3 => "2-3",
        _ => "4+",
    }
}

/// An answer's sizes, coarsely ([`Shape::Found`]).
fn sizes(value: &serde_json::Value) -> String {
    use serde_json::Value;
    let Value::Object(fields) = value else {
        return String::new();
    };
    let mut out: Vec<String> = Vec::new();
    let mut parts = std::collections::BTreeSet::new();
    for (key, v) in fields {
        match v {
            Value::Array(items) => {
                out.push(format!("{key} {}", bucket(items.len() as u64)));
                for item in items {
                    if let Value::Object(item) = item {
                        for (part, v) in item {
                            let held = match v {
                                Value::Array(rows) => !rows.is_empty(),
                                Value::Null => false,
                                Value::Object(_) => true,
                                _ => false,
                            };
                            if held {
                                parts.insert(part.as_str());
                            }
                        }
                    }
                }
            }
            Value::Number(n) => out.push(format!("{key} {}", bucket(n.as_u64().unwrap_or(0)))),
            _ => {}
        }
    }
    out.extend(parts.into_iter().map(str::to_string));
    out.join(", ")
}

impl Behaviour {
    /// The behaviour of one call from its answers, the reference's first
    /// ([`answer_all`]).
    pub fn of(method: Method, answers: &[PeerAnswer]) -> Behaviour {
        let Some((reference, rest)) = answers.split_first() else {
            return Behaviour {
                method,
                reference: Shape::Fault,
                subjects: Vec::new(),
            };
        };
        Behaviour {
            method,
            reference: Shape::of(&reference.answer),
            subjects: rest
                .iter()
                .map(|a| {
                    if a.explained.is_some() {
                        Relation::Explained
                    } else {
                        match super::difference::Difference::between(&reference.answer, &a.answer) {
                            None => Relation::Agrees,
                            Some(d) => Relation::Differs(d.to_string()),
                        }
                    }
                })
                .collect(),
        }
    }

    /// A stable name of the behaviour: a hash of it, the same in every
    /// process (SipHash with fixed keys over its text), for a state file.
    pub fn key(&self) -> String {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::hash::DefaultHasher::new();
        format!("{self:?}").hash(&mut hasher);
        format!("{:016x}", hasher.finish())
    }
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
    for (index, call) in plan.calls().into_iter().enumerate() {
        if stop() {
            return Ok(None);
        }
        let Some(answers) = answer_all(
            &call,
            reference,
            subjects,
            |peer, call| trees.answer(peer, call),
            Some((&plan.root, &plan.files)),
        ) else {
            continue;
        };
        asked
            .behaviours
            .push((index, Behaviour::of(call.method(), &answers)));
        for answer in answers.iter().skip(1) {
            asked.calls += 1;
            if answer.answer.is_fault() {
                if asked.first_fault.is_none() {
                    asked.first_fault = answer
                        .answer
                        .fault_text()
                        .map(|text| format!("{}: {text}", answer.peer));
                }
            } else {
                asked.answered += 1;
            }
        }
        if differs(&answers) {
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
        assert_eq!(
            answers[0].answer.to_wire(),
            json!({"failure": "invalid_pattern"})
        );
        let shown = answers[0].answer.shown();
        let message = shown["message"].as_str().unwrap_or_default();
        assert!(!message.is_empty(), "{shown}");
        assert_eq!(
            answers[1].answer.shown(),
            answers[1].answer.to_wire(),
            "not a failure"
        );
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
            builtin: Some(crate::peer::Builtin::Portable),
        }];
        let once = SpoiledUnder {
            spoiled: std::sync::atomic::AtomicUsize::new(1),
        };
        let reference = Compared {
            peer: &once,
            builtin: Some(crate::peer::Builtin::Portable),
        };
        let divergences = compare_plan_with(&plan, reference, &subjects).unwrap();
        assert!(divergences.is_empty(), "{divergences:?}");
        assert_eq!(once.spoiled.into_inner(), 0, "it was asked");

        let twice = SpoiledUnder {
            spoiled: std::sync::atomic::AtomicUsize::new(2),
        };
        let reference = Compared {
            peer: &twice,
            builtin: Some(crate::peer::Builtin::Portable),
        };
        let divergences = compare_plan_with(&plan, reference, &subjects).unwrap();
        assert_eq!(divergences.len(), 1, "{divergences:?}");
        assert_eq!(divergences[0].call_index, 0);
        let fault = divergences[0].answers[0].answer.fault_text().unwrap_or("");
        assert!(
            fault.contains("changed during its call on two fresh trees"),
            "{fault}"
        );
    }
}
