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
            reference.name
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
    let campaign = Campaign {
        slots,
        budget: args.budget,
        jobs: args.jobs,
        state: state.clone(),
        regressions: project.regressions.clone(),
        shrink: lawsuite::kit::shrink::Budget {
            steps: args.shrink_steps,
        },
    };
    let subjects_compared: Vec<Compared<'_>> = subjects.iter().map(Compared::from).collect();
    let terminal = std::io::stderr().is_terminal();
    let last_said = std::sync::Mutex::new(Instant::now());
    let stop = interrupt::during_trials();
    eprintln!(
        "fuzz: {} against {} for {} s, {} jobs; state {}",
        subjects
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        reference.name,
        args.budget.as_secs(),
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
    writeln!(
        out,
        "fuzz: {:.0} s, {} seeds, {} calls ({:.0} calls/s); {} new {}{}, {} known from earlier campaigns",
        p.secs,
        p.seeds,
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
        let (generator, ground) = match group.first.sequence.as_str() {
            "lawsuite@full" => ("lawsuite", " --ground full"),
            other => (other, ""),
        };
        writeln!(
            out,
            "{} {}  seen {}\n    first: {} seed {} call {}{}",
            if new { "NEW  " } else { "known" },
            lawsuite::report::escaped(&group.signature, "    "),
            group.seen,
            group.first.sequence,
            group.first.seed,
            group.first.call,
            group
                .regression
                .as_ref()
                .map(|r| format!(" → kept as {r}"))
                .unwrap_or_default(),
        )?;
        if let Some(shape) = &group.shape {
            writeln!(
                out,
                "    shrunk to: {}",
                lawsuite::report::escaped(shape, "    ")
            )?;
        }
        if let Some(steps) = group.step_bound {
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
        if let Some(decisions) = &group.pending {
            writeln!(
                out,
                "    shrinking cut after {} steps by the end of the campaign; the next campaign finishes it",
                decisions.len()
            )?;
        }
        if let Some(why) = &group.not_kept {
            writeln!(
                out,
                "    not kept: {}",
                lawsuite::report::escaped(why, "    ")
            )?;
        }
        writeln!(
            out,
            "    replay: {} run --generator {generator}{ground} --seeds {} --call {} --peer {}",
            program(),
            group.first.seed,
            group.first.call,
            lawsuite::conformance::shell_word(&group.peer)
        )?;
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
