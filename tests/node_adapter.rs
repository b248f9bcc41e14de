//! The Node adapter (`adapters/node/`): its `node --test` suite, run with
//! the `lawsuite` binary cargo built. The suite serves Effect-based peers
//! (a real `effect` and `@effect/platform-node` 4.0.0-rc.115 install in
//! `adapters/node/test/fixture`, with the `@smthrs/std` stand-in and the
//! adapter linked by name, which `.ci/run` installs with `npm ci`) through
//! `lawsuite run` and `lawsuite call`, and asserts on the verdicts: among
//! them the README's example (`test/fixture/std-peer.js`, which
//! `tests/readme_snippets.rs` holds to the README) on the laws its binding
//! rules decide, and the same example bound the two wrong ways, failing
//! exactly the laws the README names.
//!
//! Without `node` or the install the test says why and passes, except under
//! `CI`, where it fails.

use std::path::Path;
use std::process::Command;

mod skeleton;

use skeleton::ok;

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
    for package in [
        "effect",
        "@effect/platform-node",
        "@smthrs/std",
        "lawsuite-peer",
    ] {
        let manifest = dir
            .join("test/fixture/node_modules")
            .join(package)
            .join("package.json");
        if !manifest.is_file() {
            return missing(&format!(
                "{package} is not installed for the adapter's tests (npm ci --prefix adapters/node/test/fixture)"
            ));
        }
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

/// The adapter as a TypeScript author gets it: the `npm pack` tarball of
/// `adapters/node`, installed (offline) into the project `init --lang node`
/// writes, replacing the skeleton's `file:` copy, which is then removed:
/// the skeleton imports the package by name and answers the glob laws.
#[test]
fn the_adapter_installs_from_its_npm_pack_tarball() {
    for program in ["node", "npm"] {
        let found = Command::new(program).arg("--version").output();
        if !found.is_ok_and(|o| o.status.success()) {
            return missing(&format!("{program} is not on PATH"));
        }
    }
    let adapter = Path::new(env!("CARGO_MANIFEST_DIR")).join("adapters/node");
    let tmp = tempfile::tempdir().unwrap();
    // Packed from a copy of what the package ships: `npm pack` may write
    // beside the sources, and the checkout is not ours to write.
    let source = tmp.path().join("source");
    std::fs::create_dir(&source).unwrap();
    for file in [
        "package.json",
        "lawsuite-peer.js",
        "lawsuite-peer.d.ts",
        "README.md",
    ] {
        std::fs::copy(adapter.join(file), source.join(file)).unwrap();
    }
    let packed = ok(
        "npm",
        &["pack", "--pack-destination", &tmp.path().to_string_lossy()],
        &source,
    );
    let tarball = tmp
        .path()
        .join(format!("lawsuite-peer-{}.tgz", env!("CARGO_PKG_VERSION")));
    assert!(tarball.is_file(), "npm pack wrote {packed}");

    let project = tmp.path().join("my-peer");
    let init = Command::new(env!("CARGO_BIN_EXE_lawsuite"))
        .args(["init", "--lang", "node", &project.to_string_lossy()])
        .output()
        .unwrap();
    assert!(init.status.success(), "{init:?}");
    ok(
        "npm",
        &[
            "install",
            "--offline",
            "--no-audit",
            "--no-fund",
            &tarball.to_string_lossy(),
        ],
        &project,
    );
    std::fs::remove_dir_all(project.join("lawsuite/node")).unwrap();
    let installed = project.join("node_modules/lawsuite-peer");
    assert!(
        installed.join("lawsuite-peer.d.ts").is_file()
            && !std::fs::symlink_metadata(&installed)
                .unwrap()
                .file_type()
                .is_symlink(),
        "the tarball's files, not a link to the removed copy"
    );
    let manifest = std::fs::read_to_string(project.join("package.json")).unwrap();
    assert!(manifest.contains(".tgz"), "{manifest}");

    let (_, mine) = skeleton::run_mine_on_glob_laws(&project, None);
    assert!(
        mine["pass"].as_u64() > Some(0) && mine["broken"].as_u64() == Some(0),
        "the skeleton on the installed adapter answers: {mine}"
    );
}
