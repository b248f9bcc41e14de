//! Peer benchmarks: `portable` against `rg` run directly and against two
//! floors, and the per-call cost of the `ripgrep` peer. See
//! `benches/README.md` for what each group measures and the latest numbers.
//!
//! ```text
//! cargo bench --bench peers                 # S, M and the cargo registry (about 5 min on 2 cores)
//! cargo bench --bench peers -- M/           # only tree M
//! cargo bench --bench peers -- rare_literal # one query kind, every corpus
//! LAWSUITE_BENCH_L=1 cargo bench --bench peers -- L/       # tree L (200,000 files)
//! LAWSUITE_BENCH_HUGE=1 cargo bench --bench peers -- huge/ # one 1 GiB file
//! LAWSUITE_BENCH_REAL=/some/tree cargo bench --bench peers # another real tree (0: none)
//! LAWSUITE_BENCH_PAIRED=9 cargo bench --bench peers        # interleaved, no criterion (see below)
//! LAWSUITE_BENCH_PAIRED=9 LAWSUITE_BENCH_PAIRED_CORPUS=real cargo bench --bench peers # the same on the real tree
//! ```
//!
//! Corpora come from `lawsuite::bench::corpus` (generated into temp dirs,
//! removed at exit) and queries from `lawsuite::bench::calls`, the same
//! ones `lawsuite bench` runs. Before timing anything, every query is
//! answered by every contestant: the peers' answers are compared as JSON,
//! `rg`'s by its row count; a contestant that disagrees is not timed on
//! that query (`parity ... DIFF` says which).

use std::cell::RefCell;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, black_box};
use lawsuite::bench::calls::{Query, builtin};
use lawsuite::bench::corpus::{self, Corpus, Prepared};
use lawsuite::bench::stats::TimingSummary;
use lawsuite::call::Call;
use lawsuite::kit::answer::Answer;
use lawsuite::peer::Search;
use lawsuite::portable::Portable;
use lawsuite::ripgrep::Ripgrep;
use serde_json::Value;

/// The machine the numbers were taken on has 2 cores; every contestant
/// uses them all.
const THREADS: usize = 2;

/// The flags that keep `rg` to the contract's walk (the `ripgrep` peer's
/// `HOST_INDEPENDENCE`): `.gitignore` applies without a `.git`, and nothing
/// outside the tree is read.
const RG_WALK: [&str; 6] = lawsuite::ripgrep::HOST_INDEPENDENCE;

/// Run `rg` directly. Its stdout is a pipe that is read to the end: with
/// stdout on `/dev/null` rg stops at the first match, which would not be
/// the same search. Returns the output.
fn rg(args: &[&str], root: &str) -> Vec<u8> {
    let out = Command::new("rg")
        .args(RG_WALK)
        .args(["-j", &THREADS.to_string(), "--no-messages"])
        .args(args)
        .arg(root)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .expect("rg runs (is it on PATH? `cargo install ripgrep --locked`)");
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "rg {args:?} failed: {:?}",
        out.status
    );
    out.stdout
}

/// `rg`'s answer in rows: output lines, less `--` group separators.
fn rg_rows(output: &[u8]) -> usize {
    output
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty() && *l != b"--")
        .count()
}

/// A peer's answer in the unit `rg` prints one line for: hit or context
/// line, matching file, or path.
fn answer_rows(value: &Value) -> usize {
    let len = |key: &str| value[key].as_array().map_or(0, Vec::len);
    if let Some(matches) = value["matches"].as_array() {
        let context: usize = matches
            .iter()
            .map(|m| {
                m["before"].as_array().map_or(0, Vec::len)
                    + m["after"].as_array().map_or(0, Vec::len)
            })
            .sum();
        matches.len() + context + len("files")
    } else {
        len("paths")
    }
}

fn time_call(peer: &dyn Search, call: &Call) {
    match call {
        Call::Grep(input) => {
            black_box(peer.grep(input).expect("grep answers"));
        }
        Call::Glob(input) => {
            black_box(peer.glob(input).expect("glob answers"));
        }
        Call::FlowGrep(request) => {
            black_box(peer.flow_grep(request).expect("the grep flow answers"));
        }
        Call::FlowGlob(request) => {
            black_box(peer.flow_glob(request).expect("the glob flow answers"));
        }
        Call::Read(input) => {
            black_box(peer.read(input).expect("read answers"));
        }
        Call::Ls(input) => {
            black_box(peer.ls(input).expect("ls answers"));
        }
        // Anything else answers through the dispatcher.
        other => {
            black_box(other.run(peer).expect("the call answers"));
        }
    }
}

/// What the floors found: files read, bytes read, rare-literal hits.
#[derive(Debug, Default)]
struct FloorCount {
    files: usize,
    bytes: u64,
    hits: usize,
}

/// The floors: the contract's walk with `ignore`'s parallel walker
/// (`.gitignore` without `.git`, hidden files skipped, nothing above the
/// root), and every file opened, read to the end into a reused buffer and
/// closed; with `memchr`, the rare literal is also counted in those bytes
/// by `memchr::memmem`. Nothing a search can do with fewer syscalls or
/// fewer passes over the bytes.
fn floor(root: &Path, memchr: bool) -> FloorCount {
    thread_local! {
        static BUF: RefCell<Vec<u8>> = RefCell::new(Vec::with_capacity(1 << 20));
    }
    let finder = memchr::memmem::Finder::new(corpus::RARE.as_bytes());
    let (files, bytes, hits) = (AtomicUsize::new(0), AtomicU64::new(0), AtomicUsize::new(0));
    ignore::WalkBuilder::new(root)
        .threads(THREADS)
        .hidden(true)
        .ignore(false)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(false)
        .require_git(false)
        .parents(false)
        .build_parallel()
        .run(|| {
            Box::new(|entry| {
                let Ok(entry) = entry else {
                    return ignore::WalkState::Continue;
                };
                if entry.file_type().is_some_and(|t| t.is_file()) {
                    BUF.with(|buf| {
                        let mut buf = buf.borrow_mut();
                        buf.clear();
                        if let Ok(mut file) = File::open(entry.path())
                            && file.read_to_end(&mut buf).is_ok()
                        {
                            files.fetch_add(1, Ordering::Relaxed);
                            bytes.fetch_add(buf.len() as u64, Ordering::Relaxed);
                            if memchr {
                                hits.fetch_add(finder.find_iter(&buf).count(), Ordering::Relaxed);
                            }
                        }
                    });
                }
                ignore::WalkState::Continue
            })
        });
    FloorCount {
        files: files.into_inner(),
        bytes: bytes.into_inner(),
        hits: hits.into_inner(),
    }
}

/// One corpus to bench, and which contestants run on it.
struct Target {
    name: String,
    corpus: Prepared,
    /// Query kinds timed here (all when empty).
    queries: Vec<&'static str>,
    /// Query kinds the `ripgrep` peer is timed on (it costs 2–4 s a call on M).
    ripgrep_on: Vec<&'static str>,
    /// Grep calls ask for symbols (§15), the contract's default: `rg` has
    /// none, but a caller of the contract gets them unless it says no.
    symbols: bool,
}

impl Target {
    fn root(&self) -> &str {
        self.corpus.root.to_str().expect("UTF-8 corpus path")
    }

    fn queries(&self) -> Vec<Query> {
        builtin(self.root())
            .into_iter()
            .filter(|q| self.queries.is_empty() || self.queries.contains(&q.name))
            .map(|mut q| {
                if let Call::Grep(input) = &mut q.call {
                    input.symbols = self.symbols;
                }
                q
            })
            .collect()
    }
}

/// Which contestants agreed with `portable` on one query.
struct Parity {
    rg: bool,
    ripgrep: bool,
}

/// Answer `q` with every contestant and compare. `portable` is the
/// reference; `rg` is compared by rows where it prints rows.
fn parity(target: &Target, q: &Query, portable: &Portable, ripgrep: Option<&Ripgrep>) -> Parity {
    let started = Instant::now();
    let expected = Answer::of(portable, &q.call);
    let portable_ms = started.elapsed().as_secs_f64() * 1e3;
    let rows = answer_rows(&expected.to_wire());
    let started = Instant::now();
    let rg_out = rg(q.rg, target.root());
    let rg_ms = started.elapsed().as_secs_f64() * 1e3;
    let rg_ok = !q.rg_rows || rg_rows(&rg_out) == rows;
    let mut line = format!(
        "parity {}/{:<22} portable {rows} rows ({portable_ms:.0} ms); rg {} {} ({rg_ms:.0} ms)",
        target.name,
        q.name,
        if q.rg_rows {
            rg_rows(&rg_out).to_string()
        } else {
            format!("{} count lines", rg_rows(&rg_out))
        },
        if rg_ok { "ok" } else { "DIFF: rg is not timed" },
    );
    let ripgrep_ok = match ripgrep {
        Some(peer) if target.ripgrep_on.contains(&q.name) => {
            let started = Instant::now();
            let got = Answer::of(peer, &q.call);
            let same = got.agrees(&expected);
            line += &format!(
                "; ripgrep {} ({:.0} ms)",
                if same {
                    "same answer"
                } else {
                    "DIFF: ripgrep is not timed"
                },
                started.elapsed().as_secs_f64() * 1e3
            );
            same
        }
        _ => false,
    };
    eprintln!("{line}");
    Parity {
        rg: rg_ok,
        ripgrep: ripgrep_ok,
    }
}

fn bench_target(c: &mut Criterion, target: &Target, ripgrep: Option<&Ripgrep>) {
    let root = target.root();
    let portable = Portable::with_threads(THREADS);
    let walk_read = floor(&target.corpus.root, false);
    let memchr = floor(&target.corpus.root, true);
    eprintln!(
        "floor {}: walk+read {} files, {:.1} MB; memmem finds {} x {}",
        target.name,
        walk_read.files,
        walk_read.bytes as f64 / 1e6,
        memchr.hits,
        corpus::RARE
    );
    let mut group = c.benchmark_group(format!("{}/floor", target.name));
    group.sampling_mode(SamplingMode::Flat);
    group.bench_function("walk_read", |b| {
        b.iter(|| floor(&target.corpus.root, false))
    });
    group.bench_function("walk_read_memmem", |b| {
        b.iter(|| floor(&target.corpus.root, true))
    });
    group.finish();
    for q in target.queries() {
        let agreed = parity(target, &q, &portable, ripgrep);
        let mut group = c.benchmark_group(format!("{}/{}", target.name, q.name));
        group.sampling_mode(SamplingMode::Flat);
        group.bench_function("portable", |b| b.iter(|| time_call(&portable, &q.call)));
        if agreed.rg {
            group.bench_function("rg", |b| b.iter(|| black_box(rg(q.rg, root))));
        }
        if let (Some(peer), true) = (ripgrep, agreed.ripgrep) {
            group.bench_function("ripgrep", |b| b.iter(|| time_call(peer, &q.call)));
        }
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

/// This process's CPU time so far, its threads and its waited-for children
/// (`rg`) included, in clock ticks (`utime + stime + cutime + cstime` of
/// `/proc/self/stat`; Linux only, `None` elsewhere).
fn cpu_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which is in parentheses: state is
    // field 3, utime 14, stime 15, cutime 16, cstime 17.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    fields
        .get(11..15)?
        .iter()
        .map(|f| f.parse::<u64>().ok())
        .sum()
}

/// Clock ticks per second: 100 on every Linux `getconf CLK_TCK` has
/// reported for decades (the kernel's `USER_HZ`).
const TICKS_PER_SECOND: f64 = 100.0;

/// `LAWSUITE_BENCH_PAIRED=N`: instead of criterion, run each query on the
/// corpus named by `LAWSUITE_BENCH_PAIRED_CORPUS` (default `generated:M`)
/// `N` times, rotating `portable`, `rg` and the walk+read floor in every
/// round, and print the wall-clock medians and ratios. On a shared machine
/// whose load drifts over minutes this is the fairer ratio: all three see
/// the same load. For the budget query `rg` is `rg -c`.
///
/// It also prints each contestant's mean CPU time per call (user + system,
/// every thread, `rg` included): on a machine with more runnable threads
/// than cores, wall-clock time mostly measures the scheduler, while CPU
/// time still measures the work (to within one 10 ms tick per call,
/// which averages out over the rounds).
fn paired(target: &Target, rounds: usize) {
    let root = target.root();
    let portable = Portable::with_threads(THREADS);
    println!(
        "paired on {} ({rounds} rounds; wall medians ±(p90-p10)/median, then mean CPU ms per call; load {})",
        target.name,
        load()
    );
    for q in target.queries() {
        let agreed = parity(target, &q, &portable, None);
        let mut samples: [Vec<Duration>; 3] = Default::default();
        let mut ticks = [0u64; 3];
        for round in 0..rounds {
            for k in 0..3 {
                let who = (round + k) % 3;
                let cpu = cpu_ticks().unwrap_or(0);
                let started = Instant::now();
                match who {
                    0 => time_call(&portable, &q.call),
                    1 => {
                        black_box(rg(q.rg, root));
                    }
                    _ => {
                        black_box(floor(&target.corpus.root, false));
                    }
                }
                samples[who].push(started.elapsed());
                ticks[who] += cpu_ticks().unwrap_or(0).saturating_sub(cpu);
            }
        }
        let [p, r, f] = samples.map(|s| TimingSummary::of(&s).expect("at least one round"));
        let cpu = ticks.map(|t| t as f64 * 1e3 / TICKS_PER_SECOND / rounds as f64);
        println!(
            "paired {}/{:<22} wall: portable {:>7.1} ms ±{:>3.0}%  rg {:>7.1} ms ±{:>3.0}%{}  floor {:>7.1} ms ±{:>3.0}%  portable/rg {:.2}  portable/floor {:.2} | cpu: portable {:>6.1}  rg {:>6.1}  floor {:>6.1}  portable/rg {:.2}  portable/floor {:.2}",
            target.name,
            q.name,
            p.median_ms,
            p.spread * 100.0,
            r.median_ms,
            r.spread * 100.0,
            if agreed.rg { "" } else { " (DIFF)" },
            f.median_ms,
            f.spread * 100.0,
            p.median_ms / r.median_ms,
            p.median_ms / f.median_ms,
            cpu[0],
            cpu[1],
            cpu[2],
            cpu[0] / cpu[1],
            cpu[0] / cpu[2],
        );
    }
    println!("load at the end {}", load());
}

fn load() -> String {
    lawsuite::bench::report::load_average()
        .map_or("?".into(), |[a, b, c]| format!("{a:.2} {b:.2} {c:.2}"))
}

fn prepare(name: &str, corpus: Corpus) -> Prepared {
    let started = Instant::now();
    let prepared = corpus.prepare().expect("corpus prepared");
    match &prepared.stats {
        Some(stats) => eprintln!(
            "corpus {name}: {} files, {:.1} MB searched, {} ignored/hidden/binary, generated in {:.1?} at {}",
            stats.files,
            stats.bytes as f64 / 1e6,
            stats.other_files,
            started.elapsed(),
            prepared.root.display(),
        ),
        None => eprintln!(
            "corpus {name}: {} (searched in place)",
            prepared.root.display()
        ),
    }
    prepared
}

fn target(name: &str, corpus: Corpus, ripgrep_on: &[&'static str]) -> Target {
    Target {
        name: name.to_string(),
        corpus: prepare(name, corpus),
        queries: Vec::new(),
        ripgrep_on: ripgrep_on.to_vec(),
        symbols: false,
    }
}

/// A real source tree: `LAWSUITE_BENCH_REAL` (`0` for none), else the
/// cargo registry's sources ([`corpus::cargo_registry`]), when there are any.
fn real_tree() -> Option<PathBuf> {
    match std::env::var_os("LAWSUITE_BENCH_REAL") {
        Some(v) if v == "0" => None,
        Some(path) => Some(PathBuf::from(path)),
        None => corpus::cargo_registry(),
    }
}

/// The real tree with issue 17's query kinds, searched as a caller of the
/// contract would by default: with symbols.
fn real_target(path: PathBuf) -> Target {
    let mut real = target("real", Corpus::Path(path), &[]);
    real.queries = vec![
        "rare_literal",
        "common_literal_budget",
        "case_insensitive",
        "alternation",
        "regex_inner_literal",
        "regex_no_literal",
        "globbed_search",
        "files_with_matches",
        "glob_listing",
    ];
    real.symbols = true;
    real
}

fn flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0")
}

fn main() {
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    if let Some(rounds) = std::env::var("LAWSUITE_BENCH_PAIRED")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        let name = std::env::var("LAWSUITE_BENCH_PAIRED_CORPUS")
            .unwrap_or_else(|_| "generated:M".to_string());
        let mut target = if name == "real" {
            real_target(real_tree().expect("a real tree: set LAWSUITE_BENCH_REAL"))
        } else {
            target(&name, name.parse().expect("a corpus name"), &[])
        };
        // The targets of issue 17 are for a caller of the contract, who
        // gets symbols (§15) unless it says no.
        target.symbols = true;
        if let Ok(only) = std::env::var("LAWSUITE_BENCH_PAIRED_QUERIES") {
            let kinds = builtin("");
            target.queries = kinds
                .iter()
                .map(|k| k.name)
                .filter(|n| only.split(',').any(|o| o == *n))
                .collect();
        }
        paired(&target, rounds);
        return;
    }
    let ripgrep =
        Ripgrep::with_options(lawsuite::testing::rg_options().expect("the LAWSUITE_RG* variables"));
    if let Err(why) = ripgrep.availability() {
        panic!("the ripgrep peer is unavailable: {why}");
    }
    let all: Vec<&'static str> = builtin("").iter().map(|q| q.name).collect();
    bench_spawn(&mut c);
    let small = target("S", Corpus::Tree(corpus::SMALL), &all);
    bench_target(&mut c, &small, Some(&ripgrep));
    drop(small);
    let medium = target("M", Corpus::Tree(corpus::MEDIUM), &["glob_listing"]);
    bench_target(&mut c, &medium, Some(&ripgrep));
    drop(medium);
    if flag("LAWSUITE_BENCH_L") {
        let large = target("L", Corpus::Tree(corpus::LARGE), &[]);
        bench_target(&mut c, &large, None);
    }
    if flag("LAWSUITE_BENCH_HUGE") {
        let huge = target("huge", Corpus::Huge, &[]);
        bench_target(&mut c, &huge, None);
    }
    if let Some(path) = real_tree() {
        bench_target(&mut c, &real_target(path), None);
    }
    c.final_summary();
}
