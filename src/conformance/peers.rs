//! Which peers a run holds: the one place where a registry's entries
//! become [`Subject`]s (the reference, the peers under test) and the peers
//! that cannot run here, each with the reason.
//!
//! Every front door resolves peers here: `cargo test` ([`crate::suite`]),
//! `lawsuite run`, `record`, `call`, `bench` and `differ`. A peer that
//! cannot start is never dropped without a word: it becomes an
//! [`Unavailable`] the report shows (or, for the reference, a
//! [`PeerError`] the run stops on), so the user reads *why*.
//!
//! ```
//! use lawsuite::conformance::peers::PeerSet;
//! use lawsuite::registry::Registry;
//!
//! let set = PeerSet::from_registry(&Registry::builtins(), &[])?;
//! assert_eq!(set.reference.name, "portable");
//! // `ripgrep` and `ripgrep-walk` are subjects where `rg` runs, and
//! // unavailable (with the reason) where it does not.
//! assert_eq!(set.subjects.len() + set.unavailable.len(), 2);
//! # Ok::<(), lawsuite::conformance::peers::PeerError>(())
//! ```

use std::fmt;

pub use crate::peer::{Subject, Unavailable};
use crate::registry::{BUILTINS, PeerOptions, Registry, builtin};

/// The peers of one run: the reference, the subjects, and the chosen
/// peers that cannot run here.
#[derive(Clone, Debug)]
pub struct PeerSet {
    /// The peer every other is compared with.
    pub reference: Subject,
    /// The peers under test, in registry order.
    pub subjects: Vec<Subject>,
    /// Chosen peers that cannot run here, in registry order.
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
                BUILTINS.join(", ")
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

    /// The registry's reference, and its other peers as subjects: all of
    /// them when `wanted` is empty, else those named (each must be
    /// registered). Chosen peers that cannot run are [`Unavailable`]; a
    /// reference that cannot run is an error with its reason.
    pub fn from_registry(registry: &Registry, wanted: &[String]) -> Result<PeerSet, PeerError> {
        for (i, name) in wanted.iter().enumerate() {
            if wanted[..i].contains(name) {
                return Err(PeerError::Twice { name: name.clone() });
            }
            if !registry.peers.iter().any(|p| &p.name == name) {
                return Err(PeerError::Unknown {
                    name: name.clone(),
                    registered: registry.names(),
                });
            }
        }
        let mut reference = None;
        let mut subjects = Vec::new();
        let mut unavailable = Vec::new();
        for entry in &registry.peers {
            let is_reference = entry.name == registry.reference;
            let chosen = wanted.is_empty() || wanted.contains(&entry.name);
            match entry.subject() {
                Ok(subject) if is_reference => reference = Some(subject),
                Ok(subject) if chosen => subjects.push(subject),
                Err(why) if is_reference => {
                    return Err(PeerError::ReferenceUnavailable {
                        name: entry.name.clone(),
                        why: why.to_string(),
                    });
                }
                Err(why) if chosen => unavailable.push(Unavailable {
                    name: entry.name.clone(),
                    why: why.to_string(),
                }),
                _ => {}
            }
        }
        let reference = reference.ok_or_else(|| PeerError::NoReference {
            name: registry.reference.clone(),
        })?;
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
    builtin_name: &str,
    options: &PeerOptions,
) -> Result<Subject, Unavailable> {
    builtin(builtin_name, options)
        .map(|peer| Subject::builtin(name, builtin_name, peer))
        .map_err(|why| Unavailable {
            name: name.to_string(),
            why: why.to_string(),
        })
}

/// The peers `names`, in order, each the registry's peer of that name or
/// else the built-in of that name (`bench`, `differ` and `call` take any
/// of them). A name that is neither is an error; a peer that cannot run
/// is [`Unavailable`].
///
/// `registry` is the project's, or why it cannot be read: built-ins still
/// resolve without one, started with `options`.
pub fn resolve(
    registry: Result<&Registry, &str>,
    names: &[String],
    options: &PeerOptions,
) -> Result<(Vec<Subject>, Vec<Unavailable>), PeerError> {
    let mut subjects = Vec::new();
    let mut unavailable = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if names[..i].contains(name) {
            return Err(PeerError::Twice { name: name.clone() });
        }
        let registered = registry
            .ok()
            .and_then(|r| r.peers.iter().find(|p| &p.name == name));
        let resolved = match registered {
            Some(entry) => entry.subject().map_err(|why| why.to_string()),
            None if BUILTINS.contains(&name.as_str()) => {
                builtin_subject(name, name, options).map_err(|u| u.why)
            }
            None => {
                return Err(PeerError::Unknown {
                    name: name.clone(),
                    registered: match registry {
                        Ok(r) => r.names(),
                        Err(why) => format!("none (the registry cannot be read: {why})"),
                    },
                });
            }
        };
        match resolved {
            Ok(subject) => subjects.push(subject),
            Err(why) => unavailable.push(Unavailable {
                name: name.clone(),
                why,
            }),
        }
    }
    Ok((subjects, unavailable))
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
    fn built_ins_resolve_without_a_registry_and_keep_their_built_in_name() {
        let (subjects, _) = resolve(
            Err("no file"),
            &["portable".into(), "noop".into()],
            &PeerOptions::default(),
        )
        .unwrap();
        let named: Vec<(&str, Option<&str>)> = subjects
            .iter()
            .map(|s| (s.name.as_str(), s.builtin.as_deref()))
            .collect();
        assert_eq!(
            named,
            [("portable", Some("portable")), ("noop", Some("noop"))]
        );
        let err = resolve(Err("no file"), &["mine".into()], &PeerOptions::default()).unwrap_err();
        assert!(
            err.to_string()
                .contains("the registry cannot be read: no file")
        );
        let twice = resolve(
            Err("x"),
            &["noop".into(), "noop".into()],
            &PeerOptions::default(),
        )
        .unwrap_err();
        assert_eq!(
            twice,
            PeerError::Twice {
                name: "noop".into()
            }
        );
    }
}
