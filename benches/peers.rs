//! Peer benchmarks: `portable` against `rg` run directly, and the per-call
//! cost of the `ripgrep` peer. See `benches/README.md` for what each group
//! measures and the latest numbers.
//!
//! ```text
//! cargo bench --bench peers                 # everything (a few minutes on 2 cores)
//! cargo bench --bench peers -- M/           # only tree M
//! cargo bench --bench peers -- rare_literal # one query kind, both trees
//! ```
//!
//! Both trees are generated once per run into a temp dir (see `corpus`).
//! Before timing anything, every query is answered by every peer and the
//! answer sizes compared, so a timing is never of two different searches.

mod corpus;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{BenchmarkGroup, Criterion, SamplingMode, black_box, measurement::WallTime};
use lawsuite::contract::{GlobInput, GrepInput};
use lawsuite::peer::Search;
use lawsuite::portable::Portable;
use lawsuite::ripgrep::Ripgrep;

/// The machine the numbers were taken on has 2 cores; both sides use them all.
const THREADS: usize = 2;

/// Large enough that no query is truncated: `rg` prints every hit, so the
/// peers must collect every hit too.
const NO_LIMIT: u64 = 100_000_000;

/// The flags that keep `rg` to the contract's walk (the `ripgrep` peer's
/// `HOST_INDEPENDENCE`): `.gitignore` applies without a `.git`, and nothing
/// outside the tree is read.
const RG_WALK: [&str; 6] = lawsuite::ripgrep::HOST_INDEPENDENCE;

/// One benchmarked query: the contract call and the `rg` command line that
/// searches the same files for the same lines.
struct Query {
    name: &'static str,
    call: Call,
    /// `rg` arguments after the walk flags; the root is appended.
    rg: &'static [&'static str],
}

enum Call {
    Grep(GrepInput),
    Glob(GlobInput),
}

fn grep(pattern: &str, root: &str, set: impl FnOnce(&mut GrepInput)) -> Call {
    let mut input = GrepInput::new(pattern, root);
    input.symbols = false; // `rg` has no symbols; §15 is measured elsewhere
    input.limit = NO_LIMIT;
    set(&mut input);
    Call::Grep(input)
}

fn queries(root: &str) -> Vec<Query> {
    vec![
        Query {
            name: "rare_literal",
            call: grep(corpus::RARE, root, |i| i.fixed_strings = true),
            rg: &["-n", "-F", "--", corpus::RARE],
        },
        Query {
            name: "case_insensitive_literal",
            call: grep("todo", root, |i| i.ignore_case = true),
            rg: &["-n", "-i", "--", "todo"],
        },
        Query {
            name: "regex_with_literal",
            call: grep("[a-z]+_handler", root, |_| {}),
            rg: &["-n", "--", "[a-z]+_handler"],
        },
        Query {
            name: "regex_without_literal",
            call: grep("[A-Z][a-z]+[0-9]{3}", root, |_| {}),
            rg: &["-n", "--", "[A-Z][a-z]+[0-9]{3}"],
        },
        Query {
            name: "globbed_search",
            call: grep("TODO", root, |i| i.globs = vec!["*.rs".into()]),
            rg: &["-n", "-g", "*.rs", "--", "TODO"],
        },
        Query {
            name: "context",
            call: grep("TODO", root, |i| {
                i.before_context = 2;
                i.after_context = 2;
            }),
            rg: &["-n", "-C2", "--", "TODO"],
        },
        Query {
            name: "files_with_matches",
            call: grep("return", root, |i| i.files_with_matches = true),
            rg: &["-l", "--", "return"],
        },
        Query {
            name: "glob_listing",
            call: Call::Glob(GlobInput {
                limit: NO_LIMIT,
                ..GlobInput::new("*.rs", root)
            }),
            rg: &["--files", "-g", "*.rs"],
        },
    ]
}

/// Run `rg` directly. Its stdout is a pipe that is read and dropped: with
/// stdout on `/dev/null` rg stops at the first match, which would not be
/// the same search.
fn rg(args: &[&str], root: &str) -> usize {
    let out = Command::new("rg")
        .args(RG_WALK)
        .args(["-j", &THREADS.to_string(), "--no-messages"])
        .args(args)
        .arg(root)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .expect("rg runs (is it on PATH?)");
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "rg {args:?} failed: {:?}",
        out.status
    );
    out.stdout.len()
}

/// The answer's size, in the unit `rg` prints one line for.
fn answer_size(peer: &dyn Search, call: &Call) -> usize {
    match call {
        Call::Grep(input) => {
            let out = peer.grep(input).expect("grep answers");
            if input.files_with_matches {
                out.files.len()
            } else {
                out.matches
                    .iter()
                    .map(|m| 1 + m.before.len() + m.after.len())
                    .sum()
            }
        }
        Call::Glob(input) => peer.glob(input).expect("glob answers").paths.len(),
    }
}

/// `rg`'s answer in the same unit: output lines, less `--` group separators.
fn rg_size(args: &[&str], root: &str) -> usize {
    let out = Command::new("rg")
        .args(RG_WALK)
        .args(["-j", &THREADS.to_string(), "--no-messages"])
        .args(args)
        .arg(root)
        .output()
        .expect("rg runs");
    out.stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty() && *l != b"--")
        .count()
}

/// Count every answer once and say whether the peers agree.
fn parity(tree: &str, root: &str, peers: &[(&str, &dyn Search)]) {
    for q in queries(root) {
        let started = Instant::now();
        let mut sizes = vec![("rg", rg_size(q.rg, root), started.elapsed())];
        for (name, peer) in peers {
            let started = Instant::now();
            let size = answer_size(*peer, &q.call);
            sizes.push((name, size, started.elapsed()));
        }
        let agree = sizes.iter().all(|(_, n, _)| *n == sizes[0].1);
        eprintln!(
            "parity {tree}/{:<26} {} {sizes:?}",
            q.name,
            if agree { "ok  " } else { "DIFF" }
        );
    }
}

fn bench_peer(group: &mut BenchmarkGroup<'_, WallTime>, name: &str, peer: &dyn Search, q: &Query) {
    group.bench_function(name, |b| match &q.call {
        Call::Grep(input) => b.iter(|| black_box(peer.grep(input).expect("grep answers"))),
        Call::Glob(input) => b.iter(|| black_box(peer.glob(input).expect("glob answers"))),
    });
}

/// Bench every query on one tree: `portable` and `rg`, plus the `ripgrep`
/// peer on the queries named in `ripgrep_on` (all of them are still
/// parity-checked; the peer is slow enough on M that timing all eight would
/// triple the run).
fn bench_tree(c: &mut Criterion, tree: &str, root: &Path, ripgrep_on: &[&str]) {
    let root = root.to_str().expect("temp dir is UTF-8");
    let portable = Portable::with_threads(THREADS);
    let ripgrep = Ripgrep::default();
    if let Err(why) = ripgrep.availability() {
        panic!("the ripgrep peer is unavailable: {why}");
    }
    parity(
        tree,
        root,
        &[("portable", &portable), ("ripgrep", &ripgrep)],
    );
    for q in queries(root) {
        let mut group = c.benchmark_group(format!("{tree}/{}", q.name));
        group.sampling_mode(SamplingMode::Flat);
        bench_peer(&mut group, "portable", &portable, &q);
        if ripgrep_on.contains(&q.name) {
            bench_peer(&mut group, "ripgrep", &ripgrep, &q);
        }
        group.bench_function("rg", |b| b.iter(|| rg(q.rg, root)));
        group.finish();
    }
}

/// The fixed cost of one `rg` process: what the `ripgrep` peer pays at
/// least twice per `grep` batch.
fn bench_spawn(c: &mut Criterion) {
    c.bench_function("spawn/rg_version", |b| {
        b.iter(|| {
            let status = Command::new("rg")
                .arg("--version")
                .stdout(Stdio::null())
                .status()
                .expect("rg runs");
            assert!(status.success());
        })
    });
}

/// `LAWSUITE_BENCH_PAIRED=N`: instead of criterion, run each query on M
/// `N` times alternating `portable` and `rg`, and print both medians and
/// their ratio. On a shared machine whose load drifts over minutes this is
/// the fairer ratio: both sides see the same load.
fn paired(root: &Path, rounds: usize) {
    let root = root.to_str().expect("temp dir is UTF-8");
    let portable = Portable::with_threads(THREADS);
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    for q in queries(root) {
        let (mut p, mut r) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            let started = Instant::now();
            black_box(answer_size(&portable, &q.call));
            p.push(started.elapsed());
            let started = Instant::now();
            black_box(rg(q.rg, root));
            r.push(started.elapsed());
        }
        let (p, r) = (median(&mut p), median(&mut r));
        println!(
            "paired M/{:<26} portable {:>8.1} ms  rg {:>8.1} ms  ratio {:.2}",
            q.name,
            p.as_secs_f64() * 1e3,
            r.as_secs_f64() * 1e3,
            p.as_secs_f64() / r.as_secs_f64()
        );
    }
}

fn make(shape: corpus::Shape, name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let started = Instant::now();
    let stats = corpus::generate(dir.path(), shape).expect("corpus written");
    eprintln!(
        "tree {name}: {} files, {:.1} MB searched, {} ignored/hidden/binary, generated in {:.1?} at {}",
        stats.files,
        stats.bytes as f64 / 1e6,
        stats.other_files,
        started.elapsed(),
        dir.path().display(),
    );
    dir
}

fn main() {
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    if let Some(rounds) = std::env::var("LAWSUITE_BENCH_PAIRED")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        let medium = make(corpus::MEDIUM, "M");
        paired(medium.path(), rounds);
        return;
    }
    let small = make(corpus::SMALL, "S");
    let medium = make(corpus::MEDIUM, "M");
    bench_spawn(&mut c);
    let all: Vec<&str> = queries("").iter().map(|q| q.name).collect();
    bench_tree(&mut c, "S", small.path(), &all);
    bench_tree(
        &mut c,
        "M",
        medium.path(),
        &["rare_literal", "glob_listing"],
    );
    c.final_summary();
}
