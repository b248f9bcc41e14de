//! A peer's runs over time, from the command line: `lawsuite diff`,
//! `run --baseline` / `--write-baseline` and `run --rerun-failed`, on an
//! external peer that turns wrong (`tests/fake_peers/proxy.py`: `honest`,
//! then `wrong`, whose globs lose their first path).

mod fake_peers;

use std::path::Path;
use std::process::{Command, Output};

use fake_peers::{has_python, proxy, registry};

fn lawsuite(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lawsuite"))
        .args(args)
        .current_dir(dir)
        .env_remove("CARGO_MANIFEST_DIR")
        .output()
        .unwrap()
}

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `run` on `mine` in `mode` over a few glob laws and two seeds, jobs 1,
/// with `more` flags.
fn run(dir: &Path, mode: &str, more: &[&str]) -> Output {
    registry(dir, &[("mine", proxy(mode), "")]);
    let mut args = vec![
        "run",
        "--registry",
        "peers.toml",
        "--peer",
        "mine",
        "--law",
        "glob::matching",
        "--generator",
        "lawsuite",
        "--seeds",
        "0..2",
        "--no-exhaustive",
        "--no-regressions",
        "--jobs",
        "1",
        "--format",
        "json",
    ];
    args.extend_from_slice(more);
    lawsuite(dir, &args)
}

/// The failing trial ids of a results file.
fn failing(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut ids: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| {
            v["type"] == "outcome"
                && ["fail", "broken", "unexpected_pass"]
                    .contains(&v["verdict"].as_str().unwrap_or(""))
        })
        .filter_map(|v| v["id"].as_str().map(str::to_string))
        .collect();
    ids.sort();
    ids
}

#[test]
fn a_peer_that_turns_wrong_is_caught_by_diff_and_the_baseline_gate() {
    if !has_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = run(d, "honest", &["--write-baseline", "base.jsonl"]);
    assert_eq!(good.status.code(), Some(0), "{}", said(&good));
    assert!(
        said(&good).contains("wrote the baseline base.jsonl"),
        "{}",
        said(&good)
    );
    assert!(failing(&d.join("base.jsonl")).is_empty());

    // The peer turns wrong: the gate fails, naming what newly fails.
    let bad = run(
        d,
        "wrong",
        &["--baseline", "base.jsonl", "--write-baseline", "new.jsonl"],
    );
    assert_eq!(bad.status.code(), Some(1), "{}", said(&bad));
    let text = said(&bad);
    assert!(
        text.contains("NEWLY FAILING law::glob::matching::"),
        "{text}"
    );
    assert!(text.contains("baseline gate: FAILED"), "{text}");
    let now_failing = failing(&d.join("new.jsonl"));
    assert!(now_failing.len() >= 5, "{now_failing:?}");
    assert!(
        now_failing.iter().any(|id| id.starts_with("seed::")),
        "{now_failing:?}"
    );

    // With the new results as the baseline, the same failures pass the gate.
    let again = run(d, "wrong", &["--baseline", "new.jsonl"]);
    assert_eq!(again.status.code(), Some(0), "{}", said(&again));
    assert!(
        said(&again).contains("baseline gate: ok"),
        "{}",
        said(&again)
    );
    // Fixed, against that baseline: the gate passes and says to update it.
    let fixed = run(d, "honest", &["--baseline", "new.jsonl"]);
    assert_eq!(fixed.status.code(), Some(0), "{}", said(&fixed));
    assert!(
        said(&fixed).contains(&format!("{} of its failures now pass", now_failing.len()))
            && said(&fixed).contains("update the baseline: rerun with --write-baseline new.jsonl"),
        "{}",
        said(&fixed)
    );

    // diff: 1 when something newly fails, with each reason; 0 otherwise.
    let diff = lawsuite(d, &["diff", "base.jsonl", "new.jsonl"]);
    assert_eq!(diff.status.code(), Some(1), "{}", said(&diff));
    let text = said(&diff);
    assert!(
        text.contains(&format!("{} newly failing", now_failing.len())),
        "{text}"
    );
    assert!(
        text.contains("BY SPEC SECTION AND PEER:") && text.contains("· mine:"),
        "{text}"
    );
    let back = lawsuite(d, &["diff", "new.jsonl", "base.jsonl", "--format", "json"]);
    assert_eq!(back.status.code(), Some(0), "{}", said(&back));
    let json: serde_json::Value = serde_json::from_slice(&back.stdout).unwrap();
    assert_eq!(json["counts"]["newly_passing"], now_failing.len());
    let markdown = lawsuite(
        d,
        &["diff", "base.jsonl", "new.jsonl", "--format", "markdown"],
    );
    assert!(String::from_utf8_lossy(&markdown.stdout).contains("| newly failing |"));

    // --rerun-failed: exactly the failed trials, seeds included, whatever
    // seeds and laws this run would take.
    let rerun = |mode: &str, more: &[&str]| {
        registry(d, &[("mine", proxy(mode), "")]);
        let mut args = vec![
            "run",
            "--registry",
            "peers.toml",
            "--rerun-failed",
            "new.jsonl",
            "--jobs",
            "1",
        ];
        args.extend_from_slice(more);
        lawsuite(d, &args)
    };
    let listed = rerun("wrong", &["--list"]);
    assert_eq!(listed.status.code(), Some(0), "{}", said(&listed));
    let mut ids: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    ids.sort();
    assert_eq!(ids, now_failing);
    let fixed = rerun("honest", &["--write-baseline", "rerun.jsonl"]);
    assert_eq!(fixed.status.code(), Some(0), "{}", said(&fixed));
    let text = std::fs::read_to_string(d.join("rerun.jsonl")).unwrap();
    let ran = text
        .lines()
        .filter(|l| l.contains("\"type\":\"outcome\""))
        .count();
    assert_eq!(ran, now_failing.len(), "{text}");

    // history: the versions in order, only the trials that changed.
    let history = lawsuite(d, &["history", "base.jsonl", "new.jsonl", "base.jsonl"]);
    assert_eq!(history.status.code(), Some(0), "{}", said(&history));
    let text = said(&history);
    assert!(
        text.contains(&format!("{} of ", now_failing.len())) && text.contains("pass → fail → pass"),
        "{text}"
    );
    let markdown = lawsuite(
        d,
        &["history", "base.jsonl", "new.jsonl", "--format", "markdown"],
    );
    assert!(String::from_utf8_lossy(&markdown.stdout).contains("| pass | fail |"));
    let bad = lawsuite(d, &["history", "base.jsonl", "peers.toml"]);
    assert_eq!(bad.status.code(), Some(2), "{}", said(&bad));
}

#[test]
fn results_that_are_not_whole_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("notes.txt"), "hello\n").unwrap();
    let out = lawsuite(d, &["diff", "notes.txt", "notes.txt"]);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("notes.txt"), "{}", said(&out));

    // A run cut short: its summary line is missing.
    let run = lawsuite(
        d,
        &[
            "run",
            "--no-seeds",
            "--no-regressions",
            "--law",
            "glob::matching",
            "--peer",
            "portable",
            "--format",
            "jsonl",
        ],
    );
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    std::fs::write(d.join("whole.jsonl"), &run.stdout).unwrap();
    let text = String::from_utf8_lossy(&run.stdout).into_owned();
    let cut: String = text
        .lines()
        .filter(|l| !l.contains("\"type\":\"summary\""))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(d.join("cut.jsonl"), cut).unwrap();
    let out = lawsuite(d, &["diff", "whole.jsonl", "cut.jsonl"]);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains("cut.jsonl")
            && said(&out).contains("use the results of a run that finished"),
        "{}",
        said(&out)
    );
    for flag in ["--baseline", "--rerun-failed"] {
        let out = lawsuite(
            d,
            &["run", "--no-seeds", "--peer", "portable", flag, "cut.jsonl"],
        );
        assert_eq!(out.status.code(), Some(2), "{flag}: {}", said(&out));
    }
    // Another version's results: named, refused.
    let other = text.replacen(
        &format!("\"lawsuite\":\"{}\"", env!("CARGO_PKG_VERSION")),
        "\"lawsuite\":\"0.0.1\"",
        1,
    );
    assert_ne!(other, text);
    std::fs::write(d.join("old.jsonl"), other).unwrap();
    let out = lawsuite(d, &["diff", "old.jsonl", "whole.jsonl"]);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("0.0.1"), "{}", said(&out));
    // Nothing failed: nothing to rerun.
    let out = lawsuite(d, &["run", "--rerun-failed", "whole.jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(said(&out).contains("nothing to rerun"), "{}", said(&out));
}

/// `--repeat N` asks each trial N times on fresh trees: a peer wrong on
/// every second answer is flaky (its own verdict in every format, failing
/// the run), an honest one is not; `LAWSUITE_REPEAT` does the same, and a
/// value it cannot take is an error naming it.
#[test]
fn a_peer_that_answers_otherwise_when_asked_again_is_flaky() {
    if !has_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    registry(d, &[("mine", proxy("every-second"), "")]);
    let args = [
        "run",
        "--registry",
        "peers.toml",
        "--peer",
        "mine",
        "--law",
        "glob::matching",
        "--no-seeds",
        "--no-regressions",
        "--jobs",
        "1",
        "--repeat",
        "2",
    ];
    let json = lawsuite(d, &[&args[..], &["--format", "json"]].concat());
    assert_eq!(json.status.code(), Some(1), "{}", said(&json));
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let mine = &report["summary"]["byPeer"]["mine"];
    assert!(mine["flaky"].as_u64() > Some(5), "{mine}");
    let flaky = report["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["verdict"] == "flaky")
        .expect("a flaky outcome");
    assert_eq!(flaky["runs"].as_array().map(Vec::len), Some(2), "{flaky}");
    let human = lawsuite(d, &args);
    let text = said(&human);
    assert!(
        text.contains("FLAKY law::glob::matching::") && text.contains("flaky: asked 2 times"),
        "{text}"
    );
    let junit = lawsuite(d, &[&args[..], &["--format", "junit"]].concat());
    assert!(String::from_utf8_lossy(&junit.stdout).contains("type=\"flaky\""));
    let markdown = lawsuite(d, &[&args[..], &["--format", "markdown"]].concat());
    assert!(String::from_utf8_lossy(&markdown.stdout).contains("| flaky |"));

    registry(d, &[("mine", proxy("honest"), "")]);
    let steady = lawsuite(d, &[&args[..], &["--format", "json"]].concat());
    assert_eq!(steady.status.code(), Some(0), "{}", said(&steady));

    let bad = Command::new(env!("CARGO_BIN_EXE_lawsuite"))
        .args([
            "run",
            "--no-seeds",
            "--peer",
            "portable",
            "--law",
            "glob::matching",
        ])
        .current_dir(d)
        .env("LAWSUITE_REPEAT", "0")
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2), "{}", said(&bad));
    assert!(said(&bad).contains("LAWSUITE_REPEAT"), "{}", said(&bad));
    registry(d, &[("mine", proxy("every-second"), "")]);
    let env = Command::new(env!("CARGO_BIN_EXE_lawsuite"))
        .args(&args[..args.len() - 2])
        .args(["--format", "json"])
        .current_dir(d)
        .env("LAWSUITE_REPEAT", "2")
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&env.stdout).unwrap();
    assert!(
        report["summary"]["byPeer"]["mine"]["flaky"].as_u64() > Some(5),
        "{}",
        said(&env)
    );
}

/// `--repeat 4294967295`, the flag's own maximum, asks the trial again and
/// again in bounded memory, until interrupted: here by the peer itself,
/// after 300 answers, having read the harness's peak memory. It used to
/// abort at once, reserving 103 GB for every asking's outcomes.
#[cfg(target_os = "linux")]
#[test]
fn the_largest_repeat_asks_in_bounded_memory() {
    if !has_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    registry(d, &[("mine", proxy("interrupt-after"), "")]);
    let log = d.join("peak.log");
    let out = Command::new(env!("CARGO_BIN_EXE_lawsuite"))
        .args([
            "run",
            "--registry",
            "peers.toml",
            "--peer",
            "mine",
            "--law",
            "glob::matching",
            "--no-seeds",
            "--no-regressions",
            "--jobs",
            "1",
            "--repeat",
            "4294967295",
            "--format",
            "jsonl",
            "::mine",
        ])
        .current_dir(d)
        .env_remove("CARGO_MANIFEST_DIR")
        .env("FAKE_CALLS", "300")
        .env("FAKE_LOG", &log)
        .env("LAWSUITE_INTERRUPT_GRACE_SECS", "1")
        .output()
        .unwrap();
    let text = said(&out);
    assert!(!text.contains("memory allocation"), "{text}");
    assert_eq!(out.status.code(), Some(130), "{text}");
    let peak: u64 = std::fs::read_to_string(&log)
        .unwrap_or_else(|e| panic!("the peer never got 300 calls ({e}): {text}"))
        .trim()
        .parse()
        .unwrap();
    assert!(peak < 256 * 1024, "{peak} kB after 300 askings: {text}");
}

/// `lawsuite fuzz --for`: a campaign against a peer whose globs lose their
/// first path finds that group, keeps one shrunk regression for it, saves
/// its state beside the regressions and exits 1; the next campaign resumes
/// past the seeds asked and, finding nothing new, exits 0; a state file
/// that is not one is refused, not replaced.
#[test]
fn a_campaign_groups_a_peers_divergences_and_resumes() {
    if !has_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    registry(d, &[("mine", proxy("wrong"), "")]);
    std::fs::write(d.join("lawsuite.toml"), "registry = \"peers.toml\"\n").unwrap();
    let fuzz = || {
        lawsuite(
            d,
            &[
                "fuzz",
                "--for",
                "3s",
                "--peer",
                "mine",
                "--generator",
                "lawsuite",
                "--ground",
                "shared",
                "--jobs",
                "1",
                // Seeds alone: this is about resuming the seed sequence.
                "--unguided",
            ],
        )
    };
    let first = fuzz();
    let text = said(&first);
    assert_eq!(first.status.code(), Some(1), "{text}");
    assert!(text.contains("NEW   mine × glob × "), "{text}");
    assert!(
        text.contains("replay: ") && text.contains("--peer mine"),
        "{text}"
    );
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("lawsuite/fuzz-state.json")).unwrap())
            .unwrap();
    let next = state["next"]["lawsuite"].as_u64().unwrap();
    assert!(next > 0, "{state}");
    let kept: Vec<_> = std::fs::read_dir(d.join("lawsuite/regressions"))
        .unwrap()
        .collect();
    let groups = state["groups"].as_array().unwrap();
    assert!(!groups.is_empty() && kept.len() <= groups.len(), "{state}");
    assert!(
        groups.iter().all(|g| g["regression"].is_string()),
        "{state}"
    );

    let second = fuzz();
    let text = said(&second);
    let again: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("lawsuite/fuzz-state.json")).unwrap())
            .unwrap();
    assert!(
        again["next"]["lawsuite"].as_u64().unwrap() > next,
        "{again}\n{text}"
    );
    assert_eq!(again["campaigns"], 2);
    if !text.contains("NEW  ") {
        assert_eq!(second.status.code(), Some(0), "{text}");
    }
    assert!(text.contains("known mine × glob"), "{text}");

    std::fs::write(d.join("lawsuite/fuzz-state.json"), "{}").unwrap();
    let refused = fuzz();
    assert_eq!(refused.status.code(), Some(2), "{}", said(&refused));
    assert!(
        said(&refused).contains("fuzz-state.json"),
        "{}",
        said(&refused)
    );
    assert_eq!(
        std::fs::read_to_string(d.join("lawsuite/fuzz-state.json")).unwrap(),
        "{}"
    );
    let bad = lawsuite(d, &["fuzz", "--for", "0s"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// A results file of one trial whose id holds ESC, with `verdict`.
fn escaping(dir: &Path, name: &str, verdict: &str) -> String {
    let version = env!("CARGO_PKG_VERSION");
    let (fail, broken) = if verdict == "broken" { (0, 1) } else { (0, 0) };
    let pass = 1 - broken;
    let counts = format!(
        r#"{{"pass":{pass},"fail":{fail},"expectedFailure":0,"unexpectedPass":0,"skipped":0,"broken":{broken}}}"#
    );
    let why = if verdict == "broken" {
        r#","why":"gone \u001b]0;title\u0007""#
    } else {
        ""
    };
    let text = format!(
        "{{\"type\":\"run\",\"lawsuite\":\"{version}\",\"project\":\"p\",\"reference\":\"portable\",\"peers\":[],\"started\":0,\"machine\":\"m\"}}\n\
         {{\"type\":\"outcome\",\"id\":\"law::a\\u001b[2J::mine\",\"item\":\"law::a\",\"kind\":\"law\",\"peer\":\"mine\",\"verdict\":\"{verdict}\"{why},\"seconds\":0.0}}\n\
         {{\"type\":\"summary\",\"byKind\":{{\"law\":{counts}}},\"byPeer\":{{}},\"bySection\":{{}},\"divergentCalls\":0,\"seeds\":0,\"stopped\":[],\"seconds\":0.0,\"complete\":true}}\n"
    );
    std::fs::write(dir.join(name), text).unwrap();
    name.to_string()
}

/// `diff` and `history` print a trial id (and a reason) holding ESC as
/// `run` prints one: escaped, never the raw control character a terminal
/// would obey.
#[test]
fn diff_and_history_escape_control_characters() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base = escaping(d, "base.jsonl", "pass");
    let new = escaping(d, "new.jsonl", "broken");
    for args in [
        vec!["diff", &base, &new],
        vec!["diff", &base, &new, "--format", "markdown"],
        vec!["history", &base, &new],
        vec!["history", &base, &new, "--format", "markdown"],
    ] {
        let out = lawsuite(d, &args);
        let text = said(&out);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{args:?}: {text}");
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{args:?}: {text:?}"
        );
        assert!(
            text.contains(r"law::a\u{001B}[2J::mine"),
            "{args:?}: {text}"
        );
    }
    let out = lawsuite(d, &["diff", &base, &new]);
    assert!(
        said(&out).contains(r"gone \u{001B}]0;title\u{0007}"),
        "{}",
        said(&out)
    );
}
