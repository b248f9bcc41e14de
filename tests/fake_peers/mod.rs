//! Registering the fake peers of this folder (external peers that are
//! wrong, crash or hang on purpose) for the command-line tests: a
//! `peers.toml` under a test's temp dir, with `portable` as the reference.
//!
//! They run on `python3`; without it a test says why and passes, except
//! under `CI`.

// Each test crate uses some of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `lawsuite` binary cargo built, which `proxy.py` serves `portable`
/// from.
const LAWSUITE: &str = env!("CARGO_BIN_EXE_lawsuite");

/// Is `python3` on `PATH`? If not, says the test is skipped, and fails it
/// under `CI`, which has it.
pub fn has_python() -> bool {
    has("python3")
}

/// Does `program --version` run here? If not, says the test is skipped,
/// and fails it under `CI` (`.ci/run` installs every tool a test uses).
pub fn has(program: &str) -> bool {
    let found = Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "{program} is needed in CI (.ci/run installs it)"
        );
        eprintln!("note: skipped: {program} is not on PATH");
    }
    found
}

fn script(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fake_peers")
        .join(name);
    path.to_str().expect("a UTF-8 checkout").to_string()
}

/// The command of `misbehave.py` with `args` (its mode, and how many calls
/// it answers right first).
pub fn misbehave(args: &[&str]) -> Vec<String> {
    let mut command = vec!["python3".to_string(), script("misbehave.py")];
    command.extend(args.iter().map(|a| a.to_string()));
    command
}

/// The command of `proxy.py` in `mode`: `lawsuite serve --peer portable`
/// with one thing changed (`wrong`: every glob loses its first path).
pub fn proxy(mode: &str) -> Vec<String> {
    vec![
        "python3".to_string(),
        script("proxy.py"),
        LAWSUITE.to_string(),
        mode.to_string(),
    ]
}

/// Write `dir/peers.toml`: the built-in `portable` as the reference, then
/// each `(name, command, more)`, `more` being further TOML lines of that
/// peer (`timeout_ms = 1500\n`) or empty.
pub fn registry(dir: &Path, peers: &[(&str, Vec<String>, &str)]) -> PathBuf {
    let mut text = String::from(
        "reference = \"portable\"\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n",
    );
    for (name, command, more) in peers {
        let command: Vec<String> = command.iter().map(|w| format!("{w:?}")).collect();
        text.push_str(&format!(
            "[[peer]]\nname = {name:?}\ncommand = [{}]\n{more}",
            command.join(", ")
        ));
    }
    let path = dir.join("peers.toml");
    std::fs::write(&path, text).expect("the registry is written");
    path
}
