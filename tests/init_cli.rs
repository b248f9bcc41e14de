//! A peer's first day with the installed binary, from an empty directory:
//! `lawsuite init --lang node|python DIR` writes a runnable skeleton peer,
//! registered, with the protocol and the contract copied in; the next
//! commands it prints work as printed; `lawsuite docs` serves the same
//! documents offline. (The Rust skeleton is built by `tests/downstream.rs`,
//! which builds crates.)

use std::path::Path;
use std::process::{Command, Output};

mod fake_peers;
use fake_peers::has;

mod skeleton;

const LAWSUITE: &str = env!("CARGO_BIN_EXE_lawsuite");

fn lawsuite(dir: &Path, args: &[&str]) -> Output {
    Command::new(LAWSUITE)
        .args(args)
        .current_dir(dir)
        .env_remove("CARGO_MANIFEST_DIR")
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `init --lang L my-peer`, then the printed commands from inside it: the
/// skeleton's plain glob passes the simplest laws and fails others, each
/// failure by name; nothing outside the project is needed.
fn first_day(lang: &str, program: &str, peer_file: &str) {
    if !has(program) {
        return;
    }
    let empty = tempfile::tempdir().unwrap();
    let init = lawsuite(empty.path(), &["init", "--lang", lang, "my-peer"]);
    assert!(init.status.success(), "{}", text(&init));
    let said = text(&init);
    assert!(said.contains("cd my-peer"), "init DIR says cd DIR:\n{said}");
    let dir = empty.path().join("my-peer");
    // The printed steps that are not lawsuite's own (`npm install` for Node),
    // run as printed; the lawsuite steps are run below with this build.
    let steps: Vec<&str> = said
        .lines()
        .skip_while(|l| !l.starts_with("next:"))
        .skip(1)
        .map(|l| l.split(" #").next().unwrap_or_default().trim())
        .filter(|l| !l.is_empty() && !l.starts_with("cd ") && !l.starts_with("lawsuite "))
        .collect();
    for step in &steps {
        let out = Command::new("sh")
            .args(["-c", step])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{step}: {}", text(&out));
    }
    assert_eq!(
        steps.len(),
        usize::from(lang == "node"),
        "a Node skeleton needs `npm install` first, a Python one nothing: {steps:?}"
    );
    for file in [
        peer_file,
        "lawsuite.toml",
        "lawsuite/docs/PROTOCOL.md",
        "lawsuite/docs/contract.md",
        "lawsuite/docs/schema/grep.result.schema.json",
    ] {
        assert!(dir.join(file).is_file(), "{file} is written");
    }
    let peers = lawsuite(&dir, &["peers"]);
    assert!(peers.status.success(), "{}", text(&peers));
    assert!(text(&peers).contains("mine"), "{}", text(&peers));
    let (code, mine) = skeleton::run_mine_on_glob_laws(&dir, None);
    assert!(
        mine["pass"].as_u64() > Some(0) && mine["fail"].as_u64() > Some(0),
        "a small real glob passes some laws and fails others: {mine}"
    );
    assert_eq!(code, Some(1));
    // A second init refuses, and leaves the peer as the user edited it.
    std::fs::write(dir.join(peer_file), "edited").unwrap();
    let again = lawsuite(&dir, &["init", "--lang", lang]);
    assert_eq!(again.status.code(), Some(2), "{}", text(&again));
    assert!(text(&again).contains("already"), "{}", text(&again));
    assert_eq!(
        std::fs::read_to_string(dir.join(peer_file)).unwrap(),
        "edited"
    );
}

#[test]
fn a_node_skeleton_runs_from_an_empty_directory() {
    first_day("node", "node", "peer.mjs");
}

#[test]
fn a_python_skeleton_runs_from_an_empty_directory() {
    first_day("python", "python3", "peer.py");
}

#[test]
fn the_documents_are_inside_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let list = lawsuite(dir.path(), &["docs"]);
    assert!(list.status.success());
    assert!(text(&list).contains("PROTOCOL.md"), "{}", text(&list));
    let protocol = lawsuite(dir.path(), &["docs", "PROTOCOL.md"]);
    let shipped =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("peers/PROTOCOL.md")).unwrap();
    assert_eq!(protocol.stdout, shipped);
    let unknown = lawsuite(dir.path(), &["docs", "nope.md"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(text(&unknown).contains("`lawsuite docs` lists them"));
    let write = lawsuite(dir.path(), &["docs", "--write", "d"]);
    assert!(write.status.success(), "{}", text(&write));
    assert!(dir.path().join("d/schema/request.schema.json").is_file());
}

/// The README's Rust setup is the skeleton `init --lang rust` writes (and
/// `tests/downstream.rs` builds): the same test file, the same manifest
/// lines.
#[test]
fn the_readme_shows_the_rust_skeleton_as_it_is() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(repo.join("README.md")).unwrap();
    assert!(
        readme.contains(lawsuite::scaffold::RUST_CONFORMANCE),
        "the README's tests/conformance.rs differs from templates/rust/conformance.rs"
    );
    let manifest = std::fs::read_to_string(repo.join("templates/rust/Cargo.toml")).unwrap();
    for line in manifest
        .lines()
        .filter(|l| l.starts_with('['))
        .filter(|l| *l != "[package]")
    {
        assert!(readme.contains(line), "the README lacks {line:?}");
    }
    // The README's dependency line is one `init` can write.
    let line = readme
        .lines()
        .find(|l| l.starts_with("lawsuite = {"))
        .expect("the README shows the dependency line");
    let table: toml::Value = toml::from_str(line).unwrap();
    assert_eq!(
        table["lawsuite"]["default-features"].as_bool(),
        Some(false),
        "{line}"
    );
}

/// `init --lang rust` names a lawsuite that resolves where it runs: the
/// source the binary was built from (found above the binary, or, for a
/// copy elsewhere, where it was built, checked to hold this version), or
/// what `--lawsuite-path` / `--lawsuite-git` say; and it prints which.
#[test]
fn the_rust_skeleton_depends_on_a_lawsuite_that_resolves_and_says_which() {
    let repo = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).unwrap();
    let written = |dir: &Path, name: &str| {
        std::fs::read_to_string(dir.join(name).join("Cargo.toml")).unwrap()
    };
    let path_line =
        |dir: &Path| lawsuite::scaffold::Dependency::Path(dir.to_path_buf()).manifest_line();
    let work = tempfile::tempdir().unwrap();
    let init = lawsuite(work.path(), &["init", "--lang", "rust", "built"]);
    assert!(init.status.success(), "{}", text(&init));
    assert!(
        written(work.path(), "built").contains(&path_line(&repo)),
        "{}",
        written(work.path(), "built")
    );
    assert!(
        text(&init).contains(&format!(
            "lawsuite dependency: lawsuite's source at {}",
            repo.display()
        )),
        "{}",
        text(&init)
    );
    // A copy of the binary away from the source (as `cargo install` puts it).
    let bin = tempfile::tempdir().unwrap();
    let copy = bin.path().join("lawsuite");
    std::fs::copy(LAWSUITE, &copy).unwrap();
    let init = Command::new(&copy)
        .args(["init", "--lang", "rust", "copied"])
        .current_dir(work.path())
        .env_remove("CARGO_MANIFEST_DIR")
        .output()
        .unwrap();
    assert!(init.status.success(), "{}", text(&init));
    assert!(written(work.path(), "copied").contains(&path_line(&repo)));
    // The flags.
    let url = "https://example.org/lawsuite.git";
    let git = lawsuite(
        work.path(),
        &["init", "--lang", "rust", "--lawsuite-git", url, "git"],
    );
    assert!(git.status.success(), "{}", text(&git));
    assert!(
        written(work.path(), "git").contains(&format!(
            "lawsuite = {{ git = \"{url}\", default-features = false }}"
        )),
        "{}",
        written(work.path(), "git")
    );
    let repo_arg = repo.to_string_lossy().into_owned();
    let path = lawsuite(
        work.path(),
        &[
            "init",
            "--lang",
            "rust",
            "--lawsuite-path",
            &repo_arg,
            "path",
        ],
    );
    assert!(path.status.success(), "{}", text(&path));
    assert!(written(work.path(), "path").contains(&path_line(&repo)));
    // A directory that is not lawsuite's source is refused, and so is a
    // source flag without --lang rust; nothing is written either way.
    let other = work.path().join("built");
    let other_arg = other.to_string_lossy().into_owned();
    for args in [
        vec![
            "init",
            "--lang",
            "rust",
            "--lawsuite-path",
            &other_arg,
            "bad",
        ],
        vec!["init", "--lang", "python", "--lawsuite-git", url, "bad"],
    ] {
        let out = lawsuite(work.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains("lawsuite"), "{}", text(&out));
        assert!(!work.path().join("bad").exists(), "{args:?}");
    }
}

/// An installed binary whose source is gone (the checkout it was built from
/// moved or removed): `init --lang rust` finds no source of its version and
/// says to pass `--lawsuite-path DIR` or `--lawsuite-git URL`, writing
/// nothing. It wrote a crates.io dependency (`version = "0.1"`) on a crate
/// that is not published there (issue 49).
///
/// The binary records its source directory when it is built; a copy with
/// that path overwritten byte for byte by one of the same length that does
/// not exist is such a binary, without building another.
#[test]
fn without_its_source_the_rust_skeleton_asks_for_a_path_or_a_git_url() {
    let repo = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).unwrap();
    let recorded = repo.to_string_lossy().into_owned();
    // A same-length path whose last character differs from every real one.
    let gone = ["#", "%", "~"]
        .iter()
        .map(|c| format!("{}{c}", &recorded[..recorded.len() - 1]))
        .find(|p| !Path::new(p).exists())
        .expect("a path that does not exist");
    let binary = std::fs::read(LAWSUITE).unwrap();
    let needle = recorded.as_bytes();
    assert!(
        needle.len() > 8,
        "a checkout path this short could match other bytes: {recorded}"
    );
    let mut patched = Vec::with_capacity(binary.len());
    let mut rest = &binary[..];
    let mut found = 0;
    while let Some(at) = rest.windows(needle.len()).position(|w| w == needle) {
        patched.extend_from_slice(&rest[..at]);
        patched.extend_from_slice(gone.as_bytes());
        rest = &rest[at + needle.len()..];
        found += 1;
    }
    patched.extend_from_slice(rest);
    assert!(found > 0, "the binary records its source ({recorded})");
    let bin = tempfile::tempdir().unwrap();
    let copy = bin.path().join("lawsuite");
    std::fs::write(&copy, patched).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let work = tempfile::tempdir().unwrap();
    let init = |args: &[&str]| {
        Command::new(&copy)
            .args(args)
            .current_dir(work.path())
            .env_remove("CARGO_MANIFEST_DIR")
            .output()
            .unwrap()
    };
    let out = init(&["init", "--lang", "rust", "my-crate"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let said = text(&out);
    for part in [
        "no source of lawsuite",
        "not on crates.io",
        "--lawsuite-path DIR",
        "--lawsuite-git URL",
    ] {
        assert!(said.contains(part), "{said}");
    }
    assert!(!said.contains("version = "), "{said}");
    assert!(!work.path().join("my-crate").exists(), "nothing is written");
    // Given the source, the same binary writes the skeleton.
    let repo_arg = recorded.as_str();
    let out = init(&[
        "init",
        "--lang",
        "rust",
        "--lawsuite-path",
        repo_arg,
        "my-crate",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let manifest = std::fs::read_to_string(work.path().join("my-crate/Cargo.toml")).unwrap();
    assert!(
        manifest.contains(&lawsuite::scaffold::Dependency::Path(repo.clone()).manifest_line()),
        "{manifest}"
    );
}

/// Every schema of `peers/schema/` is among the documents `init` copies.
#[test]
fn every_schema_the_protocol_ships_is_copied() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("peers/schema");
    let shipped: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| format!("schema/{}", e.file_name().to_string_lossy()))
        .collect();
    for name in &shipped {
        assert!(
            lawsuite::scaffold::DOCS.iter().any(|(n, _)| n == name),
            "{name} is not copied"
        );
    }
    let copied = lawsuite::scaffold::DOCS
        .iter()
        .filter(|(n, _)| n.starts_with("schema/"))
        .count();
    assert_eq!(copied, shipped.len());
}
