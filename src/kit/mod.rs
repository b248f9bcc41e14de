//! The conformance kit (`conformance-kit.md`): reproducible plans of
//! generated trees and calls, and the code that writes those trees to disk.
//!
//! A differential run has three steps. A *generator* turns a seed into a
//! [`plan::Plan`]: a small file tree plus a list of normalised `grep` and
//! `glob` inputs (and, from the `lawsuite` generator, `read` and `ls` calls
//! of the file flows, `read-ls-flows.md`). [`materialize`] writes the tree under a fresh directory.
//! Then every call runs through two peers and any answer that is not
//! byte-identical is a divergence (§4, in its own module).
//!
//! | module | spec section |
//! | --- | --- |
//! | [`plan`] | §1: `GeneratedFile`, `Plan` and the plan options |
//! | [`lawsuite`] | the `lawsuite` generator, the default: a much wider ground (deep and odd names, skip-list dirs, nested `.gitignore`s, binaries, preview edges, a pattern and glob grammar; on the full ground CRLF, invalid UTF-8, symlinks, unreadable dirs; a file-flow fixture and `read`/`ls` calls) on ChaCha8 |
//! | [`smthrs`] | §2: the TypeScript kit's generator (mulberry32, vocabularies, draw order), reproduced draw for draw |
//! | [`materialize`] | §3: writing a plan's files under a root, refusing paths that would escape it; [`materialize::TempTree`] |
//! | [`answer`] | §4: what a peer answered to one call (a value, a failure, a fault, a panic) and what agreement means |
//! | [`ask`] | a plan's trees written once per peer, guarded, and its calls asked |
//! | [`compare`] | §4: a plan's answers across N peers, divergences |
//! | [`exhaustive`] | bounded-exhaustive families: every glob, `.gitignore` rule and pattern up to a size, asked in batches |
//! | [`guard`] | the tree guard: what a written tree holds and what a peer changed in it |
//! | [`report`] | §5: diffs of answers, look-alike characters made visible (whole reports: `report`) |
//! | [`shrink`] | reducing a divergence to a minimal tree and call |
//! | [`regression`] | `fixtures/regressions/*.json`: recorded, replayed |
//! | [`real_tree`] | the differential on a real directory searched in place (`lawsuite survey`): calls drawn from its own words, counted per peer |
//!
//! The `smthrs` generator is a port, not a reinterpretation: a seed must
//! give the same tree and calls as `@smthrs/std`'s `plan`, so that a
//! divergence found on one side can be replayed on the other by its seed
//! alone. The `lawsuite` generator owes nothing to the TypeScript kit; it
//! is reproducible on its own terms (ChaCha8, integer draws, a documented
//! draw order and a version bumped with it).

pub mod answer;
pub mod ask;
pub mod campaign;
pub(crate) mod chacha;
pub mod compare;
pub mod difference;
pub(crate) mod draws;
pub mod exhaustive;
pub mod explain;
pub mod guard;
pub mod lawsuite;
pub mod materialize;
pub mod outsiders;
pub mod plan;
#[cfg(feature = "tools")]
pub mod real_tree;
pub mod regression;
pub mod report;
pub mod shrink;
pub mod smthrs;

use crate::peer::{Ground, Method};

/// The generators a seed can be run through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Generator {
    /// The TypeScript kit's generator, reproduced exactly (§2).
    Smthrs,
    /// lawsuite's own ChaCha8 generator with a wider ground.
    Lawsuite,
}

impl Generator {
    /// The name written in plans and reports.
    pub fn name(self) -> &'static str {
        match self {
            Generator::Smthrs => smthrs::GENERATOR,
            Generator::Lawsuite => lawsuite::GENERATOR,
        }
    }

    /// Its version: every plan of a seed is the generator's and its
    /// version's (a new version changes plans), so results name it.
    ///
    /// ```
    /// use lawsuite::kit::Generator;
    /// assert_eq!(Generator::Smthrs.version(), lawsuite::kit::smthrs::VERSION);
    /// ```
    pub fn version(self) -> u32 {
        match self {
            Generator::Smthrs => smthrs::VERSION,
            Generator::Lawsuite => lawsuite::VERSION,
        }
    }

    /// The methods its plans call, in plan order: `smthrs` plans are the
    /// TypeScript kit's grep and glob calls; `lawsuite` plans add the file
    /// flows.
    ///
    /// ```
    /// use lawsuite::kit::Generator;
    /// use lawsuite::peer::Method;
    /// assert_eq!(Generator::Smthrs.methods(), [Method::Grep, Method::Glob]);
    /// assert!(Generator::Lawsuite.methods().contains(&Method::FlowLs));
    /// ```
    pub fn methods(self) -> &'static [Method] {
        match self {
            Generator::Smthrs => &[Method::Grep, Method::Glob],
            Generator::Lawsuite => &[
                Method::Grep,
                Method::Glob,
                Method::FlowRead,
                Method::FlowLs,
                Method::FlowGrep,
                Method::FlowGlob,
            ],
        }
    }

    /// Parse a generator name.
    pub fn from_name(name: &str) -> Option<Generator> {
        match name {
            "smthrs" => Some(Generator::Smthrs),
            "lawsuite" => Some(Generator::Lawsuite),
            _ => None,
        }
    }

    /// The default seeds of `lawsuite run` and `cargo test`: the TypeScript
    /// kit's twelve shipped seeds (conformance-kit §6) for `smthrs`, and
    /// `0..64` for `lawsuite`.
    pub fn default_seeds(self) -> Vec<u64> {
        match self {
            Generator::Smthrs => SMTHRS_SEEDS.to_vec(),
            Generator::Lawsuite => (0..LAWSUITE_SEEDS).collect(),
        }
    }
}

impl std::str::FromStr for Generator {
    type Err = UnknownGenerator;

    fn from_str(name: &str) -> Result<Generator, UnknownGenerator> {
        Generator::from_name(name).ok_or_else(|| UnknownGenerator(name.to_string()))
    }
}

/// A name that is no generator's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownGenerator(pub String);

impl std::fmt::Display for UnknownGenerator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown generator {:?}; use smthrs or lawsuite", self.0)
    }
}

impl std::error::Error for UnknownGenerator {}

/// A seed a generator has no plan for.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GenerateError {
    /// `smthrs` seeds are 32-bit (the TypeScript kit's are).
    SeedTooLarge(u64),
}

impl std::fmt::Display for GenerateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GenerateError::SeedTooLarge(seed) => {
                write!(f, "smthrs seeds are 32-bit; {seed} is too large")
            }
        }
    }
}

impl std::error::Error for GenerateError {}

/// The TypeScript kit's shipped seeds (conformance-kit §6).
pub const SMTHRS_SEEDS: [u64; 12] = [1, 2, 4, 21, 34, 40, 51, 89, 103, 118, 144, 233];

/// How many `lawsuite` generator seeds run by default (`0..64`).
pub const LAWSUITE_SEEDS: u64 = 64;

/// Build the plan of `seed` under `root` on `ground` (which only the
/// `lawsuite` generator draws from; `smthrs` plans are always shared).
pub fn generate(
    generator: Generator,
    seed: u64,
    root: &str,
    ground: Ground,
) -> Result<plan::Plan, GenerateError> {
    match generator {
        Generator::Smthrs => {
            let seed = u32::try_from(seed).map_err(|_| GenerateError::SeedTooLarge(seed))?;
            Ok(smthrs::plan(seed, root, &plan::PlanOptions::default()))
        }
        Generator::Lawsuite => {
            let options = lawsuite::GeneratorOptions {
                ground,
                ..lawsuite::GeneratorOptions::default()
            };
            Ok(lawsuite::plan(seed, root, &options))
        }
    }
}
