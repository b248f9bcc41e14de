//! What a run holds: [`Item`]s (laws, regressions, seeds, checks), the
//! [`Trial`]s they make with each peer, each trial's [`Outcome`], and how
//! a failure's replay command is spelled ([`Replay`]).

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::Verdict;
use super::trial_id::{ItemId, TrialId};
use crate::kit::Generator;
use crate::kit::exhaustive::{Family, PeerCost};
use crate::kit::regression::Regression;
use crate::law::LoadedLaw;
use crate::peer::Ground;

/// What kind of item a trial runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A hand-written law.
    Law,
    /// A recorded regression.
    Regression,
    /// A generated plan.
    Seed,
    /// A bounded-exhaustive family at one size: every shape up to it
    /// ([`crate::kit::exhaustive`]).
    Exhaustive,
    /// A check of the run itself: law coverage, a broken file, a peer that
    /// cannot run.
    Check,
}

impl Kind {
    /// `law`, `regression`, `seed`, `exhaustive` or `check`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Law => "law",
            Kind::Regression => "regression",
            Kind::Seed => "seed",
            Kind::Exhaustive => "exhaustive",
            Kind::Check => "check",
        }
    }
}

/// One generated plan to compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeedItem {
    /// Its generator.
    pub generator: Generator,
    /// The generator's ground.
    pub ground: Ground,
    /// The seed.
    pub seed: u64,
    /// Only this call of the plan, when set.
    pub only_call: Option<usize>,
}

impl SeedItem {
    /// `seed::smthrs::0051`, or `seed::lawsuite@full::0051` on the full
    /// ground.
    pub fn id(&self) -> String {
        self.item_id().to_string()
    }

    /// Its [`ItemId`].
    pub fn item_id(&self) -> ItemId {
        ItemId::Seed {
            generator: self.generator,
            ground: self.ground,
            seed: self.seed,
        }
    }

    /// The seed a trial or item id names, read back as [`SeedItem::id`]
    /// writes it (a peer's name may follow): `None` for an id that is not
    /// a seed's.
    ///
    /// ```
    /// use lawsuite::conformance::SeedItem;
    /// use lawsuite::kit::Generator;
    /// use lawsuite::peer::Ground;
    /// let seed = SeedItem::from_id("seed::lawsuite@full::0051::mine").unwrap();
    /// assert_eq!((seed.generator, seed.ground, seed.seed), (Generator::Lawsuite, Ground::Full, 51));
    /// assert_eq!(seed.id(), "seed::lawsuite@full::0051");
    /// assert!(SeedItem::from_id("law::glob::x::mine").is_none());
    /// ```
    pub fn from_id(id: &str) -> Option<SeedItem> {
        let item = match id.parse::<TrialId>() {
            Ok(trial) => trial.into_parts().0,
            Err(_) => id.parse::<ItemId>().ok()?,
        };
        let (generator, ground, seed) = item.seed()?;
        Some(SeedItem {
            generator,
            ground,
            seed,
            only_call: None,
        })
    }
}

/// A bounded-exhaustive family at one size, asked of the subjects it is
/// for against the reference ([`crate::kit::exhaustive`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExhaustiveItem {
    /// The family.
    pub family: Family,
    /// Its size: every shape of at most this many tokens.
    pub size: usize,
    /// The subjects it is asked of: those of this cost class (a family at
    /// a class's default size, [`Family::default_size_for`]), or every
    /// subject (`None`: a size given, or every peer at the family's own
    /// default).
    pub cost: Option<PeerCost>,
}

impl ExhaustiveItem {
    /// `family` at `size`, for every subject.
    pub fn new(family: Family, size: usize) -> ExhaustiveItem {
        ExhaustiveItem {
            family,
            size,
            cost: None,
        }
    }

    /// Its [`ItemId`]: `exhaustive::glob::3`.
    ///
    /// ```
    /// use lawsuite::conformance::ExhaustiveItem;
    /// use lawsuite::kit::exhaustive::Family;
    /// let item = ExhaustiveItem::new(Family::Gitignore, 4);
    /// assert_eq!(item.item_id().to_string(), "exhaustive::gitignore::4");
    /// ```
    pub fn item_id(&self) -> ItemId {
        ItemId::Exhaustive {
            family: self.family,
            size: self.size,
        }
    }

    /// Whether it is asked of a peer that is the built-in `builtin`
    /// (`None`: not a built-in).
    ///
    /// ```
    /// use lawsuite::conformance::ExhaustiveItem;
    /// use lawsuite::kit::exhaustive::{Family, PeerCost};
    /// use lawsuite::peer::Builtin;
    /// let cheap = ExhaustiveItem { cost: Some(PeerCost::Ordinary), ..ExhaustiveItem::new(Family::Glob, 3) };
    /// assert!(cheap.asks(None) && cheap.asks(Some(Builtin::Model)));
    /// assert!(!cheap.asks(Some(Builtin::Git)));
    /// assert!(ExhaustiveItem::new(Family::Glob, 3).asks(Some(Builtin::Git)));
    /// ```
    pub fn asks(&self, builtin: Option<crate::peer::Builtin>) -> bool {
        self.cost.is_none_or(|c| PeerCost::of(builtin) == c)
    }
}

/// Every seed of a range, as one item: a sweep of a hundred million seeds
/// is one of these, not a hundred million items made before anything
/// runs. Its trials are those of [`Item::Seed`] for each seed, in order,
/// made one at a time ([`super::Engine::trials_iter`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedRange {
    /// Its generator.
    pub generator: Generator,
    /// The generator's ground.
    pub ground: Ground,
    /// The seeds, in order.
    pub seeds: Range<u64>,
    /// Only this call of each plan, when set.
    pub only_call: Option<usize>,
}

impl SeedRange {
    /// The item of `seed` (a seed of the range).
    pub fn seed(&self, seed: u64) -> SeedItem {
        SeedItem {
            generator: self.generator,
            ground: self.ground,
            seed,
            only_call: self.only_call,
        }
    }

    /// `seed::smthrs::0000..0064`: the range, as ids spell its seeds.
    pub fn id(&self) -> String {
        ItemId::Seeds {
            generator: self.generator,
            ground: self.ground,
            seeds: self.seeds.clone(),
        }
        .to_string()
    }
}

/// One thing a run checks.
#[derive(Clone, Debug)]
pub enum Item {
    /// A law, on every peer.
    Law(Arc<LoadedLaw>),
    /// A regression file, on every peer.
    Regression {
        /// The file's stem: its id.
        name: String,
        /// The file.
        path: PathBuf,
        /// What it holds.
        regression: Arc<Regression>,
    },
    /// A plan, on every subject against the reference.
    Seed(SeedItem),
    /// A range of plans, each on every subject against the reference.
    Seeds(SeedRange),
    /// A bounded-exhaustive family, on every subject against the
    /// reference.
    Exhaustive(ExhaustiveItem),
    /// Every section of the spec has a law.
    Coverage {
        /// The sections no law pins.
        uncovered: Vec<String>,
        /// How many laws were looked at.
        laws: usize,
    },
    /// A problem found while loading: a broken law, regression or
    /// expectations file, an expectation naming no known law. Always
    /// broken.
    Problem {
        /// Its id, e.g. `law::invalid::grep::context::x`.
        id: ItemId,
        /// What is wrong and what to do.
        message: String,
    },
    /// A registered peer that cannot run here: skipped, with the reason.
    Unavailable {
        /// Its registered name.
        name: String,
        /// Why, and what to do.
        why: String,
    },
}

impl Item {
    /// The item's id: the trial id without the peer.
    pub fn id(&self) -> String {
        self.item_id().to_string()
    }

    /// The item's [`ItemId`].
    pub fn item_id(&self) -> ItemId {
        match self {
            Item::Law(l) => ItemId::Law(l.id.clone()),
            Item::Regression { name, .. } => ItemId::Regression(name.clone()),
            Item::Seed(s) => s.item_id(),
            Item::Seeds(r) => ItemId::Seeds {
                generator: r.generator,
                ground: r.ground,
                seeds: r.seeds.clone(),
            },
            Item::Exhaustive(e) => e.item_id(),
            Item::Coverage { .. } => ItemId::Coverage,
            Item::Problem { id, .. } => id.clone(),
            Item::Unavailable { name, .. } => ItemId::Unavailable(name.clone()),
        }
    }

    /// The id of its trial on the peer `peer`.
    pub fn trial_id(&self, peer: &str) -> String {
        self.item_id().on(peer).to_string()
    }

    /// Its kind.
    pub fn kind(&self) -> Kind {
        match self {
            Item::Law(_) => Kind::Law,
            Item::Regression { .. } => Kind::Regression,
            Item::Seed(_) | Item::Seeds(_) => Kind::Seed,
            Item::Exhaustive(_) => Kind::Exhaustive,
            _ => Kind::Check,
        }
    }

    /// The spec section it pins, for a law.
    pub fn spec(&self) -> Option<&str> {
        match self {
            Item::Law(l) => Some(&l.law.spec),
            _ => None,
        }
    }
}

/// One of an engine's peers: the reference, or a subject by its place in
/// registry order ([`super::Engine::peer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PeerRef {
    /// The peer every other is compared with.
    Reference,
    /// The subject at this place (0-based) among the peers under test.
    Subject(usize),
}

impl PeerRef {
    /// Its place in [`super::Engine::peers`]: the reference first, then
    /// the subjects.
    pub fn index(self) -> usize {
        match self {
            PeerRef::Reference => 0,
            PeerRef::Subject(i) => i + 1,
        }
    }

    /// The peer at place `index` of [`super::Engine::peers`].
    pub fn at(index: usize) -> PeerRef {
        match index.checked_sub(1) {
            None => PeerRef::Reference,
            Some(i) => PeerRef::Subject(i),
        }
    }
}

/// One item on one peer (or, for a check, on none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trial {
    /// `<item id>::<peer>`, or the item id for a check.
    pub id: TrialId,
    /// The item's index in the engine.
    pub item: usize,
    /// For a trial of a seed range ([`Item::Seeds`]), its seed; `None`
    /// for every other trial.
    pub seed: Option<u64>,
    /// The peer it asks; `None` for a check.
    pub peer: Option<PeerRef>,
    /// The item's kind.
    pub kind: Kind,
    /// Why it does not run, when it does not.
    pub skip: Option<String>,
}

/// The result of one trial.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// The trial id.
    pub id: TrialId,
    /// The item id.
    pub item: String,
    /// The item's kind.
    pub kind: Kind,
    /// The peer's registered name (none for a check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer: Option<String>,
    /// The spec section, for a law.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
    /// The verdict.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// For a seed: the calls where the peer differs from the reference in
    /// a way it documents, by documented difference.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub documented: BTreeMap<String, usize>,
    /// For a seed: how many of its plan's calls were compared with the
    /// reference (those of a method the peer answers).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub compared: usize,
    /// Wall-clock seconds the trial took.
    pub seconds: f64,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// How replay commands are spelled: the command line of the binary that
/// is running, or a `cargo test` trial.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Replay {
    /// `<program> run … --exact <trial>`, with `flags` (e.g. `--registry
    /// peers.toml`) so the command finds the same peers.
    Cli {
        /// How the binary was invoked (`lawsuite`, or its path).
        program: String,
        /// Flags to repeat.
        flags: Vec<String>,
    },
    /// `cargo test --test <target> -- <trial> --exact`, with the
    /// environment a seed outside the default set needs.
    CargoTest {
        /// The test target (`conformance`), if known.
        target: Option<String>,
    },
}

impl Default for Replay {
    fn default() -> Replay {
        Replay::CargoTest { target: None }
    }
}

impl Replay {
    /// The command that runs `trial` of `item` on `peer` again (for a seed,
    /// only `call` of its plan when given).
    pub(super) fn command(
        &self,
        item: &Item,
        trial: &str,
        peer: &str,
        call: Option<usize>,
    ) -> String {
        match self {
            Replay::Cli { program, flags } => {
                let mut words = vec![shell_word(program), "run".into()];
                if let Item::Seed(s) = item {
                    words.extend(["--generator".into(), s.generator.name().into()]);
                    if s.ground == Ground::Full && s.generator == Generator::Lawsuite {
                        words.extend(["--ground".into(), "full".into()]);
                    }
                    words.extend(["--seeds".into(), s.seed.to_string()]);
                    if let Some(c) = call.or(s.only_call) {
                        words.extend(["--call".into(), c.to_string()]);
                    }
                }
                // A family at a class's default size runs by default; any
                // other was asked for with a size.
                if let Item::Exhaustive(e) = item
                    && e.cost.is_none()
                {
                    words.extend(["--exhaustive-size".into(), e.size.to_string()]);
                }
                words.extend(["--peer".into(), shell_word(peer)]);
                words.extend(flags.iter().map(|f| shell_word(f)));
                words.extend(["--exact".into(), shell_word(trial)]);
                words.join(" ")
            }
            Replay::CargoTest { target } => {
                let mut env = String::new();
                if let Item::Seed(s) = item {
                    if !s.generator.default_seeds().contains(&s.seed) {
                        env.push_str(&format!("LAWSUITE_SEEDS={} ", s.seed));
                    }
                    if s.ground == Ground::Full && s.generator == Generator::Lawsuite {
                        env.push_str("LAWSUITE_GROUND=full ");
                    }
                }
                if let Item::Exhaustive(e) = item
                    && e.cost.is_none()
                {
                    env.push_str(&format!("LAWSUITE_EXHAUSTIVE_SIZE={} ", e.size));
                }
                let target = target
                    .as_ref()
                    .map(|t| format!(" --test {}", shell_word(t)))
                    .unwrap_or_default();
                format!("{env}cargo test{target} -- {} --exact", shell_word(trial))
            }
        }
    }
}

/// `word` quoted for a POSIX shell when it needs to be (replay commands).
///
/// ```
/// use lawsuite::conformance::shell_word;
/// assert_eq!(shell_word("law::grep::a"), "law::grep::a");
/// assert_eq!(shell_word(r#"{"a":"it's"}"#), r#"'{"a":"it'\''s"}'"#);
/// ```
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
