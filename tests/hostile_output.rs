//! A peer's bytes never act on the terminal or the CI log: a hostile peer
//! (`misbehave.py hostile`) puts ESC, BEL, CR and `::` workflow commands in
//! its name, version, stderr, error messages and answers; `peers` and the
//! human and Markdown reports of `run` show them escaped, and no line of
//! theirs starts with `::` (a GitHub runner reads `::add-mask::…` as a
//! command).

mod fake_peers;

use std::process::Command;

use fake_peers::{has_python, misbehave, registry};

const LAWSUITE: &str = env!("CARGO_BIN_EXE_lawsuite");

/// The output has the peer's text, and none of it can act.
fn inert(what: &str, out: &[u8]) {
    let text = String::from_utf8_lossy(out);
    assert!(
        text.contains(r"\u{001B}[31mred") && text.contains("add-mask"),
        "{what} does not show the peer's text at all: {text}"
    );
    for (byte, name) in [(0x1b, "ESC"), (0x07, "BEL"), (b'\r', "CR")] {
        assert!(!out.contains(&byte), "{what} prints a raw {name}: {text}");
    }
    let commands: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("::"))
        .collect();
    assert!(
        commands.is_empty(),
        "{what} lets a peer start a line with a workflow command: {commands:?}"
    );
}

#[test]
fn a_hostile_peer_s_text_is_escaped_in_peers_and_reports() {
    if !has_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    registry(dir.path(), &[("hostile", misbehave(&["hostile"]), "")]);
    let lawsuite = |args: &[&str]| {
        Command::new(LAWSUITE)
            .args(args)
            .args(["--registry", "peers.toml"])
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let peers = lawsuite(&["peers"]);
    inert("peers", &peers.stdout);
    for format in ["human", "markdown"] {
        for law in ["glob::canonical", "grep::context"] {
            let out = lawsuite(&[
                "run",
                "--no-seeds",
                "--no-regressions",
                "--law",
                law,
                "--peer",
                "hostile",
                "--format",
                format,
            ]);
            assert_eq!(out.status.code(), Some(1), "{format} {law}");
            inert(&format!("run --format {format} --law {law}"), &out.stdout);
        }
    }
}
