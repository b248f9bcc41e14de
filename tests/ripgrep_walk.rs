//! The walk oracle: `ripgrep-walk` (rg walks with its own `ignore` and
//! `globset`) against `portable` (the shared walk of search-contract §7–§9)
//! on trees built for one walk rule each.
//!
//! Every agreement test compares the two peers' whole answers. Every known
//! difference (`peers/expected/differences.toml`) names the tests that show
//! it, which assert that the peers still differ there;
//! [`every_expected_difference_names_tests_that_exist`] keeps the table and
//! the tests in step. Without `rg` the tests say so on stderr and pass.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use lawsuite::contract::{ErrorCode, GlobInput, GlobOutput, GrepInput, GrepOutput, StdError};
use lawsuite::kit::smthrs::{GLOB_PATTERNS, GREP_GLOBS, IGNORE_FIXTURE};
use lawsuite::peer::Search;
use lawsuite::portable::Portable;
use lawsuite::ripgrep::RipgrepWalk;
use serde::Serialize;

/// The two peers, or `None` (with a note) when no suitable `rg` exists.
fn peers() -> Option<(Portable, RipgrepWalk)> {
    let walk = RipgrepWalk::with_options(
        lawsuite::testing::rg_options().expect("the LAWSUITE_RG* variables"),
    );
    match walk.availability() {
        Ok(_) => Some((Portable::default(), walk)),
        Err(why) => {
            // Never green by skipping where the tool must be: CI installs rg.
            assert!(
                std::env::var_os("CI").is_none(),
                "rg is needed in CI: {why}"
            );
            eprintln!("note: ripgrep-walk is skipped: {why}");
            None
        }
    }
}

/// A fresh tree under a temp root (never the user's tree).
struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    fn new(files: &[(&str, &str)]) -> Tree {
        let tree = Tree {
            dir: tempfile::tempdir().unwrap(),
        };
        for (rel, content) in files {
            tree.write(rel, content);
        }
        tree
    }

    fn write(&self, rel: &str, content: &str) {
        let path = self.dir.path().join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }

    fn link(&self, target: &str, link: &str) {
        let path = self.dir.path().join(link);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, path).unwrap();
    }

    fn root(&self) -> String {
        self.dir.path().to_str().unwrap().to_string()
    }

    fn p(&self, rel: &str) -> String {
        format!("{}/{rel}", self.root())
    }
}

type Answer<T> = Result<T, StdError>;

fn pretty<T: Serialize>(answer: &Answer<T>) -> String {
    match answer {
        Ok(out) => serde_json::to_string_pretty(out).unwrap(),
        Err(err) => serde_json::to_string_pretty(err).unwrap(),
    }
}

/// Both peers' answers to one glob call.
fn globs(p: &Portable, w: &RipgrepWalk, input: &GlobInput) -> [Answer<GlobOutput>; 2] {
    [p.glob(input), w.glob(input)]
}

/// Both peers' answers to one grep call.
fn greps(p: &Portable, w: &RipgrepWalk, input: &GrepInput) -> [Answer<GrepOutput>; 2] {
    [p.grep(input), w.grep(input)]
}

/// Assert the peers agree, with a diff (STYLE: failures print a diff).
#[track_caller]
fn agree<T: Serialize + PartialEq>(what: &str, [portable, walk]: &[Answer<T>; 2]) {
    if portable != walk {
        let (a, b) = (pretty(portable), pretty(walk));
        panic!(
            "{what}: ripgrep-walk disagrees with portable (- portable, + ripgrep-walk):\n{}",
            similar::TextDiff::from_lines(&a, &b)
                .unified_diff()
                .context_radius(3)
        );
    }
}

fn glob_input(pattern: &str, root: &str, hidden: bool, no_ignore: bool) -> GlobInput {
    let mut input = GlobInput::new(pattern, root);
    input.hidden = hidden;
    input.no_ignore = no_ignore;
    input
}

/// Agreement of `glob` for every pattern under every hidden/noIgnore setting.
#[track_caller]
fn agree_on_globs(p: &Portable, w: &RipgrepWalk, root: &str, patterns: &[&str]) {
    for pattern in patterns {
        for (hidden, no_ignore) in [(false, false), (true, false), (false, true), (true, true)] {
            let input = glob_input(pattern, root, hidden, no_ignore);
            agree(
                &format!("glob {pattern:?} hidden={hidden} noIgnore={no_ignore}"),
                &globs(p, w, &input),
            );
        }
    }
}

/// The paths of a glob answer relative to `root`, for readable asserts.
fn listed(answer: &Answer<GlobOutput>, root: &str) -> BTreeSet<String> {
    let prefix = format!("{root}/");
    answer
        .as_ref()
        .unwrap()
        .paths
        .iter()
        .map(|p| p.strip_prefix(&prefix).unwrap_or(p).to_string())
        .collect()
}

/// The reason of the known difference `case` shows; panics when no entry
/// of `peers/expected/differences.toml` names the test.
fn expected(case: &str) -> &'static str {
    lawsuite::differences::by_test(case)
        .filter(|d| d.peers.iter().any(|p| p == "ripgrep-walk"))
        .unwrap_or_else(|| {
            panic!("no ripgrep-walk entry of differences.toml names the test {case}")
        })
        .reason
        .as_str()
}

/// Assert the peers really differ on a listed case.
#[track_caller]
fn differ<T: Serialize + PartialEq>(case: &str, answers: &[Answer<T>; 2]) {
    let reason = expected(case);
    assert!(
        answers[0] != answers[1],
        "{case}: ripgrep-walk now agrees with portable; remove the expected difference ({reason})"
    );
}

#[test]
fn every_expected_difference_names_tests_that_exist() {
    let sources = [
        include_str!("ripgrep_walk.rs"),
        include_str!("kit_cases.rs"),
    ];
    for d in &lawsuite::differences::table().differences {
        for test in &d.tests {
            let decl = format!("fn {test}(");
            assert!(
                sources.iter().any(|s| s.contains(&decl)),
                "difference {:?} names the test {test}, which is not in tests/ripgrep_walk.rs or tests/kit_cases.rs",
                d.id
            );
        }
    }
}

// ---------------------------------------------------------------- agreement

#[test]
fn nested_gitignore_scopes_negation_and_anchoring() {
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&[
        (
            ".gitignore",
            "*.tmp\n/top.txt\none/a.txt\na/**/b.txt\n**/gone.txt\ntree/**\n",
        ),
        ("top.txt", ""),
        ("sub/top.txt", ""),
        ("one/a.txt", ""),
        ("sub/one/a.txt", ""),
        ("a.tmp", ""),
        ("a/b.txt", ""),
        ("a/x/y/b.txt", ""),
        ("gone.txt", ""),
        ("sub/gone.txt", ""),
        ("tree/a", ""),
        ("tree/s/b", ""),
        // The nearest scope decides; a miss falls back to the parent scope.
        ("sub/.gitignore", "!keep.tmp\ncache/\n/anchored.txt\n"),
        ("sub/keep.tmp", ""),
        ("sub/other.tmp", ""),
        ("sub/cache/x.txt", ""),
        ("sub/deeper/cache", ""),
        ("sub/anchored.txt", ""),
        ("sub/deeper/anchored.txt", ""),
        // Rule order inside one file: the last match wins.
        (
            "order/.gitignore",
            "*.tmp\n!keep.tmp\nkeep.tmp\n!sub/keep.tmp\n",
        ),
        ("order/keep.tmp", ""),
        ("order/sub/keep.tmp", ""),
        ("order/sub/x.tmp", ""),
    ]);
    let root = t.root();
    agree_on_globs(&p, &w, &root, &["**", "*", "**/*.tmp", "!*.txt"]);
    let answer = w.glob(&glob_input("*", &root, false, false));
    assert_eq!(
        listed(&answer, &root),
        [
            "order/sub/keep.tmp",
            "sub/deeper/anchored.txt",
            "sub/deeper/cache",
            "sub/keep.tmp",
            "sub/one/a.txt",
            "sub/top.txt",
        ]
        .map(String::from)
        .into()
    );
}

#[test]
fn gitignore_grammar_rule_by_rule() {
    let Some((p, w)) = peers() else { return };
    // §9.2–§9.4 one rule file at a time, over names built to hit each rule.
    let rules = [
        "\\#literal\n\\!literal",
        "drop.txt   ",
        "space\\ ",
        "literal\\*.txt",
        "[ab]?.txt",
        "[!ab].txt",
        "[^a].txt",
        "[a-c].txt",
        "[literal",
        "[]a].txt",
        "?.tmp",
        "??.tmp",
        "end.txt",
        "\u{FEFF}drop.txt\r\n[z-a]\n{broken\nother.txt\r\n",
        "first.txt\ninvalid\\\nbad}.txt\nlast.txt",
        "x{,}y",
        "{a,}.c",
        "{a,{b,c}}.n",
        "{a,b}/c",
        "tab.txt\t",
        "sub",
        "/sub",
        "sub/",
        "**/sub/**",
        "sub/**/",
        "*/keep.tmp",
        "a?c",
        "**",
        "*",
        "!*",
        "*\n!*/",
        "***",
        "a***b",
        "TOP.TXT",
        "x\\y",
        "  lead.txt",
        "/",
        "\\",
    ];
    let files = [
        "#literal",
        "!literal",
        "drop.txt",
        "space ",
        "space",
        "literal*.txt",
        "literalx.txt",
        "a1.txt",
        "b2.txt",
        "c3.txt",
        "c.txt",
        "a.txt",
        "d.txt",
        "[literal",
        "].txt",
        "a.tmp",
        "é.tmp",
        "😀.tmp",
        "end.txt",
        "other.txt",
        "keep.txt",
        "first.txt",
        "last.txt",
        "bad}.txt",
        "xy",
        "a.c",
        ".c",
        "a.n",
        "b.n",
        "c.n",
        "b/c",
        "tab.txt",
        "sub/x.txt",
        "deep/sub/y.txt",
        "sub2/x",
        "other/keep.tmp",
        "abc",
        "a/c",
        "aXYZb",
        "top.txt",
        "xy2",
        "lead.txt",
        "  lead.txt",
    ];
    for rule in rules {
        let t = Tree::new(&[(".gitignore", rule)]);
        for f in files {
            t.write(f, "");
        }
        let root = t.root();
        for hidden in [false, true] {
            agree(
                &format!(".gitignore {rule:?} hidden={hidden}"),
                &globs(&p, &w, &glob_input("*", &root, hidden, false)),
            );
        }
    }
}

#[test]
fn directory_rules() {
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&[
        (".gitignore", "cache/\npruned/\n!pruned/keep.txt\n"),
        ("cache/x.txt", ""),
        ("sub/cache/y.txt", ""),
        ("file/cache", ""),
        ("pruned/keep.txt", ""),
        ("pruned/other.txt", ""),
        ("only/.gitignore", "*\n!sub/\n!sub/keep.txt\n"),
        ("only/a.txt", ""),
        ("only/sub/a.txt", ""),
        ("only/sub/keep.txt", ""),
        ("only/other/keep.txt", ""),
    ]);
    let root = t.root();
    agree_on_globs(&p, &w, &root, &["*", "**/*.txt", "cache", "**/cache"]);
    assert_eq!(
        listed(&w.glob(&glob_input("*", &root, false, false)), &root),
        ["file/cache", "only/sub/keep.txt"].map(String::from).into()
    );
}

#[test]
fn hidden_rule() {
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&[
        // Read whether or not hidden is set (§7.2 step 2).
        (".gitignore", "drop.ts\n!.env\n!.config/\n"),
        ("drop.ts", ""),
        ("a.ts", ""),
        (".secret.ts", ""),
        (".env", ""),
        (".config/c.ts", ""),
        ("sub/.hidden/h.ts", ""),
        ("sub/.h.ts", ""),
        ("sub/v.ts", ""),
    ]);
    let root = t.root();
    // A positive glob or a `!` rule re-admits hidden names in rg; the
    // contract's hidden rule comes first (bridged by the intersection).
    agree_on_globs(
        &p,
        &w,
        &root,
        &[
            "*.ts",
            "**",
            ".*",
            "**/.*",
            ".config/*",
            "*",
            "**/.hidden/*",
        ],
    );
    assert_eq!(
        listed(&w.glob(&glob_input("*", &root, false, false)), &root),
        ["a.ts", "sub/v.ts"].map(String::from).into()
    );
    // A hidden root walks normally (§7.1: the root is never tested).
    agree_on_globs(&p, &w, &t.p("sub/.hidden"), &["*"]);
}

#[test]
fn skip_list_at_depth() {
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&[("keep.py", "needle\n")]);
    for name in lawsuite::contract::skip::SKIP_LIST {
        t.write(&format!("a/b/{name}/inner.py"), "needle\n");
        t.write(&format!("c/{name}"), "needle\n");
        t.write(&format!("{name}/top.py"), "needle\n");
    }
    let root = t.root();
    // Positive globs must not re-admit skipped names (they come first).
    agree_on_globs(&p, &w, &root, &["*", "**", "**/*.py", "node_modules/**"]);
    assert_eq!(
        listed(&w.glob(&glob_input("**", &root, true, true)), &root),
        ["keep.py"].map(String::from).into()
    );
    // A skip-listed root walks normally.
    agree_on_globs(&p, &w, &t.p("node_modules"), &["*"]);
    agree_on_globs(&p, &w, &t.p(".git"), &["*"]);
    let mut input = GrepInput::new("needle", t.p("a/b/node_modules"));
    input.hidden = true;
    agree("grep in a skip-listed root", &greps(&p, &w, &input));
}

#[test]
fn symlinks_are_not_followed() {
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&[
        ("real/a.ts", "needle\n"),
        ("real/inner/b.ts", "needle\n"),
        ("target.ts", "needle\n"),
    ]);
    t.link("../target.ts", "links/file.ts");
    t.link("../real", "links/dir");
    t.link("missing.ts", "links/dangling.ts");
    t.link("cycle-b", "links/cycle-a");
    t.link("cycle-a", "links/cycle-b");
    t.link("/", "links/slash");
    std::process::Command::new("mkfifo")
        .arg(t.p("links/fifo.ts"))
        .status()
        .unwrap();
    let root = t.root();
    agree_on_globs(&p, &w, &root, &["*", "**/*.ts", "links/*"]);
    agree_on_globs(&p, &w, &t.p("links"), &["*"]);
    assert_eq!(
        listed(&w.glob(&glob_input("*", &root, false, false)), &root),
        ["real/a.ts", "real/inner/b.ts", "target.ts"]
            .map(String::from)
            .into()
    );
    let input = GrepInput::new("needle", t.p("links"));
    agree("grep over links", &greps(&p, &w, &input));
    // A symlinked root is walked and keeps its spelling (§6.4).
    agree_on_globs(&p, &w, &t.p("links/dir"), &["**/*.ts"]);
    // A symlinked file root is searched (§7.1 step 2).
    let input = GrepInput::new("needle", t.p("links/file.ts"));
    agree("grep a symlinked file root", &greps(&p, &w, &input));
}

#[test]
fn ignore_files_above_the_root_and_of_other_kinds_are_not_read() {
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&[
        (".gitignore", "*.txt\n"),
        ("root/a.txt", ""),
        ("root/.ignore", "b.txt\n"),
        ("root/.rgignore", "c.txt\n"),
        ("root/b.txt", ""),
        ("root/c.txt", ""),
        ("root/.git/info/exclude", "d.txt\n"),
        ("root/d.txt", ""),
    ]);
    let root = t.p("root");
    agree_on_globs(&p, &w, &root, &["*", "*.txt"]);
    assert_eq!(
        listed(&w.glob(&glob_input("*", &root, false, false)), &root),
        ["a.txt", "b.txt", "c.txt", "d.txt"]
            .map(String::from)
            .into()
    );
}

#[test]
fn nested_repository_does_not_stop_rules() {
    let Some((p, w)) = peers() else { return };
    // §9.1: applies across nested repositories (rg agrees only because of
    // `--no-require-git`).
    let t = Tree::new(&[
        (".gitignore", "*.tmp\n"),
        ("a.tmp", ""),
        ("sub/.git/HEAD", "ref: refs/heads/main\n"),
        ("sub/b.tmp", ""),
        ("sub/keep.txt", ""),
        (".git/HEAD", "ref: refs/heads/main\n"),
    ]);
    agree_on_globs(&p, &w, &t.root(), &["*"]);
    assert_eq!(
        listed(
            &w.glob(&glob_input("*", &t.root(), false, false)),
            &t.root()
        ),
        ["sub/keep.txt"].map(String::from).into()
    );
}

#[test]
fn kit_ignore_fixture_with_kit_globs() {
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&IGNORE_FIXTURE);
    t.write("plain.ts", "needle\n");
    t.write("one/two/alpha.ts", "needle\n");
    t.write("x.js", "needle\n");
    let root = t.root();
    agree_on_globs(&p, &w, &root, &GLOB_PATTERNS);
    for glob in GREP_GLOBS {
        for no_ignore in [false, true] {
            for pattern in ["needle", "definitely absent"] {
                let mut input = GrepInput::new(pattern, root.clone());
                input.globs = vec![glob.to_string()];
                input.no_ignore = no_ignore;
                agree(
                    &format!("grep {pattern:?} globs [{glob:?}] noIgnore={no_ignore}"),
                    &greps(&p, &w, &input),
                );
            }
        }
    }
}

#[test]
fn glob_shapes_agree() {
    let Some((p, w)) = peers() else { return };
    let files = [
        "a.ts",
        "b.js",
        "x/a.ts",
        "x/y/a.ts",
        "x/y/z/c.d.ts",
        "nested/a.ts",
        "src/nested/b.ts",
        "é.ts",
        "😀.ts",
        "ab.ts",
        "a b.ts",
        "{a}.ts",
        "a,b.ts",
        "tests/t.py",
        "src/tests/t.py",
        "dir",
        "dirx/dir",
        "one/two/three/f.txt",
        ".h/x.ts",
        ".hf.ts",
        "Up.TS",
        "a.ts.bak",
        "**weird",
        "a*b",
    ];
    let t = Tree::new(&[]);
    for f in files {
        t.write(f, "");
    }
    // Positive globs, and negative ones that name no directory of the tree.
    let patterns = [
        "*",
        "**",
        "*.ts",
        "**/*.ts",
        "?.ts",
        "??.ts",
        "x/*.ts",
        "x/**",
        "x/**/*.ts",
        "/a.ts",
        "a.ts",
        "**/a.ts",
        "nested/*",
        "nested/**",
        "{a,b}.ts",
        "{x,nested}/*.ts",
        "*.{ts,js}",
        "a**",
        "**a.ts",
        "a**b",
        "x/**/",
        "x/",
        "*/",
        "tests/*.py",
        "**/tests/*.py",
        "{a,}.ts",
        "{,a}.ts",
        "a.ts ",
        "/x/y/*",
        "x/y",
        "*.d.ts",
        "*/*",
        "one/**/f.txt",
        "one/**/three/**",
        "**/three/*",
        "*.TS",
        "./a.ts",
        "/x/./y/a.ts",
        "./x/y/a.ts",
        "x//a.ts",
        ".*",
        "**/.*",
        ".h/**",
        "a b.ts",
        "a,b.ts",
        "**weird",
        "a*b",
        "?",
        "!*.ts",
        "!**/*.ts",
        "!?.ts",
        "!a.ts",
        "!/a.ts",
        "!x/y/a.ts",
        "!**/a.ts",
        "!*.{ts,js}",
        "!./a.ts",
    ];
    agree_on_globs(&p, &w, &t.root(), &patterns);
    // Grep globs in combination: order decides (§8.4).
    for globs in [
        &["*.ts", "!**/*.d.ts"][..],
        &["!*.ts", "a.ts"],
        &["a.ts", "!*.ts"],
        &["x/**", "!**/c.d.ts", "**/z/*"],
    ] {
        let mut input = GrepInput::new("x", t.root());
        input.globs = globs.iter().map(|g| g.to_string()).collect();
        agree(&format!("grep globs {globs:?}"), &greps(&p, &w, &input));
    }
}

#[test]
fn grep_counts_binary_and_roots() {
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&[
        (".gitignore", "ignored.txt\n"),
        ("a.txt", "needle\nctx\nneedle\n"),
        ("bin/late.bin", "needle\n"),
        ("ignored.txt", "needle\n"),
        (".hidden.txt", "needle\n"),
    ]);
    fs::write(t.p("bin/late.bin"), b"needle\nmore\n\0needle\n").unwrap();
    let root = t.root();
    for (hidden, no_ignore, files_with_matches) in [
        (false, false, false),
        (true, true, false),
        (false, false, true),
    ] {
        let mut input = GrepInput::new("needle", root.clone());
        input.hidden = hidden;
        input.no_ignore = no_ignore;
        input.files_with_matches = files_with_matches;
        input.after_context = 1;
        input.max_count = Some(1);
        agree("grep with rg walking", &greps(&p, &w, &input));
    }
    let answer = w.grep(&GrepInput::new("needle", root.clone())).unwrap();
    assert_eq!(
        (answer.files_searched, answer.skipped_binary),
        (2, 1),
        "{answer:?}"
    );
    // Root handling (§7.1): trailing slash, explicit files, errors.
    agree(
        "trailing slash",
        &greps(&p, &w, &GrepInput::new("needle", format!("{root}/"))),
    );
    agree(
        "ignored file root",
        &greps(&p, &w, &GrepInput::new("needle", t.p("ignored.txt"))),
    );
    let [a, b] = greps(&p, &w, &GrepInput::new("needle", t.p("bin/late.bin")));
    assert_eq!(b.as_ref().unwrap_err().code, ErrorCode::BinaryFile);
    assert_eq!(a.unwrap_err().code, ErrorCode::BinaryFile);
    agree(
        "missing root",
        &greps(&p, &w, &GrepInput::new("needle", t.p("missing"))),
    );
    agree(
        "missing glob root",
        &globs(&p, &w, &GlobInput::new("*", t.p("missing"))),
    );
    agree(
        "file root of glob",
        &globs(&p, &w, &GlobInput::new("*.nothing", t.p("a.txt"))),
    );
}

#[test]
fn ignore_notice_where_inference_is_exact() {
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&[
        (".gitignore", "cache/\n*.log\n"),
        ("cache/x.txt", ""),
        ("a.ts", ""),
        ("sub/a.log", ""),
        ("sub/b.ts", ""),
    ]);
    for globs in [
        &[][..],
        &["*.ts"],
        &["*.log"],
        &["!missing/*"],
        &["missing/*.ts"],
    ] {
        for no_ignore in [false, true] {
            let mut input = GrepInput::new("definitely absent", t.root());
            input.globs = globs.iter().map(|g| g.to_string()).collect();
            input.no_ignore = no_ignore;
            agree(
                &format!("notice for globs {globs:?} noIgnore={no_ignore}"),
                &greps(&p, &w, &input),
            );
        }
    }
    agree_on_globs(&p, &w, &t.root(), &["*.log", "*.none", "cache/*"]);
}

// ------------------------------------------------------ expected differences

#[test]
fn negative_glob_prunes_directories() {
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&[
        ("nested/a.ts", ""),
        ("nested/sub/deep.ts", ""),
        ("x.d/inner.ts", ""),
    ]);
    let root = t.root();
    let answers = globs(&p, &w, &GlobInput::new("!nested", root.clone()));
    assert!(listed(&answers[0], &root).contains("nested/a.ts"));
    assert!(!listed(&answers[1], &root).contains("nested/a.ts"));
    differ("negative_glob_prunes_directories", &answers);
    let answers = globs(&p, &w, &GlobInput::new("!nested/*", root.clone()));
    assert!(listed(&answers[0], &root).contains("nested/sub/deep.ts"));
    assert!(!listed(&answers[1], &root).contains("nested/sub/deep.ts"));
    differ("negative_glob_prunes_directories", &answers);
    // A trailing `/`: rg matches the directory `nested` (found by the
    // `glob` family of `kit::exhaustive`).
    let answers = globs(&p, &w, &GlobInput::new("!nested/", root.clone()));
    assert!(listed(&answers[0], &root).contains("nested/a.ts"));
    assert!(!listed(&answers[1], &root).contains("nested/a.ts"));
    differ("negative_glob_prunes_directories", &answers);
}

#[test]
fn brace_alternatives_share_anchoring() {
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&[("b.ts", ""), ("x/b.ts", ""), ("nested/a.ts", "")]);
    let root = t.root();
    let answers = globs(&p, &w, &GlobInput::new("{nested/a.ts,b.ts}", root.clone()));
    assert!(listed(&answers[0], &root).contains("x/b.ts"));
    assert!(!listed(&answers[1], &root).contains("x/b.ts"));
    differ("brace_alternatives_share_anchoring", &answers);
}

#[test]
fn double_star_in_braces_is_one_segment() {
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&[("q/z.ts", ""), ("q/a/z.ts", ""), ("q/b/c/z.ts", "")]);
    let root = t.root();
    let answers = globs(&p, &w, &GlobInput::new("q/{**,a}/z.ts", root.clone()));
    assert!(listed(&answers[0], &root).contains("q/b/c/z.ts"));
    assert!(listed(&answers[0], &root).contains("q/z.ts"));
    assert!(!listed(&answers[1], &root).contains("q/b/c/z.ts"));
    assert!(listed(&answers[1], &root).contains("q/a/z.ts"));
    differ("double_star_in_braces_is_one_segment", &answers);
}

#[test]
fn empty_brace_alternative() {
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&[("x.ts", ""), ("xa.ts", ""), ("y.ts", "")]);
    let root = t.root();
    let answers = globs(&p, &w, &GlobInput::new("x{a,}.ts", root.clone()));
    assert!(listed(&answers[0], &root).contains("x.ts"));
    assert!(!listed(&answers[1], &root).contains("x.ts"));
    assert!(listed(&answers[1], &root).contains("xa.ts"));
    differ("empty_brace_alternative", &answers);
}

#[test]
fn double_star_matches_newline() {
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&[("a\nb", ""), ("plain", "")]);
    let answers = globs(&p, &w, &GlobInput::new("**", t.root()));
    assert!(!listed(&answers[0], &t.root()).contains("a\nb"));
    assert!(listed(&answers[1], &t.root()).contains("a\nb"));
    differ("double_star_matches_newline", &answers);
    let t = Tree::new(&[
        (".gitignore", "tree/**\n"),
        ("tree/b\nc", ""),
        ("tree/a", ""),
    ]);
    let answers = globs(&p, &w, &GlobInput::new("*", t.root()));
    assert!(listed(&answers[0], &t.root()).contains("tree/b\nc"));
    assert!(!listed(&answers[1], &t.root()).contains("tree/b\nc"));
    differ("double_star_matches_newline", &answers);
}

/// search-contract §9.2 trims a rule as JavaScript's `trimEnd`: U+FEFF
/// goes. rg's `ignore` trims with Rust's `trim_end`, which keeps it.
#[test]
fn gitignore_rule_keeps_a_trailing_zwnbsp() {
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&[
        (".gitignore", "drop.txt\u{FEFF}\n"),
        ("drop.txt", ""),
        ("drop.txt\u{FEFF}", ""),
        ("keep.txt", ""),
    ]);
    let answers = globs(&p, &w, &GlobInput::new("*", t.root()));
    let contract: BTreeSet<String> = ["drop.txt\u{FEFF}", "keep.txt"].map(String::from).into();
    let rg: BTreeSet<String> = ["drop.txt", "keep.txt"].map(String::from).into();
    assert_eq!(listed(&answers[0], &t.root()), contract);
    assert_eq!(listed(&answers[1], &t.root()), rg);
    differ("gitignore_rule_keeps_a_trailing_zwnbsp", &answers);
}

/// search-contract §9.2 trims a rule as JavaScript's `trimEnd`: U+0085
/// stays. rg's `ignore` trims with Rust's `trim_end`, which removes it.
#[test]
fn gitignore_rule_loses_a_trailing_nel() {
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&[
        (".gitignore", "drop.txt\u{85}\n"),
        ("drop.txt", ""),
        ("drop.txt\u{85}", ""),
        ("keep.txt", ""),
    ]);
    let answers = globs(&p, &w, &GlobInput::new("*", t.root()));
    let contract: BTreeSet<String> = ["drop.txt", "keep.txt"].map(String::from).into();
    let rg: BTreeSet<String> = ["drop.txt\u{85}", "keep.txt"].map(String::from).into();
    assert_eq!(listed(&answers[0], &t.root()), contract);
    assert_eq!(listed(&answers[1], &t.root()), rg);
    differ("gitignore_rule_loses_a_trailing_nel", &answers);
}

/// search-contract §9.2–§9.3: a rule whose pattern is empty once its
/// `!`, trailing `/` and `\` are stripped, or is `**/`, matches nothing.
/// rg's `ignore` makes either `**/`, which matches every path (found by
/// the `gitignore` family of `kit::exhaustive`).
#[test]
fn gitignore_empty_pattern_matches_every_path() {
    let Some((p, w)) = peers() else { return };
    let case = "gitignore_empty_pattern_matches_every_path";
    // `!` re-admits every entry to rg, nothing to the contract.
    for negation in ["!", "! "] {
        let rules = format!("*.log\n{negation}\n");
        let t = Tree::new(&[(".gitignore", rules.as_str()), ("a.log", ""), ("b.txt", "")]);
        let answers = globs(&p, &w, &GlobInput::new("**", t.root()));
        assert_eq!(
            listed(&answers[0], &t.root()),
            BTreeSet::from(["b.txt".into()])
        );
        assert!(
            listed(&answers[1], &t.root()).contains("a.log"),
            "{negation:?}"
        );
        differ(case, &answers);
    }
    // A directory rule of the empty pattern or of `**/` ignores every
    // directory to rg, none to the contract.
    for rule in ["\\/", "\\/ ", "**//", "**// ", "/**//", "**/\\/"] {
        let rules = format!("{rule}\n");
        let t = Tree::new(&[
            (".gitignore", rules.as_str()),
            ("d/f.txt", ""),
            ("g.txt", ""),
        ]);
        let answers = globs(&p, &w, &GlobInput::new("**", t.root()));
        assert!(
            listed(&answers[0], &t.root()).contains("d/f.txt"),
            "{rule:?}"
        );
        assert!(
            !listed(&answers[1], &t.root()).contains("d/f.txt"),
            "{rule:?}"
        );
        differ(case, &answers);
    }
    // Negated, it re-admits every directory to rg.
    for rule in ["!\\/", "!\\/ ", "!**//"] {
        let rules = format!("d/\n{rule}\n");
        let t = Tree::new(&[
            (".gitignore", rules.as_str()),
            ("d/f.txt", ""),
            ("g.txt", ""),
        ]);
        let answers = globs(&p, &w, &GlobInput::new("**", t.root()));
        assert!(
            !listed(&answers[0], &t.root()).contains("d/f.txt"),
            "{rule:?}"
        );
        assert!(
            listed(&answers[1], &t.root()).contains("d/f.txt"),
            "{rule:?}"
        );
        differ(case, &answers);
    }
}

#[test]
fn non_utf8_name_breaks_json() {
    use std::os::unix::ffi::OsStrExt;
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&[("ok.txt", "needle\n")]);
    let name = std::ffi::OsStr::from_bytes(b"bad\xffname.txt");
    fs::write(Path::new(&t.root()).join(name), "needle\n").unwrap();
    agree(
        "glob drops a non-UTF-8 name",
        &globs(&p, &w, &GlobInput::new("*", t.root())),
    );
    let answers = greps(&p, &w, &GrepInput::new("needle", t.root()));
    assert_eq!(
        answers[1].as_ref().unwrap_err().message,
        "rg returned malformed JSON"
    );
    differ("non_utf8_name_breaks_json", &answers);
}

#[test]
fn ignore_notice_misses_ignored_directory_without_files() {
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&[(".gitignore", "cache/\n"), ("a.ts", ""), ("cache/.h", "")]);
    fs::create_dir_all(t.p("empty-cache/cache")).unwrap();
    let answers = greps(&p, &w, &GrepInput::new("definitely absent", t.root()));
    assert!(answers[0].as_ref().unwrap().notice.is_some());
    assert!(answers[1].as_ref().unwrap().notice.is_none());
    differ(
        "ignore_notice_misses_ignored_directory_without_files",
        &answers,
    );
}

#[test]
fn ignore_notice_sees_directory_of_ignored_files() {
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&[(".gitignore", "*.log\n"), ("a.ts", ""), ("logs/a.log", "")]);
    let mut input = GrepInput::new("definitely absent", t.root());
    input.globs = vec!["*.ts".into()];
    let answers = greps(&p, &w, &input);
    assert!(answers[0].as_ref().unwrap().notice.is_none());
    assert!(answers[1].as_ref().unwrap().notice.is_some());
    differ("ignore_notice_sees_directory_of_ignored_files", &answers);
}

/// A glob past what one argument of `execve` may hold (128 KiB on Linux):
/// `rg` cannot be started with it, where the contract answers it (§8.1
/// has no size check).
#[test]
fn a_glob_past_the_argument_limit_cannot_reach_rg() {
    let Some((p, w)) = peers() else { return };
    let t = Tree::new(&[("a.ts", ""), ("d/a.ts", "")]);
    let root = t.root();
    let glob = format!("{}a.ts", "**/".repeat(87_382));
    let answers = globs(&p, &w, &GlobInput::new(glob, root.clone()));
    assert_eq!(listed(&answers[0], &root).len(), 2);
    let err = answers[1].as_ref().unwrap_err();
    assert_eq!(err.code.as_str(), "provider_unavailable", "{err:?}");
    differ("a_glob_past_the_argument_limit_cannot_reach_rg", &answers);
}

/// `ripgrep-walk` lists a tree once for the calls that ask about it as it
/// is (issue 47): the literal retry's second seam call lists nothing, a
/// call with other globs lists only what the globs change, and a changed
/// tree (a file added, a `.gitignore` edited) is listed again, so the
/// answers follow it. `rg` runs behind a wrapper that logs each run.
#[cfg(unix)]
#[test]
fn a_tree_is_listed_once_for_the_calls_on_it() {
    use lawsuite::contract::GrepRequest;
    use std::os::unix::fs::PermissionsExt;
    let Some((portable, walk)) = peers() else {
        return;
    };
    let rg = walk.availability().map(|_| ()).ok();
    assert!(rg.is_some());
    let program = lawsuite::testing::rg_options()
        .expect("the LAWSUITE_RG* variables")
        .get_program()
        .to_path_buf();
    let bin = tempfile::tempdir().unwrap();
    let log = bin.path().join("log");
    let wrapper = bin.path().join("rg");
    fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            program.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).unwrap();
    let logged = RipgrepWalk::with_options(
        lawsuite::testing::rg_options()
            .expect("the LAWSUITE_RG* variables")
            .program(&wrapper),
    );
    let runs = || -> Vec<String> {
        fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect()
    };
    let listings = |from: usize| {
        runs()[from..]
            .iter()
            .filter(|r| r.starts_with("--files"))
            .count()
    };
    let searches = |from: usize| {
        runs()[from..]
            .iter()
            .filter(|r| r.starts_with("--json"))
            .count()
    };

    let tree = Tree::new(&[
        ("a.txt", "f(x)\n"),
        ("sub/b.txt", "nothing\n"),
        (".gitignore", "*.log\n"),
    ]);
    let request = |pattern: &str, globs: &[&str]| {
        let mut r = GrepRequest::new(pattern);
        r.root = Some(tree.root());
        r.globs = Some(globs.iter().map(|g| g.to_string()).collect());
        r
    };
    let same = |r: &GrepRequest| {
        let expected = portable.flow_grep(r).unwrap();
        assert_eq!(logged.flow_grep(r).unwrap(), expected, "{r:?}");
    };
    // A regex that finds nothing, retried literally: two searches, one
    // set of listings for both seam calls (W and N: without globs, A is N).
    let _ = logged.availability();
    let from = runs().len();
    same(&request("f(x)", &[]));
    assert_eq!(
        (searches(from), listings(from)),
        (2, 2),
        "{:?}",
        &runs()[from..]
    );
    // The same tree with a glob: only A (the glob's admission) is listed.
    let from = runs().len();
    same(&request("f(x)", &["*.txt"]));
    assert_eq!(
        (searches(from), listings(from)),
        (2, 1),
        "{:?}",
        &runs()[from..]
    );
    // `noIgnore` without globs: W is N, kept from the first call.
    let mut unignored = request("f(x)", &[]);
    unignored.no_ignore = Some(true);
    let from = runs().len();
    same(&unignored);
    assert_eq!(listings(from), 0, "{:?}", &runs()[from..]);
    // A file added: the tree is listed again, and the answer has it.
    tree.write("sub/c.txt", "f(x) too\n");
    let from = runs().len();
    same(&request("f(x)", &["*.txt"]));
    assert_eq!(listings(from), 3, "{:?}", &runs()[from..]);
    // A `.gitignore` edited to the same length: listed again.
    tree.write(".gitignore", "*.txt\n");
    let from = runs().len();
    same(&request("f(x)", &["*.txt"]));
    assert_eq!(listings(from), 3, "{:?}", &runs()[from..]);
    // Another tree, which holds no `.gitignore`: nothing kept is used, and
    // W is N there (no ignore file to skip), so W and A are listed.
    let other = Tree::new(&[("a.txt", "f(x)\n"), (".hidden/b.txt", "f(x)\n")]);
    let mut elsewhere = request("f(x)", &["*.txt"]);
    elsewhere.root = Some(other.root());
    let from = runs().len();
    same(&elsewhere);
    assert_eq!(listings(from), 2, "{:?}", &runs()[from..]);
    // Without globs, one listing a call.
    let mut plain = request("f(x)", &[]);
    plain.root = Some(other.root());
    let from = runs().len();
    same(&plain);
    assert_eq!(listings(from), 0, "{:?}", &runs()[from..]);
    let third = Tree::new(&[("a.txt", "f(x)\n")]);
    plain.root = Some(third.root());
    let from = runs().len();
    same(&plain);
    assert_eq!(listings(from), 1, "{:?}", &runs()[from..]);
}
