//! The `git` peer (`src/git/`): git's own reading of `.gitignore` decides
//! the walk of `glob`, isolated from the machine it runs on, leaving the
//! tree as it found it, and unavailable (with why) where git is missing.
//!
//! Its agreement with the contract and its listed differences are the
//! laws' (`cargo test --test conformance -- ::git`): every listed law it
//! must fail, every other glob law it must pass. Here: what the laws cannot
//! show. Without git the tests say so on stderr and pass, except under
//! `CI=true`, where git must be there.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use lawsuite::contract::{GlobInput, GlobOutput};
use lawsuite::git::Git;
use lawsuite::peer::{Method, Search};
use lawsuite::portable::Portable;

/// The peer, or `None` (with a note) when no suitable git exists.
fn git() -> Option<Git> {
    let git = Git::default();
    match git.availability() {
        Ok(_) => Some(git),
        Err(why) => {
            // Never green by skipping where the tool must be: CI installs git.
            assert!(
                std::env::var_os("CI").is_none(),
                "git is needed in CI: {why}"
            );
            eprintln!("note: the git peer is skipped: {why}");
            None
        }
    }
}

/// Write `files` (path → content; a content starting with `->` is a
/// symbolic link to the rest) under `root`.
fn write_tree(root: &Path, files: &[(&str, &str)]) {
    for (rel, content) in files {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        match content.strip_prefix("->") {
            Some(target) => std::os::unix::fs::symlink(target, path).unwrap(),
            None => fs::write(path, content).unwrap(),
        }
    }
}

/// Every entry under `root`: its kind, bytes or link target, mode and
/// modification time, so a file written, created, removed or touched shows.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, String> {
    use std::os::unix::fs::MetadataExt;
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            let what = if meta.file_type().is_symlink() {
                format!("link {:?}", fs::read_link(&path).unwrap())
            } else if meta.is_dir() {
                stack.push(path.clone());
                "dir".to_string()
            } else {
                format!("file {:?}", fs::read(&path).unwrap())
            };
            let key = path.strip_prefix(root).unwrap().to_path_buf();
            out.insert(
                key,
                format!("{what} mode {:o} mtime {}", meta.mode(), meta.mtime_nsec()),
            );
        }
    }
    let meta = fs::metadata(root).unwrap();
    out.insert(PathBuf::new(), format!("root mtime {}", meta.mtime_nsec()));
    out
}

fn input(pattern: &str, root: &Path, hidden: bool, no_ignore: bool) -> GlobInput {
    let mut input = GlobInput::new(pattern, root.to_str().unwrap());
    input.hidden = hidden;
    input.no_ignore = no_ignore;
    input
}

/// The paths of an answer, relative to `root`.
fn relative(out: &GlobOutput, root: &Path) -> Vec<String> {
    let prefix = format!("{}/", root.to_str().unwrap());
    out.paths
        .iter()
        .map(|p| p.strip_prefix(&prefix).unwrap_or(p).to_string())
        .collect()
}

/// A tree with a bit of everything git reads or treats specially.
const BUSY: [(&str, &str); 14] = [
    (".gitignore", "*.log\nbuild/\n!keep.log\n"),
    ("a.ts", ""),
    ("b.log", ""),
    ("keep.log", ""),
    ("build/out.ts", ""),
    ("src/.gitignore", "gen/\n*.tmp\n"),
    ("src/gen/x.ts", ""),
    ("src/y.tmp", ""),
    ("src/z.ts", ""),
    (".hidden/h.ts", ""),
    (".git/HEAD", "ref: refs/heads/main\n"),
    (".git/config", "[core]\n\tbare = false\n"),
    ("node_modules/m.ts", ""),
    ("link.ts", "->a.ts"),
];

#[test]
fn git_answers_glob_by_its_reading_of_the_tree() {
    let Some(git) = git() else { return };
    let dir = tempfile::tempdir().unwrap();
    write_tree(dir.path(), &BUSY);
    let out = git.glob(&input("**", dir.path(), false, false)).unwrap();
    assert_eq!(
        relative(&out, dir.path()),
        ["a.ts", "keep.log", "src/z.ts"],
        "{out:?}"
    );
    let out = git.glob(&input("**", dir.path(), true, true)).unwrap();
    assert_eq!(
        relative(&out, dir.path()),
        [
            ".gitignore",
            ".hidden/h.ts",
            "a.ts",
            "b.log",
            "build/out.ts",
            "keep.log",
            "src/.gitignore",
            "src/gen/x.ts",
            "src/y.tmp",
            "src/z.ts"
        ],
        "{out:?}"
    );
    // The same answers as the reference, notices included.
    for (pattern, hidden, no_ignore) in [
        ("**", false, false),
        ("*.ts", true, false),
        ("src/**", false, true),
        ("gen/*.ts", false, false),
        ("**/*.tmp", false, false),
        ("*.none", false, false),
    ] {
        let call = input(pattern, dir.path(), hidden, no_ignore);
        assert_eq!(
            git.glob(&call),
            Portable::default().glob(&call),
            "{pattern} hidden={hidden} noIgnore={no_ignore}"
        );
    }
}

#[test]
fn git_answers_glob_only() {
    let git = Git::new("/nonexistent/git");
    let answered: Vec<Method> = Method::ALL
        .into_iter()
        .filter(|m| git.supports(*m))
        .collect();
    assert_eq!(answered, [Method::Glob, Method::FlowGlob]);
    let err = git
        .grep(&lawsuite::contract::GrepInput::new("x", "."))
        .unwrap_err();
    assert_eq!(err.code.as_str(), "unsupported");
}

#[test]
fn the_tree_is_byte_identical_after_gits_answers() {
    let Some(git) = git() else { return };
    let dir = tempfile::tempdir().unwrap();
    write_tree(dir.path(), &BUSY);
    // A nested repository too: git treats it specially (it stops there).
    write_tree(
        dir.path(),
        &[
            ("nested/.git/HEAD", "ref: refs/heads/main\n"),
            ("nested/.git/objects/.keep", ""),
            ("nested/.git/refs/.keep", ""),
            ("nested/n.ts", ""),
        ],
    );
    let before = snapshot(dir.path());
    for (pattern, hidden, no_ignore) in [
        ("**", false, false),
        ("**", true, false),
        ("**", true, true),
        // Empty answers: the ignored flag asks git three more times.
        ("*.log", false, false),
        ("nothing", true, false),
    ] {
        git.glob(&input(pattern, dir.path(), hidden, no_ignore))
            .unwrap();
    }
    assert_eq!(snapshot(dir.path()), before);
}

/// `lawsuite` run with only `env` in its environment, in `cwd`.
fn lawsuite(cwd: &Path, env: &[(&str, &Path)], args: &[&str]) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lawsuite"));
    command.env_clear().current_dir(cwd).args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().unwrap()
}

/// The directory holding the `git` on `PATH`.
fn git_dir() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .find(|d| d.join("git").is_file())
        .expect("git on PATH")
}

#[test]
fn the_users_git_configuration_does_not_leak_and_nothing_is_written_outside_temp_roots() {
    if git().is_none() {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let (home, tmp, tree, cwd) = (
        scratch.path().join("home"),
        scratch.path().join("tmp"),
        scratch.path().join("tree"),
        scratch.path().join("cwd"),
    );
    for d in [&home, &tmp, &cwd] {
        fs::create_dir_all(d).unwrap();
    }
    write_tree(&tree, &[("a.rs", ""), ("b.txt", ""), ("sub/c.rs", "")]);
    // Every place a user's git would look for excludes: each ignores
    // `*.rs`.
    let excludes = home.join("my-excludes");
    fs::write(&excludes, "*.rs\n").unwrap();
    fs::write(
        home.join(".gitconfig"),
        format!("[core]\n\texcludesFile = {}\n", excludes.display()),
    )
    .unwrap();
    write_tree(&home, &[(".config/git/ignore", "*.rs\n")]);
    let global = home.join("global.gitconfig");
    fs::write(
        &global,
        format!("[core]\n\texcludesFile = {}\n", excludes.display()),
    )
    .unwrap();
    let path = std::env::join_paths([git_dir(), PathBuf::from("/usr/bin"), PathBuf::from("/bin")])
        .unwrap();
    let path = PathBuf::from(path);
    let env = [
        ("PATH", path.as_path()),
        ("HOME", home.as_path()),
        ("TMPDIR", tmp.as_path()),
        ("XDG_CONFIG_HOME", &home.join(".config")),
        ("GIT_CONFIG_GLOBAL", global.as_path()),
        ("GIT_CONFIG_COUNT", Path::new("1")),
        ("GIT_CONFIG_KEY_0", Path::new("core.excludesFile")),
        ("GIT_CONFIG_VALUE_0", excludes.as_path()),
        ("GIT_DIR", &home.join("not-a-repository")),
    ];
    // The setting leaks into a plain git: `*.rs` is ignored there.
    let plain = Command::new("git")
        .env_clear()
        .envs(env.iter().map(|(k, v)| (*k, *v)))
        .env_remove("GIT_DIR")
        .current_dir(&tree)
        .args(["init", "-q"])
        .status()
        .unwrap();
    assert!(plain.success());
    let listed = Command::new("git")
        .env_clear()
        .envs(env.iter().map(|(k, v)| (*k, *v)))
        .env_remove("GIT_DIR")
        .current_dir(&tree)
        .args(["ls-files", "--others", "--exclude-standard"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&listed.stdout), "b.txt\n");
    fs::remove_dir_all(tree.join(".git")).unwrap();
    let before = (snapshot(&tree), snapshot(&home), snapshot(&cwd));

    let params = format!(r#"{{"pattern":"**","root":{:?}}}"#, tree.to_str().unwrap());
    let out = lawsuite(&cwd, &env, &["call", "--peer", "git", "flow/glob", &params]);
    assert!(out.status.success(), "{out:?}");
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let root = tree.to_str().unwrap();
    assert_eq!(
        answer["paths"],
        serde_json::json!([
            format!("{root}/a.rs"),
            format!("{root}/b.txt"),
            format!("{root}/sub/c.rs")
        ]),
        "{answer}"
    );
    // Nothing written to the tree, the home or the working directory, and
    // the temporary root is left empty.
    assert_eq!((snapshot(&tree), snapshot(&home), snapshot(&cwd)), before);
    let left: Vec<_> = fs::read_dir(&tmp).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn without_git_on_path_the_peer_is_unavailable_with_the_reason() {
    let scratch = tempfile::tempdir().unwrap();
    let empty = scratch.path().join("bin");
    fs::create_dir_all(&empty).unwrap();
    let out = lawsuite(
        scratch.path(),
        &[("PATH", empty.as_path()), ("HOME", scratch.path())],
        &["call", "--peer", "git", "flow/glob", r#"{"pattern":"*"}"#],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{out:?}");
    assert!(
        stderr.contains("the git peer cannot run: cannot run `git --version`")
            && stderr.contains("install git 2.32 or newer"),
        "{stderr}"
    );
}

/// A stand-in `git` (a shell script) that prints `version` for
/// `--version` and runs `body` otherwise.
fn fake_git(dir: &Path, version: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("git");
    fs::write(
        &path,
        format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo '{version}'; exit 0; fi\n{body}\n"
        ),
    )
    .unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn the_oldest_git_driven_is_2_32() {
    let dir = tempfile::tempdir().unwrap();
    let old = Git::new(fake_git(dir.path(), "git version 2.31.9", "exit 0"));
    let why = old.availability().unwrap_err().to_string();
    assert!(why.contains("is git 2.31.9, older than 2.32.0"), "{why}");
    let dir = tempfile::tempdir().unwrap();
    let oldest = Git::new(fake_git(dir.path(), "git version 2.32.0", "exit 0"));
    assert_eq!(oldest.availability().ok(), Some("git version 2.32.0"));
    let dir = tempfile::tempdir().unwrap();
    let other = Git::new(fake_git(dir.path(), "ripgrep 15.2.0", "exit 0"));
    let why = other.availability().unwrap_err().to_string();
    assert!(why.contains("printed no git version"), "{why}");
}

#[test]
fn a_git_past_the_calls_deadline_is_killed_and_the_call_fails() {
    let dir = tempfile::tempdir().unwrap();
    let tree = tempfile::tempdir().unwrap();
    write_tree(tree.path(), &[("a.ts", "")]);
    let slow = Git::new(fake_git(dir.path(), "git version 2.47.3", "sleep 30"))
        .with_timeout(std::time::Duration::from_millis(300));
    let err = slow
        .glob(&input("*", tree.path(), false, false))
        .unwrap_err();
    assert_eq!(err.code.as_str(), "provider_unavailable", "{err:?}");
    assert!(
        err.message.contains("still running at the call's deadline"),
        "{err:?}"
    );
    // Within its deadline the same stand-in answers (it lists nothing).
    let quick = Git::new(fake_git(dir.path(), "git version 2.47.3", "exit 0"));
    let out = quick.glob(&input("*", tree.path(), false, false)).unwrap();
    assert!(out.paths.is_empty(), "{out:?}");
}

#[test]
fn a_git_that_fails_fails_the_call_with_what_it_said() {
    let dir = tempfile::tempdir().unwrap();
    let tree = tempfile::tempdir().unwrap();
    let broken = Git::new(fake_git(
        dir.path(),
        "git version 2.47.3",
        "echo 'fatal: not a git repository' >&2; exit 128",
    ));
    let err = broken
        .glob(&input("*", tree.path(), false, false))
        .unwrap_err();
    assert_eq!(err.code.as_str(), "request_failed", "{err:?}");
    assert!(
        err.message
            .contains("exited with code 128: fatal: not a git repository"),
        "{err:?}"
    );
}

#[test]
fn a_difference_git_shows_that_is_not_listed_fails_the_run() {
    if git().is_none() {
        return;
    }
    // The shipped `foo**/bar` law, under a name no listing names: git
    // fails it, and nothing excuses that. The same law under its shipped
    // name is an expected failure of git, and passes on the reference.
    let law = include_str!("../laws/gitignore/git-differences.toml");
    let start = law
        .find("name = \"double-star-after-a-name-is-two-ordinary-stars\"")
        .unwrap();
    let body = &law[start..];
    let body = body.split("\n[[law]]").next().unwrap();
    let unlisted = body.replace(
        "double-star-after-a-name-is-two-ordinary-stars",
        "an-unlisted-copy",
    );
    let scratch = tempfile::tempdir().unwrap();
    let laws = scratch.path().join("laws/gitignore");
    fs::create_dir_all(&laws).unwrap();
    fs::write(laws.join("mine.toml"), format!("[[law]]\n{unlisted}\n")).unwrap();
    let path = std::env::var_os("PATH").unwrap();
    let path = PathBuf::from(path);
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "--peer", "git", "--no-seeds", "--no-regressions"];
        args.extend_from_slice(extra);
        lawsuite(
            scratch.path(),
            &[("PATH", path.as_path()), ("HOME", scratch.path())],
            &args,
        )
    };
    let out = run(&["--no-shipped-laws", "--law-dir", "laws"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("gitignore::mine::an-unlisted-copy") && stdout.contains("git"),
        "{stdout}"
    );
    // The listed law: an expected failure, and the run passes.
    let out = run(&["--law", "gitignore::git-differences::double-star-after"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("1 expected failure"), "{stdout}");
}
