//! Running a law: its [`Setup`] (the tree written, the call and the
//! expected answer built) and the judging of one peer's answer.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::call::{law_call, table_to_json};
use super::format::{Law, expand_pieces};
use super::load::LoadedLaw;
use super::problem::{LawProblem, SetupError};
use super::tree::Tree;
use crate::call::Call;
use crate::kit::answer::Answer;
use crate::peer::{Method, Search};

/// How one law went on one peer.
#[derive(Clone, Debug, PartialEq)]
pub enum LawOutcome {
    /// The answer is the expected one.
    Pass,
    /// The peer answered, and not as the law expects.
    Fail(LawFailure),
    /// The law could not even be put to the peer (its tree cannot be
    /// written, its input does not parse): a problem of the law or the
    /// host, never the peer's answer, so it never satisfies an expected
    /// failure.
    Broken(String),
}

/// What a failing law expected and got, both read as if run from inside
/// the tree (`T/src/a.ts` reads `src/a.ts`).
#[derive(Clone, Debug, PartialEq)]
pub struct LawFailure {
    /// The expected answer (a failure as `{"failure": code}`), without the
    /// keys checked by length.
    pub expected: Value,
    /// The peer's answer, compared the same way; a failure with its
    /// message, which the comparison leaves out.
    pub actual: Value,
    /// Every difference, one sentence each: the answer, array lengths, the
    /// message.
    pub problems: Vec<String>,
}

/// Run one law on one peer: [`Setup::new`], then [`Setup::judge`].
pub fn run(law: &LoadedLaw, peer: &dyn Search) -> LawOutcome {
    match Setup::new(law) {
        Ok(setup) => setup.judge(peer),
        Err(why) => LawOutcome::Broken(why.to_string()),
    }
}

/// A law made ready to ask peers: its [`Tree`] written, its call and
/// expected answer built. Peers may share one setup when the law
/// [only reads its tree](Setup::shared); the engine asks every peer of a
/// law with one, so a tree is written once per law, not once per peer.
#[derive(Debug)]
pub struct Setup {
    /// The law's checks beyond the answer (kept, not borrowed, so a setup
    /// can outlive the trial that made it).
    method: Method,
    expect_lengths: BTreeMap<String, usize>,
    expect_message: Option<String>,
    tree: Arc<Tree>,
    call: Call,
    expected: Value,
}

impl Setup {
    /// Write the law's tree and build its call; a law that cannot be set
    /// up is broken ([`LawOutcome::Broken`]), for the reason given here,
    /// which names its file and name.
    pub fn new(law: &LoadedLaw) -> Result<Setup, SetupError> {
        Setup::on(law, Arc::new(Tree::write(law)?))
    }

    /// Build the law's call on `tree`, already written (by this law or by
    /// one with the same [`Tree::key`]).
    pub fn on(law: &LoadedLaw, tree: Arc<Tree>) -> Result<Setup, SetupError> {
        let broken = |problem| SetupError::new(law, problem);
        let l = &law.law;
        let real = tree.path().to_string_lossy().into_owned();
        let call = law_call(l, &real).map_err(broken)?;
        let mut expected = match (&l.expect, &l.expect_error) {
            (Some(table), _) => table_to_json(table).map_err(broken)?,
            (None, Some(code)) => serde_json::json!({ "failure": code }),
            (None, None) => return Err(broken(LawProblem::NoExpectation)),
        };
        expand_pieces(&mut expected).map_err(broken)?;
        Ok(Setup {
            method: l.method,
            expect_lengths: l.expect_lengths.clone(),
            expect_message: match &l.expect_message {
                Some(piece) => {
                    let mut text = String::new();
                    piece.expand(&mut text).map_err(broken)?;
                    Some(text)
                }
                None => None,
            },
            tree,
            call,
            expected,
        })
    }

    /// A peer changed this setup's tree: ask no one else on it.
    pub fn is_spoiled(&self) -> bool {
        self.tree.is_spoiled()
    }

    /// The tree the law's call is asked on.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// May several laws and peers be asked on one tree of `law`'s? Every
    /// method but `flow/bash` only reads it; a bash command may write, and
    /// the next peer must not see what the last one left.
    pub fn shares_tree(law: &Law) -> bool {
        law.method.only_reads()
    }

    /// May several peers be asked on this one tree? See
    /// [`Setup::shares_tree`].
    pub fn shared(&self) -> bool {
        self.method.only_reads()
    }

    /// Ask `peer` and compare its answer with the law's.
    pub fn judge(&self, peer: &dyn Search) -> LawOutcome {
        let real = self.tree.path().to_string_lossy();
        // Read the answer as if run from inside the tree.
        let answer = Answer::of(peer, &self.call)
            .within_budget(peer.name(), &self.call, &self.tree.size())
            .rebased(&format!("{real}/"), "")
            .rebased(&real, ".");
        // The law's expectation is the spec's wire form (`expect_error` is
        // `{"failure": code}`): failures compare by code, a fault or a
        // panic never passes, and the message is checked apart.
        let mut actual = answer.to_wire();
        let mut problems = Vec::new();
        for (key, want) in &self.expect_lengths {
            let got = actual.as_object_mut().and_then(|obj| obj.shift_remove(key));
            match got.as_ref().and_then(Value::as_array).map(Vec::len) {
                Some(len) if len == *want => {}
                Some(len) => problems.push(format!("`{key}` holds {len} items, not {want}")),
                None => problems.push(format!("`{key}` is not an array in the answer")),
            }
        }
        if actual != self.expected {
            // Say where, as `survey` does: the first field that differs.
            let at = crate::kit::compare::first_difference(&self.expected, &actual, "")
                .map_or_else(String::new, |first| format!(" at {first}"));
            problems.insert(0, format!("the answer differs from the expected one{at}"));
        }
        if self.shared()
            && let Some(change) = self.tree.changes()
        {
            problems.push(format!(
                "the peer changed the law's tree, which {} only reads: {change}",
                self.method.name()
            ));
        }
        if let (Some(want), Answer::Failure { message: got, .. }) = (&self.expect_message, &answer)
            && got != want
        {
            problems.push(format!(
                "the message differs:\n  expected: {want}\n  actual:   {got}"
            ));
        }
        if problems.is_empty() {
            LawOutcome::Pass
        } else {
            // Compared by code, a failure is shown with the peer's message
            // (an external peer's `data.message`), so the report says why.
            if answer.code().is_some() {
                actual = answer.shown();
            }
            LawOutcome::Fail(LawFailure {
                expected: self.expected.clone(),
                actual,
                problems,
            })
        }
    }
}
