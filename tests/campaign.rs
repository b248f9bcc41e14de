//! The reference and the model (a second implementation written from the
//! spec text, sharing no rule code with it) agree through a fuzz campaign
//! (`lawsuite::kit::campaign`): every call of every seed asked in the
//! budget, both generators and grounds. A wrong rule in either is a group.
//!
//! `LAWSUITE_CAMPAIGN_SECS` sets the budget (default 5 s); `cargo mutants
//! -- --test campaign` with a longer one measures what a campaign kills
//! beyond the default seeds (docs/mutants.md).

use std::time::Duration;

use lawsuite::kit::campaign::Campaign;
use lawsuite::kit::compare::Compared;
use lawsuite::model::Model;
use lawsuite::peer::Builtin;
use lawsuite::portable::Portable;

#[test]
fn portable_and_the_model_agree_through_a_campaign() {
    let secs: u64 = match std::env::var("LAWSUITE_CAMPAIGN_SECS") {
        Ok(text) => text.parse().unwrap_or_else(|_| {
            panic!("LAWSUITE_CAMPAIGN_SECS={text:?} is not a number of seconds")
        }),
        Err(_) => 5,
    };
    let dir = tempfile::tempdir().unwrap();
    let campaign = Campaign::new(
        dir.path().join("fuzz-state.json"),
        dir.path().join("regressions"),
        Duration::from_secs(secs),
    );
    let (portable, model) = (Portable::default(), Model);
    let found = campaign
        .run(
            Compared::builtin(&portable, Builtin::Portable),
            &[Compared::builtin(&model, Builtin::Model)],
            None,
            |_| {},
        )
        .unwrap();
    let groups: Vec<String> = found
        .new_groups()
        .map(|g| {
            format!(
                "{} (first: {} seed {} call {}; kept as {:?})",
                g.signature, g.first.sequence, g.first.seed, g.first.call, g.regression
            )
        })
        .collect();
    assert!(found.progress.seeds > 0, "no seed was asked in {secs} s");
    assert!(groups.is_empty(), "{groups:#?}");
}
