//! search-contract §13 and §13.1 checked against oracles that share no code
//! with `portable`: a brute-force model of the rule, written here from the
//! spec text, and `rg` itself for which rows a scan collects.
//!
//! Every file of one to six lines, each a hit (`x`) or not (`o`), is asked
//! with every `beforeContext`/`afterContext` in 0..=3, `maxCount` absent or
//! 1..=3 and `limit` 0, 1, 2 and 200: hits adjacent, one apart, at both
//! edges of the file. The model answers each call by the letter of §13:
//! count the hits up to `maxCount`, keep `limit + 1` of them, collect every
//! other line within `B` before or `A` after a kept hit, give each row to
//! its nearest kept hit (ties to the earlier), keep `limit` groups. The
//! reference must give the same answer, and must never refuse one (a
//! refusal is the bound of `lawsuite::call::Bounds` overruling the spec).

use std::fs;
use std::path::Path;
use std::process::Command;

use lawsuite::call::Call;
use lawsuite::contract::GrepInput;
use lawsuite::portable::Portable;
use serde_json::Value;

/// The longest file asked about, in lines.
const MOST_LINES: usize = 6;
const CONTEXTS: std::ops::RangeInclusive<u64> = 0..=3;
const MAX_COUNTS: [Option<u64>; 4] = [None, Some(1), Some(2), Some(3)];
const LIMITS: [u64; 4] = [0, 1, 2, 200];

/// One returned hit as the model or a peer gives it: its line, and the line
/// numbers of its `before` and `after` rows.
type Hit = (u64, Vec<u64>, Vec<u64>);

/// What §13 and §13.1 give for one file, by brute force.
fn model(hits: &[bool], before: u64, after: u64, max_count: Option<u64>, limit: u64) -> Answer {
    // §13 step 1: a line is a match only while fewer than M are counted.
    let mut counted = Vec::new();
    for (i, &hit) in hits.iter().enumerate() {
        if hit && max_count.is_none_or(|m| (counted.len() as u64) < m) {
            counted.push(i as u64 + 1);
        }
    }
    let total = counted.len() as u64;
    // Collection only while `remaining > 0`: `remaining + 1` kept.
    let kept: Vec<u64> = if limit == 0 {
        Vec::new()
    } else {
        counted.iter().copied().take(limit as usize + 1).collect()
    };
    let mut groups: Vec<Hit> = kept.iter().map(|&k| (k, Vec::new(), Vec::new())).collect();
    for line in 1..=hits.len() as u64 {
        if kept.contains(&line) {
            continue;
        }
        let collected = kept
            .iter()
            .any(|&k| (line < k && k - line <= before) || (line > k && line - k <= after));
        if !collected {
            continue;
        }
        // The nearest kept hit; `min_by_key` keeps the first of equals,
        // and `kept` is ascending: a tie goes to the earlier hit.
        let owner = (0..kept.len())
            .min_by_key(|&g| kept[g].abs_diff(line))
            .expect("a collected row has a kept hit");
        if line < kept[owner] {
            groups[owner].1.push(line);
        } else {
            groups[owner].2.push(line);
        }
    }
    groups.truncate(limit as usize);
    Answer {
        hits: groups,
        total_truncated: total > limit,
    }
}

#[derive(Debug, PartialEq, Eq)]
struct Answer {
    hits: Vec<Hit>,
    total_truncated: bool,
}

fn lines_of(rows: &Value) -> Vec<u64> {
    rows.as_array()
        .map(|rows| rows.iter().filter_map(|r| r["line"].as_u64()).collect())
        .unwrap_or_default()
}

fn from_peer(answer: &Value) -> Answer {
    let hits = answer["matches"]
        .as_array()
        .map(|ms| {
            ms.iter()
                .map(|m| {
                    (
                        m["line"].as_u64().unwrap_or(0),
                        lines_of(&m["before"]),
                        lines_of(&m["after"]),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    Answer {
        hits,
        total_truncated: answer["truncated"].as_bool().unwrap_or(false),
    }
}

/// Every file shape: one directory per shape, named by its hits (`xox`),
/// each holding `a.txt`.
fn shapes() -> Vec<Vec<bool>> {
    let mut all = Vec::new();
    for len in 1..=MOST_LINES {
        for bits in 0u32..(1 << len) {
            all.push((0..len).map(|i| bits & (1 << i) != 0).collect());
        }
    }
    all
}

fn name(shape: &[bool]) -> String {
    shape.iter().map(|&h| if h { 'x' } else { 'o' }).collect()
}

fn write_tree(dir: &Path, shapes: &[Vec<bool>]) {
    for shape in shapes {
        let sub = dir.join(name(shape));
        fs::create_dir(&sub).unwrap();
        let mut text = name(shape)
            .chars()
            .map(String::from)
            .collect::<Vec<_>>()
            .join("\n");
        // Half the shapes end without a newline: §11.3 counts the same lines.
        if shape.len() % 2 == 0 {
            text.push('\n');
        }
        fs::write(sub.join("a.txt"), text).unwrap();
    }
}

#[test]
fn the_reference_owns_context_rows_as_the_brute_force_model_does() {
    let dir = tempfile::tempdir().unwrap();
    let shapes = shapes();
    write_tree(dir.path(), &shapes);
    let portable = Portable::with_threads(1);
    let (mut checked, mut refused, mut differences) = (0u64, Vec::new(), Vec::new());
    for shape in &shapes {
        let root = dir.path().join(name(shape));
        for before in CONTEXTS {
            for after in CONTEXTS {
                for max_count in MAX_COUNTS {
                    for limit in LIMITS {
                        let input = GrepInput {
                            before_context: before,
                            after_context: after,
                            max_count,
                            limit,
                            symbols: false,
                            ..GrepInput::new("x", root.to_str().unwrap())
                        };
                        checked += 1;
                        let case = format!(
                            "{} B={before} A={after} M={max_count:?} limit={limit}",
                            name(shape)
                        );
                        match Call::Grep(input).run(&portable) {
                            Err(e) => refused.push(format!("{case}: {e}")),
                            Ok(answer) => {
                                let want = model(shape, before, after, max_count, limit);
                                let got = from_peer(&answer);
                                if got != want {
                                    differences
                                        .push(format!("{case}: model {want:?}, portable {got:?}"));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    eprintln!(
        "§13.1 model: {checked} calls checked, {} refused, {} differences",
        refused.len(),
        differences.len()
    );
    assert_eq!(checked, 126 * 16 * 4 * 4);
    assert!(
        refused.is_empty(),
        "the reference refused {} calls the spec answers, first: {:?}",
        refused.len(),
        &refused[..refused.len().min(5)]
    );
    assert!(
        differences.is_empty(),
        "{} differences from the model, first: {:#?}",
        differences.len(),
        &differences[..differences.len().min(5)]
    );
}

/// The model itself, on the spec's own examples (§13, §13.1), so a wrong
/// model cannot agree with a wrong reference unseen.
#[test]
fn the_model_gives_the_spec_examples() {
    let shape = |s: &str| s.chars().map(|c| c == 'x').collect::<Vec<_>>();
    // `before\nneedle one\nbetween\nneedle two\nafter`, context 1, limit 1.
    assert_eq!(
        model(&shape("oxoxo"), 1, 1, None, 1),
        Answer {
            hits: vec![(2, vec![1], vec![3])],
            total_truncated: true
        }
    );
    // `one\nneedle\nthree\nfour\nneedle\nsix`, context 2.
    assert_eq!(
        model(&shape("oxooxo"), 2, 2, None, 200).hits,
        vec![(2, vec![1], vec![3]), (5, vec![4], vec![6])]
    );
    // The same with limit 1: line 4 belongs to the dropped boundary hit.
    assert_eq!(
        model(&shape("oxooxo"), 2, 2, None, 1).hits,
        vec![(2, vec![1], vec![3])]
    );
    // Rows 1 ctx, 2 match, 3 ctx, 4 match, 5 ctx.
    assert_eq!(
        model(&shape("oxoxo"), 1, 1, None, 200).hits,
        vec![(2, vec![1], vec![3]), (4, vec![], vec![5])]
    );
    // `needle\nneedle\nneedle\n`, maxCount 2, afterContext 1.
    assert_eq!(
        model(&shape("xxx"), 0, 1, Some(2), 200).hits,
        vec![(1, vec![], vec![]), (2, vec![], vec![3])]
    );
    // `limit: 0`: nothing collected, still truncated.
    assert_eq!(
        model(&shape("xx"), 1, 1, None, 0),
        Answer {
            hits: vec![],
            total_truncated: true
        }
    );
}

/// `rg` decides which rows a scan collects (§13 step 1) without any of our
/// code: for every shape, context and `maxCount`, the lines it prints
/// (matches and context) are the rows the model returns with its hits.
/// `rg` 15 labels the lines past `maxCount` that would match as matches
/// where §13 makes them after-context, so only the union of rows, and the
/// hits where no `maxCount` is given, are compared.
#[test]
fn rg_collects_the_rows_the_model_returns() {
    let rg = std::env::var_os("LAWSUITE_RG").unwrap_or_else(|| "rg".into());
    if Command::new(&rg).arg("--version").output().is_err() {
        // Never green by skipping where the tool must be: CI installs rg.
        assert!(std::env::var_os("CI").is_none(), "rg is needed in CI");
        eprintln!("note: rg is not on PATH; the rg oracle for §13 did not run");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let shapes = shapes();
    write_tree(dir.path(), &shapes);
    let mut checked = 0u64;
    let mut differences = Vec::new();
    for before in CONTEXTS {
        for after in CONTEXTS {
            for max_count in MAX_COUNTS {
                // One rg over every shape: context never crosses files.
                let mut cmd = Command::new(&rg);
                cmd.args([
                    "--json",
                    "--no-config",
                    "-B",
                    &before.to_string(),
                    "-A",
                    &after.to_string(),
                ]);
                if let Some(m) = max_count {
                    cmd.args(["-m", &m.to_string()]);
                }
                let out = cmd
                    .args(["--", "x", "."])
                    .current_dir(dir.path())
                    .output()
                    .unwrap();
                let mut rows: std::collections::BTreeMap<String, (Vec<u64>, Vec<u64>)> =
                    Default::default();
                for line in String::from_utf8_lossy(&out.stdout).lines() {
                    let Ok(msg) = serde_json::from_str::<Value>(line) else {
                        continue;
                    };
                    let kind = msg["type"].as_str().unwrap_or("");
                    if kind != "match" && kind != "context" {
                        continue;
                    }
                    let path = msg["data"]["path"]["text"]
                        .as_str()
                        .unwrap_or("")
                        .trim_start_matches("./");
                    let shape = path.split('/').next().unwrap_or("").to_string();
                    let number = msg["data"]["line_number"].as_u64().unwrap_or(0);
                    let entry = rows.entry(shape).or_default();
                    entry.0.push(number);
                    if kind == "match" {
                        entry.1.push(number);
                    }
                }
                for shape in &shapes {
                    checked += 1;
                    let want = model(shape, before, after, max_count, 200);
                    let mut want_rows: Vec<u64> = want
                        .hits
                        .iter()
                        .flat_map(|(l, b, a)| b.iter().chain(std::iter::once(l)).chain(a).copied())
                        .collect();
                    want_rows.sort_unstable();
                    let want_hits: Vec<u64> = want.hits.iter().map(|h| h.0).collect();
                    let (mut got_rows, got_hits) = rows.remove(&name(shape)).unwrap_or_default();
                    got_rows.sort_unstable();
                    if got_rows != want_rows || (max_count.is_none() && got_hits != want_hits) {
                        differences.push(format!(
                            "{} B={before} A={after} M={max_count:?}: model rows {want_rows:?} hits {want_hits:?}, rg rows {got_rows:?} hits {got_hits:?}",
                            name(shape)
                        ));
                    }
                }
            }
        }
    }
    eprintln!(
        "§13 rg oracle: {checked} (shape, context, maxCount) cases, {} differences",
        differences.len()
    );
    assert_eq!(checked, 126 * 16 * 4);
    assert!(
        differences.is_empty(),
        "{} differences from rg, first: {:#?}",
        differences.len(),
        &differences[..differences.len().min(5)]
    );
}
