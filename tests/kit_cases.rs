//! The hand-written cases of conformance-kit §7.1, §7.2 and §7.5, run
//! through the flow handlers against every built-in peer on a real tree in a
//! fresh temporary directory.
//!
//! One test body per case, parameterised over peers (STYLE: "differential
//! inside the tests too"). Where `rg` is missing the ripgrep peers say so on
//! stderr with the install command, and the cases run on `portable` alone.
//!
//! A peer may be listed as expected to differ on a case
//! ([`expected_to_differ`]); it must then really fail that case, so the list
//! cannot go stale.

use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use lawsuite::contract::{ErrorCode, GlobRequest, GrepRequest, StdError};
use lawsuite::peer::Search;
use lawsuite::portable::Portable;
use lawsuite::ripgrep::{Ripgrep, RipgrepWalk};
use serde_json::{Value, json};

fn peers() -> Vec<Box<dyn Search>> {
    let mut peers: Vec<Box<dyn Search>> = vec![Box::new(Portable::default())];
    let rg =
        Ripgrep::with_options(lawsuite::testing::rg_options().expect("the LAWSUITE_RG* variables"));
    match rg.availability() {
        Ok(_) => {
            peers.push(Box::new(rg));
            peers.push(Box::new(RipgrepWalk::with_options(
                lawsuite::testing::rg_options().expect("the LAWSUITE_RG* variables"),
            )));
        }
        Err(why) => {
            // Never green by skipping where the tool must be: CI installs rg.
            assert!(
                std::env::var_os("CI").is_none(),
                "rg is needed in CI: {why}"
            );
            eprintln!("note: the ripgrep peers are skipped: {why}")
        }
    }
    peers
}

/// Why `peer` is known to answer `case` differently, if it is: an entry of
/// `peers/expected/differences.toml` that names the case among its tests.
fn expected_to_differ(peer: &str, case: &str) -> Option<&'static str> {
    lawsuite::differences::by_test(case)
        .filter(|d| d.peers.iter().any(|p| p == peer))
        .map(|d| d.reason.as_str())
}

/// Run `case`'s body on every peer. A peer expected to differ on it is not
/// held to the body, but must fail it: an expected failure that passes
/// fails the test, naming the entry to remove.
fn on_peers(case: &str, body: impl Fn(&dyn Search)) {
    for peer in peers() {
        let peer = peer.as_ref();
        match expected_to_differ(peer.name(), case) {
            None => body(peer),
            Some(reason) => {
                let failed = catch_unwind(AssertUnwindSafe(|| body(peer))).is_err();
                assert!(
                    failed,
                    "peer {} agrees on {case}, but it is listed as an expected difference \
                     ({reason}); remove that entry",
                    peer.name()
                );
                eprintln!(
                    "note: {case}: peer {} differs as expected: {reason}",
                    peer.name()
                );
            }
        }
    }
}

/// The fixture tree of conformance-kit §7.5, under a fresh temp root.
struct Tree {
    _dir: tempfile::TempDir,
    t: String,
}

fn write(root: &Path, rel: &str, content: &[u8]) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

fn tree() -> Tree {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    let files: &[(&str, &[u8])] = &[
        ("src/a.ts", b"intro\nNeedle one\ncontext after\nneedle two\nend"),
        ("src/nested/b.ts", b"needle b\nmore"),
        ("src/nested/excluded.ts", b"needle excluded"),
        ("src/z.js", b"needle javascript"),
        ("src/.secret.ts", b"needle secret"),
        ("src/.git/objects/object.ts", b"needle git"),
        ("src/node_modules/pkg/index.ts", b"needle dependency"),
        ("src/.gitignore", b"nested/ignored.ts\n"),
        ("src/nested/ignored.ts", b"needle ignored\n"),
        ("edge/crlf.txt", b"foo\r\nbar\r\n"),
        ("edge/unicode.txt", "é\n😀\n".as_bytes()),
        ("edge/invalid-utf8.txt", b"needle \xff\n"),
        ("edge/binary/binary.bin", b"needle before\n\0needle after\n"),
        ("edge/binary/text.txt", b"needle text\n"),
        ("edge/dialect.txt", b"abc\na.c\nabbbc\n"),
        ("edge/symlink-target.txt", b"needle symlink target\n"),
        (
            "literal/metacharacters.txt",
            b"foo?\nfoo\nfo\na+b\nab\nx*y\nxy\n[z]\nz\n?\n",
        ),
        ("linked-target/a.ts", b"linked root\n"),
        ("max-count/one.txt", b"needle one\nneedle two\n"),
        ("max-count/two.txt", b"needle three\nneedle four\n"),
        ("weird-names/line\nbreak.txt", b""),
        ("weird-names/carriage\rreturn.txt", b""),
        ("weird-names/tab\tname.txt", b""),
        ("weird-names/éclair.txt", b""),
        ("weird-names/-leading.txt", b""),
        ("brace-ceiling/a0wm.ts", b""),
        ("globs/a.ts", b""),
        ("globs/nested/a.ts", b""),
        ("globs/nested/deeper/dd.ts", b""),
        ("globs/.hidden/h.ts", b""),
        ("globs/é.ts", b""),
        ("globs/😀.ts", b""),
        (
            "symbols/mod.py",
            b"class Widget:\n    def widen(self, value):\n        needle = value\n        return needle\n\n\ndef other():\n    pass\n",
        ),
        ("symbols/plain.txt", b"needle at top level\n"),
        ("budget/many.txt", b"one\nneedle a\nthree\nfour\nneedle b\nsix\n"),
        ("counted/one.txt", b"counted needle\n"),
        ("counted/two.txt", b"nothing here\n"),
        ("counted/three.txt", b"nothing here\n"),
        ("hostile/present.ts", b"needle hostile\n"),
    ];
    for (rel, content) in files {
        write(r, rel, content);
    }
    fs::write(r.join("edge/long.txt"), "x".repeat(600)).unwrap();
    symlink(
        &r.join("edge/symlink-target.txt"),
        &r.join("edge/symlink.txt"),
    );
    symlink(&r.join("linked-target"), &r.join("linked-root"));
    symlink(&r.join("hostile/present.ts"), &r.join("hostile/alias.ts"));
    symlink(
        &r.join("hostile/missing.ts"),
        &r.join("hostile/dangling.ts"),
    );
    symlink(&r.join("hostile/cycle-b"), &r.join("hostile/cycle-a"));
    symlink(&r.join("hostile/cycle-a"), &r.join("hostile/cycle-b"));
    Tree {
        t: r.to_str().unwrap().to_string(),
        _dir: dir,
    }
}

fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

impl Tree {
    fn p(&self, rel: &str) -> String {
        format!("{}/{rel}", self.t)
    }

    fn grep(&self, peer: &dyn Search, req: Value) -> Result<Value, StdError> {
        let req: GrepRequest = serde_json::from_value(req).unwrap();
        peer.flow_grep(&req)
            .map(|v| serde_json::to_value(v).unwrap())
    }

    fn glob(&self, peer: &dyn Search, req: Value) -> Result<Value, StdError> {
        let req: GlobRequest = serde_json::from_value(req).unwrap();
        peer.flow_glob(&req)
            .map(|v| serde_json::to_value(v).unwrap())
    }
}

/// Assert JSON equality with a readable diff and the peer's name.
#[track_caller]
fn same(peer: &dyn Search, actual: &Value, expected: &Value) {
    if actual != expected {
        let a = serde_json::to_string_pretty(actual).unwrap();
        let e = serde_json::to_string_pretty(expected).unwrap();
        let diff = similar::TextDiff::from_lines(&e, &a);
        panic!(
            "peer {} disagrees (- expected, + actual):\n{}",
            peer.name(),
            diff.unified_diff().context_radius(3)
        );
    }
}

fn lines(answer: &Value) -> Vec<u64> {
    answer["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["line"].as_u64().unwrap())
        .collect()
}

fn paths(answer: &Value) -> Vec<String> {
    let key = if answer.get("paths").is_some() {
        "paths"
    } else {
        "files"
    };
    answer[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn case_01_smart_case_globs_context_max_count() {
    let t = tree();
    on_peers("case_01_smart_case_globs_context_max_count", |peer| {
        let got = t
            .grep(peer, json!({"pattern":"needle","root":t.p("src"),"smartCase":true,"globs":["*.ts","!excluded.ts"],"context":1,"maxCount":1}))
            .unwrap();
        same(
            peer,
            &got,
            &json!({"matches":[
                {"file":t.p("src/a.ts"),"line":2,"text":"Needle one","before":[{"line":1,"text":"intro"}],"after":[{"line":3,"text":"context after"}]},
                {"file":t.p("src/nested/b.ts"),"line":1,"text":"needle b","before":[],"after":[{"line":2,"text":"more"}]}],
                "files":[],"filesSearched":2,"skippedBinary":0,"truncated":false}),
        );
    });
}

#[test]
fn case_02_ignore_case_files_with_matches() {
    let t = tree();
    on_peers("case_02_ignore_case_files_with_matches", |peer| {
        let got = t
            .grep(peer, json!({"pattern":"NEEDLE","root":t.p("src"),"ignoreCase":true,"globs":["*.ts","!excluded.ts"],"filesWithMatches":true}))
            .unwrap();
        assert_eq!(
            paths(&got),
            [t.p("src/a.ts"), t.p("src/nested/b.ts")],
            "{}",
            peer.name()
        );
        assert_eq!(got["matches"], json!([]));
    });
}

#[test]
fn case_03_dialect() {
    let t = tree();
    on_peers("case_03_dialect", |peer| {
        let root = t.p("edge/dialect.txt");
        let fixed = t
            .grep(
                peer,
                json!({"pattern":"a.c","root":root,"fixedStrings":true}),
            )
            .unwrap();
        assert_eq!(lines(&fixed), [2], "{}", peer.name());
        let re = t
            .grep(peer, json!({"pattern":"^(a.c|ab{3}c)$","root":root}))
            .unwrap();
        assert_eq!(lines(&re), [1, 2, 3], "{}", peer.name());
    });
}

#[test]
fn case_04_fixed_string_metacharacters() {
    // Drift 1: `?` and friends are literal under fixedStrings.
    let t = tree();
    let root = t.p("literal/metacharacters.txt");
    on_peers("case_04_fixed_string_metacharacters", |peer| {
        for (pattern, want) in [
            ("foo?", vec![1]),
            ("a+b", vec![4]),
            ("x*y", vec![6]),
            ("[z]", vec![8]),
            ("?", vec![1, 10]),
        ] {
            let got = t
                .grep(
                    peer,
                    json!({"pattern":pattern,"root":root,"fixedStrings":true}),
                )
                .unwrap();
            assert_eq!(lines(&got), want, "{} {pattern}", peer.name());
            assert_eq!(got["filesSearched"], 1);
            assert!(
                got["matches"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|m| m["before"] == json!([]) && m["after"] == json!([]))
            );
        }
    });
}

#[test]
fn case_05_line_endings_unicode_invalid_utf8() {
    let t = tree();
    on_peers("case_05_line_endings_unicode_invalid_utf8", |peer| {
        let got = t
            .grep(peer, json!({"pattern":"foo$","root":t.p("edge/crlf.txt")}))
            .unwrap();
        same(
            peer,
            &got["matches"],
            &json!([{"file":t.p("edge/crlf.txt"),"line":1,"text":"foo","before":[],"after":[]}]),
        );
        let got = t
            .grep(
                peer,
                json!({"pattern":"^.$","root":t.p("edge/unicode.txt")}),
            )
            .unwrap();
        let texts: Vec<_> = got["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["line"].as_u64().unwrap(),
                    m["text"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(
            texts,
            [(1, "é".to_string()), (2, "😀".to_string())],
            "{}",
            peer.name()
        );
        let got = t
            .grep(
                peer,
                json!({"pattern":"needle","root":t.p("edge/invalid-utf8.txt")}),
            )
            .unwrap();
        assert_eq!(
            got["matches"][0]["text"],
            "needle \u{FFFD}",
            "{}",
            peer.name()
        );
    });
}

#[test]
fn case_06_crlf_context_has_no_cr() {
    let t = tree();
    on_peers("case_06_crlf_context_has_no_cr", |peer| {
        let got = t
            .grep(
                peer,
                json!({"pattern":"bar","root":t.p("edge/crlf.txt"),"beforeContext":1}),
            )
            .unwrap();
        same(
            peer,
            &got["matches"],
            &json!([{"file":t.p("edge/crlf.txt"),"line":2,"text":"bar","before":[{"line":1,"text":"foo"}],"after":[]}]),
        );
    });
}

#[test]
fn case_07_binary() {
    let t = tree();
    on_peers("case_07_binary", |peer| {
        let got = t
            .grep(peer, json!({"pattern":"needle","root":t.p("edge/binary")}))
            .unwrap();
        assert_eq!(
            paths_of_matches(&got),
            [t.p("edge/binary/text.txt")],
            "{}",
            peer.name()
        );
        assert_eq!(
            (got["filesSearched"].as_u64(), got["skippedBinary"].as_u64()),
            (Some(2), Some(1))
        );
        let err = t
            .grep(
                peer,
                json!({"pattern":"absent","root":t.p("edge/binary/binary.bin")}),
            )
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::BinaryFile, "{}", peer.name());
    });
}

fn paths_of_matches(answer: &Value) -> Vec<String> {
    answer["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["file"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn case_08_long_lines_and_symlinked_files() {
    let t = tree();
    on_peers("case_08_long_lines_and_symlinked_files", |peer| {
        let got = t
            .grep(peer, json!({"pattern":"x","root":t.p("edge/long.txt")}))
            .unwrap();
        assert_eq!(got["matches"][0]["text"].as_str().unwrap().len(), 500);
        let got = t
            .grep(
                peer,
                json!({"pattern":"needle","root":t.p("edge"),"filesWithMatches":true}),
            )
            .unwrap();
        let files = paths(&got);
        assert!(
            files.contains(&t.p("edge/symlink-target.txt")),
            "{}",
            peer.name()
        );
        assert!(!files.contains(&t.p("edge/symlink.txt")), "{}", peer.name());
    });
}

#[test]
fn case_09_symlinked_root_keeps_link_spelling() {
    let t = tree();
    on_peers("case_09_symlinked_root_keeps_link_spelling", |peer| {
        let got = t
            .glob(peer, json!({"pattern":"*.ts","root":t.p("linked-root")}))
            .unwrap();
        assert_eq!(paths(&got), [t.p("linked-root/a.ts")], "{}", peer.name());
        let got = t
            .grep(
                peer,
                json!({"pattern":"linked root","root":t.p("linked-root"),"filesWithMatches":true}),
            )
            .unwrap();
        assert_eq!(paths(&got), [t.p("linked-root/a.ts")], "{}", peer.name());
    });
}

#[test]
fn case_10_11_limits() {
    let t = tree();
    on_peers("case_10_11_limits", |peer| {
        let got = t
            .grep(
                peer,
                json!({"pattern":"needle","root":t.p("src"),"globs":["*.ts"],"limit":1}),
            )
            .unwrap();
        assert_eq!(got["matches"].as_array().unwrap().len(), 1);
        assert_eq!(got["truncated"], true);
        assert_eq!(
            got["notice"],
            "Showing 1 of 3 matches; output was truncated.",
            "{}",
            peer.name()
        );
        let got = t
            .grep(
                peer,
                json!({"pattern":"needle","root":t.p("src"),"globs":["*.ts"],"limit":0}),
            )
            .unwrap();
        same(
            peer,
            &got,
            &json!({"matches":[],"files":[],"filesSearched":3,"skippedBinary":0,"truncated":true,"notice":"Showing 0 of 3 matches; output was truncated."}),
        );
        let got = t
            .glob(
                peer,
                json!({"pattern":"*.ts","root":t.p("globs"),"limit":0}),
            )
            .unwrap();
        same(
            peer,
            &got,
            &json!({"paths":[],"total":5,"truncated":true,"notice":"Showing 0 of 5 entries; output was truncated."}),
        );
    });
}

#[test]
fn case_12_max_count_files_with_matches() {
    let t = tree();
    on_peers("case_12_max_count_files_with_matches", |peer| {
        let got = t.grep(peer, json!({"pattern":"needle","root":t.p("max-count"),"maxCount":1,"filesWithMatches":true})).unwrap();
        assert_eq!(
            paths(&got),
            [t.p("max-count/one.txt"), t.p("max-count/two.txt")],
            "{}",
            peer.name()
        );
    });
}

#[test]
fn case_13_14_hidden_and_skip_list() {
    let t = tree();
    on_peers("case_13_14_hidden_and_skip_list", |peer| {
        let got = t
            .grep(
                peer,
                json!({"pattern":"needle","root":t.p("src"),"hidden":true,"filesWithMatches":true}),
            )
            .unwrap();
        let files = paths(&got);
        assert!(files.contains(&t.p("src/.secret.ts")), "{}", peer.name());
        assert!(
            !files.contains(&t.p("src/.git/objects/object.ts")),
            "{}",
            peer.name()
        );
        let got = t
            .grep(
                peer,
                json!({"pattern":"needle","root":t.p("src/.git"),"filesWithMatches":true}),
            )
            .unwrap();
        assert_eq!(
            paths(&got),
            [t.p("src/.git/objects/object.ts")],
            "{}",
            peer.name()
        );
        let got = t
            .glob(peer, json!({"pattern":"**/*.{ts,js}","root":t.p("src")}))
            .unwrap();
        assert_eq!(
            paths(&got),
            [
                t.p("src/a.ts"),
                t.p("src/nested/b.ts"),
                t.p("src/nested/excluded.ts"),
                t.p("src/z.js")
            ],
            "{}",
            peer.name()
        );
        let got = t
            .glob(
                peer,
                json!({"pattern":"**/*.ts","root":t.p("src"),"hidden":true}),
            )
            .unwrap();
        assert!(paths(&got).contains(&t.p("src/.secret.ts")));
        assert!(!paths(&got).iter().any(|p| p.contains("/.git/")));
        let got = t
            .glob(
                peer,
                json!({"pattern":"**/*.ts","root":t.p("src/node_modules")}),
            )
            .unwrap();
        assert_eq!(
            paths(&got),
            [t.p("src/node_modules/pkg/index.ts")],
            "{}",
            peer.name()
        );
    });
}

#[test]
fn case_15_weird_names() {
    let t = tree();
    on_peers("case_15_weird_names", |peer| {
        let got = t
            .glob(peer, json!({"pattern":"*.txt","root":t.p("weird-names")}))
            .unwrap();
        let want: Vec<String> = [
            "-leading.txt",
            "carriage\rreturn.txt",
            "line\nbreak.txt",
            "tab\tname.txt",
            "éclair.txt",
        ]
        .iter()
        .map(|n| t.p(&format!("weird-names/{n}")))
        .collect();
        same(
            peer,
            &got,
            &json!({"paths":want,"total":5,"truncated":false}),
        );
    });
}

#[test]
fn case_16_to_19_glob_shapes() {
    let t = tree();
    let alts: Vec<String> = (0..64).map(|i| format!("x{i}")).collect();
    let ceiling = format!(
        "{{a,b,c,d}}{{0,1,2,3}}{{w,{}}}{{m,n}}.ts",
        alts[..7].join(",")
    );
    on_peers("case_16_to_19_glob_shapes", |peer| {
        let g = |pattern: &str, root: &str| {
            paths(
                &t.glob(peer, json!({"pattern":pattern,"root":root}))
                    .unwrap(),
            )
        };
        assert_eq!(
            g(&ceiling, &t.p("brace-ceiling")),
            [t.p("brace-ceiling/a0wm.ts")],
            "{}",
            peer.name()
        );
        assert_eq!(g("/a.ts", &t.p("globs")), [t.p("globs/a.ts")]);
        assert_eq!(
            g("?.ts", &t.p("globs")),
            [t.p("globs/a.ts"), t.p("globs/nested/a.ts")]
        );
        assert_eq!(g("nested/*.ts", &t.p("globs")), [t.p("globs/nested/a.ts")]);
        assert_eq!(
            g("globs/nested/**/*.ts", &t.t),
            [t.p("globs/nested/a.ts"), t.p("globs/nested/deeper/dd.ts")]
        );
        assert_eq!(
            g("globs/**/dd.ts", &t.t),
            [t.p("globs/nested/deeper/dd.ts")]
        );
        assert_eq!(
            g("{globs,src}/nested/*.ts", &t.t),
            [
                t.p("globs/nested/a.ts"),
                t.p("src/nested/b.ts"),
                t.p("src/nested/excluded.ts")
            ]
        );
        let same_set = g("nested/a.ts", &t.p("globs"));
        for variant in ["/nested/a.ts", "./nested/a.ts", "nested/./a.ts"] {
            assert_eq!(g(variant, &t.p("globs")), same_set, "{variant}");
        }
        assert_eq!(
            g("a.ts", &t.p("globs")),
            [t.p("globs/a.ts"), t.p("globs/nested/a.ts")]
        );
    });
}

#[test]
fn case_20_unsatisfiable_globs() {
    let t = tree();
    let root = t.p("globs");
    on_peers("case_20_unsatisfiable_globs", |peer| {
        let g = |pattern: &str, root: &str, hidden: bool| {
            t.glob(peer, json!({"pattern":pattern,"root":root,"hidden":hidden}))
                .unwrap()
        };
        same(
            peer,
            &g("globs/**/*.rs", &t.t, false),
            &json!({"paths":[],"total":0,"truncated":false}),
        );
        same(
            peer,
            &g("{missing,nested}/*.rs", &root, false),
            &json!({"paths":[],"total":0,"truncated":false}),
        );
        let abs = format!("{root}/**/*.ts");
        assert_eq!(
            g(&abs, &root, false)["notice"],
            format!(
                "No file under {root} can match \"{abs}\": glob patterns are relative to the search root, so use \"**/*.ts\" instead."
            )
        );
        assert_eq!(
            g("missing/**/*.ts", &root, false)["notice"],
            format!(
                "No file under {root} can match \"missing/**/*.ts\": there is no missing directory there."
            )
        );
        assert_eq!(
            g("missing/file.txt", &root, false)["notice"],
            format!(
                "No file under {root} can match \"missing/file.txt\": there is no missing directory there."
            )
        );
        let src = t.p("src");
        assert_eq!(
            g("node_modules/**/*.ts", &src, false)["notice"],
            format!(
                "No file under {src} can match \"node_modules/**/*.ts\": node_modules is never descended into; name it as the search root to look inside it."
            )
        );
        assert_eq!(
            g(".hidden/*.ts", &root, false)["notice"],
            format!(
                "No file under {root} can match \".hidden/*.ts\": hidden paths are excluded unless hidden is true."
            )
        );
        assert_eq!(
            paths(&g(".hidden/*.ts", &root, true)),
            [t.p("globs/.hidden/h.ts")]
        );
    });
}

#[test]
fn case_21_grep_glob_notices() {
    let t = tree();
    let src = t.p("src");
    on_peers("case_21_grep_glob_notices", |peer| {
        let got = t.grep(peer, json!({"pattern":"needle","root":t.t,"globs":["src/nested/*.ts","!**/excluded.ts"],"filesWithMatches":true})).unwrap();
        assert_eq!(paths(&got), [t.p("src/nested/b.ts")], "{}", peer.name());
        let got = t
            .grep(
                peer,
                json!({"pattern":"needle","root":src,"globs":["missing/*.ts","gone/*.ts"]}),
            )
            .unwrap();
        assert_eq!(
            got["notice"],
            format!(
                "No file under {src} can match \"missing/*.ts\": there is no missing directory there. No file under {src} can match \"gone/*.ts\": there is no gone directory there."
            )
        );
        let got = t
            .grep(
                peer,
                json!({"pattern":"definitely absent","root":src,"globs":["*.ts"]}),
            )
            .unwrap();
        assert_eq!(
            got["notice"],
            "No results; ignore files excluded paths. Retry with noIgnore: true to include them.",
            "{}",
            peer.name()
        );
        let got = t
            .grep(
                peer,
                json!({"pattern":"definitely absent","root":src,"globs":["!missing/*"]}),
            )
            .unwrap();
        assert!(got["notice"].as_str().unwrap().contains("noIgnore: true"));
        let abs = format!("{src}/**/*.ts");
        let got = t
            .grep(peer, json!({"pattern":"needle","root":src,"globs":[abs]}))
            .unwrap();
        assert_eq!((&got["matches"], &got["files"]), (&json!([]), &json!([])));
        assert!(
            got["notice"]
                .as_str()
                .unwrap()
                .contains("so use \"**/*.ts\" instead")
        );
    });
}

#[test]
fn case_22_file_roots() {
    let t = tree();
    let a = t.p("src/a.ts");
    on_peers("case_22_file_roots", |peer| {
        for globs in [json!(["*.ts"]), json!(["missing/*.js"])] {
            let got = t.grep(peer, json!({"pattern":"needle","root":a,"globs":globs,"filesWithMatches":true,"ignoreCase":true})).unwrap();
            same(
                peer,
                &got,
                &json!({"matches":[],"files":[a],"filesSearched":1,"skippedBinary":0,"truncated":false}),
            );
        }
        let got = t
            .grep(peer, json!({"pattern":"definitely absent","root":a}))
            .unwrap();
        same(
            peer,
            &got,
            &json!({"matches":[],"files":[],"filesSearched":1,"skippedBinary":0,"truncated":false}),
        );
        assert_eq!(
            paths(&t.glob(peer, json!({"pattern":"*.js","root":a})).unwrap()),
            std::slice::from_ref(&a)
        );
        let alias = t.p("hostile/alias.ts");
        let got = t
            .grep(
                peer,
                json!({"pattern":"needle","root":alias,"filesWithMatches":true}),
            )
            .unwrap();
        assert_eq!(paths(&got), [alias], "{}", peer.name());
    });
}

#[test]
fn case_23_24_counting_and_hostile_links() {
    let t = tree();
    on_peers("case_23_24_counting_and_hostile_links", |peer| {
        let got = t
            .grep(peer, json!({"pattern":"counted","root":t.p("counted")}))
            .unwrap();
        assert_eq!(
            (got["filesSearched"].as_u64(), lines(&got)),
            (Some(3), vec![1]),
            "{}",
            peer.name()
        );
        let got = t
            .grep(peer, json!({"pattern":"absent","root":t.p("counted")}))
            .unwrap();
        same(
            peer,
            &got,
            &json!({"matches":[],"files":[],"filesSearched":3,"skippedBinary":0,"truncated":false}),
        );
        assert_eq!(
            paths(
                &t.glob(peer, json!({"pattern":"*.ts","root":t.p("hostile")}))
                    .unwrap()
            ),
            [t.p("hostile/present.ts")]
        );
        let got = t
            .grep(
                peer,
                json!({"pattern":"needle","root":t.p("hostile"),"filesWithMatches":true}),
            )
            .unwrap();
        assert_eq!(
            (paths(&got), got["filesSearched"].as_u64()),
            (vec![t.p("hostile/present.ts")], Some(1))
        );
    });
}

#[test]
fn case_26_trailing_spaces_and_refusals() {
    let t = tree();
    on_peers("case_26_trailing_spaces_and_refusals", |peer| {
        assert_eq!(
            paths(
                &t.glob(peer, json!({"pattern":"a.ts ","root":t.p("globs")}))
                    .unwrap()
            ),
            [t.p("globs/a.ts"), t.p("globs/nested/a.ts")]
        );
        assert_eq!(
            paths(
                &t.glob(
                    peer,
                    json!({"pattern":"/nested/a.ts  ","root":t.p("globs")})
                )
                .unwrap()
            ),
            [t.p("globs/nested/a.ts")]
        );
        let err = t
            .glob(peer, json!({"pattern":"  ","root":t.p("globs")}))
            .unwrap_err();
        assert_eq!(
            serde_json::to_value(&err).unwrap(),
            json!({"code":"invalid_pattern","message":"Unsupported ripgrep pattern \"  \": glob patterns must not be empty"})
        );
        let err = t
            .grep(peer, json!({"pattern":"needle","root":t.t,"maxCount":0}))
            .unwrap_err();
        assert_eq!(
            serde_json::to_value(&err).unwrap(),
            json!({"code":"invalid_input","message":"Invalid ripgrep options: --max-count must be at least 1"})
        );
    });
}

#[test]
fn case_27_boundary_hit_owns_its_context() {
    let t = tree();
    let f = t.p("budget/many.txt");
    on_peers("case_27_boundary_hit_owns_its_context", |peer| {
        let got = t
            .grep(
                peer,
                json!({"pattern":"needle","root":t.p("budget"),"context":2,"limit":1}),
            )
            .unwrap();
        same(
            peer,
            &got,
            &json!({"matches":[{"file":f,"line":2,"text":"needle a","before":[{"line":1,"text":"one"}],"after":[{"line":3,"text":"three"}]}],"files":[],"filesSearched":1,"skippedBinary":0,"truncated":true,"notice":"Showing 1 of 2 matches; output was truncated."}),
        );
        let got = t
            .grep(
                peer,
                json!({"pattern":"needle","root":t.p("budget"),"context":2}),
            )
            .unwrap();
        assert_eq!(lines(&got), [2, 5]);
        let ctx: Vec<u64> = got["matches"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| {
                m["before"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .chain(m["after"].as_array().unwrap())
            })
            .map(|c| c["line"].as_u64().unwrap())
            .collect();
        assert_eq!(ctx, [1, 3, 4, 6]);
    });
}

#[test]
fn case_28_29_symbols_and_literal_retry() {
    let t = tree();
    let root = t.p("symbols");
    on_peers("case_28_29_symbols_and_literal_retry", |peer| {
        let got = t
            .grep(
                peer,
                json!({"pattern":"needle","root":root,"globs":["*.py"]}),
            )
            .unwrap();
        assert_eq!(
            got["matches"][0]["symbol"],
            json!({"kind":"def","name":"widen","startLine":2,"endLine":4}),
            "{}",
            peer.name()
        );
        let got = t
            .grep(
                peer,
                json!({"pattern":"needle","root":root,"globs":["*.txt"]}),
            )
            .unwrap();
        assert!(got["matches"][0].get("symbol").is_none());
        let got = t
            .grep(
                peer,
                json!({"pattern":"needle","root":root,"globs":["*.py"],"symbols":false}),
            )
            .unwrap();
        assert!(got["matches"][0].get("symbol").is_none());
        let got = t
            .grep(
                peer,
                json!({"pattern":"widen(self, value)","root":root,"globs":["*.py"]}),
            )
            .unwrap();
        assert_eq!(lines(&got), [2]);
        assert_eq!(got["retriedAsLiteral"], true);
        assert!(
            got["notice"]
                .as_str()
                .unwrap()
                .contains("fixedStrings: true")
        );
        let got = t
            .grep(peer, json!({"pattern":"absent(x)","root":root}))
            .unwrap();
        assert_eq!(got["matches"], json!([]));
        assert!(got.get("retriedAsLiteral").is_none());
    });
}

#[test]
fn case_30_31_missing_root_and_rejections() {
    let t = tree();
    on_peers("case_30_31_missing_root_and_rejections", |peer| {
        let got = t
            .grep(
                peer,
                json!({"pattern":"definitely absent","root":t.p("src")}),
            )
            .unwrap();
        assert_eq!(
            (&got["matches"], &got["files"], &got["truncated"]),
            (&json!([]), &json!([]), &json!(false))
        );
        let err = t
            .grep(peer, json!({"pattern":"needle","root":t.p("missing")}))
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::NotFound);
        let err = t
            .grep(peer, json!({"pattern":"(?=needle)","root":t.t}))
            .unwrap_err();
        assert_eq!(
            err.message,
            "Unsupported ripgrep pattern \"(?=needle)\": special groups and lookaround are not supported"
        );
        assert_eq!(
            t.glob(peer, json!({"pattern":"!","root":t.t}))
                .unwrap_err()
                .code,
            ErrorCode::InvalidPattern
        );
        assert_eq!(
            t.grep(peer, json!({"pattern":"a{10000000}","root":t.t}))
                .unwrap_err()
                .code,
            ErrorCode::InvalidPattern
        );
    });
}

#[test]
fn case_33_backreference_fails_identically() {
    let t = tree();
    let mut answers = Vec::new();
    for peer in peers() {
        // Peer-level call, bypassing the flow layer.
        let input = lawsuite::contract::GrepInput::new("(a)\\1", t.t.clone());
        answers.push(peer.grep(&input).unwrap_err());
    }
    assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:?}");
    assert_eq!(answers[0].code, ErrorCode::InvalidPattern);
}

#[test]
fn drift_2_max_count_with_after_context() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "needle\nneedle\nneedle\n").unwrap();
    let root = dir.path().to_str().unwrap();
    on_peers("drift_2_max_count_with_after_context", |peer| {
        let req: GrepRequest = serde_json::from_value(
            json!({"pattern":"needle","root":root,"maxCount":2,"afterContext":1}),
        )
        .unwrap();
        let got = serde_json::to_value(peer.flow_grep(&req).unwrap()).unwrap();
        let f = format!("{root}/a.txt");
        same(
            peer,
            &got["matches"],
            &json!([
            {"file":f,"line":1,"text":"needle","before":[],"after":[]},
            {"file":f,"line":2,"text":"needle","before":[],"after":[{"line":3,"text":"needle"}]}]),
        );
    });
}

#[test]
fn drift_3_ignore_case_wins_over_smart_case() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "needle\n").unwrap();
    on_peers("drift_3_ignore_case_wins_over_smart_case", |peer| {
        let mut input = lawsuite::contract::GrepInput::new("Needle", dir.path().to_str().unwrap());
        input.ignore_case = true;
        input.smart_case = true;
        assert_eq!(
            peer.grep(&input).unwrap().matches.len(),
            1,
            "{}",
            peer.name()
        );
    });
}

#[test]
fn grep_test_7_1_repository_skip_list() {
    // conformance-kit §7.1 #6.
    let dir = tempfile::tempdir().unwrap();
    for rel in [
        "source.py",
        ".git/objects/object.py",
        ".jj/store/object.py",
        ".flows/engine.py",
        "node_modules/package.py",
        ".venv/site.py",
    ] {
        write(dir.path(), rel, b"needle\n");
    }
    let root = dir.path().to_str().unwrap();
    on_peers("grep_test_7_1_repository_skip_list", |peer| {
        for (root, want) in [
            (root.to_string(), format!("{root}/source.py")),
            (
                format!("{root}/.git"),
                format!("{root}/.git/objects/object.py"),
            ),
        ] {
            let req: GrepRequest = serde_json::from_value(
                json!({"pattern":"needle","root":root,"globs":["*.py"],"hidden":true}),
            )
            .unwrap();
            let got = peer.flow_grep(&req).unwrap();
            assert_eq!(
                got.matches
                    .iter()
                    .map(|m| m.file.clone())
                    .collect::<Vec<_>>(),
                [want],
                "{}",
                peer.name()
            );
            assert_eq!(got.files_searched, 1);
        }
    });
}
