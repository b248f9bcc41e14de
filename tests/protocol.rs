//! The peer protocol end to end: misbehaving fake peers (each fault kind,
//! quickly, no zombies), `lawsuite serve --peer portable` round-tripping the
//! smthrs seeds, the Python example peer, the registry's external entries
//! and the `peers`/`call` subcommands.
//!
//! Tests that need `python3` print why and pass when it is missing.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use lawsuite::conformance::{Engine, Subject};
use lawsuite::contract::{ErrorCode, GlobInput, GlobRequest, GrepInput, GrepRequest};
use lawsuite::kit::compare::{Compared, compare_plan};
use lawsuite::kit::materialize::TempTree;
use lawsuite::kit::plan::{GeneratedFile, PlanOptions};
use lawsuite::kit::smthrs;
use lawsuite::peer::{Method, Search};
use lawsuite::portable::Portable;
use lawsuite::protocol::client::Backoff;
use lawsuite::protocol::messages::Ground;
use lawsuite::protocol::{ExternalPeer, FaultKind, PeerConfig, is_undeclared, method};
use lawsuite::registry::Registry;
use lawsuite::suite::{PLAN_ROOT, SMTHRS_SEEDS};
use serde_json::json;

const LAWSUITE: &str = env!("CARGO_BIN_EXE_lawsuite");

/// The timeout of the tests that wait for one: long enough for Python to
/// start and log on a loaded two-core machine, short enough to keep the
/// suite quick.
const SHORT: u64 = 1500;

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Python interpreter's own path (not a version manager's shim, which
/// can take longer to start than the short timeouts here allow), or `None`
/// after printing why the test is skipped.
fn python(test: &str) -> Option<&'static str> {
    static PYTHON: OnceLock<Option<String>> = OnceLock::new();
    let found = PYTHON.get_or_init(|| {
        let out = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .ok()?;
        let path = String::from_utf8(out.stdout).ok()?.trim().to_string();
        (out.status.success() && !path.is_empty()).then_some(path)
    });
    if found.is_none() {
        // Never green by skipping where the tool must be: CI installs it.
        assert!(
            std::env::var_os("CI").is_none(),
            "{test}: python3 is not on PATH, and CI must have it (.ci/run installs it)"
        );
        eprintln!("{test}: skipped: python3 is not on PATH");
    }
    found.as_deref()
}

fn fake_script() -> PathBuf {
    manifest()
        .join("tests")
        .join("fake_peers")
        .join("misbehave.py")
}

/// A fake peer in `mode` with a short timeout (for its calls and its
/// handshake) and a fast back-off.
fn fake(python: &str, mode: &str, args: &[&str], timeout_ms: u64) -> ExternalPeer {
    fake_with(python, mode, args, timeout_ms, timeout_ms)
}

/// [`fake`], with a handshake timeout of its own.
fn fake_with(
    python: &str,
    mode: &str,
    args: &[&str],
    timeout_ms: u64,
    handshake_ms: u64,
) -> ExternalPeer {
    let mut command = vec![
        python.to_string(),
        fake_script().to_string_lossy().into_owned(),
        mode.to_string(),
    ];
    command.extend(args.iter().map(|a| a.to_string()));
    let mut config = PeerConfig::new(format!("fake-{mode}"), command);
    config.timeout = Duration::from_millis(timeout_ms);
    config.handshake_timeout = Duration::from_millis(handshake_ms);
    config.backoff = Backoff {
        first: Duration::from_millis(10),
        max: Duration::from_millis(100),
        give_up_after: 5,
    };
    match ExternalPeer::new(config) {
        Ok(peer) => peer,
        Err(e) => panic!("cannot create the fake peer: {e}"),
    }
}

fn tree() -> TempTree {
    match TempTree::with_files(&[
        GeneratedFile::new("a.ts", "needle\n"),
        GeneratedFile::new("one/b.ts", "needle\n"),
        GeneratedFile::new("one/c.js", "x\n"),
    ]) {
        Ok(t) => t,
        Err(e) => panic!("cannot write the tree: {e}"),
    }
}

fn glob_input(pattern: &str, root: &Path) -> GlobInput {
    GlobInput::new(pattern, root.to_string_lossy())
}

/// Whether `pid` is gone (reaped): no `/proc/<pid>` at all.
fn reaped(pid: u32) -> bool {
    !Path::new(&format!("/proc/{pid}")).exists()
}

fn assert_all_reaped(pids: &[u32]) {
    for &pid in pids {
        assert!(
            reaped(pid),
            "process {pid} is still there (zombie or alive)"
        );
    }
}

/// Call glob once on a fake peer, expect the fault `kind` and the contract
/// code `code`, then check the process was reaped and that dropping the peer
/// leaves nothing behind.
fn expect_fault(
    mode: &str,
    args: &[&str],
    timeout_ms: u64,
    kind: FaultKind,
    code: ErrorCode,
    stderr_says: &str,
) {
    let Some(python) = python(mode) else { return };
    let dir = tree();
    let peer = fake(python, mode, args, timeout_ms);
    let started = Instant::now();
    let answer = peer.glob(&glob_input("*", dir.path()));
    let elapsed = started.elapsed();
    let err = match answer {
        Ok(out) => panic!("{mode}: expected a fault, got {out:?}"),
        Err(e) => e,
    };
    assert_eq!(err.code, code, "{mode}: {}", err.message);
    let faults = peer.faults();
    let last = faults
        .last()
        .unwrap_or_else(|| panic!("{mode}: no fault logged"));
    assert_eq!(last.kind, kind, "{mode}: {last}");
    assert!(
        last.stderr_tail.contains(stderr_says),
        "{mode}: the stderr tail {:?} lacks {stderr_says:?}",
        last.stderr_tail
    );
    assert!(
        err.message.contains(kind.as_str()),
        "{mode}: the error message names the fault: {}",
        err.message
    );
    assert!(
        elapsed < Duration::from_millis(timeout_ms) + Duration::from_secs(3),
        "{mode}: took {elapsed:?}"
    );
    assert!(peer.pid().is_none(), "{mode}: the faulty process is gone");
    let pids = peer.spawned_pids();
    assert!(!pids.is_empty());
    assert_all_reaped(&pids);
    drop(peer);
    assert_all_reaped(&pids);
}

#[test]
fn a_peer_that_hangs_is_a_timeout() {
    expect_fault(
        "hang",
        &[],
        SHORT,
        FaultKind::Timeout,
        ErrorCode::Timeout,
        "hanging on glob",
    );
}

#[test]
fn a_peer_that_crashes_mid_call_is_a_crash() {
    expect_fault(
        "crash",
        &[],
        2000,
        FaultKind::Crash,
        ErrorCode::RequestFailed,
        "crashing on glob",
    );
}

#[test]
fn a_crash_reports_the_exit_status() {
    let Some(python) = python("crash status") else {
        return;
    };
    let dir = tree();
    let peer = fake(python, "crash", &[], 2000);
    let _ = peer.glob(&glob_input("*", dir.path()));
    let faults = peer.faults();
    assert!(
        faults.iter().any(|f| f.message.contains("exit status 3")),
        "{faults:?}"
    );
}

#[test]
fn garbage_on_stdout_is_a_protocol_violation() {
    expect_fault(
        "garbage",
        &[],
        2000,
        FaultKind::ProtocolViolation,
        ErrorCode::RequestFailed,
        "starting",
    );
}

#[test]
fn the_wrong_id_is_a_protocol_violation() {
    expect_fault(
        "wrong-id",
        &[],
        2000,
        FaultKind::ProtocolViolation,
        ErrorCode::RequestFailed,
        "starting",
    );
}

#[test]
fn a_100_mb_line_is_capped_and_a_protocol_violation() {
    // The default 64 MiB cap: read up to it, then stop and kill.
    expect_fault(
        "huge",
        &[],
        10_000,
        FaultKind::ProtocolViolation,
        ErrorCode::RequestFailed,
        "printing a 100 MB line",
    );
}

#[test]
fn a_slow_start_past_the_timeout_is_a_timeout() {
    expect_fault(
        "slow-start",
        &["30"],
        SHORT,
        FaultKind::Timeout,
        ErrorCode::Timeout,
        "starting",
    );
}

#[test]
fn a_slow_start_within_the_timeout_is_fine() {
    let Some(python) = python("slow start") else {
        return;
    };
    let dir = tree();
    let peer = fake(python, "slow-start", &["0.3"], 3000);
    let out = peer.glob(&glob_input("*", dir.path()));
    assert!(out.is_ok(), "{out:?}");
    assert!(peer.faults().is_empty());
}

/// A peer started from source (tsx, a cold JIT) may take longer to start
/// than any call may take: the handshake has a timeout of its own (60 s by
/// default), and the call after it still has the call's.
#[test]
fn a_start_slower_than_a_call_may_be_is_within_the_handshake_timeout() {
    let Some(python) = python("slow start") else {
        return;
    };
    let dir = tree();
    let peer = fake_with(python, "slow-start", &["1.5"], 500, 10_000);
    let out = peer.glob(&glob_input("*", dir.path()));
    assert!(out.is_ok(), "{out:?}");
    assert!(peer.faults().is_empty());
    let defaults = PeerConfig::new("x", ["y"]);
    assert_eq!(defaults.handshake_timeout, Duration::from_secs(60));
    assert_eq!(defaults.timeout, Duration::from_secs(10));
}

#[test]
fn a_peer_that_never_answers_initialize_is_a_timeout() {
    expect_fault(
        "mute-init",
        &[],
        SHORT,
        FaultKind::Timeout,
        ErrorCode::Timeout,
        "not answering initialize",
    );
}

#[test]
fn a_peer_that_exits_at_start_is_a_crash() {
    expect_fault(
        "exit-at-start",
        &[],
        2000,
        FaultKind::Crash,
        ErrorCode::RequestFailed,
        "exiting before the handshake",
    );
}

#[test]
fn no_common_version_names_both_ranges_and_is_not_retried() {
    let Some(python) = python("old protocol") else {
        return;
    };
    let dir = tree();
    let peer = fake(python, "old-protocol", &[], 2000);
    let err = match peer.glob(&glob_input("*", dir.path())) {
        Ok(out) => panic!("expected a failure, got {out:?}"),
        Err(e) => e,
    };
    assert_eq!(err.code, ErrorCode::ProviderUnavailable);
    assert!(
        err.message
            .contains("the harness speaks 1, the peer speaks 2..=3"),
        "{}",
        err.message
    );
    // Not restarted: the second call answers at once, with no new process.
    let _ = peer.glob(&glob_input("*", dir.path()));
    assert_eq!(peer.spawned_pids().len(), 1);
    assert_eq!(peer.faults()[0].kind, FaultKind::Incompatible);
}

#[test]
fn a_json_rpc_error_is_request_failed_and_keeps_the_process() {
    let Some(python) = python("rpc error") else {
        return;
    };
    let dir = tree();
    let peer = fake(python, "rpc-error", &[], 2000);
    let err = match peer.glob(&glob_input("*", dir.path())) {
        Ok(out) => panic!("expected a failure, got {out:?}"),
        Err(e) => e,
    };
    assert_eq!(err.code, ErrorCode::RequestFailed);
    assert!(err.message.contains("-32603"), "{}", err.message);
    assert_eq!(peer.faults()[0].kind, FaultKind::ErrorResponse);
    let pid = peer.pid();
    assert!(pid.is_some());
    assert!(peer.grep(&GrepInput::new("x", ".")).is_ok());
    assert_eq!(peer.pid(), pid, "the process was kept");
}

#[test]
fn stderr_is_logging_never_a_fault_and_its_tail_is_bounded() {
    let Some(python) = python("chatty") else {
        return;
    };
    let dir = tree();
    // 1 MB of stderr before every answer: far more than a pipe holds.
    let peer = fake(python, "chatty", &[], 5000);
    for _ in 0..3 {
        let out = peer.glob(&glob_input("*", dir.path()));
        assert!(out.is_ok(), "{out:?}");
    }
    assert!(peer.faults().is_empty(), "{:?}", peer.faults());
}

#[test]
fn a_crashed_peer_is_restarted_and_the_run_goes_on() {
    let Some(python) = python("crash once") else {
        return;
    };
    let dir = tree();
    let marker = dir.path().join("crashed");
    let mut peer_config = PeerConfig::new(
        "fake-crash-once",
        [
            python.to_string(),
            fake_script().to_string_lossy().into_owned(),
            "crash-once".to_string(),
        ],
    );
    peer_config
        .env
        .insert("FAKE_MARKER".into(), marker.to_string_lossy().into_owned());
    peer_config.timeout = Duration::from_secs(2);
    let peer = match ExternalPeer::new(peer_config) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    let first = peer.glob(&glob_input("*", dir.path()));
    assert_eq!(first.map_err(|e| e.code), Err(ErrorCode::RequestFailed));
    let second = peer.glob(&glob_input("*", dir.path()));
    assert!(second.is_ok(), "{second:?}");
    let pids = peer.spawned_pids();
    assert_eq!(pids.len(), 2, "one restart");
    assert!(reaped(pids[0]));
    assert_eq!(peer.fault_count(), 1);
    let diagnostics = peer
        .health()
        .map(|h| h.recent.join("\n"))
        .unwrap_or_default();
    assert!(diagnostics.contains("crashing on glob"), "{diagnostics}");
    drop(peer);
    assert_all_reaped(&pids);
}

#[test]
fn a_peer_that_keeps_failing_is_given_up_on_quickly() {
    let Some(python) = python("give up") else {
        return;
    };
    let dir = tree();
    let peer = fake(python, "exit-at-start", &[], 2000);
    let started = Instant::now();
    for _ in 0..10 {
        assert!(peer.glob(&glob_input("*", dir.path())).is_err());
    }
    assert_eq!(peer.spawned_pids().len(), 5, "five tries, then no more");
    assert!(started.elapsed() < Duration::from_secs(10));
    let err = peer
        .glob(&glob_input("*", dir.path()))
        .err()
        .map(|e| e.message)
        .unwrap_or_default();
    assert!(
        err.contains("not restarted after 5 faults in a row"),
        "{err}"
    );
    assert_all_reaped(&peer.spawned_pids());
}

#[test]
fn a_null_optional_key_is_a_protocol_violation() {
    // PROTOCOL.md: optional keys are omitted, never `null`; read as absent,
    // `"notice": null` agreed with every peer that omits the notice.
    expect_fault(
        "null-notice",
        &[],
        2000,
        FaultKind::ProtocolViolation,
        ErrorCode::RequestFailed,
        "starting",
    );
    let Some(python) = python("null message") else {
        return;
    };
    let dir = tree();
    let peer = fake(python, "null-notice", &[], 2000);
    let err = peer.glob(&glob_input("*", dir.path())).unwrap_err();
    assert!(err.message.contains("never null"), "{}", err.message);
}

#[test]
fn a_malformed_result_restarts_the_peer() {
    // The fault kills and reaps the process, as every protocol violation
    // does; the next call runs on a new one.
    expect_fault(
        "malformed",
        &[],
        2000,
        FaultKind::ProtocolViolation,
        ErrorCode::RequestFailed,
        "starting",
    );
    let Some(python) = python("malformed restart") else {
        return;
    };
    let dir = tree();
    let peer = fake(python, "malformed", &[], 2000);
    for _ in 0..2 {
        let err = peer.glob(&glob_input("*", dir.path())).unwrap_err();
        assert!(err.message.contains("not a glob output"), "{}", err.message);
    }
    let pids = peer.spawned_pids();
    assert_eq!(pids.len(), 2, "restarted after the malformed result");
    assert!(reaped(pids[0]));
    assert_eq!(peer.fault_count(), 2);
    drop(peer);
    assert_all_reaped(&pids);
}

#[test]
fn an_unknown_method_in_the_handshake_is_incompatible() {
    let Some(python) = python("unknown method") else {
        return;
    };
    let dir = tree();
    let peer = fake(python, "unknown-method", &[], 2000);
    let fault = peer.handshake().unwrap_err();
    assert_eq!(fault.kind, FaultKind::Incompatible);
    assert!(fault.message.contains("\"frobnicate\""), "{fault}");
    let err = peer.glob(&glob_input("*", dir.path())).unwrap_err();
    assert_eq!(err.code, ErrorCode::ProviderUnavailable);
    assert_eq!(
        peer.spawned_pids().len(),
        1,
        "an incompatible peer is not restarted"
    );
    assert_all_reaped(&peer.spawned_pids());
}

#[test]
fn a_large_valid_line_is_read_whole() {
    // 8 paths of 1 MiB: parsed from the line's bytes into the output.
    let Some(python) = python("big valid") else {
        return;
    };
    let dir = tree();
    let peer = fake(python, "big-valid", &["8"], 10_000);
    let out = peer.glob(&glob_input("*", dir.path())).unwrap();
    assert_eq!(out.paths.len(), 8);
    assert!(out.paths.iter().all(|p| p.len() == 1 << 20));
    assert_eq!(out.paths[7][(1 << 20) - 8..], *"00000007");
    assert_eq!(peer.fault_count(), 0);
}

/// Whether `pid` is still running: there, and neither a zombie nor dead.
#[cfg(unix)]
fn running(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The state follows the parenthesised command name.
    let state = stat
        .rsplit(')')
        .next()
        .and_then(|rest| rest.trim().chars().next());
    !matches!(state, Some('Z' | 'X') | None)
}

#[cfg(unix)]
#[test]
fn a_peer_s_grandchildren_end_with_it() {
    // A launcher's background child (`sh -c 'helper & exec peer'`) lives in
    // the peer's process group; ending the peer ends the group.
    let Some(python) = python("grandchild") else {
        return;
    };
    let dir = tree();
    let marker = dir.path().join("grandchild.pid");
    let mut config = PeerConfig::new(
        "fake-grandchild",
        [
            python.to_string(),
            fake_script().to_string_lossy().into_owned(),
            "grandchild".to_string(),
        ],
    );
    config
        .env
        .insert("FAKE_MARKER".into(), marker.to_string_lossy().into_owned());
    config.timeout = Duration::from_secs(5);
    let peer = ExternalPeer::new(config).unwrap();
    assert!(peer.glob(&glob_input("*", dir.path())).is_ok());
    let grandchild: u32 = std::fs::read_to_string(&marker)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        running(grandchild),
        "the grandchild runs while the peer does"
    );
    peer.shutdown();
    // Signals are delivered at once, but give a loaded machine a moment.
    let until = Instant::now() + Duration::from_secs(3);
    while running(grandchild) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !running(grandchild),
        "grandchild {grandchild} outlived its peer"
    );
    assert_all_reaped(&peer.spawned_pids());
}

/// A registry file with `portable` as the reference and `extra` appended.
fn registry_with(dir: &Path, extra: &str) -> Registry {
    let path = dir.join("peers.toml");
    let text = format!(
        "reference = \"portable\"\n\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n\n{extra}"
    );
    if let Err(e) = std::fs::write(&path, text) {
        panic!("cannot write {}: {e}", path.display());
    }
    match Registry::load(&path) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    }
}

fn served_portable(dir: &Path) -> Arc<dyn Search> {
    let registry = registry_with(
        dir,
        &format!(
            "[[peer]]\nname = \"served\"\ncommand = [{:?}, \"serve\", \"--peer\", \"portable\"]\ntimeout_ms = 20000\n",
            LAWSUITE
        ),
    );
    match registry.peers.iter().find(|p| p.name == "served") {
        Some(entry) => match &entry.peer {
            Ok(peer) => peer.clone(),
            Err(why) => panic!("{why}"),
        },
        None => panic!("no served peer"),
    }
}

#[test]
fn serve_portable_round_trips_the_smthrs_seeds() {
    let dir = tree();
    let served = served_portable(dir.path());
    assert!(served.supports(Method::Grep) && served.supports(Method::Glob));
    assert_eq!(served.version(), Portable::default().version());
    let reference = Portable::default();
    let mut calls = 0;
    for seed in SMTHRS_SEEDS {
        let Ok(seed32) = u32::try_from(seed) else {
            panic!("seed {seed}")
        };
        let plan = smthrs::plan(seed32, PLAN_ROOT, &PlanOptions::default());
        calls += plan.grep.len() + plan.glob.len();
        let divergences = match compare_plan(&plan, &reference, &[Compared::new(served.as_ref())]) {
            Ok(d) => d,
            Err(e) => panic!("seed {seed}: {e}"),
        };
        assert!(
            divergences.is_empty(),
            "seed {seed}: {} divergences, first: {:?}",
            divergences.len(),
            divergences.first()
        );
    }
    assert!(calls > 0);
    assert!(served.health().is_none_or(|h| h.faults == 0));
}

#[test]
fn serve_portable_declares_the_file_flows_and_agrees_on_their_laws() {
    let dir = tree();
    let served = served_portable(dir.path());
    for method in [Method::FlowRead, Method::FlowLs, Method::FlowBash] {
        assert!(served.supports(method), "{method} is not declared");
    }
    let (laws, errors) = lawsuite::law::load_dir(&manifest().join("laws"));
    assert!(errors.is_empty(), "{errors:?}");
    let mut run = 0;
    let mut failures = Vec::new();
    for law in &laws {
        if !matches!(
            law.law.method,
            Method::FlowRead | Method::FlowLs | Method::FlowBash
        ) {
            continue;
        }
        run += 1;
        // The in-process peer passes every one of these laws (tests/
        // conformance.rs), so passing is agreeing with it.
        match lawsuite::law::run(law, served.as_ref()) {
            lawsuite::law::LawOutcome::Pass => {}
            other => failures.push(format!("{}: {other:?}", law.id)),
        }
    }
    assert!(run >= 150, "only {run} file-flow laws");
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(
        served.health().is_none_or(|h| h.faults == 0),
        "{:?}",
        served.health()
    );
}

#[test]
fn serve_portable_round_trips_generated_read_and_ls_calls() {
    let dir = tree();
    let served = served_portable(dir.path());
    let reference = Portable::default();
    let mut calls = 0;
    for seed in 0..6 {
        let options = lawsuite::kit::lawsuite::GeneratorOptions {
            ground: lawsuite::kit::lawsuite::Ground::Full,
            ..Default::default()
        };
        let mut plan = lawsuite::kit::lawsuite::plan(seed, PLAN_ROOT, &options);
        plan.grep.clear();
        plan.glob.clear();
        calls += plan.call_count();
        let divergences = match compare_plan(&plan, &reference, &[Compared::new(served.as_ref())]) {
            Ok(d) => d,
            Err(e) => panic!("seed {seed}: {e}"),
        };
        assert!(
            divergences.is_empty(),
            "seed {seed}: {:?}",
            divergences.first()
        );
    }
    assert!(calls >= 6 * 32);
}

#[test]
fn serve_answers_the_flow_methods_like_the_flow_layer() {
    let dir = tree();
    let registry = registry_with(
        dir.path(),
        &format!(
            "[[peer]]\nname = \"served\"\ncommand = [{:?}, \"serve\", \"--peer\", \"portable\"]\n",
            LAWSUITE
        ),
    );
    let Some(external) = registry.peers.iter().find_map(|p| p.external.clone()) else {
        panic!("no external peer")
    };
    let root = dir.path().to_string_lossy().into_owned();
    let mut request = GrepRequest::new("needle(");
    request.root = Some(root.clone());
    let local = Portable::default().flow_grep(&request);
    let remote = external.call(
        method::FLOW_GREP,
        json!({"pattern": "needle(", "root": root}),
    );
    match (local, remote) {
        (Err(l), Err(lawsuite::protocol::client::CallError::Rpc(r))) => {
            assert_eq!(r.contract_failure(), Some(l));
        }
        (l, r) => panic!("expected the same contract failure: {l:?} vs {r:?}"),
    }
    let mut request = GlobRequest::new("**/*.ts");
    request.root = Some(root.clone());
    let local = Portable::default().flow_glob(&request).map(|o| json!(o));
    let remote = external.call(
        method::FLOW_GLOB,
        json!({"pattern": "**/*.ts", "root": root}),
    );
    assert_eq!(local.ok(), remote.ok());
}

#[test]
fn the_python_example_peer_declares_glob_read_ls_and_agrees_on_simple_globs() {
    if python("python example").is_none() {
        return;
    }
    let registry = match Registry::load(&manifest().join("peers/peers.toml")) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    let Some(entry) = registry.peers.iter().find(|p| p.name == "python-glob") else {
        panic!("python-glob is not registered in peers/peers.toml")
    };
    let Some(external) = entry.external.clone() else {
        panic!(
            "python-glob is not available: {:?}",
            entry.peer.as_ref().err()
        )
    };
    let handshake = match external.handshake() {
        Ok(h) => h,
        Err(f) => panic!("{f}"),
    };
    assert_eq!(handshake.peer.name, "python-glob");
    assert_eq!(handshake.peer.language.as_deref(), Some("python"));
    assert_eq!(
        handshake.capabilities.methods,
        ["glob", "flow/read", "flow/ls"]
    );
    assert_eq!(handshake.capabilities.ground, Ground::Shared);
    assert!(external.supports(Method::Glob) && external.supports(Method::FlowRead));
    assert!(!external.supports(Method::Grep) && !external.supports(Method::FlowBash));
    // The glob flow runs through lawsuite's flow layer over its `glob`;
    // the grep flow has no seam to run on.
    assert!(external.supports(Method::FlowGlob) && !external.supports(Method::FlowGrep));

    let dir = tree();
    let portable = Portable::default();
    for pattern in [
        "**/*.ts",
        "*.ts",
        "one/**/*.ts",
        "**/*.{ts,js}",
        "nope/*.ts",
    ] {
        let input = glob_input(pattern, dir.path());
        assert_eq!(external.glob(&input), portable.glob(&input), "{pattern}");
    }
    let err = match external.grep(&GrepInput::new("needle", dir.path().to_string_lossy())) {
        Ok(out) => panic!("grep is not declared, yet answered {out:?}"),
        Err(e) => e,
    };
    assert_eq!(err.code, ErrorCode::Unsupported);
    assert!(is_undeclared(&err), "{}", err.message);

    // Through the kit: grep calls skipped, glob calls compared, no divergence.
    let plan = smthrs::plan(1, PLAN_ROOT, &PlanOptions::default());
    let divergences = match compare_plan(&plan, &portable, &[Compared::new(external.as_ref())]) {
        Ok(d) => d,
        Err(e) => panic!("{e}"),
    };
    assert!(divergences.is_empty(), "{divergences:?}");
    assert!(external.faults().is_empty(), "{:?}", external.faults());
}

#[test]
fn registry_external_entries() {
    let dir = tree();
    let registry = registry_with(
        dir.path(),
        "[[peer]]\nname = \"missing\"\ncommand = [\"no-such-program-lawsuite\"]\n",
    );
    let why = registry.peers[1]
        .peer
        .as_ref()
        .err()
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(why.contains("not on PATH"), "{why}");

    let path = dir.path().join("bad.toml");
    let bad = "reference = \"portable\"\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\ntimeout_ms = 5\n";
    assert!(std::fs::write(&path, bad).is_ok());
    let err = Registry::load(&path)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("only for external peers"), "{err}");

    let bad = "reference = \"portable\"\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n[[peer]]\nname = \"e\"\ncommand = []\n";
    assert!(std::fs::write(&path, bad).is_ok());
    let err = Registry::load(&path)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("empty `command`"), "{err}");
}

#[test]
fn cli_peers_lists_and_smoke_checks_every_peer() {
    let dir = tree();
    let path = dir.path().join("peers.toml");
    let text = format!(
        "reference = \"portable\"\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n[[peer]]\nname = \"served\"\ncommand = [{LAWSUITE:?}, \"serve\", \"--peer\", \"portable\"]\n[[peer]]\nname = \"missing\"\ncommand = [\"no-such-program-lawsuite\"]\n"
    );
    assert!(std::fs::write(&path, text).is_ok());
    let out = match Command::new(LAWSUITE)
        .args(["peers", "--registry"])
        .arg(&path)
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("{e}"),
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The missing program makes the check fail, with its reason.
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot be used: missing"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("portable (reference)"), "{stdout}");
    let served = stdout
        .lines()
        .find(|l| l.starts_with("served"))
        .unwrap_or_default();
    assert!(served.contains("ok"), "{stdout}");
    // The ground as the protocol spells it, not Rust's Debug text.
    assert!(stdout.contains("], ground full\n"), "{stdout}");
    // Each version once, in its row (the detail line used to repeat it).
    assert_eq!(stdout.matches("lawsuite 0.1.0").count(), 2, "{stdout}");
    assert!(
        stdout
            .contains("methods [grep, glob, flow/grep, flow/glob, flow/read, flow/ls, flow/bash]"),
        "{stdout}"
    );
    assert!(stdout.contains("unavailable"), "{stdout}");
}

/// A peer's program with a `/` in it (`.venv/bin/python`, here
/// `bin/lawsuite`) and its `./` arguments are the project's files, whichever
/// directory below `lawsuite.toml` the command runs from (issue 49: from a
/// subdirectory, `could not start "bin/…"`); a bare program name is still
/// PATH's.
#[cfg(unix)]
#[test]
fn a_command_program_with_a_slash_is_relative_to_its_lawsuite_toml() {
    let dir = tree();
    let project = dir.path().join("project");
    let sub = project.join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::create_dir_all(project.join("bin")).unwrap();
    std::os::unix::fs::symlink(LAWSUITE, project.join("bin/lawsuite")).unwrap();
    std::fs::write(
        project.join("lawsuite.toml"),
        "[[peer]]\nname = \"mine\"\ncommand = [\"bin/lawsuite\", \"serve\", \"--peer\", \"portable\"]\n",
    )
    .unwrap();
    for from in [&project, &sub] {
        let out = Command::new(LAWSUITE)
            .arg("peers")
            .current_dir(from)
            .output()
            .unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "from {}: {said}", from.display());
        let row = said
            .lines()
            .find(|l| l.starts_with("mine"))
            .unwrap_or_default();
        assert!(row.contains("ok"), "from {}: {said}", from.display());
    }
}

#[test]
fn cli_call_reaches_external_peers() {
    let dir = tree();
    let path = dir.path().join("peers.toml");
    let text = format!(
        "reference = \"portable\"\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n[[peer]]\nname = \"served\"\ncommand = [{LAWSUITE:?}, \"serve\", \"--peer\", \"portable\"]\n"
    );
    assert!(std::fs::write(&path, text).is_ok());
    let params = json!({"pattern": "*.ts", "root": dir.path()}).to_string();
    let out = match Command::new(LAWSUITE)
        .args(["call", "--peer", "served", "--registry"])
        .arg(&path)
        .args(["flow/glob", &params])
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("{e}"),
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_default();
    assert_eq!(value["total"], 2, "{stdout}");
}

#[test]
fn a_failing_trial_shows_the_fault_log_and_stderr_tail() {
    let Some(python) = python("trial diagnostics") else {
        return;
    };
    let peer = fake(python, "garbage", &[], 3000);
    let mut engine = Engine::new(
        Subject::new("portable", Portable::default()),
        vec![Subject::new("garbage", peer)],
    );
    engine.add_seeds(lawsuite::kit::Generator::Smthrs, Ground::Shared, &[1], None);
    let trials = engine.trials();
    let outcome = engine.run_trial(&trials[0]);
    let Some(failed) = outcome.verdict.report() else {
        panic!("a peer printing garbage cannot agree: {outcome:?}")
    };
    let report = lawsuite::report::human_report(failed, false);
    assert!(report.contains("protocol_violation"), "{report}");
    assert!(report.contains("stderr:"), "{report}");
    assert!(report.contains("fake peer garbage: starting"), "{report}");
}

/// The file-flow schemas list exactly the keys the Rust types write, in
/// the spec's order, and require the ones always present.
#[test]
fn file_flow_schemas_match_the_wire_types() {
    use lawsuite::flow::{LsRequest, ReadRequest, bash::BashRequest};
    let dir = tree();
    std::fs::write(dir.path().join("long.txt"), "x\n".repeat(3)).unwrap_or_default();
    let read = lawsuite::flow::read_in(dir.path(), &ReadRequest::new("long.txt").limit(1));
    let ls = lawsuite::flow::ls_in(dir.path(), &LsRequest::new(".").limit(1));
    let bash = lawsuite::flow::bash_in(dir.path(), &BashRequest::command("printf x"));
    let samples = [
        (
            "flow-read",
            json!(ReadRequest::new("a").offset(2).limit(3)),
            json!(read.ok()),
        ),
        (
            "flow-ls",
            json!(LsRequest::new("a").offset(2).limit(3)),
            json!(ls.ok()),
        ),
        (
            "flow-bash",
            json!(BashRequest::command("true").with_timeout_ms(5)),
            json!(bash.ok()),
        ),
    ];
    for (name, params, result) in samples {
        for (kind, value) in [("params", params), ("result", result)] {
            let path = manifest().join(format!("peers/schema/{name}.{kind}.schema.json"));
            let schema: serde_json::Value = match std::fs::read_to_string(&path)
                .map_err(|e| e.to_string())
                .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
            {
                Ok(s) => s,
                Err(e) => panic!("{}: {e}", path.display()),
            };
            let properties: Vec<&String> = schema["properties"]
                .as_object()
                .map(|o| o.keys().collect())
                .unwrap_or_default();
            let Some(object) = value.as_object() else {
                panic!("{name} {kind}: no sample ({value})")
            };
            let keys: Vec<&String> = object.keys().collect();
            // Keys written appear in the schema's order.
            let order: Vec<&String> = properties
                .iter()
                .copied()
                .filter(|p| keys.contains(p))
                .collect();
            assert_eq!(keys, order, "{name} {kind}");
            for required in schema["required"].as_array().into_iter().flatten() {
                let required = required.as_str().unwrap_or_default();
                assert!(
                    object.contains_key(required),
                    "{name} {kind}: {required} missing"
                );
            }
        }
    }
}

/// `lawsuite call` reaches the file flows, and its unknown-method error
/// lists them.
#[test]
fn cli_call_answers_the_file_flows() {
    let dir = tree();
    std::fs::write(dir.path().join("crlf.txt"), "one\r\ntwo\r\n").unwrap_or_default();
    let run = |method: &str, params: serde_json::Value| {
        let out = std::process::Command::new(LAWSUITE)
            .args(["call", method, &params.to_string()])
            .current_dir(dir.path())
            .output();
        match out {
            Ok(out) => (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            ),
            Err(e) => panic!("cannot run {LAWSUITE}: {e}"),
        }
    };
    let (code, stdout, _) = run("flow/read", json!({"path": "crlf.txt", "offset": 2}));
    assert_eq!(code, Some(0), "{stdout}");
    let answer: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_default();
    assert_eq!(answer["content"], "two\r");
    let (code, stdout, _) = run("flow/ls", json!({"path": "."}));
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("\"crlf.txt\""), "{stdout}");
    let (code, stdout, _) = run("flow/read", json!({"path": "./crlf.md"}));
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        // Scored by the prefix shared with `crlf.md`; ties in UTF-16 order.
        stdout.contains(
            "File not found: ./crlf.md. The working directory holds: crlf.txt, a.ts, one."
        ),
        "{stdout}"
    );
    let (code, stdout, _) = run("flow/bash", json!({"command": "printf hi; exit 2"}));
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("\"exitCode\": 2"), "{stdout}");
    let (code, _, stderr) = run("flow/cat", json!({}));
    assert_ne!(code, Some(0));
    assert!(
        stderr.contains("unknown method \"flow/cat\"")
            && stderr.contains("flow/read, flow/ls, flow/bash"),
        "{stderr}"
    );
}

/// An answer past its call's limit is a contract violation, said early and
/// in bounded memory: a million matches (a 55 MB line) are counted off the
/// line and refused at the 201st, never built.
#[test]
fn an_answer_past_its_limit_is_a_violation_read_no_further() {
    let Some(python) = python("flood") else {
        return;
    };
    let dir = tree();
    let peer = fake(python, "flood", &["1000000"], 20_000);
    let started = Instant::now();
    let err = peer
        .grep(&GrepInput::new("needle", dir.path().to_string_lossy()))
        .unwrap_err();
    let elapsed = started.elapsed();
    assert_eq!(err.code, ErrorCode::RequestFailed, "{}", err.message);
    assert!(
        err.message
            .contains("answered 201 matches where the call allows at most 200 (its limit)"),
        "{}",
        err.message
    );
    let faults = peer.faults();
    assert_eq!(
        faults.last().map(|f| f.kind),
        Some(FaultKind::ProtocolViolation)
    );
    assert!(elapsed < Duration::from_secs(10), "took {elapsed:?}");
    // Within its limit, the same peer's answer is read whole.
    let peer = fake(python, "flood", &["3"], 10_000);
    let out = peer.glob(&glob_input("*", dir.path())).unwrap();
    assert_eq!(out.paths.len(), 3);
}

/// A peer that exits without answering while a grandchild still holds its
/// stdout is a crash with its exit status, said when it exits, not a
/// timeout at the end of the timeout.
#[cfg(unix)]
#[test]
fn a_peer_that_exits_while_a_grandchild_holds_stdout_is_a_crash() {
    let Some(python) = python("orphan-exit") else {
        return;
    };
    let dir = tree();
    let peer = fake(python, "orphan-exit", &[], 20_000);
    let started = Instant::now();
    let err = peer.glob(&glob_input("*", dir.path())).unwrap_err();
    let elapsed = started.elapsed();
    let last = peer.faults().pop().expect("a fault");
    assert_eq!(last.kind, FaultKind::Crash, "{last}");
    assert!(last.message.contains("exit status 5"), "{last}");
    assert!(err.message.contains("crash"), "{}", err.message);
    assert!(elapsed < Duration::from_secs(8), "took {elapsed:?}");
}

/// A trial that runs long is named while it runs (`SLOW [> 1s] …` on
/// stderr), as nextest names slow tests, so a stuck run says where it is.
#[test]
fn a_slow_trial_is_named_while_it_runs() {
    let Some(python) = python("slow") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("lawsuite.toml"),
        format!(
            "reference = \"portable\"\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n\n[[peer]]\nname = \"sleepy\"\ncommand = [{python:?}, {:?}, \"slow\", \"2.5\"]\ntimeout_ms = 20000\n",
            fake_script().display()
        ),
    )
    .unwrap();
    let id = "law::glob::canonical::inner-dot-segment-is-removed::sleepy";
    let out = Command::new(LAWSUITE)
        .args(["run", "--no-seeds", "--exact", id])
        .current_dir(dir.path())
        .env("LAWSUITE_SLOW_SECS", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("SLOW [> 1s] {id}")), "{stderr}");
    assert!(stderr.contains(&format!("SLOW [> 2s] {id}")), "{stderr}");
    assert_eq!(
        stderr.matches("SLOW [> 1s]").count(),
        1,
        "each period is said once: {stderr}"
    );
}

/// `lawsuite run` in a project whose peer `stuck` never answers a glob,
/// with its own temporary directory; returns the child, the project and
/// the file the peer's pids are written to.
#[cfg(unix)]
fn stuck_run(python: &str) -> (std::process::Child, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("tmp")).unwrap();
    std::fs::write(
        dir.path().join("lawsuite.toml"),
        format!(
            "reference = \"portable\"\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n\n[[peer]]\nname = \"stuck\"\ncommand = [{python:?}, {:?}, \"hang\"]\ntimeout_ms = 600000\nenv = {{ FAKE_PIDS = {:?} }}\n",
            fake_script().display(),
            dir.path().join("pids").display()
        ),
    )
    .unwrap();
    let child = Command::new(LAWSUITE)
        .args(["run", "--no-seeds", "--law", "glob::", "--jobs", "2"])
        .current_dir(dir.path())
        .env("TMPDIR", dir.path().join("tmp"))
        .env("LAWSUITE_INTERRUPT_GRACE_SECS", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Until the peer is up and a trial is stuck on it.
    let until = Instant::now() + Duration::from_secs(30);
    while !dir.path().join("pids").exists() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    (child, dir)
}

#[cfg(unix)]
fn interrupt(pid: u32) {
    let sent = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// What an interrupted run left: its temporary trees and live peers.
#[cfg(unix)]
fn left_behind(dir: &Path) -> (Vec<String>, Vec<u32>) {
    let trees = std::fs::read_dir(dir.join("tmp"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let pids = std::fs::read_to_string(dir.join("pids"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .filter(|&pid| running(pid))
        .collect();
    (trees, pids)
}

/// After the first interrupt the run waits for its trials a bounded time
/// (the grace, 1 s here), then stops the stuck peer; it ends with its
/// trees removed and no peer left, long before the peer's 600 s timeout.
#[cfg(unix)]
#[test]
fn an_interrupted_run_waits_a_bounded_time_for_a_stuck_trial() {
    let Some(python) = python("interrupt") else {
        return;
    };
    let (mut child, dir) = stuck_run(python);
    let started = Instant::now();
    interrupt(child.id());
    let status = child.wait().unwrap();
    let took = started.elapsed();
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert!(took < Duration::from_secs(15), "took {took:?}: {stderr}");
    assert!(!status.success(), "{stderr}");
    assert!(stderr.contains("stopping their peers"), "{stderr}");
    assert_eq!(left_behind(dir.path()), (vec![], vec![]), "{stderr}");
}

/// A second interrupt exits at once, and still leaves no tree and no peer.
#[cfg(unix)]
#[test]
fn a_second_interrupt_exits_at_once_leaving_nothing() {
    let Some(python) = python("interrupt twice") else {
        return;
    };
    let (mut child, dir) = stuck_run(python);
    interrupt(child.id());
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    interrupt(child.id());
    let status = child.wait().unwrap();
    let took = started.elapsed();
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(took < Duration::from_secs(5), "took {took:?}: {stderr}");
    assert!(stderr.contains("interrupted again"), "{stderr}");
    // The peer's group was sent SIGKILL; give the kernel a moment.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(left_behind(dir.path()), (vec![], vec![]), "{stderr}");
}
