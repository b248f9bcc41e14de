//! Sweep throughput: seeds per second of the conformance kit's default plan
//! through `portable` (the reference) and `ripgrep`, on as many threads as
//! `lawsuite run --jobs` would use (conformance-kit issue: 10,000 `smthrs`
//! seeds in under 10 minutes on 2 cores, i.e. at least 16.7 seeds/s).
//!
//! ```text
//! cargo bench --bench sweep                  # every group, about 2 minutes
//! cargo bench --bench sweep -- smthrs/       # the smthrs plans only
//! LAWSUITE_BENCH_SWEEP_JOBS=4 cargo bench --bench sweep
//! ```
//!
//! It measures [`lawsuite::kit::sweep::sweep`], the loop `lawsuite run` runs,
//! so the figure is the command's own: generating each plan, writing its tree
//! under a temporary root, every call through the reference and the subject,
//! comparing, removing the tree. Criterion reports `thrpt` in seeds
//! (elements) per second. The `portable` rows have no subject: the
//! harness's own cost (plans, trees, reference answers), the floor under any
//! comparison.

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput};
use lawsuite::kit::Generator;
use lawsuite::kit::sweep::{Sweep, sweep};
use lawsuite::peer::Search;
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
    let reference = Portable::default();
    let ripgrep = Ripgrep::default();
    let rg_ready = match ripgrep.availability() {
        Ok(_) => true,
        Err(why) => {
            eprintln!("note: the ripgrep rows are not run: {why}");
            false
        }
    };
    for generator in [Generator::Smthrs, Generator::Lawsuite] {
        let mut group = c.benchmark_group(format!("{}/jobs{jobs}", generator.name()));
        group.throughput(Throughput::Elements(SEEDS));
        let mut subjects: Vec<(&str, Vec<&dyn Search>)> = vec![("portable", vec![])];
        if rg_ready {
            subjects.push(("portable+ripgrep", vec![&ripgrep]));
        }
        for (name, peers) in &subjects {
            // A different window of seeds per sample would make samples
            // differ in content; the same window makes them differ only in
            // timing.
            let plan = Sweep {
                jobs,
                ..Sweep::new(generator, (0..SEEDS).collect())
            };
            group.bench_function(BenchmarkId::from_parameter(name), |b| {
                b.iter(|| {
                    let outcome = sweep(&plan, &reference, peers, |_| {});
                    assert!(
                        outcome.errors.is_empty(),
                        "the sweep could not run: {:?}",
                        outcome.errors
                    );
                    outcome.divergences.len()
                })
            });
        }
        group.finish();
    }
    c.final_summary();
}
