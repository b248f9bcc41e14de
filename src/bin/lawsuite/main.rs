//! The `lawsuite` command line. Run `lawsuite --help`.
//!
//! The binary only adapts: its flags are parsed into typed values here
//! (clap value enums and parsers, so a bad `--generator` or `--seeds` is a
//! usage error before anything runs), mapped onto the library's
//! [`Config`](lawsuite::conformance::config::Config) and peer set, and the
//! engine's outcomes written by [`lawsuite::report`].

use std::io::Write;
use std::process::ExitCode;

use clap::{FromArgMatches, Parser, Subcommand, ValueEnum};
use lawsuite::call::Call;
use lawsuite::conformance::config::Config;
use lawsuite::contract::{StdError, validate_glob, validate_pattern};
use lawsuite::environment::Environment;
use lawsuite::kit::Generator;
use lawsuite::peer::{Ground, Method, Search};
use lawsuite::report::Format;
use lawsuite::scaffold::Lang;

/// Conformance harness and reference peers for the Smithers Ripgrep Subset v1
/// search contract (grep and glob) and the read-only file flows built on it
/// (read, ls, bash capture).
#[derive(Debug, Parser)]
#[command(name = "lawsuite", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check a pattern or a glob against the contract's grammar
    ///
    /// Prints the typed verdict; exit status 1 when it is rejected.
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
        #[command(flatten)]
        format: help::FormatArgs,
    },
    /// Judge the project's peers: laws, regressions, seeds and families
    ///
    /// Each failure is reported with its reason; exit status 1 when one
    /// fails, 2 on a usage error. The same engine and verdicts as the
    /// project's `cargo test`. FILTERs select trials by id, as `cargo test`
    /// does: `law::glob::`, `::mine`, `seed::smthrs::0051::mine --exact`.
    ///
    /// Examples:
    ///   lawsuite run
    ///   lawsuite run --no-seeds --law grep::context
    ///   lawsuite run --generator lawsuite --seeds 0..1000 --jobs 2 --format jsonl > results.jsonl
    ///   lawsuite run --generator smthrs --seeds 4 --call 3 --peer ripgrep
    ///   lawsuite run --format junit > lawsuite.xml
    #[command(verbatim_doc_comment)]
    Run(Box<RunArgs>),
    /// Merge the results of a sweep's shards into one report
    ///
    /// The `--format jsonl` results of several runs (the shards of one
    /// sweep, `run --shard K/N`), in any format; exit status 1 when a
    /// merged trial fails the run.
    ///
    /// Example:
    ///   lawsuite merge shard-1.jsonl shard-2.jsonl --format junit -o lawsuite.xml
    #[command(verbatim_doc_comment)]
    Merge(MergeArgs),
    /// Compare two runs' results: what newly fails, passes, or still fails
    ///
    /// Two `--format jsonl` results: each trial newly failing, newly passing, still failing, added or removed, grouped by
    /// spec section and peer, with why each newly failing one fails. Exits
    /// 1 when something fails that did not fail in BASE (a failing trial
    /// BASE did not have counts), 0 otherwise, 2 when a file is not the
    /// whole results of a run of this lawsuite version.
    ///
    /// Example:
    ///   lawsuite run --format jsonl > new.jsonl
    ///   lawsuite diff base.jsonl new.jsonl --format markdown >> "$GITHUB_STEP_SUMMARY"
    #[command(verbatim_doc_comment)]
    Diff(DiffArgs),
    /// Search for divergences for a time, and keep each new one shrunk
    ///
    /// A time-bounded differential campaign over the seed space: seed after
    /// seed of every generator and ground, every call through every peer,
    /// divergent calls grouped by peer × method × where the answers differ;
    /// each new group's first call is shrunk and kept as a regression file.
    /// It resumes where the project's last campaign stopped (its state is
    /// beside the regressions). A live line shows seeds, calls/s, groups and
    /// the time since the last new group; the end, a table of the groups
    /// with a replay line each. Exits 1 when it found a new group.
    ///
    /// Example:
    ///   lawsuite fuzz --for 10m --peer mine
    #[command(verbatim_doc_comment)]
    Fuzz(FuzzArgs),
    /// Follow each trial over the results of successive runs
    ///
    /// The results of a peer's versions, oldest first: every trial whose verdict changed, with its
    /// verdict in each run; the others are counted.
    ///
    /// Example:
    ///   lawsuite history v1.jsonl v2.jsonl v3.jsonl --format markdown
    #[command(verbatim_doc_comment)]
    History {
        /// Results files (`--format jsonl`), oldest first.
        #[arg(required = true, num_args = 2..)]
        files: Vec<std::path::PathBuf>,
        /// Report format.
        #[arg(long, value_enum, default_value_t = DiffFormat::Human)]
        format: DiffFormat,
        /// Changed trials listed (human, markdown); the rest are counted.
        /// 0: all.
        #[arg(long, value_name = "N", default_value_t = 200)]
        max_reports: usize,
    },
    /// Write one self-contained HTML report of runs' results
    ///
    /// Of the `--format jsonl` results of one or more runs, with no network
    /// fetches: a matrix of peers by
    /// spec section, every failure with its tree, call and diff.
    ///
    /// Example:
    ///   lawsuite run --format jsonl > results.jsonl; lawsuite report results.jsonl -o report.html
    #[command(verbatim_doc_comment)]
    Report {
        /// Results files (`lawsuite run --format jsonl`).
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
        /// The HTML file to write.
        #[arg(long, short = 'o')]
        output: std::path::PathBuf,
        /// Report results that are not whole instead of refusing them (see
        /// `lawsuite merge --allow-incomplete`).
        #[arg(long)]
        allow_incomplete: bool,
        /// Report results of more than one sweep instead of refusing them
        /// (see `lawsuite merge --allow-mixed`).
        #[arg(long)]
        allow_mixed: bool,
    },
    /// Write a project, with a skeleton peer in your language
    ///
    /// Into DIR (default: here, created if need be), and print the commands
    /// that run it. With --lang, a runnable skeleton
    /// peer in that language (small plain grep/glob code to replace),
    /// registered, with the protocol, its schemas and the contract copied
    /// into lawsuite/docs/ (and the adapter it uses); without, only
    /// lawsuite.toml with a commented example peer. Nothing is overwritten.
    ///
    /// Examples:
    ///   lawsuite init --lang node my-peer && cd my-peer && lawsuite run
    ///   lawsuite init --lang python
    ///   lawsuite init --lang rust my-crate && cd my-crate && cargo test --test conformance
    #[command(verbatim_doc_comment)]
    Init {
        /// The project's directory.
        #[arg(default_value = ".")]
        dir: std::path::PathBuf,
        /// The language of the skeleton peer.
        #[arg(long, value_enum)]
        lang: Option<LangArg>,
        /// With --lang rust: depend on lawsuite's source in DIR (default:
        /// the source this binary was built from, if it is still there at
        /// this version; else this or --lawsuite-git is needed).
        #[arg(long, value_name = "DIR", conflicts_with = "lawsuite_git")]
        lawsuite_path: Option<std::path::PathBuf>,
        /// With --lang rust: depend on lawsuite's git repository URL.
        #[arg(long, value_name = "URL")]
        lawsuite_git: Option<String>,
    },
    /// Print or write the documents a peer author reads
    ///
    /// From inside this binary: with no NAME, the list; with a NAME, that document on stdout; with --write
    /// DIR, all of them into DIR (nothing is overwritten).
    ///
    /// Examples:
    ///   lawsuite docs PROTOCOL.md | less
    ///   lawsuite docs --write lawsuite/docs
    #[command(verbatim_doc_comment)]
    Docs {
        /// A document's name, as the list shows it.
        name: Option<String>,
        /// Write every document into this directory instead.
        #[arg(long, value_name = "DIR", conflicts_with = "name")]
        write: Option<std::path::PathBuf>,
    },
    /// Print one seed's plan as JSON, or write its tree
    ///
    /// The tree is written under a new (or empty) directory.
    ///
    /// Example:
    ///   lawsuite plan --seed 1 --materialize /tmp/seed1
    #[command(verbatim_doc_comment)]
    Plan {
        /// The seed.
        #[arg(long)]
        seed: u64,
        /// The generator.
        #[arg(long, value_enum, default_value_t = GeneratorArg::Smthrs)]
        generator: GeneratorArg,
        /// The ground of the lawsuite generator.
        #[arg(long, value_enum, default_value_t = GroundArg::Shared)]
        ground: GroundArg,
        /// Write the tree under this directory, which must not exist yet or be empty.
        #[arg(long)]
        materialize: Option<std::path::PathBuf>,
    },
    /// Shrink one divergent call to a minimal case, and print it
    ///
    /// The original report, then the shrunk tree and call. A smaller case is kept only while its call stays inside the contract
    /// and the answers still differ in the same fields (or with the same
    /// error code), so it is the same bug, smaller.
    Shrink(CaseArgs),
    /// Shrink one divergent call and keep it as a regression file
    ///
    /// In the project's regression directory (lawsuite.toml `regressions`,
    /// default lawsuite/regressions), replayed by `lawsuite run` and `cargo
    /// test` from then on.
    ///
    /// One file per bug: when a regression of the same method already
    /// fails on the peer, nothing is written (fix that one, then record
    /// again).
    Record {
        #[command(flatten)]
        case: CaseArgs,
        /// Write the regression file (with --as-law: the law file's area
        /// directories) here instead.
        #[arg(long, value_name = "DIR", help_heading = "Where it is kept")]
        dir: Option<std::path::PathBuf>,
        /// Write the shrunk divergence as a draft law instead of a
        /// regression: the tree and call, the reference's answer as
        /// `expect`, a suggested `spec` to confirm, a `decision` to write,
        /// and where it came from, appended to
        /// <project laws>/<area>/found.toml (default lawsuite/laws, which
        /// `run` and `cargo test` then pick up).
        #[arg(long, help_heading = "Where it is kept")]
        as_law: bool,
    },
    /// Turn a regression file into a draft law
    ///
    /// A shrunk divergence that `record` kept, drafted as `record --as-law`
    /// writes one.
    ///
    /// Example:
    ///   lawsuite as-law lawsuite/regressions/mine-glob-smthrs-0017-3.json
    #[command(verbatim_doc_comment)]
    AsLaw {
        /// The regression file.
        file: std::path::PathBuf,
        #[command(flatten)]
        project: project_args::ProjectArgs,
        /// Write the law file's area directories here instead of the
        /// project's law directory.
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
    },
    /// Serve a built-in peer over the peer protocol on stdin/stdout
    ///
    /// Until `shutdown` or the end of stdin; `lawsuite docs PROTOCOL.md`
    /// prints the protocol.
    ///
    /// Example:
    ///   lawsuite serve --peer portable
    #[command(verbatim_doc_comment)]
    Serve(ServeArgs),
    /// List the registered peers and smoke-check each
    ///
    /// A handshake, then one trivial call: name, version and status; exit
    /// status 1 when one fails.
    ///
    /// Example:
    ///   lawsuite peers
    #[command(verbatim_doc_comment)]
    Peers(PeersArgs),
    /// Make one call to a peer and print its answer as JSON
    ///
    /// Exit status 1 when the answer is a failure. Methods: `grep` and `glob` take the normalised peer input;
    /// `flow/grep` and `flow/glob` take a caller's request and run the whole
    /// flow (validation, defaults, literal retry): the peer's own when it
    /// declares the flow, else lawsuite's flow layer over the peer's seam.
    /// The peer is a registered one (external peers included) or a built-in.
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
        #[arg(long, value_name = "PEER", default_value = "portable")]
        peer: String,
        #[command(flatten)]
        project: project_args::ProjectArgs,
        /// `grep`, `glob`, `flow/grep`, `flow/glob`, `flow/read`, `flow/ls` or `flow/bash`.
        method: String,
        /// The JSON parameters.
        params: String,
    },
    /// Time peers head to head on a generated tree or a directory
    ///
    /// Every answer is checked against the first peer's, the
    /// timed ones included, then warm-up and interleaved rounds, and a ratio
    /// table; exit status 1 when a peer disagrees or faults (it is marked
    /// and never ranked). Without --query or --call-file, the default queries
    /// cover literals, regexes, notices, symbols and globs with `?`.
    ///
    /// Examples:
    ///   lawsuite bench --peer portable --peer ripgrep
    ///   lawsuite bench --peer portable --peer ripgrep --corpus generated:M --rounds 9 --format markdown
    ///   lawsuite bench --peer portable --peer python-glob --corpus ~/src --call-file calls.jsonl
    #[command(verbatim_doc_comment)]
    Bench(bench::BenchArgs),
    /// Compare peers on a real directory, searched in place
    ///
    /// Never written to: many grep and glob calls drawn from its own words, extensions
    /// and directories (seeded, so a run is reproducible), each answer
    /// compared with the reference's, and the agreements, documented
    /// differences and divergences counted per peer; exit status 1 on a
    /// divergence. (Was `differ`, which still works in this release.)
    ///
    /// Examples:
    ///   lawsuite survey ~/src/project
    ///   lawsuite survey ~/.cargo/registry/src --call-count 5000 --seed 3
    ///   lawsuite survey ~/src --peer mine --format json > tally.json
    #[command(verbatim_doc_comment)]
    Survey(survey::SurveyArgs),
    /// Renamed `survey` (warns; goes in the next release).
    #[command(hide = true)]
    Differ(survey::SurveyArgs),
}

#[derive(Debug, clap::Args)]
struct ServeArgs {
    /// The built-in peer to serve: portable, ripgrep, ripgrep-walk, model,
    /// noop or git. Only built-ins, and no project is read: a project may
    /// register `lawsuite serve --peer portable` as its `portable`, which
    /// must not then serve itself.
    #[arg(long)]
    peer: String,
}

#[derive(Debug, clap::Args)]
struct PeersArgs {
    #[command(flatten)]
    project: project_args::ProjectArgs,
    #[command(flatten)]
    format: help::FormatArgs,
}

#[derive(Debug, clap::Args)]
struct MergeArgs {
    /// Results files (`lawsuite run --format jsonl`).
    #[arg(required = true)]
    files: Vec<std::path::PathBuf>,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Write the report here instead of standard output.
    #[arg(long, short = 'o')]
    output: Option<std::path::PathBuf>,
    /// Failing cases printed in full (human, markdown): each failing law call
    /// or divergent seed call counts one; the rest are counted, but the first
    /// failure of each kind of trial (law, regression, seed) is always shown
    /// with one call. 0: all.
    #[arg(long, default_value_t = 20)]
    max_reports: usize,
    /// Merge results that are not whole (a run that was killed or
    /// interrupted, a cut last line, a trial twice or with two verdicts,
    /// a missing shard, another lawsuite version) instead of refusing
    /// them; every problem is still printed as a warning.
    #[arg(long)]
    allow_incomplete: bool,
    /// Merge results of more than one sweep (other seeds, generators or
    /// their versions, ground, law set, regressions, filter or shard
    /// count) instead of refusing them; each difference is printed as a
    /// warning and heads the merged report.
    #[arg(long)]
    allow_mixed: bool,
}

#[derive(Debug, clap::Args)]
struct FuzzArgs {
    /// How long the whole campaign may take, shrinking included: `90s`,
    /// `10m`, `2h`, or seconds. At the end no call is started; the one
    /// under way finishes or meets its per-call timeout.
    #[arg(long = "for", value_name = "DURATION", value_parser = parse_duration, required_unless_present = "merge", help_heading = "Campaign")]
    budget: Option<std::time::Duration>,
    /// A peer to compare with the reference (repeatable); default: every
    /// registered peer.
    #[arg(long = "peer", value_name = "PEER", help_heading = "Campaign")]
    peers: Vec<String>,
    /// Seeds asked at once.
    #[arg(long, value_name = "N", default_value_t = default_jobs(), help_heading = "Campaign")]
    jobs: usize,
    /// Only this generator's seeds (default: both).
    #[arg(long, value_enum, help_heading = "Seeds")]
    generator: Option<GeneratorArg>,
    /// Only this ground of the lawsuite generator (default: both).
    #[arg(long, value_enum, help_heading = "Seeds")]
    ground: Option<GroundArg>,
    #[command(flatten)]
    project: project_args::ProjectArgs,
    /// The campaign's state file (default: fuzz-state.json beside the
    /// project's regression directory).
    #[arg(long, value_name = "FILE", help_heading = "Findings")]
    state: Option<std::path::PathBuf>,
    /// How many steps (predicate evaluations) one shrink may take.
    #[arg(long, value_name = "N", default_value_t = lawsuite::kit::shrink::DEFAULT_STEPS, help_heading = "Findings")]
    shrink_steps: usize,
    /// Ask fresh seeds only: no corpus of the calls that showed a new
    /// behaviour, no mutants of them (a guided campaign spends half its
    /// time mutating them).
    #[arg(long, help_heading = "Guidance")]
    unguided: bool,
    /// What the guidance's draws start from: the same seed, the same
    /// choices of corpus entries and edits.
    #[arg(long, value_name = "N", default_value_t = 0, help_heading = "Guidance")]
    guide_seed: u64,
    /// Stop at the first new group.
    #[arg(long, help_heading = "Campaign")]
    until_found: bool,
    /// Only the seeds of shard K of N (1-based): shards on N machines never
    /// ask one seed twice; merge their states with --merge.
    #[arg(long, value_name = "K/N", value_parser = parse_shard, help_heading = "Seeds")]
    shard: Option<Shard>,
    /// Merge these campaign states (the shards' `fuzz-state.json`, their
    /// corpora and regression files beside them) into this project's,
    /// instead of running a campaign.
    #[arg(long, value_name = "STATE", num_args = 1.., conflicts_with = "budget", help_heading = "Seeds")]
    merge: Vec<std::path::PathBuf>,
    /// Output format: `json` prints the campaign's end (its counts, every
    /// group whole, the residual risk) as one document; the live line
    /// stays on stderr.
    #[arg(long, value_enum, default_value_t = help::PlainFormat::Human, help_heading = "Output")]
    format: help::PlainFormat,
}

/// `90s`, `10m`, `2h`, `1.5h` or plain seconds, as a duration of at least
/// a second.
fn parse_duration(text: &str) -> Result<std::time::Duration, FlagError> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| c.is_ascii_alphabetic()) {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let scale = match unit {
        "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(FlagError::Duration(text.to_string())),
    };
    let secs: f64 = number
        .parse()
        .map_err(|_| FlagError::Duration(text.to_string()))?;
    let duration = std::time::Duration::try_from_secs_f64(secs * scale)
        .map_err(|_| FlagError::TooLong(text.to_string()))?;
    if duration.as_secs() < 1 {
        return Err(FlagError::UnderASecond(text.to_string()));
    }
    // A deadline is this instant plus the duration: one the clock cannot
    // hold would overflow where the campaign sets it.
    std::time::Instant::now()
        .checked_add(duration)
        .map(|_| duration)
        .ok_or_else(|| FlagError::TooLong(text.to_string()))
}

#[derive(Debug, clap::Args)]
struct DiffArgs {
    /// The earlier run's results (a --format jsonl file).
    base: std::path::PathBuf,
    /// The later run's results.
    new: std::path::PathBuf,
    /// Report format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Human)]
    format: DiffFormat,
    /// Write the report here instead of standard output.
    #[arg(long, short = 'o')]
    output: Option<std::path::PathBuf>,
    /// Trials listed per change (human, markdown); the rest are counted.
    /// 0: all.
    #[arg(long, default_value_t = 50)]
    max_reports: usize,
}

/// How `lawsuite diff` and `lawsuite history` write their report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum DiffFormat {
    /// For people: counts, newly failing trials with reasons, by section.
    Human,
    /// A CI job summary.
    Markdown,
    /// Every changed trial, for tools.
    Json,
}

#[derive(Debug, clap::Args)]
struct RunArgs {
    /// Run only trials whose id contains one of these (with --exact: is one
    /// of these), e.g. `law::glob::` or `::mine`.
    filters: Vec<String>,
    /// Match FILTERs against whole trial ids.
    #[arg(long, help_heading = "Select trials")]
    exact: bool,
    /// Print the selected trials' ids, one a line, and run nothing.
    #[arg(long, help_heading = "Select trials")]
    list: bool,
    /// Leave out trials whose id contains this (repeatable).
    #[arg(long, value_name = "FILTER", help_heading = "Select trials")]
    skip: Vec<String>,
    /// Run only the laws whose id starts with this (e.g. `grep::context`);
    /// regressions and seeds still run unless --no-regressions/--no-seeds.
    #[arg(long, value_name = "FILTER", help_heading = "Select trials")]
    law: Option<String>,
    /// A peer to run (repeatable); default: every registered peer. The
    /// reference always runs.
    #[arg(long = "peer", value_name = "PEER", help_heading = "Select trials")]
    peers: Vec<String>,
    /// Seeds, `A..B` or `N`, for every generator that runs; default
    /// (as `cargo test`'s): the TypeScript kit's 12 seeds (smthrs) and
    /// 0..64 (lawsuite).
    #[arg(long, value_name = "A..B|N", value_parser = parse_seeds, help_heading = "Seeds and families")]
    seeds: Option<Seeds>,
    /// Run only this generator's seeds (default: both).
    #[arg(long, value_enum, help_heading = "Seeds and families")]
    generator: Option<GeneratorArg>,
    /// The ground of the lawsuite generator (default: shared).
    #[arg(long, value_enum, help_heading = "Seeds and families")]
    ground: Option<GroundArg>,
    /// Only this call of each plan (its index: grep calls, then glob, read,
    /// ls and flow calls); laws and regressions are not run.
    #[arg(long, value_name = "N", help_heading = "Select trials")]
    call: Option<usize>,
    /// Ask every peer the bounded-exhaustive families (glob, gitignore,
    /// pattern: every shape up to a size) at their default sizes (glob 3,
    /// gitignore 4, pattern 3), the peers that start a process per call
    /// (ripgrep, ripgrep-walk, git) too, which by default are asked each
    /// at size 2: about 21,000 calls a peer.
    #[arg(
        long,
        conflicts_with = "no_exhaustive",
        help_heading = "Seeds and families"
    )]
    exhaustive: bool,
    /// Run no bounded-exhaustive family (as --exhaustive-size 0).
    #[arg(
        long,
        conflicts_with = "exhaustive_size",
        help_heading = "Seeds and families"
    )]
    no_exhaustive: bool,
    /// Every bounded-exhaustive family at size N (every shape of at most N
    /// tokens); 0 runs none. Each size's cost and reach: lawsuite's
    /// exhaustive guide.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=lawsuite::kit::exhaustive::MAX_SIZE as u64), help_heading = "Seeds and families")]
    exhaustive_size: Option<u64>,
    /// Threads running trials at once.
    #[arg(long, value_name = "N", default_value_t = default_jobs(), help_heading = "Execution")]
    jobs: usize,
    /// Ask each selected trial N times, each on fresh trees (default 1): a
    /// trial whose verdicts differ is flaky, which fails the run unless it
    /// is listed as an expected failure.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), help_heading = "Execution")]
    repeat: Option<u32>,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Human, help_heading = "Output")]
    format: Format,
    /// Stop after the first failure.
    #[arg(long, help_heading = "Execution")]
    fail_fast: bool,
    /// Run only shard K of N (1-based): the items whose id hashes to it, as
    /// `cargo nextest --partition hash:K/N` does; merge the shards' jsonl
    /// results with `lawsuite merge`. A shard that no item hashes to runs
    /// nothing and exits 0 (its results are whole and empty).
    #[arg(long, value_name = "K/N", value_parser = parse_shard, help_heading = "Select trials")]
    shard: Option<Shard>,
    /// Also write the self-contained HTML report here.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    html: Option<std::path::PathBuf>,
    /// Failing cases printed in full (human, markdown): each failing law call
    /// or divergent seed call counts one; the rest are counted, but the first
    /// failure of each kind of trial (law, regression, seed) is always shown
    /// with one call. 0: all (default 20).
    #[arg(long, value_name = "N", help_heading = "Output")]
    max_reports: Option<usize>,
    #[command(flatten)]
    project: project_args::ProjectArgs,
    /// Also run the laws of this directory (repeatable).
    #[arg(long, value_name = "DIR", help_heading = "Laws and regressions")]
    law_dir: Vec<std::path::PathBuf>,
    /// Renamed `--law-dir` (warns; goes in the next release).
    #[arg(long = "laws", value_name = "DIR", hide = true)]
    laws_renamed: Vec<std::path::PathBuf>,
    /// Leave out the laws lawsuite ships.
    #[arg(long, help_heading = "Laws and regressions")]
    no_shipped_laws: bool,
    /// Replay the regression files of this directory instead of the
    /// project's.
    #[arg(long, value_name = "DIR", help_heading = "Laws and regressions")]
    regressions: Option<std::path::PathBuf>,
    /// Also read expected failures from this directory (repeatable).
    #[arg(long, value_name = "DIR", help_heading = "Expectations and baselines")]
    expected: Vec<std::path::PathBuf>,
    /// Skip the regression files.
    #[arg(long, help_heading = "Laws and regressions")]
    no_regressions: bool,
    /// Skip the laws.
    #[arg(long, help_heading = "Laws and regressions")]
    no_laws: bool,
    /// Skip the seeds (laws and regressions only).
    #[arg(long, help_heading = "Seeds and families")]
    no_seeds: bool,
    /// Rewrite the project's expected law failures from this run: drop
    /// entries that now pass, list new failures in <expected>/recorded.toml.
    /// The exit status is still this run's (1 when a trial failed it).
    #[arg(long, help_heading = "Expectations and baselines")]
    update_expectations: bool,
    /// The gate for a peer that is not yet conformant: fail only on trials
    /// that did not fail in this results file (`--format jsonl`, or one
    /// --write-baseline wrote), and say how many of its failures now pass.
    /// Expected failures stay what they are: a reviewed list with reasons.
    #[arg(long, value_name = "FILE", help_heading = "Expectations and baselines")]
    baseline: Option<std::path::PathBuf>,
    /// Write this run's results (jsonl) here, replacing the file whole, to
    /// be the next --baseline.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "fail_fast",
        help_heading = "Expectations and baselines"
    )]
    write_baseline: Option<std::path::PathBuf>,
    /// Run exactly the trials that failed (or could not be judged) in this
    /// results file, their seeds included, and nothing else; with --list,
    /// list them.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["seeds", "generator", "ground", "call"], help_heading = "Select trials")]
    rerun_failed: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, clap::Args)]
struct CaseArgs {
    /// The generator of the plan.
    #[arg(long, value_enum, default_value_t = GeneratorArg::Smthrs, help_heading = "The case")]
    generator: GeneratorArg,
    /// The ground of the lawsuite generator.
    #[arg(long, value_enum, default_value_t = GroundArg::Shared, help_heading = "The case")]
    ground: GroundArg,
    /// The seed of the plan.
    #[arg(long, value_name = "N", help_heading = "The case")]
    seed: u64,
    /// The call's index in the plan.
    #[arg(long, value_name = "N", help_heading = "The case")]
    call: usize,
    /// The peer that disagrees with the reference.
    #[arg(long, value_name = "PEER", help_heading = "The case")]
    peer: String,
    #[command(flatten)]
    project: project_args::ProjectArgs,
    /// Why the case is kept (written into the regression file).
    #[arg(long, help_heading = "Shrinking")]
    why: Option<String>,
    /// How many steps (predicate evaluations) the shrink may take; a shrink
    /// the bound stops says so, and a higher bound goes on from the same
    /// first steps.
    #[arg(long, value_name = "N", default_value_t = lawsuite::kit::shrink::DEFAULT_STEPS, help_heading = "Shrinking")]
    steps: usize,
}

/// Two trials a core: a law trial spends much of its time waiting on a
/// peer's process (`rg`, an external peer). On 2 cores, the shipped laws
/// across the four peers of this checkout took 9.2 s on 2 jobs and 8.0 s
/// on 4; CPU-bound seed sweeps lose 2–3 % to the extra threads.
fn default_jobs() -> usize {
    2 * std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum CheckKind {
    /// A grep pattern (search-contract §10).
    Pattern,
    /// A glob (search-contract §8.1).
    Glob,
}

/// A generator, as the command line names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum GeneratorArg {
    /// The TypeScript kit's generator, replayed exactly.
    Smthrs,
    /// lawsuite's own generator, with the file flows and a wider ground.
    Lawsuite,
}

impl From<GeneratorArg> for Generator {
    fn from(arg: GeneratorArg) -> Generator {
        match arg {
            GeneratorArg::Smthrs => Generator::Smthrs,
            GeneratorArg::Lawsuite => Generator::Lawsuite,
        }
    }
}

/// A ground, as the command line names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum GroundArg {
    /// Plain files and directories: what every peer can be asked about.
    Shared,
    /// Also CRLF, invalid UTF-8, BOMs, symlinks, unreadable entries.
    Full,
}

impl From<GroundArg> for Ground {
    fn from(arg: GroundArg) -> Ground {
        match arg {
            GroundArg::Shared => Ground::Shared,
            GroundArg::Full => Ground::Full,
        }
    }
}

/// A skeleton's language, as the command line names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum LangArg {
    /// A crate whose `cargo test` runs every law over an in-process peer.
    Rust,
    /// An ES module on the Node adapter (Node 18+).
    Node,
    /// A script on the Python adapter (Python 3.8+).
    Python,
}

impl From<LangArg> for Lang {
    fn from(arg: LangArg) -> Lang {
        match arg {
            LangArg::Rust => Lang::Rust,
            LangArg::Node => Lang::Node,
            LangArg::Python => Lang::Python,
        }
    }
}

/// `--seeds A..B` or `N`, as given (reports repeat the spelling).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Seeds {
    range: std::ops::Range<u64>,
    text: String,
}

fn parse_seeds(text: &str) -> Result<Seeds, FlagError> {
    lawsuite::environment::parse_seeds(text)
        .map(|range| Seeds {
            range,
            text: text.to_string(),
        })
        .ok_or_else(|| FlagError::Seeds(text.to_string()))
}

/// `--shard K/N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shard {
    k: u64,
    n: u64,
}

fn parse_shard(text: &str) -> Result<Shard, lawsuite::conformance::shard::BadShard> {
    lawsuite::conformance::shard::parse_shard(text).map(|(k, n)| Shard { k, n })
}

/// A flag value the binary's own parsers refuse; clap shows the sentence
/// after the flag's name.
#[derive(Debug)]
enum FlagError {
    /// `--for` that is not a number with a unit.
    Duration(String),
    /// `--for` under a second.
    UnderASecond(String),
    /// `--for` so long that its end cannot be told by this machine's clock.
    TooLong(String),
    /// `--seeds` that is neither `A..B` nor `N`.
    Seeds(String),
}

impl std::fmt::Display for FlagError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FlagError::Duration(text) => {
                write!(f, "{text:?}: give a number with s, m or h (90s, 10m, 2h)")
            }
            FlagError::UnderASecond(text) => write!(f, "{text:?}: give at least one second"),
            FlagError::TooLong(text) => write!(
                f,
                "{text:?} ends later than this machine's clock can say; give a shorter duration"
            ),
            FlagError::Seeds(text) => write!(
                f,
                "takes A..B (with A < B) or N, not {text:?}; e.g. --seeds 0..1000"
            ),
        }
    }
}

impl std::error::Error for FlagError {}

mod bench;
mod fuzz;
mod help;
mod init;
mod interrupt;
mod peers;
mod project_args;
mod run;
mod survey;

fn main() -> ExitCode {
    let cli = Cli::from_arg_matches(&help::command().get_matches()).unwrap_or_else(|e| e.exit());
    let result = dispatch(cli);
    interrupt::yield_to_exit();
    match result {
        Ok(code) => code,
        // A reader that went away (`lawsuite plan | head`) is not an error.
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    // Before anything is started: an interrupt then ends the command's
    // peers and removes its temporary trees (the default action orphaned
    // the one and left the other).
    let runs_peers = starts_peers_or_trees(&cli.command);
    // Every command that runs a peer reads the environment once, here, and
    // runs by a `Config` made from it (`run` makes its own, with its flags,
    // from the same environment): a variable set to a value it cannot take
    // is an error naming it, never a silent default
    // (`LAWSUITE_RG_TIMEOUT_MS=abc lawsuite call --peer ripgrep` ran with
    // the default).
    let environment = if runs_peers || matches!(cli.command, Command::Serve(_)) {
        Environment::read().map_err(|errors| anyhow::anyhow!("{}", lines(&errors)))?
    } else {
        Environment::none()
    };
    let settings = Config::builder()
        .environment(environment.clone())
        .build()
        .map_err(|errors| anyhow::anyhow!("{}", lines(&errors)))?;
    if runs_peers {
        interrupt::listen(settings.interrupt_grace());
    }
    match cli.command {
        Command::Check {
            kind,
            text,
            fixed_strings,
            format,
        } => {
            let json = format.json();
            let verdict = match kind {
                CheckKind::Pattern => validate_pattern(&text, fixed_strings),
                CheckKind::Glob => validate_glob(&text),
            };
            print_verdict(kind, &text, verdict, json)
        }
        Command::Run(args) => run::run(*args, environment),
        Command::Bench(args) => bench::bench(args, &settings),
        Command::Survey(args) => survey::survey(args, &settings),
        Command::Differ(args) => {
            help::warn_renamed("lawsuite differ", "lawsuite survey");
            survey::survey(args, &settings)
        }
        Command::Plan {
            seed,
            generator,
            ground,
            materialize,
        } => run::plan(
            seed,
            generator.into(),
            ground.into(),
            materialize.as_deref(),
        ),
        Command::Shrink(case) => run::shrink_case(&case, None, &settings),
        Command::Record { case, dir, as_law } => {
            let keep = if as_law {
                run::Keep::Law(dir)
            } else {
                run::Keep::Regression(dir)
            };
            run::shrink_case(&case, Some(keep), &settings)
        }
        Command::AsLaw { file, project, dir } => run::as_law(&file, &project, dir.as_deref()),
        Command::Init {
            dir,
            lang,
            lawsuite_path,
            lawsuite_git,
        } => init::init(
            &dir,
            lang.map(Into::into),
            init::Source {
                path: lawsuite_path,
                git: lawsuite_git,
            },
        ),
        Command::Docs { name, write } => init::docs(name.as_deref(), write.as_deref()),
        Command::Merge(args) => run::merge(&args),
        Command::Diff(args) => run::diff(&args),
        Command::Fuzz(args) => fuzz::fuzz(&args, &settings),
        Command::History {
            files,
            format,
            max_reports,
        } => run::history(&files, format, max_reports),
        Command::Report {
            files,
            output,
            allow_incomplete,
            allow_mixed,
        } => run::merge(&MergeArgs {
            files,
            format: Format::Html,
            output: Some(output),
            max_reports: 0,
            allow_incomplete,
            allow_mixed,
        }),
        Command::Serve(args) => {
            let peer = builtin_peer(&args.peer, &settings)?;
            let stdin = std::io::stdin().lock();
            let stdout = std::io::stdout().lock();
            lawsuite::protocol::serve(peer.as_ref(), stdin, stdout)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Peers(args) => peers::peers(&args.project, args.format.json(), &settings),
        Command::Call {
            peer,
            project,
            method,
            params,
        } => {
            // Only the named peer is started: starting the others cost
            // `lawsuite call --peer portable` two `rg --version` processes
            // (5 ms of CPU).
            let only = [peer];
            let peer = project_args::ProjectPeers::read(
                &project.project()?,
                Some(&only),
                settings.peer_options(),
            )?
            .one(&only[0])?;
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

/// Whether `command` may start a peer process or write a temporary tree.
/// `serve` is a peer itself (its parent ends it); `plan --materialize` and
/// `init` write into a directory the user named, which stays theirs.
fn starts_peers_or_trees(command: &Command) -> bool {
    match command {
        Command::Run(_)
        | Command::Bench(_)
        | Command::Survey(_)
        | Command::Differ(_)
        | Command::Shrink(_)
        | Command::Record { .. }
        | Command::Fuzz(_)
        | Command::Peers(_)
        | Command::Call { .. } => true,
        Command::Check { .. }
        | Command::Plan { .. }
        | Command::Init { .. }
        | Command::Docs { .. }
        | Command::Merge(_)
        | Command::Diff(_)
        | Command::History { .. }
        | Command::AsLaw { .. }
        | Command::Report { .. }
        | Command::Serve(_) => false,
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

/// The peers compiled into this binary, started as `settings` say.
fn builtin_peer(name: &str, settings: &Config) -> anyhow::Result<std::sync::Arc<dyn Search>> {
    Ok(lawsuite::registry::builtin(name, settings.peer_options())?)
}

/// Errors one to a line.
fn lines<E: std::fmt::Display>(errors: &[E]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// One call; the outer error is a usage problem (bad JSON, unknown method),
/// the inner one the peer's typed answer.
fn call(
    peer: &dyn Search,
    method: &str,
    params: &str,
) -> anyhow::Result<Result<serde_json::Value, StdError>> {
    let method: Method = method.parse()?;
    let params: serde_json::Value = serde_json::from_str(params)
        .map_err(|e| anyhow::anyhow!("the parameters of {method} are not JSON: {e}"))?;
    Ok(Call::parse(method, params)?.run(peer))
}
