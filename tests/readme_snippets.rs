//! Every code snippet of every README runs, as a user would paste it:
//!
//! * a project file (`[[peer]]`, `reference`) is loaded as `lawsuite.toml`
//!   and its registry built;
//! * a law (`[[law]]`) is run on the reference by the `lawsuite` binary;
//! * a crate manifest or an expected-failure list is read as TOML of its
//!   shape;
//! * the Python adapter's example peer is started by `lawsuite peers`
//!   from the project snippet beside it;
//! * the Node adapter's example is `adapters/node/test/fixture/std-peer.js`
//!   but for its header (that file is run by the adapter's tests, which
//!   resolve `lawsuite-peer` and `@smthrs/std` by name as a host does), and
//!   the glue count the READMEs quote is its line count.
//!
//! `sh` blocks are checked by `tests/docs_truth.rs` (every command and flag
//! exists), the Rust skeleton by `tests/init_cli.rs`, and the README's quick
//! starts are run as printed by `tests/readme_quick_starts.rs`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use lawsuite::project::Project;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

const READMES: &[&str] = &[
    "README.md",
    "adapters/node/README.md",
    "adapters/python/README.md",
    "benches/README.md",
    "laws/README.md",
    "peers/PROTOCOL.md",
];

/// The fenced blocks of `text` as `(language, body)`.
fn blocks(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in text.lines() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(lang)) => open = Some((lang.trim().to_string(), String::new())),
            (Some(_), Some(_)) => out.extend(open.take()),
            (Some((_, body)), None) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

fn snippets(readme: &str, lang: &str) -> Vec<String> {
    let text = std::fs::read_to_string(repo().join(readme)).unwrap();
    blocks(&text)
        .into_iter()
        .filter(|(l, _)| l == lang)
        .map(|(_, body)| body)
        .collect()
}

fn lawsuite(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lawsuite"))
        .args(args)
        .current_dir(dir)
        .env_remove("CARGO_MANIFEST_DIR")
        .output()
        .unwrap()
}

fn said(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn every_toml_snippet_is_what_it_shows() {
    let mut checked = BTreeMap::<&str, usize>::new();
    for readme in READMES {
        for body in snippets(readme, "toml") {
            let value: toml::Table = toml::from_str(&body)
                .unwrap_or_else(|e| panic!("{readme}: a TOML snippet does not parse: {e}\n{body}"));
            let dir = tempfile::tempdir().unwrap();
            let kind = if value.contains_key("law") {
                let laws = dir.path().join("laws");
                std::fs::create_dir(&laws).unwrap();
                std::fs::write(laws.join("snippet.toml"), &body).unwrap();
                let out = lawsuite(
                    dir.path(),
                    &[
                        "run",
                        "--law-dir",
                        &laws.to_string_lossy(),
                        "--no-shipped-laws",
                        "--no-seeds",
                        "--no-regressions",
                        "--peer",
                        "portable",
                    ],
                );
                assert!(
                    out.status.success(),
                    "{readme}: the law snippet does not pass on the reference:\n{body}\n{}",
                    said(&out)
                );
                "law"
            } else if value.contains_key("peer")
                || value.contains_key("reference")
                || value.contains_key("regressions")
            {
                let file = dir.path().join("lawsuite.toml");
                std::fs::write(&file, &body).unwrap();
                let project = Project::load(&file).unwrap_or_else(|e| {
                    panic!("{readme}: the project snippet is refused: {e}\n{body}")
                });
                project
                    .registry(&lawsuite::registry::PeerOptions::default())
                    .unwrap_or_else(|e| panic!("{readme}: its peers are refused: {e}\n{body}"));
                "project"
            } else if value.contains_key("dev-dependencies") {
                assert!(
                    value["dev-dependencies"].get("lawsuite").is_some(),
                    "{readme}: a manifest snippet without lawsuite:\n{body}"
                );
                "manifest"
            } else {
                // An expected-failure list: peer → law id → reason.
                let lists: BTreeMap<String, BTreeMap<String, String>> = toml::from_str(&body)
                    .unwrap_or_else(|e| {
                        panic!("{readme}: not a snippet lawsuite reads: {e}\n{body}")
                    });
                assert!(!lists.is_empty());
                "expected failures"
            };
            *checked.entry(kind).or_default() += 1;
        }
    }
    for kind in ["law", "project", "manifest", "expected failures"] {
        assert!(
            checked.get(kind) > Some(&0),
            "no {kind} snippet: {checked:?}"
        );
    }
}

#[test]
fn the_python_adapters_example_is_a_peer() {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(std::env::var_os("CI").is_none(), "CI must have python3");
        eprintln!("skipped: python3 is not on PATH");
        return;
    }
    let readme = "adapters/python/README.md";
    let [peer] = &snippets(readme, "python")[..] else {
        panic!("{readme} shows one Python peer");
    };
    let [project] = &snippets(readme, "toml")[..] else {
        panic!("{readme} shows one project file");
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("peer.py"), peer).unwrap();
    std::fs::write(dir.path().join("lawsuite.toml"), project).unwrap();
    // The adapter as `pip install ./adapters/python` would put it in reach.
    let out = Command::new(env!("CARGO_BIN_EXE_lawsuite"))
        .arg("peers")
        .current_dir(dir.path())
        .env("PYTHONPATH", repo().join("adapters/python"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", said(&out));
    assert!(said(&out).contains("my-peer"), "{}", said(&out));
}

/// The Node README's example as the fixture has it: without its file name.
fn node_example_as_the_fixture_has_it(snippet: &str) -> String {
    snippet.replacen("// peer.mjs\n", "", 1)
}

/// Lines a user writes: not blank.
fn written(text: &str) -> usize {
    text.lines().filter(|l| !l.trim().is_empty()).count()
}

#[test]
fn the_node_adapters_example_is_the_fixture_it_runs_and_its_count_is_true() {
    let readme = "adapters/node/README.md";
    let [js] = &snippets(readme, "js")[..] else {
        panic!("{readme} shows one JavaScript peer");
    };
    let fixture: PathBuf = repo().join("adapters/node/test/fixture/std-peer.js");
    let fixture = std::fs::read_to_string(fixture).unwrap();
    // The fixture's own header (two comment lines) says where it comes from.
    let body: String = fixture
        .lines()
        .skip_while(|l| l.starts_with("//"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(node_example_as_the_fixture_has_it(js), body);

    let [toml] = &snippets(readme, "toml")[..] else {
        panic!("{readme} shows one project file");
    };
    let toml_lines = toml
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .count();
    let claim = format!(
        "{} lines of JavaScript, comments and imports\nincluded, and {toml_lines} of `lawsuite.toml`",
        written(js)
    );
    let text = std::fs::read_to_string(repo().join(readme)).unwrap();
    assert!(text.contains(&claim), "{readme} should say: {claim}");
    let main = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let short = format!(
        "{} lines of JavaScript and {toml_lines} of `lawsuite.toml`",
        written(js)
    );
    assert!(main.contains(&short), "README.md should say: {short}");
}
