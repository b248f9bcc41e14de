//! The Node adapter (`adapters/node/`): its `node --test` suite, run with
//! the `lawsuite` binary cargo built. The suite serves Effect-based peers
//! (a real `effect` 4.0.0-rc.115 install in `adapters/node/test/fixture`,
//! which `.ci/run` installs with `npm ci`) through `lawsuite run` and
//! `lawsuite call`, and asserts on the verdicts.
//!
//! Without `node` or the install the test says why and passes, except under
//! `CI`, where it fails.

use std::path::Path;
use std::process::Command;

fn missing(what: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{what}, and CI must have it (.ci/run installs it)"
    );
    eprintln!("skipped: {what}");
}

#[test]
fn the_node_adapter_suite_passes_through_the_lawsuite_binary() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("adapters/node");
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        return missing("node is not on PATH");
    }
    if !dir
        .join("test/fixture/node_modules/effect/package.json")
        .is_file()
    {
        return missing(
            "effect is not installed for the adapter's tests (npm ci --prefix adapters/node/test/fixture)",
        );
    }
    let out = Command::new("node")
        .args(["--test", "test/adapter.test.js", "test/lawsuite.test.js"])
        .current_dir(&dir)
        .env("LAWSUITE_BIN", env!("CARGO_BIN_EXE_lawsuite"))
        .output()
        .expect("node starts");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "node --test failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    // Every test ran: none skipped for want of the binary.
    assert!(stdout.contains("# skipped 0"), "{stdout}");
    assert!(stdout.contains("# fail 0"), "{stdout}");
}
