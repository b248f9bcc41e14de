//! Listing a run's trials one at a time, and counting them without
//! listing them.
//!
//! A seed range ([`Item::Seeds`]) is one item however many seeds it holds,
//! and its trials are made as they are asked for: `--seeds
//! 0..100000000 --list` prints its first trial at once in a few
//! megabytes, where a list made up front reached 2.7 GB and aborted, and
//! `0..u64::MAX` overflowed the list's capacity.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::{Engine, Item, ItemId, Kind, PeerRef, Trial, TrialId};

/// One trial before it is asked whether it runs: its id, its seed (in a
/// seed range) and its peer.
type Candidate = (TrialId, Option<u64>, Option<usize>);

/// The candidates of one item.
type Candidates<'a> = Box<dyn Iterator<Item = Candidate> + Send + 'a>;

/// The trials of an [`Engine`] whose id a filter admits, made one at a
/// time ([`Engine::trials_iter`]).
pub struct TrialsIter<'a, F> {
    engine: &'a Engine,
    wanted: F,
    /// The next item to start on.
    next_item: usize,
    /// The item being listed, and its trials still to come.
    current: Option<(usize, Candidates<'a>)>,
}

impl<F> std::fmt::Debug for TrialsIter<'_, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrialsIter")
            .field("next_item", &self.next_item)
            .finish_non_exhaustive()
    }
}

impl<F: Fn(&str) -> bool> Iterator for TrialsIter<'_, F> {
    type Item = Trial;

    fn next(&mut self) -> Option<Trial> {
        loop {
            if let Some((index, candidates)) = &mut self.current {
                for (id, seed, peer) in candidates.by_ref() {
                    if (self.wanted)(id.as_str()) {
                        return Some(self.engine.trial(*index, id, seed, peer));
                    }
                }
            }
            let index = self.next_item;
            let item = self.engine.items.get(index)?;
            self.current = Some((index, self.engine.candidates(item)));
            self.next_item += 1;
        }
    }
}

impl Engine {
    /// [`Engine::trials_where`], made one at a time as they are asked for:
    /// a seed range's trials are never all held at once. In item order,
    /// each item's seeds in order and each seed's peers in registry order,
    /// as [`Engine::trials`] lists them.
    pub fn trials_iter<F>(&self, wanted: F) -> TrialsIter<'_, F>
    where
        F: Fn(&str) -> bool,
    {
        TrialsIter {
            engine: self,
            wanted,
            next_item: 0,
            current: None,
        }
    }

    /// How many trials of each kind [`Engine::trials`] would list, counted
    /// item by item without listing them (a range of `u64::MAX` seeds in
    /// one step).
    pub fn trial_counts(&self) -> BTreeMap<Kind, u128> {
        let everyone = self.everyone.len() as u128;
        let subjects = everyone.saturating_sub(1);
        let mut counts = BTreeMap::new();
        for item in &self.items {
            let n = match item {
                Item::Law(_) | Item::Regression { .. } => {
                    everyone.saturating_sub(self.first_judged() as u128)
                }
                Item::Seed(_) => subjects,
                Item::Exhaustive(e) => (1..self.everyone.len())
                    .filter(|p| e.asks(self.everyone[*p].builtin()))
                    .count() as u128,
                Item::Seeds(r) => u128::from(r.seeds.end - r.seeds.start) * subjects,
                _ => 1,
            };
            *counts.entry(item.kind()).or_insert(0) += n;
        }
        counts
    }

    /// The item `trial` runs: for a trial of a seed range, its seed's
    /// [`Item::Seed`].
    pub fn trial_item(&self, trial: &Trial) -> Cow<'_, Item> {
        self.resolve(trial.item, trial.seed)
    }

    /// Item `index`, or, for a seed range and a `seed`, that seed's item.
    pub(super) fn resolve(&self, index: usize, seed: Option<u64>) -> Cow<'_, Item> {
        match (&self.items[index], seed) {
            (Item::Seeds(r), Some(seed)) => Cow::Owned(Item::Seed(r.seed(seed))),
            (item, _) => Cow::Borrowed(item),
        }
    }

    /// The trials `item` makes, lazily: a seed range's one seed at a time.
    fn candidates<'a>(&'a self, item: &'a Item) -> Candidates<'a> {
        let id = item.item_id();
        let name = move |p: usize| self.everyone[p].name();
        let on = move |id: &ItemId, p: usize| id.clone().on(name(p));
        match item {
            Item::Law(_) | Item::Regression { .. } => Box::new(
                (self.first_judged()..self.everyone.len())
                    .map(move |p| (on(&id, p), None, Some(p))),
            ),
            Item::Seed(_) => {
                Box::new((1..self.everyone.len()).map(move |p| (on(&id, p), None, Some(p))))
            }
            // A family at a class's default size is asked of that class's
            // subjects only.
            Item::Exhaustive(e) => Box::new(
                (1..self.everyone.len())
                    .filter(move |p| e.asks(self.everyone[*p].builtin()))
                    .map(move |p| (on(&id, p), None, Some(p))),
            ),
            // Without a subject a range has no trial: not one seed is
            // walked (`0..u64::MAX` would never end).
            Item::Seeds(_) if self.everyone.len() < 2 => Box::new(std::iter::empty()),
            Item::Seeds(r) => Box::new(r.seeds.clone().flat_map(move |seed| {
                let id = r.seed(seed).item_id();
                (1..self.everyone.len()).map(move |p| (on(&id, p), Some(seed), Some(p)))
            })),
            _ => Box::new(std::iter::once((id.clone().alone(), None, None))),
        }
    }

    /// The trial of item `index` with `id`, `seed` and `peer`, and why it
    /// does not run, when it does not.
    fn trial(&self, index: usize, id: TrialId, seed: Option<u64>, peer: Option<usize>) -> Trial {
        let item = self.resolve(index, seed);
        let skip = match (peer, &*item) {
            (Some(p), item) => self.skip(item, &self.everyone[p]),
            (None, Item::Unavailable { why, .. }) => Some(why.clone()),
            (None, _) => None,
        };
        Trial {
            id,
            item: index,
            seed,
            peer: peer.map(PeerRef::at),
            kind: item.kind(),
            skip,
        }
    }
}
