//! Every command that starts a peer or writes a temporary tree, interrupted
//! as `timeout 8` interrupts it (SIGTERM to the command, then to its whole
//! process group) while a peer is stuck: it exits 130 at once, with no peer
//! process and no temporary tree left.

#![cfg(target_os = "linux")]

mod fake_peers;

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fake_peers::{has_python, misbehave, registry};

const LAWSUITE: &str = env!("CARGO_BIN_EXE_lawsuite");

/// Is `pid` a live process (not gone, not a zombie)?
fn running(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat
        .rsplit(')')
        .next()
        .and_then(|rest| rest.trim().chars().next());
    !matches!(state, Some('Z' | 'X') | None)
}

/// Runs `lawsuite ARGS` in a project whose peers `stuck` (answers the
/// handshake, then nothing) and `mute` (never answers the handshake) each
/// write their pid when they start; once one has started, sends SIGTERM
/// the way `timeout` does, and checks what is left.
fn interrupted_leaves_nothing(args: &[&str]) {
    if !has_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    for i in 0..3 {
        std::fs::write(data.join(format!("f{i}.ts")), format!("needle {i}\n")).unwrap();
    }
    let pids = dir.path().join("pids");
    let more = format!(
        "timeout_ms = 600000\nenv = {{ FAKE_PIDS = {:?} }}\n",
        pids.display()
    );
    registry(
        dir.path(),
        &[
            ("stuck", misbehave(&["stuck"]), &more),
            ("mute", misbehave(&["mute-init"]), &more),
        ],
    );
    let mut child = Command::new(LAWSUITE)
        .args(args)
        .args(["--registry", "peers.toml"])
        .current_dir(dir.path())
        .env("TMPDIR", &tmp)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        // As `timeout` runs it: in a group it can signal as a whole.
        .process_group(0)
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(60);
    while !pids.exists() && Instant::now() < until {
        assert!(child.try_wait().unwrap().is_none(), "{args:?} ended first");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(pids.exists(), "{args:?}: the stuck peer never started");
    // Into its handshake or its first call.
    std::thread::sleep(Duration::from_millis(500));
    let pid = child.id().to_string();
    let group = format!("-{pid}");
    for target in [pid.as_str(), group.as_str()] {
        let sent = Command::new("kill")
            .args(["-TERM", "--", target])
            .status()
            .unwrap();
        assert!(sent.success(), "kill -TERM {target}");
    }
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("{args:?} still running 20 s after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{args:?} took {:?} to stop: {stderr}",
        started.elapsed()
    );
    assert_eq!(status.code(), Some(130), "{args:?}: {stderr}");
    left_nothing(&tmp, &pids, args, &stderr);
}

fn left_nothing(tmp: &Path, pids: &Path, args: &[&str], stderr: &str) {
    let trees: Vec<_> = std::fs::read_dir(tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    // A killed peer is reaped by init, which may take a moment.
    std::thread::sleep(Duration::from_millis(300));
    let live: Vec<u32> = std::fs::read_to_string(pids)
        .unwrap()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .filter(|&pid| running(pid))
        .collect();
    for &pid in &live {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
    assert!(trees.is_empty(), "{args:?} left trees {trees:?}: {stderr}");
    assert!(live.is_empty(), "{args:?} left peers {live:?}: {stderr}");
}

const GLOB: &str = r#"{"pattern":"*.ts","root":"data","hidden":false,"noIgnore":false,"limit":10}"#;

#[test]
fn call_stops_its_stuck_peer() {
    interrupted_leaves_nothing(&["call", "--peer", "stuck", "glob", GLOB]);
}

#[test]
fn peers_stops_its_stuck_peer_and_removes_its_tree() {
    interrupted_leaves_nothing(&["peers"]);
}

#[test]
fn bench_stops_its_stuck_peer_and_removes_its_corpus() {
    interrupted_leaves_nothing(&["bench", "--peer", "portable", "--peer", "stuck"]);
}

#[test]
fn differ_stops_its_stuck_peer() {
    interrupted_leaves_nothing(&["survey", "data", "--peer", "stuck"]);
}

#[test]
fn record_stops_its_stuck_peer_and_removes_its_tree() {
    interrupted_leaves_nothing(&["record", "--seed", "0", "--call", "0", "--peer", "stuck"]);
}

#[test]
fn run_interrupted_during_its_handshakes_stops_at_once() {
    interrupted_leaves_nothing(&["run", "--no-seeds", "--peer", "mute"]);
}

/// `rg` runs in a process group of its own, so a terminal's Ctrl-C (a
/// SIGINT to lawsuite's group, as sent here) reaches lawsuite and not the
/// `rg` of a call in flight: lawsuite ends it on its way out. The `rg`
/// here answers `--version`, then writes its pid and hangs.
#[test]
fn an_interrupted_call_ends_its_rg() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(data.join("a.txt"), "needle\n").unwrap();
    let pids = dir.path().join("pids");
    let rg = dir.path().join("rg");
    std::fs::write(
        &rg,
        format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'ripgrep 15.2.0'; exit 0; fi\necho $$ >> {}\nexec sleep 600\n",
            pids.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&rg, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut child = Command::new(LAWSUITE)
        .args([
            "call",
            "--peer",
            "ripgrep",
            "glob",
            r#"{"pattern":"*.txt","root":"data","hidden":false,"noIgnore":false,"limit":10}"#,
        ])
        .current_dir(dir.path())
        .env("LAWSUITE_RG", &rg)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        // As a shell runs a foreground job: in a group Ctrl-C signals.
        .process_group(0)
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(60);
    while !pids.exists() && Instant::now() < until {
        assert!(child.try_wait().unwrap().is_none(), "lawsuite ended first");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(pids.exists(), "rg never started");
    let rg_pid: u32 = std::fs::read_to_string(&pids)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let sent = Command::new("kill")
        .args(["-INT", "--", &format!("-{}", child.id())])
        .status()
        .unwrap();
    assert!(sent.success());
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = Command::new("kill")
                .args(["-KILL", &rg_pid.to_string()])
                .status();
            panic!("lawsuite still running 20 s after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    // A killed rg is reaped by init, which may take a moment.
    let gone = Instant::now() + Duration::from_secs(5);
    while running(rg_pid) && Instant::now() < gone {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = running(rg_pid);
    if left {
        let _ = Command::new("kill")
            .args(["-KILL", &rg_pid.to_string()])
            .status();
    }
    assert!(
        !left,
        "rg {rg_pid} outlived the interrupted lawsuite: {stderr}"
    );
}
