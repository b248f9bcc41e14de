//! Path ordering (search-contract, "Conventions"): every sort in the
//! contract compares strings as sequences of UTF-16 code units, the way a
//! JavaScript `Array.prototype.sort` does. This is *not* `str` ordering:
//! code points above U+FFFF (surrogate pairs, D800–DFFF) sort before
//! U+E000–U+FFFF. Every sort in lawsuite goes through this one helper.

use std::cmp::Ordering;

/// Compare two strings by UTF-16 code units.
///
/// ```
/// use std::cmp::Ordering;
/// use lawsuite::contract::utf16_cmp;
/// // '-' (0x2D) sorts before '/' (0x2F), so a sibling dir sorts first.
/// assert_eq!(utf16_cmp("a-b/x", "a/b"), Ordering::Less);
/// // U+1F600 is the surrogate pair D83D DE00, which sorts before U+FF21.
/// assert_eq!(utf16_cmp("😀", "Ａ"), Ordering::Less);
/// assert!("😀" > "Ａ"); // while Rust's byte order says the opposite
/// ```
pub fn utf16_cmp(a: &str, b: &str) -> Ordering {
    // UTF-8 byte order is code point order, which is UTF-16 order except
    // between a scalar above U+FFFF (lead byte F0–F4, a surrogate pair in
    // UTF-16) and one in U+E000–U+FFFF (lead byte EE or EF). Only the first
    // differing byte decides: where it is a continuation byte, both scalars
    // share their lead byte and so their class. One pass over the common
    // prefix; checking both strings for ASCII first, on every comparison,
    // was 2.8 % of a search of the cargo registry's 13,000 paths.
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let Some(i) = first_difference(a, b) else {
        return a.len().cmp(&b.len());
    };
    let (x, y) = (a[i], b[i]);
    let bmp_high = |c: u8| c == 0xEE || c == 0xEF;
    if (x >= 0xF0 && bmp_high(y)) || (y >= 0xF0 && bmp_high(x)) {
        y.cmp(&x)
    } else {
        x.cmp(&y)
    }
}

/// The index of the first byte where `a` and `b` differ, within their
/// common length.
///
/// Eight bytes at a time: sorted paths share long prefixes (the root and
/// the directories above), and a byte-at-a-time scan of them made the sort
/// of the cargo registry's 12,000 candidates 5 % of a whole search.
fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    const WORD: usize = std::mem::size_of::<u64>();
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + WORD <= n {
        let word = |s: &[u8]| {
            let mut bytes = [0u8; WORD];
            bytes.copy_from_slice(&s[i..i + WORD]);
            u64::from_le_bytes(bytes)
        };
        let diff = word(a) ^ word(b);
        if diff != 0 {
            // Little-endian: the lowest set bit is in the first differing byte.
            return Some(i + diff.trailing_zeros() as usize / 8);
        }
        i += WORD;
    }
    (i..n).find(|&j| a[j] != b[j])
}

/// Sort strings in place by UTF-16 code units.
///
/// ```
/// let mut names = vec!["z.txt".to_string(), "Z.txt".to_string(), "😀.txt".to_string(), "Ω.txt".to_string()];
/// lawsuite::contract::sort_utf16(&mut names);
/// assert_eq!(names, ["Z.txt", "z.txt", "Ω.txt", "😀.txt"]);
/// ```
pub fn sort_utf16<S: AsRef<str>>(items: &mut [S]) {
    items.sort_by(|a, b| utf16_cmp(a.as_ref(), b.as_ref()));
}

/// The `limit` smallest strings, in UTF-16 order, of all those offered,
/// and how many were offered: a glob answer's `paths` and `total` (§6.3,
/// §14) kept as the walk finds them.
///
/// A listing returns at most `limit` paths (1,000 through the flow) of all
/// it counts: `**/*.py` over a Python installation matches 29,082 files.
/// Sorting every match to return the first 1,000 cost `portable` more than
/// `rg --files` pays for the whole listing (issue 47), so only the
/// `limit` smallest so far are kept, in a heap whose top is the largest of
/// them: an offer costs one comparison once the heap is full, and memory
/// is the answer's size.
///
/// ```
/// use lawsuite::contract::order::Smallest;
/// let mut kept = Smallest::new(2);
/// for path in ["c.rs", "😀.rs", "a.rs", "Ω.rs", "b.rs"] {
///     kept.offer(path.to_string());
/// }
/// assert_eq!(kept.total(), 5);
/// assert_eq!(kept.into_sorted(), ["a.rs", "b.rs"]);
/// ```
#[derive(Clone, Debug)]
pub struct Smallest {
    limit: usize,
    heap: std::collections::BinaryHeap<Utf16>,
    offered: u64,
}

/// A string ordered by UTF-16 code units.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Utf16(String);

impl Ord for Utf16 {
    fn cmp(&self, other: &Self) -> Ordering {
        utf16_cmp(&self.0, &other.0)
    }
}

impl PartialOrd for Utf16 {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Smallest {
    /// Keep the `limit` smallest (a limit beyond memory keeps them all).
    pub fn new(limit: u64) -> Smallest {
        Smallest {
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
            heap: std::collections::BinaryHeap::new(),
            offered: 0,
        }
    }

    /// Count `item`, and keep it if it is among the `limit` smallest so far.
    pub fn offer(&mut self, item: String) {
        self.offered += 1;
        if self.heap.len() < self.limit {
            self.heap.push(Utf16(item));
        } else if let Some(mut largest) = self.heap.peek_mut()
            && utf16_cmp(&item, &largest.0) == Ordering::Less
        {
            *largest = Utf16(item);
        }
    }

    /// How many items were offered.
    pub fn total(&self) -> u64 {
        self.offered
    }

    /// The same selection with `prefix` before every kept item (a walk
    /// selects relative paths and answers output paths, §6.4): the same
    /// prefix before two strings leaves their order as it was.
    ///
    /// ```
    /// use lawsuite::contract::order::Smallest;
    /// let mut kept = Smallest::new(1);
    /// kept.offer("b.rs".into());
    /// kept.offer("a.rs".into());
    /// let kept = kept.prefixed("/r/");
    /// assert_eq!((kept.total(), kept.into_sorted()), (2, vec!["/r/a.rs".to_string()]));
    /// ```
    pub fn prefixed(self, prefix: &str) -> Smallest {
        let heap = self
            .heap
            .into_iter()
            .map(|Utf16(item)| Utf16([prefix, &item].concat()))
            .collect();
        Smallest { heap, ..self }
    }

    /// The kept items, smallest first.
    pub fn into_sorted(self) -> Vec<String> {
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|Utf16(s)| s)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ls_code_unit_example() {
        // conformance-kit §7.4 #2.
        let decomposed = "e\u{301}.txt";
        let mut names = vec![
            "a.txt", "A.txt", "_.txt", "!.txt", "é.txt", decomposed, "😀.txt", "𐀀.txt", "z.txt",
            "Z.txt", "Ω.txt",
        ];
        sort_utf16(&mut names);
        assert_eq!(
            names,
            [
                "!.txt", "A.txt", "Z.txt", "_.txt", "a.txt", decomposed, "z.txt", "é.txt", "Ω.txt",
                "𐀀.txt", "😀.txt"
            ]
        );
    }

    proptest::proptest! {
        /// The kept items are the first `limit` of a sort of all of them,
        /// whatever order they come in.
        #[test]
        fn smallest_is_the_head_of_the_sort(items in proptest::collection::vec("[a-c😀Ω/]{0,4}", 0..40), limit in 0u64..45) {
            let mut kept = Smallest::new(limit);
            for item in &items {
                kept.offer(item.clone());
            }
            proptest::prop_assert_eq!(kept.total(), items.len() as u64);
            let mut sorted = items;
            sort_utf16(&mut sorted);
            sorted.truncate(limit as usize);
            proptest::prop_assert_eq!(kept.into_sorted(), sorted);
        }

        #[test]
        fn agrees_with_encode_utf16(a in ".*", b in ".*") {
            proptest::prop_assert_eq!(utf16_cmp(&a, &b), a.encode_utf16().cmp(b.encode_utf16()));
        }

        /// Paths share long prefixes; the word-wise scan must find a
        /// difference at any offset past them, and in the tail.
        #[test]
        fn agrees_past_a_shared_prefix(prefix in ".{0,40}", a in ".{0,12}", b in ".{0,12}") {
            let (a, b) = (format!("{prefix}{a}"), format!("{prefix}{b}"));
            proptest::prop_assert_eq!(utf16_cmp(&a, &b), a.encode_utf16().cmp(b.encode_utf16()));
        }
    }
}
