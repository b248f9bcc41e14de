//! Context ownership (search-contract §13.1).
//!
//! Within one file every context row belongs to exactly one match: the
//! nearest by line distance, the **earlier** match on a tie. Rows above their
//! owner go to `before`, rows below to `after`. Both peers group with this one
//! function, which is why their answers agree at the limit cut (native-peer
//! §2.6: grouping all rows of a file, or the kept rows plus one boundary hit,
//! gives every kept match the same context).

use super::{ContextLine, Match};

/// Whether a row is a hit or a context line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowKind {
    /// The line matched (and was counted, §13 step 1).
    Match,
    /// The line is within `B`/`A` lines of a kept match.
    Context,
}

/// One kept row of a file: line number, preview text, kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// 1-based line number.
    pub line: u64,
    /// Preview text (§11.4).
    pub text: String,
    /// Hit or context.
    pub kind: RowKind,
}

/// Group the rows of one file into matches with their owned context.
///
/// `rows` must be sorted by line with no line repeated (a line kept as a
/// match is never also context, §13 step 1). Context rows of a file without
/// matches are dropped. The returned matches carry no symbol.
///
/// ```
/// use lawsuite::contract::grouping::{group, Row, RowKind::*};
/// let row = |line, kind| Row { line, text: format!("l{line}"), kind };
/// // rows 1 ctx, 2 match, 3 ctx, 4 match, 5 ctx (§13.1's last example)
/// let rows = [row(1, Context), row(2, Match), row(3, Context), row(4, Match), row(5, Context)];
/// let m = group("f", &rows);
/// assert_eq!(m.len(), 2);
/// let lines = |v: &[lawsuite::contract::ContextLine]| v.iter().map(|c| c.line).collect::<Vec<_>>();
/// assert_eq!((lines(&m[0].before), lines(&m[0].after)), (vec![1], vec![3]));
/// assert_eq!((lines(&m[1].before), lines(&m[1].after)), (vec![], vec![5]));
/// ```
pub fn group(file: &str, rows: &[Row]) -> Vec<Match> {
    let mut matches: Vec<Match> = rows
        .iter()
        .filter(|r| r.kind == RowKind::Match)
        .map(|r| Match {
            file: file.to_string(),
            line: r.line,
            text: r.text.clone(),
            before: Vec::new(),
            after: Vec::new(),
            symbol: None,
        })
        .collect();
    if matches.is_empty() {
        return matches;
    }
    // `next` = index of the first match whose line is after the current row;
    // rows are sorted, so it only moves forward.
    let mut next = 0;
    for row in rows.iter().filter(|r| r.kind == RowKind::Context) {
        while next < matches.len() && matches[next].line < row.line {
            next += 1;
        }
        let below = next.checked_sub(1); // nearest match above the row
        let above = (next < matches.len()).then_some(next); // nearest match below it
        let owner = match (below, above) {
            (Some(b), Some(a)) => {
                let up = row.line - matches[b].line;
                let down = matches[a].line - row.line;
                // Tie → the earlier match.
                if up <= down { b } else { a }
            }
            (Some(b), None) => b,
            (None, Some(a)) => a,
            (None, None) => continue,
        };
        let ctx = ContextLine {
            line: row.line,
            text: row.text.clone(),
        };
        if matches[owner].line > row.line {
            matches[owner].before.push(ctx);
        } else {
            matches[owner].after.push(ctx);
        }
    }
    matches
}

#[cfg(test)]
mod tests {
    use super::RowKind::{Context, Match};
    use super::{Row, RowKind, group};

    fn rows(spec: &[(u64, RowKind)]) -> Vec<Row> {
        spec.iter()
            .map(|&(line, kind)| Row {
                line,
                text: format!("l{line}"),
                kind,
            })
            .collect()
    }

    fn shape(m: &[crate::contract::Match]) -> Vec<(u64, Vec<u64>, Vec<u64>)> {
        m.iter()
            .map(|m| {
                (
                    m.line,
                    m.before.iter().map(|c| c.line).collect(),
                    m.after.iter().map(|c| c.line).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn tie_goes_to_the_earlier_match() {
        // before / needle one / between / needle two / after, context 1.
        let r = rows(&[
            (1, Context),
            (2, Match),
            (3, Context),
            (4, Match),
            (5, Context),
        ]);
        assert_eq!(
            shape(&group("f", &r)),
            [(2, vec![1], vec![3]), (4, vec![], vec![5])]
        );
    }

    #[test]
    fn nearest_match_owns_the_row() {
        // one / needle / three / four / needle / six, context 2.
        let r = rows(&[
            (1, Context),
            (2, Match),
            (3, Context),
            (4, Context),
            (5, Match),
            (6, Context),
        ]);
        assert_eq!(
            shape(&group("f", &r)),
            [(2, vec![1], vec![3]), (5, vec![4], vec![6])]
        );
    }

    #[test]
    fn context_without_matches_is_never_emitted() {
        assert!(group("f", &rows(&[(1, Context), (2, Context)])).is_empty());
    }

    #[test]
    fn far_rows_and_many_before() {
        let r = rows(&[(1, Context), (2, Context), (3, Match), (9, Context)]);
        assert_eq!(shape(&group("f", &r)), [(3, vec![1, 2], vec![9])]);
    }
}
