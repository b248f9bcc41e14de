//! Where the command line finds a project's data: `--project`, else the
//! first `lawsuite.toml` from the working directory upwards, else the
//! working directory with the defaults; `--registry` overrides its peers.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, anyhow};
use lawsuite::conformance::peers;
use lawsuite::peer::{Search, Subject, Unavailable};
use lawsuite::project::{Peers, Project};
use lawsuite::registry::{PeerOptions, Registry};

/// The options every command that uses peers takes.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ProjectArgs {
    /// The project file (default: the first lawsuite.toml in the working
    /// directory or above it).
    #[arg(long, value_name = "FILE", global = true)]
    pub project: Option<PathBuf>,
    /// A peer registry (peers.toml format) to use instead of the project's
    /// peers.
    #[arg(long, value_name = "FILE", global = true)]
    pub registry: Option<PathBuf>,
}

impl ProjectArgs {
    /// The project, with `--registry` applied.
    pub fn project(&self) -> anyhow::Result<Project> {
        let mut project = match &self.project {
            Some(file) => Project::load(file)?,
            None => {
                let here =
                    std::env::current_dir().context("the working directory cannot be read")?;
                Project::discover(&here)?
            }
        };
        if let Some(registry) = &self.registry {
            project.peers = Peers::File(absolute(registry));
        }
        Ok(project)
    }

    /// The project's peers, started with `options`.
    pub fn registry(&self, options: &PeerOptions) -> anyhow::Result<Registry> {
        let project = self.project()?;
        project
            .registry(options)
            .with_context(|| format!("the peers of the project {}", project.describe()))
    }

    /// These options as flags a replay command repeats (absolute paths, so
    /// the command works from anywhere).
    pub fn flags(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (flag, path) in [("--project", &self.project), ("--registry", &self.registry)] {
            if let Some(path) = path {
                out.push(flag.to_string());
                out.push(absolute(path).display().to_string());
            }
        }
        out
    }
}

/// `path` made absolute against the working directory.
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A registered peer by name (external ones included), else a built-in
/// ([`lawsuite::conformance::peers::resolve`]), started with `options`.
pub fn resolve(
    name: &str,
    args: &ProjectArgs,
    options: &PeerOptions,
) -> anyhow::Result<Arc<dyn Search>> {
    // Only the named peer is built: building the others cost `lawsuite call
    // --peer portable` two `rg --version` processes (5 ms of CPU).
    let registry = args
        .project()
        .and_then(|p| Ok(p.registry_for(Some(name), options)?))
        .map_err(|e| format!("{e:#}"));
    let names = [name.to_string()];
    let (subjects, unavailable) =
        match peers::resolve(registry.as_ref().map_err(String::as_str), &names, options) {
            Ok(resolved) => resolved,
            // The registry built for one name lists only it: name them all.
            Err(peers::PeerError::Unknown { name, .. }) => {
                let registered = match args.registry(options) {
                    Ok(registry) => registry.names(),
                    Err(e) => format!("none (the registry cannot be read: {e:#})"),
                };
                return Err(peers::PeerError::Unknown { name, registered }.into());
            }
            Err(e) => return Err(e.into()),
        };
    match (subjects.into_iter().next(), unavailable.into_iter().next()) {
        (Some(subject), _) => Ok(subject.peer),
        (None, Some(u)) => Err(anyhow!(u.why)),
        (None, None) => Err(anyhow!("the peer {name:?} cannot be resolved")),
    }
}

/// The peers `names`, in order ([`lawsuite::conformance::peers::resolve`]):
/// the project's registered ones by name, else built-ins; the ones that
/// cannot run here with why. A name that is neither is an error listing
/// the registered names.
pub fn resolve_peers(
    names: &[String],
    project: &ProjectArgs,
    options: &PeerOptions,
) -> anyhow::Result<(Vec<Subject>, Vec<Unavailable>)> {
    let loaded = project.registry(options).map_err(|e| format!("{e:#}"));
    let (subjects, unavailable) =
        peers::resolve(loaded.as_ref().map_err(String::as_str), names, options)?;
    let unavailable = unavailable
        .into_iter()
        .map(|u| Unavailable {
            name: u.name,
            why: with_install_hint(u.why),
        })
        .collect();
    Ok((subjects, unavailable))
}

/// Make sure a missing `rg` says how to get one.
fn with_install_hint(reason: String) -> String {
    if reason.contains("rg") && !reason.contains("cargo install ripgrep") {
        format!("{reason}; install rg with `cargo install ripgrep --locked`")
    } else {
        reason
    }
}

/// How this binary was invoked, for replay commands: its name when it was
/// found on `PATH`, else its absolute path.
pub fn program() -> String {
    let argv0 = std::env::args().next().unwrap_or_else(|| "lawsuite".into());
    if !argv0.contains('/') {
        return argv0;
    }
    std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok())
        .map_or(argv0, |p| p.display().to_string())
}
