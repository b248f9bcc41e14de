//! Asking a family's batches: each peer on a tree of its own, written once
//! for the family and rewritten in place between batches, looked at once
//! after each batch, every call through every peer that answers its
//! method.
//!
//! A seed's plan is asked under the tree guard call by call
//! ([`crate::kit::compare::compare_plan_with`]): after each call the tree
//! is read back whole. A batch holds thousands of calls, and the
//! `gitignore` family's batches differ only in their `.gitignore` files;
//! writing each batch's tree afresh and reading it back after each call
//! was most of the family's cost (226 s wall, 82 CPU-s of which 55 s in
//! the kernel, for the `gitignore` family at size 4 on `portable` and
//! `model`, measured on the first version). So a peer's tree is written
//! once, a batch whose files have the same paths as the one before only
//! rewrites the files whose bytes differ, and the tree is looked at once
//! after the batch (against what was written, bytes and all, as the guard
//! looks after a call). A tree found changed means some call of the batch
//! wrote: that batch is asked again call by call under the guard, which
//! names the call and blames the peer that wrote (or, for a built-in, asks
//! again on a fresh tree), and the next batch gets fresh trees.

use crate::call::{Call, TreeSize};
use crate::kit::answer::Answer;
use crate::kit::ask::{Compared, Materialized, address};
use crate::kit::compare::{Divergence, TreeSummary, answer_all, compare_plan_with, differs};
use crate::kit::guard::Snapshot;
use crate::kit::materialize::MaterializeError;
use crate::kit::plan::{FileKind, GeneratedFile, Plan};
use crate::peer::Search;

/// One peer's tree.
struct Tree {
    peer: *const (),
    written: Materialized,
    /// What it holds now, as written.
    snapshot: Snapshot,
    size: TreeSize,
}

/// The peers' trees of a family's batches, kept from one batch to the
/// next ([`BatchTrees::compare`]).
#[derive(Default)]
pub struct BatchTrees {
    trees: Vec<Tree>,
    /// The files the trees hold now.
    files: Vec<GeneratedFile>,
}

impl std::fmt::Debug for BatchTrees {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchTrees")
            .field("trees", &self.trees.len())
            .field("files", &self.files.len())
            .finish()
    }
}

impl BatchTrees {
    /// No trees yet.
    pub fn new() -> BatchTrees {
        BatchTrees::default()
    }

    /// Make the trees hold `plan`'s files for `peers`: rewritten in place
    /// when the paths are those they hold, else written afresh.
    fn prepare(&mut self, plan: &Plan, peers: &[Compared<'_>]) -> Result<(), MaterializeError> {
        let same_paths = self.files.len() == plan.files.len()
            && self
                .files
                .iter()
                .zip(&plan.files)
                .all(|(a, b)| a.path == b.path && a.kind == b.kind && b.kind == FileKind::File);
        let same_peers = self.trees.len() == distinct(peers).len()
            && distinct(peers)
                .iter()
                .all(|k| self.trees.iter().any(|t| t.peer == *k));
        if same_paths && same_peers {
            let changed: Vec<&GeneratedFile> = self
                .files
                .iter()
                .zip(&plan.files)
                .filter(|(a, b)| a.content != b.content)
                .map(|(_, b)| b)
                .collect();
            let mut rewritten = true;
            for tree in &mut self.trees {
                for file in &changed {
                    if std::fs::write(tree.written.path().join(&file.path), &file.content).is_err()
                    {
                        rewritten = false;
                    }
                }
                tree.snapshot = Snapshot::of_written(tree.written.path(), &plan.files);
            }
            if rewritten {
                self.files = plan.files.clone();
                return Ok(());
            }
        }
        self.trees.clear();
        for key in distinct(peers) {
            let written = Materialized::new(&plan.root, &plan.files)?;
            let snapshot = Snapshot::of_written(written.path(), &plan.files);
            let size = snapshot.size();
            self.trees.push(Tree {
                peer: key,
                written,
                snapshot,
                size,
            });
        }
        self.files = plan.files.clone();
        Ok(())
    }

    /// The divergences of `plan` between `reference` and `subjects`, in
    /// call order, as [`compare_plan_with`] finds them, asked on the kept
    /// trees with one look at each after the batch (the module
    /// documentation says why), and again under the guard call by call
    /// when a tree changed.
    pub fn compare(
        &mut self,
        plan: &Plan,
        reference: Compared<'_>,
        subjects: &[Compared<'_>],
    ) -> Result<Vec<Divergence>, MaterializeError> {
        self.compare_knowing(plan, reference, subjects, None)
            .map(|(divergences, _)| divergences)
    }

    /// [`BatchTrees::compare`], the reference's answer to a call taken
    /// from `known` (in call order) where it holds one rather than asked
    /// again; with the divergences, the reference's answers to the batch
    /// (`None` for a call no subject answers, which it was not asked;
    /// none at all when a tree changed and the batch was asked again).
    ///
    /// A family's trials, one a subject (as `cargo test` runs them), ask
    /// the reference the same calls on the same tree: the first trial's
    /// answers serve the others ([`ReferenceAnswers`]).
    pub fn compare_knowing(
        &mut self,
        plan: &Plan,
        reference: Compared<'_>,
        subjects: &[Compared<'_>],
        known: Option<&ReferenceAnswers>,
    ) -> Result<(Vec<Divergence>, ReferenceAnswers), MaterializeError> {
        let everyone: Vec<Compared<'_>> = std::iter::once(reference)
            .chain(subjects.iter().copied())
            .collect();
        self.prepare(plan, &everyone)?;
        let calls = plan.calls();
        let reference_key = address(reference.peer);
        // The call being compared: only its own answer is taken from
        // `known` (a recogniser asks the reference other calls).
        let current = std::cell::Cell::new(0usize);
        let trees = &self.trees;
        let ask = |peer: &dyn Search, call: &Call| -> Answer {
            let key = address(peer);
            let index = current.get();
            if key == reference_key
                && calls.get(index) == Some(call)
                && let Some(Some(answer)) = known.and_then(|k| k.get(index))
            {
                return answer.clone();
            }
            match trees.iter().find(|t| t.peer == key) {
                Some(tree) => {
                    tree.written
                        .answer(peer, call)
                        .within_budget(peer.name(), call, &tree.size)
                }
                None => Answer::fault(format!(
                    "{} has no tree of its own for this batch",
                    peer.name()
                )),
            }
        };
        let summary = TreeSummary::of(&plan.files);
        let mut divergences = Vec::new();
        let mut answered: ReferenceAnswers = Vec::with_capacity(calls.len());
        for (index, call) in calls.iter().enumerate() {
            current.set(index);
            let Some(answers) = answer_all(
                call,
                reference.peer,
                subjects,
                ask,
                Some((&plan.root, &plan.files)),
            ) else {
                answered.push(None);
                continue;
            };
            answered.push(answers.first().map(|a| a.answer.clone()));
            if differs(&answers) {
                divergences.push(Divergence {
                    generator: plan.generator.clone(),
                    version: plan.version,
                    ground: plan.ground,
                    seed: plan.seed,
                    call_index: index,
                    call: call.clone(),
                    tree: summary.clone(),
                    reference: reference.peer.name().to_string(),
                    answers,
                });
            }
        }
        let changed = self
            .trees
            .iter()
            .any(|t| t.snapshot.changes(t.written.path()).is_some());
        if changed {
            // Some call wrote: this batch again under the guard, call by
            // call, and fresh trees for the next.
            self.trees.clear();
            self.files.clear();
            return compare_plan_with(plan, reference, subjects).map(|d| (d, Vec::new()));
        }
        Ok((divergences, answered))
    }
}

/// The reference's answers to one batch's calls, in call order (`None`:
/// a call it was not asked, since no subject answers its method).
pub type ReferenceAnswers = Vec<Option<Answer>>;

/// The peers' identities, each once (two subjects may be one peer).
fn distinct(peers: &[Compared<'_>]) -> Vec<*const ()> {
    let mut out: Vec<*const ()> = Vec::new();
    for p in peers {
        let key = address(p.peer);
        if !out.contains(&key) {
            out.push(key);
        }
    }
    out
}

/// [`BatchTrees::compare`] of one plan on trees of its own.
pub fn compare_batch(
    plan: &Plan,
    reference: Compared<'_>,
    subjects: &[Compared<'_>],
) -> Result<Vec<Divergence>, MaterializeError> {
    BatchTrees::new().compare(plan, reference, subjects)
}
