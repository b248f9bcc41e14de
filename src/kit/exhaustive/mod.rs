//! Bounded-exhaustive families: *every* call of a small shape against
//! *every* entry of a small tree, where a seed draws a sample.
//!
//! A seed says "these calls agreed"; it cannot say what it missed. RE2's
//! exhaustive tester (since 2009) checks every regular expression up to a
//! few atoms against every string up to a length, as ordinary unit tests:
//! a small-scope check says "every shape up to size *k* agrees". The rule
//! `foo**/bar` in a `.gitignore` (read by git one way and by the contract,
//! search-contract §9.3, another) was never drawn by a law, a default seed
//! or a campaign of 38,000 calls; the [`Family::Gitignore`] family reaches
//! its shape (`a**/a`) at size 4, and every other shape of at most four
//! tokens with it.
//!
//! Three families, one module each, each a [`Family`]:
//!
//! | family | module | method | a shape | against |
//! | --- | --- | --- | --- | --- |
//! | `glob` | [`glob`] | `glob` | a glob of at most *k* tokens (search-contract §8) | every path of a small tree |
//! | `gitignore` | [`gitignore`] | `glob` | a `.gitignore` rule of at most *k* tokens (§9), at the root and nested | every path of a small tree |
//! | `pattern` | [`pattern`] | `grep` | a pattern of at most *k* characters (§10) | every line of at most 3 characters |
//!
//! Shapes are enumerated deterministically (no seed: the same on every
//! machine), smallest first, each distinct text once: a shape is a token
//! sequence, and the one rule that would spell a text twice (`*` then `*`
//! is `**`) is refused ([`Alphabet`]), so counting sequences counts
//! texts. A shape the flow layer refuses (search-contract §3, §5; by
//! lawsuite's validation *or* the `model` peer's, so neither decides
//! alone) is asked of the whole flow (`flow/glob`, `flow/grep`), where the
//! error and its message are the contract; every other shape is asked at
//! the peer seam.
//!
//! A family is asked in batches ([`Family::batches`]): plans of one tree
//! and many calls, each peer on a tree of its own, written once and
//! rewritten in place from batch to batch, checked once after each batch
//! ([`BatchTrees`]); a batch whose tree was found changed is asked again
//! call by call under the tree guard
//! ([`crate::kit::compare::compare_plan_with`]), so a peer that writes is
//! still caught on the call that wrote. `docs/exhaustive.md` says what each
//! size costs and which rules of the spec it reaches.
//!
//! ```
//! use lawsuite::kit::exhaustive::Family;
//!
//! let shapes: Vec<String> = Family::Glob.shapes(1).collect();
//! assert!(shapes.contains(&"**".to_string()) && shapes.contains(&"!".to_string()));
//! assert_eq!(Family::Glob.count(1).shapes, shapes.len() as u64);
//! // Size 2 holds size 1, and `*` then `*` is not asked again as `**`.
//! let two: Vec<String> = Family::Glob.shapes(2).collect();
//! assert_eq!(two.iter().filter(|s| *s == "**").count(), 1);
//! ```

pub mod ask;
pub mod gitignore;
pub mod glob;
pub mod pattern;

use std::fmt;
use std::str::FromStr;

pub use ask::{BatchTrees, ReferenceAnswers, compare_batch};

use crate::call::Call;
use crate::contract::{GlobRequest, GrepRequest};
use crate::kit::plan::{GeneratedFile, Plan};
use crate::peer::Method;

/// The version of the families' enumerations: a change to an alphabet, a
/// tree or a batch bumps it, so a regression recorded from an older
/// family is not read as today's.
pub const VERSION: u32 = 1;

/// The largest size a run may ask for. At 8 the smallest family holds
/// some 10⁸ shapes (days of CPU on one peer); past it the counts overflow
/// what a run can finish, so a larger size is refused with this number
/// rather than started. (Its number lives with the variable that takes it,
/// [`crate::environment::MAX_EXHAUSTIVE_SIZE`], which is read below the
/// kit.)
pub const MAX_SIZE: usize = crate::environment::MAX_EXHAUSTIVE_SIZE;

/// The size of every family, when none is given, on a peer that starts a
/// process for each call ([`PeerCost::ProcessPerCall`]): 727 calls in all
/// (182 globs, 101 rules in two placements, 343 patterns), where the
/// [default sizes](Family::default_size) ask some 21,000. At those sizes
/// the `rg` built-ins and `git`, one process a call or more, took some 260
/// CPU-s more in a debug build (`ripgrep-walk` 123, `git` 101, `ripgrep`
/// 38: `docs/exhaustive.md`); at 2 their trials take some 7 in all, and
/// size 3 of the `gitignore` family alone would take some 30.
pub const PROCESS_PER_CALL_SIZE: usize = 2;

/// What asking a peer one call costs, as far as choosing a family's
/// default size goes ([`Family::default_size_for`]).
///
/// The class is lawsuite's, read from what the peer is, never the peer's
/// own claim: a peer does not choose how much of a family it is asked.
///
/// ```
/// use lawsuite::kit::exhaustive::PeerCost;
/// use lawsuite::peer::Builtin;
/// assert_eq!(PeerCost::of(Some(Builtin::RipgrepWalk)), PeerCost::ProcessPerCall);
/// assert_eq!(PeerCost::of(Some(Builtin::Model)), PeerCost::Ordinary);
/// assert_eq!(PeerCost::of(None), PeerCost::Ordinary); // a peer under test
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PeerCost {
    /// Answers without starting a process per call: the in-process
    /// built-ins (`portable`, `model`, `noop`), a Rust peer of a peer
    /// crate, and an external peer (one process for the run, a message a
    /// call). Every peer under test is one: it gets each family at its
    /// default size.
    Ordinary,
    /// Starts a process for each call: the built-ins `ripgrep`,
    /// `ripgrep-walk` (an `rg` or three a call) and `git` (a `git
    /// ls-files` a call, four for an empty answer).
    ProcessPerCall,
}

impl PeerCost {
    /// The class of a peer that is the built-in `builtin` (`None`: not a
    /// built-in).
    pub fn of(builtin: Option<crate::peer::Builtin>) -> PeerCost {
        use crate::peer::Builtin;
        match builtin {
            Some(Builtin::Ripgrep | Builtin::RipgrepWalk | Builtin::Git) => {
                PeerCost::ProcessPerCall
            }
            Some(Builtin::Portable | Builtin::Model | Builtin::Noop) | None => PeerCost::Ordinary,
        }
    }

    /// `ordinary` or `process-per-call`, as the docs name them.
    pub fn name(self) -> &'static str {
        match self {
            PeerCost::Ordinary => "ordinary",
            PeerCost::ProcessPerCall => "process-per-call",
        }
    }
}

/// One bounded-exhaustive family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// Every glob of at most *k* tokens ([`glob`]).
    Glob,
    /// Every `.gitignore` rule of at most *k* tokens, at the root and
    /// nested ([`gitignore`]).
    Gitignore,
    /// Every pattern of at most *k* characters ([`pattern`]).
    Pattern,
}

impl Family {
    /// Every family, in trial order.
    pub const ALL: [Family; 3] = [Family::Glob, Family::Gitignore, Family::Pattern];

    /// `glob`, `gitignore` or `pattern`: its name in trial ids.
    pub fn name(self) -> &'static str {
        match self {
            Family::Glob => "glob",
            Family::Gitignore => "gitignore",
            Family::Pattern => "pattern",
        }
    }

    /// The seam method its shapes are asked with (a refused shape is asked
    /// of that method's flow).
    pub fn method(self) -> Method {
        match self {
            Family::Glob | Family::Gitignore => Method::Glob,
            Family::Pattern => Method::Grep,
        }
    }

    /// The size a run takes when none is given, on a peer that answers
    /// without starting a process per call ([`PeerCost::Ordinary`]):
    /// chosen so the three families add at most 30 CPU-seconds to a run on
    /// `portable` and `model` (`docs/exhaustive.md` has the measurements),
    /// and each large enough to reach the shape it was made for (`a**/a`
    /// needs 4 tokens).
    ///
    /// ```
    /// use lawsuite::kit::exhaustive::{Family, PeerCost};
    /// assert_eq!(Family::Gitignore.default_size(), 4);
    /// assert_eq!(Family::Gitignore.default_size_for(PeerCost::Ordinary), 4);
    /// assert_eq!(Family::Gitignore.default_size_for(PeerCost::ProcessPerCall), 2);
    /// ```
    pub fn default_size(self) -> usize {
        match self {
            Family::Glob => 3,
            Family::Gitignore => 4,
            Family::Pattern => 3,
        }
    }

    /// The size a run takes when none is given, on a peer of `cost`: the
    /// [default size](Family::default_size), or [`PROCESS_PER_CALL_SIZE`]
    /// on a peer that starts a process for each call.
    pub fn default_size_for(self, cost: PeerCost) -> usize {
        match cost {
            PeerCost::Ordinary => self.default_size(),
            PeerCost::ProcessPerCall => PROCESS_PER_CALL_SIZE.min(self.default_size()),
        }
    }

    /// The family's alphabet.
    fn alphabet(self) -> &'static Alphabet {
        match self {
            Family::Glob => &glob::ALPHABET,
            Family::Gitignore => &gitignore::ALPHABET,
            Family::Pattern => &pattern::ALPHABET,
        }
    }

    /// Every distinct shape of at most `size` tokens, smallest first (then
    /// in alphabet order), made one at a time.
    pub fn shapes(self, size: usize) -> Shapes {
        Shapes::new(self.alphabet(), size)
    }

    /// How many shapes and calls `size` holds, counted by enumerating them.
    pub fn count(self, size: usize) -> Count {
        let shapes = self.shapes(size).count() as u64;
        let per_shape = match self {
            Family::Gitignore => gitignore::PLACEMENTS.len() as u64,
            Family::Glob | Family::Pattern => 1,
        };
        Count {
            shapes,
            calls: shapes * per_shape,
        }
    }

    /// The family at `size` as plans to compare, made one at a time: each
    /// a tree and up to a batch's calls ([`Family::shapes_per_batch`]).
    pub fn batches(self, size: usize) -> Batches {
        Batches {
            family: self,
            size,
            shapes: self.shapes(size),
            next: 0,
        }
    }

    /// How many shapes one batch asks about: the glob and pattern trees
    /// are a few files, written once per batch, so a batch is large; a
    /// `.gitignore` rule needs a directory of its own (its scope), so a
    /// batch holds [`gitignore::RULES_PER_BATCH`] of them.
    pub fn shapes_per_batch(self) -> usize {
        match self {
            Family::Glob | Family::Pattern => 4096,
            Family::Gitignore => gitignore::RULES_PER_BATCH,
        }
    }

    /// The plan of `shapes` (batch `index` of the family at `size`).
    fn plan(self, size: usize, index: u64, shapes: &[String]) -> Plan {
        let mut plan = Plan {
            generator: generator_name(self, size),
            version: VERSION,
            seed: index,
            ground: crate::peer::Ground::Shared,
            root: crate::kit::plan::PLAN_ROOT.to_string(),
            files: Vec::new(),
            grep: Vec::new(),
            glob: Vec::new(),
            read: Vec::new(),
            ls: Vec::new(),
            flow: Vec::new(),
        };
        match self {
            Family::Glob => glob::fill(&mut plan, shapes),
            Family::Gitignore => gitignore::fill(&mut plan, shapes),
            Family::Pattern => pattern::fill(&mut plan, shapes),
        }
        plan
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no family's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownFamily(pub String);

impl fmt::Display for UnknownFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown exhaustive family {:?}; the families are glob, gitignore and pattern",
            self.0
        )
    }
}

impl std::error::Error for UnknownFamily {}

impl FromStr for Family {
    type Err = UnknownFamily;

    fn from_str(name: &str) -> Result<Family, UnknownFamily> {
        Family::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| UnknownFamily(name.to_string()))
    }
}

/// The `generator` of a family's plans (and of the divergences and
/// regression files made from them): `exhaustive-glob-3`.
pub fn generator_name(family: Family, size: usize) -> String {
    format!("{GENERATOR_PREFIX}{}-{size}", family.name())
}

/// How every family's generator name starts.
pub const GENERATOR_PREFIX: &str = "exhaustive-";

/// Whether a plan's generator is a family's ([`generator_name`]): its
/// numbered plans are batches, not seeds.
pub fn is_family_plan(generator: &str) -> bool {
    generator.starts_with(GENERATOR_PREFIX)
}

/// What a family holds at one size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count {
    /// Distinct shapes (texts).
    pub shapes: u64,
    /// Calls asked of a peer (a `.gitignore` rule is asked once per
    /// placement).
    pub calls: u64,
}

/// A family's batches ([`Family::batches`]).
#[derive(Debug)]
pub struct Batches {
    family: Family,
    size: usize,
    shapes: Shapes,
    next: u64,
}

impl Iterator for Batches {
    type Item = Plan;

    fn next(&mut self) -> Option<Plan> {
        let shapes: Vec<String> = self
            .shapes
            .by_ref()
            .take(self.family.shapes_per_batch())
            .collect();
        if shapes.is_empty() {
            return None;
        }
        let plan = self.family.plan(self.size, self.next, &shapes);
        self.next += 1;
        Some(plan)
    }
}

/// The tokens a family's shapes are spelled with.
///
/// A shape is one optional prefix (a whole token sequence, at the start
/// only), then body tokens, then one optional suffix. Tokens are chosen so
/// that a text has one spelling: no body token is a prefix of another's
/// text except the stars, and [`Alphabet::follows`] refuses a `*` before a
/// star (`*` `*` is the token `**`; `*` `**` is `**` `*`).
#[derive(Debug)]
pub struct Alphabet {
    /// The prefixes, each a token sequence (the first is empty: none).
    pub prefixes: &'static [&'static [&'static str]],
    /// The body tokens.
    pub body: &'static [&'static str],
    /// The suffixes (the first is empty: none).
    pub suffixes: &'static [&'static str],
    /// Whether body token `next` may follow body token `prev` (`None`:
    /// `next` is the first body token).
    pub follows: fn(Option<&str>, &str) -> bool,
}

/// The one adjacency rule every family shares: a `*` is never followed by
/// another star token, so a run of stars has one spelling (`**`… then at
/// most one `*`).
pub fn stars_once(prev: Option<&str>, next: &str) -> bool {
    !(prev == Some("*") && next.starts_with('*'))
}

/// The shapes of an [`Alphabet`] up to a size, one at a time: by token
/// count, then prefix, suffix and body in alphabet order (an odometer, so
/// nothing but the current shape is held).
#[derive(Debug)]
pub struct Shapes {
    alphabet: &'static Alphabet,
    size: usize,
    /// Tokens in the shape being made.
    tokens: usize,
    prefix: usize,
    suffix: usize,
    /// Indices into the body of the current candidate; `None` when the
    /// current (tokens, prefix, suffix) has not started.
    body: Option<Vec<usize>>,
}

impl Shapes {
    fn new(alphabet: &'static Alphabet, size: usize) -> Shapes {
        Shapes {
            alphabet,
            size,
            tokens: 0,
            prefix: 0,
            suffix: 0,
            body: None,
        }
    }

    /// The body length the current (tokens, prefix, suffix) leaves, if
    /// any.
    fn body_len(&self) -> Option<usize> {
        let prefix = self.alphabet.prefixes[self.prefix].len();
        let suffix = usize::from(!self.alphabet.suffixes[self.suffix].is_empty());
        self.tokens.checked_sub(prefix + suffix)
    }

    /// Move to the next (tokens, prefix, suffix); `false` past the size.
    fn advance_frame(&mut self) -> bool {
        self.body = None;
        self.suffix += 1;
        if self.suffix < self.alphabet.suffixes.len() {
            return true;
        }
        self.suffix = 0;
        self.prefix += 1;
        if self.prefix < self.alphabet.prefixes.len() {
            return true;
        }
        self.prefix = 0;
        self.tokens += 1;
        self.tokens <= self.size
    }

    /// Whether the body indices obey [`Alphabet::follows`].
    fn allowed(&self, body: &[usize]) -> bool {
        let mut prev: Option<&str> = None;
        for &i in body {
            let token = self.alphabet.body[i];
            if !(self.alphabet.follows)(prev, token) {
                return false;
            }
            prev = Some(token);
        }
        true
    }

    /// The next body of the current frame (the odometer), allowed or not;
    /// `None` when the frame is done.
    fn step(&mut self) -> Option<Vec<usize>> {
        let n = self.alphabet.body.len();
        match &mut self.body {
            None => {
                let len = self.body_len()?;
                if len > 0 && n == 0 {
                    return None;
                }
                let start = vec![0; len];
                self.body = Some(start.clone());
                Some(start)
            }
            Some(body) => {
                // Increment the last position, carrying left.
                let mut i = body.len();
                loop {
                    if i == 0 {
                        return None;
                    }
                    i -= 1;
                    body[i] += 1;
                    if body[i] < n {
                        break;
                    }
                    body[i] = 0;
                }
                Some(body.clone())
            }
        }
    }

    fn text(&self, body: &[usize]) -> String {
        let mut out = String::new();
        for token in self.alphabet.prefixes[self.prefix] {
            out.push_str(token);
        }
        for &i in body {
            out.push_str(self.alphabet.body[i]);
        }
        out.push_str(self.alphabet.suffixes[self.suffix]);
        out
    }
}

impl Iterator for Shapes {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        if self.tokens > self.size {
            return None;
        }
        loop {
            match self.step() {
                Some(body) if self.allowed(&body) => return Some(self.text(&body)),
                Some(_) => {}
                None => {
                    if !self.advance_frame() {
                        self.tokens = self.size + 1;
                        return None;
                    }
                }
            }
        }
    }
}

/// A glob request at the seam when both lawsuite's flow layer and the
/// `model` peer's accept it (search-contract §5), else as a request to the
/// whole flow: so a shape one validator wrongly passes is still asked of
/// every peer's flow, where the other refuses it.
pub(crate) fn glob_call(request: GlobRequest) -> Call {
    let contract = crate::contract::normalize_glob(&request);
    let model = crate::model::flow::glob_input(&request);
    match (contract, model) {
        (Ok(input), Ok(_)) => Call::Glob(input),
        _ => Call::FlowGlob(request),
    }
}

/// [`glob_call`], for a grep request (search-contract §3).
pub(crate) fn grep_call(request: GrepRequest) -> Call {
    let contract = crate::contract::normalize_grep(&request);
    let model = crate::model::flow::grep_input(&request);
    match (contract, model) {
        (Ok(input), Ok(_)) => Call::Grep(input),
        _ => Call::FlowGrep(request),
    }
}

/// Put `call` in the list of `plan` its method keeps.
pub(crate) fn push_call(plan: &mut Plan, call: Call) {
    match call {
        Call::Grep(input) => plan.grep.push(input),
        Call::Glob(input) => plan.glob.push(input),
        other => plan.flow.push(other),
    }
}

/// A directory's files under `dir`: each of `paths` (relative, `/`
/// separated) as a small file holding its own path, so a grep would tell
/// them apart too.
pub(crate) fn files_under(dir: &str, paths: &[&str]) -> Vec<GeneratedFile> {
    paths
        .iter()
        .map(|p| {
            let path = if dir.is_empty() {
                (*p).to_string()
            } else {
                format!("{dir}/{p}")
            };
            GeneratedFile::new(path.clone(), format!("{path}\n"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Every shape of every family, at the sizes a unit test can hold, is
    /// one text: the token rules leave no text spelled twice.
    #[test]
    fn every_shape_is_one_text() {
        for family in Family::ALL {
            for size in 0..=3 {
                let shapes: Vec<String> = family.shapes(size).collect();
                let distinct: HashSet<&String> = shapes.iter().collect();
                assert_eq!(distinct.len(), shapes.len(), "{family} {size}");
            }
        }
    }

    /// Each size holds the one before it, in the same order, then the new
    /// shapes.
    #[test]
    fn each_size_extends_the_one_before() {
        for family in Family::ALL {
            let two: Vec<String> = family.shapes(2).collect();
            let three: Vec<String> = family.shapes(3).collect();
            assert_eq!(three[..two.len()], two[..], "{family}");
        }
    }

    /// A family's batches ask every shape once, in order, numbered from 0.
    #[test]
    fn batches_cover_the_shapes_in_order() {
        for family in Family::ALL {
            let size = 2;
            let plans: Vec<Plan> = family.batches(size).collect();
            let calls: usize = plans.iter().map(Plan::call_count).sum();
            assert_eq!(calls as u64, family.count(size).calls, "{family}");
            for (i, plan) in plans.iter().enumerate() {
                assert_eq!(plan.seed, i as u64);
                assert_eq!(plan.generator, format!("exhaustive-{family}-2"));
            }
        }
    }

    #[test]
    fn names_read_back() {
        for family in Family::ALL {
            assert_eq!(family.name().parse::<Family>(), Ok(family));
        }
        let unknown = "globs".parse::<Family>().unwrap_err();
        assert!(unknown.to_string().contains("glob, gitignore and pattern"));
    }

    #[test]
    fn size_zero_is_the_empty_shape_alone() {
        for family in Family::ALL {
            assert_eq!(family.shapes(0).collect::<Vec<_>>(), [""], "{family}");
        }
    }
}
