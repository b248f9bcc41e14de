//! The peer registry: a peers file (`registry = "peers.toml"`, this
//! checkout's `peers/peers.toml`) or a project file's `[[peer]]` tables
//! name the peers that `cargo test` and the CLI run, and which one is the
//! reference.
//!
//! ```toml
//! reference = "portable"
//!
//! [[peer]]
//! name = "portable"
//! builtin = "portable"
//!
//! [[peer]]
//! name = "ripgrep"
//! builtin = "ripgrep"
//!
//! # An external peer over the stdio protocol (peers/PROTOCOL.md).
//! [[peer]]
//! name = "python-glob"
//! command = ["python3", "./examples/glob_peer.py"]
//! cwd = "."                 # relative to this file's directory (default: the harness's)
//! env = { PYTHONUNBUFFERED = "1" }
//! timeout_ms = 10000        # per call (the default)
//! handshake_timeout_ms = 60000  # to start and answer `initialize` (the default)
//! ```
//!
//! An external peer resolves to a [`crate::protocol::ExternalPeer`]: it is
//! an `Arc<dyn Search>` like the built-ins, started on first use. Its
//! program, when it holds a `/` (`.venv/bin/python`, `./peer`), and the
//! arguments starting with `./` or `../` are paths relative to this file's
//! directory, whichever directory the harness runs from; a bare program
//! name is looked up on `PATH`, and a missing program makes the peer
//! unavailable with the reason.
//!
//! A peer that cannot run here (no `rg`, say) is kept with the reason, so
//! the run reports it instead of silently doing less than it claims.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;

use crate::file_error::FileError;
pub use crate::peer::{Builtin, UnknownBuiltin};
use crate::peer::{Named, Noop, Search};
use crate::portable::Portable;
#[cfg(feature = "external")]
use crate::protocol::{ExternalPeer, PeerConfig};
use crate::ripgrep::{RgOptions, Ripgrep};

/// How a registry starts its peers: how the built-ins run `rg`, and the
/// timeouts of an external peer whose table sets none (`timeout_ms`,
/// `handshake_timeout_ms`). A run's
/// [`Config`](crate::conformance::config::Config) holds one, with the
/// environment overlaid; [`PeerOptions::default`] is every default, and
/// nothing here reads the environment.
///
/// ```
/// use std::time::Duration;
/// use lawsuite::registry::PeerOptions;
/// use lawsuite::ripgrep::RgOptions;
///
/// let options = PeerOptions::default()
///     .rg(RgOptions::default().timeout(Duration::from_secs(5)))
///     .call_timeout(Duration::from_secs(30));
/// assert_eq!(options.get_rg().get_timeout(), Duration::from_secs(5));
/// assert_eq!(options.get_handshake_timeout(), Duration::from_secs(60));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerOptions {
    rg: RgOptions,
    call_timeout: Duration,
    handshake_timeout: Duration,
}

impl Default for PeerOptions {
    fn default() -> PeerOptions {
        PeerOptions {
            rg: RgOptions::default(),
            call_timeout: crate::protocol::DEFAULT_CALL_TIMEOUT,
            handshake_timeout: crate::protocol::DEFAULT_HANDSHAKE_TIMEOUT,
        }
    }
}

impl PeerOptions {
    /// Run the built-ins' `rg` as `rg` says.
    pub fn rg(mut self, rg: RgOptions) -> PeerOptions {
        self.rg = rg;
        self
    }

    /// Give an external peer's calls `timeout` where its table sets none.
    pub fn call_timeout(mut self, timeout: Duration) -> PeerOptions {
        self.call_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// Give an external peer's start and handshake `timeout` where its
    /// table sets none.
    pub fn handshake_timeout(mut self, timeout: Duration) -> PeerOptions {
        self.handshake_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// How the built-ins run `rg`.
    pub fn get_rg(&self) -> &RgOptions {
        &self.rg
    }

    /// An external peer's per-call timeout where its table sets none.
    pub fn get_call_timeout(&self) -> Duration {
        self.call_timeout
    }

    /// An external peer's handshake timeout where its table sets none.
    pub fn get_handshake_timeout(&self) -> Duration {
        self.handshake_timeout
    }
}

/// The registry file's shape.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    reference: String,
    #[serde(rename = "peer", default)]
    peers: Vec<PeerEntry>,
}

/// One `[[peer]]` table, in a registry file or inline in a project file
/// (`lawsuite.toml`, [`crate::project`]).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeerEntry {
    /// The registered name: what trials, reports and expected failures
    /// call the peer.
    pub name: String,
    /// A built-in peer's name ([`Builtin`]), as written: it is read into a
    /// `Builtin` when the registry is loaded, and a name that is none is
    /// an error there.
    #[serde(default)]
    pub builtin: Option<String>,
    /// An external peer's program and arguments: a program holding a `/`
    /// and arguments starting with `./` or `../` are relative to the file.
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// An external peer's working directory, relative to the file.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// Variables added to an external peer's environment.
    #[serde(default)]
    pub env: Option<BTreeMap<String, String>>,
    /// An external peer's per-call timeout.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// How long an external peer may take to start and answer `initialize`.
    #[serde(default)]
    pub handshake_timeout_ms: Option<u64>,
}

/// A registered peer: ready to call, or unavailable with the reason.
#[derive(Clone)]
pub struct Registered {
    /// Its registered name.
    pub name: String,
    /// The built-in it is, if it is one: lawsuite's own expected failures
    /// for that built-in apply to it, whatever it is registered as.
    pub builtin: Option<Builtin>,
    /// The peer, or why it cannot run here (with what to do about it).
    pub peer: Result<Arc<dyn Search>, CannotRun>,
    /// The protocol client, for an external peer that can run here.
    #[cfg(feature = "external")]
    pub external: Option<Arc<ExternalPeer>>,
}

impl Registered {
    /// The peer as a run takes it, or why it cannot run here.
    pub fn subject(&self) -> Result<crate::peer::Subject, CannotRun> {
        self.peer
            .clone()
            .map(|peer| crate::peer::Subject::registered(&self.name, self.builtin, peer))
    }
}

impl fmt::Debug for Registered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registered")
            .field("name", &self.name)
            .field("available", &self.peer.is_ok())
            .finish()
    }
}

/// The peers to run and the reference's name.
///
/// A registry also resolves names that no table registers but a built-in
/// has ([`crate::conformance::peers::resolve`]): those built-ins start
/// with the same [`PeerOptions`] as its own peers.
#[derive(Clone, Debug)]
pub struct Registry {
    /// The reference peer's name.
    pub reference: String,
    /// Every registered peer, in file order.
    pub peers: Vec<Registered>,
    /// How its peers were started.
    options: PeerOptions,
}

/// A registry file that cannot be used.
#[derive(Debug)]
pub enum RegistryError {
    /// Not readable.
    File(FileError),
    /// Not valid.
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the line when known.
        message: String,
    },
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::File(e) => write!(
                f,
                "Could not read the peer registry {} ({}); check the path given by --registry or by `registry` in lawsuite.toml.",
                e.path().display(),
                e.kind()
            ),
            RegistryError::Invalid { path, message } => write!(
                f,
                "The peer registry {} is not valid: {message}",
                path.display()
            ),
        }
    }
}

impl std::error::Error for RegistryError {}

/// Why a registered peer cannot run here, with what to do about it: the
/// peer is skipped (its trials say why), never silently dropped.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum CannotRun {
    /// A name that is not a built-in peer's.
    Unknown(UnknownBuiltin),
    /// No suitable `rg` for a ripgrep built-in.
    Ripgrep {
        /// The built-in ([`Builtin::Ripgrep`] or [`Builtin::RipgrepWalk`]).
        builtin: Builtin,
        /// Why.
        why: crate::ripgrep::RgUnavailable,
    },
    /// No suitable `git` for the git built-in.
    Git {
        /// Why.
        why: crate::git::GitUnavailable,
    },
    /// An external peer whose `cwd` is not a directory.
    Cwd {
        /// The peer.
        peer: String,
        /// Its `cwd`, resolved against the registry's directory.
        cwd: PathBuf,
    },
    /// An external peer whose program is not on `PATH`.
    NotOnPath {
        /// The peer.
        peer: String,
        /// The program.
        program: String,
    },
    /// An external peer whose client could not be made (shared: a
    /// registry's answer is handed to every run that asks).
    #[cfg(feature = "external")]
    Start(Arc<crate::protocol::StartError>),
    /// An external peer, and this lawsuite is built without the
    /// `external` feature.
    NoExternal {
        /// The peer.
        peer: String,
    },
    /// A registered peer the registry was read without: read with `only`
    /// naming other peers ([`Registry::from_entries_for`]).
    NotStarted {
        /// The peer.
        peer: String,
    },
}

impl fmt::Display for CannotRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CannotRun::Unknown(e) => e.fmt(f),
            CannotRun::Ripgrep { builtin, why } => {
                write!(f, "the {builtin} peer cannot run: {why}")
            }
            CannotRun::Git { why } => write!(f, "the git peer cannot run: {why}"),
            CannotRun::Cwd { peer, cwd } => write!(
                f,
                "peer {peer:?}: its cwd {} is not a directory",
                cwd.display()
            ),
            CannotRun::NotOnPath { peer, program } => write!(
                f,
                "peer {peer:?} needs `{program}`, which is not on PATH; install it to run this peer"
            ),
            #[cfg(feature = "external")]
            CannotRun::Start(e) => e.fmt(f),
            CannotRun::NoExternal { peer } => write!(
                f,
                "peer {peer:?} is an external peer, and this lawsuite is built without the `external` feature; enable it (it is on by default) to run external peers"
            ),
            CannotRun::NotStarted { peer } => write!(
                f,
                "peer {peer:?} was not started: the registry was read for other peers only; read it with `only` naming {peer:?} (or none) to run it"
            ),
        }
    }
}

impl std::error::Error for CannotRun {}

/// The built-in peers by name, or why the name is not one.
pub fn builtin(name: &str, options: &PeerOptions) -> Result<Arc<dyn Search>, CannotRun> {
    let builtin: Builtin = name.parse().map_err(CannotRun::Unknown)?;
    start(builtin, options)
}

/// A built-in peer, or why it cannot run here (no `rg`, no `git`).
pub fn start(builtin: Builtin, options: &PeerOptions) -> Result<Arc<dyn Search>, CannotRun> {
    let no_rg = |why: &crate::ripgrep::RgUnavailable| CannotRun::Ripgrep {
        builtin,
        why: why.clone(),
    };
    match builtin {
        Builtin::Portable => Ok(Arc::new(Portable::default())),
        Builtin::Model => Ok(Arc::new(crate::model::Model)),
        Builtin::Noop => Ok(Arc::new(Noop)),
        Builtin::Ripgrep => {
            let rg = Ripgrep::with_options(options.rg.clone());
            match rg.availability() {
                Ok(_) => Ok(Arc::new(rg)),
                Err(why) => Err(no_rg(why)),
            }
        }
        Builtin::RipgrepWalk => {
            let rg = crate::ripgrep::RipgrepWalk::with_options(options.rg.clone());
            match rg.availability() {
                Ok(_) => Ok(Arc::new(rg)),
                Err(why) => Err(no_rg(why)),
            }
        }
        Builtin::Git => {
            let git = crate::git::Git::default();
            match git.availability() {
                Ok(_) => Ok(Arc::new(git)),
                Err(why) => Err(CannotRun::Git { why: why.clone() }),
            }
        }
    }
}

impl Registry {
    /// How the registry started its peers: the built-ins it resolves by
    /// name start the same way.
    pub fn options(&self) -> &PeerOptions {
        &self.options
    }

    /// The registered names, comma-separated, for error messages.
    pub fn names(&self) -> String {
        self.peers
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The registry used where a project names none: the built-in
    /// `portable` as the reference, with `ripgrep` and `ripgrep-walk`
    /// (each unavailable, with the reason, where `rg` is missing), started
    /// with [`PeerOptions::default`].
    pub fn builtins() -> Registry {
        Registry::builtins_for(None, &PeerOptions::default())
    }

    /// [`Registry::builtins`] started with `options`; with `only`, only
    /// those peers and the reference are started (see
    /// [`Registry::from_entries_for`]).
    pub fn builtins_for(only: Option<&[String]>, options: &PeerOptions) -> Registry {
        let entries: Vec<PeerEntry> = ["portable", "ripgrep", "ripgrep-walk"]
            .into_iter()
            .map(|name| PeerEntry {
                name: name.into(),
                builtin: Some(name.into()),
                command: None,
                cwd: None,
                env: None,
                timeout_ms: None,
                handshake_timeout_ms: None,
            })
            .collect();
        let (base, path) = (Path::new("."), Path::new("(built-in)"));
        match Registry::from_entries_for("portable", entries, base, path, only, options) {
            Ok(registry) => registry,
            // The entries above are all well-formed built-ins.
            Err(e) => unreachable!("the built-in registry is valid: {e}"),
        }
    }

    /// Load and resolve a registry file, starting its peers with
    /// [`PeerOptions::default`].
    pub fn load(path: &Path) -> Result<Registry, RegistryError> {
        Registry::load_for(path, None, &PeerOptions::default())
    }

    /// [`Registry::load`] starting its peers with `options`; with `only`,
    /// only those peers and the reference are started (see
    /// [`Registry::from_entries_for`]).
    pub fn load_for(
        path: &Path,
        only: Option<&[String]>,
        options: &PeerOptions,
    ) -> Result<Registry, RegistryError> {
        let text = FileError::read_to_string(path).map_err(RegistryError::File)?;
        let file: File = toml::from_str(&text).map_err(|e| RegistryError::Invalid {
            path: path.into(),
            message: e.to_string(),
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        Registry::from_entries_for(&file.reference, file.peers, base, path, only, options)
    }

    /// Resolve `entries` (with `reference` among them); relative paths are
    /// relative to `base`, and `path` names the file in errors. Peers are
    /// started with [`PeerOptions::default`].
    pub fn from_entries(
        reference: &str,
        entries: Vec<PeerEntry>,
        base: &Path,
        path: &Path,
    ) -> Result<Registry, RegistryError> {
        Registry::from_entries_for(
            reference,
            entries,
            base,
            path,
            None,
            &PeerOptions::default(),
        )
    }

    /// [`Registry::from_entries`] starting its peers with `options`. With
    /// `only`, every entry is still checked and kept, but only the peers
    /// it names and the reference are started; the others are
    /// [`CannotRun::NotStarted`]. A built-in `ripgrep` or `ripgrep-walk`
    /// runs `rg --version` to learn whether it can run, two processes
    /// (about 5 ms of CPU) that one call to `portable` never needed.
    ///
    /// ```
    /// use std::path::Path;
    /// use lawsuite::registry::{PeerEntry, PeerOptions, Registry};
    ///
    /// let entry = |name: &str| PeerEntry {
    ///     name: name.into(),
    ///     builtin: Some(name.into()),
    ///     command: None,
    ///     cwd: None,
    ///     env: None,
    ///     timeout_ms: None,
    ///     handshake_timeout_ms: None,
    /// };
    /// let only = ["model".to_string()];
    /// let registry = Registry::from_entries_for(
    ///     "portable",
    ///     vec![entry("portable"), entry("model"), entry("noop")],
    ///     Path::new("."),
    ///     Path::new("peers.toml"),
    ///     Some(&only),
    ///     &PeerOptions::default(),
    /// )?;
    /// // Every name is still registered, so messages list them all.
    /// assert_eq!(registry.names(), "portable, model, noop");
    /// let started: Vec<bool> = registry.peers.iter().map(|p| p.peer.is_ok()).collect();
    /// assert_eq!(started, [true, true, false]);
    /// # Ok::<(), lawsuite::registry::RegistryError>(())
    /// ```
    pub fn from_entries_for(
        reference: &str,
        entries: Vec<PeerEntry>,
        base: &Path,
        path: &Path,
        only: Option<&[String]>,
        options: &PeerOptions,
    ) -> Result<Registry, RegistryError> {
        // Only external peers have paths to resolve.
        let _ = base;
        let mut peers: Vec<Registered> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for entry in entries {
            if names.contains(&entry.name) {
                return Err(RegistryError::Invalid {
                    path: path.into(),
                    message: format!(
                        "the peer name {:?} is registered twice; names must be unique",
                        entry.name
                    ),
                });
            }
            names.push(entry.name.clone());
            let wanted =
                entry.name == reference || only.is_none_or(|names| names.contains(&entry.name));
            let not_started = || CannotRun::NotStarted {
                peer: entry.name.clone(),
            };
            #[cfg(feature = "external")]
            let mut external = None;
            let external_only = entry.cwd.is_some()
                || entry.env.is_some()
                || entry.timeout_ms.is_some()
                || entry.handshake_timeout_ms.is_some();
            // The built-in's name is read here, once; what follows holds
            // a `Builtin`.
            let kind = match &entry.builtin {
                Some(name) => match name.parse::<Builtin>() {
                    Ok(b) => Some(b),
                    Err(unknown) => {
                        return Err(RegistryError::Invalid {
                            path: path.into(),
                            message: format!("peer {:?}: {unknown}", entry.name),
                        });
                    }
                },
                None => None,
            };
            let peer = match (kind, &entry.command) {
                (Some(_), None) if external_only => {
                    return Err(RegistryError::Invalid {
                        path: path.into(),
                        message: format!(
                            "peer {:?} is built in; `cwd`, `env`, `timeout_ms` and `handshake_timeout_ms` are only for external peers (`command`)",
                            entry.name
                        ),
                    });
                }
                (Some(_), None) if !wanted => Err(not_started()),
                (Some(b), None) => start(b, options).map(|peer| Named::wrap(&entry.name, peer)),
                (None, Some(command)) if command.is_empty() => {
                    return Err(RegistryError::Invalid {
                        path: path.into(),
                        message: format!(
                            "peer {:?} has an empty `command`; give the program and its arguments",
                            entry.name
                        ),
                    });
                }
                (None, Some(_)) if !wanted => Err(not_started()),
                #[cfg(feature = "external")]
                (None, Some(command)) => {
                    let peer = external_config(&entry, command, base, options).and_then(|config| {
                        ExternalPeer::new(config).map_err(|e| CannotRun::Start(Arc::new(e)))
                    });
                    match peer {
                        Ok(peer) => {
                            let peer = Arc::new(peer);
                            external = Some(peer.clone());
                            Ok(peer as Arc<dyn Search>)
                        }
                        Err(why) => Err(why),
                    }
                }
                #[cfg(not(feature = "external"))]
                (None, Some(_)) => Err(CannotRun::NoExternal {
                    peer: entry.name.clone(),
                }),
                _ => {
                    return Err(RegistryError::Invalid {
                        path: path.into(),
                        message: format!(
                            "peer {:?} must set exactly one of `builtin` or `command`",
                            entry.name
                        ),
                    });
                }
            };
            peers.push(Registered {
                name: entry.name,
                builtin: kind,
                peer,
                #[cfg(feature = "external")]
                external,
            });
        }
        if !names.iter().any(|name| name == reference) {
            return Err(RegistryError::Invalid {
                path: path.into(),
                message: format!(
                    "the reference {reference:?} is not one of the registered peers ({})",
                    names.join(", ")
                ),
            });
        }
        Ok(Registry {
            reference: reference.to_string(),
            peers,
            options: options.clone(),
        })
    }
}

/// The client configuration of an external entry, or why it cannot run here.
#[cfg(feature = "external")]
fn external_config(
    entry: &PeerEntry,
    command: &[String],
    base: &Path,
    options: &PeerOptions,
) -> Result<PeerConfig, CannotRun> {
    let cwd = entry.cwd.as_ref().map(|dir| base.join(dir));
    if let Some(cwd) = cwd.as_ref().filter(|c| !c.is_dir()) {
        return Err(CannotRun::Cwd {
            peer: entry.name.clone(),
            cwd: cwd.clone(),
        });
    }
    let command = resolve_command(command, base);
    if !command[0].contains('/') && find_on_path(&command[0]).is_none() {
        return Err(CannotRun::NotOnPath {
            peer: entry.name.clone(),
            program: command[0].clone(),
        });
    }
    let mut config = PeerConfig::new(entry.name.clone(), command);
    config.cwd = cwd;
    config.env = entry.env.clone().unwrap_or_default();
    config.timeout = options.call_timeout;
    config.handshake_timeout = options.handshake_timeout;
    if let Some(ms) = entry.timeout_ms {
        config.timeout = Duration::from_millis(ms.max(1));
    }
    if let Some(ms) = entry.handshake_timeout_ms {
        config.handshake_timeout = Duration::from_millis(ms.max(1));
    }
    Ok(config)
}

/// `command` with its paths made the registry file's: the program when it
/// holds a `/` (`.venv/bin/python`, `./peer`), and any argument that starts
/// with `./` or `../`, joined to `base` (the directory of the file that
/// declares the peer) and made absolute. A bare program name is left for
/// `PATH`, and absolute paths are left as they are.
///
/// Why: the harness may run from any directory below the project (it finds
/// `lawsuite.toml` upwards, as cargo finds `Cargo.toml`), so a path that
/// meant the project's file from its own directory must mean it from a
/// subdirectory too; `command = [".venv/bin/python", …]` used to fail there
/// with "could not start". Absolute, because the process may be started in
/// another directory (`cwd`), where a relative program would be ambiguous.
/// Only arguments spelt `./` or `../` are paths for certain: `src/x` could
/// be a pattern or a flag's value, and is passed as written.
#[cfg(feature = "external")]
fn resolve_command(command: &[String], base: &Path) -> Vec<String> {
    let base = std::path::absolute(base).unwrap_or_else(|_| base.to_path_buf());
    let in_base = |part: &str| base.join(part).to_string_lossy().into_owned();
    command
        .iter()
        .enumerate()
        .map(|(at, part)| {
            let program_path = at == 0 && part.contains('/');
            let relative_arg = part.starts_with("./") || part.starts_with("../");
            if Path::new(part).is_absolute() || !(program_path || relative_arg) {
                part.clone()
            } else {
                in_base(part)
            }
        })
        .collect()
}

/// The first `PATH` entry holding a file named `program`.
#[cfg(feature = "external")]
fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

#[cfg(all(test, feature = "external"))]
mod tests {
    use super::*;

    #[test]
    fn a_peer_table_sets_its_call_and_handshake_timeouts_apart() {
        let entry: PeerEntry = toml::from_str(
            "name = \"slow\"\ncommand = [\"/bin/true\"]\ntimeout_ms = 500\nhandshake_timeout_ms = 90000\n",
        )
        .unwrap();
        let command = entry.command.clone().unwrap();
        let defaults = PeerOptions::default();
        let config = external_config(&entry, &command, Path::new("."), &defaults).unwrap();
        assert_eq!(config.timeout, Duration::from_millis(500));
        assert_eq!(config.handshake_timeout, Duration::from_secs(90));
        let plain: PeerEntry = toml::from_str("name = \"p\"\ncommand = [\"/bin/true\"]\n").unwrap();
        let config = external_config(&plain, &command, Path::new("."), &defaults).unwrap();
        assert_eq!(config.timeout, Duration::from_secs(10));
        assert_eq!(config.handshake_timeout, Duration::from_secs(60));
        // The run's options set what a table leaves unset, never what it sets.
        let options = defaults
            .call_timeout(Duration::from_secs(3))
            .handshake_timeout(Duration::from_secs(4));
        let config = external_config(&plain, &command, Path::new("."), &options).unwrap();
        assert_eq!(config.timeout, Duration::from_secs(3));
        assert_eq!(config.handshake_timeout, Duration::from_secs(4));
        let config = external_config(&entry, &command, Path::new("."), &options).unwrap();
        assert_eq!(config.timeout, Duration::from_millis(500));
    }

    #[test]
    fn a_program_with_a_slash_and_dotted_arguments_are_the_files() {
        let base = Path::new("/project");
        let words = |list: &[&str]| list.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        // The program: any `/` makes it a path of the project.
        assert_eq!(
            resolve_command(&words(&[".venv/bin/python", "./peer.py", "src/x"]), base),
            words(&["/project/.venv/bin/python", "/project/./peer.py", "src/x"])
        );
        assert_eq!(
            resolve_command(&words(&["./peer", "../shared/x.js"]), base),
            words(&["/project/./peer", "/project/../shared/x.js"])
        );
        // A bare name is PATH's, an absolute path is itself.
        assert_eq!(
            resolve_command(&words(&["python3", "/opt/peer.py", "a/b"]), base),
            words(&["python3", "/opt/peer.py", "a/b"])
        );
        assert_eq!(
            resolve_command(&words(&["/usr/bin/node", "./p.mjs"]), base),
            words(&["/usr/bin/node", "/project/./p.mjs"])
        );
        // A relative base (a `--registry peers/peers.toml`) is made absolute.
        let here = std::env::current_dir().unwrap();
        assert_eq!(
            resolve_command(&words(&["bin/peer"]), Path::new("peers")),
            words(&[&here.join("peers/bin/peer").to_string_lossy()])
        );
    }
}
