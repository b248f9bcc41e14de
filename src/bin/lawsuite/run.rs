//! `lawsuite run`, `merge`, `plan`, `shrink` and `record`: the conformance
//! engine from the command line. `run` is a thin adapter: it builds the
//! same [`Engine`] `cargo test` builds, selects trials, and writes the
//! outcomes in the chosen format.

use std::collections::{BTreeMap, HashSet};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, anyhow, bail};
use lawsuite::conformance::config::{Config, ConfigBuilder, SeedSet, Seeds};
use lawsuite::conformance::peers::PeerSet;
use lawsuite::conformance::shard::in_shard;
use lawsuite::conformance::update::update_expectations;
use lawsuite::conformance::{
    Engine, Item, ItemId, Kind, Outcome, Replay, RunOptions, Summary, Trial, TrialId,
};
use lawsuite::environment::Environment;
use lawsuite::kit::compare::Materialized;
use lawsuite::kit::materialize::materialize;
use lawsuite::kit::regression::{divergence_kind, pinned_by};
use lawsuite::kit::shrink::Case;
use lawsuite::kit::{Generator, generate};
use lawsuite::peer::Ground;
use lawsuite::report::diff::{Change, RunDiff};
use lawsuite::report::history::History;
use lawsuite::report::live::{Live, LiveOptions};
use lawsuite::report::results::{
    Accept, Closing, Merge, Results, ResultsError, ResultsErrorKind, Side, Source,
};
use lawsuite::report::{self as format, Format, PeerInfo, RunInfo, render};
use lawsuite::suite::PLAN_ROOT;

use crate::interrupt;
use crate::project_args::{ProjectArgs, ProjectPeers, named, program};
use crate::{CaseArgs, RunArgs};

/// A trial filter as `cargo test` takes one: substrings of the trial id
/// (any of them), or whole ids with `--exact`, minus `--skip` substrings.
struct Filter<'a> {
    patterns: &'a [String],
    exact: bool,
    skip: &'a [String],
    law: Option<&'a str>,
    /// `--rerun-failed`: only these trial ids.
    only: Option<&'a HashSet<TrialId>>,
}

impl Filter<'_> {
    /// Whether it admits every trial (no pattern, `--skip`, `--law` or
    /// `--rerun-failed`).
    fn is_everything(&self) -> bool {
        self.patterns.is_empty()
            && self.skip.is_empty()
            && self.law.is_none()
            && self.only.is_none()
    }

    fn admits(&self, trial: &Trial) -> bool {
        if self.only.is_some_and(|only| !only.contains(&trial.id)) {
            return false;
        }
        let id = trial.id.as_str();
        let named = self.patterns.is_empty()
            || self.patterns.iter().any(|p| {
                if self.exact {
                    id == p
                } else {
                    id.contains(p.as_str())
                }
            });
        let law = match self.law {
            Some(f) => {
                trial.kind != Kind::Law
                    || trial.id.item().law().is_some_and(|law| law.starts_with(f))
            }
            None => true,
        };
        named && law && !self.skip.iter().any(|s| id.contains(s.as_str()))
    }
}

/// `lawsuite run`.
pub fn run(args: RunArgs, environment: Environment) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    if args.jobs == 0 {
        bail!("--jobs 0 would run nothing; give 1 or more (default: twice the number of cores)");
    }
    let mut project = args.project.project()?;
    if let Some(dir) = &args.regressions {
        project.regressions = crate::project_args::absolute(dir);
    }
    if let Some(file) = &args.write_baseline {
        check_output("--write-baseline", file)?;
    }
    if let Some(file) = &args.html {
        check_output("--html", file)?;
    }
    // Both read before anything runs: a bad file is an error now, not
    // after an hour of trials. The baseline is checked whole, then read
    // again (streamed) when this run is compared with it.
    let mut baseline = match args.baseline.as_deref() {
        None => None,
        Some(file) => {
            let mut side = Side::file(Source::file(file));
            side.check_whole().map_err(|e| refused(e, false))?;
            Some(side)
        }
    };
    let rerun: Option<HashSet<TrialId>> = match args.rerun_failed.as_deref() {
        None => None,
        Some(file) => {
            let failed: HashSet<TrialId> = read_results(file, Accept::WHOLE, false)?
                .outcomes
                .into_iter()
                .filter(|o| o.verdict.is_failure())
                .map(|o| o.id)
                .collect();
            if failed.is_empty() {
                eprintln!("nothing to rerun: no trial failed in {}", file.display());
                return Ok(ExitCode::SUCCESS);
            }
            Some(failed)
        }
    };
    let mut config = config_of(&args, &project, environment);
    if let Some(failed) = &rerun {
        // The failed seeds exactly, whatever seeds this run would take.
        config = config.seed_sets(seed_sets_of(failed));
    }
    let config = config
        .build()
        .map_err(|problems| anyhow!("{}", crate::lines(&problems)))?;
    let peers = ProjectPeers::read(&project, named(&args.peers), config.peer_options())?
        .set(&args.peers)?;
    let engine = config
        .engine(peers, None)
        .map_err(|problems| anyhow!("{}", crate::lines(&problems)))?;
    for warning in engine.warnings() {
        eprintln!("warning: {warning}");
    }
    let filter = Filter {
        patterns: &args.filters,
        exact: args.exact,
        skip: &args.skip,
        law: args.law.as_deref(),
        only: rerun.as_ref(),
    };
    let shard = args.shard.map(|s| (s.k, s.n));
    // A peer that cannot run is a notice kept as a skipped trial, not
    // something to run: a selection left with only those is empty (with
    // `rg` missing, `--no-laws --no-seeds --no-regressions` ran two
    // notices and passed).
    let is_notice = |t: &Trial| matches!(engine.items()[t.item], Item::Unavailable { .. });
    // Items are hashed to shards by id; a seed range's seeds each by its own.
    let item_ids: Vec<String> = engine.items().iter().map(Item::id).collect();
    let in_this_shard = |t: &Trial| {
        shard.is_none_or(|(k, n)| match t.seed {
            Some(_) => in_shard(&engine.trial_item(t).id(), k, n),
            None => in_shard(&item_ids[t.item], k, n),
        })
    };
    let chosen = |t: &Trial| filter.admits(t) && in_this_shard(t);
    // A `--law` prefix that names no law is a typo, not an empty run
    // (`--law grep::contxt` ran the seeds alone and passed).
    if let Some(prefix) = &args.law {
        let named = engine
            .items()
            .iter()
            .any(|i| matches!(i, Item::Law(l) if l.id.starts_with(prefix.as_str())));
        if !named {
            bail!(
                "--law {prefix} names no law; law ids look like grep::context::… (`lawsuite run --no-seeds --list` lists them)"
            );
        }
    }
    if args.list {
        // Listed as they are made: `--seeds 0..100000000 --list | head`
        // prints at once, in a few megabytes.
        let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
        let mut listed = 0u128;
        for trial in engine.trials_iter(|_| true).filter(|t| chosen(t)) {
            writeln!(stdout, "{}", trial.id)?;
            listed += 1;
        }
        stdout.flush()?;
        eprintln!("{listed} trials");
        return Ok(ExitCode::SUCCESS);
    }
    let selection = if filter.is_everything() && shard.is_none() {
        Selection::counted(&engine)
    } else {
        Selection::walked(
            &engine,
            &is_notice,
            &|t: &Trial| filter.admits(t),
            &in_this_shard,
        )
    };
    // An empty shard is a whole, empty part of its sweep: its results
    // (a run line, no trials, a complete summary) merge with the others'.
    // It used to exit 2 writing nothing, and `merge` refused the sweep.
    let empty_shard = shard.is_some() && selection.admitted > 0;
    if selection.chosen_runnable == 0 && !empty_shard {
        let runnable = selection.runnable;
        let mut selection: Vec<String> = args.filters.iter().map(|f| format!("{f:?}")).collect();
        selection.extend(args.skip.iter().map(|s| format!("--skip {s}")));
        selection.extend(args.law.iter().map(|l| format!("--law {l}")));
        selection.extend(args.shard.map(|s| format!("--shard {}/{}", s.k, s.n)));
        let what = if runnable == 0 {
            "this run has no law, regression or seed; drop --no-laws, --no-seeds or --no-regressions".to_string()
        } else {
            format!(
                "none of the run's {runnable} trials matches {}; check the filters (`lawsuite run --list` lists the trials)",
                if selection.is_empty() {
                    "the selection".to_string()
                } else {
                    selection.join(" ")
                }
            )
        };
        let missing: Vec<&str> = engine
            .items()
            .iter()
            .filter_map(|i| match i {
                Item::Unavailable { name, .. } => Some(name.as_str()),
                _ => None,
            })
            .collect();
        let note = if missing.is_empty() {
            String::new()
        } else {
            format!(
                " ({} cannot run here; the notice saying so is not a trial)",
                missing.join(" and ")
            )
        };
        bail!("nothing to run: {what}{note}");
    }
    let generators = config.generators();
    let info = RunInfo {
        lawsuite: env!("CARGO_PKG_VERSION").to_string(),
        project: project.describe(),
        reference: engine.peers()[0].name().to_string(),
        peers: engine
            .peers()
            .iter()
            .map(|s| PeerInfo {
                name: s.name().to_string(),
                version: s.peer().version(),
                builtin: s.builtin().map(|b| b.name().to_string()),
                // Built-ins are lawsuite's own Rust; an external peer says.
                language: s
                    .peer()
                    .language()
                    .or_else(|| s.builtin().map(|_| "rust".to_string())),
                ground: s.peer().ground().name().to_string(),
            })
            .collect(),
        generator: (!generators.is_empty()).then(|| {
            generators
                .iter()
                .map(|g| g.name())
                .collect::<Vec<_>>()
                .join(", ")
        }),
        seeds: (!generators.is_empty()).then(|| {
            args.seeds
                .as_ref()
                .map_or_else(|| "default".into(), |s| s.text.clone())
        }),
        ground: config
            .seed_sets()
            .iter()
            .find(|s| s.generator == Generator::Lawsuite && !s.seeds.is_empty())
            .map(|s| s.ground.name().to_string()),
        started: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        machine: format::machine(),
        trials: Some(saturate(selection.total())),
        shard: shard.map(|(k, n)| format!("{k}/{n}")),
        // The sweep this run is (a shard of): `merge` puts together only
        // the shards of one.
        seed_sets: config
            .seed_sets()
            .iter()
            .filter(|s| !s.seeds.is_empty())
            .map(format::sweep::seed_set)
            .collect(),
        laws: Some(format::sweep::laws_of(engine.items())),
        regressions: Some(format::sweep::regressions_of(engine.items())),
        filter: filter_of(&args, rerun.as_ref()),
        warnings: Vec::new(),
    };
    // Made as they are run: a selection from a seed range of any width is
    // never held whole.
    let trials = engine.trials_iter(|_| true).filter(|t| chosen(t));
    let outcomes = execute(
        &engine,
        trials,
        &selection,
        &args,
        config.max_reports(),
        &info,
        started,
    )?;
    // Shut external peers down before deciding the exit status.
    drop(engine);
    if interrupt::was_interrupted() {
        return Ok(ExitCode::from(interrupt::EXIT_CODE));
    }
    if let Some(failed) = &rerun {
        let ran: HashSet<&TrialId> = outcomes.iter().map(|o| &o.id).collect();
        let gone = failed.iter().filter(|id| !ran.contains(id)).count();
        if gone > 0 {
            eprintln!(
                "note: {gone} of the {} failed trials of {} are not in this project now (a peer, law or regression that is gone); --list shows what runs",
                failed.len(),
                args.rerun_failed
                    .as_deref()
                    .unwrap_or(Path::new(""))
                    .display()
            );
        }
    }
    let mut failed = outcomes.iter().any(|o| o.verdict.is_failure());
    // Rewriting the lists fixes the next run, not this one: this run still
    // failed, and a CI job that updates them must still see it fail.
    if args.update_expectations {
        let changed = update_expectations(&project.expected, &outcomes)?.to_string();
        eprintln!("expected failures updated: {changed}");
    }
    let results = Results::new(info, outcomes, "this run");
    // Compared before the new baseline is written: `--baseline F
    // --write-baseline F` compares with the old F.
    let verdict = match baseline.take() {
        None => None,
        Some(base) => {
            let diff = RunDiff::of(base, Side::held(&results)).map_err(|e| refused(e, false))?;
            failed = diff.regressed();
            Some(baseline_verdict(&diff, args.write_baseline.is_some())?)
        }
    };
    if let Some(file) = &args.write_baseline {
        write_results(file, &results)?;
        eprintln!(
            "wrote the baseline {} ({} trials)",
            file.display(),
            results.outcomes.len()
        );
    }
    if let Some(verdict) = verdict {
        eprint!("{verdict}");
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The trial filter of `args` as a run line names it, when it has one:
/// what selects trials besides the shard. `--rerun-failed` is named by
/// the trials it reruns (`rerun`), not by its file's path, which differs
/// between the machines that run a sweep's shards.
fn filter_of(args: &RunArgs, rerun: Option<&HashSet<TrialId>>) -> Option<String> {
    let mut parts: Vec<String> = args
        .filters
        .iter()
        .map(|f| lawsuite::conformance::shell_word(f))
        .collect();
    if args.exact {
        parts.push("--exact".into());
    }
    for skip in &args.skip {
        parts.push(format!(
            "--skip {}",
            lawsuite::conformance::shell_word(skip)
        ));
    }
    if let Some(law) = &args.law {
        parts.push(format!("--law {}", lawsuite::conformance::shell_word(law)));
    }
    if let Some(call) = args.call {
        parts.push(format!("--call {call}"));
    }
    if let Some(failed) = rerun {
        let mut ids: Vec<&str> = failed.iter().map(TrialId::as_str).collect();
        ids.sort_unstable();
        parts.push(format!(
            "--rerun-failed ({})",
            format::sweep::digest_of(ids.iter().map(|id| id.as_bytes()), "trials")
        ));
    }
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// `lawsuite diff BASE NEW`: 1 when something newly fails, else 0. Both
/// files are streamed: the base's trials kept as keys, the new run's
/// counted as they are read, and both read again for what is listed.
pub fn diff(args: &crate::DiffArgs) -> anyhow::Result<ExitCode> {
    let diff = RunDiff::of(
        Side::file(Source::file(&args.base)),
        Side::file(Source::file(&args.new)),
    )
    .map_err(|e| refused(e, false))?;
    let max = args.max_reports;
    let write = |out: &mut dyn Write| -> std::io::Result<()> {
        match args.format {
            crate::DiffFormat::Human => diff.human_to(out, max),
            crate::DiffFormat::Markdown => {
                let text = diff.markdown(max).map_err(std::io::Error::other)?;
                out.write_all(text.as_bytes())
            }
            crate::DiffFormat::Json => diff.json_to(out),
        }
    };
    match &args.output {
        Some(path) => {
            write_output(path, write)?;
            eprintln!("wrote {}: {}", path.display(), diff.headline());
        }
        None => {
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            write(&mut stdout)?;
            stdout.flush()?;
        }
    }
    Ok(if diff.regressed() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `lawsuite history FILE…`: each trial whose verdict changed over the
/// runs, the files streamed (each trial's verdicts kept, a byte a run).
pub fn history(
    files: &[PathBuf],
    format: crate::DiffFormat,
    max_reports: usize,
) -> anyhow::Result<ExitCode> {
    let sides = files
        .iter()
        .map(|file| Side::file(Source::file(file)))
        .collect();
    let history = History::of(sides).map_err(|e| refused(e, false))?;
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    match format {
        crate::DiffFormat::Human => stdout.write_all(history.human(max_reports)?.as_bytes())?,
        crate::DiffFormat::Markdown => {
            stdout.write_all(history.markdown(max_reports)?.as_bytes())?
        }
        crate::DiffFormat::Json => history.json_to(&mut stdout)?,
    }
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The seeds of `ids` (trial ids), each generator and ground with its
/// seeds listed: what `--rerun-failed` runs of the seeds.
fn seed_sets_of(ids: &HashSet<TrialId>) -> Vec<SeedSet> {
    let mut sets: BTreeMap<(&'static str, &'static str), (Generator, Ground, Vec<u64>)> =
        BTreeMap::new();
    for (generator, ground, seed) in ids.iter().filter_map(|id| id.item().seed()) {
        sets.entry((generator.name(), ground.name()))
            .or_insert_with(|| (generator, ground, Vec::new()))
            .2
            .push(seed);
    }
    sets.into_values()
        .map(|(generator, ground, mut seeds)| {
            seeds.sort_unstable();
            seeds.dedup();
            SeedSet {
                generator,
                ground,
                seeds: Seeds::Listed(seeds),
            }
        })
        .collect()
}

/// A whole `--format jsonl` results file, read a line at a time; an error
/// names the file and says what to do (`merging`: `merge` or `report`,
/// which can let an incomplete file through).
fn read_results(file: &Path, accept: Accept, merging: bool) -> anyhow::Result<Results> {
    let input = lawsuite::regular_file::open(file)
        .with_context(|| format!("reading {}", file.display()))?;
    Results::read_jsonl_from(
        std::io::BufReader::new(input),
        &file.display().to_string(),
        accept,
    )
    .map_err(|e| refused(e, merging))
}

/// A results problem as the error a user reads; `merge` and `report` can
/// let an incomplete file, or files of several sweeps, through on
/// purpose, and say so.
fn refused(err: ResultsError, merging: bool) -> anyhow::Error {
    if err.kind == ResultsErrorKind::Mixed && merging {
        anyhow!(
            "{err}\n  refused, so that no report mixes two sweeps as one; --allow-mixed merges them anyway, with a warning at the head of the report"
        )
    } else if err.kind.acceptable() && merging {
        anyhow!(
            "{err}\n  refused, so that no report counts less or more than was run; --allow-incomplete merges them anyway, with a warning"
        )
    } else if err.kind.acceptable() {
        anyhow!(
            "{err}\n  refused: a comparison with part of a run would call the rest added or removed; use the results of a run that finished"
        )
    } else {
        anyhow!("{err}")
    }
}

/// Write `text` to the report file `path` through the careful writer
/// (`regular_file::replace_whole`): a device, FIFO or directory, or a
/// read-only file, is refused and left as it is.
fn write_output(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    lawsuite::regular_file::replace_whole_with(path, write)
        .map_err(|e| anyhow!("cannot write the report: {e}"))
}

/// Refuse, before anything runs, a file this run would write at its end
/// and could not: said now, not after an hour of trials.
fn check_output(flag: &str, path: &Path) -> anyhow::Result<()> {
    lawsuite::regular_file::check_replaceable(path).map_err(|e| {
        // The file a symlink points to is named too.
        let problem = if e.path() == path {
            e.kind().to_string()
        } else {
            e.to_string()
        };
        // A read-only file's sentence says what to do already.
        let hint = match e.kind() {
            lawsuite::file_error::FileErrorKind::ReadOnly { .. } => "",
            _ => "; name a regular file lawsuite may replace",
        };
        anyhow!("{flag} {}: {problem}{hint}", path.display())
    })
}

/// Write `results` as a whole jsonl file, replacing `file` only once the
/// new one is written (a run killed while writing leaves the old one).
fn write_results(file: &Path, results: &Results) -> anyhow::Result<()> {
    let text = render(
        Format::Jsonl,
        &results.info,
        &results.outcomes,
        &results.summary(),
        &Closing::complete(),
        0,
        true,
    );
    lawsuite::regular_file::replace_whole(file, &text)
        .map_err(|e| anyhow!("cannot write the baseline: {e}"))
}

/// What `--baseline` adds to a run's report: what fails that did not, and
/// what the baseline lists as failing that now passes.
fn baseline_verdict(diff: &RunDiff, rewritten: bool) -> anyhow::Result<String> {
    let mut out = format!(
        "baseline {}: {} newly failing, {} still failing, {} of its failures now pass\n",
        diff.base,
        diff.count(Change::NewlyFailing),
        diff.count(Change::StillFailing),
        diff.count(Change::NewlyPassing),
    );
    for flip in diff.of_change(Change::NewlyFailing, 20)? {
        out.push_str(&format!(
            "  NEWLY FAILING {}\n",
            format::escaped(&flip.id, "    ")
        ));
    }
    if diff.count(Change::NewlyFailing) > 20 {
        out.push_str(&format!(
            "  … and {} more (`lawsuite diff` lists them all)\n",
            diff.count(Change::NewlyFailing) - 20
        ));
    }
    if diff.count(Change::NewlyPassing) > 0 && !rewritten {
        out.push_str(&format!(
            "  update the baseline: rerun with --write-baseline {}\n",
            lawsuite::conformance::shell_word(&diff.base)
        ));
    }
    out.push_str(if diff.regressed() {
        "baseline gate: FAILED (something fails that did not fail in the baseline)\n"
    } else {
        "baseline gate: ok (nothing fails that did not fail in the baseline)\n"
    });
    Ok(out)
}

/// The run's configuration: the project's, with the environment overlaid,
/// then the flags.
fn config_of(
    args: &RunArgs,
    project: &lawsuite::project::Project,
    environment: Environment,
) -> ConfigBuilder {
    let only_one_call = args.call.is_some();
    let mut config = Config::builder()
        .project(project)
        .environment(environment)
        .laws(!args.no_laws && !only_one_call)
        .only_call(args.call)
        .replay(Replay::Cli {
            program: program(),
            flags: args.project.flags(),
        });
    if args.no_shipped_laws {
        config = config.shipped_laws(false);
    }
    if !args.laws_renamed.is_empty() {
        crate::help::warn_renamed("--laws", "--law-dir");
    }
    for dir in args.law_dir.iter().chain(&args.laws_renamed) {
        config = config.law_dir(dir);
    }
    if args.no_regressions || only_one_call {
        config = config.regressions(None);
    }
    for dir in &args.expected {
        config = config.expected_dir(dir);
    }
    if let Some(generator) = args.generator {
        config = config.only_generator(generator.into());
    }
    if let Some(seeds) = &args.seeds {
        config = config.seeds(seeds.range.clone());
    }
    if let Some(ground) = args.ground {
        config = config.ground(ground.into());
    }
    if args.no_seeds {
        config = config.no_seeds();
    }
    if args.exhaustive {
        config = config.exhaustive_at_family_sizes();
    }
    if args.no_exhaustive {
        config = config.exhaustive_size(0);
    }
    if let Some(size) = args.exhaustive_size {
        // At most `MAX_SIZE`: clap refused anything past it.
        config = config.exhaustive_size(usize::try_from(size).unwrap_or(usize::MAX));
    }
    if let Some(times) = args.repeat {
        config = config.repeat(times);
    }
    if let Some(n) = args.max_reports {
        config = config.max_reports(n);
    }
    config
}

/// What a run selects, counted without holding its trials.
#[derive(Debug, Default)]
struct Selection {
    /// The run's trials that are not notices (a peer that cannot run).
    runnable: u128,
    /// Of those, the ones the filters admit, before a shard takes its share.
    admitted: u128,
    /// The trials chosen (filters and shard), notices included, by kind
    /// ([`kind_slot`]).
    chosen: [u128; 5],
    /// Of those, the ones that are not notices.
    chosen_runnable: u128,
}

impl Selection {
    /// Every trial of `engine`, counted item by item: a run of every trial
    /// of `--seeds 0..100000000` starts at once instead of after walking
    /// its 200 million trials.
    fn counted(engine: &Engine) -> Selection {
        let mut chosen = [0u128; 5];
        for (kind, n) in engine.trial_counts() {
            chosen[kind_slot(kind)] += n;
        }
        let notices = engine
            .items()
            .iter()
            .filter(|i| matches!(i, Item::Unavailable { .. }))
            .count() as u128;
        let runnable = chosen.iter().sum::<u128>().saturating_sub(notices);
        Selection {
            runnable,
            admitted: runnable,
            chosen,
            chosen_runnable: runnable,
        }
    }

    /// The trials of `engine` walked one at a time, none of them kept.
    fn walked(
        engine: &Engine,
        is_notice: &dyn Fn(&Trial) -> bool,
        admits: &dyn Fn(&Trial) -> bool,
        in_shard: &dyn Fn(&Trial) -> bool,
    ) -> Selection {
        let mut out = Selection::default();
        for trial in engine.trials_iter(|_| true) {
            let notice = is_notice(&trial);
            out.runnable += u128::from(!notice);
            if !admits(&trial) {
                continue;
            }
            out.admitted += u128::from(!notice);
            if in_shard(&trial) {
                out.chosen[kind_slot(trial.kind)] += 1;
                out.chosen_runnable += u128::from(!notice);
            }
        }
        out
    }

    /// How many trials are chosen.
    fn total(&self) -> u128 {
        self.chosen.iter().sum()
    }
}

/// `n` as a `usize`, or the most one holds (a count only shown).
fn saturate(n: u128) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// Run the trials, stream what the format streams, and write the rest at
/// the end.
fn execute(
    engine: &Engine,
    trials: impl Iterator<Item = Trial> + Send,
    selection: &Selection,
    args: &RunArgs,
    max_reports: usize,
    info: &RunInfo,
    started: Instant,
) -> anyhow::Result<Vec<Outcome>> {
    let color = args.format == Format::Human && std::io::stdout().is_terminal();
    let kinds = [
        Kind::Law,
        Kind::Regression,
        Kind::Seed,
        Kind::Exhaustive,
        Kind::Check,
    ];
    let totals: Vec<(Kind, usize)> = kinds
        .into_iter()
        .map(|kind| (kind, saturate(selection.chosen[kind_slot(kind)])))
        .collect();
    let options = LiveOptions::new(args.format)
        .color(color)
        .terminal(std::io::stderr().is_terminal())
        .max_reports(max_reports)
        .totals(&totals);
    // stderr unlocked: SLOW lines come from another thread while it runs.
    let mut live = Live::new(options, std::io::stdout().lock(), std::io::stderr());
    live.start(info)?;
    let total = saturate(selection.total());
    let mut write_error: Option<std::io::Error> = None;
    let run_options = RunOptions {
        jobs: args.jobs,
        fail_fast: args.fail_fast,
    };
    let cancel = interrupt::during_trials();
    let outcomes = engine.run_stream_until(trials, run_options, cancel, |event| {
        if let Err(e) = live.event(event) {
            write_error.get_or_insert(e);
        }
    });
    interrupt::trials_done();
    if let Some(e) = write_error {
        return Err(e.into());
    }
    if cancel.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!(
            "interrupted: {} of {} trials ran; their trees are removed and the peers stopped",
            outcomes.len(),
            total
        );
    }
    let summary = Summary::of(&outcomes, started.elapsed(), engine.stopped());
    // Said in the summary line, so `merge` can refuse a run that stopped.
    let closing = if cancel.load(std::sync::atomic::Ordering::Relaxed) {
        Closing::incomplete("interrupted")
    } else if (outcomes.len() as u128) < selection.total() {
        Closing::incomplete(if args.fail_fast {
            "--fail-fast stopped it at the first failure"
        } else {
            "stopped before every trial ran"
        })
    } else {
        Closing::complete()
    };
    live.finish(info, &outcomes, &summary, &closing)?;
    drop(live);
    if let Some(path) = &args.html {
        let html = render(Format::Html, info, &outcomes, &summary, &closing, 0, false);
        write_output(path, |out| out.write_all(html.as_bytes()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(outcomes)
}

/// `lawsuite merge` and `lawsuite report`: inputs that are not whole, or
/// not of one sweep, are refused, or with `--allow-incomplete` /
/// `--allow-mixed` merged under a loud warning. The inputs are streamed:
/// checked once, then read again for the report, one outcome at a time.
pub fn merge(args: &crate::MergeArgs) -> anyhow::Result<ExitCode> {
    let accept = Accept::WHOLE
        .incomplete(args.allow_incomplete)
        .mixed(args.allow_mixed);
    let sources = args.files.iter().map(Source::file).collect();
    let merged = Merge::check(sources, accept).map_err(|e| refused(e, true))?;
    for note in merged.notes() {
        eprintln!("note: {note}");
    }
    if !merged.warnings().is_empty() {
        let mixed = merged
            .warnings()
            .iter()
            .any(|w| w.kind == ResultsErrorKind::Mixed);
        let incomplete = merged
            .warnings()
            .iter()
            .any(|w| w.kind != ResultsErrorKind::Mixed);
        if incomplete {
            eprintln!(
                "WARNING: --allow-incomplete: these results are NOT whole ({} problem(s)); the report counts only what is there:",
                merged.problems()
            );
        }
        if mixed {
            eprintln!(
                "WARNING: --allow-mixed: these results are of MORE THAN ONE SWEEP; the report says so at its head:"
            );
        }
        for w in merged.warnings() {
            eprintln!("WARNING:   {w}");
        }
        let more = merged.problems() - merged.warnings().len();
        if more > 0 {
            eprintln!("WARNING:   … and {more} more problems");
        }
        if incomplete {
            eprintln!(
                "WARNING: a cut line is dropped, a duplicate counts once, and of two verdicts of one trial the one that fails the run counts"
            );
        }
    }
    let summary = merged.summary().map_err(|e| anyhow!("{e}"))?;
    let write = |out: &mut dyn Write| -> std::io::Result<()> {
        match args.format {
            Format::Jsonl => merged.write_jsonl(&summary, out),
            format => format::render_to(
                out,
                format,
                merged.info(),
                &merged.walk(format == Format::Json),
                &summary,
                &merged.closing(),
                args.max_reports,
                true,
            ),
        }
    };
    match &args.output {
        Some(path) => {
            write_output(path, write)?;
            let files = merged.sources().len();
            eprintln!(
                "wrote {} ({} trials from {files} {})",
                path.display(),
                merged.outcomes(),
                if files == 1 { "file" } else { "files" }
            );
        }
        None => {
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            write(&mut stdout)?;
            stdout.flush()?;
        }
    }
    Ok(if summary.total().failures() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn kind_slot(kind: Kind) -> usize {
    match kind {
        Kind::Law => 0,
        Kind::Regression => 1,
        Kind::Seed => 2,
        Kind::Exhaustive => 3,
        Kind::Check => 4,
    }
}

/// `lawsuite plan`.
pub fn plan(
    seed: u64,
    generator: Generator,
    ground: Ground,
    dir: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let plan = generate(generator, seed, PLAN_ROOT, ground).map_err(|e| anyhow!(e))?;
    let mut stdout = std::io::stdout().lock();
    match dir {
        None => writeln!(stdout, "{}", serde_json::to_string_pretty(&plan)?)?,
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
            writeln!(
                stdout,
                "wrote {} files under {}; calls use the root {PLAN_ROOT}, so replace it with {}",
                plan.files.len(),
                dir.display(),
                dir.display()
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What `lawsuite record` keeps of a shrunk divergence, and where (`None`:
/// the project's directory for it).
pub enum Keep {
    /// A regression file, replayed by every run.
    Regression(Option<PathBuf>),
    /// A draft law (`--as-law`).
    Law(Option<PathBuf>),
}

/// `lawsuite shrink` and `lawsuite record`: shrink one divergent call;
/// `record` also keeps it (`keep`): as a regression file (default: the
/// project's regression directory, which `lawsuite run` and `cargo test`
/// replay) or as a draft law.
pub fn shrink_case(
    args: &CaseArgs,
    keep: Option<Keep>,
    settings: &Config,
) -> anyhow::Result<ExitCode> {
    let project = args.project.project()?;
    let wanted = std::slice::from_ref(&args.peer);
    let PeerSet {
        reference,
        subjects,
        ..
    } = ProjectPeers::read(&project, Some(wanted), settings.peer_options())?.set(wanted)?;
    let peer = match subjects.into_iter().next() {
        Some(s) => s,
        None if args.peer == reference.name() => bail!(
            "{} is the reference: shrinking needs a peer that disagrees with it",
            args.peer
        ),
        None => bail!("peer {:?} cannot run here", args.peer),
    };
    let (generator, ground): (Generator, Ground) = (args.generator.into(), args.ground.into());
    let plan = generate(generator, args.seed, PLAN_ROOT, ground).map_err(|e| anyhow!(e))?;
    let call = plan.calls().into_iter().nth(args.call).ok_or_else(|| {
        anyhow!(
            "seed {} has no call {} (it has {}: grep calls, then glob, read, ls and flow calls)",
            args.seed,
            args.call,
            plan.call_count()
        )
    })?;
    let case = Case {
        root: plan.root.clone(),
        files: plan.files.clone(),
        call,
    };
    let mut stdout = std::io::stdout().lock();
    // A tree that cannot be written is a setup failure, not an agreement:
    // `diverges` counts it as "no" so the shrinker never keeps one.
    if let Err(e) = Materialized::new(&case.root, &case.files) {
        bail!(
            "cannot set up {} seed {}: its tree cannot be written ({e}); check that the directory trees are written under ({}; TMPDIR sets another) exists and can be written",
            generator.name(),
            args.seed,
            lawsuite::environment::trees_dir().display()
        );
    }
    let Some(kind) = divergence_kind(&case, reference.peer().as_ref(), peer.peer().as_ref()) else {
        eprintln!(
            "{} agrees with {} on {} seed {} call {}: nothing to shrink",
            peer.name(),
            reference.name(),
            generator.name(),
            args.seed,
            args.call
        );
        return Ok(ExitCode::from(1));
    };
    let (record_dir, law_dir) = match &keep {
        None => (None, None),
        Some(Keep::Regression(dir)) => (
            Some(dir.as_deref().map_or_else(
                || project.regressions.clone(),
                crate::project_args::absolute,
            )),
            None,
        ),
        Some(Keep::Law(dir)) => (None, Some(law_dir_of(&project, dir.as_deref()))),
    };
    // One file per bug: a divergence of this kind already pinned there is
    // not recorded twice.
    if let Some(dir) = &record_dir
        && let Some(by) = pinned_by(dir, peer.peer().as_ref(), case.call.method())
    {
        writeln!(
            stdout,
            "not recorded: {} is a {} regression that {} fails today; fix that one first (the next `lawsuite record` then records this divergence: {kind})",
            by.display(),
            case.call.method(),
            peer.name(),
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        stdout,
        "original: {} files, call {}\ndivergence: {kind}",
        case.files.len(),
        serde_json::to_string(&case.call)?
    )?;
    let divergent = lawsuite::kit::regression::Divergent {
        plan: &plan,
        call_index: args.call,
        call: &case.call,
        reference: reference.peer().as_ref(),
        peer: peer.peer().as_ref(),
    };
    let budget = lawsuite::kit::shrink::Budget { steps: args.steps };
    let shrinking = divergent.shrink(
        budget,
        &lawsuite::kit::shrink::Decisions::default(),
        &|| false,
    )?;
    let lawsuite::kit::regression::Shrinking::Done {
        mut regression,
        stats,
        ..
    } = shrinking
    else {
        bail!("the shrink was stopped before it ended");
    };
    if let Some(why) = &args.why {
        regression.why.clone_from(why);
    }
    writeln!(
        stdout,
        "shrunk in {} steps to {} files, call {}",
        stats.steps,
        regression.files.len(),
        serde_json::to_string(&regression.call)?
    )?;
    if stats.ended == lawsuite::kit::shrink::Ended::StepBound {
        writeln!(
            stdout,
            "the step bound ({}) stopped the shrink before it was minimal; this goes on from the same steps: {} shrink --generator {} --ground {} --seed {} --call {} --peer {} --steps {}",
            args.steps,
            crate::project_args::program(),
            generator.name(),
            ground.name(),
            args.seed,
            args.call,
            lawsuite::conformance::shell_word(&args.peer),
            args.steps.saturating_mul(4),
        )?;
    }
    for file in &regression.files {
        writeln!(stdout, "  {}: {}", file.path, file.describe())?;
    }
    let tree = Materialized::new(&regression.root, &regression.files)?;
    let actual = tree.answer(peer.peer().as_ref(), &regression.call);
    write!(
        stdout,
        "{}",
        lawsuite::kit::report::json_diff(
            &regression.expected,
            &actual.shown(),
            std::io::stdout().is_terminal()
        )
    )?;
    if let Some(dir) = law_dir {
        let draft = lawsuite::law::draft::from_regression(&regression, env!("CARGO_PKG_VERSION"))?;
        let path = lawsuite::law::draft::append(&dir, &draft)?;
        say_drafted(&mut stdout, &path, &draft, &project)?;
    }
    if let Some(dir) = record_dir {
        let path = regression.write(&dir, &regression.default_name())?;
        writeln!(stdout, "recorded {}", path.display())?;
        writeln!(
            stdout,
            "replayed from now on by `lawsuite run` (project {}) and by Suite-based `cargo test`",
            project.describe()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Where `--as-law` writes: `dir` when given, else the project's first
/// law directory, else its default one (`lawsuite/laws`).
fn law_dir_of(project: &lawsuite::project::Project, dir: Option<&Path>) -> PathBuf {
    match dir {
        Some(dir) => crate::project_args::absolute(dir),
        None => project
            .laws
            .first()
            .cloned()
            .unwrap_or_else(|| project.root.join(lawsuite::project::DEFAULT_LAWS)),
    }
}

/// What `record --as-law` and `as-law` print: the file, the law's id, and
/// how to check it.
fn say_drafted(
    out: &mut impl Write,
    path: &Path,
    draft: &lawsuite::law::draft::Draft,
    project: &lawsuite::project::Project,
) -> anyhow::Result<()> {
    let id = ItemId::Law(format!("{}::found::{}", draft.area, draft.name));
    writeln!(out, "drafted the law {id} in {}", path.display())?;
    // A project file that lists no law directory has the default one run
    // from the moment it exists, which the draft just made it.
    let default = project.root.join(lawsuite::project::DEFAULT_LAWS);
    let picked_up = path
        .ancestors()
        .any(|a| project.laws.iter().any(|l| l == a) || (project.laws.is_empty() && a == default));
    if picked_up {
        writeln!(
            out,
            "confirm its spec, write its decision, rename it; `lawsuite run {id}` runs it on every peer"
        )?;
    } else {
        writeln!(
            out,
            "confirm its spec, write its decision, rename it; it is not in the project's law directories: run it with `lawsuite run --law-dir {} {id}`",
            lawsuite::conformance::shell_word(
                &path
                    .parent()
                    .and_then(Path::parent)
                    .unwrap_or(path)
                    .display()
                    .to_string()
            )
        )?;
    }
    Ok(())
}

/// `lawsuite as-law FILE`: a kept regression as a draft law.
pub fn as_law(file: &Path, project: &ProjectArgs, dir: Option<&Path>) -> anyhow::Result<ExitCode> {
    let project = project.project()?;
    let regression = lawsuite::kit::regression::Regression::load(file)?;
    let draft = lawsuite::law::draft::from_regression(&regression, env!("CARGO_PKG_VERSION"))?;
    let path = lawsuite::law::draft::append(&law_dir_of(&project, dir), &draft)?;
    say_drafted(&mut std::io::stdout().lock(), &path, &draft, &project)?;
    Ok(ExitCode::SUCCESS)
}
