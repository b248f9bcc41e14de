//! The `lawsuite` command line. Run `lawsuite --help`.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use lawsuite::contract::{
    GlobInput, GlobRequest, GrepInput, GrepRequest, StdError, validate_glob, validate_pattern,
};
use lawsuite::flow;
use lawsuite::peer::Search;

/// Conformance harness and reference peers for the Smithers Ripgrep Subset v1
/// search contract (grep and glob).
#[derive(Debug, Parser)]
#[command(name = "lawsuite", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check a pattern or a glob against the contract's grammar and print the
    /// typed verdict (exit status 1 when it is rejected).
    ///
    /// Examples:
    ///   lawsuite check pattern 'foo(bar'
    ///   lawsuite check pattern --fixed-strings 'foo(bar'
    ///   lawsuite check glob '**/*.{ts,tsx}'
    #[command(verbatim_doc_comment)]
    Check {
        /// What to check.
        #[arg(value_enum)]
        kind: CheckKind,
        /// The pattern or glob text.
        text: String,
        /// Check the pattern as a fixed string (`fixedStrings: true`).
        #[arg(long, short = 'F')]
        fixed_strings: bool,
        /// Print the verdict as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run the regressions and a seed sweep across peers and report every
    /// divergence (exit status 1 when there is one).
    ///
    /// Examples:
    ///   lawsuite run
    ///   lawsuite run --generator smthrs --seeds 0..1000 --jobs 2
    ///   lawsuite run --generator smthrs --seeds 4 --call 3 --peer portable --peer ripgrep
    #[command(verbatim_doc_comment)]
    Run(RunArgs),
    /// Print the plan of one seed as JSON, or write its tree under a new
    /// directory.
    ///
    /// Example:
    ///   lawsuite plan --seed 1 --materialize /tmp/seed1
    #[command(verbatim_doc_comment)]
    Plan {
        /// The seed.
        #[arg(long)]
        seed: u64,
        /// The generator.
        #[arg(long, default_value = "smthrs")]
        generator: String,
        /// The ground of the lawsuite generator: shared or full.
        #[arg(long, default_value = "shared")]
        ground: String,
        /// Write the tree under this directory, which must not exist yet or be empty.
        #[arg(long)]
        materialize: Option<std::path::PathBuf>,
    },
    /// Shrink one divergent call to a minimal tree and call, and print the
    /// original report then the shrunk case.
    Shrink(CaseArgs),
    /// Shrink one divergent call and keep it as a regression file under
    /// fixtures/regressions/, replayed by `cargo test` from then on.
    Record {
        #[command(flatten)]
        case: CaseArgs,
        /// Where to write the regression file.
        #[arg(long, default_value = "fixtures/regressions")]
        dir: std::path::PathBuf,
    },
    /// Serve a built-in peer over the peer protocol (peers/PROTOCOL.md) on
    /// stdin/stdout until `shutdown` or the end of stdin.
    ///
    /// Example:
    ///   lawsuite serve --peer portable
    #[command(verbatim_doc_comment)]
    Serve(ServeArgs),
    /// List the registered peers and smoke-check each (handshake, then one
    /// trivial call), printing name, version and status (exit status 1
    /// when one fails).
    ///
    /// Example:
    ///   lawsuite peers
    #[command(verbatim_doc_comment)]
    Peers(PeersArgs),
    /// Make one call to a peer and print its answer as JSON (exit status 1
    /// when the answer is a failure).
    ///
    /// Methods: `grep` and `glob` take the normalised peer input;
    /// `flow/grep` and `flow/glob` take a caller's request and run the flow
    /// layer (validation, defaults, literal retry) first, in this process,
    /// over the peer. The peer is a registered one (external peers
    /// included) or a built-in.
    ///
    /// Examples:
    ///   lawsuite call flow/grep '{"pattern":"needle","root":"src"}'
    ///   lawsuite call --peer portable flow/glob '{"pattern":"**/*.rs"}'
    ///   lawsuite call flow/read '{"path":"README.md","offset":2,"limit":5}'
    ///   lawsuite call flow/ls '{"path":"src"}'
    ///   lawsuite call --peer python-glob glob '{"pattern":"*.ts","root":".","hidden":false,"noIgnore":false,"limit":10}'
    #[command(verbatim_doc_comment)]
    Call {
        /// The peer to call: a name from the registry, or a built-in.
        #[arg(long, default_value = "portable")]
        peer: String,
        /// The peer registry.
        #[arg(long)]
        registry: Option<std::path::PathBuf>,
        /// `grep`, `glob`, `flow/grep`, `flow/glob`, `flow/read`, `flow/ls` or `flow/bash`.
        method: String,
        /// The JSON parameters.
        params: String,
    },
    /// Time registered peers head to head on a generated tree or a
    /// directory: every answer is checked against the first peer's before
    /// its timing counts, then warm-up and interleaved rounds, and a ratio
    /// table (exit status 1 when a peer disagrees). See benches/README.md.
    ///
    /// Examples:
    ///   lawsuite bench --peer portable --peer ripgrep
    ///   lawsuite bench --peer portable --peer ripgrep --corpus generated:M --rounds 9 --format markdown
    ///   lawsuite bench --peer portable --peer python-glob --corpus ~/src --calls calls.jsonl
    #[command(verbatim_doc_comment)]
    Bench(cli_bench::BenchArgs),
}

#[derive(Debug, clap::Args)]
struct ServeArgs {
    /// The built-in peer to serve: portable, ripgrep, ripgrep-walk or noop.
    #[arg(long)]
    peer: String,
}

#[derive(Debug, clap::Args)]
struct PeersArgs {
    /// The peer registry.
    #[arg(long)]
    registry: Option<std::path::PathBuf>,
    /// Print one JSON document instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct RunArgs {
    /// A peer to run (repeatable); default: every peer in the registry.
    #[arg(long = "peer")]
    peers: Vec<String>,
    /// Seeds, `A..B` or `N`; default: the TypeScript kit's 12 seeds.
    #[arg(long)]
    seeds: Option<String>,
    /// The generator: smthrs or lawsuite.
    #[arg(long, default_value = "smthrs")]
    generator: String,
    /// The ground of the lawsuite generator: shared or full.
    #[arg(long, default_value = "shared")]
    ground: String,
    /// Only this call of each plan (its index: grep calls, then glob, read and ls calls).
    #[arg(long)]
    call: Option<usize>,
    /// Threads running seeds in parallel.
    #[arg(long, default_value_t = default_jobs())]
    jobs: usize,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// The peer registry.
    #[arg(long)]
    registry: Option<std::path::PathBuf>,
    /// Skip the regression files.
    #[arg(long)]
    no_regressions: bool,
    /// Skip the laws.
    #[arg(long)]
    no_laws: bool,
    /// Rewrite the expected law failures from this run: drop entries that
    /// now pass, list new failures in peers/expected/recorded.toml.
    #[arg(long)]
    update_expectations: bool,
}

#[derive(Debug, Clone, clap::Args)]
struct CaseArgs {
    /// The generator of the plan.
    #[arg(long, default_value = "smthrs")]
    generator: String,
    /// The ground of the lawsuite generator: shared or full.
    #[arg(long, default_value = "shared")]
    ground: String,
    /// The seed of the plan.
    #[arg(long)]
    seed: u64,
    /// The call's index in the plan.
    #[arg(long)]
    call: usize,
    /// The peer that disagrees with the reference.
    #[arg(long)]
    peer: String,
    /// The peer registry.
    #[arg(long)]
    registry: Option<std::path::PathBuf>,
    /// Why the case is kept (written into the regression file).
    #[arg(long)]
    why: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Reports with diffs, for people.
    Human,
    /// One JSON document.
    Json,
    /// JUnit XML: one test suite per peer, one test case per law,
    /// regression and divergent seed call (for CI test reports).
    Junit,
    /// A Markdown summary per peer (for a CI job summary).
    Markdown,
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum CheckKind {
    /// A grep pattern (search-contract §10).
    Pattern,
    /// A glob (search-contract §8.1).
    Glob,
}

mod ci_report;
mod cli_bench;
mod cli_peers;
mod cli_run;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Check {
            kind,
            text,
            fixed_strings,
            json,
        } => {
            let verdict = match kind {
                CheckKind::Pattern => validate_pattern(&text, fixed_strings),
                CheckKind::Glob => validate_glob(&text),
            };
            print_verdict(kind, &text, verdict, json)
        }
        Command::Run(args) => cli_run::run(args),
        Command::Bench(args) => cli_bench::bench(args),
        Command::Plan {
            seed,
            generator,
            ground,
            materialize,
        } => cli_run::plan(seed, &generator, &ground, materialize.as_deref()),
        Command::Shrink(case) => cli_run::shrink_case(&case, None),
        Command::Record { case, dir } => cli_run::shrink_case(&case, Some(&dir)),
        Command::Serve(args) => {
            let peer = builtin_peer(&args.peer)?;
            let stdin = std::io::stdin().lock();
            let stdout = std::io::stdout().lock();
            lawsuite::protocol::serve(peer.as_ref(), stdin, stdout)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Peers(args) => cli_peers::peers(args.registry.as_deref(), args.json),
        Command::Call {
            peer,
            registry,
            method,
            params,
        } => {
            let peer = cli_peers::resolve(&peer, registry.as_deref())?;
            let answer = call(peer.as_ref(), &method, &params)?;
            let mut stdout = std::io::stdout().lock();
            match answer {
                Ok(value) => {
                    writeln!(stdout, "{}", serde_json::to_string_pretty(&value)?)?;
                    Ok(ExitCode::SUCCESS)
                }
                Err(err) => {
                    writeln!(stdout, "{}", serde_json::to_string_pretty(&err)?)?;
                    Ok(ExitCode::from(1))
                }
            }
        }
    }
}

fn print_verdict(
    kind: CheckKind,
    text: &str,
    verdict: Result<(), StdError>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let what = match kind {
        CheckKind::Pattern => "pattern",
        CheckKind::Glob => "glob",
    };
    let accepted = verdict.is_ok();
    let mut stdout = std::io::stdout().lock();
    match verdict {
        Ok(()) if json => writeln!(stdout, "{}", serde_json::json!({ "ok": true }))?,
        Ok(()) => writeln!(stdout, "ok: the {what} {text:?} is accepted")?,
        Err(err) if json => writeln!(stdout, "{}", serde_json::to_string(&err)?)?,
        Err(err) => writeln!(stdout, "{}: {}", err.code, err.message)?,
    }
    Ok(if accepted {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The peers compiled into this binary.
fn builtin_peer(name: &str) -> anyhow::Result<std::sync::Arc<dyn Search>> {
    lawsuite::registry::builtin(name).map_err(|why| anyhow::anyhow!(why))
}

/// One call; the outer error is a usage problem (bad JSON, unknown method),
/// the inner one the peer's typed answer.
fn call(
    peer: &dyn Search,
    method: &str,
    params: &str,
) -> anyhow::Result<Result<serde_json::Value, StdError>> {
    fn parse<T: serde::de::DeserializeOwned>(method: &str, params: &str) -> anyhow::Result<T> {
        serde_json::from_str(params)
            .map_err(|e| anyhow::anyhow!("the parameters of {method} are not valid: {e}"))
    }
    fn value<T: serde::Serialize>(
        r: Result<T, StdError>,
    ) -> anyhow::Result<Result<serde_json::Value, StdError>> {
        Ok(match r {
            Ok(v) => Ok(serde_json::to_value(v)?),
            Err(e) => Err(e),
        })
    }
    match method {
        "grep" => value(peer.grep(&parse::<GrepInput>(method, params)?)),
        "glob" => value(peer.glob(&parse::<GlobInput>(method, params)?)),
        "flow/grep" => value(flow::grep(peer, &parse::<GrepRequest>(method, params)?)),
        "flow/glob" => value(flow::glob(peer, &parse::<GlobRequest>(method, params)?)),
        "flow/read" => value(peer.read(&parse::<lawsuite::flows::ReadRequest>(method, params)?)),
        "flow/ls" => value(peer.ls(&parse::<lawsuite::flows::LsRequest>(method, params)?)),
        #[cfg(unix)]
        "flow/bash" => value(peer.bash(&parse::<lawsuite::flows::BashRequest>(method, params)?)),
        other => anyhow::bail!(
            "unknown method {other:?}; use grep, glob, flow/grep, flow/glob, flow/read, flow/ls or flow/bash"
        ),
    }
}
