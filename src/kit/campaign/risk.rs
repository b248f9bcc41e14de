//! The residual risk of a campaign: the chance that the next call shows a
//! behaviour none before it showed.
//!
//! A campaign is a sample of calls, and a sample cannot say what it
//! missed; but it can say how often it is still meeting things for the
//! first time. Read as species discovery (as STADS reads fuzzing), each
//! call's [`Behaviour`](crate::kit::compare::Behaviour) (the method, the
//! shape of the reference's answer, how each subject's stood to it) is a
//! species; by Good–Turing, the chance that the next call belongs to a
//! species not yet seen is about the share of calls whose species was seen
//! exactly once: `f1 / n`.
//!
//! What it means: after `n` calls with `f1` singletons, another call of the
//! same campaign shows a new behaviour with probability about `f1 / n`. What
//! it does not mean: that a bug the generators and mutations cannot reach is
//! unlikely (a shape no plan ever draws has probability zero in this sample
//! and in the estimate), nor that every behaviour seen is right. It is kept
//! in the state, so it accumulates over campaigns.
//!
//! ```
//! use lawsuite::kit::campaign::risk::Species;
//! let mut species = Species::default();
//! for key in ["a", "a", "b", "c", "c", "c"] {
//!     species.add(key.to_string());
//! }
//! assert_eq!(species.once(), 1, "b alone was seen once");
//! assert_eq!(species.residual(), Some(1.0 / 6.0));
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The behaviours seen, and how often.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Species {
    /// Calls counted.
    pub calls: u64,
    /// Each behaviour ([`crate::kit::compare::Behaviour::key`]) and how many
    /// calls showed it.
    pub seen: BTreeMap<String, u64>,
}

impl Species {
    /// Count one call that showed behaviour `key`; `true` when it is the
    /// first.
    pub fn add(&mut self, key: String) -> bool {
        self.calls += 1;
        let count = self.seen.entry(key).or_insert(0);
        *count += 1;
        *count == 1
    }

    /// How many behaviours were seen exactly once (`f1`).
    pub fn once(&self) -> u64 {
        self.seen.values().filter(|&&n| n == 1).count() as u64
    }

    /// The Good–Turing estimate `f1 / n`; `None` before any call.
    pub fn residual(&self) -> Option<f64> {
        (self.calls > 0).then(|| self.once() as f64 / self.calls as f64)
    }

    /// Another campaign's counts added to these (shards merged).
    pub fn merge(&mut self, other: &Species) {
        self.calls += other.calls;
        for (key, n) in &other.seen {
            *self.seen.entry(key.clone()).or_insert(0) += n;
        }
    }

    /// `residual risk 3.2e-4: 12 behaviours seen once in 37500 calls (418
    /// behaviours in all)`.
    pub fn line(&self) -> String {
        match self.residual() {
            None => "residual risk: no call counted yet".to_string(),
            Some(risk) => format!(
                "residual risk {risk:.1e}: the next call shows a behaviour none before it showed with probability about {} in {} ({} behaviours seen once in {} calls, {} behaviours in all; Good–Turing)",
                self.once(),
                self.calls,
                self.once(),
                self.calls,
                self.seen.len()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_counts_are_the_sum() {
        let mut a = Species::default();
        let mut b = Species::default();
        a.add("x".into());
        b.add("x".into());
        b.add("y".into());
        a.merge(&b);
        assert_eq!(a.calls, 3);
        assert_eq!(a.seen["x"], 2);
        assert_eq!(a.once(), 1);
        assert!(
            a.line().contains("1 behaviours seen once in 3 calls"),
            "{}",
            a.line()
        );
        assert_eq!(Species::default().residual(), None);
    }
}
