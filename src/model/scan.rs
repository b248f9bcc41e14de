//! One file's scan, search-contract §11 and §13: the whole file read at
//! once, binary detection (§11.1), decoding and lines (§11.2–§11.3),
//! maxCount and the boundary hit (§13), and context ownership by brute
//! force (§13.1): every context row is given to its nearest kept match,
//! ties to the earlier, by looking at every kept match.

use std::path::Path;

use crate::contract::{ContextLine, Match};

use super::pattern::LineMatcher;
use super::text::{decode, lines, preview};

/// What a scan is asked.
pub(crate) struct Scan<'a> {
    pub(crate) matcher: &'a LineMatcher,
    pub(crate) before: u64,
    pub(crate) after: u64,
    pub(crate) max_count: Option<u64>,
}

/// One file's answer.
pub(crate) enum Scanned {
    /// Could not be read (§11.1): counted, nothing else.
    Unreadable,
    /// Holds a NUL (§11.1).
    Binary,
    /// Text: its match count (§13 step 1, at most `maxCount`), its lines
    /// and decoded text (for symbols, §11.5), and the line indexes
    /// (0-based) of every counted match.
    Text {
        text: String,
        lines: Vec<String>,
        hits: Vec<usize>,
    },
}

/// §11, §13 step 1: read and test every line of one file.
pub(crate) fn scan(path: &Path, scan: &Scan<'_>) -> Scanned {
    let Ok(bytes) = std::fs::read(path) else {
        return Scanned::Unreadable;
    };
    if bytes.contains(&0) {
        return Scanned::Binary;
    }
    let text = decode(&bytes);
    let lines = lines(&text);
    let mut hits = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if scan.max_count.is_some_and(|m| hits.len() as u64 >= m) {
            break;
        }
        if scan.matcher.is_match(line) {
            hits.push(index);
        }
    }
    Scanned::Text { text, lines, hits }
}

/// §13 steps 1 and 6, §13.1: the returned groups of one text file with
/// `hits` counted, when `remaining > 0` matches may still be returned.
pub(crate) fn groups(
    file: &str,
    lines: &[String],
    hits: &[usize],
    remaining: u64,
    scan: &Scan<'_>,
) -> Vec<Match> {
    // Up to `remaining + 1` kept matches: the extra is the boundary hit.
    let keep = usize::try_from(remaining.saturating_add(1)).unwrap_or(usize::MAX);
    let kept: Vec<usize> = hits.iter().copied().take(keep).collect();
    let mut out: Vec<Match> = kept
        .iter()
        .map(|&index| Match {
            file: file.to_string(),
            line: index as u64 + 1,
            text: preview(&lines[index]),
            before: Vec::new(),
            after: Vec::new(),
            symbol: None,
        })
        .collect();
    for (row, line) in lines.iter().enumerate() {
        if kept.contains(&row) {
            continue;
        }
        let in_window = kept.iter().any(|&m| {
            (row < m && (m - row) as u64 <= scan.before)
                || (row > m && (row - m) as u64 <= scan.after)
        });
        if !in_window {
            continue;
        }
        // The nearest kept match; `min_by_key` keeps the first of equals,
        // and `kept` ascends, so a tie goes to the earlier match.
        let Some((owner, &m)) = kept.iter().enumerate().min_by_key(|(_, m)| m.abs_diff(row)) else {
            continue;
        };
        let context = ContextLine {
            line: row as u64 + 1,
            text: preview(line),
        };
        if row < m {
            out[owner].before.push(context);
        } else {
            out[owner].after.push(context);
        }
    }
    out.truncate(usize::try_from(remaining).unwrap_or(usize::MAX));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, pattern: &str, b: u64, a: u64, remaining: u64) -> Vec<Match> {
        let matcher = LineMatcher::new(pattern, false, false).unwrap();
        let scan = Scan {
            matcher: &matcher,
            before: b,
            after: a,
            max_count: None,
        };
        let lines = lines(text);
        let hits: Vec<usize> = (0..lines.len())
            .filter(|&i| matcher.is_match(&lines[i]))
            .collect();
        groups("f", &lines, &hits, remaining, &scan)
    }

    fn rows(m: &Match) -> (Vec<u64>, u64, Vec<u64>) {
        (
            m.before.iter().map(|c| c.line).collect(),
            m.line,
            m.after.iter().map(|c| c.line).collect(),
        )
    }

    #[test]
    fn the_examples_of_13_1() {
        let g = run(
            "before\nneedle one\nbetween\nneedle two\nafter",
            "needle",
            1,
            1,
            1,
        );
        assert_eq!(
            g.iter().map(rows).collect::<Vec<_>>(),
            [(vec![1], 2, vec![3])]
        );
        let g = run("one\nneedle\nthree\nfour\nneedle\nsix", "needle", 2, 2, 200);
        assert_eq!(
            g.iter().map(rows).collect::<Vec<_>>(),
            [(vec![1], 2, vec![3]), (vec![4], 5, vec![6])]
        );
        let g = run(
            "one\nneedle a\nthree\nfour\nneedle b\nsix\n",
            "needle",
            2,
            2,
            1,
        );
        assert_eq!(
            g.iter().map(rows).collect::<Vec<_>>(),
            [(vec![1], 2, vec![3])]
        );
    }

    #[test]
    fn a_shared_row_can_sit_past_its_owners_window() {
        // Issue 34 item 1: row 2 is before-context of hit 3 but nearer,
        // on a tie, to hit 1.
        let g = run("x\n\nx\n", "x", 1, 0, 200);
        assert_eq!(
            g.iter().map(rows).collect::<Vec<_>>(),
            [(vec![], 1, vec![2]), (vec![], 3, vec![])]
        );
    }
}
