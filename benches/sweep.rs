//! Sweep throughput: seeds per second of the conformance kit's default plan
//! through `portable` (the reference) and `ripgrep`, on 2 threads unless
//! `LAWSUITE_BENCH_SWEEP_JOBS` says otherwise (the conformance kit's goal:
//! 10,000 `smthrs` seeds in under 10 minutes on 2 cores, at least 16.7
//! seeds/s, met; issue 17's: under 6 minutes, 27.8 seeds/s, out of reach
//! while each seed runs 35 `rg` processes: see `benches/README.md`).
//!
//! ```text
//! cargo bench --bench sweep                  # every group, about 2 minutes
//! cargo bench --bench sweep -- smthrs/       # the smthrs plans only
//! LAWSUITE_BENCH_SWEEP_JOBS=4 cargo bench --bench sweep
//! ```
//!
//! It measures [`lawsuite::conformance::Engine::run`] over seed trials, the
//! loop `lawsuite run` runs, so the figure is the command's own: generating
//! each plan, writing its tree under a temporary root, every call through the
//! reference and the subject, comparing, judging, removing the tree.
//! Criterion reports `thrpt` in seeds (elements) per second. The `portable`
//! rows compare the reference with a second in-process portable (a run with
//! no subject does nothing at all): the harness's own cost plus one more
//! in-process answer per call, the floor under any comparison. (Before
//! 2026-12-01 these rows had no subject, so their figures are not
//! comparable with earlier ones.)

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput};
use lawsuite::conformance::{Engine, RunOptions, Subject};
use lawsuite::kit::Generator;
use lawsuite::peer::Ground;
use lawsuite::portable::Portable;
use lawsuite::ripgrep::Ripgrep;

/// Seeds per measured iteration: enough that a sample is a sweep, not one
/// plan, small enough for ten samples in seconds.
const SEEDS: u64 = 24;

fn main() {
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(15))
        .configure_from_args();
    let jobs = std::env::var("LAWSUITE_BENCH_SWEEP_JOBS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2);
    let rg_ready = match Ripgrep::with_options(
        lawsuite::testing::rg_options().expect("the LAWSUITE_RG* variables"),
    )
    .availability()
    {
        Ok(_) => true,
        Err(why) => {
            eprintln!("note: the ripgrep rows are not run: {why}");
            false
        }
    };
    for generator in [Generator::Smthrs, Generator::Lawsuite] {
        let mut group = c.benchmark_group(format!("{}/jobs{jobs}", generator.name()));
        group.throughput(Throughput::Elements(SEEDS));
        let mut rows: Vec<(&str, Vec<Subject>)> = vec![(
            "portable",
            // The reference compared with itself in process: the harness's
            // own cost (plans, trees, answers, judging), the floor.
            vec![Subject::new("portable-again", Portable::default())],
        )];
        if rg_ready {
            rows.push((
                "portable+ripgrep",
                vec![Subject::new(
                    "ripgrep",
                    Ripgrep::with_options(
                        lawsuite::testing::rg_options().expect("the LAWSUITE_RG* variables"),
                    ),
                )],
            ));
        }
        for (name, subjects) in rows {
            // A different window of seeds per sample would make samples
            // differ in content; the same window makes them differ only in
            // timing.
            let mut engine = Engine::new(Subject::new("portable", Portable::default()), subjects);
            let seeds: Vec<u64> = (0..SEEDS).collect();
            engine.add_seeds(generator, Ground::Shared, &seeds, None);
            let trials = engine.trials();
            let options = RunOptions {
                jobs,
                fail_fast: false,
            };
            group.bench_function(BenchmarkId::from_parameter(name), |b| {
                b.iter(|| {
                    let outcomes = engine.run(&trials, options, |_| {});
                    let broken = outcomes
                        .iter()
                        .filter(|o| o.verdict.tag() == "broken")
                        .count();
                    assert_eq!(broken, 0, "the sweep could not run");
                    outcomes.len()
                })
            });
        }
        group.finish();
    }
    c.final_summary();
}
