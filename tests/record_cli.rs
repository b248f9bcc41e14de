//! `LAWSUITE_RECORD=1 lawsuite run` on an external peer with one planted
//! bug (it lists what `.gitignore` leaves out), as a new user meets it:
//! the bug is kept as one regression file per method it shows in, each
//! shrunk inside the contract to the same bug, and the seed reports show
//! the `.gitignore` and the files the diff names, once per seed.

mod fake_peers;

use std::path::Path;
use std::process::{Command, Output};

use lawsuite::call::Validation;
use lawsuite::kit::Generator;
use lawsuite::kit::regression::{Regression, list};
use lawsuite::peer::Ground;
use lawsuite::portable::Portable;

fn lawsuite(dir: &Path, args: &[&str], record: bool) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lawsuite"));
    command
        .current_dir(dir)
        .args(args)
        .env_remove("LAWSUITE_SEEDS");
    if record {
        command.env("LAWSUITE_RECORD", "1");
    } else {
        command.env_remove("LAWSUITE_RECORD");
    }
    command.output().expect("lawsuite runs")
}

/// A temp dir with a registry of `portable` and the planted peer, or `None`
/// (said, and failing under `CI`) without `python3`.
fn planted() -> Option<(tempfile::TempDir, std::path::PathBuf)> {
    if !fake_peers::has_python() {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let registry = fake_peers::registry(
        dir.path(),
        &[("lists-ignored", fake_peers::proxy("lists-ignored"), "")],
    );
    Some((dir, registry))
}

#[test]
fn a_planted_bug_is_recorded_once_per_method_and_reported_with_its_cause() {
    let Some((dir, registry)) = planted() else {
        return;
    };
    std::fs::write(dir.path().join("lawsuite.toml"), "").unwrap();
    let run = |record: bool| {
        lawsuite(
            dir.path(),
            &[
                "run",
                "--registry",
                registry.to_str().unwrap(),
                "--project",
                dir.path().join("lawsuite.toml").to_str().unwrap(),
                "--no-laws",
                "--no-exhaustive",
                "--generator",
                "lawsuite",
                "--seeds",
                "0..6",
                "--peer",
                "lists-ignored",
                "--max-reports",
                "0",
            ],
            record,
        )
    };
    let out = run(true);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");

    let regressions = dir.path().join("lawsuite/regressions");
    let files = list(&regressions);
    assert!(
        !files.is_empty() && files.len() <= 2,
        "{} files: {files:?}\n{stdout}",
        files.len()
    );
    let portable = Portable::default();
    for path in &files {
        let regression = Regression::load(path).unwrap();
        assert_eq!(regression.call.validation(), Validation::Passes, "{path:?}");
        assert!(regression.replay(&portable, path).unwrap().is_ok());
        // Shrunk: a tree of a few files (the plans hold dozens).
        assert!(regression.files.len() <= 4, "{regression:?}");
        assert!(
            regression
                .files
                .iter()
                .any(|f| f.path.ends_with(".gitignore")),
            "the cause is kept: {regression:?}"
        );
    }
    // The report says which calls were not recorded, and why.
    assert!(stdout.contains("not recorded: "), "{stdout}");

    // One tree per seed, with the ignore files, then what is left out.
    let seeds_failing = stdout.matches("FAIL seed::lawsuite::").count();
    let trees = stdout.matches("\n  tree:\n").count();
    assert!(seeds_failing > 0, "{stdout}");
    assert_eq!(trees, seeds_failing, "{stdout}");
    assert!(
        stdout.contains("  tree: the seed's tree is shown with call "),
        "{stdout}"
    );
    assert!(stdout.contains(".gitignore: "), "{stdout}");
    assert!(stdout.contains(" more files ("), "{stdout}");

    // Recording again adds nothing: each method's file still fails.
    let again = run(true);
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(list(&regressions), files);
}

/// `--max-reports` counts divergent calls, in `run` and in `merge`: one
/// seed with many divergent calls does not print them all.
#[test]
fn max_reports_counts_divergent_calls() {
    let Some((dir, registry)) = planted() else {
        return;
    };
    let registry = registry.to_str().unwrap();
    let base = [
        "run",
        "--registry",
        registry,
        "--no-laws",
        "--no-regressions",
        "--no-exhaustive",
        "--generator",
        "lawsuite",
        "--seeds",
        "0..4",
        "--peer",
        "lists-ignored",
    ];
    let cases = |text: &str| text.matches("\n  lawsuite seed ").count();

    let mut args = base.to_vec();
    args.extend(["--max-reports", "3"]);
    let out = lawsuite(dir.path(), &args, false);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(cases(&text), 3, "{text}");
    // Seeds end in any order: the third case may end a trial's cases or
    // cut them; either way the rest is said to be left out.
    assert!(text.contains(" not shown in full"), "{text}");
    // The summary says how many calls the seeds compared: every call of
    // the 4 plans.
    let calls: usize = (0..4)
        .map(|seed| {
            lawsuite::kit::generate(Generator::Lawsuite, seed, "/r", Ground::Shared)
                .unwrap()
                .call_count()
        })
        .sum();
    assert!(
        text.contains(&format!(" divergent of {calls} calls compared")),
        "{calls}: {text}"
    );

    let mut args = base.to_vec();
    args.extend(["--format", "jsonl"]);
    let out = lawsuite(dir.path(), &args, false);
    let results = dir.path().join("results.jsonl");
    std::fs::write(&results, &out.stdout).unwrap();
    // A tree's text is written once in JSON, as the file holds it, not as
    // a quoted string inside a string.
    let entries: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|o| o.pointer("/report/cases/0/tree").cloned())
        .flat_map(|t| t.as_array().cloned().unwrap_or_default())
        .collect();
    let ignore = entries
        .iter()
        .find(|e| {
            e["path"]
                .as_str()
                .is_some_and(|p| p.ends_with(".gitignore"))
        })
        .expect("a .gitignore in a seed's tree");
    let text = ignore["text"].as_str().expect("its text");
    assert!(!text.starts_with('"') && text.ends_with('\n'), "{ignore}");
    let merged = lawsuite(
        dir.path(),
        &["merge", results.to_str().unwrap(), "--max-reports", "5"],
        false,
    );
    let text = String::from_utf8_lossy(&merged.stdout);
    assert_eq!(cases(&text), 5, "{text}");
    let all = lawsuite(
        dir.path(),
        &["merge", results.to_str().unwrap(), "--max-reports", "0"],
        false,
    );
    assert!(cases(&String::from_utf8_lossy(&all.stdout)) > 5);
}

/// A finding becomes a law: each kept regression of the planted bug,
/// turned into a draft law by `lawsuite as-law` (and the same finding by
/// `record --as-law`, which refuses to draft it twice), lands in the
/// project's `lawsuite/laws`, which the next run picks up: the draft
/// passes the reference and fails the planted peer, names a suggested
/// section, a decision to write and where it came from.
#[test]
fn a_recorded_finding_becomes_a_law_that_fails_the_buggy_peer() {
    let Some((dir, registry)) = planted() else {
        return;
    };
    let d = dir.path();
    std::fs::write(d.join("lawsuite.toml"), "").unwrap();
    let registry = registry.to_str().unwrap();
    let out = lawsuite(
        d,
        &[
            "run",
            "--registry",
            registry,
            "--no-laws",
            "--no-exhaustive",
            "--generator",
            "lawsuite",
            "--seeds",
            "0..6",
            "--peer",
            "lists-ignored",
        ],
        true,
    );
    assert_eq!(out.status.code(), Some(1));
    let files = list(&d.join("lawsuite/regressions"));
    assert!(!files.is_empty());
    let first = Regression::load(&files[0]).unwrap();
    // The same finding from its seed and call, before the file is turned.
    let seed = first.seed.to_string();
    let call = first.call_index.to_string();
    let recorded = lawsuite(
        d,
        &[
            "record",
            "--registry",
            registry,
            "--generator",
            "lawsuite",
            "--seed",
            &seed,
            "--call",
            &call,
            "--peer",
            "lists-ignored",
            "--as-law",
        ],
        false,
    );
    let said = String::from_utf8_lossy(&recorded.stdout).into_owned();
    assert!(
        recorded.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&recorded.stderr)
    );
    assert!(said.contains("drafted the law law::"), "{said}");
    // The project lists no law directory, so the default one the draft
    // made is run from now on, and the user is told so.
    assert!(said.contains("runs it on every peer"), "{said}");
    for file in &files {
        let out = lawsuite(d, &["as-law", file.to_str().unwrap()], false);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if file == &files[0] {
            assert_eq!(out.status.code(), Some(2), "{text}");
            assert!(text.contains("drafted before"), "{text}");
        } else {
            assert!(out.status.success(), "{text}");
        }
    }
    let laws = d.join("lawsuite/laws");
    let drafts: Vec<String> = ["grep", "glob"]
        .iter()
        .filter_map(|area| std::fs::read_to_string(laws.join(area).join("found.toml")).ok())
        .collect();
    assert!(!drafts.is_empty());
    for draft in &drafts {
        for part in [
            "[[law]]",
            "spec = \"search-contract §",
            "decision = \"TODO",
            "# Drafted by lawsuite",
            "lists-ignored",
            ".gitignore\" = ",
        ] {
            assert!(draft.contains(part), "{part}: {draft}");
        }
    }
    let run = lawsuite(
        d,
        &[
            "run",
            "--registry",
            registry,
            "--no-seeds",
            "--no-regressions",
            "--format",
            "json",
            "law::grep::found::",
            "law::glob::found::",
        ],
        false,
    );
    let report: serde_json::Value = serde_json::from_slice(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&run.stderr)));
    // The project's law directory named again on the command line is one
    // directory: every drafted law is one trial a peer.
    let listed = lawsuite(
        d,
        &[
            "run",
            "--registry",
            registry,
            "--laws",
            laws.to_str().unwrap(),
            "--list",
            "law::grep::found::",
            "law::glob::found::",
        ],
        false,
    );
    let ids: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    let mut once = ids.clone();
    once.sort();
    once.dedup();
    assert!(!ids.is_empty() && once.len() == ids.len(), "{ids:?}");
    let by_peer = &report["summary"]["byPeer"];
    assert_eq!(by_peer["portable"]["fail"], 0, "{by_peer}");
    assert!(
        by_peer["portable"]["pass"].as_u64() >= Some(files.len() as u64),
        "{by_peer}"
    );
    assert_eq!(by_peer["lists-ignored"]["pass"], 0, "{by_peer}");
    assert!(
        by_peer["lists-ignored"]["fail"].as_u64() >= Some(files.len() as u64),
        "{by_peer}"
    );
}
