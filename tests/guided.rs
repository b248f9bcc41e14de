//! A judge that searches (issue 46): campaigns guided by the behaviours
//! they have seen, their residual risk, N+1 blame, and sharded campaigns
//! merged. In-process peers, short budgets: what is checked is what each
//! campaign keeps, never how fast it ran.

use std::time::Duration;

use lawsuite::kit::Generator;
use lawsuite::kit::campaign::{Campaign, Slot, State};
use lawsuite::kit::compare::Compared;
use lawsuite::peer::Builtin;
use lawsuite::peer::Ground;
use lawsuite::portable::Portable;
use lawsuite::testing::Altered;

fn campaign(dir: &std::path::Path, secs: u64) -> Campaign {
    Campaign {
        slots: vec![Slot {
            generator: Generator::Smthrs,
            ground: Ground::Shared,
        }],
        jobs: 1,
        ..Campaign::new(
            dir.join("fuzz-state.json"),
            dir.join("regressions"),
            Duration::from_secs(secs),
        )
    }
}

/// A glob that loses its last path when it holds a brace: the bug of a
/// rarer shape.
fn brace_blind() -> Altered {
    Altered::new("brace-blind").on_glob(|input, answer| {
        let mut answer = answer?;
        if input.pattern.contains('{') && !answer.paths.is_empty() {
            answer.paths.pop();
            answer.total -= 1;
        }
        Ok(answer)
    })
}

/// A guided campaign asks mutants of its corpus beside fresh seeds, keeps
/// the corpus beside its state, and the next campaign starts from it; the
/// behaviours it counted give a residual risk that accumulates.
#[test]
fn a_guided_campaign_mutates_its_corpus_and_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let campaign = campaign(dir.path(), 4);
    let (reference, twin) = (Portable::default(), Portable::default());
    let found = campaign
        .run(
            Compared::builtin(&reference, Builtin::Portable),
            &[Compared::builtin(&twin, Builtin::Portable)],
            None,
            |_| {},
        )
        .unwrap();
    assert!(found.progress.seeds > 0, "{:?}", found.progress);
    assert!(found.progress.mutants > 0, "{:?}", found.progress);
    assert_eq!(found.new_groups().count(), 0);
    let corpus = std::fs::read_to_string(campaign.corpus_path()).unwrap();
    let entries = serde_json::from_str::<serde_json::Value>(&corpus).unwrap()["entries"]
        .as_array()
        .unwrap()
        .len();
    assert!(entries > 0);
    let species = found.state.species.clone();
    assert!(species.calls > 0 && species.residual().is_some());
    let again = campaign
        .run(
            Compared::builtin(&reference, Builtin::Portable),
            &[Compared::builtin(&twin, Builtin::Portable)],
            None,
            |_| {},
        )
        .unwrap();
    assert!(
        again.state.species.calls > species.calls,
        "the counts accumulate"
    );
    // Unguided: seeds only, no corpus written.
    let unguided = Campaign {
        guided: false,
        state: dir.path().join("unguided.json"),
        ..campaign.clone()
    };
    let found = unguided
        .run(
            Compared::builtin(&reference, Builtin::Portable),
            &[Compared::builtin(&twin, Builtin::Portable)],
            None,
            |_| {},
        )
        .unwrap();
    assert_eq!(found.progress.mutants, 0);
    assert!(!unguided.corpus_path().exists());
}

/// N+1: the model alone against the reference and another subject that
/// agrees with it is a finding on the model or the spec text; the same
/// bug in a peer beside a model that agrees is the peer's, and the group
/// says who agreed with whom.
#[test]
fn the_model_alone_is_suspect_and_a_peer_alone_is_blamed() {
    let dir = tempfile::tempdir().unwrap();
    let campaign = Campaign {
        until_found: true,
        ..campaign(dir.path(), 60)
    };
    let (reference, twin, wrong) = (Portable::default(), Portable::default(), brace_blind());
    let found = campaign
        .run(
            Compared::builtin(&reference, Builtin::Portable),
            &[
                Compared::builtin(&wrong, Builtin::Model),
                Compared::new(&twin),
            ],
            None,
            |_| {},
        )
        .unwrap();
    let group = found.new_groups().next().expect("the model's bug is found");
    assert!(group.model_alone, "{group:#?}");
    assert_eq!(
        group.partition.as_deref(),
        Some("portable, portable | brace-blind")
    );
    assert_eq!(found.new_groups().count(), 1, "it stops at the first");

    let dir = tempfile::tempdir().unwrap();
    let campaign = Campaign {
        until_found: true,
        ..self::campaign(dir.path(), 60)
    };
    let model = lawsuite::model::Model;
    let found = campaign
        .run(
            Compared::builtin(&reference, Builtin::Portable),
            &[
                Compared::builtin(&model, Builtin::Model),
                Compared::new(&wrong),
            ],
            None,
            |_| {},
        )
        .unwrap();
    let group = found.new_groups().next().expect("the peer's bug is found");
    assert!(!group.model_alone, "{group:#?}");
    assert_eq!(group.peer, "brace-blind");
    assert_eq!(
        group.partition.as_deref(),
        Some("portable, model | brace-blind")
    );
}

/// Two shards of one sweep ask disjoint seeds; their states merge into one
/// that asks none of them again, with each bug once and the behaviours of
/// both counted.
#[test]
fn shards_ask_disjoint_seeds_and_merge_into_one_state() {
    let dir = tempfile::tempdir().unwrap();
    let (reference, wrong) = (Portable::default(), brace_blind());
    let mut states = Vec::new();
    for k in 1..=2 {
        let shard_dir = dir.path().join(format!("shard-{k}"));
        // Each shard stops at its first group: the test does not depend on
        // how busy the machine is.
        let campaign = Campaign {
            shard: Some((k, 2)),
            guided: false,
            until_found: true,
            ..campaign(&shard_dir, 120)
        };
        let found = campaign
            .run(
                Compared::builtin(&reference, Builtin::Portable),
                &[Compared::new(&wrong)],
                None,
                |_| {},
            )
            .unwrap();
        assert!(found.progress.seeds > 0);
        assert_eq!(found.new_groups().count(), 1, "{:#?}", found.state.groups);
        assert_eq!(found.state.shard, Some((k, 2)));
        // Shard k asked seeds ≡ k - 1 (mod 2), below its `next`.
        assert_eq!(
            (found.state.next["smthrs"] - (k - 1)) % 2,
            0,
            "{:?}",
            found.state.next
        );
        states.push((campaign.state.clone(), found.state));
    }
    let merged_dir = dir.path().join("merged");
    let merging = campaign(&merged_dir, 1);
    let paths: Vec<_> = states.iter().map(|(p, _)| p.clone()).collect();
    let merged = merging.merge(&paths).unwrap();
    let asked: u64 = states.iter().map(|(_, s)| s.next["smthrs"] / 2).sum();
    assert!(
        merged.next["smthrs"]
            >= asked.min(states.iter().map(|(_, s)| s.next["smthrs"]).min().unwrap())
    );
    assert_eq!(merged.shard, None);
    let calls: u64 = states.iter().map(|(_, s)| s.species.calls).sum();
    assert_eq!(merged.species.calls, calls);
    // One bug: each signature once, its calls summed.
    let mut signatures: Vec<&str> = merged.groups.iter().map(|g| g.signature.as_str()).collect();
    let all = signatures.len();
    signatures.sort_unstable();
    signatures.dedup();
    assert_eq!(signatures.len(), all);
    for group in &merged.groups {
        if let Some(file) = &group.regression {
            assert!(file.starts_with(merged_dir.to_str().unwrap()), "{file}");
            assert!(std::path::Path::new(file).is_file(), "{file}");
        }
    }
    // Merged again: nothing changes but the counts already merged.
    let reloaded = State::load(&merging.state).unwrap();
    assert_eq!(reloaded.groups.len(), merged.groups.len());
}
