//! A FIFO where lawsuite reads one of its own inputs (a regression, a law,
//! an expected-failures file, the registry, the project file, a results
//! file) is refused, naming the file, instead of blocking the command for
//! ever on opening it.

#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const LAWSUITE: &str = env!("CARGO_BIN_EXE_lawsuite");

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs (coreutils)");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// Runs `lawsuite ARGS` in `dir`; fails the test if it is still running
/// after 30 s (it used to block for ever). Returns its status and what it
/// printed (stdout, then stderr; its output is small).
fn bounded(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(LAWSUITE)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > until {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} blocked on a FIFO for 30 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut printed = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut printed).unwrap();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut printed).unwrap();
    (status.code(), printed)
}

/// A project with only `portable`, its regressions in `regressions/`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("lawsuite.toml"),
        "reference = \"portable\"\nregressions = \"regressions\"\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n",
    )
    .unwrap();
    for sub in ["regressions", "laws", "expected"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
    }
    dir
}

fn refused(dir: &Path, args: &[&str], file: &str) {
    let (code, stderr) = bounded(dir, args);
    assert_ne!(code, Some(0), "{args:?}: {stderr}");
    assert!(
        stderr.contains(file) && stderr.contains("FIFO"),
        "{args:?} does not name the FIFO {file}: {stderr}"
    );
}

const RUN: &[&str] = &["run", "--no-seeds", "--law", "glob::canonical"];

#[test]
fn a_fifo_in_the_regressions_directory() {
    let dir = project();
    mkfifo(&dir.path().join("regressions/stuck.json"));
    refused(dir.path(), RUN, "stuck.json");
}

#[test]
fn a_fifo_in_a_law_directory() {
    let dir = project();
    mkfifo(&dir.path().join("laws/stuck.toml"));
    let mut args = RUN.to_vec();
    args.extend(["--law-dir", "laws"]);
    refused(dir.path(), &args, "stuck.toml");
}

#[test]
fn a_fifo_in_an_expected_directory() {
    let dir = project();
    mkfifo(&dir.path().join("expected/stuck.toml"));
    let mut args = RUN.to_vec();
    args.extend(["--expected", "expected"]);
    refused(dir.path(), &args, "stuck.toml");
}

#[test]
fn a_fifo_as_the_registry_or_the_project_file() {
    let dir = project();
    mkfifo(&dir.path().join("peers.toml"));
    refused(
        dir.path(),
        &["peers", "--registry", "peers.toml"],
        "peers.toml",
    );
    mkfifo(&dir.path().join("other.toml"));
    refused(
        dir.path(),
        &["peers", "--project", "other.toml"],
        "other.toml",
    );
}

#[test]
fn a_fifo_given_to_merge_or_report() {
    let dir = project();
    mkfifo(&dir.path().join("shard.jsonl"));
    refused(dir.path(), &["merge", "shard.jsonl"], "shard.jsonl");
    refused(
        dir.path(),
        &["report", "shard.jsonl", "-o", "report.html"],
        "shard.jsonl",
    );
}
