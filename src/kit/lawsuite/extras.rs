//! Steps 3a and 3b of [the draw order](super#reproducibility-and-the-draw-order):
//! skip-list directories and a skip-list name used as a file, and on the
//! full ground links, unreadable entries and an empty directory.

use super::tree::{Tree, join, relative};
use crate::contract::skip::SKIP_LIST;
use crate::kit::draws::Draws;
use crate::kit::plan::GeneratedFile;

/// The skip-list names that do not start with `.`.
pub(super) const UNDOTTED_SKIPS: [&str; 3] = ["worktrees", "node_modules", "__pycache__"];

/// Step 3a: skip-list directories with contents, and a skip-list name used
/// as a file (§7.3).
pub(super) fn skip_list_extras(draws: &mut Draws, tree: &mut Tree) {
    for k in 0..2 {
        let name = skip_name(draws);
        let parent = draws.pick(&tree.dirs).cloned().unwrap_or_default();
        let deep = draws.percent(50);
        let dir = join(&parent, name);
        let inner = join(&dir, &format!("inner{k}.ts"));
        if tree.add_leaf(GeneratedFile::new(
            inner.clone(),
            "needle in a skipped dir\n",
        )) {
            tree.note(&inner);
        }
        if deep {
            let nested = join(&dir, &format!("pkg/deep{k}.js"));
            tree.add_leaf(GeneratedFile::new(nested, "needle deeper\n"));
        }
    }
    let name = skip_name(draws);
    let parent = draws.pick(&tree.dirs).cloned().unwrap_or_default();
    let path = join(&parent, name);
    if tree.add_leaf(GeneratedFile::new(
        path.clone(),
        "needle in a file named like a skipped dir\n",
    )) {
        tree.note(&path);
    }
}

/// A skip-list name, half the time one without a leading dot: those are
/// the names the skip list alone hides when `hidden` is false (§7.3).
fn skip_name(draws: &mut Draws) -> &'static str {
    if draws.percent(50) {
        draws.word(&UNDOTTED_SKIPS)
    } else {
        draws.word(&SKIP_LIST)
    }
}

/// Step 3b (full ground): links, unreadable entries, an empty directory.
pub(super) fn full_extras(draws: &mut Draws, tree: &mut Tree) {
    // A link to a file.
    if draws.percent(80) {
        let dir = draws.pick(&tree.dirs).cloned().unwrap_or_default();
        let files = tree.files();
        if let Some(target) = draws.pick(&files) {
            let link = join(&dir, "link-file");
            let to = relative(&dir, target);
            if tree.add_leaf(GeneratedFile::symlink(link.clone(), to)) {
                tree.note(&link);
            }
        }
    }
    // A link to a directory (never descended, §7.4).
    if draws.percent(60) {
        let dir = draws.pick(&tree.dirs).cloned().unwrap_or_default();
        let existing = tree.existing_dirs();
        if let Some(target) = draws.pick(&existing) {
            let link = join(&dir, "link-dir");
            let to = relative(&dir, target);
            if tree.add_leaf(GeneratedFile::symlink(link.clone(), to)) {
                tree.note(&link);
            }
        }
    }
    // A dangling link.
    if draws.percent(60) {
        let dir = draws.pick(&tree.dirs).cloned().unwrap_or_default();
        let link = join(&dir, "dangling");
        if tree.add_leaf(GeneratedFile::symlink(link.clone(), "missing/nowhere.txt")) {
            tree.note(&link);
        }
    }
    // A two-link loop and a self loop.
    if draws.percent(50) {
        let dir = draws.pick(&tree.dirs).cloned().unwrap_or_default();
        tree.add_leaf(GeneratedFile::symlink(join(&dir, "loop-a"), "loop-b"));
        tree.add_leaf(GeneratedFile::symlink(join(&dir, "loop-b"), "loop-a"));
        let own = join(&dir, "self-loop");
        if tree.add_leaf(GeneratedFile::symlink(own.clone(), "self-loop")) {
            tree.note(&own);
        }
    }
    // A link to an ancestor directory: a cycle for any walker that follows
    // directory links.
    if draws.percent(40) {
        let dir = draws.pick(&tree.dirs).cloned().unwrap_or_default();
        let to = if dir.is_empty() { "." } else { ".." };
        tree.add_leaf(GeneratedFile::symlink(join(&dir, "up"), to));
    }
    // An unreadable directory holding a match; its mode is applied last.
    if draws.percent(55) {
        let parent = draws.pick(&tree.dirs).cloned().unwrap_or_default();
        let locked = join(&parent, "locked");
        if tree.dir_free(&locked) && !tree.claimed_dirs.contains(&locked) {
            tree.add_leaf(GeneratedFile::new(join(&locked, "secret.txt"), "needle\n"));
            if tree.add_dir(GeneratedFile::dir(locked.clone()).with_mode(0o000)) {
                tree.note(&locked);
            }
        }
    }
    // An unreadable file.
    if draws.percent(35) {
        let dir = draws.pick(&tree.dirs).cloned().unwrap_or_default();
        let path = join(&dir, "unreadable.txt");
        if tree.add_leaf(GeneratedFile::new(path.clone(), "needle\n").with_mode(0o000)) {
            tree.note(&path);
        }
    }
    // An empty directory.
    if draws.percent(50) {
        let parent = draws.pick(&tree.dirs).cloned().unwrap_or_default();
        let path = join(&parent, "empty");
        if !tree.claimed_dirs.contains(&path) {
            tree.add_dir(GeneratedFile::dir(path));
        }
    }
}
