//! The two front doors, `lawsuite run` and `cargo test` (`Suite`), tried
//! as a user would from a project outside this checkout: the same verdicts
//! for the same registry, laws and seeds; reports that carry the reason in
//! every format; replay commands that replay; flow laws sent to a peer
//! that declares its own flow layer.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use lawsuite::conformance::Outcome;
use lawsuite::project::Project;
use lawsuite::suite::Suite;
use serde_json::Value;

const LAWSUITE: &str = env!("CARGO_BIN_EXE_lawsuite");

fn proxy() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake_peers/proxy.py")
}

fn python() -> &'static str {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    // These tests need python3 for the external peers: CI installs it, and
    // without it they fail rather than pass by doing nothing.
    assert!(
        ok,
        "python3 is needed for the external peers of these tests"
    );
    "python3"
}

/// A project directory outside the checkout with `lawsuite.toml` holding
/// `peers` (TOML `[[peer]]` tables after the reference).
fn project(peers: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "regressions = \"kept\"\nexpected = \"expected\"\nreference = \"portable\"\n\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n\n{peers}"
    );
    std::fs::write(dir.path().join("lawsuite.toml"), text).unwrap();
    dir
}

fn wrong_peer(name: &str, marker: &Path) -> String {
    format!(
        "[[peer]]\nname = \"{name}\"\ncommand = [\"{}\", \"{}\", \"{LAWSUITE}\", \"wrong\"]\nenv = {{ FAKE_MARKER = \"{}\" }}\n",
        python(),
        proxy().display(),
        marker.display()
    )
}

fn lawsuite(dir: &Path, args: &[&str]) -> Output {
    Command::new(LAWSUITE)
        .args(args)
        .current_dir(dir)
        .env_remove("CARGO_MANIFEST_DIR")
        .output()
        .unwrap()
}

fn jsonl_outcomes(stdout: &[u8]) -> Vec<Outcome> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|line| {
            let v: Value = serde_json::from_str(line).ok()?;
            (v["type"] == "outcome").then(|| serde_json::from_value(v).unwrap())
        })
        .collect()
}

fn table(outcomes: &[Outcome]) -> BTreeMap<String, &'static str> {
    outcomes
        .iter()
        .map(|o| (o.id.to_string(), o.verdict.tag()))
        .collect()
}

/// The same registry (a built-in registered under another name, so its
/// shipped expected failures must follow the built-in, and a project
/// expectation by name), laws and seeds give the same verdict table through
/// both front doors.
#[test]
fn cli_and_suite_give_the_same_verdicts_for_a_renamed_builtin() {
    let rg_ready = lawsuite::ripgrep::Ripgrep::with_options(
        lawsuite::testing::rg_options().expect("the LAWSUITE_RG* variables"),
    )
    .availability()
    .is_ok();
    assert!(
        rg_ready || std::env::var_os("CI").is_none(),
        "rg is needed in CI"
    );
    let builtin = if rg_ready { "ripgrep" } else { "portable" };
    let dir = project(&format!(
        "[[peer]]\nname = \"rg\"\nbuiltin = \"{builtin}\"\n"
    ));
    std::fs::create_dir(dir.path().join("expected")).unwrap();
    std::fs::write(
        dir.path().join("expected/mine.toml"),
        "[rg]\n\"text::lines::bom-later-in-the-file-is-kept\" = \"listed by name, passes: an unexpected pass\"\n\"text::no-such-law\" = \"a typo\"\n",
    )
    .unwrap();
    let out = lawsuite(
        dir.path(),
        &[
            "run",
            "--format",
            "jsonl",
            "--generator",
            "smthrs",
            "--seeds",
            "1..3",
            "--no-exhaustive",
            "--jobs",
            "2",
            "--law",
            "text::",
        ],
    );
    let cli = jsonl_outcomes(&out.stdout);
    assert!(cli.len() > 50, "{}", String::from_utf8_lossy(&out.stderr));
    let suite = Suite::for_project(Project::discover(dir.path()).unwrap())
        .judge_reference()
        .smthrs_seeds([1, 2])
        .lawsuite_seeds([])
        .exhaustive_size(0);
    let suite = suite
        .outcomes()
        .unwrap()
        .into_iter()
        .filter(|o| {
            !o.id.as_str().starts_with("law::")
                || o.id.as_str().starts_with("law::text::")
                || o.id == "law::coverage"
        })
        .collect::<Vec<_>>();
    assert_eq!(table(&cli), table(&suite));
    let verdicts = table(&cli);
    if rg_ready {
        // lawsuite's own list for the built-in ripgrep follows it to "rg".
        assert_eq!(
            verdicts["law::text::lines::dot-matches-a-lone-cr::rg"],
            "expected_failure"
        );
    }
    // The project lists by registered name: a listed law that passes is an
    // unexpected pass, a listed id that names no law a broken check.
    assert_eq!(
        verdicts["law::text::lines::bom-later-in-the-file-is-kept::rg"],
        "unexpected_pass"
    );
    assert_eq!(
        verdicts["expected::unknown::rg::text::no-such-law"],
        "broken"
    );
    assert_eq!(out.status.code(), Some(1), "they fail the run");
}

/// With nothing said but the project, both doors hold the same trials:
/// the same laws, regressions, seeds of both generators and checks, for
/// the same peers (one default seed policy, no hand alignment).
#[test]
fn both_doors_default_to_the_same_trials() {
    let dir = project("[[peer]]\nname = \"other\"\nbuiltin = \"portable\"\n");
    std::fs::create_dir_all(dir.path().join("kept")).unwrap();
    let out = lawsuite(dir.path(), &["run", "--list"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cli: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    let suite: Vec<String> = Suite::for_project(Project::discover(dir.path()).unwrap())
        .judge_reference()
        .trials()
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    assert_eq!(cli, suite);
    let seeds = |prefix: &str| cli.iter().filter(|id| id.starts_with(prefix)).count();
    // 12 smthrs and 64 lawsuite seeds, each on the one subject.
    assert_eq!(
        (seeds("seed::smthrs::"), seeds("seed::lawsuite::")),
        (12, 64)
    );
    assert!(seeds("law::") > 2000, "every shipped law on both peers");
}

/// A deliberately wrong external peer: every format names the failing
/// laws with their diffs, and the peer's stderr tail beside the failure
/// its crash caused; the JUnit is valid XML.
#[test]
fn every_format_carries_the_reason_of_a_wrong_peer() {
    let marker_dir = tempfile::tempdir().unwrap();
    for format in ["human", "json", "jsonl", "junit", "markdown"] {
        let marker = marker_dir.path().join(format);
        let dir = project(&wrong_peer("wrong", &marker));
        let out = lawsuite(
            dir.path(),
            &[
                "run",
                "--no-seeds",
                "--law",
                "glob::",
                "--peer",
                "wrong",
                "--format",
                format,
                "--max-reports",
                "0",
                "--jobs",
                "1",
            ],
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{format}: {stdout}");
        // A failing law by name, its diff, and the stderr tail of the crash.
        assert!(
            stdout.contains("law::glob::matching::") && stdout.contains("::wrong"),
            "{format}: no failing law named"
        );
        // A removed line of the expected answer: as text, JSON-escaped, or
        // XML-escaped.
        let diff_line = ["-    \"", "-    \\\"", "-    &quot;"]
            .iter()
            .any(|d| stdout.contains(d));
        assert!(
            diff_line,
            "{format}: no diff line:\n{}",
            &stdout[..stdout.len().min(4000)]
        );
        assert!(
            stdout.contains("wrong peer: giving up on *.ts"),
            "{format}: the stderr tail is missing"
        );
        assert!(
            stdout.contains("search-contract §8"),
            "{format}: no spec section"
        );
        if format == "junit" {
            let doc = roxmltree::Document::parse(&stdout).expect("the JUnit is valid XML");
            let failures = doc
                .descendants()
                .filter(|n| n.has_tag_name("failure"))
                .count();
            assert!(failures > 0);
            let suite = doc
                .descendants()
                .find(|n| n.has_tag_name("testsuite") && n.attribute("name") == Some("wrong"))
                .unwrap();
            assert_eq!(
                suite
                    .attribute("failures")
                    .unwrap()
                    .parse::<usize>()
                    .unwrap(),
                failures
            );
        }
        if format == "json" {
            let doc: Value = serde_json::from_str(&stdout).unwrap();
            let fail = doc["outcomes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|o| o["verdict"] == "fail")
                .unwrap();
            assert!(fail["report"]["cases"][0]["tree"].is_array());
            assert!(fail["report"]["cases"][0]["expected"].is_object());
        }
    }
}

/// A seed divergence prints a replay command naming this binary and every
/// flag it needs; running it gives the same divergence.
#[test]
fn the_printed_replay_command_replays_the_divergence() {
    let marker_dir = tempfile::tempdir().unwrap();
    // The marker exists: no crash, only wrong answers.
    let marker = marker_dir.path().join("done");
    std::fs::write(&marker, "").unwrap();
    let dir = project(&wrong_peer("wrong", &marker));
    let registry_dir = tempfile::tempdir().unwrap();
    // The peers come from --registry, which the replay must repeat.
    std::fs::write(
        registry_dir.path().join("peers.toml"),
        format!(
            "reference = \"portable\"\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n{}",
            wrong_peer("other", &marker)
        ),
    )
    .unwrap();
    let registry = registry_dir.path().join("peers.toml");
    let registry = registry.to_str().unwrap();
    let out = lawsuite(
        dir.path(),
        &[
            "run",
            "--no-laws",
            "--no-exhaustive",
            "--seeds",
            "1..4",
            "--format",
            "jsonl",
            "--registry",
            registry,
        ],
    );
    let outcomes = jsonl_outcomes(&out.stdout);
    let failing = outcomes
        .iter()
        .find_map(|o| o.verdict.report())
        .expect("the wrong peer diverges on a glob call");
    let case = &failing.cases[0];
    let replay = case.replay.clone().unwrap();
    assert!(replay.starts_with(LAWSUITE), "{replay}");
    assert!(replay.contains("--registry"), "{replay}");
    // The command is plain words (no quoting needed for these paths).
    let words: Vec<&str> = replay.split_whitespace().collect();
    let again = Command::new(words[0])
        .args(&words[1..])
        .args(["--format", "jsonl"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let replayed = jsonl_outcomes(&again.stdout);
    assert_eq!(
        replayed.len(),
        1,
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let report = replayed[0].verdict.report().expect("the same divergence");
    assert_eq!(report.cases.len(), 1);
    assert_eq!(report.cases[0].call, case.call);
    assert_eq!(report.cases[0].actual, case.actual);
    assert_eq!(report.cases[0].expected, case.expected);
}

/// A peer that declares `flow/grep` gets the flow laws as `flow/grep`: its
/// own flow layer is what they test (this one never retries a literal, so
/// the §18 laws fail on it), its undeclared seam methods are skipped.
#[test]
fn a_peer_with_its_own_flow_layer_is_sent_the_flow_laws() {
    let dir = project(&format!(
        "[[peer]]\nname = \"own\"\ncommand = [\"{}\", \"{}\", \"{LAWSUITE}\", \"own-flow\"]\n",
        python(),
        proxy().display()
    ));
    let out = lawsuite(
        dir.path(),
        &[
            "run",
            "--no-seeds",
            "--peer",
            "own",
            "--format",
            "jsonl",
            "::own",
        ],
    );
    let outcomes = jsonl_outcomes(&out.stdout);
    let verdicts = table(&outcomes);
    let retry_fails = verdicts
        .iter()
        .filter(|(id, v)| id.starts_with("law::grep::retry::") && **v == "fail")
        .count();
    assert!(
        retry_fails > 0,
        "the literal-retry laws must fail: {verdicts:?}"
    );
    let flow_passes = verdicts
        .iter()
        .filter(|(id, v)| id.starts_with("law::grep::context::") && **v == "pass")
        .count();
    assert!(
        flow_passes > 0,
        "other flow/grep laws pass through its own flow layer"
    );
    let seam = outcomes
        .iter()
        .filter(|o| o.verdict.tag() == "skipped")
        .count();
    assert!(seam > 0, "its undeclared methods are skipped");
    // `lawsuite call` sends flow/grep to it as well.
    std::fs::write(dir.path().join("a.txt"), "a.b\n").unwrap();
    let call = lawsuite(
        dir.path(),
        &[
            "call",
            "--peer",
            "own",
            "flow/grep",
            r#"{"pattern":"a.b(","root":"."}"#,
        ],
    );
    let answer = String::from_utf8_lossy(&call.stdout);
    assert!(answer.contains("invalid_pattern"), "{answer}");
}

/// Nothing is green when nothing ran.
#[test]
fn an_empty_selection_is_an_error_that_says_what_to_pass() {
    let dir = tempfile::tempdir().unwrap();
    // With a peer that cannot run (here `rg`, pointed at nothing), its
    // notice is not a trial: the selection is as empty as with every peer.
    let missing = dir.path().join("no-rg-here");
    for rg in [None, Some(missing.as_path())] {
        for (args, says) in [
            (vec!["run", "--seeds", "5..2"], "--seeds"),
            (vec!["run", "--jobs", "0"], "--jobs"),
            (
                vec!["run", "--no-laws", "--no-seeds", "--no-regressions"],
                "nothing to run",
            ),
            (vec!["run", "--laws", "missing-dir"], "does not exist"),
            (vec!["run", "--no-shipped-laws", "--no-seeds"], "no laws"),
            (vec!["run", "no-such-trial"], "none of the run's"),
        ] {
            let mut command = Command::new(LAWSUITE);
            command
                .args(&args)
                .current_dir(dir.path())
                .env_remove("CARGO_MANIFEST_DIR");
            if let Some(rg) = rg {
                command.env("LAWSUITE_RG", rg);
            }
            let out = command.output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{rg:?} {args:?}: {stderr}");
            assert!(stderr.contains(says), "{rg:?} {args:?}: {stderr}");
            // Trials are counted, not the loader's items.
            assert!(!stderr.contains("items"), "{args:?}: {stderr}");
        }
    }
}

/// An installed binary (a copy, away from the source, no cargo
/// environment) in an empty directory: `init`, register a peer, `run` runs
/// every shipped law, `record` writes into the project, and the next `run`
/// replays it.
#[test]
fn an_installed_binary_runs_records_and_replays_in_an_empty_project() {
    let bin_dir = tempfile::tempdir().unwrap();
    let bin = bin_dir.path().join("lawsuite");
    std::fs::copy(LAWSUITE, &bin).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("no-crash");
    std::fs::write(&marker, "").unwrap();
    let run = |args: &[&str]| {
        Command::new(&bin)
            .args(args)
            .current_dir(dir.path())
            .env_remove("CARGO_MANIFEST_DIR")
            .output()
            .unwrap()
    };
    let init = run(&["init"]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    assert!(String::from_utf8_lossy(&init.stdout).contains("lawsuite run"));
    // Register a wrong peer, as the commented example shows.
    let file = dir.path().join("lawsuite.toml");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str(&format!(
        "\n[[peer]]\nname = \"mine\"\ncommand = [\"{}\", \"{}\", \"{}\", \"wrong\"]\nenv = {{ FAKE_MARKER = \"{}\" }}\n",
        python(),
        proxy().display(),
        bin.display(),
        marker.display()
    ));
    std::fs::write(&file, text).unwrap();
    let first = run(&[
        "run",
        "--format",
        "jsonl",
        "--seeds",
        "1..3",
        "--no-exhaustive",
    ]);
    let outcomes = jsonl_outcomes(&first.stdout);
    let shipped = lawsuite::law::shipped().0.len();
    let laws = outcomes
        .iter()
        .filter(|o| o.kind == lawsuite::conformance::Kind::Law)
        .count();
    assert_eq!(laws, 2 * shipped, "every shipped law on both peers");
    assert!(shipped > 900);
    // Record the first divergent seed call into the project.
    let seed_fail = outcomes
        .iter()
        .find(|o| o.kind == lawsuite::conformance::Kind::Seed && o.verdict.tag() == "fail")
        .expect("the wrong peer diverges on a seed");
    let title = &seed_fail.verdict.report().unwrap().cases[0].title;
    // "smthrs seed 1, call 14 (glob)"
    let seed = title
        .split("seed ")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap();
    let call = title
        .split("call ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    // Either generator's seeds may come first: the outcomes stream in the
    // order trials end.
    let generator = title.split(' ').next().unwrap();
    let record = run(&[
        "record",
        "--generator",
        generator,
        "--seed",
        seed,
        "--call",
        call,
        "--peer",
        "mine",
        "--why",
        "drops a path",
    ]);
    let said = String::from_utf8_lossy(&record.stdout);
    assert!(
        record.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&record.stderr)
    );
    let kept: Vec<_> = std::fs::read_dir(dir.path().join("lawsuite/regressions"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(kept.len(), 1, "{said}");
    let second = run(&["run", "--format", "jsonl", "--no-seeds", "--no-laws"]);
    let replayed = jsonl_outcomes(&second.stdout);
    let regressions: Vec<(&str, &str)> = replayed
        .iter()
        .filter(|o| o.kind == lawsuite::conformance::Kind::Regression)
        .map(|o| (o.peer.as_deref().unwrap(), o.verdict.tag()))
        .collect();
    assert_eq!(regressions, [("portable", "pass"), ("mine", "fail")]);
}

/// A peer the harness gives up restarting is announced once, with the
/// trial where it happened, and its later trials are broken (errors), not
/// divergences.
#[test]
fn a_stopped_peer_is_announced_once_and_its_later_trials_are_errors() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake_peers/misbehave.py");
    let dir = project(&format!(
        "[[peer]]\nname = \"crashy\"\ncommand = [\"{}\", \"{}\", \"crash\"]\ntimeout_ms = 2000\n",
        python(),
        script.display()
    ));
    let out = lawsuite(
        dir.path(),
        &[
            "run",
            "--no-laws",
            "--no-exhaustive",
            "--seeds",
            "1..7",
            "--jobs",
            "1",
            "--format",
            "jsonl",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stopped: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "peerStopped")
        .collect();
    assert_eq!(stopped.len(), 1, "{stdout}");
    let at = stopped[0]["at"].as_str().unwrap().to_string();
    assert!(
        at.starts_with("seed::smthrs::") && at.ends_with("::crashy"),
        "{at}"
    );
    let outcomes = jsonl_outcomes(&out.stdout);
    let after: Vec<&Outcome> = outcomes.iter().skip_while(|o| o.id != at).collect();
    assert!(after.len() >= 2, "{stdout}");
    // The trial where it stopped keeps its failure, whose fault log says so;
    // the later ones are not run.
    let report = after[0]
        .verdict
        .report()
        .expect("the stopping trial keeps its report");
    assert!(report.health.as_ref().is_some_and(|h| h.stopped.is_some()));
    assert!(
        after[1..].iter().all(|o| o.verdict.tag() == "broken"),
        "{stdout}"
    );
    let summary: Value = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "summary")
        .unwrap();
    assert_eq!(summary["stopped"].as_array().unwrap().len(), 1);
    // The human report says it on stderr, once.
    let human = lawsuite(
        dir.path(),
        &[
            "run",
            "--no-laws",
            "--no-exhaustive",
            "--seeds",
            "1..7",
            "--jobs",
            "1",
        ],
    );
    let stderr = String::from_utf8_lossy(&human.stderr);
    assert_eq!(stderr.matches("PEER STOPPED").count(), 1, "{stderr}");
}

/// `--fail-fast` stops at the first failure; `--max-reports` caps the full
/// reports and counts the rest.
#[test]
fn fail_fast_and_the_report_cap() {
    let marker_dir = tempfile::tempdir().unwrap();
    let marker = marker_dir.path().join("done");
    std::fs::write(&marker, "").unwrap();
    let dir = project(&wrong_peer("wrong", &marker));
    let fast = lawsuite(
        dir.path(),
        &[
            "run",
            "--no-seeds",
            "--law",
            "glob::",
            "--jobs",
            "1",
            "--fail-fast",
            "--format",
            "jsonl",
        ],
    );
    let outcomes = jsonl_outcomes(&fast.stdout);
    let failing = outcomes.iter().filter(|o| o.verdict.is_failure()).count();
    assert_eq!(failing, 1);
    assert!(outcomes.len() < 100, "{} trials ran", outcomes.len());
    let capped = lawsuite(
        dir.path(),
        &["run", "--no-seeds", "--law", "glob::", "--max-reports", "2"],
    );
    let stdout = String::from_utf8_lossy(&capped.stdout);
    let full = stdout
        .lines()
        .filter(|l| l.starts_with("FAIL law::"))
        .count();
    assert_eq!(full, 2, "{stdout}");
    assert!(
        stdout.contains("more failures not shown in full"),
        "{stdout}"
    );
    assert!(
        stdout.contains("failing laws by section: ") && stdout.contains("search-contract §8 ("),
        "{stdout}"
    );
}

/// `lawsuite plan | head` does not panic when the reader goes away.
#[test]
fn a_closed_pipe_ends_quietly() {
    let mut child = Command::new(LAWSUITE)
        .args(["plan", "--generator", "lawsuite", "--seed", "3"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Close the read end before the plan is written.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

/// SIGTERM mid-sweep: the run stops handing out trials, removes its trees,
/// stops its external peers, and exits 130.
#[cfg(target_os = "linux")]
#[test]
fn an_interrupted_run_removes_its_trees_and_stops_its_peers() {
    use std::io::BufRead;
    let tmp = tempfile::tempdir().unwrap();
    let marker = format!("lawsuite-interrupt-test-{}", std::process::id());
    let dir = project(&format!(
        "[[peer]]\nname = \"served\"\ncommand = [\"{LAWSUITE}\", \"serve\", \"--peer\", \"portable\"]\nenv = {{ LAWSUITE_TEST_MARKER = \"{marker}\" }}\n"
    ));
    let mut child = Command::new(LAWSUITE)
        .args([
            "run",
            "--no-laws",
            "--no-exhaustive",
            "--seeds",
            "0..5000",
            "--jobs",
            "2",
            "--format",
            "jsonl",
        ])
        .current_dir(dir.path())
        .env("TMPDIR", tmp.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = std::io::BufReader::new(stdout).lines();
    // Wait until seeds are being compared, then interrupt.
    let mut seen = 0;
    for line in lines.by_ref() {
        if line.unwrap().contains("\"type\":\"outcome\"") {
            seen += 1;
            if seen == 3 {
                break;
            }
        }
    }
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(
        rest.iter().any(|l| l.contains("\"type\":\"summary\"")),
        "the summary is still written"
    );
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "trees left behind: {left:?}");
    // No process carrying the peer's marker survives.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let survivors: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read(e.path().join("environ"))
                .is_ok_and(|env| env.windows(marker.len()).any(|w| w == marker.as_bytes()))
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        survivors.is_empty(),
        "peer processes left running: {survivors:?}"
    );
}

/// Three shards merged equal the single run, trial for trial, and every
/// item is in exactly one shard.
#[test]
fn merged_shards_equal_a_single_run() {
    let marker_dir = tempfile::tempdir().unwrap();
    let marker = marker_dir.path().join("done");
    std::fs::write(&marker, "").unwrap();
    let dir = project(&wrong_peer("wrong", &marker));
    let select = [
        "run",
        "--law",
        "glob::",
        "--seeds",
        "1..5",
        "--no-exhaustive",
        "--format",
        "jsonl",
    ];
    let single = lawsuite(dir.path(), &select);
    let single = jsonl_outcomes(&single.stdout);
    let mut files = Vec::new();
    let mut sizes = Vec::new();
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let mut args = select.to_vec();
        args.extend(["--shard", &shard]);
        let out = lawsuite(dir.path(), &args);
        sizes.push(jsonl_outcomes(&out.stdout).len());
        let file = dir.path().join(format!("shard-{k}.jsonl"));
        std::fs::write(&file, &out.stdout).unwrap();
        files.push(file.display().to_string());
    }
    assert!(sizes.iter().all(|n| *n > 0), "{sizes:?}");
    assert_eq!(sizes.iter().sum::<usize>(), single.len());
    let mut args = vec!["merge", "--format", "jsonl"];
    args.extend(files.iter().map(String::as_str));
    let merged = lawsuite(dir.path(), &args);
    assert_eq!(
        merged.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    assert_eq!(table(&jsonl_outcomes(&merged.stdout)), table(&single));
}

/// `--law` with a prefix no law has is a usage error, as an unmatched
/// filter is, not a run of the seeds alone that passes.
#[test]
fn a_law_filter_that_names_no_law_is_refused() {
    let dir = project("");
    let out = lawsuite(dir.path(), &["run", "--law", "grep::contxt", "--no-seeds"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("--law grep::contxt names no law"), "{said}");
    let nothing = lawsuite(dir.path(), &["run", "no-such-trial"]);
    let said = String::from_utf8_lossy(&nothing.stderr);
    assert!(
        said.contains(r#"matches "no-such-trial""#) && !said.contains("Some("),
        "{said}"
    );
}

/// JUnit counts what the console counts: one test case per trial (a
/// failing seed was one test case per divergent call: 3,761 test cases
/// for a run of 2,227 trials). A failing seed's one test case is named by
/// its trial id, lists every divergent call by its title (the plan's
/// `call N`, as `--call N` replays it), and shows the first in full with
/// its replay command.
#[test]
fn junit_has_one_test_case_per_trial_as_the_console_counts() {
    let marker_dir = tempfile::tempdir().unwrap();
    // The marker exists: no crash, only wrong answers.
    let marker = marker_dir.path().join("done");
    std::fs::write(&marker, "").unwrap();
    let dir = project(&wrong_peer("wrong", &marker));
    let args = [
        "run",
        "--no-laws",
        "--no-exhaustive",
        "--generator",
        "lawsuite",
        "--seeds",
        "1..3",
    ];
    let out = lawsuite(dir.path(), &[&args[..], &["--format", "junit"]].concat());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let doc = roxmltree::Document::parse(&stdout).expect("the JUnit is valid XML");
    let root = doc.root_element();
    let count = |n: roxmltree::Node, a: &str| -> usize {
        n.attribute(a)
            .and_then(|v| v.parse().ok())
            .unwrap_or(usize::MAX)
    };
    // The console's count of trials, from the same run in the human format.
    let human = lawsuite(dir.path(), &args);
    let said = String::from_utf8_lossy(&human.stdout);
    let trials: usize = said
        .lines()
        .find_map(|l| {
            l.split_once(" trials in ")
                .map(|(n, _)| n.trim().parse().unwrap())
        })
        .unwrap_or_else(|| panic!("no count of trials in {said}"));
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), trials, "{stdout}");
    assert_eq!(count(root, "tests"), trials, "{stdout}");
    let mut seeds = 0;
    for case in &cases {
        let name = case.attribute("name").unwrap_or_default();
        let Some(failure) = case.children().find(|n| n.has_tag_name("failure")) else {
            continue;
        };
        assert!(name.starts_with("seed::lawsuite::"), "{name}");
        assert!(!name.contains("::call-"), "{name}");
        assert_eq!(failure.attribute("type"), Some("divergence"));
        let body = failure.text().unwrap_or_default();
        // The list: the lines after its heading, up to the blank line.
        let listed: Vec<&str> = body
            .lines()
            .skip_while(|l| !l.starts_with("  divergent calls ("))
            .skip(1)
            .map_while(|l| l.strip_prefix("  - "))
            .collect();
        let diverge: usize = failure
            .attribute("message")
            .and_then(|m| m.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{name}: {body}"));
        assert_eq!(listed.len(), diverge, "{name}: {body}");
        let first = listed[0]
            .split_once(", call ")
            .and_then(|(_, rest)| rest.split(' ').next())
            .unwrap_or_else(|| panic!("{name}: {body}"));
        assert!(body.contains(&format!("--call {first} ")), "{name}: {body}");
        seeds += 1;
    }
    assert!(seeds > 1, "{stdout}");
    // And the totals are the suites' summed on a real run.
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    let sum: usize = suites.iter().map(|s| count(*s, "failures")).sum();
    assert_eq!(count(root, "failures"), sum, "{stdout}");
}
