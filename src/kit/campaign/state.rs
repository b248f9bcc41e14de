//! What a campaign keeps between runs: the next seed of each sequence, the
//! seeds asked past it, and the groups found ([`State`]); written whole
//! through the careful writer and read back, format 1 carried on.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::CampaignError;
use crate::file_error::{FileError, FileErrorKind};
use crate::kit::plan::FileKind;
use crate::kit::regression::Regression;
use crate::kit::shrink::Decisions;

use super::guide::Origin;
use super::risk::Species;

/// The state file's format; format 1 (groups keyed by the unshrunk
/// difference) is read and carried on, any other is refused with what to
/// do.
const STATE_FORMAT: u32 = 2;

/// Where a group was first met: its lineage ([`Origin`]: a seed's call,
/// and the edits of a mutant), the group's replay line.
pub type Finding = Origin;

/// Divergent calls that shrink to one bug.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Group {
    /// `peer × method × difference`, the key: the shrunk case's
    /// difference, or while its shrink is cut ([`Group::pending`]) the
    /// difference it was met with.
    pub signature: String,
    /// The peer.
    pub peer: String,
    /// The method.
    pub method: String,
    /// How the answers differ ([`Difference`](crate::kit::difference::Difference)).
    pub differs: String,
    /// The spec section the shrunk difference suggests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
    /// The shape of the shrunk case: its tree's entries and what they
    /// hold, and the call.
    #[serde(default)]
    pub shape: Option<String>,
    /// The first call met.
    pub first: Finding,
    /// Calls of this group met, over every campaign.
    pub seen: u64,
    /// The regression file kept for it, when shrinking and writing worked.
    #[serde(default)]
    pub regression: Option<String>,
    /// Why it could not be kept, when it was not.
    #[serde(default)]
    pub not_kept: Option<String>,
    /// Which campaign found it (1 for the first).
    pub campaign: u64,
    /// Seconds into that campaign.
    pub after_secs: f64,
    /// The unshrunk signatures met that shrank into this group: met again,
    /// they count here without another shrink.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// A shrink cut by the deadline or an interrupt: its answers so far,
    /// which the next campaign replays and goes on from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<Decisions>,
    /// The step bound stopped its shrink after this many steps: the case is
    /// smaller than the original but may not be minimal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_bound: Option<usize>,
    /// Who agreed with whom on the call first met (`portable, model |
    /// mine`): the agreement partition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    /// The `model` alone disagreed with the reference, every other peer
    /// agreeing with it (N+1): the model or the spec text is suspect, not a
    /// peer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub model_alone: bool,
}

/// What is kept between campaigns.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct State {
    /// The state file's format number (2 today).
    pub format: u32,
    /// Campaigns run so far.
    pub campaigns: u64,
    /// The first seed of each sequence not asked yet, by [`Slot::name`](super::Slot::name).
    pub next: BTreeMap<String, u64>,
    /// Seeds past `next` already asked (a campaign whose jobs left a gap
    /// below them when it stopped): skipped when drawn.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub done_beyond: BTreeMap<String, BTreeSet<u64>>,
    /// Every group found, in the order found.
    pub groups: Vec<Group>,
    /// Every behaviour the calls showed, and how often: the residual risk
    /// ([`Species`]), over every campaign.
    #[serde(default)]
    pub species: Species,
    /// The shard of the seeds this state's campaigns asked (`k` of `n`,
    /// 1-based), when they were sharded: what a merge needs to know which
    /// seeds below `next` were asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<(u64, u64)>,
}

impl State {
    /// The state in `path`, or a fresh one when there is none.
    pub fn load(path: &Path) -> Result<State, CampaignError> {
        match FileError::read_to_string(path) {
            Ok(text) => State::parse(&text, path),
            Err(e) if matches!(e.kind(), FileErrorKind::Io(io) if io.kind() == std::io::ErrorKind::NotFound) => {
                Ok(State::fresh())
            }
            Err(e) => Err(CampaignError::State {
                path: path.into(),
                message: format!("cannot be read: {}", e.kind()),
            }),
        }
    }

    /// Write the state whole, through the one careful writer
    /// ([`crate::regular_file::replace_whole`]: a new file renamed over the
    /// old one, its mode kept; a device or a read-only state refused).
    pub fn save(&self, path: &Path) -> Result<(), CampaignError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| CampaignError::Write(FileError::io(dir, e)))?;
        }
        crate::regular_file::replace_whole(path, &self.text()).map_err(CampaignError::Write)
    }

    /// The state as its file holds it.
    pub(super) fn text(&self) -> String {
        // A state is plain data: it always serialises.
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// A state file's text read back (`path` names it in errors).
    pub(super) fn parse(text: &str, path: &Path) -> Result<State, CampaignError> {
        let mut state: State = serde_json::from_str(text).map_err(|e| CampaignError::State {
            path: path.into(),
            message: format!("is not a campaign state: {e}"),
        })?;
        match state.format {
            STATE_FORMAT => {}
            // Format 1 keyed groups by the unshrunk difference: its groups
            // stay (they were kept as regressions), and the same bug met
            // again is keyed anew.
            1 => state.format = STATE_FORMAT,
            other => {
                return Err(CampaignError::State {
                    path: path.into(),
                    message: format!(
                        "is in format {other}, and this lawsuite reads formats 1 and {STATE_FORMAT}"
                    ),
                });
            }
        }
        Ok(state)
    }

    pub(super) fn fresh() -> State {
        State {
            format: STATE_FORMAT,
            ..State::default()
        }
    }

    /// Another campaign's state (a shard's, from another machine) merged
    /// into this one: its groups added (one bug found by two shards is one
    /// group, its calls counted once each, its aliases kept), its
    /// behaviours counted in ([`Species::merge`], so the residual risk is
    /// the whole sweep's), and the seeds it asked marked asked, so a
    /// campaign on the merged state asks none of them again. The merged
    /// state is not a shard's.
    ///
    /// ```
    /// use lawsuite::kit::campaign::State;
    /// let shard = |k: u64, next: u64| State {
    ///     next: [("smthrs".to_string(), next)].into(),
    ///     shard: Some((k, 2)),
    ///     ..State::default()
    /// };
    /// // Shard 1 of 2 asked seeds 0, 2, 4; shard 2 asked 1, 3, 5, 7.
    /// let mut merged = shard(1, 6);
    /// merged.merge(&shard(2, 9));
    /// assert_eq!(merged.next["smthrs"], 6);
    /// assert_eq!(merged.done_beyond["smthrs"], [7].into());
    /// assert_eq!(merged.shard, None);
    /// ```
    pub fn merge(&mut self, other: &State) {
        let names: BTreeSet<String> = self.next.keys().chain(other.next.keys()).cloned().collect();
        for name in names {
            let mine = self.asked(&name);
            let theirs = other.asked(&name);
            // The first seed neither asked, and those asked past it.
            let mut frontier = 0;
            while mine.contains(frontier) || theirs.contains(frontier) {
                frontier += 1;
            }
            let beyond: BTreeSet<u64> = mine
                .beyond(frontier)
                .chain(theirs.beyond(frontier))
                .collect();
            self.next.insert(name.clone(), frontier);
            if beyond.is_empty() {
                self.done_beyond.remove(&name);
            } else {
                self.done_beyond.insert(name, beyond);
            }
        }
        self.shard = None;
        self.campaigns = self.campaigns.max(other.campaigns);
        for group in &other.groups {
            match self.group_of(&group.signature) {
                Some(same) => {
                    same.seen += group.seen;
                    for alias in &group.aliases {
                        if !same.aliases.contains(alias) && *alias != same.signature {
                            same.aliases.push(alias.clone());
                        }
                    }
                }
                None => self.groups.push(group.clone()),
            }
        }
        self.species.merge(&other.species);
    }

    /// Which seeds of sequence `name` this state's campaigns asked.
    fn asked(&self, name: &str) -> AskedSeeds<'_> {
        AskedSeeds {
            next: self.next.get(name).copied().unwrap_or(0),
            shard: self.shard,
            beyond: self.done_beyond.get(name),
        }
    }

    /// The group `signature` belongs to: its own, or one it shrank into.
    pub(super) fn group_of(&mut self, signature: &str) -> Option<&mut Group> {
        self.groups
            .iter_mut()
            .find(|g| g.signature == signature || g.aliases.iter().any(|a| a == signature))
    }
}

/// The shape of a shrunk case: how many entries of which kind, the
/// features that decide most rules (ignore files, hidden names, binary
/// bytes, non-ASCII names), and the call's method and pattern.
pub fn shape_of(regression: &Regression) -> String {
    let files = &regression.files;
    let count = |kind: FileKind| files.iter().filter(|f| f.kind == kind).count();
    let bytes: usize = files.iter().map(|f| f.content.len()).sum();
    let mut features = Vec::new();
    if files.iter().any(|f| f.path.ends_with(".gitignore")) {
        features.push(".gitignore");
    }
    if files
        .iter()
        .any(|f| f.path.split('/').any(|part| part.starts_with('.')))
    {
        features.push("hidden names");
    }
    if files.iter().any(|f| f.content.contains(&0)) {
        features.push("binary bytes");
    }
    if files.iter().any(|f| !f.path.is_ascii()) {
        features.push("non-ASCII names");
    }
    let call = serde_json::to_value(&regression.call).unwrap_or_default();
    let pattern = call["input"]["pattern"]
        .as_str()
        .map(|p| format!(" pattern {p:?}"))
        .unwrap_or_default();
    format!(
        "{} files ({bytes} bytes), {} dirs, {} symlinks{}; {}{pattern}",
        count(FileKind::File),
        count(FileKind::Dir),
        count(FileKind::Symlink),
        if features.is_empty() {
            String::new()
        } else {
            format!(" ({})", features.join(", "))
        },
        call["method"].as_str().unwrap_or("?"),
    )
}

/// The seeds of one sequence a state's campaigns asked: every seed of
/// their shard below `next`, and those listed past it.
struct AskedSeeds<'a> {
    next: u64,
    shard: Option<(u64, u64)>,
    beyond: Option<&'a BTreeSet<u64>>,
}

impl AskedSeeds<'_> {
    fn contains(&self, seed: u64) -> bool {
        let ours = self.shard.is_none_or(|(k, n)| seed % n == k - 1);
        (seed < self.next && ours) || self.beyond.is_some_and(|b| b.contains(&seed))
    }

    /// The seeds asked at or past `from`.
    fn beyond(&self, from: u64) -> impl Iterator<Item = u64> + '_ {
        (from..self.next).filter(|&seed| self.contains(seed)).chain(
            self.beyond
                .into_iter()
                .flatten()
                .copied()
                .filter(move |&s| s >= from),
        )
    }
}

/// One seed sequence's seeds in this campaign.
#[derive(Debug, Default)]
pub(super) struct Sequence {
    /// This campaign's shard of the seeds (`k` of `n`, 1-based), if any.
    pub(super) shard: Option<(u64, u64)>,
    /// The next seed to hand out.
    pub(super) next: u64,
    /// Handed out, not finished.
    pub(super) in_flight: BTreeSet<u64>,
    /// Handed out and given up (stopped, tree not written): asked again by
    /// the next campaign.
    pub(super) abandoned: BTreeSet<u64>,
    /// Finished; those at or past the first unfinished seed are written as
    /// [`State::done_beyond`].
    pub(super) done: BTreeSet<u64>,
}

impl Sequence {
    pub(super) fn from_state(state: &State, name: &str, shard: Option<(u64, u64)>) -> Sequence {
        Sequence {
            shard,
            next: state.next.get(name).copied().unwrap_or(0),
            done: state.done_beyond.get(name).cloned().unwrap_or_default(),
            ..Sequence::default()
        }
    }

    /// Whether `seed` is this shard's (every seed, unsharded): shard `k`
    /// of `n` takes the seeds `≡ k - 1 (mod n)`, so shards never ask one
    /// seed twice.
    fn ours(&self, seed: u64) -> bool {
        self.shard.is_none_or(|(k, n)| seed % n == k - 1)
    }

    pub(super) fn claim(&mut self) -> u64 {
        while self.done.contains(&self.next) || !self.ours(self.next) {
            self.next += 1;
        }
        let seed = self.next;
        self.next += 1;
        self.in_flight.insert(seed);
        seed
    }

    /// The first seed not finished: where the next campaign starts.
    pub(super) fn frontier(&self) -> u64 {
        let mut frontier = self.next;
        for set in [&self.in_flight, &self.abandoned] {
            if let Some(&first) = set.first() {
                frontier = frontier.min(first);
            }
        }
        while self.done.contains(&frontier) || !self.ours(frontier) {
            frontier += 1;
        }
        frontier
    }

    /// Write this sequence's progress into `state`.
    pub(super) fn write(&self, state: &mut State, name: &str) {
        let frontier = self.frontier();
        state.next.insert(name.to_string(), frontier);
        let beyond: BTreeSet<u64> = self.done.range(frontier..).copied().collect();
        if beyond.is_empty() {
            state.done_beyond.remove(name);
        } else {
            state.done_beyond.insert(name.to_string(), beyond);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_that_is_not_one_is_refused_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fuzz-state.json");
        std::fs::write(&path, "not json").unwrap();
        let err = State::load(&path).unwrap_err();
        assert!(err.to_string().contains("not a campaign state"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "not json");
    }

    /// The seeds a campaign hands out and finishes out of order: the
    /// state's `next` is the first unfinished one, and the finished ones
    /// past it are skipped next time, never asked twice.
    #[test]
    fn a_gap_left_by_parallel_jobs_is_asked_next_time_and_nothing_twice() {
        let mut sequence = Sequence::default();
        let seeds: Vec<u64> = (0..4).map(|_| sequence.claim()).collect();
        assert_eq!(seeds, [0, 1, 2, 3]);
        for seed in [0, 2, 3] {
            sequence.in_flight.remove(&seed);
            sequence.done.insert(seed);
        }
        sequence.in_flight.remove(&1);
        sequence.abandoned.insert(1);
        let mut state = State::default();
        sequence.write(&mut state, "s");
        assert_eq!(state.next["s"], 1);
        assert_eq!(state.done_beyond["s"], BTreeSet::from([2, 3]));
        let mut next = Sequence::from_state(&state, "s", None);
        let asked: Vec<u64> = (0..3).map(|_| next.claim()).collect();
        assert_eq!(asked, [1, 4, 5]);
    }
}
