//! Shrinking keeps the bug, and one bug is kept as few files: four bugs
//! planted in a Rust peer (each `portable` with one thing wrong), every
//! divergent call of 24 seeds of each generator recorded into one
//! directory per bug, the way `LAWSUITE_RECORD=1` and `lawsuite record` do.
//!
//! Each recorded file must be inside the contract (its call validates as a
//! seam call), must still fail on the buggy peer *in the kind of way it
//! was recorded for* (the shrinker may not drift to another bug), must
//! pass on the reference, and there is one file per method the bug shows
//! in, not one per divergent call.

use std::collections::BTreeSet;

use lawsuite::call::Validation;
use lawsuite::contract::{GlobInput, GlobOutput, GrepInput, GrepOutput, StdError};
use lawsuite::kit::compare::{Compared, compare_plan, difference_fields};
use lawsuite::kit::plan::PLAN_ROOT;
use lawsuite::kit::regression::{Recorded, Regression, list, record};
use lawsuite::kit::{Generator, generate};
use lawsuite::peer::{Ground, Search};
use lawsuite::portable::Portable;

/// One planted bug: `portable` with its input or answer changed.
struct Planted {
    name: &'static str,
    grep: fn(&mut GrepInput),
    glob: fn(&mut GlobInput),
    glob_answer: fn(&mut GlobOutput),
}

impl Search for Planted {
    fn name(&self) -> &str {
        self.name
    }
    fn version(&self) -> String {
        "0".into()
    }
    fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
        let mut input = input.clone();
        (self.grep)(&mut input);
        Portable::default().grep(&input)
    }
    fn glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError> {
        let mut input = input.clone();
        (self.glob)(&mut input);
        let mut out = Portable::default().glob(&input)?;
        (self.glob_answer)(&mut out);
        Ok(out)
    }
}

fn bugs() -> Vec<Planted> {
    vec![
        // Lists what `.gitignore` leaves out (the Node peer).
        Planted {
            name: "lists-ignored",
            grep: |i| i.no_ignore = true,
            glob: |i| i.no_ignore = true,
            glob_answer: |_| {},
        },
        // Lists hidden files.
        Planted {
            name: "lists-hidden",
            grep: |i| i.hidden = true,
            glob: |i| i.hidden = true,
            glob_answer: |_| {},
        },
        // Ignores `maxCount`.
        Planted {
            name: "ignores-max-count",
            grep: |i| i.max_count = None,
            glob: |_| {},
            glob_answer: |_| {},
        },
        // Lists glob paths in reverse order.
        Planted {
            name: "reverses-glob-order",
            grep: |_| {},
            glob: |_| {},
            glob_answer: |o| o.paths.reverse(),
        },
    ]
}

#[test]
fn each_planted_bug_shrinks_to_itself_and_is_kept_once_per_kind() {
    let reference = Portable::default();
    for bug in bugs() {
        let dir = tempfile::tempdir().unwrap();
        let mut divergent_calls = 0;
        let mut written = 0;
        for generator in [Generator::Smthrs, Generator::Lawsuite] {
            for seed in 0..24 {
                let plan = generate(generator, seed, PLAN_ROOT, Ground::Shared).unwrap();
                for d in compare_plan(&plan, &reference, &[Compared::new(&bug)]).unwrap() {
                    divergent_calls += 1;
                    let (recorded, _) = record(
                        &plan,
                        d.call_index,
                        &d.call,
                        &reference,
                        &bug,
                        dir.path(),
                        None,
                    )
                    .unwrap();
                    written += usize::from(matches!(recorded, Recorded::Written(_)));
                }
            }
        }
        let files = list(dir.path());
        assert_eq!(files.len(), written, "{}", bug.name);
        assert!(divergent_calls > 0, "{} never diverged", bug.name);
        let mut methods = BTreeSet::new();
        for path in &files {
            let regression = Regression::load(path).unwrap();
            // Recorded as `… call N: <kind>`, the shrunk case's.
            let (_, recorded_kind) = regression.why.split_once(": ").unwrap();
            let fields_of = |kind: &str| -> String {
                let mut f: Vec<&str> = kind
                    .split("; ")
                    .map(|k| k.split(':').next().unwrap_or(k))
                    .collect();
                f.sort();
                f.join(", ")
            };
            assert_eq!(
                regression.call.validation(),
                Validation::Passes,
                "{}: {} left the contract",
                bug.name,
                path.display()
            );
            assert!(
                regression.replay(&reference, path).unwrap().is_ok(),
                "{}: the reference fails its own regression",
                path.display()
            );
            let mismatch = regression
                .replay(&bug, path)
                .unwrap()
                .expect_err("the buggy peer fails its regression");
            let expected = regression.expected_answer().unwrap();
            assert_eq!(
                difference_fields(&expected, &mismatch.actual),
                Some(fields_of(recorded_kind)),
                "{}: {} replays as another bug",
                bug.name,
                path.display()
            );
            assert!(
                methods.insert(regression.call.method()),
                "{}: two {} files",
                bug.name,
                regression.call.method()
            );
            eprintln!(
                "{}: {} files, {} bytes, {}: {recorded_kind}",
                bug.name,
                regression.files.len(),
                regression
                    .files
                    .iter()
                    .map(|f| f.content.len())
                    .sum::<usize>(),
                serde_json::to_string(&regression.call).unwrap(),
            );
        }
        eprintln!(
            "{}: {divergent_calls} divergent calls, {} files",
            bug.name,
            files.len()
        );
        // One file per method the bug shows in (grep and glob at most):
        // recording every divergent call kept one file per call.
        assert!(
            files.len() <= 2 && files.len() < divergent_calls,
            "{}: {} files for {divergent_calls} divergent calls",
            bug.name,
            files.len()
        );
    }
}
