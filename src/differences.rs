//! The known differences of lawsuite's built-in peers from the contract,
//! in one table (`peers/expected/differences.toml`, compiled in).
//!
//! A built-in peer that drives `rg` inherits `rg`'s readings of a few
//! rules; where that reading is not the contract's, the difference is
//! listed once here, with everything that depends on it:
//!
//! * `peers`: the built-ins that differ. An entry follows a built-in
//!   whatever it is registered as, and never applies to a user's peer.
//! * `laws`: the laws those peers are expected to fail
//!   ([`crate::conformance::expect::Expectations::shipped`]). A listed law
//!   that passes fails the run, so the table cannot go stale.
//! * `tests`: the Rust tests that show the difference
//!   (`tests/ripgrep_walk.rs`, `tests/kit_cases.rs`); each asserts the
//!   peers still differ.
//! * `recogniser`: for a difference generated calls can meet, what the
//!   peer is predicted to answer ([`crate::kit::explain`]); a divergence is
//!   counted as documented only when the answer is that prediction.
//!
//! ```
//! let walk: Vec<&str> = lawsuite::differences::of(lawsuite::peer::Builtin::RipgrepWalk).map(|d| d.id.as_str()).collect();
//! assert!(walk.contains(&"negative-glob-prunes-directories"));
//! let d = lawsuite::differences::by_test("negative_glob_prunes_directories").unwrap();
//! assert!(d.recogniser.is_some() && !d.laws.is_empty());
//! ```

use std::sync::OnceLock;

use serde::Deserialize;

/// One known difference.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Difference {
    /// Its name (kebab-case), as reports count it.
    pub id: String,
    /// The built-in peers that differ.
    pub peers: Vec<String>,
    /// Why, with the minimal situation that shows it.
    pub reason: String,
    /// What the recogniser predicts the peer answers, when generated calls
    /// can meet the difference ([`crate::kit::explain`] holds the code).
    #[serde(default)]
    pub recogniser: Option<String>,
    /// The laws the peers fail because of it (ids without the peer).
    #[serde(default)]
    pub laws: Vec<String>,
    /// The Rust tests that show it.
    #[serde(default)]
    pub tests: Vec<String>,
}

/// The parsed table, or why the shipped file did not parse.
#[derive(Debug)]
pub struct Table {
    /// Every entry, in file order.
    pub differences: Vec<Difference>,
    /// A parse error of the shipped file (a lawsuite bug; reported as a
    /// broken check by every run rather than a panic).
    pub problem: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    difference: Vec<Difference>,
}

/// The table's file under `peers/expected/`.
pub const FILE: &str = "differences.toml";

/// The table, parsed once.
pub fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let text = crate::shipped::expected()
            .iter()
            .find(|(name, _)| *name == FILE)
            .map_or("", |(_, text)| *text);
        match toml::from_str::<File>(text) {
            Ok(file) => Table {
                differences: file.difference,
                problem: None,
            },
            Err(e) => Table {
                differences: Vec::new(),
                problem: Some(format!("peers/expected/{FILE}: {e}")),
            },
        }
    })
}

/// The differences of one built-in peer, in table order.
pub fn of(builtin: crate::peer::Builtin) -> impl Iterator<Item = &'static Difference> {
    table()
        .differences
        .iter()
        .filter(move |d| d.peers.iter().any(|p| p == builtin.name()))
}

/// The difference a test shows, if it shows one.
pub fn by_test(test: &str) -> Option<&'static Difference> {
    table()
        .differences
        .iter()
        .find(|d| d.tests.iter().any(|t| t == test))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_table_parses_and_every_entry_says_why() {
        let t = table();
        assert_eq!(t.problem, None);
        assert!(t.differences.len() >= 9);
        // A listed law that does not exist would list nothing, silently,
        // for as long as the peer passes it.
        let (laws, errors) = crate::law::shipped();
        assert!(errors.is_empty(), "{errors:?}");
        let shipped: std::collections::BTreeSet<&str> =
            laws.iter().map(|l| l.id.as_str()).collect();
        let mut ids = std::collections::BTreeSet::new();
        for d in &t.differences {
            assert!(ids.insert(&d.id), "{} is listed twice", d.id);
            assert!(!d.reason.is_empty() && !d.peers.is_empty(), "{}", d.id);
            assert!(
                !d.laws.is_empty() || !d.tests.is_empty(),
                "{} is shown by no law and no test",
                d.id
            );
            for law in &d.laws {
                assert!(
                    shipped.contains(law.as_str()),
                    "{}: lists {law}, which is no shipped law",
                    d.id
                );
            }
            for peer in &d.peers {
                assert!(
                    peer.parse::<crate::registry::Builtin>().is_ok(),
                    "{}: {peer} is not a built-in",
                    d.id
                );
            }
        }
    }
}
