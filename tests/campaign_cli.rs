//! `lawsuite fuzz` as a user runs it, and as a hostile user would (issue
//! 45): interrupted over and over against a faithful peer it finds
//! nothing; with no tree it can write, it fails and keeps its state; an
//! absurd `--for` is a usage error; a peer that crashes every fifth call
//! cannot stretch the campaign past its budget; and two campaigns on one
//! state never interleave.

#![cfg(target_os = "linux")]

mod fake_peers;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use fake_peers::{has_python, misbehave, proxy, registry};

const LAWSUITE: &str = env!("CARGO_BIN_EXE_lawsuite");

/// A project in `dir` whose registry holds `peer` beside `portable`.
fn project(dir: &Path, peer: (&str, Vec<String>, &str)) {
    registry(dir, &[peer]);
    std::fs::write(dir.join("lawsuite.toml"), "registry = \"peers.toml\"\n").unwrap();
}

/// A project of two built-ins, `portable` and `model`, which agree.
fn builtins_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("lawsuite.toml"),
        "[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n[[peer]]\nname = \"model\"\nbuiltin = \"model\"\n",
    )
    .unwrap();
    dir
}

fn fuzz(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(LAWSUITE);
    command
        .current_dir(dir)
        .arg("fuzz")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

fn said(out: &Output) -> String {
    format!(
        "exit {:?}\n{}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn state(dir: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("lawsuite/fuzz-state.json")).ok()?;
    Some(serde_json::from_str(&text).unwrap())
}

/// A faithful external peer (a proxy of `portable`), its campaign
/// interrupted by SIGINT and SIGTERM part way, again and again: no group,
/// ever. Before, each interrupt left the faults of lawsuite's own shutdown
/// in the state as the peer's groups, and the next campaign called a real
/// finding of the same signature known.
#[test]
fn an_interrupted_campaign_blames_nobody() {
    if !has_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    project(d, ("honest", proxy("honest"), ""));
    let mut asked = 0;
    for (i, signal) in ["-INT", "-TERM", "-INT", "-TERM"].into_iter().enumerate() {
        let child = fuzz(d, &["--for", "60s", "--peer", "honest", "--jobs", "2"])
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(1500 + 400 * i as u64));
        let sent = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let out = child.wait_with_output().unwrap();
        // Interrupted (130), or interrupted before any seed was asked
        // whole (2, and the state untouched).
        assert!(matches!(out.status.code(), Some(130 | 2)), "{}", said(&out));
        if out.status.code() == Some(130) {
            asked += 1;
        }
        if let Some(state) = state(d) {
            assert_eq!(state["groups"], serde_json::json!([]), "{}", said(&out));
        }
    }
    assert!(asked > 0, "no campaign got as far as a seed");
    assert_eq!(state(d).unwrap()["campaigns"], asked);
}

/// No tree can be written (`TMPDIR` is a file): the campaign fails, says
/// why, and leaves the state as it was, byte for byte. Before, it exited 0
/// ("0 seeds, 0 new groups") and moved `next` past thousands of seeds no
/// peer was asked.
#[test]
fn a_campaign_that_cannot_write_a_tree_fails_and_keeps_its_state() {
    let dir = builtins_project();
    let d = dir.path();
    std::fs::create_dir_all(d.join("lawsuite")).unwrap();
    let kept = "{\"format\": 2, \"campaigns\": 3, \"next\": {\"smthrs\": 40}, \"groups\": []}\n";
    std::fs::write(d.join("lawsuite/fuzz-state.json"), kept).unwrap();
    let not_a_dir = d.join("tmp-is-a-file");
    std::fs::write(&not_a_dir, "").unwrap();
    let out = fuzz(d, &["--for", "5s", "--peer", "model"])
        .env("TMPDIR", &not_a_dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    let text = said(&out);
    assert!(text.contains("compared nothing"), "{text}");
    assert!(text.contains("cannot be written"), "{text}");
    assert_eq!(
        std::fs::read_to_string(d.join("lawsuite/fuzz-state.json")).unwrap(),
        kept
    );
}

/// A duration the clock cannot add is a usage error, never a panic.
#[test]
fn an_absurd_duration_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    for absurd in ["10000000000000000000", "1e300h", "inf"] {
        let out = fuzz(dir.path(), &["--for", absurd]).output().unwrap();
        let text = said(&out);
        assert_eq!(out.status.code(), Some(2), "{absurd}: {text}");
        assert!(!text.contains("panicked"), "{absurd}: {text}");
        assert!(text.contains("--for"), "{absurd}: {text}");
    }
    assert!(!dir.path().join("lawsuite").exists());
}

/// A peer that crashes on every fifth call (and answers the others
/// wrongly, so there is much to shrink): `--for` bounds the whole
/// campaign, shrinking included, so it ends within the budget and one
/// call's timeout. Before, the budget was looked at between seeds only
/// and shrinking had no deadline: `--for 20` ran 1,276 s until stopped.
#[test]
fn a_crashing_peer_cannot_stretch_a_campaign_past_its_budget() {
    if !has_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    project(
        d,
        (
            "crashy",
            misbehave(&["crash-after", "4"]),
            "timeout_ms = 2000\n",
        ),
    );
    let started = Instant::now();
    let out = fuzz(d, &["--for", "4s", "--peer", "crashy", "--jobs", "2"])
        .output()
        .unwrap();
    let took = started.elapsed();
    let text = said(&out);
    // The budget, one call's timeout (2 s here), and room for a loaded
    // machine to start and stop its processes.
    assert!(took < Duration::from_secs(4 + 2 + 20), "{took:?}\n{text}");
    assert_eq!(out.status.code(), Some(1), "{text}");
    let state = state(d).unwrap();
    let groups = state["groups"].as_array().unwrap();
    assert!(!groups.is_empty(), "{state}");
    // Each group is kept, or its cut shrink is carried to the next
    // campaign.
    for group in groups {
        assert!(
            group["regression"].is_string() || group["pending"].is_string(),
            "{group}"
        );
    }
}

/// Two campaigns on one state at once: the second is refused while the
/// first runs, and the first's groups are all kept.
#[test]
fn two_campaigns_on_one_state_never_interleave() {
    let dir = builtins_project();
    let d = dir.path();
    let first = fuzz(d, &["--for", "6s", "--peer", "model", "--jobs", "1"])
        .spawn()
        .unwrap();
    // The first holds the state's lock once it has started.
    let lock = d.join("lawsuite/.fuzz-state.json.lock");
    let waited = Instant::now();
    while !lock.exists() && waited.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let second = fuzz(d, &["--for", "2s", "--peer", "model"])
        .output()
        .unwrap();
    let text = said(&second);
    assert_eq!(second.status.code(), Some(2), "{text}");
    assert!(text.contains("another campaign is running"), "{text}");
    let first = first.wait_with_output().unwrap();
    assert_eq!(first.status.code(), Some(0), "{}", said(&first));
    assert_eq!(state(d).unwrap()["campaigns"], 1);
}

/// `--format json`: the campaign's end as one document (counts, where the
/// next starts, the groups, the residual risk) on stdout, nothing else
/// there; the same state as a human-format campaign keeps.
#[test]
fn a_campaign_prints_its_end_as_json_when_asked() {
    let dir = builtins_project();
    let d = dir.path();
    let out = fuzz(
        d,
        &[
            "--for", "2s", "--peer", "model", "--jobs", "1", "--format", "json",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let end: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}): {}", said(&out)));
    assert!(end["calls"].as_u64().unwrap() > 0, "{end:#}");
    assert_eq!(end["newGroups"], 0, "{end:#}");
    assert_eq!(end["interrupted"], false);
    assert_eq!(end["state"]["groups"], serde_json::json!([]));
    let state = state(d).unwrap();
    assert_eq!(end["state"]["next"], state["next"], "{end:#}");
    assert!(
        end["state"]["risk"]
            .as_str()
            .unwrap()
            .starts_with("residual risk")
    );
}
