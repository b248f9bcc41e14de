//! Asking peers: a plan's tree written once per peer (guarded, so a peer
//! that writes into it is seen and an outsider's writes are not blamed on
//! it), calls rebased onto it, and each peer's [`Answer`] taken.
//!
//! Comparing what they answered is [`super::compare`]'s.

use super::answer::Answer;
use super::guard::Snapshot;
use super::materialize::{MaterializeError, TempTree};
use super::outsiders::{Blame, FRESH_TRIES, Outsiders, blame};
use super::plan::GeneratedFile;
use crate::call::Call;
use crate::peer::Builtin;
use crate::peer::Search;

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
    pub builtin: Option<Builtin>,
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
    pub fn builtin(peer: &'a dyn Search, builtin: Builtin) -> Compared<'a> {
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
            peer: subject.peer().as_ref(),
            builtin: subject.builtin(),
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
    pub fn answer(&self, peer: &dyn Search, call: &Call) -> Answer {
        let real = call.rebased(&self.symbolic_root, &self.real_root);
        Answer::of(peer, &real).rebased(&self.real_root, &self.symbolic_root)
    }

    /// [`Materialized::answer`] within its byte budget
    /// ([`Answer::within_budget`]), then the tree guard: when the call only
    /// reads ([`crate::peer::Method::only_reads`]) and the tree changed,
    /// the answer is a fault naming the change ([`changed_tree`]), since
    /// whatever the peer said was said of a tree it was spoiling.
    pub fn guarded_answer(&self, peer: &dyn Search, call: &Call) -> Answer {
        self.guarded(peer, call).0
    }

    /// [`Materialized::guarded_answer`], and whether the tree changed: one
    /// look at the tree per call, which the caller needs to know to write
    /// it again.
    pub(crate) fn guarded(&self, peer: &dyn Search, call: &Call) -> (Answer, bool) {
        let answer = self
            .answer(peer, call)
            .within_budget(peer.name(), call, &self.written.size());
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
/// use lawsuite::kit::ask::changed_tree;
///
/// let answer = changed_tree("vandal", "a.txt was removed");
/// assert!(answer.is_fault());
/// assert_eq!(
///     answer.fault_text(),
///     Some("vandal changed the tree it was asked to search, which the contract's methods only read: a.txt was removed")
/// );
/// ```
pub fn changed_tree(peer: &str, change: &str) -> Answer {
    Answer::fault(format!(
        "{peer} changed the tree it was asked to search, which the contract's methods only read: {change}"
    ))
}

/// One written tree per peer asked about a plan, each guarded: a peer that
/// writes into its tree gets a fault for that call ([`changed_tree`]) and
/// a fresh tree for the next one, and no other peer ever reads what it
/// wrote. Seeds shared one tree among every peer, so a peer that answered
/// and then appended to every file passed, and every peer asked after it
/// failed with the vandal's lines in its report.
pub(crate) struct PeerTrees<'p> {
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
    pub(crate) fn new<'a>(
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
    pub(crate) fn answer(&self, peer: &dyn Search, call: &Call) -> Answer {
        let key = address(peer);
        let mut trees = self.trees.borrow_mut();
        let Some(slot) = trees.iter_mut().find(|(k, _)| *k == key) else {
            // Only the peers the trees were written for are asked.
            return Answer::fault(format!(
                "{} has no tree of its own for this plan",
                peer.name()
            ));
        };
        let (answer, changed, written) =
            Self::ask(self.symbolic_root, self.files, &mut slot.1, peer, call);
        if !changed {
            return answer;
        }
        let mut again = || {
            let (answer, changed, written) =
                Self::ask(self.symbolic_root, self.files, &mut slot.1, peer, call);
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
                Blame::Unknown => Answer::fault(format!(
                    "something other than {} kept writing into the run's trees while it was asked (the canary, a tree no peer is asked about, changed too), on {FRESH_TRIES} fresh trees: no verdict can be had",
                    peer.name()
                )),
            };
        }
        // A built-in only reads: a change in its tree was made by something
        // else, so it is asked once more, on a fresh tree.
        match again() {
            Some((answer, false, _)) => answer,
            _ => Answer::fault(format!(
                "the tree of the built-in {} was changed during its call on two fresh trees; a built-in only reads, so something else is writing into the run's temporary directory",
                peer.name()
            )),
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
    ) -> (Answer, bool, Option<Outsiders>) {
        if tree.is_none() {
            *tree = Materialized::new(symbolic_root, files).ok();
        }
        let Some(written) = tree.as_ref() else {
            return (
                Answer::fault("the tree could not be written again after it was changed"),
                false,
                None,
            );
        };
        let outsiders = written.outsiders().clone();
        let (answer, changed) = written.guarded(peer, call);
        if changed {
            *tree = None;
        }
        (answer, changed, Some(outsiders))
    }
}

/// A peer's identity within one comparison: the address of its value
/// (two subjects may share a name, never an address).
pub(crate) fn address(peer: &dyn Search) -> *const () {
    std::ptr::from_ref(peer).cast::<()>()
}
