//! `lawsuite bench`: time registered peers head to head on one corpus
//! (the logic is `lawsuite::bench`; this is argument handling and output).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, anyhow, bail};
use clap::ValueEnum;
use lawsuite::bench::calls::{BenchCall, builtin, parse_calls};
use lawsuite::bench::corpus::Corpus;
use lawsuite::bench::report::Machine;
use lawsuite::bench::run::{Options, run};
use lawsuite::bench::stats::SPREAD_WARNING;
use lawsuite::conformance::config::Config;

/// The arguments of `lawsuite bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// A peer to time (repeatable): a name from the registry (external peers
    /// included) or a built-in. The first available one is the baseline.
    #[arg(
        long = "peer",
        value_name = "PEER",
        required = true,
        help_heading = "Peers and calls"
    )]
    peers: Vec<String>,
    /// What to search: generated:S (1,000 files), generated:M (20,000),
    /// generated:L (200,000), generated:huge (one 1 GiB file),
    /// cargo:registry (the crate sources under ~/.cargo/registry/src), or a
    /// directory's path; a real tree is searched in place, never written to.
    #[arg(long, default_value = "generated:S", help_heading = "Peers and calls")]
    corpus: String,
    /// A JSON or JSONL file of calls in the kit's format,
    /// `{"method":"grep","input":{...},"name":"optional"}`, roots relative to
    /// the corpus; default: the built-in query kinds.
    #[arg(long, value_name = "FILE", help_heading = "Peers and calls")]
    call_file: Option<PathBuf>,
    /// Renamed `--call-file` (warns; goes in the next release).
    #[arg(
        long = "calls",
        value_name = "FILE",
        hide = true,
        conflicts_with = "call_file"
    )]
    calls_renamed: Option<PathBuf>,
    /// Only the built-in query kinds with these names (repeatable).
    #[arg(long = "query", help_heading = "Peers and calls")]
    queries: Vec<String>,
    /// Timed rounds per call and peer.
    #[arg(long, default_value_t = 5, help_heading = "Timing")]
    rounds: usize,
    /// Untimed runs per call and peer before the rounds.
    #[arg(long, default_value_t = 1, help_heading = "Timing")]
    warmup: usize,
    /// Time a peer that disagrees with the baseline anyway (a peer still
    /// being written): its cells read `DISAGREES (timed)` with its median,
    /// never a rank or a ratio, and the exit status is still 1.
    #[arg(long, help_heading = "Timing")]
    time_disagreeing: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = BenchFormat::Human, help_heading = "Output")]
    format: BenchFormat,
    #[command(flatten)]
    project: crate::project_args::ProjectArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BenchFormat {
    /// An aligned table for a terminal (`table` still works).
    #[value(alias = "table")]
    Human,
    /// One JSON document.
    Json,
    /// A Markdown table and notes.
    Markdown,
    /// One self-contained HTML page: per query, bars of the medians with
    /// p10–p90 whiskers and ratios; disagreeing or faulted peers marked.
    Html,
}

/// `lawsuite bench`: exit status 1 when a peer disagreed with the baseline
/// or faulted (answered otherwise during the warm-up or the timed rounds).
pub fn bench(args: BenchArgs, settings: &Config) -> anyhow::Result<ExitCode> {
    let (contenders, unavailable) = crate::project_args::ProjectPeers::read(
        &args.project.project()?,
        Some(&args.peers),
        settings.peer_options(),
    )?
    .named(&args.peers)?;
    for u in &unavailable {
        eprintln!("warning: {} is left out: {}", u.name, u.why);
    }
    if contenders.is_empty() {
        bail!("none of the peers asked for can run here; see the warnings above");
    }
    let corpus: Corpus = args.corpus.parse()?;
    // Check everything cheap before generating a corpus (L takes minutes).
    let call_file =
        crate::help::renamed_value(args.calls_renamed.clone(), "--calls", "--call-file")
            .or_else(|| args.call_file.clone());
    let calls_text = match &call_file {
        Some(_) if !args.queries.is_empty() => {
            bail!("--query picks built-in query kinds; it cannot be combined with --call-file")
        }
        Some(file) => Some(
            lawsuite::regular_file::read_to_string(file)
                .with_context(|| format!("could not read the calls file {}", file.display()))?,
        ),
        None => {
            builtin_calls("", &args.queries)?;
            None
        }
    };
    eprintln!("preparing corpus {corpus}");
    let prepared = corpus.prepare()?;
    let root = prepared.root.to_str().ok_or_else(|| {
        anyhow!(
            "the corpus path {} is not UTF-8, which the contract's roots must be",
            prepared.root.display()
        )
    })?;
    let calls = match (&calls_text, &call_file) {
        (Some(text), Some(file)) => {
            parse_calls(text, &prepared.root).with_context(|| format!("in {}", file.display()))?
        }
        _ => builtin_calls(root, &args.queries)?,
    };
    let mut machine = Machine::here();
    let report_peers = contenders.iter().map(|c| c.name()).collect::<Vec<_>>();
    eprintln!(
        "timing {} call(s) on {}: {} round(s) after {} warm-up",
        calls.len(),
        report_peers.join(", "),
        args.rounds.max(1),
        args.warmup
    );
    let options = Options {
        rounds: args.rounds,
        warmup: args.warmup,
        time_disagreeing: args.time_disagreeing,
        // A generated corpus is gone after the run: cite calls and answers
        // relative to it.
        corpus: Some(root.to_string()),
    };
    let mut report = run(&calls, &contenders, &options, &mut |line| {
        eprintln!("{line}")
    });
    machine.finish();
    report.corpus = match corpus {
        Corpus::Path(_) => prepared.root.display().to_string(),
        generated => generated.to_string(),
    };
    report.corpus_stats = prepared.stats.clone();
    report.machine = Some(machine);
    report.unavailable = unavailable;
    report.spread_warning = SPREAD_WARNING;
    let text = match args.format {
        BenchFormat::Human => report.table(),
        BenchFormat::Json => report.json() + "\n",
        BenchFormat::Markdown => report.markdown(),
        BenchFormat::Html => report.html(),
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(if report.has_disagreement() || report.has_fault() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The built-in kinds, or those named by `--query`.
fn builtin_calls(root: &str, only: &[String]) -> anyhow::Result<Vec<BenchCall>> {
    let kinds = builtin(root);
    if let Some(unknown) = only
        .iter()
        .find(|n| !kinds.iter().any(|k| k.name == n.as_str()))
    {
        let names: Vec<&str> = kinds.iter().map(|k| k.name).collect();
        bail!(
            "{unknown:?} is not a built-in query kind; the kinds are {}",
            names.join(", ")
        );
    }
    Ok(kinds
        .iter()
        .filter(|k| only.is_empty() || only.iter().any(|n| n == k.name))
        .map(|k| k.bench_call())
        .collect())
}
