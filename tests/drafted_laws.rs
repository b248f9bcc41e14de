//! `lawsuite as-law`: a kept regression becomes a law in the project's
//! law directory, whatever text the regression holds, and drafts made at
//! once are all kept.

use std::path::Path;
use std::process::{Command, Output};

use lawsuite::call::Call;
use lawsuite::contract::GlobInput;
use lawsuite::kit::plan::{FileKind, GeneratedFile};
use lawsuite::kit::regression::Regression;
use lawsuite::law::{Entry, load_dir};

fn as_law(dir: &Path, file: &Path, laws: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_lawsuite"))
        .current_dir(dir)
        .args([
            "as-law",
            file.to_str().unwrap(),
            "--dir",
            laws.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("lawsuite runs")
}

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn file(path: &str, content: &[u8]) -> GeneratedFile {
    GeneratedFile {
        path: path.into(),
        kind: FileKind::File,
        target: None,
        content: content.to_vec(),
        mode: None,
    }
}

/// A regression with a tree path holding a newline and both quote kinds,
/// a `why` with an escape sequence, and a peer name that tries to add a
/// law of its own.
fn hostile(seed: u64) -> Regression {
    Regression {
        why: "paths differ: \x1b[31mred\x1b[0m".into(),
        spec: None,
        generator: "lawsuite".into(),
        generator_version: 5,
        ground: Default::default(),
        seed,
        call_index: 0,
        mutations: Vec::new(),
        peers: vec![
            "portable".into(),
            "mine\n[[law]]\nname = \"injected\"".into(),
        ],
        root: "/r".into(),
        files: vec![
            file("line\nbreak 'single' \"double\".txt", b"needle\n"),
            file("plain.txt", b"x\n"),
        ],
        call: Call::Glob(GlobInput::new("*", "/r")),
        expected: serde_json::json!({
            "files": ["line\nbreak 'single' \"double\".txt", "plain.txt"],
            "truncated": false,
        }),
    }
}

/// The drafted file parses and holds exactly the one law, whose tree
/// paths and call are the regression's (the injection in the peer name
/// is a comment, the ESC is spelled, never written raw).
#[test]
fn a_hostile_regression_drafts_exactly_one_law() {
    let dir = tempfile::tempdir().unwrap();
    let regression = hostile(11);
    let kept = regression.write(dir.path(), "hostile").unwrap();
    let laws = dir.path().join("laws");
    let out = as_law(dir.path(), &kept, &laws).wait_with_output().unwrap();
    assert!(out.status.success(), "{}", said(&out));
    let text = std::fs::read_to_string(laws.join("glob/found.toml")).unwrap();
    assert!(!text.contains('\x1b'), "{text:?}");
    let (loaded, problems) = load_dir(&laws);
    assert!(problems.is_empty(), "{problems:?}\n{text}");
    assert_eq!(loaded.len(), 1, "{text}");
    let law = &loaded[0];
    assert_eq!(law.id, "glob::found::found-by-lawsuite-seed-11-call-0");
    let paths: Vec<&str> = law.law.tree.keys().map(String::as_str).collect();
    assert_eq!(paths, ["line\nbreak 'single' \"double\".txt", "plain.txt"]);
    assert!(
        matches!(&law.law.tree["line\nbreak 'single' \"double\".txt"], Entry::Text(t) if t == "needle\n")
    );
    assert_eq!(law.law.input["pattern"].as_str(), Some("*"));
    assert_eq!(law.law.input["root"].as_str(), Some("."));
    // Drafting it again is refused, the file unchanged.
    let again = as_law(dir.path(), &kept, &laws).wait_with_output().unwrap();
    assert_eq!(again.status.code(), Some(2), "{}", said(&again));
    assert!(said(&again).contains("drafted before"), "{}", said(&again));
    assert_eq!(
        std::fs::read_to_string(laws.join("glob/found.toml")).unwrap(),
        text
    );
}

/// A plain regression of `seed`.
fn plain(seed: u64) -> Regression {
    Regression {
        why: "paths differ".into(),
        spec: None,
        peers: vec!["portable".into(), "mine".into()],
        files: vec![file("a.txt", b"needle\n")],
        expected: serde_json::json!({ "files": ["a.txt"], "truncated": false }),
        ..hostile(seed)
    }
}

/// Eight `as-law` at once into one law file keep eight laws (with no
/// lock, three at once kept one of three).
#[test]
fn drafts_made_at_once_are_all_kept() {
    let dir = tempfile::tempdir().unwrap();
    let laws = dir.path().join("laws");
    let kept: Vec<_> = (0..8)
        .map(|seed| plain(seed).write(dir.path(), &format!("r{seed}")).unwrap())
        .collect();
    let children: Vec<_> = kept
        .iter()
        .map(|file| as_law(dir.path(), file, &laws))
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", said(&out));
    }
    let (loaded, problems) = load_dir(&laws);
    assert!(problems.is_empty(), "{problems:?}");
    let mut names: Vec<String> = loaded.iter().map(|l| l.law.name.clone()).collect();
    names.sort_unstable();
    let wanted: Vec<String> = (0..8)
        .map(|seed| format!("found-by-lawsuite-seed-{seed}-call-0"))
        .collect();
    assert_eq!(names, wanted, "drafts were lost");
    // Nothing but the law file is left beside it.
    let left: Vec<_> = std::fs::read_dir(laws.join("glob"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["found.toml"]);
}
