//! `lawsuite bench` end to end, on tiny corpora and one round (fast).
//! The cases with a lying external peer need `python3` and pass, saying
//! why, without it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod fake_peers;
use fake_peers::{has_python, misbehave, proxy, registry};

const LAWSUITE: &str = env!("CARGO_BIN_EXE_lawsuite");

fn tiny_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let files = [
        (".gitignore", "target/\n"),
        (
            "src/main.rs",
            "fn main() {\n    // TODO: QuuxRareToken\n    return;\n}\n",
        ),
        (
            "src/lib.rs",
            "pub fn a_handler() {}\nlet x = b_handler.run();\n",
        ),
        ("notes.md", "todo list\nReturn Session123\n"),
        ("target/out.rs", "QuuxRareToken\n"),
    ];
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn bench(args: &[&str]) -> Output {
    Command::new(LAWSUITE)
        .arg("bench")
        .args(args)
        .output()
        .expect("lawsuite runs")
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn every_builtin_kind_runs_and_agrees_on_a_tiny_tree() {
    let tree = tiny_tree();
    let root = tree.path().to_str().unwrap();
    let out = bench(&[
        "--peer", "portable", "--peer", "ripgrep", "--corpus", root, "--rounds", "1", "--warmup",
        "0", "--format", "json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr:\n{stderr}");
    let report = json(&out);
    let calls = report["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 19);
    let rg_missing = report["unavailable"].as_array().unwrap().len() == 1;
    for call in calls {
        for result in call["results"].as_array().unwrap() {
            assert_eq!(result["status"], "timed", "{call}");
            assert_eq!(result["summary"]["samples"], 1, "{call}");
        }
        assert_eq!(call["results"][0]["ratio"], 1.0, "{call}");
        assert_eq!(
            call["results"].as_array().unwrap().len(),
            if rg_missing { 1 } else { 2 }
        );
    }
    assert!(
        stderr.contains("[19/19] flow_glob_listing: round 1/1"),
        "{stderr}"
    );
    assert_eq!(report["baseline"], "portable");
    assert!(report["machine"]["cpus"].as_u64().unwrap() >= 1);
    // camelCase, as every other output of lawsuite: `medianMs`, `loadBefore`.
    assert!(calls[0]["results"][0]["summary"]["medianMs"].is_number());
    fn snake_keys(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, v) in map {
                    if key.contains('_') {
                        out.push(key.clone());
                    }
                    snake_keys(v, out);
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| snake_keys(v, out)),
            _ => {}
        }
    }
    let mut snake = Vec::new();
    // The calls' inputs are the wire's (already camelCase); the rest is the
    // report's own.
    let mut without_calls = report.clone();
    for call in without_calls["calls"].as_array_mut().unwrap() {
        call.as_object_mut().unwrap().remove("call");
    }
    snake_keys(&without_calls, &mut snake);
    assert!(snake.is_empty(), "snake_case keys: {snake:?}");
}

#[test]
fn table_and_markdown_render() {
    let tree = tiny_tree();
    let root = tree.path().to_str().unwrap();
    let args = |format| {
        [
            "--peer",
            "portable",
            "--peer",
            "noop",
            "--corpus",
            root,
            "--query",
            "rare_literal",
            "--query",
            "glob_listing",
            "--rounds",
            "1",
            "--format",
            format,
        ]
    };
    // `noop` refuses every call, so it disagrees with portable: exit 1.
    let out = bench(&args("table"));
    assert_eq!(out.status.code(), Some(1));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("portable (baseline)"), "{table}");
    assert!(table.contains("DISAGREES: noop on rare_literal"), "{table}");
    let out = bench(&args("markdown"));
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.contains("| call | portable (baseline) | noop |"), "{md}");
    assert!(md.contains("| glob_listing |"), "{md}");
}

#[test]
fn a_lying_external_peer_is_flagged_never_ranked() {
    if !has_python() {
        return;
    }
    let tree = tiny_tree();
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(dir.path(), &[("liar", misbehave(&["ok"]), "")]);
    // The liar answers every call with an empty output, fast.
    let calls = dir.path().join("calls.jsonl");
    std::fs::write(
        &calls,
        concat!(
            r#"{"name":"needle","method":"grep","input":{"pattern":"TODO","root":"src","fixedStrings":false,"ignoreCase":false,"smartCase":false,"globs":[],"beforeContext":0,"afterContext":0,"filesWithMatches":false,"hidden":false,"noIgnore":false,"symbols":false,"limit":200}}"#,
            "\n",
            r#"{"method":"glob","input":{"pattern":"*.zip","root":"src","hidden":false,"noIgnore":false,"limit":10}}"#,
            "\n"
        ),
    )
    .unwrap();
    let out = bench_the_liar(
        &registry,
        tree.path(),
        &calls,
        &["--rounds", "2", "--format", "json"],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&out);
    let needle = &report["calls"][0];
    assert_eq!(needle["name"], "needle");
    assert_eq!(needle["results"][1]["status"], "disagrees");
    assert_eq!(
        needle["results"][1]["difference"],
        "/matches: 0 items, expected 1"
    );
    assert!(needle["results"][1].get("rank").is_none());
    assert!(needle["results"][1].get("ratio").is_none());
    assert_eq!(needle["results"][0]["rank"], 1);
    // On the glob nobody finds anything, so the liar is right, and timed.
    let glob = &report["calls"][1];
    assert_eq!(glob["name"], "glob_2");
    assert_eq!(glob["results"][1]["status"], "timed", "{glob}");
    assert_eq!(glob["results"][1]["summary"]["samples"], 2);
    // The HTML report marks it on the needle query and draws no bar for it
    // there; on the glob, both are drawn.
    let html = bench_the_liar(
        &registry,
        tree.path(),
        &calls,
        &["--rounds", "2", "--format", "html"],
    );
    assert_eq!(html.status.code(), Some(1));
    let page = String::from_utf8_lossy(&html.stdout);
    let needle = &page
        [page.find("data-query=\"needle\"").unwrap()..page.find("data-query=\"glob_2\"").unwrap()];
    assert!(
        needle.contains("data-peer=\"liar\" data-status=\"disagrees\""),
        "{needle}"
    );
    assert!(
        !needle.contains("class=\"bar\" data-peer=\"liar\""),
        "{needle}"
    );
    assert!(
        needle.contains("class=\"bar\" data-peer=\"portable\""),
        "{needle}"
    );
    let glob = &page[page.find("data-query=\"glob_2\"").unwrap()..];
    assert!(glob.contains("class=\"bar\" data-peer=\"liar\""), "{glob}");
}

/// A registry holding `portable`; `liar`, which answers every call with
/// an empty output, fast; and `wrong`, `lawsuite serve --peer portable`
/// behind a proxy that drops the first path of every glob. And a calls
/// file with a grep the liar gets wrong.
fn liar_and_a_call(dir: &Path) -> (PathBuf, PathBuf) {
    let registry = registry(
        dir,
        &[
            ("liar", misbehave(&["ok"]), ""),
            ("wrong", proxy("wrong"), ""),
        ],
    );
    let calls = dir.join("calls.jsonl");
    std::fs::write(
        &calls,
        r#"{"name":"needle","method":"grep","input":{"pattern":"TODO","root":"src","fixedStrings":false,"ignoreCase":false,"smartCase":false,"globs":[],"beforeContext":0,"afterContext":0,"filesWithMatches":false,"hidden":false,"noIgnore":false,"symbols":false,"limit":200}}"#,
    )
    .unwrap();
    (registry, calls)
}

#[test]
fn a_disagreeing_peer_can_be_timed_anyway_never_ranked() {
    if !has_python() {
        return;
    }
    let tree = tiny_tree();
    let dir = tempfile::tempdir().unwrap();
    let (registry, calls) = liar_and_a_call(dir.path());
    let run = |format: &str| {
        bench_the_liar(
            &registry,
            tree.path(),
            &calls,
            &["--rounds", "3", "--time-disagreeing", "--format", format],
        )
    };
    let out = run("json");
    // Timed or not, a disagreement is a failed run.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&out);
    let liar = &report["calls"][0]["results"][1];
    assert_eq!(liar["status"], "disagrees", "{liar}");
    assert_eq!(liar["difference"], "/matches: 0 items, expected 1");
    assert_eq!(liar["summary"]["samples"], 3, "{liar}");
    assert!(liar.get("rank").is_none() && liar.get("ratio").is_none());
    let portable = &report["calls"][0]["results"][0];
    assert_eq!(portable["rank"], 1);
    assert_eq!(portable["ratio"], 1.0);

    let table = String::from_utf8_lossy(&run("table").stdout).into_owned();
    assert!(table.contains("DISAGREES (timed) "), "{table}");
    assert!(
        table.contains("timed anyway (--time-disagreeing)"),
        "{table}"
    );
}

#[test]
fn a_disagreement_cites_the_call_not_the_temporary_corpus() {
    if !has_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (registry, _) = liar_and_a_call(dir.path());
    // A generated corpus: written under the temporary directory, removed
    // when the run ends.
    let out = bench(&[
        "--peer",
        "portable",
        "--peer",
        "liar",
        "--peer",
        "wrong",
        "--registry",
        registry.to_str().unwrap(),
        "--query",
        "rare_literal",
        "--query",
        "glob_listing",
        "--rounds",
        "1",
        "--warmup",
        "0",
    ]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{table}");
    let notes: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with("DISAGREES: "))
        .collect();
    // The liar on both calls, the wrong peer on the glob.
    assert_eq!(notes.len(), 3, "{table}");
    assert!(
        notes[2].starts_with(
            r#"DISAGREES: wrong on glob_listing (call 2: {"name":"glob_listing","method":"glob","input":{"pattern":"*.rs","root":".","#
        ),
        "{}",
        notes[2]
    );
    // The difference, too, is spelt relative to the corpus.
    assert!(notes[2].contains(r#"(/paths/0: "./pkg_"#), "{}", notes[2]);
    let temp = std::env::temp_dir();
    let temp = temp.to_str().unwrap().trim_end_matches('/');
    for note in notes {
        assert!(!note.contains(temp), "{note}");
    }
}

/// `lawsuite bench --peer portable --peer liar` over `calls` on `corpus`,
/// with `more` flags.
fn bench_the_liar(registry: &Path, corpus: &Path, calls: &Path, more: &[&str]) -> Output {
    let mut args = vec![
        "--peer",
        "portable",
        "--peer",
        "liar",
        "--registry",
        registry.to_str().unwrap(),
        "--corpus",
        corpus.to_str().unwrap(),
        "--call-file",
        calls.to_str().unwrap(),
    ];
    args.extend(more);
    bench(&args)
}

/// `lawsuite bench` on one glob with the fake peer in `mode` (it answers
/// the first `good` globs of each process right, then crashes or hangs).
fn bench_a_peer_that_breaks(mode: &str, good: usize) -> Option<Output> {
    if !has_python() {
        return None;
    }
    let tree = tiny_tree();
    let dir = tempfile::tempdir().unwrap();
    let good = good.to_string();
    let registry = registry(
        dir.path(),
        &[("breaks", misbehave(&[mode, &good]), "timeout_ms = 1500\n")],
    );
    // Nothing matches, so the fake peer's empty answer is the right one.
    let calls = dir.path().join("calls.jsonl");
    std::fs::write(
        &calls,
        r#"{"name":"zip","method":"glob","input":{"pattern":"*.zip","root":"src","hidden":false,"noIgnore":false,"limit":10}}"#,
    )
    .unwrap();
    Some(bench(&[
        "--peer",
        "portable",
        "--peer",
        "breaks",
        "--registry",
        registry.to_str().unwrap(),
        "--corpus",
        tree.path().to_str().unwrap(),
        "--call-file",
        calls.to_str().unwrap(),
        "--rounds",
        "4",
        "--warmup",
        "0",
        "--format",
        "json",
    ]))
}

fn assert_faulted(out: &Output, during: &str, code: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let report = json(out);
    let result = &report["calls"][0]["results"][1];
    assert_eq!(result["status"], "faulted", "{result}");
    assert_eq!(result["during"], during, "{result}");
    let difference = result["difference"].as_str().unwrap();
    assert!(difference.contains(code), "{difference}");
    assert!(result.get("rank").is_none() && result.get("summary").is_none());
    assert_eq!(report["calls"][0]["results"][0]["rank"], 1);
    assert!(stderr.contains("breaks FAULTED in"), "{stderr}");
}

#[test]
fn a_peer_that_crashes_mid_run_is_faulted_not_ranked() {
    // Right for the agreement and round 1, then it exits: the restarted
    // process would answer again, but the failed round already decided.
    if let Some(out) = bench_a_peer_that_breaks("crash-after", 2) {
        assert_faulted(&out, "round 2/4", "request_failed");
    }
}

#[test]
fn a_peer_that_hangs_mid_run_is_faulted_not_averaged_in() {
    if let Some(out) = bench_a_peer_that_breaks("hang-after", 2) {
        assert_faulted(&out, "round 2/4", "timeout");
    }
}

#[test]
fn an_unknown_peer_lists_the_registered_ones() {
    let out = bench(&["--peer", "portable", "--peer", "nosuchpeer"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no peer named \"nosuchpeer\" is registered"),
        "{stderr}"
    );
    assert!(
        stderr.contains("portable, ripgrep, ripgrep-walk, git, model, python-glob"),
        "{stderr}"
    );
    assert!(stderr.contains("--registry FILE"), "{stderr}");
}

#[test]
fn a_missing_rg_says_how_to_install_it_and_the_run_goes_on() {
    let tree = tiny_tree();
    let out = Command::new(LAWSUITE)
        .args([
            "bench",
            "--peer",
            "ripgrep",
            "--peer",
            "portable",
            "--query",
            "rare_literal",
        ])
        .args(["--rounds", "1", "--format", "json", "--corpus"])
        .arg(tree.path())
        .env("LAWSUITE_RG", "/nonexistent/rg")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("cargo install ripgrep --locked"),
        "{stderr}"
    );
    let report = json(&out);
    assert_eq!(report["baseline"], "portable");
    assert_eq!(report["unavailable"][0]["peer"], "ripgrep");
    assert_eq!(report["calls"][0]["results"][0]["status"], "timed");
}

/// A peer that never completes its handshake is named once, with its
/// fault, and each of its cells says it did not start: it used to read
/// `DISAGREES (/matches: missing)` on every call, with no fault text.
#[test]
fn a_peer_that_never_completes_its_handshake_is_named_with_its_fault() {
    if !has_python() {
        return;
    }
    let tree = tiny_tree();
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(
        dir.path(),
        &[(
            "mute",
            misbehave(&["mute-init"]),
            "timeout_ms = 300\nhandshake_timeout_ms = 300\n",
        )],
    );
    let run = |format: &str| {
        bench(&[
            "--peer",
            "mute",
            "--peer",
            "portable",
            "--registry",
            registry.to_str().unwrap(),
            "--corpus",
            tree.path().to_str().unwrap(),
            "--rounds",
            "1",
            "--warmup",
            "0",
            "--format",
            format,
        ])
    };
    let started = std::time::Instant::now();
    let out = run("json");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    // Asked once, not once a call (each a timeout).
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("mute could not be started"))
        .collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(said[0].contains("initialize"), "{}", said[0]);
    let report = json(&out);
    // The first peer that starts is the baseline.
    assert_eq!(report["baseline"], "portable", "{report}");
    let calls = report["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 19);
    for call in calls {
        let mute = &call["results"][0];
        assert_eq!(mute["peer"], "mute", "{call}");
        assert_eq!(mute["status"], "not_started", "{call}");
        assert!(
            mute["fault"]
                .as_str()
                .is_some_and(|f| f.contains("initialize")),
            "{call}"
        );
        assert_eq!(call["results"][1]["rank"], 1, "{call}");
    }
    let table = String::from_utf8_lossy(&run("table").stdout).into_owned();
    assert!(!table.contains("DISAGREES"), "{table}");
    assert!(table.contains("NOT STARTED"), "{table}");
    let notes: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with("NOT STARTED: mute"))
        .collect();
    assert_eq!(notes.len(), 1, "{table}");
    assert!(notes[0].contains("initialize"), "{}", notes[0]);
}
