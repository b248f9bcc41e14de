//! Expected failures: laws (or regressions) a peer is known to fail, each
//! with the reason, so a run is green while the list is true and red the
//! moment it is not (a listed law that passes is an unexpected pass).
//!
//! Two kinds of listing. A project's is TOML with one table per peer
//! mapping an id to its reason:
//!
//! ```toml
//! [mine]
//! "grep::context::context-tie-goes-to-the-earlier-match" = "context ownership is not done yet"
//! ```
//!
//! * lawsuite's own, for its built-in peers ([`Expectations::shipped`],
//!   the laws of [`crate::differences`]): keyed by the **built-in**, so they
//!   follow `ripgrep` whatever it is registered as, and never touch a
//!   user's peer that happens to share a name;
//! * a project's, for the peers it registers ([`Expectations::load_dir`],
//!   [`Expectations::add`]): keyed by the **registered name**.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

type PeerTable = BTreeMap<String, BTreeMap<String, String>>;

/// One listed failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// Why it fails.
    pub reason: String,
    /// Where it is listed (a file, or the code that added it).
    pub source: String,
}

/// Every expected failure of a run.
#[derive(Clone, Debug, Default)]
pub struct Expectations {
    /// Built-in → id → listing.
    by_builtin: BTreeMap<String, BTreeMap<String, Expected>>,
    /// Registered name → id → listing.
    by_name: BTreeMap<String, BTreeMap<String, Expected>>,
    /// Files that could not be read or parsed: `(file, what is wrong)`.
    pub problems: Vec<(String, String)>,
}

impl Expectations {
    /// lawsuite's own expected failures for its built-in peers: the laws
    /// of every entry of [`crate::differences`], keyed by built-in.
    pub fn shipped() -> Expectations {
        let mut out = Expectations::default();
        let table = crate::differences::table();
        if let Some(problem) = &table.problem {
            out.problems.push((
                "lawsuite's known differences of its built-in peers".into(),
                problem.clone(),
            ));
        }
        for d in &table.differences {
            let source = format!(
                "lawsuite's known differences of its built-in peers (peers/expected/{}, {})",
                crate::differences::FILE,
                d.id
            );
            for peer in &d.peers {
                let listed = out.by_builtin.entry(peer.clone()).or_default();
                for law in &d.laws {
                    listed.insert(
                        law.clone(),
                        Expected {
                            reason: format!("{}: {}", d.id, d.reason),
                            source: source.clone(),
                        },
                    );
                }
            }
        }
        out
    }

    /// Add a project's tables: every `*.toml` file of `dir`, keyed by
    /// registered peer name. A missing directory holds none.
    pub fn load_dir(&mut self, dir: &Path) {
        for file in toml_files(dir) {
            let source = file.display().to_string();
            let parsed = crate::file_error::FileError::read_to_string(&file)
                .map_err(|e| format!("cannot be read ({})", e.kind()))
                .and_then(|text| toml::from_str::<PeerTable>(&text).map_err(|e| e.to_string()));
            match parsed {
                Ok(tables) => insert(&mut self.by_name, tables, &source),
                Err(e) => self.problems.push((source, e)),
            }
        }
    }

    /// List one expected failure of the peer registered as `peer`.
    pub fn add(&mut self, peer: &str, id: &str, reason: &str, source: &str) {
        self.by_name.entry(peer.to_string()).or_default().insert(
            id.to_string(),
            Expected {
                reason: reason.to_string(),
                source: source.to_string(),
            },
        );
    }

    /// The listing of `id` on the peer registered as `name` (the built-in
    /// `builtin`, if it is one): the project's by name first, then
    /// lawsuite's by built-in.
    pub fn lookup(&self, name: &str, builtin: Option<&str>, id: &str) -> Option<&Expected> {
        self.by_name
            .get(name)
            .and_then(|t| t.get(id))
            .or_else(|| self.by_builtin.get(builtin?)?.get(id))
    }

    /// The project's listed ids that name no known item, with the peer
    /// and source, so a typo never silently lists nothing.
    pub fn unknown<'a>(
        &'a self,
        known: &dyn Fn(&str) -> bool,
    ) -> Vec<(&'a str, &'a str, &'a Expected)> {
        self.by_name
            .iter()
            .flat_map(|(peer, ids)| {
                ids.iter()
                    .map(move |(id, e)| (peer.as_str(), id.as_str(), e))
            })
            .filter(|(_, id, _)| !known(id))
            .collect()
    }
}

fn insert(
    into: &mut BTreeMap<String, BTreeMap<String, Expected>>,
    tables: PeerTable,
    source: &str,
) {
    for (peer, ids) in tables {
        let table = into.entry(peer).or_default();
        for (id, reason) in ids {
            table.insert(
                id,
                Expected {
                    reason,
                    source: source.to_string(),
                },
            );
        }
    }
}

/// The `*.toml` files of `dir`, sorted.
pub fn toml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "toml"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_tables_follow_the_builtin_not_the_name() {
        let e = Expectations::shipped();
        assert!(e.problems.is_empty(), "{:?}", e.problems);
        let id = "text::lines::dot-matches-a-lone-cr";
        assert!(e.lookup("rg", Some("ripgrep"), id).is_some());
        // A user's peer named like a built-in gets none of its listings.
        assert!(e.lookup("ripgrep", None, id).is_none());
    }

    #[test]
    fn project_tables_are_by_name_and_bad_files_are_problems() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.toml"), "[mine]\n\"x::y\" = \"why\"\n").unwrap();
        std::fs::write(dir.path().join("b.toml"), "[mine\n").unwrap();
        let mut e = Expectations::default();
        e.load_dir(dir.path());
        assert_eq!(
            e.lookup("mine", None, "x::y").map(|x| x.reason.as_str()),
            Some("why")
        );
        assert_eq!(e.problems.len(), 1);
        assert!(e.problems[0].0.ends_with("b.toml"));
        assert_eq!(e.unknown(&|id| id == "x::y").len(), 0);
        assert_eq!(e.unknown(&|_| false).len(), 1);
    }
}
