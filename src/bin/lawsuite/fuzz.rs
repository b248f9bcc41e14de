//! `lawsuite fuzz --for DURATION`: the command-line door of
//! [`lawsuite::kit::campaign`], with its live line and final table.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::bail;
use lawsuite::conformance::config::Config;
use lawsuite::conformance::peers::PeerSet;
use lawsuite::kit::Generator;
use lawsuite::peer::Ground;

use crate::interrupt;
use crate::project_args::{ProjectPeers, named, program};

/// `lawsuite fuzz --for DURATION`: a campaign over the seed space
/// ([`lawsuite::kit::campaign`]); 1 when it found a new group, 2 when it
/// compared nothing or stopped on an error, 130 when interrupted.
pub fn fuzz(args: &crate::FuzzArgs, settings: &Config) -> anyhow::Result<ExitCode> {
    use lawsuite::kit::campaign::{Campaign, Slot};
    use lawsuite::kit::compare::Compared;
    let project = args.project.project()?;
    let state = args.state.as_ref().map_or_else(
        || {
            project
                .regressions
                .parent()
                .unwrap_or(&project.root)
                .join("fuzz-state.json")
        },
        |p| crate::project_args::absolute(p),
    );
    if !args.merge.is_empty() {
        return merge(args, &state, &project.regressions);
    }
    let budget = args
        .budget
        .ok_or_else(|| anyhow::anyhow!("--for DURATION is needed to run a campaign"))?;
    let PeerSet {
        reference,
        subjects,
        unavailable,
    } = ProjectPeers::read(&project, named(&args.peers), settings.peer_options())?
        .set(&args.peers)?;
    for u in &unavailable {
        eprintln!("note: {} cannot run here: {}", u.name, u.why);
    }
    if subjects.is_empty() {
        bail!(
            "no peer to compare with the reference {}: register one, or name it with --peer",
            reference.name()
        );
    }
    let slots: Vec<Slot> = Slot::all()
        .into_iter()
        .filter(|s| {
            args.generator
                .is_none_or(|g| Generator::from(g) == s.generator)
        })
        .filter(|s| {
            args.ground
                .is_none_or(|g| s.generator != Generator::Lawsuite || Ground::from(g) == s.ground)
        })
        .collect();
    let campaign = Campaign {
        slots,
        jobs: args.jobs,
        shrink: lawsuite::kit::shrink::Budget {
            steps: args.shrink_steps,
        },
        guided: !args.unguided,
        guide_seed: args.guide_seed,
        until_found: args.until_found,
        shard: args.shard.map(|shard| (shard.k, shard.n)),
        ..Campaign::new(state.clone(), project.regressions.clone(), budget)
    };
    let subjects_compared: Vec<Compared<'_>> = subjects.iter().map(Compared::from).collect();
    let terminal = std::io::stderr().is_terminal();
    let last_said = std::sync::Mutex::new(Instant::now());
    let stop = interrupt::during_trials();
    eprintln!(
        "fuzz: {} against {} for {} s, {} jobs; state {}",
        subjects
            .iter()
            .map(|s| s.name())
            .collect::<Vec<_>>()
            .join(", "),
        reference.name(),
        budget.as_secs(),
        args.jobs,
        state.display()
    );
    let found = campaign.run(
        Compared::from(&reference),
        &subjects_compared,
        Some(stop),
        |p| {
            if terminal {
                eprint!("\r\x1b[2K{}", p.line());
            } else {
                // A log gets a line every ten seconds, not a stream of them.
                let mut last = last_said.lock().unwrap_or_else(|e| e.into_inner());
                if last.elapsed() >= std::time::Duration::from_secs(10) {
                    eprintln!("{}", p.line());
                    *last = Instant::now();
                }
            }
        },
    );
    interrupt::trials_done();
    if terminal {
        eprintln!();
    }
    let found = found?;
    let mut out = std::io::stdout().lock();
    let p = &found.progress;
    if args.format == crate::help::PlainFormat::Json {
        let summary = serde_json::json!({
            "seconds": p.secs,
            "seeds": p.seeds,
            "mutants": p.mutants,
            "calls": p.calls,
            "newGroups": p.new_groups,
            "firstNewAfterSeconds": found.first_new_after,
            "interrupted": found.interrupted,
            "stoppedBy": found.stopped_by,
            "state": summary(&found.state),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&summary)?)?;
    } else {
        say_campaign(&mut out, &found)?;
    }
    if let Some(why) = &found.stopped_by {
        eprintln!(
            "error: the campaign stopped early: {}; what it asked until then is kept",
            lawsuite::report::escaped(why, "  ")
        );
        return Ok(ExitCode::from(2));
    }
    if found.interrupted {
        eprintln!("fuzz: interrupted; the next campaign starts where this one stopped");
        return Ok(ExitCode::from(interrupt::EXIT_CODE));
    }
    Ok(if p.new_groups > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The end of a campaign for people: the counts, where the next starts,
/// every group, the residual risk.
fn say_campaign(
    out: &mut impl Write,
    found: &lawsuite::kit::campaign::Found,
) -> std::io::Result<()> {
    let p = &found.progress;
    writeln!(
        out,
        "fuzz: {:.0} s, {} seeds + {} mutants, {} calls ({:.0} calls/s); {} new {}{}, {} known from earlier campaigns",
        p.secs,
        p.seeds,
        p.mutants,
        p.calls,
        p.calls as f64 / p.secs.max(0.001),
        p.new_groups,
        if p.new_groups == 1 { "group" } else { "groups" },
        found
            .first_new_after
            .map(|s| format!(" (the first after {s:.1} s)"))
            .unwrap_or_default(),
        found.state.groups.len() - p.new_groups,
    )?;
    let next: Vec<String> = found
        .state
        .next
        .iter()
        .map(|(sequence, seed)| format!("{sequence} {seed}"))
        .collect();
    writeln!(
        out,
        "next seeds: {} (the next campaign starts there)",
        next.join(", ")
    )?;
    for group in &found.state.groups {
        let new = group.campaign == found.state.campaigns;
        say_group(out, group, new)?;
    }
    writeln!(out, "{}", found.state.species.line())?;

    Ok(())
}

/// A campaign state for tools (`--format json`): where the next campaign
/// starts, every group whole (as the state keeps it, with whether this
/// campaign found it), the residual risk.
fn summary(state: &lawsuite::kit::campaign::State) -> serde_json::Value {
    let groups: Vec<serde_json::Value> = state
        .groups
        .iter()
        .map(|group| {
            let mut value = serde_json::to_value(group).unwrap_or(serde_json::Value::Null);
            if let Some(object) = value.as_object_mut() {
                object.insert("new".into(), (group.campaign == state.campaigns).into());
            }
            value
        })
        .collect();
    serde_json::json!({
        "next": state.next,
        "groups": groups,
        "residualRisk": state.species.residual(),
        "risk": state.species.line(),
    })
}

/// One group as `fuzz` and `fuzz --merge` list it: its signature and
/// count, where it was first met, what it shrank to, who agreed with whom,
/// and how to replay it.
fn say_group(
    out: &mut impl Write,
    group: &lawsuite::kit::campaign::Group,
    new: bool,
) -> std::io::Result<()> {
    use lawsuite::report::escaped;
    let (generator, ground) = match group.first.sequence.as_str() {
        "lawsuite@full" => ("lawsuite", " --ground full"),
        other => (other, ""),
    };
    writeln!(
        out,
        "{} {}  seen {}\n    first: {}{}",
        if new { "NEW  " } else { "known" },
        escaped(&group.signature, "    "),
        group.seen,
        group.first.describe(),
        group
            .regression
            .as_ref()
            .map(|r| format!(" → kept as {r}"))
            .unwrap_or_default(),
    )?;
    if let Some(shape) = &group.shape {
        writeln!(out, "    shrunk to: {}", escaped(shape, "    "))?;
    }
    if let Some(partition) = &group.partition {
        writeln!(out, "    agreed: {}", escaped(partition, "    "))?;
    }
    if group.model_alone {
        writeln!(
            out,
            "    the model or the spec text is suspect ({}): the model alone disagrees with the reference, every other peer agreeing with it; read the spec text before blaming a peer",
            group.spec.as_deref().unwrap_or("its section")
        )?;
    }
    let mutated = !group.first.mutations.is_empty();
    if let Some(steps) = group.step_bound {
        if mutated {
            writeln!(
                out,
                "    the step bound stopped its shrink after {steps} steps; a campaign with --shrink-steps {} goes on",
                steps.saturating_mul(4)
            )?;
        } else {
            writeln!(
                out,
                "    the step bound stopped its shrink after {steps} steps; this goes on from the same steps: {} shrink --generator {generator}{ground} --seed {} --call {} --peer {} --steps {}",
                program(),
                group.first.seed,
                group.first.call,
                lawsuite::conformance::shell_word(&group.peer),
                steps.saturating_mul(4),
            )?;
        }
    }
    if let Some(decisions) = &group.pending {
        writeln!(
            out,
            "    shrinking cut after {} steps by the end of the campaign; the next campaign finishes it",
            decisions.len()
        )?;
    }
    if let Some(why) = &group.not_kept {
        writeln!(out, "    not kept: {}", escaped(why, "    "))?;
    }
    if mutated {
        // A mutant has no seed of its own: its regression file is its
        // replay, and every run replays it.
        writeln!(
            out,
            "    replay: {} run --peer {} (the regression file, a mutant of the call above)",
            program(),
            lawsuite::conformance::shell_word(&group.peer)
        )
    } else {
        writeln!(
            out,
            "    replay: {} run --generator {generator}{ground} --seeds {} --call {} --peer {}",
            program(),
            group.first.seed,
            group.first.call,
            lawsuite::conformance::shell_word(&group.peer)
        )
    }
}

/// `lawsuite fuzz --merge STATE…`: the shards' states merged into this
/// project's; 0, or 2 on a state that cannot be read or written.
fn merge(
    args: &crate::FuzzArgs,
    state: &std::path::Path,
    regressions: &std::path::Path,
) -> anyhow::Result<ExitCode> {
    let campaign = lawsuite::kit::campaign::Campaign::new(
        state.to_path_buf(),
        regressions.to_path_buf(),
        std::time::Duration::ZERO,
    );
    let before = lawsuite::kit::campaign::State::load(state)?.groups.len();
    let others: Vec<std::path::PathBuf> = args
        .merge
        .iter()
        .map(|p| crate::project_args::absolute(p))
        .collect();
    let merged = campaign.merge(&others)?;
    let mut out = std::io::stdout().lock();
    if args.format == crate::help::PlainFormat::Json {
        writeln!(out, "{}", serde_json::to_string_pretty(&summary(&merged))?)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "merged {} {} into {}: {} groups (was {before}); next seeds: {}",
        others.len(),
        if others.len() == 1 { "state" } else { "states" },
        state.display(),
        merged.groups.len(),
        merged
            .next
            .iter()
            .map(|(sequence, seed)| format!("{sequence} {seed}"))
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    for group in &merged.groups {
        say_group(&mut out, group, false)?;
    }
    writeln!(out, "{}", merged.species.line())?;
    Ok(ExitCode::SUCCESS)
}
