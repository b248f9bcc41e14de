//! Shrinking a divergent case to a minimal tree and call that still
//! diverges, as proptest shrinks a failing input.
//!
//! The passes, repeated until none makes progress or the budget is spent:
//! drop files (halves, then one at a time), drop lines, remove runs of
//! characters inside each line (as proptest shrinks a string), reset
//! call fields to their defaults (for `read` and `ls`: `offset` and `limit`
//! dropped), lower the numbers (`limit`, `maxCount`, context) to 1 or by
//! halves, try the simplest patterns whole (`*`, `**`, the empty regex),
//! and simplify the pattern one character at a time.
//!
//! As proptest keeps the *same* failure while it shrinks, a candidate is
//! kept only when it is the same bug: its call must be one validation
//! treats as it treats the original ([`Call::validation`]: a seam call
//! stays one a flow would send, a refused flow call stays refused with the
//! same code), and the predicate must hold. The kit's predicate is "the
//! peers still disagree, in the same kind of way"
//! ([`super::regression::shrink_to_regression`]), so a peer that lists an
//! ignored file never shrinks to an empty glob the flow refuses, which
//! fails for another reason.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::case::Call;
use super::plan::GeneratedFile;

/// A self-contained case: a tree under a symbolic root and one call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Case {
    /// The symbolic root the call's `root` is spelled with.
    pub root: String,
    /// The tree.
    pub files: Vec<GeneratedFile>,
    /// The call.
    pub call: Call,
}

/// How long shrinking may go on.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Predicate evaluations at most.
    pub steps: usize,
    /// Wall time at most.
    pub time: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            steps: 400,
            time: Duration::from_secs(20),
        }
    }
}

/// Shrink `case` while `diverges` holds and its call validates as the
/// original's does. Returns the smallest case found and the number of
/// predicate evaluations spent.
pub fn shrink(
    case: Case,
    budget: Budget,
    mut diverges: impl FnMut(&Case) -> bool,
) -> (Case, usize) {
    let start = Instant::now();
    let mut steps = 0;
    let validation = case.call.validation();
    let mut best = case;
    let mut try_candidate = |candidate: Case, best: &mut Case, steps: &mut usize| -> bool {
        if *steps >= budget.steps || start.elapsed() > budget.time || candidate == *best {
            return false;
        }
        // Outside the contract, or refused for another reason: not the same
        // case, whatever the peers say (and not worth a step).
        if candidate.call != best.call && candidate.call.validation() != validation {
            return false;
        }
        *steps += 1;
        if diverges(&candidate) {
            *best = candidate;
            true
        } else {
            false
        }
    };
    loop {
        let before = best.clone();
        // Drop files: halves, then one at a time.
        let mut chunk = best.files.len().div_ceil(2).max(1);
        while chunk >= 1 && !best.files.is_empty() {
            let mut i = 0;
            while i < best.files.len() {
                let mut c = best.clone();
                let end = (i + chunk).min(c.files.len());
                c.files.drain(i..end);
                if !try_candidate(c, &mut best, &mut steps) {
                    i += chunk;
                }
            }
            if chunk == 1 {
                break;
            }
            chunk /= 2;
        }
        // Drop lines, then shorten them.
        for f in 0..best.files.len() {
            let mut l = 0;
            loop {
                let lines = split_lines(&best.files[f].content);
                if l >= lines.len() {
                    break;
                }
                let mut c = best.clone();
                c.files[f].content = join_without(&lines, l);
                if !try_candidate(c, &mut best, &mut steps) {
                    l += 1;
                }
            }
            // Shrink inside each line, as proptest shrinks a string:
            // remove runs of characters (halves, then quarters, … then one
            // at a time) wherever they are, keeping the line's terminator,
            // so a long prefix before the interesting part goes too.
            let mut l = 0;
            while l < split_lines(&best.files[f].content).len() {
                shrink_line(&mut best, f, l, &mut |c, best| {
                    try_candidate(c, best, &mut steps)
                });
                l += 1;
            }
        }
        // Reset call fields to defaults.
        // One field at a time, each built from the current best so an
        // accepted reset is never undone by the next candidate.
        for k in 0..call_simplifications(&best).len() {
            if let Some(c) = call_simplifications(&best).into_iter().nth(k) {
                try_candidate(c, &mut best, &mut steps);
            }
        }
        // Simplify the pattern one character at a time.
        let mut i = 0;
        loop {
            let pattern = match &best.call {
                Call::Grep(g) => g.pattern.clone(),
                Call::Glob(g) => g.pattern.clone(),
                Call::FlowGrep(g) => g.pattern.clone(),
                Call::FlowGlob(g) => g.pattern.clone(),
                _ => break,
            };
            let Some((at, ch)) = pattern.char_indices().nth(i) else {
                break;
            };
            let mut shorter = pattern.clone();
            shorter.replace_range(at..at + ch.len_utf8(), "");
            let mut c = best.clone();
            match &mut c.call {
                Call::Grep(g) => g.pattern = shorter,
                Call::Glob(g) => g.pattern = shorter,
                Call::FlowGrep(g) => g.pattern = shorter,
                Call::FlowGlob(g) => g.pattern = shorter,
                _ => break,
            }
            if !try_candidate(c, &mut best, &mut steps) {
                i += 1;
            }
        }
        if best == before || steps >= budget.steps || start.elapsed() > budget.time {
            return (best, steps);
        }
    }
}

/// Remove runs of line `l` of file `f` of `best` while the case still
/// diverges: characters when the line is UTF-8 (so every candidate stays
/// valid text), bytes otherwise.
fn shrink_line(
    best: &mut Case,
    f: usize,
    l: usize,
    try_candidate: &mut dyn FnMut(Case, &mut Case) -> bool,
) {
    let lines = split_lines(&best.files[f].content);
    let Some(line) = lines.get(l) else { return };
    let ends = line
        .iter()
        .rev()
        .take_while(|b| **b == b'\n' || **b == b'\r')
        .count();
    let (body, end) = line.split_at(line.len() - ends);
    let end = end.to_vec();
    // The units to remove: char boundaries for text, single bytes else.
    let mut units: Vec<Vec<u8>> = match std::str::from_utf8(body) {
        Ok(text) => text.chars().map(|c| c.to_string().into_bytes()).collect(),
        Err(_) => body.iter().map(|b| vec![*b]).collect(),
    };
    let rebuild = |units: &[Vec<u8>], best: &Case| {
        let mut c = best.clone();
        let mut lines = split_lines(&c.files[f].content);
        let mut line: Vec<u8> = units.concat();
        line.extend_from_slice(&end);
        lines[l] = line;
        c.files[f].content = lines.concat();
        c
    };
    let mut chunk = units.len() / 2;
    while chunk >= 1 {
        let mut i = 0;
        while i < units.len() {
            let mut fewer = units.clone();
            fewer.drain(i..(i + chunk).min(units.len()));
            let candidate = rebuild(&fewer, best);
            if try_candidate(candidate, best) {
                units = fewer;
            } else {
                i += chunk;
            }
        }
        chunk /= 2;
    }
}

/// Lines with their terminators, so joining them gives the bytes back.
fn split_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

fn join_without(lines: &[Vec<u8>], skip: usize) -> Vec<u8> {
    lines
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != skip)
        .flat_map(|(_, l)| l.iter().copied())
        .collect()
}

/// Candidate calls with one field reset towards the default.
fn call_simplifications(case: &Case) -> Vec<Case> {
    let mut out = Vec::new();
    let mut with = |f: &dyn Fn(&mut Call)| {
        let mut c = case.clone();
        f(&mut c.call);
        out.push(c);
    };
    with(&|c| match c {
        Call::Grep(g) => g.root = root_of(&g.root),
        Call::Glob(g) => g.root = root_of(&g.root),
        // A read or ls path names its target; the root is another call.
        _ => {}
    });
    with(&|c| match c {
        Call::Read(r) => r.offset = None,
        Call::Ls(l) => l.offset = None,
        _ => {}
    });
    with(&|c| match c {
        Call::Read(r) => r.limit = None,
        Call::Ls(l) => l.limit = None,
        _ => {}
    });
    with(&|c| {
        if let Call::Grep(g) = c {
            g.globs.clear();
        }
    });
    with(&|c| {
        if let Call::Grep(g) = c
            && !g.globs.is_empty()
        {
            g.globs.remove(0);
        }
    });
    with(&|c| {
        if let Call::Grep(g) = c {
            g.before_context = 0;
            g.after_context = 0;
        }
    });
    with(&|c| {
        if let Call::Grep(g) = c {
            g.max_count = None;
        }
    });
    with(&|c| {
        if let Call::Grep(g) = c {
            g.symbols = false;
        }
    });
    with(&|c| {
        if let Call::Grep(g) = c {
            g.files_with_matches = false;
        }
    });
    with(&|c| {
        if let Call::Grep(g) = c {
            g.ignore_case = false;
            g.smart_case = false;
        }
    });
    with(&|c| {
        if let Call::Grep(g) = c {
            g.fixed_strings = false;
        }
    });
    with(&|c| match c {
        Call::Grep(g) => g.hidden = false,
        Call::Glob(g) => g.hidden = false,
        _ => {}
    });
    with(&|c| match c {
        Call::Grep(g) => g.no_ignore = false,
        Call::Glob(g) => g.no_ignore = false,
        _ => {}
    });
    with(&|c| match c {
        Call::Grep(g) => g.limit = crate::contract::MAX_GREP_MATCHES,
        Call::Glob(g) => g.limit = crate::contract::MAX_ENTRIES,
        _ => {}
    });
    // Smaller numbers, so a divergence that needs a limit to be reached
    // needs fewer files: to 1, then halves. A default limit stays (it was
    // not what the divergence needed, and it reads as no limit at all).
    for smaller in [|n: u64| 1.min(n), |n: u64| n / 2] {
        with(&|c| match c {
            Call::Grep(g) if g.limit != crate::contract::MAX_GREP_MATCHES => {
                g.limit = smaller(g.limit).max(1);
            }
            Call::Glob(g) if g.limit != crate::contract::MAX_ENTRIES => {
                g.limit = smaller(g.limit).max(1);
            }
            _ => {}
        });
        with(&|c| {
            if let Call::Grep(g) = c {
                g.max_count = g.max_count.map(|n| smaller(n).max(1));
            }
        });
        with(&|c| {
            if let Call::Grep(g) = c {
                g.before_context = smaller(g.before_context);
                g.after_context = smaller(g.after_context);
            }
        });
    }
    // The simplest patterns whole: a pattern that only validates with all
    // of its characters (`*{,}`) cannot lose them one at a time.
    with(&|c| match c {
        Call::Grep(g) => g.pattern.clear(),
        Call::Glob(g) => g.pattern = "*".into(),
        _ => {}
    });
    with(&|c| {
        if let Call::Glob(g) = c {
            g.pattern = "**".into();
        }
    });
    out
}

/// The first segment of an absolute root (`/r/sub/x` → `/r`), which is
/// where every plan's tree lives.
fn root_of(root: &str) -> String {
    match root.strip_prefix('/') {
        Some(rest) => format!("/{}", rest.split('/').next().unwrap_or_default()),
        None => root.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::GrepInput;

    #[test]
    fn shrinks_to_the_one_file_and_line_that_matter() {
        let mut input = GrepInput::new("needle", "/r/sub");
        input.before_context = 2;
        input.globs = vec!["*.txt".into()];
        let case = Case {
            root: "/r".into(),
            files: vec![
                GeneratedFile::new("a.txt", "one\ntwo\n"),
                GeneratedFile::new("sub/b.txt", "x\nthe needle here\ny\n"),
                GeneratedFile::new("c.txt", "three\n"),
            ],
            call: Call::Grep(input),
        };
        // "Diverges" whenever some file still holds "needle".
        let (small, steps) = shrink(case, Budget::default(), |c| {
            c.files
                .iter()
                .any(|f| f.content.windows(6).any(|w| w == b"needle"))
        });
        assert!(steps > 0);
        assert_eq!(small.files.len(), 1);
        assert_eq!(small.files[0].path, "sub/b.txt");
        assert_eq!(split_lines(&small.files[0].content).len(), 1);
        let Call::Grep(g) = small.call else { panic!() };
        assert_eq!(
            (g.root.as_str(), g.before_context, g.globs.len()),
            ("/r", 0, 0)
        );
        assert_eq!(g.pattern, "");
    }

    /// A long run of emoji before the part that matters goes, character by
    /// character boundaries kept, and the line keeps its terminator.
    #[test]
    fn shrinks_inside_a_line() {
        let line = format!("{}needle{}\n", "😀".repeat(2412), "x".repeat(300));
        let case = Case {
            root: "/r".into(),
            files: vec![GeneratedFile::new("a.txt", line)],
            call: Call::Grep(GrepInput::new("needle", "/r")),
        };
        let (small, _) = shrink(case, Budget::default(), |c| {
            c.files.iter().any(|f| {
                let text = String::from_utf8_lossy(&f.content);
                text.contains("needle") && text.ends_with('\n')
            })
        });
        assert_eq!(small.files[0].content, b"needle\n");
    }

    /// Whatever the predicate says, no step leaves the contract: a seam
    /// glob keeps a pattern validation passes (an empty one is refused,
    /// §5), and a refused flow call stays refused for the same reason.
    #[test]
    fn a_step_never_leaves_the_contract() {
        use crate::call::Validation;
        use crate::contract::{GlobInput, GrepRequest};
        let files = vec![GeneratedFile::new("a.ts", "x\n")];
        let case = |call| Case {
            root: "/r".into(),
            files: files.clone(),
            call,
        };
        let (small, _) = shrink(
            case(Call::Glob(GlobInput::new("*.ts", "/r"))),
            Budget::default(),
            |_| true,
        );
        assert_eq!(small.call.validation(), Validation::Passes);
        let Call::Glob(g) = &small.call else { panic!() };
        assert_eq!(g.pattern.chars().count(), 1, "{g:?}");

        // `\b` is refused (§10); shrinking it to `b` or `` would be asking
        // another question, one validation passes.
        let refused = Call::FlowGrep(GrepRequest::new("a\\bc"));
        let code = refused.validation();
        assert!(matches!(code, Validation::Refused(_)), "{code:?}");
        let (small, _) = shrink(case(refused), Budget::default(), |_| true);
        assert_eq!(small.call.validation(), code);
        let Call::FlowGrep(r) = &small.call else {
            panic!()
        };
        assert!(r.pattern.len() < 4 && r.pattern.contains('\\'), "{r:?}");
    }

    #[test]
    fn a_read_call_loses_its_paging_fields_and_unneeded_files() {
        use crate::flow::ReadRequest;
        let case = Case {
            root: "/r".into(),
            files: vec![
                GeneratedFile::new("a.txt", "one\r\ntwo\r\n"),
                GeneratedFile::new("b.txt", "x\n"),
            ],
            call: Call::Read(ReadRequest::new("/r/a.txt").offset(2).limit(1)),
        };
        // "Diverges" while a CR is in the tree.
        let (small, _) = shrink(case, Budget::default(), |c| {
            c.files.iter().any(|f| f.content.contains(&b'\r'))
        });
        assert_eq!(small.files.len(), 1);
        assert_eq!(small.call, Call::Read(ReadRequest::new("/r/a.txt")));
    }
}
