//! Each a clear error instead of a silent choice: a `lawsuite.toml` that is
//! not a file, a registered peer that cannot run, a peer's own error
//! message, and the start of a crashed peer's stderr. The hostile peers are
//! Python scripts written into the test's temp directory.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const LAWSUITE: &str = env!("CARGO_BIN_EXE_lawsuite");

fn lawsuite(dir: &Path, args: &[&str]) -> Output {
    Command::new(LAWSUITE)
        .args(args)
        .current_dir(dir)
        .env_remove("CARGO_MANIFEST_DIR")
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn python() -> &'static str {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    // CI installs python3; without it these tests fail rather than pass by
    // doing nothing.
    assert!(ok, "python3 is needed for the hostile peers of these tests");
    "python3"
}

/// A peer that declares glob and answers every glob as `MODE` says:
/// `refuse` (a contract failure `not_found` with its own message) or
/// `crash` (a reason, a long stack, a last line on stderr, then exit 3).
const PEER: &str = r#"
import json, sys
MODE = sys.argv[1]
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()
for line in sys.stdin:
    request = json.loads(line)
    rid, method = request["id"], request["method"]
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocol": 1, "peer": {"name": "hostile", "version": "0"},
            "capabilities": {"methods": ["glob"], "ground": "shared"}}})
    elif method == "shutdown":
        send({"jsonrpc": "2.0", "id": rid, "result": None})
        break
    elif MODE == "refuse":
        send({"jsonrpc": "2.0", "id": rid, "error": {
            "code": -32000, "message": "Path not found",
            "data": {"code": "not_found",
                     "message": "MARKER-7: the peer's own reason"}}})
    else:
        sys.stderr.write("FATAL ERROR: MARKER-8 the reason comes first\n")
        for i in range(5000):
            sys.stderr.write(f"    at frame{i} (peer.js:{i}:1)\n")
        sys.stderr.write("Node.js v0.0.0-MARKER-9\n")
        sys.stderr.flush()
        sys.exit(3)
"#;

/// A project of its own laws only: one glob law that expects an answer,
/// one that expects `not_found` and does not say with which message; the
/// peer `hostile` runs the script above in `mode`.
fn project(mode: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("peer.py");
    std::fs::write(&script, PEER).unwrap();
    std::fs::write(
        dir.path().join("lawsuite.toml"),
        format!(
            "reference = \"portable\"\nlaws = [\"laws\"]\nshipped_laws = false\n\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n\n[[peer]]\nname = \"hostile\"\ncommand = [\"{}\", \"{}\", \"{mode}\"]\n",
            python(),
            script.display()
        ),
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("laws")).unwrap();
    std::fs::write(
        dir.path().join("laws/mine.toml"),
        r#"[[law]]
name = "star-ts"
spec = "search-contract §8.5"
method = "glob"
input = { pattern = "*.ts" }
tree."a.ts" = ""
expect = { paths = ["a.ts"], total = 1, truncated = false }

[[law]]
name = "missing-root"
spec = "search-contract §17"
method = "glob"
input = { pattern = "*.ts", root = "missing" }
tree."a.ts" = ""
expect_error = "not_found"
"#,
    )
    .unwrap();
    dir
}

/// The verdict of each of `hostile`'s trials, by law name.
fn verdicts(doc: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = doc["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["peer"] == "hostile")
        .map(|o| {
            let id = o["id"].as_str().unwrap_or_default();
            let name = id.rsplit("::").nth(1).unwrap_or_default().to_string();
            (name, o["verdict"].as_str().unwrap_or_default().to_string())
        })
        .collect();
    out.sort();
    out
}

/// A peer's `data.message` reaches the report of a law it fails (its
/// answer, its diff, every format), and a law that compares only the code
/// still passes whatever the message says.
#[test]
fn a_peers_error_message_reaches_every_report() {
    let dir = project("refuse");
    let out = lawsuite(dir.path(), &["run", "--no-seeds", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        verdicts(&doc),
        [
            ("missing-root".to_string(), "pass".to_string()),
            ("star-ts".to_string(), "fail".to_string()),
        ],
        "{}",
        text(&out.stdout)
    );
    let failed = doc["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["verdict"] == "fail")
        .unwrap();
    let case = &failed["report"]["cases"][0];
    assert_eq!(
        case["actual"],
        serde_json::json!({"failure": "not_found", "message": "MARKER-7: the peer's own reason"}),
        "{case}"
    );
    assert!(
        case["diff"]
            .as_str()
            .unwrap_or_default()
            .contains("MARKER-7"),
        "{case}"
    );
    for format in ["human", "junit", "markdown"] {
        let out = lawsuite(dir.path(), &["run", "--no-seeds", "--format", format]);
        assert!(
            text(&out.stdout).contains("MARKER-7: the peer"),
            "{format}: {}",
            text(&out.stdout)
        );
    }
}

/// A crashed peer's stderr keeps its start, where V8 and the JVM put the
/// reason, and its end, where Python does, with what was left out counted.
#[test]
fn a_crashed_peers_reason_is_kept_first_and_last() {
    let dir = project("crash");
    let out = lawsuite(
        dir.path(),
        &["run", "--no-seeds", "--format", "human", "star-ts"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(
        report.contains("FATAL ERROR: MARKER-8 the reason comes first"),
        "{report}"
    );
    assert!(report.contains("Node.js v0.0.0-MARKER-9"), "{report}");
    assert!(report.contains(" bytes elided …"), "{report}");
}

/// A misspelled `builtin` is an error naming the built-ins, in every
/// command that reads the registry: it used to be a peer that "cannot run
/// here", skipped, and `run` was green.
#[test]
fn a_misspelled_builtin_is_an_error_naming_the_builtins() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("lawsuite.toml"),
        "reference = \"portable\"\n\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n\n[[peer]]\nname = \"typo\"\nbuiltin = \"portabel\"\n",
    )
    .unwrap();
    for args in [
        &["peers"][..],
        &["run", "--no-seeds", "--law", "glob::matching"],
    ] {
        let out = lawsuite(dir.path(), args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        let said = text(&out.stderr);
        assert!(
            said.contains("peer \"typo\": \"portabel\" is not a built-in peer; the built-in peers are portable, ripgrep, ripgrep-walk, model, noop"),
            "{args:?}: {said}"
        );
    }
}

/// `lawsuite peers` fails when a registered peer cannot run, and says
/// which and why.
#[test]
fn peers_fails_for_an_unavailable_peer() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("lawsuite.toml"),
        "reference = \"portable\"\n\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n\n[[peer]]\nname = \"typo\"\ncommand = [\"no-such-program-of-lawsuite\"]\n",
    )
    .unwrap();
    let out = lawsuite(dir.path(), &["peers"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let row = text(&out.stdout)
        .lines()
        .find(|l| l.starts_with("typo"))
        .unwrap_or_default()
        .to_string();
    assert!(row.contains("unavailable"), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("cannot be used: typo"),
        "{}",
        text(&out.stderr)
    );
    let out = lawsuite(dir.path(), &["peers", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        rows.as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "typo" && r["ok"] == false),
        "{rows}"
    );
}

/// A `lawsuite.toml` that is there but cannot be read as a file is an
/// error naming it, never a reason to take the parent's project.
#[cfg(unix)]
#[test]
fn a_project_file_that_is_not_a_file_stops_every_command() {
    let parent = tempfile::tempdir().unwrap();
    std::fs::write(
        parent.path().join("lawsuite.toml"),
        "reference = \"portable\"\n\n[[peer]]\nname = \"parents\"\nbuiltin = \"portable\"\n",
    )
    .unwrap();
    let here = parent.path().join("child");
    std::fs::create_dir(&here).unwrap();
    let file = here.join("lawsuite.toml");
    std::os::unix::fs::symlink("gone.toml", &file).unwrap();
    let out = lawsuite(&here, &["peers"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(
        err.contains(&file.display().to_string()) && err.contains("a dangling symlink"),
        "{err}"
    );
    assert!(!text(&out.stdout).contains("parents"));
}

/// A number of seconds no `Duration` holds is refused by the variable's
/// name (exit status 2), as any other value it cannot take is:
/// `LAWSUITE_INTERRUPT_GRACE_SECS=1e30` used to panic (exit status 101) in
/// `Duration::from_secs_f64`.
#[test]
fn a_duration_too_long_to_hold_is_refused_by_the_variables_name() {
    let dir = tempfile::tempdir().unwrap();
    for (variable, value) in [
        ("LAWSUITE_INTERRUPT_GRACE_SECS", "1e30"),
        ("LAWSUITE_INTERRUPT_GRACE_SECS", "18446744073709551616"),
    ] {
        let out = Command::new(LAWSUITE)
            .args([
                "run",
                "--no-laws",
                "--no-regressions",
                "--no-exhaustive",
                "--seeds",
                "1",
            ])
            .args(["--generator", "smthrs", "--peer", "portable"])
            .current_dir(dir.path())
            .env_remove("CARGO_MANIFEST_DIR")
            .env(variable, value)
            .output()
            .unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{variable}={value}: {err}");
        assert!(
            err.contains(&format!(
                "{variable}=\"{value}\" is not a number of seconds"
            )),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// Every command that runs a peer refuses a `LAWSUITE_*` variable set to a
/// value it cannot take, naming it, before it starts anything:
/// `LAWSUITE_RG_TIMEOUT_MS=abc lawsuite call --peer ripgrep …` ran with
/// the default.
#[test]
fn every_command_that_runs_a_peer_refuses_a_bad_variable() {
    let dir = tempfile::tempdir().unwrap();
    let commands: [&[&str]; 9] = [
        &["run", "--no-seeds"],
        &["bench", "--peer", "portable", "--rounds", "1"],
        &["survey", ".", "--call-count", "1"],
        &["shrink", "--seed", "0", "--call", "0", "--peer", "ripgrep"],
        &["record", "--seed", "0", "--call", "0", "--peer", "ripgrep"],
        &["fuzz", "--for", "1s"],
        &["peers"],
        &[
            "call",
            "--peer",
            "ripgrep",
            "glob",
            "{\"pattern\":\"*\",\"root\":\".\"}",
        ],
        &["serve", "--peer", "ripgrep"],
    ];
    for args in commands {
        for (variable, value) in [("LAWSUITE_RG_TIMEOUT_MS", "abc"), ("LAWSUITE_REPEAT", "0")] {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_lawsuite"))
                .args(args)
                .current_dir(dir.path())
                .env(variable, value)
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(2),
                "{args:?} with {variable}={value}: {}",
                text(&out.stderr)
            );
            assert!(
                text(&out.stderr).contains(&format!("{variable}=\"{value}\" is not")),
                "{args:?}: {}",
                text(&out.stderr)
            );
        }
    }
}

/// Every command that reads a project refuses one whose `lawsuite.toml`
/// (or, for those that run peers, the registry it names) cannot be
/// parsed: exit status 2, the file and the problem named. `call`, `bench` and `survey` used to fall back on
/// the built-ins without a word and exit 0; with no project file at all,
/// built-in names still resolve.
#[test]
fn every_command_that_reads_a_project_refuses_an_unparsable_one() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("lawsuite.toml");
    let registry = dir.path().join("peers.toml");
    std::fs::write(&registry, "reference = \"portable\"\n[[peer]\n").unwrap();
    let commands: [&[&str]; 9] = [
        &["run", "--no-seeds", "--law", "glob::matching"],
        &["peers"],
        &["fuzz", "--for", "1s"],
        &["shrink", "--seed", "0", "--call", "0", "--peer", "model"],
        &["record", "--seed", "0", "--call", "0", "--peer", "model"],
        &["as-law", "no-such-regression.json"],
        &[
            "call",
            "--peer",
            "model",
            "flow/glob",
            "{\"pattern\":\"*\"}",
        ],
        &[
            "bench",
            "--peer",
            "portable",
            "--corpus",
            ".",
            "--query",
            "rare_literal",
            "--rounds",
            "1",
            "--warmup",
            "0",
        ],
        &[
            "survey",
            ".",
            "--call-count",
            "1",
            "--reference",
            "portable",
            "--peer",
            "model",
        ],
    ];
    // The project file itself, then the registry file it names.
    let files = [
        (
            "reference = \"portable\"\n[[peer]\nname = \"portable\"\n",
            &project,
        ),
        ("registry = \"peers.toml\"\n", &registry),
    ];
    // Every command is tried before the test fails, so a failure names
    // all the commands that did not refuse.
    let mut silent = Vec::new();
    for (contents, broken) in files {
        std::fs::write(&project, contents).unwrap();
        for args in commands
            .into_iter()
            .filter(|args| broken == &project || args[0] != "as-law")
        {
            let out = lawsuite(dir.path(), args);
            let err = text(&out.stderr);
            let named = err.contains(&broken.display().to_string())
                && err.contains("is not valid")
                && err.contains("unclosed array table");
            if out.status.code() != Some(2) || !named {
                silent.push(format!(
                    "{} with a broken {}: exit {:?}, {err}",
                    args[0],
                    broken.display(),
                    out.status.code()
                ));
            }
        }
    }
    assert!(silent.is_empty(), "{silent:#?}");
    std::fs::remove_file(&project).unwrap();
    let out = lawsuite(dir.path(), commands[6]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}
