use super::*;
use crate::contract::{GlobInput, GlobOutput, GrepInput, GrepOutput, StdError};
use crate::peer::Method;
use crate::portable::Portable;
use crate::testing::{Altered, refusal};
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::SeqCst;

/// Right about `grep`, wrong about every `glob` that finds something.
fn no_glob() -> Altered {
    Altered::new("no-glob").on_glob(|_, _| Ok(GlobOutput::default()))
}

fn law(text: &str) -> LoadedLaw {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x.toml"), text).unwrap();
    let (mut laws, errors) = law::load_dir(dir.path());
    assert!(errors.is_empty(), "{errors:?}");
    laws.remove(0)
}

const GLOB_LAW: &str = "[[law]]\nname = \"finds-a\"\nspec = \"search-contract §8\"\nmethod = \"flow/glob\"\ninput = { pattern = \"*.ts\" }\ntree.\"a.ts\" = \"\"\nexpect = { paths = [\"a.ts\"], total = 1, truncated = false }\n";

fn engine_with(subjects: Vec<Subject>) -> Engine {
    Engine::new(Subject::new("portable", Portable::default()), subjects)
}

fn verdicts(engine: &Engine) -> Vec<(String, &'static str)> {
    engine
        .trials()
        .iter()
        .map(|t| (t.id.to_string(), engine.run_trial(t).verdict.tag()))
        .collect()
}

#[test]
fn a_failing_law_reports_its_section_tree_call_and_diff() {
    let mut engine = engine_with(vec![Subject::new("mine", no_glob())]);
    engine.add_laws(vec![law(GLOB_LAW)], vec![]);
    let trials = engine.trials();
    assert_eq!(trials[1].id, "law::x::finds-a::mine");
    let outcome = engine.run_trial(&trials[1]);
    let Verdict::Fail { report } = &outcome.verdict else {
        panic!("{outcome:?}");
    };
    let case = &report.cases[0];
    assert_eq!(case.spec.as_deref(), Some("search-contract §8"));
    assert_eq!(case.tree[0].path, "a.ts");
    assert_eq!(case.expected["paths"], serde_json::json!(["a.ts"]));
    assert_eq!(case.actual["paths"], serde_json::json!([]));
    assert!(
        case.replay
            .as_deref()
            .unwrap()
            .contains("law::x::finds-a::mine --exact")
    );
    let text = crate::report::human_report(report, false);
    assert!(text.contains("-    \"a.ts\""), "{text}");
    assert_eq!(engine.run_trial(&trials[0]).verdict, Verdict::Pass);
}

/// A peer that refuses every grep.
fn refuses_grep() -> Altered {
    Altered::new("refuses-grep").on_grep(|_, _| Err(refusal("no")))
}

/// A law's expectation comes from TOML sorted by key; where the peer's
/// answer cannot lend its order (it failed), the report shows the
/// expected answer in the wire's order, not `files, filesSearched,
/// matches, …`.
#[test]
fn an_expected_answer_is_shown_in_the_wire_order_beside_a_failure() {
    let mut engine = engine_with(vec![Subject::new("mine", refuses_grep())]);
    engine.add_laws(
        vec![law(
            "[[law]]\nname = \"finds-nothing\"\nspec = \"search-contract §6\"\nmethod = \"grep\"\ninput = { pattern = \"zzz\" }\ntree.\"a.ts\" = \"x\\n\"\nexpect = { matches = [], files = [], filesSearched = 1, skippedBinary = 0, truncated = false }\n",
        )],
        vec![],
    );
    let trials = engine.trials();
    let outcome = engine.run_trial(&trials[1]);
    let Verdict::Fail { report } = &outcome.verdict else {
        panic!("{outcome:?}");
    };
    let keys: Vec<&String> = report.cases[0]
        .expected
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(
        keys,
        [
            "matches",
            "files",
            "filesSearched",
            "skippedBinary",
            "truncated"
        ]
    );
    assert!(
        report.cases[0]
            .diff
            .contains("-  \"matches\": [],\n-  \"files\": [],\n"),
        "{}",
        report.cases[0].diff
    );
}

#[test]
fn expectations_follow_the_registered_name_and_a_broken_law_never_satisfies_one() {
    let mut engine = engine_with(vec![Subject::new("mine", no_glob())]);
    let broken = law(
        // A tree that cannot be written (`a` is a file and a directory):
        // the law loads, and its trials are broken.
        "[[law]]\nname = \"unwritable-tree\"\nspec = \"search-contract §8\"\nmethod = \"flow/glob\"\ninput = { pattern = \"*\" }\ntree.\"a\" = \"\"\ntree.\"a/b\" = \"\"\nexpect_error = \"invalid_pattern\"\n",
    );
    engine.add_laws(vec![law(GLOB_LAW), broken], vec![]);
    let mut e = Expectations::default();
    e.add("mine", "x::finds-a", "globs are not done", "test");
    e.add("mine", "x::unwritable-tree", "whatever", "test");
    e.add("portable", "x::finds-a", "stale", "test");
    engine.set_expectations(e);
    let table = verdicts(&engine);
    assert_eq!(
        table,
        [
            ("law::x::finds-a::portable".to_string(), "unexpected_pass"),
            ("law::x::finds-a::mine".to_string(), "expected_failure"),
            ("law::x::unwritable-tree::portable".to_string(), "broken"),
            ("law::x::unwritable-tree::mine".to_string(), "broken"),
        ]
    );
}

#[test]
fn a_seed_is_judged_per_subject_by_position_even_for_twins() {
    let mut engine = engine_with(vec![
        Subject::new("right", Portable::with_threads(1)),
        Subject::new("wrong", no_glob()),
    ]);
    engine.add_seeds(Generator::Smthrs, Ground::Shared, &[4], None);
    let trials = engine.trials();
    let together = engine.run_item(0, &[Some(PeerRef::Subject(0)), Some(PeerRef::Subject(1))]);
    let alone: Vec<Outcome> = trials.iter().map(|t| engine.run_trial(t)).collect();
    for (a, b) in together.iter().zip(&alone) {
        assert_eq!((&a.id, &a.verdict), (&b.id, &b.verdict));
    }
    assert_eq!(together[0].verdict, Verdict::Pass);
    let report = together[1].verdict.report().expect("the wrong peer fails");
    assert!(report.cases.iter().all(|c| c.call["method"] == "glob"));
    let replay = report.cases[0].replay.as_deref().unwrap();
    assert!(
        replay.starts_with("cargo test -- seed::smthrs::0004::wrong --exact"),
        "{replay}"
    );
}

/// A seed range is one item whose trials are those of its seeds one by
/// one: the same ids, in the same order, with the same verdicts and
/// replay commands, run alone or together, listed or streamed.
#[test]
fn a_seed_range_holds_the_trials_of_its_seeds_one_by_one() {
    let subjects = || {
        vec![
            Subject::new("right", Portable::with_threads(1)),
            Subject::new("wrong", no_glob()),
        ]
    };
    let mut one_by_one = engine_with(subjects());
    one_by_one.add_seeds(Generator::Smthrs, Ground::Shared, &[3, 4], None);
    let mut ranged = engine_with(subjects());
    ranged.add_seed_range(Generator::Smthrs, Ground::Shared, 3..5, None);
    assert_eq!(ranged.items().len(), 1);
    let ids = |e: &Engine| e.trials().into_iter().map(|t| t.id).collect::<Vec<_>>();
    assert_eq!(ids(&ranged), ids(&one_by_one));
    assert_eq!(
        ids(&ranged),
        [
            "seed::smthrs::0003::right",
            "seed::smthrs::0003::wrong",
            "seed::smthrs::0004::right",
            "seed::smthrs::0004::wrong"
        ]
    );
    assert_eq!(verdicts(&ranged), verdicts(&one_by_one));
    let options = RunOptions {
        jobs: 2,
        fail_fast: false,
    };
    let listed = ranged.run(&ranged.trials(), options, |_| {});
    let streamed = ranged.run_stream_until(
        ranged.trials_iter(|_| true),
        options,
        &Default::default(),
        |_| {},
    );
    let alone: Vec<Outcome> = one_by_one
        .trials()
        .iter()
        .map(|t| one_by_one.run_trial(t))
        .collect();
    let seen = |o: &[Outcome]| {
        o.iter()
            .map(|o| (o.id.clone(), o.item.clone(), o.verdict.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(seen(&listed), seen(&alone));
    assert_eq!(seen(&streamed), seen(&alone));
    // Counted without listing, and a range of every seed lists its first
    // trials at once.
    assert_eq!(ranged.trial_counts()[&Kind::Seed], 4);
    let mut widest = engine_with(subjects());
    widest.add_seed_range(Generator::Lawsuite, Ground::Full, 0..u64::MAX, Some(2));
    assert_eq!(widest.trial_counts()[&Kind::Seed], 2 * u128::from(u64::MAX));
    let first: Vec<String> = widest
        .trials_iter(|_| true)
        .take(3)
        .map(|t| t.id.to_string())
        .collect();
    assert_eq!(
        first,
        [
            "seed::lawsuite@full::0000::right",
            "seed::lawsuite@full::0000::wrong",
            "seed::lawsuite@full::0001::right"
        ]
    );
    let wanted: Vec<Trial> = widest
        .trials_iter(|id| id.ends_with("0001::wrong"))
        .take(1)
        .collect();
    assert_eq!(wanted[0].seed, Some(1));
    let Item::Seed(seed) = &*widest.trial_item(&wanted[0]) else {
        panic!("{wanted:?}")
    };
    assert_eq!((seed.seed, seed.only_call), (1, Some(2)));
    // Without a subject, a range has no trial, and is not walked.
    let mut alone = Engine::new(Subject::new("portable", Portable::default()), Vec::new());
    alone.add_seed_range(Generator::Smthrs, Ground::Shared, 0..u64::MAX, None);
    assert_eq!(alone.trials_iter(|_| true).next(), None);
}

#[test]
fn a_panicking_peer_fails_its_trials_and_the_run_goes_on() {
    struct Panics;
    impl Search for Panics {
        fn name(&self) -> &str {
            "panics"
        }
        fn version(&self) -> String {
            "0".into()
        }
        fn grep(&self, _: &GrepInput) -> Result<GrepOutput, StdError> {
            panic!("boom")
        }
        fn glob(&self, _: &GlobInput) -> Result<GlobOutput, StdError> {
            panic!("boom")
        }
    }
    let mut engine = engine_with(vec![Subject::new("panics", Panics)]);
    engine.add_laws(vec![law(GLOB_LAW)], vec![]);
    engine.add_seeds(Generator::Smthrs, Ground::Shared, &[1, 2], None);
    let trials = engine.trials();
    let mut seen = 0;
    let outcomes = engine.run(
        &trials,
        RunOptions {
            jobs: 2,
            fail_fast: false,
        },
        |_| seen += 1,
    );
    assert_eq!((outcomes.len(), seen), (4, 4));
    let tags: Vec<&str> = outcomes.iter().map(|o| o.verdict.tag()).collect();
    assert_eq!(tags, ["pass", "fail", "fail", "fail"]);
    let text = crate::report::human_report(outcomes[1].verdict.report().unwrap(), false);
    assert!(text.contains("boom"), "{text}");
}

#[test]
fn checks_and_problems_are_trials_of_their_own() {
    let mut engine = engine_with(vec![]);
    engine.add_laws(
        vec![],
        vec![law::LawError {
            file: "laws/grep/x.toml".into(),
            law: None,
            problem: law::LawProblem::NotADirectory,
        }],
    );
    engine.add_coverage();
    let table = verdicts(&engine);
    assert_eq!(
        table[0],
        ("law::invalid::grep::x::file".to_string(), "broken")
    );
    assert_eq!(table[1], ("law::coverage".to_string(), "broken"));
}

#[test]
fn sections_group_by_top_level() {
    assert_eq!(section_of("search-contract §13.1"), "search-contract §13");
    assert_eq!(section_of("read-ls-flows §1.6"), "read-ls-flows §1");
}

/// [`no_glob`]'s answers, from a peer that claims only the shared ground.
struct SharedOnly;

impl Search for SharedOnly {
    fn name(&self) -> &str {
        "shared-only"
    }
    fn version(&self) -> String {
        "0".into()
    }
    fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
        no_glob().grep(input)
    }
    fn glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError> {
        no_glob().glob(input)
    }
    fn ground(&self) -> Ground {
        Ground::Shared
    }
}

#[test]
fn a_shared_ground_peer_sits_out_full_ground_plans_only() {
    let mut engine = engine_with(vec![Subject::new("shared-only", SharedOnly)]);
    engine.add_seeds(Generator::Lawsuite, Ground::Full, &[1], None);
    engine.add_seeds(Generator::Lawsuite, Ground::Shared, &[1], None);
    let trials = engine.trials();
    assert_eq!(trials[0].id, "seed::lawsuite@full::0001::shared-only");
    assert!(trials[0].skip.as_deref().unwrap().contains("shared ground"));
    assert_eq!(trials[1].skip, None);
    // On the shared ground it is asked, and its glob bug shows.
    assert_eq!(engine.run_trial(&trials[1]).verdict.tag(), "fail");
}

#[test]
fn a_seed_that_cannot_be_planned_is_broken_not_a_panic() {
    let mut engine = engine_with(vec![Subject::new("x", no_glob())]);
    engine.add_seeds(Generator::Smthrs, Ground::Shared, &[u64::MAX], None);
    let outcome = engine.run_trial(&engine.trials()[0]);
    let Verdict::Broken { why } = &outcome.verdict else {
        panic!("{outcome:?}")
    };
    assert!(why.contains("32-bit"), "{why}");
}

#[test]
fn only_call_keeps_one_call_per_plan_and_the_replay_names_it() {
    let mut engine = engine_with(vec![Subject::new("no-glob", no_glob())]);
    // Call 0 is a grep call, which no_glob answers right.
    engine.add_seeds(Generator::Smthrs, Ground::Shared, &[1, 2, 3], Some(0));
    assert!(verdicts(&engine).iter().all(|(_, v)| *v == "pass"));
    engine.set_replay(Replay::Cli {
        program: "lawsuite".into(),
        flags: vec!["--registry".into(), "/p/peers.toml".into()],
    });
    let mut glob = engine_with(vec![Subject::new("no-glob", no_glob())]);
    glob.set_replay(Replay::Cli {
        program: "lawsuite".into(),
        flags: vec!["--registry".into(), "/p/peers.toml".into()],
    });
    glob.add_seeds(Generator::Lawsuite, Ground::Full, &[3], None);
    let outcome = glob.run_trial(&glob.trials()[0]);
    let replay = outcome.verdict.report().unwrap().cases[0]
        .replay
        .clone()
        .unwrap();
    assert!(
        replay.starts_with("lawsuite run --generator lawsuite --ground full --seeds 3 --call "),
        "{replay}"
    );
    assert!(
        replay.ends_with(
            "--peer no-glob --registry /p/peers.toml --exact seed::lawsuite@full::0003::no-glob"
        ),
        "{replay}"
    );
}

/// A run of one call (`--call N`) reports that call as N, and its replay
/// says `--call N` (it said `--call 0`, which replays another call).
#[test]
fn a_one_call_run_names_its_call_as_the_whole_plan_does() {
    let replay = Replay::Cli {
        program: "lawsuite".into(),
        flags: vec![],
    };
    let mut whole = engine_with(vec![Subject::new("no-glob", no_glob())]);
    whole.set_replay(replay.clone());
    whole.add_seeds(Generator::Lawsuite, Ground::Full, &[3], None);
    let outcome = whole.run_trial(&whole.trials()[0]);
    let index = outcome.verdict.report().unwrap().cases[0]
        .call_index
        .unwrap();
    assert_ne!(index, 0, "the first divergent call is a glob, after greps");
    let mut one = engine_with(vec![Subject::new("no-glob", no_glob())]);
    one.set_replay(replay);
    one.add_seeds(Generator::Lawsuite, Ground::Full, &[3], Some(index));
    let outcome = one.run_trial(&one.trials()[0]);
    let case = &outcome.verdict.report().unwrap().cases[0];
    assert_eq!(case.call_index, Some(index));
    assert!(
        case.title.contains(&format!("call {index} ")),
        "{}",
        case.title
    );
    let replay = case.replay.as_deref().unwrap();
    assert!(replay.contains(&format!("--call {index} ")), "{replay}");
}

/// One malformed regression file is a broken check; the others still run.
#[test]
fn a_malformed_regression_file_is_collected_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.json"), "{ not json").unwrap();
    let plan = crate::kit::smthrs::plan(1, "/r", &crate::kit::plan::PlanOptions::default());
    let good = crate::kit::regression::Regression {
        why: "pinned".into(),
        spec: None,
        generator: "smthrs".into(),
        generator_version: 1,
        ground: Ground::Shared,
        seed: 1,
        call_index: 0,
        mutations: Vec::new(),
        peers: vec!["portable".into()],
        root: "/r".into(),
        files: plan.files.clone(),
        call: crate::call::Call::Glob(GlobInput::new("*", "/r")),
        expected: serde_json::json!({"failure": "not_found"}),
    };
    good.write(dir.path(), "good").unwrap();
    let mut engine = engine_with(vec![]);
    engine.add_regressions(dir.path());
    let table = verdicts(&engine);
    assert_eq!(table[0], ("regression::invalid::bad".to_string(), "broken"));
    // The good file ran (and its made-up answer is wrong: a failure).
    assert_eq!(table[1], ("regression::good::portable".to_string(), "fail"));
}

/// The peers of a law are asked on one tree, written once, unless the law
/// may write in it: a `flow/bash` command that creates a file must find a
/// fresh tree for every peer.
#[cfg(unix)]
#[test]
fn peers_share_a_law_tree_only_when_the_law_cannot_write_it() {
    let bash = "[[law]]\nname = \"writes\"\nspec = \"read-ls-flows §4\"\nmethod = \"flow/bash\"\ninput = { command = \"test ! -e out && : > out\" }\nexpect = { exitCode = 0, stdout = \"\", stderr = \"\", stdoutTruncated = false, stderrTruncated = false, stdoutDroppedBytes = 0, stderrDroppedBytes = 0 }\n";
    let mut engine = engine_with(vec![
        Subject::new("one", Portable::default()),
        Subject::new("two", Portable::default()),
    ]);
    engine.add_laws(vec![law(bash), law(GLOB_LAW)], vec![]);
    let trials = engine.trials();
    for item in trials
        .iter()
        .map(|t| t.item)
        .collect::<std::collections::BTreeSet<_>>()
    {
        let peers: Vec<Option<PeerRef>> = trials
            .iter()
            .filter(|t| t.item == item)
            .map(|t| t.peer)
            .collect();
        for outcome in engine.run_item(item, &peers) {
            assert_eq!(outcome.verdict.tag(), "pass", "{outcome:?}");
        }
    }
}

/// Laws that define the same tree read one written tree; another tree is
/// written apart.
#[test]
fn laws_with_equal_trees_share_one_written_tree() {
    let grep = "[[law]]\nname = \"finds-in-a\"\nspec = \"search-contract §13\"\nmethod = \"flow/grep\"\ninput = { pattern = \"x\" }\ntree.\"a.ts\" = \"\"\nexpect = { matches = [], files = [], filesSearched = 1, skippedBinary = 0, truncated = false }\n";
    let other = GLOB_LAW.replace("tree.\"a.ts\" = \"\"", "tree.\"a.ts\" = \"x\"");
    let engine = engine_with(vec![]);
    let (glob, grep, other) = (law(GLOB_LAW), law(grep), law(&other));
    let first = engine.tree(&glob, "").unwrap();
    assert!(Arc::ptr_eq(&first, &engine.tree(&grep, "").unwrap()));
    assert!(!Arc::ptr_eq(&first, &engine.tree(&other, "").unwrap()));
    // Another peer's trees are its own.
    assert!(!Arc::ptr_eq(&first, &engine.tree(&grep, "mine").unwrap()));
    let setup = law::Setup::on(&grep, first.clone()).unwrap();
    assert_eq!(setup.judge(&Portable::default()), law::LawOutcome::Pass);
}

/// Answers as `portable` does, after leaving a file in the searched root.
struct Litterer;

impl Search for Litterer {
    fn name(&self) -> &str {
        "litterer"
    }
    fn version(&self) -> String {
        "0".into()
    }
    fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
        let answer = Portable::with_threads(1).grep(input);
        let _ = std::fs::write(std::path::Path::new(&input.root).join("left.txt"), "x");
        answer
    }
    fn glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError> {
        Portable::with_threads(1).glob(input)
    }
}

/// A peer that writes into a law's tree fails that law, even with the
/// right answer, and no other law or peer is asked on the changed tree.
#[test]
fn a_peer_that_writes_into_a_shared_tree_fails_and_spoils_only_its_copy() {
    let grep = "[[law]]\nname = \"finds-in-a\"\nspec = \"search-contract §13\"\nmethod = \"flow/grep\"\ninput = { pattern = \"x\" }\ntree.\"a.ts\" = \"\"\nexpect = { matches = [], files = [], filesSearched = 1, skippedBinary = 0, truncated = false }\n";
    let mut engine = engine_with(vec![
        Subject::new("litterer", Litterer),
        Subject::new("clean", Portable::default()),
    ]);
    // The glob law shares the grep law's tree, and would list `left.txt`
    // if it were asked on the changed one.
    let glob_all = GLOB_LAW.replace("pattern = \"*.ts\"", "pattern = \"*\"");
    engine.add_laws(vec![law(grep), law(&glob_all)], vec![]);
    let table = verdicts(&engine);
    let verdict = |id: &str| table.iter().find(|(t, _)| t == id).map(|(_, v)| *v);
    assert_eq!(
        verdict("law::x::finds-in-a::litterer"),
        Some("fail"),
        "{table:?}"
    );
    assert_eq!(
        verdict("law::x::finds-in-a::clean"),
        Some("pass"),
        "{table:?}"
    );
    assert_eq!(verdict("law::x::finds-a::clean"), Some("pass"), "{table:?}");
    let trials = engine.trials();
    let litterer = trials
        .iter()
        .find(|t| t.id == "law::x::finds-in-a::litterer")
        .unwrap();
    let Verdict::Fail { report } = engine.run_trial(litterer).verdict else {
        panic!("the litterer passed");
    };
    let text = format!("{report:?}");
    assert!(
        text.contains("changed the law's tree") && text.contains("left.txt was created"),
        "{text}"
    );
}

/// Each peer that is not a built-in reads trees of its own: what another
/// peer leaves in its tree is never seen by it, and the built-ins (which
/// only read) share one.
#[test]
fn a_peer_never_reads_another_peers_law_tree() {
    let engine = engine_with(vec![
        Subject::new("litterer", Litterer),
        Subject::new("clean", Portable::default()),
        Subject::from_builtin(
            "also-portable",
            crate::peer::Builtin::Portable,
            Arc::new(Portable::default()),
        ),
        Subject::from_builtin(
            "again-portable",
            crate::peer::Builtin::Portable,
            Arc::new(Portable::default()),
        ),
    ]);
    let glob = law(GLOB_LAW);
    let tree_of = |p: usize| {
        let setup = engine.setup(0, &glob, &engine.everyone[p]);
        setup.as_ref().as_ref().unwrap().tree().path().to_path_buf()
    };
    let (litterer, clean, one, two) = (tree_of(1), tree_of(2), tree_of(3), tree_of(4));
    assert_ne!(litterer, clean);
    assert_ne!(clean, one);
    assert_eq!(one, two, "the built-ins share a tree");
}

/// An engine whose one subject, `every-second`, is wrong on every second
/// glob call it answers (a total off by 1,000, which no law expects) and
/// right on the others, over the first `laws` shipped glob laws; and the
/// count of its wrong answers.
fn every_second_on_glob_laws(laws: usize) -> (Arc<AtomicUsize>, Engine) {
    let (calls, wrong) = (AtomicUsize::new(0), Arc::new(AtomicUsize::new(0)));
    let counted = wrong.clone();
    let peer = Altered::new("every-second").on_glob(move |_, answer| {
        let mut answer = answer?;
        if calls.fetch_add(1, SeqCst) % 2 == 1 {
            counted.fetch_add(1, SeqCst);
            answer.total += 1000;
        }
        Ok(answer)
    });
    let mut engine = engine_with(vec![Subject::new("every-second", peer)]);
    let (shipped, problems) = law::shipped();
    assert!(problems.is_empty(), "{problems:?}");
    engine.add_laws(
        shipped
            .into_iter()
            .filter(|l| matches!(l.law.method, Method::Glob | Method::FlowGlob))
            .take(laws)
            .collect(),
        vec![],
    );
    (wrong, engine)
}

/// A peer wrong on every second call fails every law it answered wrongly:
/// a failure is never asked again and turned into a pass (it passed all
/// 428 glob laws when a failing law was asked again on a fresh tree and the
/// second verdict kept).
#[test]
fn a_failure_gets_no_second_chance() {
    let (wrong_answers, engine) = every_second_on_glob_laws(usize::MAX);
    let trials = engine.trials_where(|id| id.ends_with("::every-second"));
    for jobs in [1, 2] {
        let wrong_before = wrong_answers.load(SeqCst);
        let outcomes = engine.run(
            &trials,
            RunOptions {
                jobs,
                fail_fast: false,
            },
            |_| {},
        );
        let wrong = wrong_answers.load(SeqCst) - wrong_before;
        let failed = outcomes.iter().filter(|o| o.verdict.is_failure()).count();
        assert!(wrong > 100, "{wrong} wrong answers of {}", trials.len());
        // Each glob law asks one glob call (a refused input asks none).
        assert_eq!(
            failed, wrong,
            "--jobs {jobs}: {failed} failures for {wrong} wrong answers"
        );
    }
}

/// Answers as `portable` does, after rewriting every file it searched in
/// place: the same size, each byte changed, the modification time put
/// back, so only the contents tell.
struct Vandal;

impl Vandal {
    fn rewrite(root: &std::path::Path) {
        let Ok(listing) = std::fs::read_dir(root) else {
            return;
        };
        for entry in listing.flatten() {
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                Vandal::rewrite(&path);
                continue;
            }
            if !meta.is_file() || meta.len() == 0 {
                continue;
            }
            let (Ok(bytes), Ok(modified)) = (std::fs::read(&path), meta.modified()) else {
                continue;
            };
            let flipped: Vec<u8> = bytes.iter().map(|b| b ^ 0x01).collect();
            if std::fs::write(&path, flipped).is_ok()
                && let Ok(file) = std::fs::File::options().write(true).open(&path)
            {
                let _ = file.set_modified(modified);
            }
        }
    }
}

impl Search for Vandal {
    fn name(&self) -> &str {
        "vandal"
    }
    fn version(&self) -> String {
        "0".into()
    }
    fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
        let answer = Portable::with_threads(1).grep(input);
        if let Some(tree) = own_tree(&input.root) {
            Vandal::rewrite(&tree);
        }
        answer
    }
    fn glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError> {
        Portable::with_threads(1).glob(input)
    }
}

/// Over every shipped law, run side by side as a real run is: the peer
/// that rewrites files in place (time restored) fails, and no honest peer
/// does, though they share its trees.
#[test]
fn an_in_place_rewrite_is_blamed_on_the_vandal_alone() {
    let mut engine = engine_with(vec![
        Subject::new("vandal", Vandal),
        Subject::new("clean", Portable::with_threads(1)),
    ]);
    let (laws, problems) = law::shipped();
    assert!(problems.is_empty(), "{problems:?}");
    engine.add_laws(laws, vec![]);
    let trials = engine.trials();
    let outcomes = engine.run(
        &trials,
        RunOptions {
            jobs: 2,
            fail_fast: false,
        },
        |_| {},
    );
    let failing = |peer: &str| -> Vec<String> {
        outcomes
            .iter()
            .filter(|o| o.id.as_str().ends_with(&format!("::{peer}")) && o.verdict.is_failure())
            .map(|o| o.id.to_string())
            .collect()
    };
    let (vandal, clean, reference) = (failing("vandal"), failing("clean"), failing("portable"));
    assert!(clean.is_empty(), "honest failures: {clean:?}");
    assert!(reference.is_empty(), "honest failures: {reference:?}");
    assert!(vandal.len() > 100, "the vandal failed only {vandal:?}");
    eprintln!(
        "vandal: {} failures; clean: {}; portable: {}",
        vandal.len(),
        clean.len(),
        reference.len()
    );
}

/// The tree lawsuite wrote that `root` is in (a directory right below the
/// trees' directory), for the test peers that vandalise: a call's root may
/// climb out with `..`, and the other tests' trees are there too.
fn own_tree(root: &str) -> Option<std::path::PathBuf> {
    let base = crate::environment::trees_dir().canonicalize().ok()?;
    let real = std::path::Path::new(root).canonicalize().ok()?;
    let inside = real.strip_prefix(&base).ok()?;
    inside.components().next().map(|tree| base.join(tree))
}

/// Answers as `portable` does, then appends a line to every file below
/// the root it searched.
struct Appender;

impl Appender {
    fn append_in_own_tree(root: &str) {
        if let Some(tree) = own_tree(root) {
            Appender::append(&tree);
        }
    }

    fn append(dir: &std::path::Path) {
        let Ok(listing) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in listing.flatten() {
            let path = entry.path();
            match std::fs::symlink_metadata(&path) {
                Ok(meta) if meta.is_dir() => Appender::append(&path),
                Ok(meta) if meta.is_file() => {
                    use std::io::Write;
                    if let Ok(mut file) = std::fs::File::options().append(true).open(&path) {
                        let _ = file.write_all(b"vandal was here\n");
                    }
                }
                _ => {}
            }
        }
    }
}

impl Search for Appender {
    fn name(&self) -> &str {
        "appender"
    }
    fn version(&self) -> String {
        "0".into()
    }
    fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
        let answer = Portable::with_threads(1).grep(input);
        Appender::append_in_own_tree(&input.root);
        answer
    }
    fn glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError> {
        let answer = Portable::with_threads(1).glob(input);
        Appender::append_in_own_tree(&input.root);
        answer
    }
}

/// Seeds guard their trees as laws do: a peer that answers and then
/// appends to every file fails each seed with the change named, and the
/// peers asked beside it (the reference, an honest subject after it) read
/// trees of their own and pass. Before, the vandal passed 8 of 8 seeds and
/// the honest peer failed them all with the vandal's lines in its report.
#[test]
fn a_seed_blames_the_peer_that_changed_its_tree_and_no_other() {
    let mut engine = engine_with(vec![
        Subject::new("appender", Appender),
        Subject::new("honest", Portable::with_threads(1)),
    ]);
    engine.add_seeds(Generator::Lawsuite, Ground::Shared, &[0, 1, 2, 3], None);
    engine.add_seeds(Generator::Smthrs, Ground::Shared, &[1, 2, 3, 4], None);
    for trial in engine.trials() {
        let outcome = engine.run_trial(&trial);
        if trial.id.as_str().ends_with("::honest") {
            assert_eq!(outcome.verdict.tag(), "pass", "{}", trial.id);
            continue;
        }
        let Verdict::Fail { report } = &outcome.verdict else {
            panic!("{}: {}", trial.id, outcome.verdict.tag());
        };
        let text = serde_json::to_string(report).unwrap();
        assert!(
            text.contains("appender changed the tree it was asked to search"),
            "{text}"
        );
    }
    // The reference changing its own tree is the reference's fault: the
    // subject is not judged, never failed.
    let mut engine = Engine::new(
        Subject::new("appender", Appender),
        vec![Subject::new("honest", Portable::with_threads(1))],
    );
    // (The TypeScript kit's plans: grep and glob only, which it answers.)
    engine.add_seeds(Generator::Smthrs, Ground::Shared, &[4], None);
    let outcome = engine.run_trial(&engine.trials()[0]);
    let Verdict::Broken { why } = &outcome.verdict else {
        panic!("{}", outcome.verdict.tag());
    };
    assert!(
        why.contains("the reference appender did not answer"),
        "{why}"
    );
    assert!(
        why.contains("changed the tree it was asked to search"),
        "{why}"
    );
}

/// The documented differences are the built-ins' alone, by registration:
/// the same `rg` walk answers seed `lawsuite` 1 with a documented
/// difference, which the built-in `ripgrep-walk` is excused and a peer
/// of the user's (answering the same, under the same name) is not.
#[test]
fn a_peer_is_never_excused_by_its_own_say() {
    let walk = crate::ripgrep::RipgrepWalk::with_options(
        crate::testing::rg_options().expect("the LAWSUITE_RG* variables"),
    );
    if let Err(why) = walk.availability() {
        assert!(
            std::env::var_os("CI").is_none(),
            "rg is needed in CI: {why}"
        );
        eprintln!("note: skipped without rg: {why}");
        return;
    }
    let peer: Arc<dyn Search> = Arc::new(walk);
    let mut engine = engine_with(vec![
        Subject::from_builtin(
            "ripgrep-walk",
            crate::peer::Builtin::RipgrepWalk,
            peer.clone(),
        ),
        Subject::registered("mine", None, peer),
    ]);
    engine.add_seeds(Generator::Lawsuite, Ground::Shared, &[1], None);
    let outcomes: Vec<Outcome> = engine
        .trials()
        .iter()
        .map(|t| engine.run_trial(t))
        .collect();
    let builtin = &outcomes[0];
    assert_eq!(builtin.verdict, Verdict::Pass, "{builtin:?}");
    assert_eq!(builtin.documented.get("empty-brace-alternative"), Some(&1));
    let mine = &outcomes[1];
    assert!(matches!(mine.verdict, Verdict::Fail { .. }), "{mine:?}");
    assert!(mine.documented.is_empty());
}

/// An expected failure names a law by its item id (`law::x::finds-a`),
/// and the old spelling without `law::` still names it: both are that
/// law's listing, not a problem.
#[test]
fn a_law_is_listed_by_its_item_id_or_the_old_spelling() {
    for listed in ["law::x::finds-a", "x::finds-a"] {
        let mut engine = engine_with(vec![Subject::new("mine", no_glob())]);
        engine.add_laws(vec![law(GLOB_LAW)], vec![]);
        let mut e = Expectations::default();
        e.add("mine", listed, "globs are not done", "mine.toml");
        assert_eq!(e.warnings.len(), usize::from(listed == "x::finds-a"));
        engine.set_expectations(e);
        engine.check_expectations();
        assert!(
            !engine
                .items()
                .iter()
                .any(|i| matches!(i, Item::Problem { .. })),
            "{listed}"
        );
        let trial = engine
            .trials()
            .into_iter()
            .find(|t| t.id == "law::x::finds-a::mine")
            .expect("the law's trial on mine");
        assert!(engine.is_listed_failure(&trial), "{listed}");
    }
}

/// Answers every call past its bounds (one path or match more than its
/// limit): the harness refuses each answer, so it never answers at all.
fn past_bounds() -> Altered {
    Altered::new("past-bounds")
        .on_grep(|input, _| {
            Ok(GrepOutput {
                files: vec!["x".into(); input.limit as usize + 1],
                ..GrepOutput::default()
            })
        })
        .on_glob(|input, _| {
            Ok(GlobOutput {
                paths: vec!["x".into(); input.limit as usize + 1],
                ..GlobOutput::default()
            })
        })
}

fn seed_verdicts(reference: Subject, subject: Subject) -> Vec<Verdict> {
    let mut engine = Engine::new(reference, vec![subject]);
    engine.add_seeds(Generator::Smthrs, Ground::Shared, &[4, 5], None);
    engine
        .trials()
        .iter()
        .map(|t| engine.run_trial(t).verdict)
        .collect()
}

/// Two peers that fault on every call agree on nothing: before, each
/// seed passed, every call "agreeing" on `request_failed`.
#[test]
fn a_call_the_reference_did_not_answer_is_never_an_agreement() {
    let verdicts = seed_verdicts(
        Subject::new("faulty", past_bounds()),
        Subject::new("also-faulty", past_bounds()),
    );
    assert_eq!(verdicts.len(), 2);
    for verdict in verdicts {
        let Verdict::Broken { why } = &verdict else {
            panic!("{verdict:?}");
        };
        assert!(
            why.starts_with("the reference faulty did not answer "),
            "{why}"
        );
        assert!(why.contains("so nothing was compared there"), "{why}");
        assert!(
            why.contains("contract violation: the peer answered "),
            "the fault is named: {why}"
        );
    }
}

/// The reference faulting is the reference's failure, not the subject's:
/// a subject answering correctly is broken with the reference named, never
/// failed.
#[test]
fn a_reference_fault_is_named_as_the_references() {
    for verdict in seed_verdicts(
        Subject::new("faulty", past_bounds()),
        Subject::new("portable", Portable::default()),
    ) {
        let Verdict::Broken { why } = &verdict else {
            panic!("{verdict:?}");
        };
        assert!(why.contains("the reference faulty did not answer"), "{why}");
    }
    // And a subject that faults where the reference answered fails.
    for verdict in seed_verdicts(
        Subject::new("portable", Portable::default()),
        Subject::new("faulty", past_bounds()),
    ) {
        assert_eq!(verdict.tag(), "fail", "{verdict:?}");
    }
}

/// Asked twice (`--repeat 2`), a peer wrong on every second call is flaky
/// on every glob law it answered once right and once wrong, and on none it
/// answered the same way twice; a peer right every time is never flaky.
#[test]
fn a_trial_asked_again_that_concludes_otherwise_is_flaky() {
    let (_, mut engine) = every_second_on_glob_laws(40);
    engine.set_repeat(2);
    let trials = engine.trials_where(|id| id.ends_with("::every-second"));
    let outcomes = engine.run(
        &trials,
        RunOptions {
            jobs: 1,
            fail_fast: false,
        },
        |_| {},
    );
    let flaky: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| matches!(o.verdict, Verdict::Flaky { .. }))
        .collect();
    // One glob call a law, so each law is asked on one odd and one even
    // call: wrong once, right once (unless the law refuses its input and
    // asks nothing).
    assert!(
        flaky.len() >= 20,
        "{} flaky of {}",
        flaky.len(),
        outcomes.len()
    );
    // A law that asks nothing (a refused input) passes both times.
    let tags: Vec<&str> = outcomes.iter().map(|o| o.verdict.tag()).collect();
    assert!(
        tags.iter().all(|t| matches!(*t, "flaky" | "pass")),
        "{tags:?}"
    );
    let Verdict::Flaky { runs, report } = &flaky[0].verdict else {
        unreachable!()
    };
    assert_eq!(runs.len(), 2);
    assert!(
        runs.contains(&"pass".to_string()) && runs.contains(&"fail".to_string()),
        "{runs:?}"
    );
    assert!(
        report.summary.starts_with("flaky: asked 2 times"),
        "{}",
        report.summary
    );
    assert!(!report.cases.is_empty(), "the differing answer is shown");

    // The reference, right every time, is never flaky.
    let mut steady = engine_with(vec![]);
    let (laws, _) = law::shipped();
    steady.add_laws(
        laws.into_iter()
            .filter(|l| matches!(l.law.method, Method::Glob | Method::FlowGlob))
            .take(40)
            .collect(),
        vec![],
    );
    steady.set_repeat(3);
    let trials = steady.trials_where(|id| id.starts_with("law::"));
    let outcomes = steady.run(
        &trials,
        RunOptions {
            jobs: 2,
            fail_fast: false,
        },
        |_| {},
    );
    assert!(!outcomes.is_empty());
    assert!(outcomes.iter().all(|o| o.verdict.tag() != "flaky"));
}

/// A flaky trial listed as an expected failure is that expected failure,
/// with the flakiness said in its report; unlisted, it fails the run.
#[test]
fn a_listed_flaky_trial_is_an_expected_failure() {
    let fail = Verdict::Fail {
        report: Report {
            summary: "paths differ".into(),
            ..Report::default()
        },
    };
    let listed = Verdict::ExpectedFailure {
        reason: "known".into(),
        source: "mine.toml".into(),
        report: Report::default(),
    };
    let unexpected = Verdict::UnexpectedPass {
        reason: "known".into(),
        source: "mine.toml".into(),
    };
    let verdict = Verdict::of_repeats(vec![listed, unexpected]);
    assert_eq!(verdict.tag(), "expected_failure");
    assert!(!verdict.is_failure());
    assert!(verdict.report().unwrap().summary.starts_with("flaky:"));
    let verdict = Verdict::of_repeats(vec![
        fail.clone(),
        Verdict::Broken {
            why: "crashed".into(),
        },
    ]);
    assert_eq!(verdict.tag(), "flaky");
    assert_eq!(Verdict::of_repeats(vec![fail.clone(), fail]).tag(), "fail");
}

/// A built-in's law tree changed while it is asked (by another process:
/// here, the first call itself, standing in for a peer that writes
/// outside its own tree at that moment) is no verdict on the built-in: it
/// is asked once more on a fresh tree, and passes. (A peer removing the
/// run's temporary directory once failed `portable` this way, about one
/// run in twelve.)
#[test]
fn a_builtin_whose_tree_is_changed_during_its_call_is_asked_on_a_fresh_one() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let vandalised = Altered::new("vandalised").on_glob(move |input, answer| {
        if counted.fetch_add(1, SeqCst) == 0
            && let Some(tree) = own_tree(&input.root)
        {
            Appender::append(&tree);
        }
        answer
    });
    let mut engine = engine_with(vec![Subject::from_builtin(
        "vandalised",
        crate::peer::Builtin::Portable,
        Arc::new(vandalised),
    )]);
    engine.add_laws(vec![law(GLOB_LAW)], vec![]);
    let trial = engine
        .trials()
        .into_iter()
        .find(|t| t.id == "law::x::finds-a::vandalised")
        .unwrap();
    let outcome = engine.run_trial(&trial);
    assert_eq!(outcome.verdict, Verdict::Pass, "{outcome:?}");
    assert_eq!(calls.load(SeqCst), 2);
}
