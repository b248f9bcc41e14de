//! Trial and item ids: the one parser and printer of their grammar.
//!
//! An item id names one thing a run checks; a trial id is an item id and,
//! for the items asked of every peer (laws, regressions, seeds), the
//! peer's registered name after a last `::`. Checks of the run itself have
//! no peer.
//!
//! | item | id |
//! | --- | --- |
//! | a law | `law::<area>::<file>::<name>` (the law's own id after `law::`) |
//! | the coverage check | `law::coverage` |
//! | a broken law file, or a broken law in one | `law::invalid::<area>::<file>::<name or "file">` |
//! | a regression | `regression::<name>` |
//! | a broken regression file | `regression::invalid::<name>` |
//! | a seed | `seed::<generator>[@full]::<seed, 4 digits at least>` |
//! | a range of seeds | `seed::<generator>[@full]::<first>..<end>` |
//! | a bounded-exhaustive family at a size | `exhaustive::<family>::<size>` |
//! | a broken expected-failures file | `expected::invalid::<file>` |
//! | an expectation naming nothing | `expected::unknown::<peer>::<id>` |
//! | a registered peer that cannot run | `unavailable::<name>` |
//!
//! Ids are names in reports, results files and `cargo test` filters, so
//! their bytes never change: every place that spells one goes through
//! [`ItemId`] and [`TrialId`].
//!
//! ```
//! use lawsuite::conformance::{ItemId, TrialId};
//! use lawsuite::kit::Generator;
//! use lawsuite::peer::Ground;
//!
//! let id: TrialId = "seed::lawsuite@full::0013::model".parse().unwrap();
//! assert_eq!(
//!     id.item(),
//!     &ItemId::Seed { generator: Generator::Lawsuite, ground: Ground::Full, seed: 13 }
//! );
//! assert_eq!(id.peer(), Some("model"));
//! assert_eq!(id.to_string(), "seed::lawsuite@full::0013::model");
//!
//! let law: TrialId = "law::grep::limit::some-law::portable".parse().unwrap();
//! assert_eq!(law.item(), &ItemId::Law("grep::limit::some-law".into()));
//! assert_eq!(law.peer(), Some("portable"));
//!
//! let check: TrialId = "unavailable::ripgrep".parse().unwrap();
//! assert_eq!((check.item(), check.peer()), (&ItemId::Unavailable("ripgrep".into()), None));
//! // A law's trial always names its peer: the last segment is the peer.
//! assert_eq!("law::grep::x".parse::<TrialId>().unwrap().peer(), Some("x"));
//! ```

use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use crate::kit::Generator;
use crate::kit::exhaustive::Family;
use crate::peer::Ground;

/// The separator between an id's segments.
const SEP: &str = "::";

/// An item id: what one item of a run is, as its id spells it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ItemId {
    /// A law, by its own id (`grep::context::x`, without `law::`).
    Law(String),
    /// Every section of the spec has a law.
    Coverage,
    /// A broken law file (`law` `None`, spelled `file`), or a broken law
    /// in one.
    InvalidLaw {
        /// The file as `area::file` (`read::input` for
        /// `laws/read/input.toml`).
        file: String,
        /// The law, when the problem is in one.
        law: Option<String>,
    },
    /// A regression, by its file's stem.
    Regression(String),
    /// A regression file that cannot be read, by its stem.
    InvalidRegression(String),
    /// One generated plan.
    Seed {
        /// Its generator.
        generator: Generator,
        /// The generator's ground (`@full` is spelled for the `lawsuite`
        /// generator only).
        ground: Ground,
        /// The seed.
        seed: u64,
    },
    /// A range of plans.
    Seeds {
        /// Their generator.
        generator: Generator,
        /// The generator's ground.
        ground: Ground,
        /// The seeds.
        seeds: Range<u64>,
    },
    /// A bounded-exhaustive family at one size
    /// ([`crate::kit::exhaustive`]).
    Exhaustive {
        /// The family.
        family: Family,
        /// The size: most tokens (characters, for patterns) a shape has.
        size: usize,
    },
    /// An expected-failures file that is not valid.
    InvalidExpected(String),
    /// An expected failure naming no law or regression of the run.
    UnknownExpected {
        /// The peer it is listed for.
        peer: String,
        /// The id it lists, as written.
        id: String,
    },
    /// A registered peer that cannot run here.
    Unavailable(String),
}

/// A trial id: an item id and, for a law, regression or seed, the peer
/// asked.
///
/// Typed where it is made and read once where it comes in as text (a
/// filter, a results file): a run's trials and outcomes carry it, and it
/// is written as its text (`law::grep::x::mine`), so results files keep
/// their bytes.
///
/// ```
/// use lawsuite::conformance::{ItemId, TrialId};
///
/// let id: TrialId = "law::grep::context::x::mine".parse()?;
/// assert_eq!(id.item(), &ItemId::Law("grep::context::x".into()));
/// assert_eq!(id.peer(), Some("mine"));
/// assert_eq!(id, "law::grep::context::x::mine");
/// assert_eq!(serde_json::to_string(&id)?, r#""law::grep::context::x::mine""#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TrialId {
    /// Its text, made once: filters, reports and results files read it.
    text: String,
    item: ItemId,
    peer: Option<String>,
}

/// Text that is not an id of the grammar in [`crate::conformance::ItemId`]'s
/// module doc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadId(pub String);

impl fmt::Display for BadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a trial id (law::…, regression::…, seed::…, exhaustive::…, unavailable::…)",
            self.0
        )
    }
}

impl std::error::Error for BadId {}

impl ItemId {
    /// Whether its items are asked of every peer, so its trial ids end
    /// in a peer's name: laws, regressions and seeds.
    pub fn has_peers(&self) -> bool {
        matches!(
            self,
            ItemId::Law(_)
                | ItemId::Regression(_)
                | ItemId::Seed { .. }
                | ItemId::Seeds { .. }
                | ItemId::Exhaustive { .. }
        )
    }

    /// The trial of this item on `peer`.
    pub fn on(self, peer: impl Into<String>) -> TrialId {
        TrialId::new(self, Some(peer.into()))
    }

    /// The item's one trial, a check with no peer.
    pub fn alone(self) -> TrialId {
        TrialId::new(self, None)
    }

    /// The law's id, for a law's item.
    pub fn law(&self) -> Option<&str> {
        match self {
            ItemId::Law(id) => Some(id),
            _ => None,
        }
    }

    /// The seed a seed's item id names, as `(generator, ground, seed)`.
    pub fn seed(&self) -> Option<(Generator, Ground, u64)> {
        match self {
            ItemId::Seed {
                generator,
                ground,
                seed,
            } => Some((*generator, *ground, *seed)),
            _ => None,
        }
    }
}

/// `smthrs`, `lawsuite` or `lawsuite@full`.
fn write_generator(
    f: &mut fmt::Formatter<'_>,
    generator: Generator,
    ground: Ground,
) -> fmt::Result {
    f.write_str(generator.name())?;
    if ground == Ground::Full && generator == Generator::Lawsuite {
        f.write_str("@full")?;
    }
    Ok(())
}

impl fmt::Display for ItemId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ItemId::Law(id) => write!(f, "law{SEP}{id}"),
            ItemId::Coverage => write!(f, "law{SEP}coverage"),
            ItemId::InvalidLaw { file, law } => write!(
                f,
                "law{SEP}invalid{SEP}{file}{SEP}{}",
                law.as_deref().unwrap_or("file")
            ),
            ItemId::Regression(name) => write!(f, "regression{SEP}{name}"),
            ItemId::InvalidRegression(name) => write!(f, "regression{SEP}invalid{SEP}{name}"),
            ItemId::Seed {
                generator,
                ground,
                seed,
            } => {
                write!(f, "seed{SEP}")?;
                write_generator(f, *generator, *ground)?;
                write!(f, "{SEP}{seed:04}")
            }
            ItemId::Seeds {
                generator,
                ground,
                seeds,
            } => {
                write!(f, "seed{SEP}")?;
                write_generator(f, *generator, *ground)?;
                write!(f, "{SEP}{:04}..{:04}", seeds.start, seeds.end)
            }
            ItemId::Exhaustive { family, size } => {
                write!(f, "exhaustive{SEP}{}{SEP}{size}", family.name())
            }
            ItemId::InvalidExpected(file) => write!(f, "expected{SEP}invalid{SEP}{file}"),
            ItemId::UnknownExpected { peer, id } => {
                write!(f, "expected{SEP}unknown{SEP}{peer}{SEP}{id}")
            }
            ItemId::Unavailable(name) => write!(f, "unavailable{SEP}{name}"),
        }
    }
}

impl fmt::Display for TrialId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl PartialEq<str> for TrialId {
    fn eq(&self, other: &str) -> bool {
        self.text == other
    }
}

impl PartialEq<String> for TrialId {
    fn eq(&self, other: &String) -> bool {
        self.text == *other
    }
}

impl PartialEq<&str> for TrialId {
    fn eq(&self, other: &&str) -> bool {
        self.text == *other
    }
}

impl serde::Serialize for TrialId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de> serde::Deserialize<'de> for TrialId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<TrialId, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// `smthrs`, `lawsuite` or `lawsuite@full`, read back.
fn read_generator(text: &str) -> Option<(Generator, Ground)> {
    match text.strip_suffix("@full") {
        Some(name) => Some((Generator::from_name(name)?, Ground::Full)),
        None => Some((Generator::from_name(text)?, Ground::Shared)),
    }
}

impl FromStr for ItemId {
    type Err = BadId;

    /// An item id, with no peer after it.
    fn from_str(text: &str) -> Result<ItemId, BadId> {
        let bad = || BadId(text.to_string());
        let (kind, rest) = text.split_once(SEP).ok_or_else(bad)?;
        let nonempty = |s: &str| (!s.is_empty()).then(|| s.to_string()).ok_or_else(bad);
        match kind {
            "law" if rest == "coverage" => Ok(ItemId::Coverage),
            "law" => match rest.strip_prefix("invalid::") {
                Some(broken) => {
                    let (file, law) = broken.rsplit_once(SEP).ok_or_else(bad)?;
                    Ok(ItemId::InvalidLaw {
                        file: nonempty(file)?,
                        law: (law != "file").then(|| law.to_string()),
                    })
                }
                None => Ok(ItemId::Law(nonempty(rest)?)),
            },
            "regression" => match rest.strip_prefix("invalid::") {
                Some(name) => Ok(ItemId::InvalidRegression(nonempty(name)?)),
                None => Ok(ItemId::Regression(nonempty(rest)?)),
            },
            "seed" => {
                let (generator, seeds) = rest.split_once(SEP).ok_or_else(bad)?;
                let (generator, ground) = read_generator(generator).ok_or_else(bad)?;
                match seeds.split_once("..") {
                    Some((start, end)) => Ok(ItemId::Seeds {
                        generator,
                        ground,
                        seeds: start.parse().map_err(|_| bad())?..end.parse().map_err(|_| bad())?,
                    }),
                    None => Ok(ItemId::Seed {
                        generator,
                        ground,
                        seed: seeds.parse().map_err(|_| bad())?,
                    }),
                }
            }
            "exhaustive" => {
                let (family, size) = rest.split_once(SEP).ok_or_else(bad)?;
                Ok(ItemId::Exhaustive {
                    family: family.parse().map_err(|_| bad())?,
                    size: size.parse().map_err(|_| bad())?,
                })
            }
            "expected" => match rest.split_once(SEP) {
                Some(("invalid", file)) => Ok(ItemId::InvalidExpected(nonempty(file)?)),
                Some(("unknown", listed)) => {
                    let (peer, id) = listed.split_once(SEP).ok_or_else(bad)?;
                    Ok(ItemId::UnknownExpected {
                        peer: nonempty(peer)?,
                        id: nonempty(id)?,
                    })
                }
                _ => Err(bad()),
            },
            "unavailable" => Ok(ItemId::Unavailable(nonempty(rest)?)),
            _ => Err(bad()),
        }
    }
}

impl FromStr for TrialId {
    type Err = BadId;

    /// A trial id: for a law, regression or seed, the last segment is the
    /// peer; a check's id is its item id.
    fn from_str(text: &str) -> Result<TrialId, BadId> {
        let bad = || BadId(text.to_string());
        let with_peer = text
            .rsplit_once(SEP)
            .and_then(|(item, peer)| Some((item.parse::<ItemId>().ok()?, peer)))
            .filter(|(item, peer)| item.has_peers() && !peer.is_empty());
        if let Some((item, peer)) = with_peer {
            return Ok(item.on(peer));
        }
        let item: ItemId = text.parse()?;
        if item.has_peers() {
            return Err(bad());
        }
        Ok(item.alone())
    }
}

impl TrialId {
    fn new(item: ItemId, peer: Option<String>) -> TrialId {
        let text = match &peer {
            Some(peer) => format!("{item}{SEP}{peer}"),
            None => item.to_string(),
        };
        TrialId { text, item, peer }
    }

    /// Its text, as [`fmt::Display`] writes it.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The item.
    pub fn item(&self) -> &ItemId {
        &self.item
    }

    /// The peer asked, for a law, regression or seed.
    pub fn peer(&self) -> Option<&str> {
        self.peer.as_deref()
    }

    /// The item and the peer.
    pub fn into_parts(self) -> (ItemId, Option<String>) {
        (self.item, self.peer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_back_as_it_was_written() {
        for id in [
            "law::grep::limit::some-law::portable",
            "law::coverage",
            "law::invalid::grep::x::file",
            "law::invalid::grep::x::a-law",
            "regression::r1::mine",
            "regression::invalid::bad",
            "seed::smthrs::0051::ripgrep",
            "seed::lawsuite::0013::ripgrep",
            "seed::lawsuite@full::0013::model",
            "seed::lawsuite::123456::model",
            "seed::smthrs::0000..0064::p",
            "exhaustive::gitignore::4::ripgrep-walk",
            "exhaustive::pattern::3::model",
            "expected::invalid::expected/mine.toml",
            "expected::unknown::mine::grep::x::y",
            "unavailable::ripgrep",
        ] {
            let parsed: TrialId = id.parse().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(parsed.to_string(), id);
        }
    }

    #[test]
    fn ids_outside_the_grammar_are_refused() {
        for id in [
            "",
            "law",
            "law::",
            "nonsense::x",
            "seed::nope::0001::p",
            "seed::smthrs::x1::p",
            "seed::smthrs::0001",
            "regression::r1",
            "expected::other::x",
            "exhaustive::glob::3",
            "exhaustive::globs::3::p",
            "exhaustive::glob::x::p",
        ] {
            assert!(id.parse::<TrialId>().is_err(), "{id}");
        }
    }

    #[test]
    fn a_smthrs_seed_never_spells_a_ground() {
        let id = ItemId::Seed {
            generator: Generator::Smthrs,
            ground: Ground::Full,
            seed: 3,
        };
        assert_eq!(id.to_string(), "seed::smthrs::0003");
    }
}
