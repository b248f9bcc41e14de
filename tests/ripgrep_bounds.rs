//! The ripgrep peer's own bounds, through the installed binary's door
//! (`lawsuite call --peer ripgrep`): `rg` runs under a memory bound, and a
//! search that needs more than it fails saying so, in bounded time.

use std::process::Command;

const LAWSUITE: &str = env!("CARGO_BIN_EXE_lawsuite");

/// Whether `rg` runs; in CI it must (`.ci/run` installs it).
fn have_rg(test: &str) -> bool {
    let found = Command::new("rg")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "{test}: rg is not on PATH, and CI must have it (.ci/run installs it)"
        );
        eprintln!("{test}: skipped: rg is not on PATH");
    }
    found
}

/// A 100 MB line of `a` searched for `aaa` grows `rg` without end (18.4 GB
/// for a 1 GB line); under a 128 MiB bound it stops at once, and the answer
/// names the bound instead of "could not start rg".
#[cfg(unix)]
#[test]
fn rg_past_its_memory_bound_fails_naming_it() {
    if !have_rg("memory bound") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), vec![b'a'; 100_000_000]).unwrap();
    let input = serde_json::json!({
        "pattern": "aaa", "root": dir.path(), "fixedStrings": false, "ignoreCase": false,
        "smartCase": false, "globs": [], "beforeContext": 0, "afterContext": 0,
        "filesWithMatches": false, "hidden": false, "noIgnore": false, "symbols": true,
        "limit": 1
    });
    let call = || {
        Command::new(LAWSUITE)
            .args(["call", "--peer", "ripgrep", "grep", &input.to_string()])
            .current_dir(dir.path())
            .env("LAWSUITE_RG_MEMORY_MB", "128")
            .output()
            .unwrap()
    };
    let started = std::time::Instant::now();
    let out = call();
    let took = started.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("rg ran out of its 128 MiB memory bound"),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(took < std::time::Duration::from_secs(20), "took {took:?}");
    // The same search of an ordinary file under the same bound answers.
    std::fs::write(dir.path().join("a.txt"), "aaa\n").unwrap();
    let out = call();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("\"line\": 1"), "{stdout}");
}

/// A sparse 5 GiB file (a line of text, then a hole that reads as NULs) is
/// binary (search-contract §11.1), and both `rg` peers say so at once and
/// in bounded memory: `rg --text -- '\x00'` held the whole NUL line, 8–22 s
/// and 3.86 GB per call, then failed at its memory bound (`command_failed`).
/// Here under a 256 MiB bound, with the answer `portable` gives.
#[cfg(unix)]
#[test]
fn a_sparse_file_is_binary_at_once_in_bounded_memory() {
    if !have_rg("sparse file") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let sparse = dir.path().join("sparse.bin");
    std::fs::write(&sparse, "needle\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&sparse)
        .unwrap()
        .set_len(5 << 30)
        .unwrap();
    std::fs::write(dir.path().join("a.txt"), "needle\n").unwrap();
    let input = |root: &std::path::Path| {
        serde_json::json!({
            "pattern": "needle", "root": root, "fixedStrings": false, "ignoreCase": false,
            "smartCase": false, "globs": [], "beforeContext": 0, "afterContext": 0,
            "filesWithMatches": false, "hidden": false, "noIgnore": false, "symbols": false,
            "limit": 100
        })
        .to_string()
    };
    let call = |peer: &str, root: &std::path::Path| {
        let started = std::time::Instant::now();
        let out = Command::new(LAWSUITE)
            .args(["call", "--peer", peer, "grep", &input(root)])
            .current_dir(dir.path())
            .env("LAWSUITE_RG_MEMORY_MB", "256")
            .output()
            .unwrap();
        let took = started.elapsed();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            took < std::time::Duration::from_secs(10),
            "{peer} took {took:?}: {stdout}"
        );
        (out.status.code(), stdout)
    };
    let (code, expected) = call("portable", dir.path());
    assert_eq!(code, Some(0), "{expected}");
    assert!(expected.contains("\"skippedBinary\": 1"), "{expected}");
    let (_, refused) = call("portable", &sparse);
    assert!(refused.contains("binary_file"), "{refused}");
    for peer in ["ripgrep", "ripgrep-walk"] {
        let (code, answer) = call(peer, dir.path());
        assert_eq!(code, Some(0), "{peer}: {answer}");
        assert_eq!(answer, expected, "{peer}");
        let (code, answer) = call(peer, &sparse);
        assert_eq!(code, Some(1), "{peer}: {answer}");
        assert_eq!(answer, refused, "{peer}");
    }
}

/// `LAWSUITE_RG_TIMEOUT_MS` is one `rg`'s deadline, through the binary's
/// door: at 2 s an `rg` that takes 30 s is stopped, and the answer
/// (`provider_unavailable`, as native-peer §1 words a timeout) names the
/// deadline and the variable; unset, the same search answers.
#[cfg(unix)]
#[test]
fn rg_past_its_deadline_is_a_timeout_naming_it() {
    if !have_rg("deadline") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hay\nneedle\n").unwrap();
    // An `rg` that answers `--version` at once, as rg, and takes 30 s to
    // start any search: the deadline is what ends it, whatever the
    // machine's load (a real rg on 40 MB of hay under a 1 ms deadline
    // also missed the version probe's deadline on a loaded machine).
    let slow = dir.path().join("slow-rg");
    let real = Command::new("sh")
        .args(["-c", "command -v rg"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap();
    std::fs::write(
        &slow,
        format!("#!/bin/sh\ncase \"$1\" in --version) exec '{real}' --version;; esac\nsleep 30\nexec '{real}' \"$@\"\n"),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&slow, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let input = serde_json::json!({
        "pattern": "needle", "root": dir.path(), "fixedStrings": false, "ignoreCase": false,
        "smartCase": false, "globs": [], "beforeContext": 0, "afterContext": 0,
        "filesWithMatches": false, "hidden": false, "noIgnore": false, "symbols": false,
        "limit": 1
    });
    let call = |timeout: Option<&str>, rg: &std::path::Path| {
        let mut command = Command::new(LAWSUITE);
        command
            .args(["call", "--peer", "ripgrep", "grep", &input.to_string()])
            .current_dir(dir.path())
            .env("LAWSUITE_RG", rg)
            .env_remove("LAWSUITE_RG_TIMEOUT_MS");
        if let Some(ms) = timeout {
            command.env("LAWSUITE_RG_TIMEOUT_MS", ms);
        }
        command.output().unwrap()
    };
    let out = call(Some("2000"), &slow);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("\"code\": \"provider_unavailable\""),
        "{stdout}"
    );
    assert!(
        stdout.contains("rg was still running at the call's deadline and was killed (LAWSUITE_RG_TIMEOUT_MS sets how long"),
        "{stdout}"
    );
    let out = call(None, std::path::Path::new(&real));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
