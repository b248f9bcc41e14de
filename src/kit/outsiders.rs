//! Telling a peer's writes from an outsider's: the canary.
//!
//! A peer that writes into the tree it was asked about is wrong, and the
//! tree guard ([`super::guard`]) names the change. But not every change
//! found in a peer's tree after its call is that peer's: another peer
//! under test may write outside its own tree (into every tree of the run's
//! temporary directory, or remove that directory whole), and so may any
//! other process. Blaming the peer asked for those failed an honest
//! external peer on a third of the glob laws beside such a vandal.
//!
//! So the run keeps one more tree, the **canary**, written beside the
//! peers' trees and named like them, that no peer is ever asked about:
//! only something writing where it should not can change it. When a
//! peer's tree is found changed, [`blame`] asks the peer again on a fresh
//! tree and then looks at the canary:
//!
//! * the canary is as it was: nothing else has been writing, so the change
//!   is the peer's, and its first answer stands (with the change that
//!   fails it);
//! * the canary changed too: something else is writing, and the answer
//!   given on the fresh tree counts if that tree stayed as written;
//! * the canary keeps changing and so do the fresh trees: no verdict can
//!   be had ([`Blame::Unknown`]), which is not the peer's failure.
//!
//! What decides is the canary, never the answer: a peer whose first answer
//! was wrong gets no second chance by writing into its own tree (the canary
//! stays as it was and the change is its own).
//!
//! The canary lives while any tree that was written beside it lives
//! ([`Outsiders`] holds it), and is removed with the last of them.
//!
//! ```
//! use lawsuite::kit::outsiders::Outsiders;
//! let before = Outsiders::now();
//! assert!(!before.wrote_since(), "nothing has written into the canary");
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use super::guard::Snapshot;
use super::materialize::TempTree;
use super::plan::GeneratedFile;

/// How many fresh trees [`blame`] asks on while the canary keeps changing,
/// before it says no verdict can be had. A count of tries, not a bound on
/// any answer: an answer given on an unchanged tree is taken at the first.
pub const FRESH_TRIES: usize = 3;

/// The run's canary: a tree no peer is asked about, and how many times it
/// was found changed.
#[derive(Debug)]
pub struct Canary {
    /// The tree and what it held when written; `None` while it cannot be
    /// written (then nothing is ever called an outsider's).
    tree: Mutex<Option<(TempTree, Snapshot)>>,
    /// Times it was found changed (and written anew).
    changes: AtomicU64,
}

impl Canary {
    fn write() -> Option<(TempTree, Snapshot)> {
        // Files in nested directories, as a law's or a seed's tree has
        // them, so a writer that walks trees meets them.
        let files = [
            GeneratedFile::new("notes.txt", "canary\n"),
            GeneratedFile::new("src/lib.rs", "pub fn canary() {}\n"),
            GeneratedFile::new("docs/a/readme.md", "# canary\n"),
        ];
        let tree = TempTree::with_files(&files).ok()?;
        let snapshot = Snapshot::of_written(tree.path(), &files);
        Some((tree, snapshot))
    }

    /// Look at it: changed (or gone), one more change is counted and it is
    /// written anew. The count after.
    fn look(&self) -> u64 {
        let mut tree = self.tree.lock().unwrap_or_else(|p| p.into_inner());
        let changed = tree
            .as_ref()
            .is_some_and(|(tree, written)| written.changes(tree.path()).is_some());
        if changed {
            self.changes.fetch_add(1, Ordering::SeqCst);
            // The old one is removed first: it is dropped when replaced.
            *tree = None;
            *tree = Canary::write();
        }
        self.changes.load(Ordering::SeqCst)
    }
}

/// The canary of this process, as long as some tree holds it.
static CANARY: Mutex<Weak<Canary>> = Mutex::new(Weak::new());

/// What a tree was written beside: the run's canary and how many times it
/// had been found changed then.
#[derive(Clone, Debug)]
pub struct Outsiders {
    canary: Arc<Canary>,
    seen: u64,
}

impl Outsiders {
    /// Now: the live canary, written first when no tree holds one.
    pub fn now() -> Outsiders {
        let mut weak = CANARY.lock().unwrap_or_else(|p| p.into_inner());
        let canary = weak.upgrade().unwrap_or_else(|| {
            let canary = Arc::new(Canary {
                tree: Mutex::new(Canary::write()),
                changes: AtomicU64::new(0),
            });
            *weak = Arc::downgrade(&canary);
            canary
        });
        let seen = canary.changes.load(Ordering::SeqCst);
        Outsiders { canary, seen }
    }

    /// A canary of its own, which no other tree of the process shares (for
    /// a test that plays the outsider without disturbing the others).
    #[cfg(test)]
    fn private() -> Outsiders {
        Outsiders {
            canary: Arc::new(Canary {
                tree: Mutex::new(Canary::write()),
                changes: AtomicU64::new(0),
            }),
            seen: 0,
        }
    }

    /// The same canary, as of now.
    #[cfg(test)]
    fn again(&self) -> Outsiders {
        Outsiders {
            canary: self.canary.clone(),
            seen: self.canary.changes.load(Ordering::SeqCst),
        }
    }

    /// Whether something wrote into the canary since `self` was taken
    /// (it is looked at now).
    pub fn wrote_since(&self) -> bool {
        self.canary.look() > self.seen
    }
}

/// Who changed a peer's tree during its call, as [`blame`] tells.
#[derive(Clone, Debug, PartialEq)]
pub enum Blame<T> {
    /// Nothing else wrote: the change is the peer's, and its first answer
    /// stands.
    Peer,
    /// Something else wrote; asked again on a fresh tree that stayed as
    /// written, the peer gave this.
    Fresh(T),
    /// Something else kept writing, into the canary and into every fresh
    /// tree: no verdict can be had, and it is not the peer's.
    Unknown,
}

/// A change was found in a peer's tree after its call, the tree having
/// been written when `written` was taken. `ask_fresh` asks the peer again
/// on a fresh tree and gives its result, whether that tree changed during
/// the call, and when it was written (`None` when no fresh tree can be
/// written: the first answer stands).
///
/// ```
/// use lawsuite::kit::outsiders::{blame, Blame, Outsiders};
/// let written = Outsiders::now();
/// // Nothing touched the canary: the change was the peer's own.
/// let asked = std::cell::Cell::new(0);
/// let verdict = blame(&written, || {
///     asked.set(asked.get() + 1);
///     Some(("fresh answer", false, Outsiders::now()))
/// });
/// assert_eq!(verdict, Blame::Peer);
/// assert_eq!(asked.get(), 1);
/// ```
pub fn blame<T>(
    written: &Outsiders,
    mut ask_fresh: impl FnMut() -> Option<(T, bool, Outsiders)>,
) -> Blame<T> {
    let mut since = written.clone();
    for _ in 0..FRESH_TRIES {
        let Some((result, changed, fresh)) = ask_fresh() else {
            return Blame::Peer;
        };
        // Looked at after the second asking, so a writer that reached the
        // peer's tree before the canary has had the time to reach it.
        if !since.wrote_since() {
            return Blame::Peer;
        }
        if !changed {
            return Blame::Fresh(result);
        }
        since = fresh;
    }
    Blame::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The canary's path, for a test that plays the outsider.
    fn canary_path(outsiders: &Outsiders) -> std::path::PathBuf {
        let tree = outsiders.canary.tree.lock().unwrap();
        tree.as_ref().unwrap().0.path().to_path_buf()
    }

    /// An outsider writing into the canary (and so, somewhere, into the
    /// peer's tree): the answer on a fresh tree counts. Writing into every
    /// fresh tree too: no verdict. Nothing in the canary: the peer's.
    #[test]
    fn the_canary_decides_who_changed_a_tree() {
        let written = Outsiders::private();
        let canary = canary_path(&written);
        std::fs::write(canary.join("notes.txt"), "outsider\n").unwrap();
        let verdict = blame(&written, || Some((7, false, written.again())));
        assert_eq!(verdict, Blame::Fresh(7));

        let written = written.again();
        let tries = std::cell::Cell::new(0);
        let verdict = blame(&written, || {
            tries.set(tries.get() + 1);
            let now = written.again();
            std::fs::write(canary_path(&now).join("src/lib.rs"), "outsider\n").unwrap();
            Some((7, true, now))
        });
        assert_eq!(verdict, Blame::Unknown);
        assert_eq!(tries.get(), FRESH_TRIES);

        // Gone whole (a peer removed the run's temporary directory): an
        // outsider too.
        let written = written.again();
        std::fs::remove_dir_all(canary_path(&written)).unwrap();
        let verdict = blame(&written, || Some((7, false, written.again())));
        assert_eq!(verdict, Blame::Fresh(7));

        let written = written.again();
        let verdict = blame(&written, || Some((7, false, written.again())));
        assert_eq!(verdict, Blame::Peer);
    }

    /// The canary goes with the last tree that holds it.
    #[test]
    fn the_canary_is_removed_with_the_last_tree() {
        let first = Outsiders::now();
        let second = Outsiders::now();
        let path = canary_path(&first);
        assert_eq!(path, canary_path(&second));
        drop(first);
        assert!(path.exists());
        drop(second);
        // Another test of this process may hold one too.
        if CANARY.lock().unwrap().upgrade().is_none() {
            assert!(!path.exists());
        }
    }
}
