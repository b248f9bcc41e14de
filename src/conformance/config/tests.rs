//! The configuration's unit tests: precedence of flags, environment and
//! defaults, and what is refused.

use super::*;

#[test]
fn a_law_directory_that_is_missing_or_empty_is_refused() {
    let empty = tempfile::tempdir().unwrap();
    let missing = Config::builder()
        .law_dir(empty.path().join("nope"))
        .build()
        .unwrap_err();
    assert_eq!(
        missing,
        [ConfigError::LawDirMissing(empty.path().join("nope"))]
    );
    let config = Config::builder()
        .law_dir(empty.path())
        .no_seeds()
        .build()
        .unwrap();
    let peers = PeerSet::new(
        super::super::Subject::new("noop", crate::peer::Noop),
        Vec::new(),
    );
    let problems = config.engine(peers, None).unwrap_err();
    assert_eq!(
        problems,
        [ConfigError::LawDirEmpty(empty.path().to_path_buf())]
    );
}

#[test]
fn no_laws_at_all_is_refused_unless_laws_are_off() {
    let refused = Config::builder().shipped_laws(false).build().unwrap_err();
    assert_eq!(refused, [ConfigError::NoLaws]);
    assert!(
        Config::builder()
            .shipped_laws(false)
            .laws(false)
            .build()
            .is_ok()
    );
}

#[test]
fn one_generator_and_one_range() {
    let config = Config::builder()
        .ground(Ground::Full)
        .seeds(3..5)
        .only_generator(Generator::Lawsuite)
        .build()
        .unwrap();
    assert_eq!(
        config.seed_sets(),
        [SeedSet {
            generator: Generator::Lawsuite,
            ground: Ground::Full,
            seeds: Seeds::Range(3..5)
        }]
    );
}

#[test]
fn an_explicit_setting_beats_the_environment_which_beats_the_default() {
    let env = Environment::from_vars([
        ("LAWSUITE_SEEDS", "7..9"),
        ("LAWSUITE_GROUND", "full"),
        ("LAWSUITE_REPEAT", "3"),
        ("LAWSUITE_SLOW_SECS", "0"),
        ("LAWSUITE_INTERRUPT_GRACE_SECS", "2.5"),
        ("LAWSUITE_MAX_REPORTS", "0"),
        ("LAWSUITE_RG_TIMEOUT_MS", "1500"),
        ("LAWSUITE_RG_MEMORY_MB", "0"),
    ])
    .unwrap();
    let from_env = Config::builder().environment(env.clone()).build().unwrap();
    assert_eq!(from_env.seeds_from_environment(), Some(7..9));
    assert!(
        from_env
            .seed_sets()
            .iter()
            .all(|s| s.seeds == Seeds::Range(7..9))
    );
    assert_eq!(from_env.seed_sets()[1].ground, Ground::Full);
    assert_eq!(from_env.repeat(), 3);
    assert_eq!(from_env.slow_period(), None);
    assert_eq!(from_env.interrupt_grace(), Duration::from_millis(2500));
    assert_eq!(from_env.max_reports(), 0);
    let rg = from_env.peer_options().get_rg();
    assert_eq!(rg.get_timeout(), Duration::from_millis(1500));
    assert_eq!(rg.get_memory_bound(), None);

    let explicit = Config::builder()
        .repeat(2)
        .seeds(1..2)
        .ground(Ground::Shared)
        .slow_period(Some(Duration::from_secs(4)))
        .rg_timeout(Duration::from_secs(9))
        .environment(env)
        .build()
        .unwrap();
    assert_eq!(explicit.repeat(), 2);
    assert_eq!(explicit.seeds_from_environment(), None);
    assert_eq!(explicit.seed_sets()[1].seeds, Seeds::Range(1..2));
    assert_eq!(explicit.seed_sets()[1].ground, Ground::Shared);
    assert_eq!(explicit.slow_period(), Some(Duration::from_secs(4)));
    assert_eq!(
        explicit.peer_options().get_rg().get_timeout(),
        Duration::from_secs(9)
    );

    let defaults = Config::builder().build().unwrap();
    assert_eq!(defaults.repeat(), 1);
    assert_eq!(defaults.max_reports(), DEFAULT_MAX_REPORTS);
    assert_eq!(defaults.interrupt_grace(), Duration::from_secs(10));
    assert_eq!(defaults.peer_options(), &PeerOptions::default());
    assert_eq!(defaults.record_dir(), None);
}

/// The run's `rg` is the one the peers run: a registry started with the
/// configuration's options finds no `rg` where it names a missing one.
#[test]
fn the_peers_are_started_with_the_configurations_rg() {
    let env = Environment::from_vars([("LAWSUITE_RG", "/nonexistent/lawsuite-rg")]).unwrap();
    let config = Config::builder().environment(env).build().unwrap();
    let registry = crate::registry::Registry::builtins_for(None, config.peer_options());
    let set = PeerSet::from_registry(&registry, &[]).unwrap();
    let names: Vec<&str> = set.unavailable.iter().map(|u| u.name.as_str()).collect();
    assert_eq!(names, ["ripgrep", "ripgrep-walk"]);
    assert!(
        set.unavailable
            .iter()
            .all(|u| u.why.contains("/nonexistent/lawsuite-rg")),
        "{:?}",
        set.unavailable
    );
}

/// Explicit over the environment over a default size over each
/// family's own for each class of peer; no families without seeds or
/// with one call.
#[test]
fn exhaustive_sizes_resolve_in_order() {
    let sizes =
        |config: &Config| -> Vec<usize> { config.exhaustive().iter().map(|e| e.size).collect() };
    let env = Environment::from_vars([("LAWSUITE_EXHAUSTIVE_SIZE", "2")]).unwrap();
    // On by default: each family at its own size, and at 2 for the
    // peers that start a process per call.
    let plain = Config::builder().build().unwrap();
    assert_eq!(sizes(&plain), [3, 2, 4, 2, 3, 2]);
    let costs: Vec<Option<PeerCost>> = plain.exhaustive().iter().map(|e| e.cost).collect();
    assert_eq!(
        costs,
        [PeerCost::Ordinary, PeerCost::ProcessPerCall]
            .repeat(3)
            .into_iter()
            .map(Some)
            .collect::<Vec<_>>()
    );
    // Asked for at the families' sizes: every peer at each one's own.
    let asked = Config::builder()
        .exhaustive_at_family_sizes()
        .build()
        .unwrap();
    assert_eq!(sizes(&asked), [3, 4, 3]);
    assert!(asked.exhaustive().iter().all(|e| e.cost.is_none()));
    let off = Config::builder()
        .exhaustive_at_family_sizes()
        .default_exhaustive_size(0)
        .build()
        .unwrap();
    assert!(off.exhaustive().is_empty());
    let from_env = Config::builder()
        .default_exhaustive_size(0)
        .environment(env.clone())
        .build()
        .unwrap();
    assert_eq!(sizes(&from_env), [2, 2, 2]);
    let explicit = Config::builder()
        .environment(env)
        .exhaustive_size(1)
        .build()
        .unwrap();
    assert_eq!(sizes(&explicit), [1, 1, 1]);
    assert!(
        Config::builder()
            .exhaustive_at_family_sizes()
            .no_seeds()
            .build()
            .unwrap()
            .exhaustive()
            .is_empty()
    );
    let one_call = Config::builder()
        .exhaustive_at_family_sizes()
        .only_call(Some(3))
        .build()
        .unwrap();
    assert!(one_call.exhaustive().is_empty());
}

#[test]
fn record_1_records_into_the_regression_directory_whichever_it_is() {
    let env = Environment::from_vars([("LAWSUITE_RECORD", "1")]).unwrap();
    let config = Config::builder()
        .environment(env.clone())
        .regressions(Some("here".into()))
        .build()
        .unwrap();
    assert_eq!(config.record_dir(), Some(Path::new("here")));
    let none = Config::builder().environment(env).build().unwrap();
    assert_eq!(none.record_dir(), None);
}
