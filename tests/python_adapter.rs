//! The Python adapter (`adapters/python/lawsuite_peer.py`): its unit tests,
//! and the example peer rewritten on it (`peers/examples/glob_peer.py`, the
//! registry's `python-glob`) run through the `lawsuite` binary cargo built,
//! with every verdict checked.
//!
//! Without `python3` the tests say why and pass, except under `CI`.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

mod skeleton;

use skeleton::ok;

fn python() -> bool {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 is not on PATH, and CI must have it (.ci/run installs it)"
        );
        eprintln!("skipped: python3 is not on PATH");
    }
    ok
}

#[test]
fn the_python_adapter_unit_tests_pass() {
    if !python() {
        return;
    }
    let out = Command::new("python3")
        .args(["-m", "unittest", "adapters/python/test_lawsuite_peer.py"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("python3 starts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("\nOK"), "{stderr}");
}

#[test]
fn the_example_peer_on_the_adapter_passes_every_law_it_declares() {
    if !python() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_lawsuite"))
        // The families are asked of python-glob by tests/conformance.rs.
        .args([
            "run",
            "--peer",
            "python-glob",
            "--no-exhaustive",
            "--format",
            "json",
        ])
        .current_dir(root)
        .output()
        .expect("lawsuite starts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    let mine = &report["summary"]["byPeer"]["python-glob"];
    assert_eq!(mine["fail"], 0, "{mine}");
    assert_eq!(mine["broken"], 0, "{mine}");
    // glob, read and ls laws and the seeds' glob calls pass; grep and bash
    // laws are skipped (not declared), never failed.
    let passed = mine["pass"].as_u64().unwrap_or(0);
    assert!(passed >= 500, "only {passed} trials passed: {mine}");
    let outcomes = report["outcomes"].as_array().expect("outcomes");
    let python: Vec<&Value> = outcomes
        .iter()
        .filter(|o| o["peer"] == "python-glob")
        .collect();
    for area in ["law::glob::", "law::read::", "law::ls::", "seed::"] {
        assert!(
            python.iter().any(|o| o["verdict"] == "pass"
                && o["id"].as_str().is_some_and(|id| id.starts_with(area))),
            "no {area} trial passed"
        );
    }
    // The `cwd` laws (read-ls-flows §1.6's relative hints) pass through
    // the adapter's `cwd`.
    assert!(python.iter().any(|o| {
        o["verdict"] == "pass"
            && o["id"]
                .as_str()
                .is_some_and(|id| id.starts_with("law::read::hint::a-relative-path"))
    }));
    let peer = report["run"]["peers"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["name"] == "python-glob"))
        .expect("python-glob in the run");
    assert_eq!(peer["language"], "python");
    assert_eq!(peer["ground"], "shared");
}

/// The adapter as a Python author gets it: a wheel built from
/// `adapters/python` (standard library only, no runtime dependency),
/// installed into a fresh virtual environment, imported by name by the
/// skeleton `init --lang python` writes, with the skeleton's own copy of
/// the adapter removed. Everything happens in a temporary directory, offline
/// (`--no-index`; the build uses the interpreter's setuptools and wheel,
/// which `.ci/run` installs).
#[test]
fn the_adapter_installs_from_its_wheel_into_a_fresh_venv() {
    if !python() {
        return;
    }
    let builds = Command::new("python3")
        .args(["-c", "import setuptools, wheel"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !builds {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 cannot build a wheel (pip install setuptools wheel), and CI must (.ci/run installs them)"
        );
        eprintln!("skipped: python3 has no setuptools and wheel to build the adapter's wheel");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let python = Path::new("python3");
    // Built from a copy: setuptools writes build/ and *.egg-info beside the
    // sources, and the checkout is not ours to write.
    let source = tmp.path().join("source");
    std::fs::create_dir(&source).unwrap();
    for file in ["pyproject.toml", "README.md", "lawsuite_peer.py"] {
        std::fs::copy(root.join("adapters/python").join(file), source.join(file)).unwrap();
    }
    let dist = tmp.path().join("dist");
    ok(
        python,
        &[
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-index",
            "--no-build-isolation",
            "--wheel-dir",
            &dist.to_string_lossy(),
            &source.to_string_lossy(),
        ],
        tmp.path(),
    );
    let wheel = std::fs::read_dir(&dist)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .expect("a wheel is built");
    let name = wheel.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(
        name,
        format!(
            "lawsuite_peer-{}-py3-none-any.whl",
            env!("CARGO_PKG_VERSION")
        ),
        "the adapter's version is the crate's"
    );

    let venv = tmp.path().join("venv");
    ok(python, &["-m", "venv", &venv.to_string_lossy()], tmp.path());
    let bin = venv.join("bin");
    ok(
        bin.join("python"),
        &[
            "-m",
            "pip",
            "install",
            "--no-index",
            "--no-deps",
            &wheel.to_string_lossy(),
        ],
        tmp.path(),
    );
    // Installed where packages go, and nothing else: standard library only.
    let at = ok(
        bin.join("python"),
        &["-c", "import lawsuite_peer; print(lawsuite_peer.__file__)"],
        tmp.path(),
    );
    assert!(at.contains("site-packages"), "{at}");
    let listed = ok(bin.join("python"), &["-m", "pip", "list"], tmp.path());
    assert!(listed.contains("lawsuite-peer"), "{listed}");

    // The skeleton, its copy of the adapter and the PYTHONPATH that finds it
    // removed: only the installed package can answer its import.
    let project = tmp.path().join("my-peer");
    let init = Command::new(env!("CARGO_BIN_EXE_lawsuite"))
        .args(["init", "--lang", "python", &project.to_string_lossy()])
        .output()
        .unwrap();
    assert!(init.status.success(), "{init:?}");
    std::fs::remove_dir_all(project.join("lawsuite/python")).unwrap();
    let manifest = project.join("lawsuite.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let without: String = text
        .lines()
        .filter(|l| !l.starts_with("env = ") && !l.starts_with("cwd = "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_ne!(
        text, without,
        "the skeleton registers its copy of the adapter"
    );
    std::fs::write(&manifest, without).unwrap();
    let (_, mine) = skeleton::run_mine_on_glob_laws(&project, Some(&bin));
    assert!(
        mine["pass"].as_u64() > Some(0) && mine["broken"].as_u64() == Some(0),
        "the skeleton on the installed adapter answers: {mine}"
    );
}

/// The README's example is `adapters/python/example_peer.py`, byte for
/// byte, and what the README says of it is true: registered as the README
/// registers it, it passes every `read::input` law (its `read` checks the
/// caller's raw JSON first, as the binding rules ask), and its `glob`
/// answers the seam and a missing root with the contract's failure.
#[test]
fn the_readmes_example_is_the_fixture_and_passes_what_the_readme_says() {
    if !python() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("adapters/python/README.md")).unwrap();
    let example = std::fs::read_to_string(root.join("adapters/python/example_peer.py")).unwrap();
    let snippet = readme
        .split("```python\n# peer.py\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the README shows `# peer.py`");
    assert_eq!(snippet, example, "the README's peer.py is example_peer.py");
    assert!(readme.contains("it passes every\n`read::input` law"));

    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        root.join("adapters/python/example_peer.py"),
        dir.path().join("peer.py"),
    )
    .unwrap();
    // The README's project, with the adapter in reach as `pip install
    // ./adapters/python` puts it.
    let project = format!(
        "[[peer]]\nname = \"my-peer\"\ncommand = [\"python3\", \"./peer.py\"]\nenv = {{ PYTHONPATH = {:?} }}\n",
        root.join("adapters/python").to_string_lossy()
    );
    std::fs::write(dir.path().join("lawsuite.toml"), project).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lawsuite"))
        .args([
            "run",
            "--peer",
            "my-peer",
            "--no-seeds",
            "--no-regressions",
            "--format",
            "json",
            "law::read::input::",
        ])
        .current_dir(dir.path())
        .output()
        .expect("lawsuite starts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    let mine = &report["summary"]["byPeer"]["my-peer"];
    assert_eq!(mine["pass"], 11, "{mine}");
    assert_eq!(mine["fail"], 0, "{mine}");

    let tree = tempfile::tempdir().unwrap();
    std::fs::write(tree.path().join("a.txt"), "x\n").unwrap();
    let call = |params: &str| {
        Command::new(env!("CARGO_BIN_EXE_lawsuite"))
            .args(["call", "--peer", "my-peer", "glob", params])
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let root_of = tree.path().to_string_lossy();
    let found = call(&format!(
        r#"{{"pattern":"*.txt","root":{root_of:?},"hidden":false,"noIgnore":false,"limit":10}}"#
    ));
    assert!(found.status.success(), "{found:?}");
    let answer: Value = serde_json::from_slice(&found.stdout).unwrap();
    assert_eq!(answer["paths"][0], format!("{root_of}/a.txt"));
    let missing =
        call(r#"{"pattern":"*","root":"/no/such/dir","hidden":false,"noIgnore":false,"limit":10}"#);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&missing.stdout),
        String::from_utf8_lossy(&missing.stderr)
    );
    assert!(
        said.contains("not_found") && said.contains("Path not found: /no/such/dir"),
        "{said}"
    );
}
