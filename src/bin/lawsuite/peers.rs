//! `lawsuite peers`: list and smoke-check the registered peers.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use lawsuite::contract::{GlobInput, GrepInput};
use lawsuite::kit::materialize::TempTree;
use lawsuite::kit::plan::GeneratedFile;
use lawsuite::peer::Search;
use lawsuite::registry::Registered;

/// One row of `lawsuite peers`.
#[derive(Debug, serde::Serialize)]
struct Row {
    name: String,
    version: String,
    kind: &'static str,
    status: String,
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
}

/// `lawsuite peers`.
pub fn peers(
    args: &crate::project_args::ProjectArgs,
    json: bool,
    settings: &lawsuite::conformance::config::Config,
) -> anyhow::Result<ExitCode> {
    let peers =
        crate::project_args::ProjectPeers::read(&args.project()?, None, settings.peer_options())?;
    let registry = peers.registry();
    let tree = TempTree::with_files(&[GeneratedFile::new("a.ts", "needle\n")])?;
    let root = tree.path().to_string_lossy().into_owned();
    let rows: Vec<Row> = registry
        .peers
        .iter()
        .map(|entry| smoke(entry, &root, entry.name == registry.reference))
        .collect();
    let failed = rows.iter().any(|r| !r.ok);
    let mut stdout = std::io::stdout().lock();
    if json {
        writeln!(stdout, "{}", serde_json::to_string_pretty(&rows)?)?;
    } else {
        // A peer's name, version, messages and stderr reach the terminal
        // and the CI log only escaped, each detail line behind the indent.
        let rows: Vec<Row> = rows
            .iter()
            .map(|r| Row {
                name: lawsuite::report::escaped(&r.name, ""),
                version: lawsuite::report::escaped(&r.version, ""),
                kind: r.kind,
                status: lawsuite::report::escaped(&r.status, "    "),
                ok: r.ok,
                detail: r
                    .detail
                    .as_deref()
                    .map(|d| lawsuite::report::escaped(d, "")),
            })
            .collect();
        let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(4).max(4);
        let vwidth = rows
            .iter()
            .map(|r| r.version.len())
            .max()
            .unwrap_or(7)
            .max(7);
        writeln!(stdout, "{:width$}  {:vwidth$}  STATUS", "NAME", "VERSION")?;
        for row in &rows {
            writeln!(
                stdout,
                "{:width$}  {:vwidth$}  {}",
                row.name, row.version, row.status
            )?;
            if let Some(detail) = &row.detail {
                for line in detail.lines() {
                    writeln!(stdout, "{:width$}  {line}", "")?;
                }
            }
        }
    }
    drop(stdout);
    if failed {
        let names: Vec<&str> = rows
            .iter()
            .filter(|r| !r.ok)
            .map(|r| r.name.as_str())
            .collect();
        eprintln!(
            "error: {} of {} registered peers cannot be used: {}",
            names.len(),
            rows.len(),
            names.join(", ")
        );
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Handshake (for an external peer) and one trivial call on a one-file tree.
fn smoke(entry: &Registered, root: &str, reference: bool) -> Row {
    let kind = if entry.external.is_some() {
        "external"
    } else {
        "builtin"
    };
    let mut row = Row {
        name: entry.name.clone(),
        version: "-".to_string(),
        kind,
        status: String::new(),
        ok: true,
        detail: None,
    };
    if reference {
        row.name.push_str(" (reference)");
    }
    let peer = match &entry.peer {
        Ok(peer) => peer,
        Err(why) => {
            // A registered peer that cannot run makes every run that
            // names it do less than it claims: a failed check, not a note.
            row.ok = false;
            row.status = format!("unavailable: {why}");
            return row;
        }
    };
    let started = Instant::now();
    if let Some(external) = &entry.external {
        match external.handshake() {
            Ok(h) => {
                // Its version is the row's VERSION column (`peer.version()`
                // is the handshake's), so the detail leaves it out.
                row.detail = Some(format!(
                    "{}{}, protocol {}, methods [{}], ground {}",
                    h.peer.name,
                    h.peer
                        .language
                        .as_ref()
                        .map_or_else(String::new, |l| format!(" ({l})")),
                    h.protocol,
                    h.capabilities.methods.join(", "),
                    h.capabilities.ground.name()
                ));
            }
            Err(fault) => {
                row.ok = false;
                row.status = format!("handshake failed: {} ({})", fault.message, fault.kind);
                row.detail = Some(format!("{fault}"));
                return row;
            }
        }
    }
    row.version = peer.version();
    let expected = format!("{}/a.ts", root.trim_end_matches('/'));
    let check = if peer.supports(lawsuite::peer::Method::Glob) {
        peer.glob(&GlobInput::new("*.ts", root))
            .map(|out| (out.paths == [expected.clone()], "glob"))
    } else if peer.supports(lawsuite::peer::Method::Grep) {
        peer.grep(&GrepInput::new("needle", root))
            .map(|out| (out.matches.len() == 1, "grep"))
    } else {
        Ok((true, "nothing declared"))
    };
    let elapsed = started.elapsed().as_millis();
    match check {
        Ok((true, what)) => row.status = format!("ok ({what} answered, {elapsed} ms)"),
        Ok((false, what)) => {
            row.ok = false;
            row.status = format!("wrong answer to a trivial {what} (expected {expected})");
        }
        Err(err) => {
            row.ok = false;
            // The first line: the fault log below carries the stderr tail.
            let first = err.message.lines().next().unwrap_or_default();
            row.status = format!("failed: {}: {first}", err.code);
        }
    }
    if let Some(health) = peer.health().filter(|h| h.faults > 0) {
        let detail = row.detail.take().unwrap_or_default();
        let faults = health.recent.join("\n- ");
        row.detail = Some(
            format!(
                "{detail}\n{} protocol fault(s); the last:\n- {faults}",
                health.faults
            )
            .trim()
            .to_string(),
        );
    }
    row
}
