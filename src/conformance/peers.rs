//! Which peers a run holds: the one place where a registry's entries
//! become [`Subject`]s (the reference, the peers under test) and the peers
//! that cannot run here, each with the reason.
//!
//! Every front door resolves peers here, by one rule ([`resolve`]): a
//! name is the registry's peer of that name, else the built-in of that
//! name, else an error listing the registered names. `cargo test`
//! ([`crate::suite`]) and `lawsuite run`, `fuzz`, `shrink` and `record`
//! take a [`PeerSet`]; `call`, `bench` and `survey` the peers they name.
//! The registry is the project's, read before: a project file or registry
//! that cannot be read is that error ([`crate::project::ProjectError`],
//! [`crate::registry::RegistryError`]), never a reason to fall back on
//! the built-ins. A peer that cannot start is never dropped without a
//! word: it becomes an [`Unavailable`] the report shows (or, for the
//! reference, a [`PeerError`] the run stops on), so the user reads *why*.
//!
//! ```
//! use lawsuite::conformance::peers::PeerSet;
//! use lawsuite::registry::Registry;
//!
//! let set = PeerSet::from_registry(&Registry::builtins(), &[])?;
//! assert_eq!(set.reference.name(), "portable");
//! // `ripgrep` and `ripgrep-walk` are subjects where `rg` runs, and
//! // unavailable (with the reason) where it does not.
//! assert_eq!(set.subjects.len() + set.unavailable.len(), 2);
//! # Ok::<(), lawsuite::conformance::peers::PeerError>(())
//! ```

use std::fmt;

pub use crate::peer::{Subject, Unavailable};
use crate::registry::{Builtin, PeerOptions, Registered, Registry};

/// The peers of one run: the reference, the subjects, and the chosen
/// peers that cannot run here.
#[derive(Clone, Debug)]
pub struct PeerSet {
    /// The peer every other is compared with.
    pub reference: Subject,
    /// The peers under test: in registry order, or in the order named.
    pub subjects: Vec<Subject>,
    /// Chosen peers that cannot run here, in the same order.
    pub unavailable: Vec<Unavailable>,
}

/// Peers that cannot make a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PeerError {
    /// A name that is neither registered nor built in.
    Unknown {
        /// The name asked for.
        name: String,
        /// The registered names, comma-separated.
        registered: String,
    },
    /// The reference is registered but cannot run here.
    ReferenceUnavailable {
        /// Its name.
        name: String,
        /// Why.
        why: String,
    },
    /// The registry names a reference it does not hold.
    NoReference {
        /// The name it gives.
        name: String,
    },
    /// The same peer asked for twice.
    Twice {
        /// The name.
        name: String,
    },
}

impl fmt::Display for PeerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PeerError::Unknown { name, registered } => write!(
                f,
                "no peer named {name:?} is registered; the registered peers are: {registered} (built-ins: {}); register it in lawsuite.toml, or name the file that registers it with --registry FILE (a peers.toml) or --project FILE (a lawsuite.toml)",
                Builtin::names()
            ),
            PeerError::ReferenceUnavailable { name, why } => {
                write!(f, "the reference peer {name} cannot run here: {why}")
            }
            PeerError::NoReference { name } => write!(
                f,
                "the reference {name:?} is not registered; register it, or name a registered peer as the reference"
            ),
            PeerError::Twice { name } => {
                write!(f, "the peer {name:?} is named twice; name each peer once")
            }
        }
    }
}

impl std::error::Error for PeerError {}

impl PeerSet {
    /// A set of peers given in code (every one available).
    pub fn new(reference: Subject, subjects: Vec<Subject>) -> PeerSet {
        PeerSet {
            reference,
            subjects,
            unavailable: Vec::new(),
        }
    }

    /// The registry's reference, and as subjects: every other registered
    /// peer when `wanted` is empty, else the peers `wanted` names, in that
    /// order, each resolved as [`resolve`] resolves a name (the
    /// reference, when named, is the reference and no subject). Chosen
    /// peers that cannot run are [`Unavailable`]; a reference that cannot
    /// run is an error with its reason.
    pub fn from_registry(registry: &Registry, wanted: &[String]) -> Result<PeerSet, PeerError> {
        once_each(wanted)?;
        let reference = match registry.peers.iter().find(|p| p.name == registry.reference) {
            Some(entry) => entry
                .subject()
                .map_err(|why| PeerError::ReferenceUnavailable {
                    name: entry.name.clone(),
                    why: why.to_string(),
                })?,
            None => {
                return Err(PeerError::NoReference {
                    name: registry.reference.clone(),
                });
            }
        };
        let mut subjects = Vec::new();
        let mut unavailable = Vec::new();
        let mut add = |resolved| match resolved {
            Ok(subject) => subjects.push(subject),
            Err(u) => unavailable.push(u),
        };
        if wanted.is_empty() {
            for entry in registry.peers.iter().filter(|p| p.name != reference.name()) {
                add(registered(entry));
            }
        } else {
            for name in wanted.iter().filter(|n| **n != reference.name()) {
                add(lookup(registry, name)?);
            }
        }
        Ok(PeerSet {
            reference,
            subjects,
            unavailable,
        })
    }

    /// The reference, then the subjects.
    pub fn available(&self) -> impl Iterator<Item = &Subject> {
        std::iter::once(&self.reference).chain(&self.subjects)
    }
}

/// The built-in `builtin` registered as `name`, or why it cannot run here
/// ([`crate::suite::Suite::builtin_peer`]), started with `options`.
pub fn builtin_subject(
    name: &str,
    builtin: Builtin,
    options: &PeerOptions,
) -> Result<Subject, Unavailable> {
    crate::registry::start(builtin, options)
        .map(|peer| Subject::from_builtin(name, builtin, peer))
        .map_err(|why| Unavailable {
            name: name.to_string(),
            why: why.to_string(),
        })
}

/// The peers `names`, in order, each the registry's peer of that name or
/// else the built-in of that name, started as the registry's own peers
/// are ([`Registry::options`]). A name that is neither, or a name given
/// twice, is an error; a peer that cannot run is [`Unavailable`].
///
/// This is the one rule every front door resolves names by:
/// [`PeerSet::from_registry`] (`cargo test`, `lawsuite run`, `fuzz`,
/// `shrink`, `record`) and `lawsuite call`, `bench` and `survey` alike.
/// It takes a registry, never "a registry or why there is none": a
/// project whose file or registry cannot be read is an error before any
/// name is resolved ([`crate::project::Project::registry`]), and a
/// project with no file has the built-in registry ([`Registry::builtins`]).
///
/// ```
/// use lawsuite::conformance::peers::resolve;
/// use lawsuite::registry::Registry;
///
/// // `model` is no peer of the built-in registry, but it is a built-in.
/// let (subjects, _) = resolve(&Registry::builtins(), &["portable".into(), "model".into()])?;
/// let names: Vec<&str> = subjects.iter().map(|s| s.name()).collect();
/// assert_eq!(names, ["portable", "model"]);
/// let err = resolve(&Registry::builtins(), &["mine".into()]).unwrap_err();
/// assert!(err.to_string().contains("no peer named \"mine\" is registered"));
/// # Ok::<(), lawsuite::conformance::peers::PeerError>(())
/// ```
pub fn resolve(
    registry: &Registry,
    names: &[String],
) -> Result<(Vec<Subject>, Vec<Unavailable>), PeerError> {
    once_each(names)?;
    let mut subjects = Vec::new();
    let mut unavailable = Vec::new();
    for name in names {
        match lookup(registry, name)? {
            Ok(subject) => subjects.push(subject),
            Err(u) => unavailable.push(u),
        }
    }
    Ok((subjects, unavailable))
}

/// A name given twice is a mistake, not two peers.
fn once_each(names: &[String]) -> Result<(), PeerError> {
    for (i, name) in names.iter().enumerate() {
        if names[..i].contains(name) {
            return Err(PeerError::Twice { name: name.clone() });
        }
    }
    Ok(())
}

/// `name`: the registry's peer of that name, else the built-in of that
/// name, else an error listing the registered names.
fn lookup(registry: &Registry, name: &str) -> Result<Result<Subject, Unavailable>, PeerError> {
    if let Some(entry) = registry.peers.iter().find(|p| p.name == name) {
        return Ok(registered(entry));
    }
    if let Ok(builtin) = name.parse::<Builtin>() {
        return Ok(builtin_subject(name, builtin, registry.options()));
    }
    Err(PeerError::Unknown {
        name: name.to_string(),
        registered: registry.names(),
    })
}

/// A registered peer as a run takes it, or why it cannot run here.
fn registered(entry: &Registered) -> Result<Subject, Unavailable> {
    entry.subject().map_err(|why| Unavailable {
        name: entry.name.clone(),
        why: why.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_nobody_registered_is_refused_with_the_names_there_are() {
        let err = PeerSet::from_registry(&Registry::builtins(), &["mine".into()]).unwrap_err();
        assert!(matches!(&err, PeerError::Unknown { name, .. } if name == "mine"));
        assert!(err.to_string().contains("portable, ripgrep, ripgrep-walk"));
    }

    #[test]
    fn built_ins_resolve_by_name_and_keep_their_built_in_name() {
        let (subjects, _) =
            resolve(&Registry::builtins(), &["portable".into(), "noop".into()]).unwrap();
        let named: Vec<(&str, Option<Builtin>)> =
            subjects.iter().map(|s| (s.name(), s.builtin())).collect();
        assert_eq!(
            named,
            [
                ("portable", Some(Builtin::Portable)),
                ("noop", Some(Builtin::Noop))
            ]
        );
        let twice = resolve(&Registry::builtins(), &["noop".into(), "noop".into()]).unwrap_err();
        assert_eq!(
            twice,
            PeerError::Twice {
                name: "noop".into()
            }
        );
    }

    /// A run's named subjects resolve by the same rule as `call`'s peer: a
    /// built-in nobody registered is a subject, in the order named, and the
    /// reference named among them stays the reference.
    #[test]
    fn a_runs_named_peers_resolve_as_any_command_resolves_them() {
        let set = PeerSet::from_registry(
            &Registry::builtins(),
            &["noop".into(), "portable".into(), "model".into()],
        )
        .unwrap();
        assert_eq!(set.reference.name(), "portable");
        let named: Vec<&str> = set.subjects.iter().map(|s| s.name()).collect();
        assert_eq!(named, ["noop", "model"]);
    }

    /// A registry read for one peer still knows every registered name, and
    /// says so when another is asked for (`lawsuite call` reads it so).
    #[test]
    fn a_registry_read_for_one_peer_names_them_all() {
        let only = ["model".to_string()];
        let registry = Registry::builtins_for(Some(&only), &PeerOptions::default());
        let err = resolve(&registry, &["mine".into()]).unwrap_err();
        assert!(
            err.to_string()
                .contains("the registered peers are: portable, ripgrep, ripgrep-walk"),
            "{err}"
        );
        let (subjects, unavailable) = resolve(&registry, &["ripgrep".into()]).unwrap();
        assert!(subjects.is_empty());
        assert!(
            unavailable[0].why.contains("was not started"),
            "{unavailable:?}"
        );
    }
}
