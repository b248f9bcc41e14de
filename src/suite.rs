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
//! Trials are named `seed::<generator>::<seed>::<peer>`,
//! `law::<area>::<file>::<law>::<peer>` and `regression::<file>::<peer>`
//! (a law whose method a peer does not answer — `flow/read` on `ripgrep` —
//! is an ignored trial, never a failure), so `cargo test -- seed::smthrs::` or
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

use crate::kit::compare::{Divergence, compare_plan};
use crate::kit::plan::{Plan, PlanOptions};
use crate::kit::regression::{Regression, list, shrink_to_regression};
use crate::kit::report::human;
use crate::kit::smthrs;
use crate::law;
use crate::peer::{Search, capability};
use crate::registry::Registry;

/// The TypeScript kit's shipped seeds (conformance-kit §6).
pub const SMTHRS_SEEDS: [u64; 12] = [1, 2, 4, 21, 34, 40, 51, 89, 103, 118, 144, 233];

/// How many `lawsuite` generator seeds `cargo test` runs by default.
pub const LAWSUITE_SEEDS: u64 = 64;

pub use crate::kit::plan::PLAN_ROOT;

type Peer = Arc<dyn Search>;

/// The methods whose calls a peer may not answer; each one a peer does not
/// support gets an ignored `skipped::<peer>::<method>` trial.
const SKIPPABLE: [&str; 5] = ["grep", "glob", "flow/read", "flow/ls", "flow/bash"];

/// A set of trials over a reference and any number of peers.
#[derive(Clone)]
pub struct Suite {
    reference: Option<(String, Peer)>,
    peers: Vec<(String, Peer)>,
    unavailable: Vec<(String, String)>,
    smthrs_seeds: Vec<u64>,
    lawsuite_seeds: Vec<u64>,
    regressions: PathBuf,
    laws: PathBuf,
    expected_failures: PathBuf,
}

/// Per-peer expected law failures: every `*.toml` file under
/// `peers/expected/`, each with one table per peer mapping a law id to the
/// reason it fails there.
#[derive(Debug, Default)]
pub struct ExpectedFailures {
    by_peer: std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>>,
    /// Files that could not be read or parsed, with the reason.
    pub errors: Vec<String>,
}

type PeerTable = std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>>;

impl ExpectedFailures {
    /// The `*.toml` files of the directory, sorted; a missing directory has none.
    pub fn files(dir: &Path) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "toml"))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        files
    }

    /// Load every file of the directory; a missing directory means none.
    pub fn load(dir: &Path) -> ExpectedFailures {
        let mut out = ExpectedFailures::default();
        for file in ExpectedFailures::files(dir) {
            let parsed = std::fs::read_to_string(&file)
                .map_err(|e| e.to_string())
                .and_then(|text| toml::from_str::<PeerTable>(&text).map_err(|e| e.to_string()));
            match parsed {
                Ok(tables) => {
                    for (peer, laws) in tables {
                        out.by_peer.entry(peer).or_default().extend(laws);
                    }
                }
                Err(e) => out.errors.push(format!("{}: {e}", file.display())),
            }
        }
        out
    }

    /// Why `law` is expected to fail on `peer`, if it is.
    pub fn reason(&self, peer: &str, law: &str) -> Option<&str> {
        self.by_peer.get(peer)?.get(law).map(String::as_str)
    }
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
        let wide = seeds_from_env();
        let seeds = wide
            .clone()
            .map_or_else(|| SMTHRS_SEEDS.to_vec(), |r| r.collect());
        let lawsuite_seeds = wide.map_or_else(|| (0..LAWSUITE_SEEDS).collect(), |r| r.collect());
        Suite {
            reference: None,
            peers: Vec::new(),
            unavailable: Vec::new(),
            smthrs_seeds: seeds,
            lawsuite_seeds,
            regressions: Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures")
                .join("regressions"),
            laws: Path::new(env!("CARGO_MANIFEST_DIR")).join("laws"),
            expected_failures: Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("peers")
                .join("expected"),
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
            for method in SKIPPABLE {
                // A peer that does not implement (or, external, declare) a
                // method: its calls are skipped, and this ignored trial says so.
                if !peer.supports(method) {
                    trials.push(
                        Trial::test(format!("skipped::{name}::{method}"), || Ok(()))
                            .with_ignored_flag(true)
                            .with_kind(format!("{method} is not answered by the peer")),
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
        self.law_trials(&everyone, &mut trials);
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
        for &seed in &self.lawsuite_seeds {
            for (name, peer) in &self.peers {
                let reference = reference.clone();
                let peer = peer.clone();
                let regressions = self.regressions.clone();
                trials.push(
                    Trial::test(format!("seed::lawsuite::{seed:04}::{name}"), move || {
                        let plan = crate::kit::generator::plan(
                            seed,
                            PLAN_ROOT,
                            &crate::kit::generator::GeneratorOptions::default(),
                        );
                        run_plan(&plan, reference.as_ref(), peer.as_ref(), &regressions)
                    })
                    .with_kind("seed"),
                );
            }
        }
        trials
    }

    /// Replace the `lawsuite` generator's seeds.
    pub fn lawsuite_seeds(mut self, seeds: impl IntoIterator<Item = u64>) -> Suite {
        self.lawsuite_seeds = seeds.into_iter().collect();
        self
    }

    /// Use another law directory.
    pub fn laws(mut self, dir: impl Into<PathBuf>) -> Suite {
        self.laws = dir.into();
        self
    }

    /// One trial per (law, peer), one per broken law file, and the
    /// coverage check (every section §2–§18 has a law).
    fn law_trials(&self, everyone: &[(String, Peer)], trials: &mut Vec<Trial>) {
        let (laws, errors) = law::load_dir(&self.laws);
        for error in errors {
            let stem = error
                .file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let name = format!(
                "law::invalid::{stem}::{}",
                error.law.clone().unwrap_or_else(|| "file".into())
            );
            let message = error.to_string();
            trials.push(Trial::test(name, move || Err(message.into())).with_kind("law"));
        }
        if self.laws.is_dir() {
            let uncovered = law::uncovered_sections(&laws);
            let count = laws.len();
            trials.push(
                Trial::test("law::coverage", move || {
                    if uncovered.is_empty() {
                        return Ok(());
                    }
                    Err(format!("sections without a law: {}; add a law that pins each ({count} laws loaded)", uncovered.join(", ")).into())
                })
                .with_kind("law"),
            );
        }
        let expected = ExpectedFailures::load(&self.expected_failures);
        for error in expected.errors.clone() {
            trials.push(
                Trial::test("law::expected-failures::invalid", move || {
                    Err(format!("an expected-failures file is not valid: {error}").into())
                })
                .with_kind("law"),
            );
        }
        for loaded in laws {
            for (name, peer) in everyone {
                let method = capability(&loaded.law.method);
                if !peer.supports(method) {
                    // Shown as ignored, with the reason: the peer does not
                    // implement (or declare) the method.
                    trials.push(
                        Trial::test(format!("law::{}::{name}", loaded.id), || Ok(()))
                            .with_ignored_flag(true)
                            .with_kind(format!("{method} unsupported")),
                    );
                    continue;
                }
                let loaded = loaded.clone();
                let peer = peer.clone();
                let xfail = expected.reason(name, &loaded.id).map(str::to_string);
                let listing = self.expected_failures.display().to_string();
                trials.push(
                    Trial::test(format!("law::{}::{name}", loaded.id), move || {
                        match (law::run(&loaded, peer.as_ref()), xfail) {
                            (Ok(()), None) | (Err(_), Some(_)) => Ok(()),
                            (Err(report), None) => Err(report.into()),
                            (Ok(()), Some(reason)) => Err(format!(
                                "law {} now passes on {}, but {listing} lists it as an expected failure ({reason}); remove that entry",
                                loaded.id,
                                peer.name()
                            )
                            .into()),
                        }
                    })
                    .with_kind("law"),
                );
            }
        }
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
    let divergences: Vec<Divergence> = compare_plan(plan, reference, &[peer])
        .map_err(|e| Failed::from(e.to_string()))?
        .into_iter()
        .filter(Divergence::is_unexplained)
        .collect();
    if divergences.is_empty() {
        return Ok(());
    }
    let record = std::env::var("LAWSUITE_RECORD").is_ok_and(|v| v == "1");
    let mut report = format!(
        "{} of {} calls diverge\n\n",
        divergences.len(),
        plan.call_count()
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
    let (regression, _) =
        shrink_to_regression(plan, d.call_index, d.call.clone(), reference, peer, None)?;
    Ok(regression.write(dir, &regression.default_name())?)
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
