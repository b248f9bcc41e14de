//! `lawsuite survey` end to end on a small tree: the peers agree, the
//! tree is left exactly as it was, a wrong external peer is reported (by
//! kind, with a diff and a replay that runs), and a path that is not a
//! directory is refused. The wrong peer needs `python3` and passes, saying
//! why, without it.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

mod fake_peers;
use fake_peers::{has_python, proxy, registry};

const LAWSUITE: &str = env!("CARGO_BIN_EXE_lawsuite");

fn survey(args: &[&str]) -> Output {
    Command::new(LAWSUITE)
        .arg("survey")
        .args(args)
        .output()
        .expect("lawsuite runs")
}

/// Every entry under `dir`: its kind, length, modification time and mode.
fn snapshot(dir: &Path) -> BTreeMap<String, String> {
    use std::os::unix::fs::MetadataExt;

    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                todo.push(path.clone());
            }
            let key = path.strip_prefix(dir).unwrap().display().to_string();
            let value = format!(
                "{:?} {} {} {} {:o}",
                meta.file_type(),
                meta.len(),
                meta.mtime(),
                meta.mtime_nsec(),
                meta.mode()
            );
            out.insert(key, value);
        }
    }
    out
}

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let files: [(&str, &[u8]); 7] = [
        (".gitignore", b"target/\n*.log\n"),
        (
            "src/main.rs",
            b"fn main() {\n    // TODO: call_handler\n}\n",
        ),
        (
            "src/lib.rs",
            b"pub fn call_handler() {}\n\npub struct Session;\n",
        ),
        (
            "docs/notes.md",
            b"# Notes\n\ncaf\xc3\xa9 handler\n\tindented\n",
        ),
        ("target/out.rs", b"call_handler\n"),
        ("run.log", b"call_handler\n"),
        (
            "tool.bin",
            b"\x7fELF\x02\x01\x01\x00\n\n\xc3\xa9t\xc3\xa9\n",
        ),
    ];
    for (path, bytes) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    dir
}

#[test]
fn peers_agree_on_a_small_tree_which_is_left_untouched() {
    if let Err(why) = lawsuite::ripgrep::Ripgrep::with_options(
        lawsuite::testing::rg_options().expect("the LAWSUITE_RG* variables"),
    )
    .availability()
    {
        // Never green by skipping where the tool must be: CI installs rg.
        assert!(
            std::env::var_os("CI").is_none(),
            "rg is needed in CI: {why}"
        );
        eprintln!("note: skipped: {why}");
        return;
    }
    let tree = tree();
    let before = snapshot(tree.path());
    let root = tree.path().to_str().unwrap();
    let out = survey(&[
        root,
        "--call-count",
        "120",
        "--seed",
        "5",
        "--format",
        "json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let tally: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}); stderr:\n{stderr}"));
    assert!(out.status.success(), "{tally:#}\n{stderr}");
    assert_eq!(tally["calls"], 120);
    assert_eq!(tally["reference"], "portable");
    // camelCase, like every other output of lawsuite.
    assert_eq!(tally["divergentCalls"], 0, "{tally:#}");
    assert!(tally.get("divergent_calls").is_none(), "{tally:#}");
    let peers = tally["peers"].as_array().unwrap();
    let names: Vec<&str> = peers.iter().filter_map(|p| p["peer"].as_str()).collect();
    assert_eq!(names, ["ripgrep", "ripgrep-walk"]);
    for p in peers {
        assert_eq!(p["divergent"], 0, "{p}");
        assert_eq!(p["asked"], 120, "{p}");
        assert_eq!(p["divergentKinds"], serde_json::json!({}), "{p}");
    }
    assert_eq!(snapshot(tree.path()), before, "the tree was changed");

    // The same seed draws the same calls: the same counts again.
    let again = survey(&[
        root,
        "--call-count",
        "120",
        "--seed",
        "5",
        "--format",
        "json",
    ]);
    let again: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again, tally);
}

#[test]
fn a_wrong_peer_is_counted_by_kind_and_shown_as_a_diff_with_a_replay_that_runs() {
    if !has_python() {
        return;
    }
    let tree = tree();
    let dir = tempfile::tempdir().unwrap();
    // `portable` behind a proxy that drops the first path of every glob.
    let registry = registry(dir.path(), &[("wrong", proxy("wrong"), "")]);
    let root = tree.path().to_str().unwrap();
    let args = [
        root,
        "--peer",
        "wrong",
        "--registry",
        registry.to_str().unwrap(),
        "--call-count",
        "40",
        "--seed",
        "1",
    ];
    let out = survey(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");

    // The summary counts the divergences by kind: only globs lose a path.
    let kinds: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("  divergent "))
        .collect();
    assert!(!kinds.is_empty(), "{stdout}");
    assert!(
        kinds.iter().all(|k| k.contains(": /paths")),
        "{kinds:?}\n{stdout}"
    );
    // Both answers, as a diff: the reference's lines `-`, the peer's `+`.
    assert!(stdout.contains("    - portable, + wrong:\n"), "{stdout}");
    assert!(stdout.contains("\n      -  \"paths\": ["), "{stdout}");
    assert!(stdout.contains("\n      +"), "{stdout}");

    // The replay names the registry, so it runs from anywhere.
    let replay = stdout
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("replay: "))
        .unwrap_or_else(|| panic!("no replay line:\n{stdout}"));
    assert!(replay.contains("--registry"), "{replay}");
    let elsewhere = tempfile::tempdir().unwrap();
    let replayed = Command::new("sh")
        .arg("-c")
        .arg(replay)
        .current_dir(elsewhere.path())
        .output()
        .unwrap();
    assert_eq!(
        replayed.status.code(),
        Some(0),
        "{replay}\n{}",
        String::from_utf8_lossy(&replayed.stderr)
    );
    let answer: Value = serde_json::from_slice(&replayed.stdout).unwrap();
    assert!(answer["paths"].is_array(), "{answer}");
    // And the reference's side, asked the same call: the two answers are
    // the divergence (the peer's alone showed nothing wrong).
    let reference = stdout
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("reference: "))
        .unwrap_or_else(|| panic!("no reference replay line:\n{stdout}"));
    assert!(reference.contains("--peer portable"), "{reference}");
    assert_eq!(
        reference.replace("--peer portable", "--peer wrong"),
        replay,
        "the same call, asked of the reference"
    );
    let expected = Command::new("sh")
        .arg("-c")
        .arg(reference)
        .current_dir(elsewhere.path())
        .output()
        .unwrap();
    let expected: Value = serde_json::from_slice(&expected.stdout).unwrap();
    assert_ne!(expected, answer, "{reference}");

    // As JSON, the kinds add up to the divergences.
    let mut json_args = args.to_vec();
    json_args.extend(["--format", "json"]);
    let tally: Value = serde_json::from_slice(&survey(&json_args).stdout).unwrap();
    let wrong = &tally["peers"][0];
    let total: u64 = wrong["divergentKinds"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(Some(total), wrong["divergent"].as_u64(), "{wrong}");
    assert!(total > 0, "{wrong}");
}

#[test]
fn calling_an_unregistered_peer_says_how_to_name_its_registry() {
    let out = Command::new(LAWSUITE)
        .args(["call", "--peer", "wrong", "glob", "{}"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no peer named \"wrong\""), "{stderr}");
    assert!(
        stderr.contains("--registry FILE") && stderr.contains("--project FILE"),
        "{stderr}"
    );
}

#[test]
fn a_path_that_is_not_a_directory_is_refused() {
    let tree = tree();
    for path in [tree.path().join("missing"), tree.path().join("src/lib.rs")] {
        let out = survey(&[path.to_str().unwrap(), "--call-count", "5"]);
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("is not a directory"), "{stderr}");
    }
}

/// `differ`, `--calls` and `--json` were renamed (`survey`,
/// `--call-count`, `--format json`): for one release the old spellings
/// still give the same answers, each with a warning naming the new one.
#[test]
fn the_old_spellings_still_work_for_one_release_and_say_what_replaced_them() {
    let tree = tree();
    let root = tree.path().to_str().unwrap();
    let common = ["--reference", "portable", "--peer", "model", "--seed", "2"];
    let old = Command::new(LAWSUITE)
        .args(["differ", root, "--calls", "30", "--json"])
        .args(common)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&old.stderr);
    assert!(old.status.success(), "{stderr}");
    for (was, now) in [
        ("lawsuite differ", "lawsuite survey"),
        ("--calls", "--call-count"),
        ("--json", "--format json"),
    ] {
        assert!(
            stderr.contains(&format!("warning: `{was}` is now `{now}`")),
            "no warning for {was}:\n{stderr}"
        );
    }
    let new = survey(&[
        root,
        "--call-count",
        "30",
        "--format",
        "json",
        "--reference",
        "portable",
        "--peer",
        "model",
        "--seed",
        "2",
    ]);
    assert!(new.status.success());
    assert!(!String::from_utf8_lossy(&new.stderr).contains("warning"));
    let tally = |out: &Output| {
        let mut v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v.as_object_mut().unwrap().remove("seconds");
        v
    };
    assert_eq!(tally(&old), tally(&new));
    assert_eq!(tally(&new)["calls"], 30);
}
