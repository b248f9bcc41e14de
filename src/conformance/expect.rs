//! Expected failures: laws (or regressions) a peer is known to fail, each
//! with the reason, so a run is green while the list is true and red the
//! moment it is not (a listed law that passes is an unexpected pass).
//!
//! Two kinds of listing. A project's is TOML with one table per peer
//! mapping an item id to its reason, the id a trial has without its peer
//! ([`super::ItemId`]):
//!
//! ```toml
//! [mine]
//! "law::grep::context::context-tie-goes-to-the-earlier-match" = "context ownership is not done yet"
//! "regression::r1" = "waiting on upstream"
//! ```
//!
//! A law listed the old way, without `law::`, is still read as that law,
//! with a warning ([`Expectations::warnings`]) naming the new spelling.
//!
//! * lawsuite's own, for its built-in peers ([`Expectations::shipped`],
//!   the laws of [`crate::differences`]): keyed by the **built-in**, so they
//!   follow `ripgrep` whatever it is registered as, and never touch a
//!   user's peer that happens to share a name;
//! * a project's, for the peers it registers ([`Expectations::load_dir`],
//!   [`Expectations::add`]): keyed by the **registered name**.

use crate::peer::Builtin;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::ItemId;

type PeerTable = BTreeMap<String, BTreeMap<String, String>>;

/// One listed failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// Why it fails.
    pub reason: String,
    /// Where it is listed (a file, or the code that added it).
    pub source: String,
}

/// An expected-failures file (or lawsuite's own table) that cannot be
/// used: a run shows it as a failing `expected::invalid::<source>` trial.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidListing {
    /// The file, or what lawsuite's own table is called.
    pub source: String,
    /// What is wrong with it.
    pub why: String,
}

impl std::fmt::Display for InvalidListing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the expected-failures file {} is not valid: {}",
            self.source, self.why
        )
    }
}

/// Every expected failure of a run.
#[derive(Clone, Debug, Default)]
pub struct Expectations {
    /// Built-in → id → listing.
    by_builtin: BTreeMap<String, BTreeMap<String, Expected>>,
    /// Registered name → id → listing.
    by_name: BTreeMap<String, BTreeMap<String, Expected>>,
    /// Files that could not be read or parsed.
    pub problems: Vec<InvalidListing>,
    /// Listings read but spelled the old way, each a sentence naming the
    /// new spelling, for a front door to show.
    pub warnings: Vec<String>,
    /// (registered name, key) → the id as written, where it differs.
    written: BTreeMap<(String, String), String>,
}

/// The item id a listed `id` names: `law::x::y` for itself and for the
/// old spelling `x::y`; `regression::r1` for itself. `--update-expectations`
/// matches a file's entries with it, whichever spelling they use.
///
/// ```
/// use lawsuite::conformance::expect::key_of;
/// assert_eq!(key_of("grep::x::y"), "law::grep::x::y");
/// assert_eq!(key_of("law::grep::x::y"), "law::grep::x::y");
/// assert_eq!(key_of("regression::r1"), "regression::r1");
/// ```
pub fn key_of(id: &str) -> String {
    key(id).0
}

/// The key of a listed `id`: the item id of a law or regression as
/// written; a bare law id (the old spelling) as that law's item id, with
/// `true`. Anything else is kept as written (it names nothing, and
/// [`Expectations::unknown`] says so).
fn key(id: &str) -> (String, bool) {
    match id.parse::<ItemId>() {
        Ok(_) => (id.to_string(), false),
        Err(_) => (ItemId::Law(id.to_string()).to_string(), true),
    }
}

impl Expectations {
    /// lawsuite's own expected failures for its built-in peers: the laws
    /// of every entry of [`crate::differences`], keyed by built-in.
    pub fn shipped() -> Expectations {
        let mut out = Expectations::default();
        let table = crate::differences::table();
        if let Some(problem) = &table.problem {
            out.problems.push(InvalidListing {
                source: "lawsuite's known differences of its built-in peers".into(),
                why: problem.clone(),
            });
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
                        ItemId::Law(law.clone()).to_string(),
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
                Ok(tables) => {
                    for (peer, ids) in tables {
                        for (id, reason) in ids {
                            self.add(&peer, &id, &reason, &source);
                        }
                    }
                }
                Err(why) => self.problems.push(InvalidListing { source, why }),
            }
        }
    }

    /// List one expected failure of the peer registered as `peer`.
    /// `id` is the item id (`law::…`, `regression::…`); a bare law id is
    /// read as `law::<id>`, with a warning.
    pub fn add(&mut self, peer: &str, id: &str, reason: &str, source: &str) {
        let (key, respelled) = key(id);
        if respelled {
            self.warnings.push(format!(
                "{source} lists {id:?} as an expected failure of {peer}; expected failures name a law by its item id now: write {key:?}"
            ));
            self.written
                .insert((peer.to_string(), key.clone()), id.to_string());
        }
        self.by_name.entry(peer.to_string()).or_default().insert(
            key,
            Expected {
                reason: reason.to_string(),
                source: source.to_string(),
            },
        );
    }

    /// The listing of the item `id` (`law::…`, `regression::…`) on the
    /// peer registered as `name` (the built-in `builtin`, if it is one):
    /// the project's by name first, then lawsuite's by built-in.
    pub fn lookup(&self, name: &str, builtin: Option<Builtin>, id: &str) -> Option<&Expected> {
        self.by_name
            .get(name)
            .and_then(|t| t.get(id))
            .or_else(|| self.by_builtin.get(builtin?.name())?.get(id))
    }

    /// The project's listed ids that name no known item (`known` is asked
    /// with item ids), with the peer and source, each id as written, so a
    /// typo never silently lists nothing.
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
            .map(|(peer, id, e)| {
                let written = self.written.get(&(peer.to_string(), id.to_string()));
                (peer, written.map_or(id, String::as_str), e)
            })
            .collect()
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
        let id = "law::text::lines::dot-matches-a-lone-cr";
        assert!(e.lookup("rg", Some(Builtin::Ripgrep), id).is_some());
        // A user's peer named like a built-in gets none of its listings.
        assert!(e.lookup("ripgrep", None, id).is_none());
    }

    #[test]
    fn project_tables_are_by_name_and_bad_files_are_problems() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("a.toml"),
            "[mine]\n\"law::x::y\" = \"why\"\n\"regression::r1\" = \"upstream\"\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("b.toml"), "[mine\n").unwrap();
        let mut e = Expectations::default();
        e.load_dir(dir.path());
        assert_eq!(
            e.lookup("mine", None, "law::x::y")
                .map(|x| x.reason.as_str()),
            Some("why")
        );
        assert!(e.lookup("mine", None, "regression::r1").is_some());
        assert!(e.warnings.is_empty(), "{:?}", e.warnings);
        assert_eq!(e.problems.len(), 1);
        assert!(e.problems[0].source.ends_with("b.toml"));
        let known = |id: &str| id == "law::x::y" || id == "regression::r1";
        assert_eq!(e.unknown(&known).len(), 0);
        assert_eq!(e.unknown(&|_| false).len(), 2);
    }

    /// A law listed without `law::`, as keys were once written, is that
    /// law, with a warning that names the new spelling; an unknown one is
    /// reported as written.
    #[test]
    fn the_old_spelling_of_a_law_is_read_with_a_warning() {
        let mut e = Expectations::default();
        e.add("mine", "x::y", "why", "mine.toml");
        assert!(e.lookup("mine", None, "law::x::y").is_some());
        assert_eq!(
            e.warnings,
            [
                r#"mine.toml lists "x::y" as an expected failure of mine; expected failures name a law by its item id now: write "law::x::y""#
            ]
        );
        let unknown = e.unknown(&|_| false);
        assert_eq!(unknown.len(), 1);
        assert_eq!((unknown[0].0, unknown[0].1), ("mine", "x::y"));
    }
}
