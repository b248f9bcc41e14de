//! `lawsuite survey` (once `differ`): the real-tree differential (the logic is
//! `lawsuite::kit::real_tree`; this is argument handling and output).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, anyhow, bail};
use lawsuite::call::Call;
use lawsuite::conformance::config::Config;
use lawsuite::conformance::shell_word;
use lawsuite::kit::answer::Answer;
use lawsuite::kit::compare::{difference_kind, first_difference};
use lawsuite::kit::real_tree::{Divergent, Survey, Tally, draw, run};
use lawsuite::kit::report::json_diff;

use crate::project_args::{ProjectArgs, ProjectPeers, program};

/// The arguments of `lawsuite survey`.
#[derive(Debug, clap::Args)]
pub struct SurveyArgs {
    /// The directory to compare the peers on, searched in place (read
    /// only: nothing is written in it).
    dir: PathBuf,
    /// How many calls to draw.
    #[arg(long, value_name = "N", default_value_t = 2000, help_heading = "Draws")]
    call_count: usize,
    /// Renamed `--call-count` (warns; goes in the next release).
    #[arg(
        long = "calls",
        value_name = "N",
        hide = true,
        conflicts_with = "call_count"
    )]
    calls_renamed: Option<usize>,
    /// The seed of the survey's sample and of the draws: the same tree,
    /// seed and count give the same calls.
    #[arg(long, value_name = "N", default_value_t = 0, help_heading = "Draws")]
    seed: u64,
    /// The reference peer: a name from the registry, or a built-in.
    #[arg(
        long,
        value_name = "PEER",
        default_value = "portable",
        help_heading = "Peers"
    )]
    reference: String,
    /// A peer compared with the reference (repeatable); default: ripgrep
    /// and ripgrep-walk.
    #[arg(long = "peer", value_name = "PEER", help_heading = "Peers")]
    peers: Vec<String>,
    /// Divergent calls reported in full (the call, each differing answer's
    /// kind of difference and its diff with the reference's, a replay
    /// command); the rest are counted.
    #[arg(long, value_name = "N", default_value_t = 10, help_heading = "Output")]
    max_reports: usize,
    #[command(flatten)]
    format: crate::help::FormatArgs,
    #[command(flatten)]
    project: ProjectArgs,
}

/// `lawsuite survey`: exit status 1 when a peer diverged from the reference
/// in a way it does not document.
pub fn survey(args: SurveyArgs, settings: &Config) -> anyhow::Result<ExitCode> {
    let json = args.format.json();
    let call_count = crate::help::renamed_value(args.calls_renamed, "--calls", "--call-count")
        .unwrap_or(args.call_count);
    let dir = args.dir.to_str().ok_or_else(|| {
        anyhow!(
            "the path {} is not UTF-8, which the contract's roots must be",
            args.dir.display()
        )
    })?;
    // Absolute, so answers and replay commands name the same files from anywhere.
    let dir = crate::project_args::absolute(std::path::Path::new(dir))
        .to_string_lossy()
        .into_owned();
    // The project file before anything takes time; then the directory (a
    // wrong path is the likeliest mistake), then the peers.
    let project = args.project.project()?;
    let started = Instant::now();
    let survey = Survey::of(&dir, args.seed).with_context(|| format!("surveying {dir}"))?;
    let subjects = if args.peers.is_empty() {
        vec!["ripgrep".to_string(), "ripgrep-walk".to_string()]
    } else {
        args.peers.clone()
    };
    let mut names = vec![args.reference.clone()];
    names.extend(subjects);
    let (peers, unavailable) =
        ProjectPeers::read(&project, Some(&names), settings.peer_options())?.named(&names)?;
    if let Some(u) = unavailable.iter().find(|u| u.name == args.reference) {
        bail!("the reference {} cannot run here: {}", u.name, u.why);
    }
    for u in &unavailable {
        eprintln!("warning: {} is left out: {}", u.name, u.why);
    }
    let Some((reference, subjects)) = peers.split_first() else {
        bail!("no peer can run here; see the warnings above");
    };
    if subjects.is_empty() {
        bail!("no peer to compare with the reference can run here; see the warnings above");
    }

    eprintln!(
        "surveyed {dir}: {} files, {} directories, {} extensions, {} words",
        survey.files.len(),
        survey.dirs.len(),
        survey.extensions.len(),
        survey.words.len()
    );
    let calls = draw(&survey, args.seed, call_count);
    let greps = calls.iter().filter(|c| matches!(c, Call::Grep(_))).count();
    eprintln!(
        "running {} calls (seed {}: {greps} grep, {} glob) through {} and {}",
        calls.len(),
        args.seed,
        calls.len() - greps,
        reference.name(),
        subjects
            .iter()
            .map(|c| c.name())
            .collect::<Vec<_>>()
            .join(", ")
    );
    // Only a built-in's documented differences are recognised, by the
    // built-in it is registered as.
    let total = calls.len();
    let tally = run(&calls, reference, subjects, &mut |i| {
        if (i + 1) % 100 == 0 || i + 1 == total {
            eprintln!(
                "  {}/{total} calls, {:.0} s",
                i + 1,
                started.elapsed().as_secs_f64()
            );
        }
    });

    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&tally)?)?;
    } else {
        let replay = Replay {
            program: program(),
            flags: args.project.flags(),
        };
        write!(out, "{}", report(&tally, args.max_reports, &replay))?;
    }
    Ok(if tally.has_divergence() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// How a replay command starts: the binary as it was invoked, and the
/// project flags the run was given (`--project`, `--registry`), without
/// which a registered peer's name means nothing to `lawsuite call`.
struct Replay {
    program: String,
    flags: Vec<String>,
}

/// The text report: the counts per subject (divergences by kind), then the
/// first `max_reports` divergent calls.
fn report(tally: &Tally, max_reports: usize, replay: &Replay) -> String {
    let mut out = tally.summary();
    out.push_str(&format!(
        "divergent calls: {} of {}\n",
        tally.divergent_calls, tally.calls
    ));
    for d in tally.divergences.iter().take(max_reports) {
        out.push_str(&divergent(d, replay));
    }
    let shown = tally.divergences.len().min(max_reports);
    if tally.divergent_calls > shown {
        out.push_str(&format!(
            "... and {} more divergent calls (--max-reports, --json)\n",
            tally.divergent_calls - shown
        ));
    }
    out
}

/// One divergent call: the call, and per differing answer its kind of
/// difference, the two answers as a diff (`-` the reference's, `+` the
/// peer's, as a law failure shows them) and the `lawsuite call` that asks
/// it again.
fn divergent(d: &Divergent, replay: &Replay) -> String {
    let call = serde_json::to_value(&d.call).unwrap_or_default();
    let method = call["method"].as_str().unwrap_or("grep");
    let input = call["input"].to_string();
    let mut out = format!("\ncall {}: {method} {input}\n", d.index);
    let Some((expected, rest)) = d.answers.split_first() else {
        return out;
    };
    for got in rest.iter().filter(|a| !a.answer.agrees(&expected.answer)) {
        if let Some(case) = &got.explained {
            out.push_str(&format!("  {}: documented: {case}\n", got.peer));
            continue;
        }
        let kind =
            difference_kind(&expected.answer, &got.answer).unwrap_or_else(|| "differs".to_string());
        out.push_str(&format!("  {}: {kind}\n", got.peer));
        // Between two answers the first difference says where to look in
        // the diff; a failure's kind already says all of it.
        if let (Answer::Value(expected), Answer::Value(got)) = (&expected.answer, &got.answer)
            && let Some(first) = first_difference(expected, got, "")
        {
            out.push_str(&format!("    first difference: {first}\n"));
        }
        out.push_str(&format!("    - {}, + {}:\n", expected.peer, got.peer));
        // Failures are compared by code; the diff shows what each said.
        for line in json_diff(&expected.answer.shown(), &got.answer.shown(), false).lines() {
            out.push_str(&format!("      {line}\n"));
        }
        // Both sides of the difference: the peer's answer alone does not
        // show it.
        for (label, peer) in [("replay", &got.peer), ("reference", &expected.peer)] {
            let line = call_command(replay, peer, method, &input);
            out.push_str(&format!("    {label}: {line}\n"));
        }
    }
    out
}

/// The `lawsuite call` that asks `peer` the call again.
fn call_command(replay: &Replay, peer: &str, method: &str, input: &str) -> String {
    let mut words = vec![
        replay.program.clone(),
        "call".to_string(),
        "--peer".to_string(),
        peer.to_string(),
    ];
    words.extend(replay.flags.iter().cloned());
    words.push(method.to_string());
    words.push(input.to_string());
    let words: Vec<String> = words.iter().map(|w| shell_word(w)).collect();
    words.join(" ")
}
