//! Steps 7 and 8 of [the draw order](super#reproducibility-and-the-draw-order):
//! `read` and `ls` calls, their targets and their paging.

use std::collections::HashSet;

use super::flow_fixture::FLOW_LIST;
use super::search_calls::CallContext;
use super::tree::Tree;
use crate::flow::{LsRequest, ReadRequest};
use crate::kit::draws::Draws;
use crate::kit::plan::FileKind;

/// What a `read` call names.
#[derive(Clone, Copy, Debug, Default)]
enum ReadTarget {
    /// A fixture file.
    #[default]
    Fixture,
    /// A generated file of the tree.
    TreeFile,
    /// A notable entry (links, unreadable entries, skip-list names…).
    Notable,
    /// A directory.
    Dir,
    /// A missing path (three spellings).
    Missing,
    /// The plan root.
    Root,
}

const READ_TARGETS: [(usize, ReadTarget); 6] = [
    (50, ReadTarget::Fixture),
    (20, ReadTarget::TreeFile),
    (8, ReadTarget::Notable),
    (6, ReadTarget::Dir),
    (10, ReadTarget::Missing),
    (6, ReadTarget::Root),
];

/// What an `ls` call names.
#[derive(Clone, Copy, Debug, Default)]
enum LsTarget {
    /// The fixture's listed directory.
    #[default]
    List,
    /// A directory of the tree.
    Dir,
    /// The plan root.
    Root,
    /// A file.
    File,
    /// A missing path.
    Missing,
    /// A notable entry.
    Notable,
}

const LS_TARGETS: [(usize, LsTarget); 6] = [
    (50, LsTarget::List),
    (20, LsTarget::Dir),
    (10, LsTarget::Root),
    (6, LsTarget::File),
    (6, LsTarget::Missing),
    (8, LsTarget::Notable),
];

/// A paging field: absent, 1, small, at the count, past it, around a cap,
/// huge, or 0 (refused by the flow with `invalid_input`).
#[derive(Clone, Copy, Debug, Default)]
enum Paging {
    #[default]
    Absent,
    One,
    Small,
    AtCount,
    PastCount,
    NearCap,
    Huge,
    Zero,
}

const OFFSETS: [(usize, Paging); 8] = [
    (40, Paging::Absent),
    (8, Paging::One),
    (15, Paging::Small),
    (10, Paging::AtCount),
    (10, Paging::PastCount),
    (7, Paging::NearCap),
    (5, Paging::Huge),
    (5, Paging::Zero),
];

const LIMITS: [(usize, Paging); 7] = [
    (40, Paging::Absent),
    (15, Paging::One),
    (20, Paging::Small),
    (5, Paging::AtCount),
    (10, Paging::NearCap),
    (5, Paging::Huge),
    (5, Paging::Zero),
];

/// The §1.4 line count of `bytes` (decoded or not: only `\n` counts).
pub(super) fn line_count(bytes: &[u8]) -> u64 {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    newlines + u64::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// What `read` and `ls` calls draw from, besides the [`CallContext`].
pub(super) struct FlowContext<'a> {
    calls: &'a CallContext<'a>,
    /// The fixture's files.
    fixture: Vec<String>,
    /// Line counts of every regular file, root-relative.
    lines: std::collections::HashMap<String, u64>,
    /// Entry counts of every directory, root-relative (`""` is the root).
    children: std::collections::HashMap<String, u64>,
}

impl<'a> FlowContext<'a> {
    pub(super) fn new(
        calls: &'a CallContext<'a>,
        tree: &Tree,
        fixture: Vec<String>,
    ) -> FlowContext<'a> {
        let mut lines = std::collections::HashMap::new();
        let mut names: HashSet<(String, String)> = HashSet::new();
        for entry in &tree.entries {
            if entry.kind == FileKind::File {
                lines.insert(entry.path.clone(), line_count(&entry.content));
            }
            // Every entry and every ancestor is one name in its parent.
            let mut path = entry.path.as_str();
            loop {
                let (parent, name) = path.rsplit_once('/').unwrap_or(("", path));
                names.insert((parent.to_string(), name.to_string()));
                if parent.is_empty() {
                    break;
                }
                path = parent;
            }
        }
        let mut children = std::collections::HashMap::new();
        for (parent, _) in names {
            *children.entry(parent).or_insert(0) += 1;
        }
        FlowContext {
            calls,
            fixture,
            lines,
            children,
        }
    }
}

/// A paging value for a listing or file of `count` items around `cap`.
fn paging(draws: &mut Draws, table: &[(usize, Paging)], count: u64, cap: u64) -> Option<u64> {
    match draws.weighted(table) {
        Paging::Absent => None,
        Paging::One => Some(1),
        Paging::Small => Some(2 + draws.below(19) as u64),
        Paging::AtCount => Some(count.max(1)),
        Paging::PastCount => Some(count.max(1) + 1 + draws.below(3) as u64),
        Paging::NearCap => Some(cap - 1 + draws.below(3) as u64),
        Paging::Huge => Some(1_000_000),
        Paging::Zero => Some(0),
    }
}

/// A missing path: absent, under an absent directory, or below a file.
fn missing(draws: &mut Draws, context: &CallContext<'_>) -> String {
    match (draws.below(3), context.files.first()) {
        (0, _) | (_, None) => context.under("does-not-exist.txt"),
        (1, _) => context.under("missing/deeper.txt"),
        (_, Some(file)) => context.under(&format!("{file}/child")),
    }
}

/// Step 7: one `read` call: the target, then `offset`, then `limit`.
pub(super) fn read_call(draws: &mut Draws, flows: &FlowContext<'_>) -> ReadRequest {
    let context = flows.calls;
    let root = || (context.root.to_string(), None);
    let (path, lines) = match draws.weighted(&READ_TARGETS) {
        ReadTarget::Fixture => draws
            .pick(&flows.fixture)
            .map_or_else(root, |f| (context.under(f), flows.lines.get(f).copied())),
        ReadTarget::TreeFile => draws
            .pick(&context.files)
            .map_or_else(root, |f| (context.under(f), flows.lines.get(f).copied())),
        ReadTarget::Notable => draws
            .pick(&context.notable)
            .map_or_else(root, |p| (context.under(p), flows.lines.get(p).copied())),
        ReadTarget::Dir => draws
            .pick(&context.dirs)
            .map_or_else(root, |d| (context.under(d), None)),
        ReadTarget::Missing => (missing(draws, context), None),
        ReadTarget::Root => root(),
    };
    let lines = lines.unwrap_or(3);
    ReadRequest {
        path,
        offset: paging(draws, &OFFSETS, lines, 2000),
        limit: paging(draws, &LIMITS, lines, 2000),
        cwd: None,
    }
}

/// Step 8: one `ls` call: the target (and for a directory, a trailing-`/`
/// draw), then `offset`, then `limit`.
pub(super) fn ls_call(draws: &mut Draws, flows: &FlowContext<'_>) -> LsRequest {
    let context = flows.calls;
    let count = |dir: &str| flows.children.get(dir).copied().unwrap_or(0);
    let (path, entries) = match draws.weighted(&LS_TARGETS) {
        LsTarget::List => (context.under(FLOW_LIST), count(FLOW_LIST)),
        LsTarget::Dir => match draws.pick(&context.dirs) {
            Some(dir) if draws.percent(15) => (context.under(&format!("{dir}/")), count(dir)),
            Some(dir) => (context.under(dir), count(dir)),
            None => (context.root.to_string(), count("")),
        },
        LsTarget::Root => (context.root.to_string(), count("")),
        LsTarget::File => draws.pick(&context.files).map_or_else(
            || (context.root.to_string(), count("")),
            |f| (context.under(f), 0),
        ),
        LsTarget::Missing => (missing(draws, context), 0),
        LsTarget::Notable => draws.pick(&context.notable).map_or_else(
            || (context.root.to_string(), count("")),
            |p| (context.under(p), count(p)),
        ),
    };
    LsRequest {
        path,
        offset: paging(draws, &OFFSETS, entries, crate::flow::MAX_ENTRIES),
        limit: paging(draws, &LIMITS, entries, crate::flow::MAX_ENTRIES),
        cwd: None,
    }
}
