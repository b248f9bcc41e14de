//! Edge trees for the walk and the scan (search-contract §7, §11), built
//! in fresh temporary directories and checked on every built-in peer.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use lawsuite::contract::{GlobInput, GrepInput};
use lawsuite::peer::Search;
use lawsuite::portable::Portable;
use lawsuite::ripgrep::Ripgrep;

fn peers() -> Vec<Box<dyn Search>> {
    let mut peers: Vec<Box<dyn Search>> = vec![
        Box::new(Portable::default()),
        Box::new(Portable::with_threads(1)),
    ];
    let rg =
        Ripgrep::with_options(lawsuite::testing::rg_options().expect("the LAWSUITE_RG* variables"));
    match rg.availability() {
        Ok(_) => peers.push(Box::new(rg)),
        Err(why) => {
            // Never green by skipping where the tool must be: CI installs rg.
            assert!(
                std::env::var_os("CI").is_none(),
                "rg is needed in CI: {why}"
            );
            eprintln!("note: the ripgrep peer is skipped: {why}")
        }
    }
    peers
}

fn root(dir: &Path) -> String {
    dir.to_str().unwrap().to_string()
}

#[test]
fn ten_megabyte_single_line_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut line = "x".repeat(10 * 1024 * 1024);
    line.push_str("needle");
    fs::write(dir.path().join("big.txt"), &line).unwrap();
    for peer in peers() {
        let out = peer
            .grep(&GrepInput::new("needle", root(dir.path())))
            .unwrap();
        assert_eq!(out.matches.len(), 1, "{}", peer.name());
        assert_eq!(
            out.matches[0].text.len(),
            500,
            "the preview is cut at 500 (§11.4)"
        );
    }
}

#[test]
fn empty_file_and_a_file_holding_only_a_newline() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("empty.txt"), "").unwrap();
    fs::write(dir.path().join("newline.txt"), "\n").unwrap();
    for peer in peers() {
        // The empty pattern matches every line: "" has none, "\n" has one (§11.3).
        let out = peer.grep(&GrepInput::new("", root(dir.path()))).unwrap();
        let hits: Vec<_> = out
            .matches
            .iter()
            .map(|m| {
                (
                    m.file.rsplit('/').next().unwrap().to_string(),
                    m.line,
                    m.text.clone(),
                )
            })
            .collect();
        assert_eq!(
            hits,
            [("newline.txt".to_string(), 1, String::new())],
            "{}",
            peer.name()
        );
        assert_eq!(out.files_searched, 2);
    }
}

#[test]
fn names_with_spaces_and_non_ascii() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "with space.txt",
        "café.txt",
        "日本.txt",
        "😀.txt",
        "-dash.txt",
    ] {
        fs::write(dir.path().join(name), "needle\n").unwrap();
    }
    for peer in peers() {
        let mut input = GrepInput::new("needle", root(dir.path()));
        input.files_with_matches = true;
        let files: Vec<String> = peer
            .grep(&input)
            .unwrap()
            .files
            .iter()
            .map(|f| f.rsplit('/').next().unwrap().to_string())
            .collect();
        // UTF-16 order (search-contract conventions).
        assert_eq!(
            files,
            [
                "-dash.txt",
                "café.txt",
                "with space.txt",
                "日本.txt",
                "😀.txt"
            ],
            "{}",
            peer.name()
        );
    }
}

#[test]
fn non_utf8_names_are_dropped_like_the_reference_does() {
    // Node decodes the name lossily and its stat then fails (walk.rs doc).
    let dir = tempfile::tempdir().unwrap();
    let bad = std::ffi::OsStr::from_bytes(b"bad\xffname.txt");
    fs::write(dir.path().join(bad), "needle\n").unwrap();
    fs::write(dir.path().join("good.txt"), "needle\n").unwrap();
    for peer in peers() {
        let out = peer
            .glob(&GlobInput::new("*.txt", root(dir.path())))
            .unwrap();
        assert_eq!(out.total, 1, "{}", peer.name());
    }
}

#[test]
fn invalid_utf8_and_crlf_lines() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), b"one\r\nneedle \xff\r\nthree\r\n").unwrap();
    for peer in peers() {
        let mut input = GrepInput::new("needle", root(dir.path()));
        input.before_context = 1;
        input.after_context = 1;
        let out = peer.grep(&input).unwrap();
        let m = &out.matches[0];
        assert_eq!(
            (m.line, m.text.as_str()),
            (2, "needle \u{FFFD}"),
            "{}",
            peer.name()
        );
        assert_eq!(m.before[0].text, "one");
        assert_eq!(m.after[0].text, "three");
    }
}

#[test]
fn unreadable_directory_is_skipped_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("listed.ts"), "needle\n").unwrap();
    let locked = dir.path().join("locked");
    fs::create_dir(&locked).unwrap();
    fs::write(locked.join("hidden.ts"), "needle\n").unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let enforced = fs::read_dir(&locked).is_err();
    for peer in peers() {
        let out = peer
            .glob(&GlobInput::new("**/*.ts", root(dir.path())))
            .unwrap();
        if enforced {
            assert_eq!(out.total, 1, "{}", peer.name());
        } else {
            // Running as root: mode 000 does not deny listing (kit §7.5 #25
            // applies only "if the OS enforces mode 000").
            assert_eq!(out.total, 2, "{}", peer.name());
        }
    }
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn dangling_links_and_loops_are_dropped() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("real.txt"), "needle\n").unwrap();
    std::os::unix::fs::symlink(dir.path().join("nowhere"), dir.path().join("dangling.txt"))
        .unwrap();
    std::os::unix::fs::symlink(dir.path().join("b"), dir.path().join("a")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("a"), dir.path().join("b")).unwrap();
    std::os::unix::fs::symlink(dir.path(), dir.path().join("self")).unwrap();
    for peer in peers() {
        let out = peer
            .grep(&GrepInput::new("needle", root(dir.path())))
            .unwrap();
        assert_eq!(out.files_searched, 1, "{}", peer.name());
        assert_eq!(out.matches.len(), 1);
    }
}

#[test]
fn every_skip_list_name_as_file_and_directory() {
    let dir = tempfile::tempdir().unwrap();
    for (i, name) in lawsuite::contract::skip::SKIP_LIST.iter().enumerate() {
        fs::create_dir_all(dir.path().join(format!("d{i}")).join(name)).unwrap();
        fs::write(
            dir.path()
                .join(format!("d{i}"))
                .join(name)
                .join("inside.txt"),
            "needle\n",
        )
        .unwrap();
        fs::create_dir_all(dir.path().join(format!("f{i}"))).unwrap();
        fs::write(dir.path().join(format!("f{i}")).join(name), "needle\n").unwrap();
    }
    fs::write(dir.path().join("kept.txt"), "needle\n").unwrap();
    for peer in peers() {
        let mut input = GrepInput::new("needle", root(dir.path()));
        input.hidden = true; // so only the skip list can drop them
        let out = peer.grep(&input).unwrap();
        assert_eq!(out.files_searched, 1, "{}", peer.name());
        // Named as the root, a skip-list directory walks normally (§7.1).
        let inner = GrepInput::new("needle", format!("{}/d12/node_modules", root(dir.path())));
        assert_eq!(
            peer.grep(&inner).unwrap().matches.len(),
            1,
            "{}",
            peer.name()
        );
    }
}
