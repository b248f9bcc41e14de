//! The sentences a verdict is said in, written once: the terminal, the
//! Markdown, JUnit and HTML reports, libtest (`cargo test`) and a results
//! diff all say an unexpected pass, and the failures a report leaves out,
//! in the same words. (They drifted apart when each renderer wrote its
//! own: "passes, but … lists it as an expected failure" in four places and
//! "passed, but … lists it as failing" in a fifth.)
//!
//! ```
//! use lawsuite::conformance::sentence::{FrontDoor, not_shown, unexpected_pass};
//! assert_eq!(
//!     unexpected_pass(Some(("law::glob::x", "mine")), "issue 4", "lawsuite/expected/mine.toml"),
//!     "law::glob::x passes on mine, but lawsuite/expected/mine.toml lists it as an expected failure (issue 4); remove that entry",
//! );
//! assert_eq!(
//!     not_shown(3, FrontDoor::CargoTest),
//!     "… and 3 more failures not shown in full (LAWSUITE_MAX_REPORTS=0 shows every one)",
//! );
//! ```

/// What an unexpected pass says: the trial (`item` on `peer`, when the
/// sentence stands alone) passes, but `source` lists it as an expected
/// failure for `reason`, and what to do.
pub fn unexpected_pass(trial: Option<(&str, &str)>, reason: &str, source: &str) -> String {
    let who = match trial {
        Some((item, peer)) => format!("{item} passes on {peer}"),
        None => "passes".to_string(),
    };
    format!("{who}, but {source} lists it as an expected failure ({reason}); remove that entry")
}

/// The door a report went out through: it says how to see every failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrontDoor {
    /// `lawsuite run`: its flag, and the results file that keeps all.
    Run,
    /// `lawsuite report`/`merge` of results files.
    Report,
    /// `cargo test` through [`crate::suite::Suite`]: the variable.
    CargoTest,
}

impl FrontDoor {
    /// How to see every failure in full.
    pub fn how_to_see_all(self) -> &'static str {
        match self {
            FrontDoor::Run => "--max-reports 0 shows every one; --format jsonl keeps every one",
            FrontDoor::Report => "--max-reports 0 shows every one",
            FrontDoor::CargoTest => "LAWSUITE_MAX_REPORTS=0 shows every one",
        }
    }
}

/// The line a report ends its failures with when it left `n` of them out.
pub fn not_shown(n: usize, door: FrontDoor) -> String {
    format!(
        "… and {n} more {} not shown in full ({})",
        if n == 1 { "failure" } else { "failures" },
        door.how_to_see_all()
    )
}
