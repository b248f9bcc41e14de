//! A seed range is two numbers, never expanded before anything runs:
//! `lawsuite run --seeds 0..100000000 --list` reached 2.7 GB and aborted,
//! the widest ranges panicked (`capacity overflow`), and a leftover
//! `LAWSUITE_SEEDS=0..200000000` cost `run --seeds 0` 3.1 GB although the
//! flag overrides it. Ranges up to `u64::MAX` seeds list their first
//! trials at once here, in a few megabytes.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};

const LAWSUITE: &str = env!("CARGO_BIN_EXE_lawsuite");

/// A project outside the checkout: the reference and one subject, both
/// `portable`, and no laws of its own.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("lawsuite.toml"),
        "reference = \"portable\"\n\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n\n[[peer]]\nname = \"mine\"\nbuiltin = \"portable\"\n",
    )
    .unwrap();
    dir
}

fn command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(LAWSUITE);
    command
        .args(args)
        .current_dir(dir)
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("LAWSUITE_SEEDS");
    command
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every seed up to the largest `u64`: the first trials are listed at
/// once, and the run ends quietly when the reader goes away (`| head`).
#[test]
fn the_widest_range_lists_its_first_trials_at_once() {
    let dir = project();
    let mut child = command(
        dir.path(),
        &[
            "run",
            "--no-laws",
            "--no-regressions",
            "--seeds",
            "0..18446744073709551615",
            "--list",
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first: Vec<String> = lines.by_ref().take(3).map(Result::unwrap).collect();
    // `head -3`: the reader goes away.
    drop(lines);
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        first,
        [
            "seed::smthrs::0000::mine",
            "seed::smthrs::0001::mine",
            "seed::smthrs::0002::mine"
        ],
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// The largest seeds are seeds like the others, with their ids as today.
#[test]
fn the_largest_seeds_are_listed_like_the_others() {
    let dir = project();
    let out = command(
        dir.path(),
        &[
            "run",
            "--no-laws",
            "--no-regressions",
            "--no-exhaustive",
            "--generator",
            "lawsuite",
            "--seeds",
            "18446744073709551613..18446744073709551615",
            "--list",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "seed::lawsuite::18446744073709551613::mine\nseed::lawsuite::18446744073709551614::mine\n"
    );
    assert!(stderr(&out).contains("2 trials"), "{}", stderr(&out));
}

/// `--seeds` overrides `LAWSUITE_SEEDS`, whose range is read (a value it
/// cannot take is still refused) but never expanded.
#[test]
fn a_flag_overrides_the_variable_without_expanding_it() {
    let dir = project();
    let args = [
        "run",
        "--no-laws",
        "--no-regressions",
        "--no-exhaustive",
        "--seeds",
        "1",
        "--list",
    ];
    let out = command(dir.path(), &args)
        .env("LAWSUITE_SEEDS", "0..18446744073709551615")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "seed::smthrs::0001::mine\nseed::lawsuite::0001::mine\n"
    );
    let out = command(dir.path(), &args)
        .env("LAWSUITE_SEEDS", "0-100")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("LAWSUITE_SEEDS=\"0-100\" is not A..B"),
        "{}",
        stderr(&out)
    );
}

/// A shard of a wide range runs only its own seeds, picked as the range is
/// walked, with the same ids and verdicts as the seeds run one by one.
#[test]
fn a_shard_of_a_range_runs_its_own_seeds() {
    let dir = project();
    let base = [
        "run",
        "--no-laws",
        "--no-regressions",
        "--no-exhaustive",
        "--generator",
        "lawsuite",
        "--seeds",
        "0..3",
        "--format",
        "jsonl",
    ];
    let mut ids = Vec::new();
    for k in ["1/4", "3/4", "4/4"] {
        let mut args = base.to_vec();
        args.extend(["--shard", k]);
        let out = command(dir.path(), &args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{k}: {}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0]["trials"], 1, "{text}");
        for line in &lines[1..lines.len() - 1] {
            assert_eq!(line["verdict"], "pass", "{text}");
            ids.push(line["id"].as_str().unwrap().to_string());
        }
    }
    ids.sort();
    assert_eq!(
        ids,
        [
            "seed::lawsuite::0000::mine",
            "seed::lawsuite::0001::mine",
            "seed::lawsuite::0002::mine"
        ]
    );
}
