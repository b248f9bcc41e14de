//! Which trials the inputs hold, and where, in 24 bytes a trial: a
//! trial's [`Key`] and its [`Loc`] (file, line and verdict tag in one
//! word), sorted by key so that a trial found twice, or a trial of one run
//! looked up in another, is found by its neighbours or by a binary
//! search. Six million trials take 144 MB here; their outcomes, held
//! whole, took 5 to 7 GB.

use super::line::{Key, Tag};
use super::{ResultsError, ResultsErrorKind};

/// The most files one command reads: 65,536, what the 16 bits of file of
/// a trial's place hold (16 of file, 45 of line, 3 of verdict: 8 bytes).
pub const MAX_FILES: usize = 1 << 16;

/// The most lines of one file [`Loc`] holds: 2^45 (35 trillion), past any
/// file a disk holds.
const MAX_LINE: u64 = 1 << 45;

/// Where an outcome is, and its verdict's tag: file (16 bits), line (45
/// bits), tag (3 bits). Ordered by file, then line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Loc(u64);

impl Loc {
    /// The outcome at `line` of file `file`, of verdict `tag`.
    pub(crate) fn new(file: usize, line: u64, tag: Tag, source: &str) -> Result<Loc, ResultsError> {
        if file >= MAX_FILES || line >= MAX_LINE {
            return Err(ResultsError {
                kind: ResultsErrorKind::Unreadable,
                source: source.to_string(),
                line: None,
                message: format!(
                    "more than {MAX_FILES} files or {MAX_LINE} lines: read them in parts"
                ),
            });
        }
        Ok(Loc((file as u64) << 48
            | line << 3
            | u64::from(tag.number())))
    }

    /// Its file's index.
    pub(crate) fn file(self) -> usize {
        (self.0 >> 48) as usize
    }

    /// Its line.
    pub(crate) fn line(self) -> u64 {
        (self.0 >> 3) & (MAX_LINE - 1)
    }

    /// Its verdict's tag.
    pub(crate) fn tag(self) -> Tag {
        Tag::from_number((self.0 & 7) as u8)
    }

    /// File and line, without the tag: the same place has one value.
    pub(crate) fn place(self) -> u64 {
        self.0 >> 3
    }
}

/// One outcome in an [`Index`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Entry {
    pub(crate) key: Key,
    pub(crate) loc: Loc,
}

/// Outcomes by trial: push them as they are read, then [`Index::sort`].
#[derive(Debug, Default)]
pub(crate) struct Index {
    entries: Vec<Entry>,
}

impl Index {
    /// Room for `n` more outcomes (a run line's `trials`), so a large
    /// index is one allocation rather than doublings up to it. At most 16
    /// million at once: the number is the file's word, not a promise, and
    /// past it the index grows as outcomes come.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.entries.reserve(n.min(1 << 24));
    }

    pub(crate) fn push(&mut self, key: Key, loc: Loc) {
        self.entries.push(Entry { key, loc });
    }

    /// How many outcomes.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Sort by trial, each trial's outcomes in reading order.
    pub(crate) fn sort(&mut self) {
        self.entries.sort_unstable();
        self.entries.shrink_to_fit();
    }

    /// After [`Index::sort`]: each trial found more than once, its
    /// outcomes in reading order.
    pub(crate) fn repeats(&self) -> impl Iterator<Item = &[Entry]> {
        self.entries
            .chunk_by(|a, b| a.key == b.key)
            .filter(|group| group.len() > 1)
    }

    /// After [`Index::sort`]: the position of the first outcome of
    /// `key`, if there is one.
    pub(crate) fn find(&self, key: Key) -> Option<usize> {
        let at = self.entries.partition_point(|e| e.key < key);
        (self.entries.get(at).is_some_and(|e| e.key == key)).then_some(at)
    }

    /// The outcome at `position`.
    pub(crate) fn get(&self, position: usize) -> Entry {
        self.entries[position]
    }

    /// Every outcome, by trial.
    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loc_keeps_file_line_and_tag_and_sorts_by_place() {
        let a = Loc::new(MAX_FILES - 1, MAX_LINE - 1, Tag::Flaky, "x").unwrap();
        assert_eq!(
            (a.file(), a.line(), a.tag()),
            (MAX_FILES - 1, MAX_LINE - 1, Tag::Flaky)
        );
        let b = Loc::new(0, 7, Tag::Pass, "x").unwrap();
        let c = Loc::new(1, 2, Tag::Broken, "x").unwrap();
        assert!(b < c && c < a);
        assert!(Loc::new(MAX_FILES, 1, Tag::Pass, "x").is_err());
        assert!(Loc::new(0, MAX_LINE, Tag::Pass, "x").is_err());
        assert_eq!(std::mem::size_of::<Entry>(), 24);
    }
}
