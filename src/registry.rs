//! The peer registry: `peers/peers.toml` names the peers that `cargo test`
//! and the CLI run, and which one is the reference.
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
//! ```
//!
//! A peer that cannot run here (no `rg`, say) is kept with the reason, so
//! the run reports it instead of silently doing less than it claims.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use crate::peer::{Noop, Search};
use crate::portable::Portable;
use crate::ripgrep::Ripgrep;

/// The registry file's shape.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    reference: String,
    #[serde(rename = "peer", default)]
    peers: Vec<Entry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    name: String,
    #[serde(default)]
    builtin: Option<String>,
    #[serde(default)]
    command: Option<Vec<String>>,
}

/// A registered peer: ready to call, or unavailable with the reason.
#[derive(Clone)]
pub struct Registered {
    /// Its registered name.
    pub name: String,
    /// The peer, or why it cannot run here (with what to do about it).
    pub peer: Result<Arc<dyn Search>, String>,
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
#[derive(Clone, Debug)]
pub struct Registry {
    /// The reference peer's name.
    pub reference: String,
    /// Every registered peer, in file order.
    pub peers: Vec<Registered>,
}

/// A registry file that cannot be used.
#[derive(Debug)]
pub enum RegistryError {
    /// Not readable.
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
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
            RegistryError::Io { path, source } => write!(
                f,
                "Could not read the peer registry {} ({source}); run from the lawsuite checkout or pass the registry's path.",
                path.display()
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

/// The names of the built-in peers.
pub const BUILTINS: [&str; 4] = ["portable", "ripgrep", "ripgrep-walk", "noop"];

/// The built-in peers by name, or why the name is not one.
pub fn builtin(name: &str) -> Result<Arc<dyn Search>, String> {
    match name {
        "portable" => Ok(Arc::new(Portable::default())),
        "noop" => Ok(Arc::new(Noop)),
        "ripgrep" => {
            let rg = Ripgrep::default();
            match rg.availability() {
                Ok(_) => Ok(Arc::new(rg)),
                Err(why) => Err(format!("the ripgrep peer cannot run: {why}")),
            }
        }
        "ripgrep-walk" => {
            let rg = crate::ripgrep::RipgrepWalk::default();
            match rg.availability() {
                Ok(_) => Ok(Arc::new(rg)),
                Err(why) => Err(format!("the ripgrep-walk peer cannot run: {why}")),
            }
        }
        other => Err(format!(
            "{other:?} is not a built-in peer; the built-in peers are {}",
            BUILTINS.join(", ")
        )),
    }
}

impl Registry {
    /// The registry shipped with lawsuite (`peers/peers.toml`).
    pub fn default_path() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("peers")
            .join("peers.toml")
    }

    /// Load and resolve a registry file.
    pub fn load(path: &Path) -> Result<Registry, RegistryError> {
        let text = std::fs::read_to_string(path).map_err(|source| RegistryError::Io {
            path: path.into(),
            source,
        })?;
        let file: File = toml::from_str(&text).map_err(|e| RegistryError::Invalid {
            path: path.into(),
            message: e.to_string(),
        })?;
        let mut peers = Vec::new();
        for entry in file.peers {
            let peer = match (&entry.builtin, &entry.command) {
                (Some(b), None) => builtin(b),
                (None, Some(_)) => Err(format!(
                    "peer {:?} is an external program; external peers over the stdio protocol are not implemented yet, so it is not run",
                    entry.name
                )),
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
                peer,
            });
        }
        if !peers.iter().any(|p| p.name == file.reference) {
            return Err(RegistryError::Invalid {
                path: path.into(),
                message: format!(
                    "the reference {:?} is not one of the registered peers",
                    file.reference
                ),
            });
        }
        Ok(Registry {
            reference: file.reference,
            peers,
        })
    }
}
