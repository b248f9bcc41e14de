//! What the documents tell a user to type exists: every law id the README,
//! the docs, the protocol, the `init` templates and the project skeleton
//! name is a shipped law (or a prefix of some, as a `--law` filter); every
//! `lawsuite` command they show is a subcommand, with flags it takes; every
//! repository file they point at is there. A renamed law or flag then fails
//! here, not on a user's first day (the README's example expected failure
//! named no law for months).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The documents, with their paths.
fn documents() -> Vec<(PathBuf, String)> {
    let mut paths: Vec<PathBuf> = [
        "README.md",
        "peers/PROTOCOL.md",
        "adapters/node/README.md",
        "benches/README.md",
        "laws/README.md",
        "templates/node/peer.mjs",
        "templates/python/peer.py",
        "templates/rust/conformance.rs",
        "templates/rust/Cargo.toml",
    ]
    .iter()
    .map(|p| repo().join(p))
    .collect();
    for entry in std::fs::read_dir(repo().join("docs")).unwrap().flatten() {
        if entry.path().extension().is_some_and(|e| e == "md") {
            paths.push(entry.path());
        }
    }
    let mut out: Vec<(PathBuf, String)> = paths
        .into_iter()
        .map(|p| {
            let text =
                std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, text)
        })
        .collect();
    out.push((
        PathBuf::from("lawsuite init's lawsuite.toml"),
        lawsuite::project::SKELETON.to_string(),
    ));
    out
}

fn law_areas() -> BTreeSet<String> {
    std::fs::read_dir(repo().join("laws"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// Words like `grep::context::x` (optionally `law::…::peer`) in `text`.
fn law_mentions(text: &str, areas: &BTreeSet<String>) -> Vec<String> {
    let id_char =
        |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == ':' || c == '_';
    let mut out = Vec::new();
    for word in text.split(|c: char| !id_char(c) && c != '_') {
        if word.contains('_') {
            continue;
        }
        let word = word.trim_matches(':');
        let parts: Vec<&str> = word.split("::").collect();
        if parts.len() < 2 || parts.iter().any(|p| p.is_empty()) {
            continue;
        }
        let parts = match parts.first() {
            Some(&"law") => &parts[1..],
            _ => &parts[..],
        };
        if parts.len() >= 2 && areas.contains(parts[0]) {
            out.push(parts.iter().take(3).copied().collect::<Vec<_>>().join("::"));
        }
    }
    out
}

#[test]
fn every_law_id_the_documents_name_is_a_shipped_law() {
    let (laws, errors) = lawsuite::law::shipped();
    assert!(errors.is_empty());
    let ids: BTreeSet<String> = laws.into_iter().map(|l| l.id).collect();
    let areas = law_areas();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (path, text) in documents() {
        for id in law_mentions(&text, &areas) {
            checked += 1;
            let real = ids.contains(&id)
                || ids
                    .iter()
                    .any(|known| known.starts_with(&format!("{id}::")))
                || ids
                    .iter()
                    .any(|known| known.starts_with(&id) && id.split("::").count() < 3);
            if !real {
                wrong.push(format!("{}: {id}", path.display()));
            }
        }
    }
    assert!(checked > 10, "the documents name laws: {checked} found");
    assert!(
        wrong.is_empty(),
        "no shipped law has these ids:\n{}",
        wrong.join("\n")
    );
}

/// The code of a document: its fenced blocks' lines and its inline code
/// spans (in a template, the spans of its comments).
fn code(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if fenced {
            out.push(line.to_string());
        } else {
            out.extend(line.split('`').skip(1).step_by(2).map(str::to_string));
        }
    }
    out
}

/// `lawsuite SUB --flag …` in lines of code.
fn commands(lines: &[String]) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for line in lines {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("lawsuite ") {
            let before = rest[..at].chars().last();
            rest = &rest[at + "lawsuite ".len()..];
            // `cargo install lawsuite`, `lawsuite-peer.js`, prose "lawsuite is".
            if before.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '/' || c == '_') {
                continue;
            }
            let mut words = rest.split_whitespace();
            let Some(sub) = words.next() else { break };
            if !sub.chars().all(|c| c.is_ascii_lowercase()) {
                continue;
            }
            let flags = words
                .take_while(|w| !w.starts_with('#') && !matches!(*w, "|" | "&&" | ";" | ">"))
                .filter(|w| w.starts_with("--"))
                .map(|w| {
                    w.split(['=', '`', ')', ','])
                        .next()
                        .unwrap_or(w)
                        .to_string()
                })
                .collect();
            out.push((sub.to_string(), flags));
        }
    }
    out
}

#[test]
fn every_command_the_documents_show_exists_with_its_flags() {
    let help = |sub: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_lawsuite"))
            .args([sub, "--help"])
            .output()
            .unwrap();
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (path, text) in documents() {
        for (sub, flags) in commands(&code(&text)) {
            for flag in std::iter::once(String::new()).chain(flags) {
                if !seen.insert((sub.clone(), flag.clone())) {
                    continue;
                }
                checked += 1;
                match help(&sub) {
                    None => wrong.push(format!(
                        "{}: lawsuite {sub} is not a command",
                        path.display()
                    )),
                    Some(text) if !flag.is_empty() && !text.contains(&flag) => {
                        wrong.push(format!("{}: lawsuite {sub} has no {flag}", path.display()))
                    }
                    Some(_) => {}
                }
            }
        }
    }
    assert!(checked > 20, "the documents show commands: {checked} found");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_repository_file_the_documents_point_at_is_there() {
    let mut wrong = Vec::new();
    let mut checked = 0;
    let tops = [
        "peers/",
        "docs/",
        "adapters/",
        "benches/",
        "laws/",
        "templates/",
        "tests/",
        "src/",
        ".ci/",
    ];
    for (path, text) in documents() {
        // Templates and the skeleton name files of the user's project.
        if !path.starts_with(repo()) || path.starts_with(repo().join("templates")) {
            continue;
        }
        // Spans there are paths of example trees (`src/a.ts`), not ours.
        let examples = path.ends_with("docs/contract.md") || path.ends_with("laws/README.md");
        let dir = path.parent().unwrap_or(repo()).to_path_buf();
        // Markdown links, relative to the document.
        for link in text.split("](").skip(1) {
            let target = link.split([')', '#', ' ']).next().unwrap_or("");
            if target.is_empty()
                || target.contains("://")
                || target.starts_with('`')
                || target.starts_with("mailto:")
            {
                continue;
            }
            checked += 1;
            if !dir.join(target).exists() {
                wrong.push(format!("{}: link {target}", path.display()));
            }
        }
        // `peers/PROTOCOL.md`-like code spans, relative to the repository.
        for span in text.split('`').skip(1).step_by(2) {
            let span = span.trim_end_matches([',', '.', ':']);
            if examples
                || span.contains([' ', '*', '<', '{', '…'])
                || !tops.iter().any(|t| span.starts_with(t))
            {
                continue;
            }
            checked += 1;
            if !repo().join(span).exists() {
                wrong.push(format!("{}: `{span}`", path.display()));
            }
        }
    }
    assert!(
        checked > 10,
        "the documents point at files: {checked} found"
    );
    assert!(
        wrong.is_empty(),
        "these files are not in the repository:\n{}",
        wrong.join("\n")
    );
}

/// Every `cargo install` the documents tell a user to type is `--locked`:
/// without it cargo resolves the newest versions of every dependency, not
/// the ones the lock file was tested with (issue 49: the README's
/// `cargo install --path .`). A command wrapped over two lines of prose is
/// read whole.
#[test]
fn every_cargo_install_the_documents_show_is_locked() {
    let mut checked = 0;
    let mut unlocked = Vec::new();
    let mut paths: Vec<PathBuf> = vec![repo().join("adapters/python/README.md")];
    paths.extend([".ci/run", ".cargo/mutants.toml"].map(|p| repo().join(p)));
    let mut texts = documents();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        texts.push((path, text));
    }
    for (path, text) in texts {
        // Lines joined, so `cargo install ripgrep\n  --locked` is one command.
        let joined: String = text
            .lines()
            .map(|l| l.trim_start_matches([' ', '#', '/']))
            .collect::<Vec<_>>()
            .join(" ");
        for (at, _) in joined.match_indices("cargo install") {
            let rest = &joined[at..];
            let end = rest
                .find(['`', '#', ';', ')'])
                .into_iter()
                .chain(rest.find("  "))
                .chain(rest.find("&&"))
                .min()
                .unwrap_or(rest.len());
            let command = &rest[..end];
            // Prose about the command ("`cargo install` puts it …") names
            // no package and no path.
            if command.trim() == "cargo install" {
                continue;
            }
            checked += 1;
            if !command.split_whitespace().any(|w| w == "--locked") {
                unlocked.push(format!("{}: {command}", path.display()));
            }
        }
    }
    assert!(
        checked >= 3,
        "the documents install with cargo: {checked} found"
    );
    assert!(
        unlocked.is_empty(),
        "without --locked:\n{}",
        unlocked.join("\n")
    );
}

/// An installed user has the binary, not this repository: no `--help`
/// names a file of it (`serve --help` named peers/PROTOCOL.md, `bench
/// --help` benches/README.md); `lawsuite docs` is how to reach them.
#[test]
fn no_help_names_a_repository_path() {
    let top = Command::new(env!("CARGO_BIN_EXE_lawsuite"))
        .arg("--help")
        .output()
        .unwrap();
    let top = String::from_utf8_lossy(&top.stdout).into_owned();
    // The subcommands `--help` lists: the indented first words of its
    // groups (from "Run and judge:" to "Options:"), not its headings.
    let subcommands: Vec<String> = top
        .lines()
        .skip_while(|l| !l.starts_with("Run and judge:"))
        .take_while(|l| !l.starts_with("Options:"))
        .filter(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(subcommands.len() > 8, "{top}");
    let repository = [
        "peers/",
        "benches/",
        "adapters/",
        "fixtures/",
        "docs/",
        "templates/",
    ];
    for sub in std::iter::once(None).chain(subcommands.iter().map(Some)) {
        let mut command = Command::new(env!("CARGO_BIN_EXE_lawsuite"));
        command.args(sub).arg("--help");
        let help = String::from_utf8_lossy(&command.output().unwrap().stdout).into_owned();
        for path in repository {
            // `lawsuite/docs/` is the project's copy `init` writes.
            let named = help
                .match_indices(path)
                .any(|(at, _)| !help[..at].ends_with("lawsuite/"));
            assert!(
                !named,
                "`lawsuite {} --help` names {path}:\n{help}",
                sub.map_or("", |s| s.as_str())
            );
        }
    }
}

/// The figures of `docs/contract.md` are the shipped laws': the total, and
/// each section's count with its files (995 laws were claimed when there
/// were 1,047). `UPDATE_DOCS=1 cargo test --test docs_truth` rewrites them.
#[test]
fn the_contracts_law_counts_are_the_shipped_laws() {
    use std::collections::BTreeMap;

    let (laws, errors) = lawsuite::law::shipped();
    assert!(errors.is_empty(), "{errors:?}");
    // spec → file → count, files as `area/file.toml`.
    let mut by_spec: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for law in &laws {
        let mut parts = law.id.split("::");
        let (Some(area), Some(file)) = (parts.next(), parts.next()) else {
            panic!("law id {}", law.id);
        };
        *by_spec
            .entry(law.law.spec.clone())
            .or_default()
            .entry(format!("{area}/{file}.toml"))
            .or_default() += 1;
    }
    let line = |spec: &str, files: &BTreeMap<String, usize>| {
        let total: usize = files.values().sum();
        let list: Vec<String> = files
            .iter()
            .map(|(f, n)| format!("[`{f}`](../laws/{f}) ({n})"))
            .collect();
        format!("**Laws citing `{spec}`: {total}** — {}.", list.join(", "))
    };
    let path = repo().join("docs/contract.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut wrong = Vec::new();
    let mut out = String::new();
    for old in text.split_inclusive('\n') {
        let bare = old.trim_end_matches('\n');
        let new = if let Some(rest) = bare.strip_prefix("**Laws citing `") {
            let spec = rest.split('`').next().unwrap_or_default();
            match by_spec.remove(spec) {
                Some(files) => line(spec, &files),
                None => format!("**Laws citing `{spec}`: 0.**"),
            }
        } else if let Some(at) = bare.find("There are ") {
            let rest = &bare[at + "There are ".len()..];
            match rest.split_once(" laws in all") {
                Some((_, after)) => format!(
                    "{}There are {} laws in all{after}",
                    &bare[..at],
                    thousands(laws.len())
                ),
                None => bare.to_string(),
            }
        } else {
            bare.to_string()
        };
        if new != bare {
            wrong.push(format!("- {bare}\n+ {new}"));
        }
        out.push_str(&new);
        if old.ends_with('\n') {
            out.push('\n');
        }
    }
    let unlisted: Vec<&String> = by_spec.keys().collect();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, out).unwrap();
    } else {
        assert!(
            wrong.is_empty(),
            "docs/contract.md's figures are stale (UPDATE_DOCS=1 rewrites them):\n{}",
            wrong.join("\n")
        );
    }
    assert!(
        unlisted.is_empty(),
        "docs/contract.md has no \"Laws citing\" line for {unlisted:?}"
    );
}

/// `1047` as `1,047`, as the documents write figures.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A law's decision is what a failure says under `why:`: it explains in
/// the contract's words (its reasons NotFound, PermissionDenied and "any
/// other reason", an errno where one is meant), never in a host library's
/// (issue 49: a Node author's first failure said "@effect/platform-node
/// maps it to reason BadResource").
#[test]
fn law_decisions_explain_in_the_contracts_words() {
    let (laws, problems) = lawsuite::law::shipped();
    assert!(problems.is_empty(), "{problems:?}");
    assert!(laws.len() > 1000, "{} laws", laws.len());
    let host_words = [
        "@effect",
        "platform-node",
        "BadResource",
        "PlatformError",
        "SystemError",
    ];
    let mut found = Vec::new();
    for law in &laws {
        let decision = law.law.decision.as_deref().unwrap_or_default();
        for word in host_words {
            if decision.contains(word) {
                found.push(format!("{}: {word}", law.id));
            }
        }
    }
    assert!(
        found.is_empty(),
        "decisions in a host library's words: {found:#?}"
    );
}
