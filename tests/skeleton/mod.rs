// Each test target uses its own part of this module.
#![allow(dead_code)]

//! What the skeleton tests share: the skeleton peer `mine` of a project
//! `init` wrote, run on the glob-matching laws by the built binary.

use std::path::Path;
use std::process::Command;

/// `lawsuite run --no-seeds --law glob::matching --peer mine --format json`
/// in `project`, with `PATH` put first when given (a venv's `bin`); the
/// run's exit code and `mine`'s counts from the report.
pub fn run_mine_on_glob_laws(
    project: &Path,
    path_first: Option<&Path>,
) -> (Option<i32>, serde_json::Value) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lawsuite"));
    command
        .args([
            "run",
            "--no-seeds",
            "--law",
            "glob::matching",
            "--peer",
            "mine",
            "--format",
            "json",
        ])
        .current_dir(project)
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("PYTHONPATH");
    if let Some(first) = path_first {
        let path = format!(
            "{}:{}",
            first.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        command.env("PATH", path);
    }
    let run = command.output().expect("lawsuite starts");
    let report: serde_json::Value = serde_json::from_slice(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&run.stderr)));
    (
        run.status.code(),
        report["summary"]["byPeer"]["mine"].clone(),
    )
}

/// Run `program args` in `dir` (without `PYTHONPATH`, so only what a
/// command installs is found); its combined output, or a panic naming it.
pub fn ok(program: impl AsRef<std::ffi::OsStr>, args: &[&str], dir: &Path) -> String {
    let program = program.as_ref();
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env_remove("PYTHONPATH")
        .output()
        .unwrap_or_else(|e| panic!("{} does not start: {e}", Path::new(program).display()));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{} {args:?} failed ({}):\n{said}",
        Path::new(program).display(),
        out.status
    );
    said
}
