//! Guided against unguided campaigns (issue 46): CPU-seconds to the first
//! divergence of nine planted bugs of different rarity, from the same
//! start (seed 0 of the TypeScript kit's and lawsuite's sequences, an empty
//! corpus), each peer the reference with one thing changed
//! ([`lawsuite::testing::Altered`]).
//!
//! ```sh
//! cargo bench --bench guided                      # every bug, 3 guided runs each
//! LAWSUITE_GUIDED_REPS=5 LAWSUITE_GUIDED_CAP_SECS=120 cargo bench --bench guided
//! LAWSUITE_GUIDED_BUGS=rare,brace cargo bench --bench guided
//! ```
//!
//! For each bug: its **rarity** (the share of the calls of the first 20
//! plans of each sequence on which it shows), the unguided campaign's CPU
//! time to its first divergence (fresh seeds only: deterministic, so one
//! run), the guided campaign's over several runs (each its own guide seed;
//! the median), and the ratio. A campaign that has not found the bug by the
//! cap counts as the cap and is marked `>`. Shrinking is left out (a bound
//! of 0 steps): the time is the search's. CPU time is the process's user
//! and system time (`/proc/self/stat`, 10 ms ticks), one job.

use std::time::Duration;

use lawsuite::contract::glob::GlobList;
use lawsuite::contract::notice::glob_answer;
use lawsuite::kit::campaign::{Campaign, Slot};
use lawsuite::kit::compare::{Compared, compare_plan};
use lawsuite::kit::shrink::Budget;
use lawsuite::kit::{Generator, generate};
use lawsuite::peer::Builtin;
use lawsuite::peer::Ground;
use lawsuite::portable::Portable;
use lawsuite::portable::walk::{WalkOptions, walk};
use lawsuite::testing::Altered;

/// The planted bugs: a name, what it is, and the peer.
fn bugs() -> Vec<(&'static str, &'static str, Altered)> {
    vec![
        (
            "digit",
            "the walk of a glob never sees a file whose name holds a digit",
            Altered::new("digit").on_glob(|input, answer| {
                answer?;
                let globs = GlobList::new(std::slice::from_ref(&input.pattern))?;
                let walked = walk(&WalkOptions {
                    root: &input.root,
                    hidden: input.hidden,
                    no_ignore: input.no_ignore,
                    globs: &globs,
                })?;
                let paths = walked
                    .candidates
                    .into_iter()
                    .map(|c| c.path)
                    .filter(|p| {
                        !p.rsplit('/')
                            .next()
                            .unwrap_or(p)
                            .bytes()
                            .any(|b| b.is_ascii_digit())
                    })
                    .collect();
                glob_answer(input, paths, || Ok(walked.ignored))
            }),
        ),
        (
            "brace",
            "a glob with a brace loses its last path",
            Altered::new("brace").on_glob(|input, answer| {
                let mut answer = answer?;
                if input.pattern.contains('{') && !answer.paths.is_empty() {
                    answer.paths.pop();
                    answer.total -= 1;
                }
                Ok(answer)
            }),
        ),
        (
            "rare",
            "a grep with limit 1, maxCount, ignoreCase and afterContext >= 2 counts one file too many",
            Altered::new("rare").on_grep(|input, answer| {
                let mut answer = answer?;
                if input.limit == 1
                    && input.max_count.is_some()
                    && input.ignore_case
                    && input.after_context >= 2
                {
                    answer.files_searched += 1;
                }
                Ok(answer)
            }),
        ),
        (
            "fixed-dot",
            "a fixed-string grep of a pattern with a dot loses its last match",
            Altered::new("fixed-dot").on_grep(|input, answer| {
                let mut answer = answer?;
                if input.fixed_strings && input.pattern.contains('.') {
                    answer.matches.pop();
                }
                Ok(answer)
            }),
        ),
        (
            "symbols-before",
            "a grep with symbols and before-context loses its first match's symbol",
            Altered::new("symbols-before").on_grep(|input, answer| {
                let mut answer = answer?;
                if input.symbols
                    && input.before_context >= 1
                    && let Some(m) = answer.matches.iter_mut().find(|m| m.symbol.is_some())
                {
                    m.symbol = None;
                }
                Ok(answer)
            }),
        ),
        (
            "limit-two",
            "a glob limited to 2 and truncated says it is not",
            Altered::new("limit-two").on_glob(|input, answer| {
                let mut answer = answer?;
                if input.limit == 2 && answer.truncated {
                    answer.truncated = false;
                    answer.notice = None;
                }
                Ok(answer)
            }),
        ),
        (
            "negated-files",
            "a files-with-matches grep with a negated glob lists its files backwards",
            Altered::new("negated-files").on_grep(|input, answer| {
                let mut answer = answer?;
                if input.files_with_matches && input.globs.iter().any(|g| g.starts_with('!')) {
                    answer.files.reverse();
                }
                Ok(answer)
            }),
        ),
        (
            "hidden-deep",
            "a hidden glob loses the paths three directories deep",
            Altered::new("hidden-deep").on_glob(|input, answer| {
                let mut answer = answer?;
                if input.hidden {
                    let root = input.root.len();
                    let before = answer.paths.len();
                    answer
                        .paths
                        .retain(|p| p.get(root..).unwrap_or(p).matches('/').count() < 4);
                    answer.total -= (before - answer.paths.len()) as u64;
                }
                Ok(answer)
            }),
        ),
        (
            "upper-case",
            "an ignore-case grep of a pattern with a capital loses its last match",
            Altered::new("upper-case").on_grep(|input, answer| {
                let mut answer = answer?;
                if input.ignore_case && input.pattern.bytes().any(|b| b.is_ascii_uppercase()) {
                    answer.matches.pop();
                }
                Ok(answer)
            }),
        ),
    ]
}

/// The process's CPU seconds so far (user and system, all threads, those
/// that ended included).
fn cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command's `)`: state is the 3rd, utime the 14th.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The share of the calls of the first `plans` seeds of each sequence on
/// which `peer` differs from the reference.
fn rarity(peer: &Altered, plans: u64) -> f64 {
    let reference = Portable::with_threads(1);
    let (mut calls, mut divergent) = (0usize, 0usize);
    for slot in Slot::all() {
        for seed in 0..plans {
            let Ok(plan) = generate(slot.generator, seed, "/r", slot.ground) else {
                continue;
            };
            calls += plan.call_count();
            divergent += compare_plan(&plan, &reference, &[Compared::new(peer)])
                .map(|d| d.len())
                .unwrap_or(0);
        }
    }
    divergent as f64 / calls.max(1) as f64
}

/// CPU seconds of one campaign to its first divergence, or `None` at the
/// cap.
fn time_to_find(peer: &Altered, guided: bool, guide_seed: u64, cap: u64) -> Option<f64> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let campaign = Campaign {
        slots: vec![
            Slot {
                generator: Generator::Smthrs,
                ground: Ground::Shared,
            },
            Slot {
                generator: Generator::Lawsuite,
                ground: Ground::Shared,
            },
        ],
        jobs: 1,
        guided,
        guide_seed,
        until_found: true,
        shrink: Budget { steps: 0 },
        ..Campaign::new(
            dir.path().join("state.json"),
            dir.path().join("regressions"),
            Duration::from_secs(cap),
        )
    };
    let reference = Portable::with_threads(1);
    let started = cpu_secs();
    let found = campaign
        .run(
            Compared::builtin(&reference, Builtin::Portable),
            &[Compared::new(peer)],
            None,
            |_| {},
        )
        .ok()?;
    let spent = cpu_secs() - started;
    (found.new_groups().count() > 0).then_some(spent)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; a filter may follow.
    let reps = env_num("LAWSUITE_GUIDED_REPS", 3).max(1);
    let cap = env_num("LAWSUITE_GUIDED_CAP_SECS", 60);
    let only: Option<Vec<String>> = std::env::var("LAWSUITE_GUIDED_BUGS")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "guided against unguided: CPU-s to the first divergence, one job, cap {cap} s, {reps} guided runs each; load before {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!();
    println!(
        "| bug | what | rarity (calls showing it) | unguided CPU-s | guided CPU-s (median of {reps}) | ratio |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    let mut ratios = Vec::new();
    for (name, what, peer) in bugs() {
        if only.as_ref().is_some_and(|o| !o.iter().any(|n| n == name)) {
            continue;
        }
        let rarity = rarity(&peer, 20);
        let unguided = time_to_find(&peer, false, 0, cap);
        let guided: Vec<Option<f64>> = (0..reps)
            .map(|rep| time_to_find(&peer, true, rep, cap))
            .collect();
        let show = |t: Option<f64>| t.map_or(format!("> {cap}"), |t| format!("{t:.2}"));
        let capped = |t: Option<f64>| t.unwrap_or(cap as f64);
        let g = median(guided.iter().copied().map(capped).collect());
        let u = capped(unguided);
        let ratio = u / g.max(0.01);
        ratios.push(ratio);
        let found = guided.iter().filter(|t| t.is_some()).count();
        println!(
            "| {name} | {what} | {:.4} | {} | {} ({found} of {reps} found) | {ratio:.1}× |",
            rarity,
            show(unguided),
            if found * 2 > reps as usize {
                format!("{g:.2}")
            } else {
                format!("> {cap}")
            },
        );
    }
    println!();
    println!(
        "median ratio {:.1}×; load after {}",
        median(ratios),
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
}
