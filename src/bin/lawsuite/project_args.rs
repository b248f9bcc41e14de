//! Where the command line finds a project's data, and its peers: the
//! one resolver every command that runs a registered peer goes through.
//!
//! The project is `--project`, else the first `lawsuite.toml` from the
//! working directory upwards, else the working directory with the
//! defaults; `--registry` overrides its peers. A project file (or
//! registry) that is there but cannot be read or parsed is an error
//! naming it, in every command: `call`, `bench` and `survey` (then `differ`) used to fall
//! back on the built-ins without a word.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, anyhow};
use lawsuite::conformance::peers::{self, PeerSet};
use lawsuite::peer::{Search, Subject, Unavailable};
use lawsuite::project::{Peers as PeerSource, Project};
use lawsuite::registry::{PeerOptions, Registry};

/// The options every command that uses peers takes.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Project")]
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
    /// The project, with `--registry` applied. Its errors stay typed
    /// ([`lawsuite::project::ProjectError`], naming the file).
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
            project.peers = PeerSource::File(absolute(registry));
        }
        Ok(project)
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

/// A project's peers, read once: every command resolves the names it is
/// given here, by [`lawsuite::conformance::peers`]'s one rule.
pub struct ProjectPeers {
    registry: Registry,
}

impl ProjectPeers {
    /// The peers of `project` (its `[[peer]]` tables or registry file, or
    /// the built-ins when it names none), started with `options`; with
    /// `only`, only those and the reference are started. A registry that
    /// cannot be read is an error naming the project and the file
    /// ([`lawsuite::registry::RegistryError`], kept typed).
    pub fn read(
        project: &Project,
        only: Option<&[String]>,
        options: &PeerOptions,
    ) -> anyhow::Result<ProjectPeers> {
        let registry = project
            .registry_for(only, options)
            .with_context(|| format!("the peers of the project {}", project.describe()))?;
        Ok(ProjectPeers { registry })
    }

    /// The registry, whole.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The reference and the chosen subjects (every registered peer when
    /// `wanted` is empty), the chosen peers that cannot run here each said
    /// on stderr (and kept, for a run, as a trial).
    pub fn set(&self, wanted: &[String]) -> anyhow::Result<PeerSet> {
        let set = PeerSet::from_registry(&self.registry, wanted)?;
        for u in &set.unavailable {
            eprintln!("warning: peer {} is not run: {}", u.name, u.why);
        }
        Ok(set)
    }

    /// The peers `names`, in order: each the registered one, else the
    /// built-in of that name; the ones that cannot run here with why.
    pub fn named(&self, names: &[String]) -> anyhow::Result<(Vec<Subject>, Vec<Unavailable>)> {
        Ok(peers::resolve(&self.registry, names)?)
    }

    /// The peer `name`, or why it cannot run here.
    pub fn one(&self, name: &str) -> anyhow::Result<Arc<dyn Search>> {
        let (subjects, unavailable) = self.named(&[name.to_string()])?;
        match (subjects.into_iter().next(), unavailable.into_iter().next()) {
            (Some(subject), _) => Ok(subject.peer().clone()),
            // The reason names the peer (`CannotRun`'s sentences do).
            (None, Some(u)) => Err(anyhow!(u.why)),
            (None, None) => Err(anyhow!("the peer {name:?} cannot be resolved")),
        }
    }
}

/// The peers to start for a command given `wanted` (`--peer`, repeatable):
/// those, when any is named (the reference is always started); else all.
pub fn named(wanted: &[String]) -> Option<&[String]> {
    (!wanted.is_empty()).then_some(wanted)
}

/// `path` made absolute against the working directory.
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
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
