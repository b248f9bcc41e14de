//! `cargo test` as the front door: every seed, regression and (soon) law
//! as its own libtest trial, for every peer.
//!
//! A crate that implements a peer gets the same trials from a
//! `harness = false` test:
//!
//! ```no_run
//! use lawsuite::portable::Portable;
//! use lawsuite::suite::Suite;
//! # use lawsuite::peer::Noop as MyPeer;
//!
//! // tests/conformance.rs, with `[[test]] name = "conformance" harness = false`
//! fn main() {
//!     Suite::new()
//!         .reference("portable", Portable::default())
//!         .peer("mine", MyPeer)
//!         .run()
//! }
//! ```
//!
//! Trials are named `seed::<generator>::<seed>::<peer>` and
//! `regression::<file>::<peer>`, so `cargo test -- seed::smthrs::` or
//! `cargo test -- ::ripgrep` select them; `--list`, `--exact` and
//! `--format json` work as with libtest, and so does `cargo nextest`
//! (including `--partition hash:m/n`).
//!
//! Environment:
//! * `LAWSUITE_SEEDS=A..B` replaces the default seed sets with `A..B` for
//!   every generator (a wider sweep).
//! * `LAWSUITE_RECORD=1`: a failing seed trial shrinks its divergences and
//!   writes them under `fixtures/regressions/`.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use libtest_mimic::{Arguments, Failed, Trial};

use crate::kit::compare::{Divergence, Materialized, compare_plan};
use crate::kit::plan::{Plan, PlanOptions};
use crate::kit::regression::{Regression, list};
use crate::kit::report::human;
use crate::kit::shrink::{Budget, Case, shrink};
use crate::kit::smthrs;
use crate::peer::Search;
use crate::registry::Registry;

/// The TypeScript kit's shipped seeds (conformance-kit §6).
pub const SMTHRS_SEEDS: [u64; 12] = [1, 2, 4, 21, 34, 40, 51, 89, 103, 118, 144, 233];

/// The symbolic root plans are generated under.
pub const PLAN_ROOT: &str = "/r";

type Peer = Arc<dyn Search>;

/// A set of trials over a reference and any number of peers.
#[derive(Clone)]
pub struct Suite {
    reference: Option<(String, Peer)>,
    peers: Vec<(String, Peer)>,
    unavailable: Vec<(String, String)>,
    smthrs_seeds: Vec<u64>,
    regressions: PathBuf,
}

impl std::fmt::Debug for Suite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Suite")
            .field("reference", &self.reference.as_ref().map(|r| &r.0))
            .field(
                "peers",
                &self.peers.iter().map(|p| &p.0).collect::<Vec<_>>(),
            )
            .field("unavailable", &self.unavailable)
            .finish()
    }
}

impl Default for Suite {
    fn default() -> Self {
        Suite::new()
    }
}

impl Suite {
    /// An empty suite: no peers yet, the default seeds, lawsuite's own
    /// regression files.
    pub fn new() -> Suite {
        let seeds = seeds_from_env().map_or_else(|| SMTHRS_SEEDS.to_vec(), |r| r.collect());
        Suite {
            reference: None,
            peers: Vec::new(),
            unavailable: Vec::new(),
            smthrs_seeds: seeds,
            regressions: Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures")
                .join("regressions"),
        }
    }

    /// The peers of a registry file (`peers/peers.toml`).
    pub fn from_registry(registry: &Registry) -> Suite {
        let mut suite = Suite::new();
        for entry in &registry.peers {
            match &entry.peer {
                Ok(peer) if entry.name == registry.reference => {
                    suite.reference = Some((entry.name.clone(), peer.clone()));
                }
                Ok(peer) => suite.peers.push((entry.name.clone(), peer.clone())),
                Err(why) => suite.unavailable.push((entry.name.clone(), why.clone())),
            }
        }
        suite
    }

    /// Set the reference peer.
    pub fn reference(mut self, name: &str, peer: impl Search + 'static) -> Suite {
        self.reference = Some((name.to_string(), Arc::new(peer)));
        self
    }

    /// Add a peer under test.
    pub fn peer(mut self, name: &str, peer: impl Search + 'static) -> Suite {
        self.peers.push((name.to_string(), Arc::new(peer)));
        self
    }

    /// Use another regression directory.
    pub fn regressions(mut self, dir: impl Into<PathBuf>) -> Suite {
        self.regressions = dir.into();
        self
    }

    /// Replace the `smthrs` seeds.
    pub fn smthrs_seeds(mut self, seeds: impl IntoIterator<Item = u64>) -> Suite {
        self.smthrs_seeds = seeds.into_iter().collect();
        self
    }

    /// Build every trial.
    pub fn trials(&self) -> Vec<Trial> {
        let mut trials = Vec::new();
        for (name, why) in &self.unavailable {
            // Shown as ignored, with the reason in its name, so a missing
            // `rg` is visible in every test run.
            trials.push(
                Trial::test(format!("unavailable::{name}"), || Ok(()))
                    .with_ignored_flag(true)
                    .with_kind(why.chars().take(120).collect::<String>()),
            );
        }
        let Some((ref_name, reference)) = self.reference.clone() else {
            trials.push(Trial::test("suite::reference", || {
                Err("the suite has no reference peer; call Suite::reference or register one in peers/peers.toml".into())
            }));
            return trials;
        };
        for (name, peer) in &self.peers {
            for method in ["grep", "glob"] {
                // An external peer that does not declare a method: its calls
                // are skipped, and this ignored trial says so.
                if !peer.supports(method) {
                    trials.push(
                        Trial::test(format!("skipped::{name}::{method}"), || Ok(()))
                            .with_ignored_flag(true)
                            .with_kind(format!("{method} is not declared by the peer")),
                    );
                }
            }
        }
        let everyone: Vec<(String, Peer)> = std::iter::once((ref_name.clone(), reference.clone()))
            .chain(self.peers.iter().cloned())
            .collect();
        for path in list(&self.regressions) {
            let file = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            for (name, peer) in &everyone {
                let path = path.clone();
                let peer = peer.clone();
                trials.push(
                    Trial::test(format!("regression::{file}::{name}"), move || {
                        replay(&path, peer.as_ref())
                    })
                    .with_kind("regression"),
                );
            }
        }
        for &seed in &self.smthrs_seeds {
            for (name, peer) in &self.peers {
                let reference = reference.clone();
                let peer = peer.clone();
                let regressions = self.regressions.clone();
                trials.push(
                    Trial::test(format!("seed::smthrs::{seed:04}::{name}"), move || {
                        let Ok(seed32) = u32::try_from(seed) else {
                            return Err(
                                format!("smthrs seeds are 32-bit; {seed} is too large").into()
                            );
                        };
                        let plan = smthrs::plan(seed32, PLAN_ROOT, &PlanOptions::default());
                        run_plan(&plan, reference.as_ref(), peer.as_ref(), &regressions)
                    })
                    .with_kind("seed"),
                );
            }
        }
        trials
    }

    /// Run the trials with libtest's command line and exit.
    pub fn run(self) -> ! {
        let args = Arguments::from_args();
        let conclusion = libtest_mimic::run(&args, self.trials());
        // `exit` runs no destructors: drop the peers first, so external peer
        // processes are shut down and reaped.
        drop(self);
        conclusion.exit()
    }
}

/// `LAWSUITE_SEEDS=A..B` (or a single `N`).
fn seeds_from_env() -> Option<Range<u64>> {
    let text = std::env::var("LAWSUITE_SEEDS").ok()?;
    parse_seeds(&text)
}

/// Parse `A..B` or `N` into a range.
pub fn parse_seeds(text: &str) -> Option<Range<u64>> {
    match text.split_once("..") {
        Some((a, b)) => Some(a.trim().parse().ok()?..b.trim().parse().ok()?),
        None => {
            let n: u64 = text.trim().parse().ok()?;
            Some(n..n.checked_add(1)?)
        }
    }
}

fn replay(path: &Path, peer: &dyn Search) -> Result<(), Failed> {
    let regression = Regression::load(path).map_err(|e| Failed::from(e.to_string()))?;
    if !peer.supports(regression.call.method()) {
        return Ok(()); // reported by the `skipped::` trial
    }
    match regression.replay(peer, path) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(mismatch)) => {
            Err(format!("{}: {}\n{mismatch}", path.display(), regression.why).into())
        }
        Err(e) => Err(e.to_string().into()),
    }
}

/// Compare one plan between the reference and one peer; on divergence fail
/// with the report, shrinking and recording first when `LAWSUITE_RECORD=1`.
pub fn run_plan(
    plan: &Plan,
    reference: &dyn Search,
    peer: &dyn Search,
    regressions: &Path,
) -> Result<(), Failed> {
    let divergences =
        compare_plan(plan, reference, &[peer]).map_err(|e| Failed::from(e.to_string()))?;
    if divergences.is_empty() {
        return Ok(());
    }
    let record = std::env::var("LAWSUITE_RECORD").is_ok_and(|v| v == "1");
    let mut report = format!(
        "{} of {} calls diverge\n\n",
        divergences.len(),
        plan.grep.len() + plan.glob.len()
    );
    for d in divergences.iter().take(3) {
        report.push_str(&human(d, false));
        if record {
            match record_divergence(plan, d, reference, peer, regressions) {
                Ok(path) => report.push_str(&format!("recorded: {}\n", path.display())),
                Err(e) => report.push_str(&format!("not recorded: {e}\n")),
            }
        }
        report.push('\n');
    }
    if let Some(diagnostics) = peer.diagnostics() {
        report.push_str(&diagnostics);
        report.push('\n');
    }
    Err(report.into())
}

/// Shrink a divergence and write it as a regression file.
pub fn record_divergence(
    plan: &Plan,
    d: &Divergence,
    reference: &dyn Search,
    peer: &dyn Search,
    dir: &Path,
) -> Result<PathBuf, Box<dyn std::error::Error>> {
    let case = Case {
        root: plan.root.clone(),
        files: plan.files.clone(),
        call: d.call.clone(),
    };
    let (small, _) = shrink(case, Budget::default(), |c| {
        Materialized::new(&c.root, &c.files)
            .is_ok_and(|t| t.answer(reference, &c.call) != t.answer(peer, &c.call))
    });
    let tree = Materialized::new(&small.root, &small.files)?;
    let expected = tree.answer(reference, &small.call);
    let regression = Regression {
        why: format!(
            "{} disagreed with {} on {} seed {} call {}",
            peer.name(),
            reference.name(),
            d.generator,
            d.seed,
            d.call_index
        ),
        generator: d.generator.clone(),
        generator_version: d.version,
        seed: d.seed,
        call_index: d.call_index,
        peers: vec![reference.name().to_string(), peer.name().to_string()],
        root: small.root,
        files: small.files,
        call: small.call,
        expected,
    };
    let name = format!(
        "{}-{}-{}-{}",
        d.generator,
        d.seed,
        d.call_index,
        peer.name()
    );
    Ok(regression.write(dir, &name)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_ranges() {
        assert_eq!(parse_seeds("0..10"), Some(0..10));
        assert_eq!(parse_seeds("7"), Some(7..8));
        assert_eq!(parse_seeds("x"), None);
    }
}
