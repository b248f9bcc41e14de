//! `lawsuite run`, `plan`, `shrink` and `record`: the conformance kit from
//! the command line.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, anyhow, bail};
use lawsuite::kit::compare::{Divergence, Materialized, calls};
use lawsuite::kit::materialize::materialize;
use lawsuite::kit::regression::{Regression, diverges, list, shrink_to_regression};
use lawsuite::kit::report::human;
use lawsuite::kit::shrink::Case;
use lawsuite::kit::sweep::{Sweep, sweep};
use lawsuite::kit::{Generator, generate};
use lawsuite::law;
use lawsuite::peer::Search;
use lawsuite::registry::Registry;
use lawsuite::suite::{ExpectedFailures, PLAN_ROOT, SMTHRS_SEEDS, parse_seeds};

use crate::{CaseArgs, Format, RunArgs};

type Peer = Arc<dyn Search>;

/// The reference and the selected peers of a registry.
fn select(registry: Option<&Path>, wanted: &[String]) -> anyhow::Result<(Peer, Vec<Peer>)> {
    let path = registry.map_or_else(Registry::default_path, Path::to_path_buf);
    let registry = Registry::load(&path)?;
    let mut reference = None;
    let mut peers = Vec::new();
    for entry in &registry.peers {
        let chosen = wanted.is_empty() || wanted.contains(&entry.name);
        match &entry.peer {
            Ok(peer) if entry.name == registry.reference => reference = Some(peer.clone()),
            Ok(peer) if chosen => peers.push(peer.clone()),
            Ok(_) => {}
            // Say so, and go on with the others.
            Err(why) if chosen => eprintln!("warning: peer {} is not run: {why}", entry.name),
            Err(_) => {}
        }
    }
    for name in wanted {
        if !registry.peers.iter().any(|p| &p.name == name) {
            bail!(
                "no peer named {name:?} in {}; the registered peers are: {}",
                path.display(),
                registry.names()
            );
        }
    }
    let reference = reference.ok_or_else(|| {
        anyhow!(
            "the reference peer {:?} cannot run here",
            registry.reference
        )
    })?;
    Ok((reference, peers))
}

fn generator(name: &str) -> anyhow::Result<Generator> {
    Generator::from_name(name)
        .ok_or_else(|| anyhow!("unknown generator {name:?}; use smthrs or lawsuite"))
}

fn full_ground(ground: &str) -> anyhow::Result<bool> {
    match ground {
        "shared" => Ok(false),
        "full" => Ok(true),
        other => bail!("unknown ground {other:?}; use shared or full"),
    }
}

/// `lawsuite run`.
pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let (reference, peers) = select(args.registry.as_deref(), &args.peers)?;
    let generator = generator(&args.generator)?;
    let full = full_ground(&args.ground)?;
    let seeds: Vec<u64> = match &args.seeds {
        Some(text) => parse_seeds(text)
            .ok_or_else(|| anyhow!("--seeds takes A..B or N, not {text:?}"))?
            .collect(),
        None if generator == Generator::Smthrs => SMTHRS_SEEDS.to_vec(),
        None => (0..64).collect(),
    };
    let mut failures = 0usize;
    let mut regression_report = Vec::new();
    if !args.no_regressions && args.call.is_none() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join("regressions");
        for path in list(&dir) {
            let regression = Regression::load(&path)?;
            for peer in std::iter::once(&reference).chain(&peers) {
                if !peer.supports(regression.call.method()) {
                    continue; // undeclared by an external peer: skipped
                }
                let ok = match regression.replay(peer.as_ref(), &path)? {
                    Ok(()) => true,
                    Err(mismatch) => {
                        failures += 1;
                        if args.format == Format::Human {
                            println!(
                                "regression {} fails on {}: {}\n{mismatch}",
                                path.display(),
                                peer.name(),
                                regression.why
                            );
                        }
                        false
                    }
                };
                regression_report.push(serde_json::json!({"file": path.display().to_string(), "peer": peer.name(), "ok": ok}));
            }
        }
    }
    let mut law_report = Vec::new();
    let mut laws_passed = 0usize;
    if !args.no_laws && args.call.is_none() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let (laws, problems) = law::load_dir(&root.join("laws"));
        for problem in &problems {
            failures += 1;
            println!("law file problem: {problem}");
        }
        let expected_dir = root.join("peers").join("expected");
        let expected = ExpectedFailures::load(&expected_dir);
        let mut outcomes: Vec<(String, String, bool)> = Vec::new();
        for loaded in &laws {
            for peer in std::iter::once(&reference).chain(&peers) {
                if !peer.supports(lawsuite::peer::capability(&loaded.law.method)) {
                    law_report.push(serde_json::json!({"law": loaded.id, "peer": peer.name(), "verdict": "skipped"}));
                    continue;
                }
                let outcome = law::run(loaded, peer.as_ref());
                outcomes.push((peer.name().to_string(), loaded.id.clone(), outcome.is_ok()));
                let xfail = expected.reason(peer.name(), &loaded.id);
                let verdict = match (&outcome, xfail) {
                    (Ok(()), None) => "pass",
                    (Err(_), Some(_)) => "expected failure",
                    (Err(report), None) => {
                        failures += 1;
                        if args.format == Format::Human {
                            println!("{report}\n");
                        }
                        "fail"
                    }
                    (Ok(()), Some(_)) => {
                        failures += 1;
                        println!(
                            "law {} passes on {} but is listed as an expected failure; remove the entry",
                            loaded.id,
                            peer.name()
                        );
                        "unexpected pass"
                    }
                };
                laws_passed += usize::from(verdict == "pass");
                law_report.push(
                    serde_json::json!({"law": loaded.id, "peer": peer.name(), "verdict": verdict}),
                );
            }
        }
        if args.update_expectations {
            let changed = update_expectations(&expected_dir, &outcomes)?;
            println!("expected failures updated: {changed}");
            failures = 0;
        }
    }
    for peer in &peers {
        for &method in generator.methods() {
            if !peer.supports(method) {
                eprintln!(
                    "note: peer {} does not answer {method}; its {method} calls are skipped",
                    peer.name()
                );
            }
        }
    }
    let subjects: Vec<&dyn Search> = peers.iter().map(|p| p.as_ref()).collect();
    let plan = Sweep {
        generator,
        seeds,
        full,
        only_call: args.call,
        jobs: args.jobs,
    };
    let terminal = std::io::stderr().is_terminal();
    // On a terminal the count is redrawn after every seed; in a log (CI, a
    // redirected long sweep) a line per tenth keeps the log short but shows
    // the run is alive.
    let tenth = (plan.seeds.len() / 10).max(10);
    let outcome = sweep(&plan, reference.as_ref(), &subjects, |p| {
        if terminal {
            eprint!(
                "\r{} seeds {}/{} · {} divergent calls",
                generator.name(),
                p.done,
                p.total,
                p.divergent
            );
        } else if p.done % tenth == 0 || p.done == p.total {
            eprintln!(
                "{} seeds {}/{} · {} divergent calls",
                generator.name(),
                p.done,
                p.total,
                p.divergent
            );
        }
    });
    if terminal {
        eprintln!();
    }
    for name in &outcome.left_out {
        eprintln!(
            "note: peer {name} claims only the shared ground, so it is not asked these full-ground plans"
        );
    }
    let seeds = plan.seeds;
    let (elapsed, rate) = (outcome.elapsed, outcome.seeds_per_second());
    let (divergences, explained): (Vec<Divergence>, Vec<Divergence>) = outcome
        .divergences
        .into_iter()
        .partition(Divergence::is_unexplained);
    let mut explained_counts: std::collections::BTreeMap<String, usize> = Default::default();
    for d in &explained {
        for a in &d.answers {
            if let Some(why) = &a.explained {
                *explained_counts
                    .entry(format!("{}: {why}", a.peer))
                    .or_default() += 1;
            }
        }
    }
    let errors = outcome.errors;
    let left_out = outcome.left_out;
    let color = std::io::stdout().is_terminal();
    let mut stdout = std::io::stdout().lock();
    match args.format {
        Format::Human => {
            for d in &divergences {
                writeln!(stdout, "{}", human(d, color))?;
            }
            for e in &errors {
                writeln!(stdout, "error: {e}")?;
            }
            for (why, n) in &explained_counts {
                writeln!(stdout, "documented difference {why}: {n} calls")?;
            }
            if !law_report.is_empty() {
                let count = |v: &str| law_report.iter().filter(|r| r["verdict"] == v).count();
                writeln!(
                    stdout,
                    "laws: {laws_passed} (law, peer) trials pass, {} fail, {} are listed expected failures, {} skipped (method not declared by the peer)",
                    law_report.len() - laws_passed - count("expected failure") - count("skipped"),
                    count("expected failure"),
                    count("skipped"),
                )?;
            }
            writeln!(
                stdout,
                "{} seeds of {} across {} and {} in {:.1} s ({:.1} seeds/s): {} divergent calls, {} regression failures, {} errors",
                seeds.len(),
                generator.name(),
                reference.name(),
                peers
                    .iter()
                    .map(|p| p.name())
                    .filter(|name| !left_out.iter().any(|l| l == name))
                    .collect::<Vec<_>>()
                    .join(", "),
                elapsed.as_secs_f64(),
                rate,
                divergences.len(),
                failures,
                errors.len()
            )?;
        }
        Format::Json => {
            let doc = serde_json::json!({
                "generator": generator.name(),
                "seeds": seeds.len(),
                "leftOut": left_out,
                "elapsedSeconds": elapsed.as_secs_f64(),
                "reference": reference.name(),
                "peers": peers.iter().map(|p| serde_json::json!({"name": p.name(), "version": p.version()})).collect::<Vec<_>>(),
                "regressions": regression_report,
                "laws": law_report,
                "divergences": divergences,
                "documentedDifferences": explained_counts,
                "errors": errors,
            });
            writeln!(stdout, "{}", serde_json::to_string_pretty(&doc)?)?;
        }
        Format::Junit | Format::Markdown => {
            let everyone: Vec<String> = std::iter::once(&reference)
                .chain(&peers)
                .map(|p| p.name().to_string())
                .collect();
            let summary = crate::ci_report::Summary {
                generator: generator.name(),
                seeds: seeds.len(),
                peers: &everyone,
                laws: &law_report,
                regressions: &regression_report,
                divergences: &divergences,
            };
            let text = if args.format == Format::Junit {
                summary.junit()
            } else {
                summary.markdown()
            };
            write!(stdout, "{text}")?;
        }
    }
    Ok(
        if divergences.is_empty() && failures == 0 && errors.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        },
    )
}

/// `lawsuite plan`.
pub fn plan(
    seed: u64,
    generator_name: &str,
    ground: &str,
    dir: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let plan = generate(
        generator(generator_name)?,
        seed,
        PLAN_ROOT,
        full_ground(ground)?,
    )
    .map_err(|e| anyhow!(e))?;
    match dir {
        None => println!("{}", serde_json::to_string_pretty(&plan)?),
        Some(dir) => {
            // Never write into a directory that already holds something: the
            // suite writes only under roots it owns.
            if dir.exists() && std::fs::read_dir(dir)?.next().is_some() {
                bail!(
                    "{} is not empty; name a new or empty directory to materialize into",
                    dir.display()
                );
            }
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            materialize(&plan.files, dir)?;
            println!(
                "wrote {} files under {}; calls use the root {PLAN_ROOT}, so replace it with {}",
                plan.files.len(),
                dir.display(),
                dir.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `lawsuite shrink` and `lawsuite record`.
pub fn shrink_case(args: &CaseArgs, record_dir: Option<&Path>) -> anyhow::Result<ExitCode> {
    let (reference, peers) = select(args.registry.as_deref(), std::slice::from_ref(&args.peer))?;
    let peer = peers
        .first()
        .ok_or_else(|| anyhow!("peer {:?} cannot run here", args.peer))?;
    let generator = generator(&args.generator)?;
    let plan = generate(generator, args.seed, PLAN_ROOT, full_ground(&args.ground)?)
        .map_err(|e| anyhow!(e))?;
    let call = calls(&plan)
        .into_iter()
        .nth(args.call)
        .ok_or_else(|| anyhow!("seed {} has no call {}", args.seed, args.call))?;
    let case = Case {
        root: plan.root.clone(),
        files: plan.files.clone(),
        call,
    };
    if !diverges(&case, reference.as_ref(), peer.as_ref()) {
        println!(
            "{} agrees with {} on seed {} call {}: nothing to shrink",
            peer.name(),
            reference.name(),
            args.seed,
            args.call
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "original: {} files, call {}",
        case.files.len(),
        serde_json::to_string(&case.call)?
    );
    let (regression, steps) = shrink_to_regression(
        &plan,
        args.call,
        case.call,
        reference.as_ref(),
        peer.as_ref(),
        args.why.clone(),
    )?;
    println!(
        "shrunk in {steps} steps to {} files, call {}",
        regression.files.len(),
        serde_json::to_string(&regression.call)?
    );
    let tree = Materialized::new(&regression.root, &regression.files)?;
    let actual = tree.answer(peer.as_ref(), &regression.call);
    print!(
        "{}",
        lawsuite::kit::report::json_diff(
            &regression.expected,
            &actual,
            std::io::stdout().is_terminal()
        )
    );
    if let Some(dir) = record_dir {
        let path = regression.write(dir, &regression.default_name())?;
        println!("recorded {}", path.display());
    }
    Ok(ExitCode::from(1))
}

type PeerTable = std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>>;

/// `--update-expectations`: drop listed expected failures that now pass
/// (from whichever file lists them) and list new failures in
/// `recorded.toml`, with a reason to be replaced by the real cause.
fn update_expectations(dir: &Path, outcomes: &[(String, String, bool)]) -> anyhow::Result<String> {
    let passing: std::collections::HashSet<(&str, &str)> = outcomes
        .iter()
        .filter(|o| o.2)
        .map(|o| (o.0.as_str(), o.1.as_str()))
        .collect();
    let mut listed: std::collections::HashSet<(String, String)> = Default::default();
    let mut removed = 0;
    for file in ExpectedFailures::files(dir) {
        let text = std::fs::read_to_string(&file)?;
        let mut table: PeerTable =
            toml::from_str(&text).with_context(|| format!("parsing {}", file.display()))?;
        let before: usize = table.values().map(|t| t.len()).sum();
        for (peer, laws) in table.iter_mut() {
            laws.retain(|law, _| !passing.contains(&(peer.as_str(), law.as_str())));
            listed.extend(laws.keys().map(|l| (peer.clone(), l.clone())));
        }
        let after: usize = table.values().map(|t| t.len()).sum();
        if after != before {
            removed += before - after;
            std::fs::write(&file, toml::to_string(&table)?)?;
        }
    }
    let recorded_path = dir.join("recorded.toml");
    let mut recorded: PeerTable = std::fs::read_to_string(&recorded_path)
        .ok()
        .and_then(|t| toml::from_str(&t).ok())
        .unwrap_or_default();
    let mut added = 0;
    for (peer, law, ok) in outcomes {
        if !ok && !listed.contains(&(peer.clone(), law.clone())) {
            recorded.entry(peer.clone()).or_default().insert(
                law.clone(),
                "recorded by `lawsuite run --update-expectations`; replace with the cause".into(),
            );
            added += 1;
        }
    }
    if added > 0 {
        std::fs::create_dir_all(dir)?;
        std::fs::write(&recorded_path, toml::to_string(&recorded)?)?;
    }
    Ok(format!(
        "{removed} entries that now pass removed, {added} new failures listed in {}",
        recorded_path.display()
    ))
}
