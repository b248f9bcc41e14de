//! The HTML report in a real browser: headless Chromium loads the page of
//! a run with a known failing peer, and the DOM it renders holds the matrix
//! with the counts the JSON lines results give (counted here, apart from
//! the renderer). A screenshot is kept at `report-screenshot.png` in cargo's
//! `CARGO_TARGET_TMPDIR` (`target/tmp/` unless `CARGO_TARGET_DIR` moves it).
//!
//! Needs Debian's `chromium` (`.ci/run` installs it); under `CI=true` a
//! missing browser fails the test instead of skipping it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const LAWSUITE: &str = env!("CARGO_BIN_EXE_lawsuite");

fn chromium() -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .map(PathBuf::from)
        .find(|p| {
            Command::new(p)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "chromium is needed in CI (.ci/run installs Debian's chromium)"
        );
        eprintln!("skipped: no chromium on PATH");
    }
    found
}

/// Run headless Chromium with the flags this machine needs (no sandbox as
/// root, no background networking on a closed network).
fn headless(browser: &Path, profile: &Path, args: &[&str]) -> std::process::Output {
    Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn chromium_renders_the_matrix_with_the_right_counts() {
    let Some(browser) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("no-crash");
    std::fs::write(&marker, "").unwrap();
    let proxy = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake_peers/proxy.py");
    std::fs::write(
        dir.path().join("lawsuite.toml"),
        format!(
            "reference = \"portable\"\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n[[peer]]\nname = \"wrong\"\ncommand = [\"python3\", \"{}\", \"{LAWSUITE}\", \"wrong\"]\nenv = {{ FAKE_MARKER = \"{}\" }}\n",
            proxy.display(),
            marker.display()
        ),
    )
    .unwrap();
    let html = dir.path().join("report.html");
    let out = Command::new(LAWSUITE)
        .args([
            "run",
            "--law",
            "glob::",
            "--seeds",
            "1..3",
            "--no-exhaustive",
            "--format",
            "jsonl",
            "--html",
        ])
        .arg(&html)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The expected matrix, counted from the JSON lines.
    let mut want: BTreeMap<(String, String), (usize, usize)> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["type"] != "outcome" {
            continue;
        }
        let row = v["spec"].as_str().map_or_else(
            || match v["kind"].as_str() {
                Some("seed") => "seeds".to_string(),
                Some("regression") => "regressions".to_string(),
                _ => "checks".to_string(),
            },
            str::to_string,
        );
        let peer = v["peer"].as_str().unwrap_or("the run").to_string();
        let cell = want.entry((row, peer)).or_default();
        match v["verdict"].as_str() {
            Some("pass") => cell.0 += 1,
            Some("fail" | "unexpected_pass" | "broken") => cell.1 += 1,
            _ => {}
        }
    }
    assert!(
        want.values().any(|c| c.1 > 0),
        "the wrong peer fails something"
    );
    let profile = dir.path().join("profile");
    let url = format!("file://{}", html.display());
    let started = std::time::Instant::now();
    let dom = headless(&browser, &profile, &["--dump-dom", &url]);
    eprintln!(
        "chromium loaded the report in {:.2} s",
        started.elapsed().as_secs_f64()
    );
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(
        dom.contains("id=\"matrix\""),
        "no matrix in the rendered DOM"
    );
    for ((row, peer), (pass, fail)) in &want {
        let cell = format!(
            "data-row=\"{row}\" data-peer=\"{peer}\" data-pass=\"{pass}\" data-fail=\"{fail}\""
        );
        assert!(dom.contains(&cell), "the rendered matrix lacks {cell}");
    }
    // Every failing cell links to a rendered detail section.
    let failing = want.values().filter(|c| c.1 > 0).count();
    assert_eq!(dom.matches("class=\"cell-detail\"").count(), failing);
    // A screenshot, to look at.
    // Cargo's scratch directory for integration tests, which exists wherever
    // the target directory is (`target/` of the checkout was missing when
    // CARGO_TARGET_DIR pointed elsewhere, and chromium could not write).
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-screenshot.png");
    let taken = headless(
        &browser,
        &profile,
        &[
            "--window-size=1400,2000",
            &format!("--screenshot={}", shot.display()),
            &url,
        ],
    );
    assert!(shot.is_file(), "{}", String::from_utf8_lossy(&taken.stderr));
}

/// The page of a run like issue 49's (a peer failing most laws it is
/// asked and most default seeds): under 1.5 MB. A failing seed wrote each
/// divergent call in full, its diff and its tree (2.5 MB for a Python
/// skeleton's first run, 5.9–8.4 MB for a TypeScript peer's); it now lists
/// them one line each with their kind of difference and writes the first in
/// full, and each tree once. The wrong peer is in-process
/// (`lawsuite::testing::Altered`): every glob lists its paths backwards and
/// one more, every grep adds a `!` to every match's text and counts one
/// file more, so every call diverges and a divergent answer's diff is as
/// long as the answer, as a wrong peer's often is.
#[test]
fn the_page_of_a_peer_failing_most_seeds_stays_under_1_5_mb() {
    use lawsuite::conformance::{Engine, Subject, Summary, Verdict};
    use lawsuite::kit::Generator;
    use lawsuite::peer::Ground;
    use lawsuite::portable::Portable;
    use lawsuite::testing::Altered;

    let wrong = Altered::new("wrong")
        .on_glob(|input, answer| {
            let mut answer = answer?;
            answer.paths.reverse();
            answer.paths.push(format!("{}/not-in-the-tree", input.root));
            Ok(answer)
        })
        .on_grep(|_, answer| {
            let mut answer = answer?;
            for m in &mut answer.matches {
                m.text.push('!');
            }
            answer.files_searched += 1;
            Ok(answer)
        });
    let mut engine = Engine::new(
        Subject::new("portable", Portable::default()),
        vec![Subject::new("wrong", wrong)],
    );
    let (laws, problems) =
        lawsuite::law::shipped_where(|id| id.starts_with("glob::") || id.starts_with("grep::"));
    engine.add_laws(laws, problems);
    for generator in [Generator::Smthrs, Generator::Lawsuite] {
        engine.add_seeds(generator, Ground::Shared, &generator.default_seeds(), None);
    }
    let outcomes: Vec<_> = engine
        .trials()
        .iter()
        .map(|trial| engine.run_trial(trial))
        .collect();
    let failing = |kind: &str| {
        outcomes
            .iter()
            .filter(|o| o.kind.name() == kind && matches!(o.verdict, Verdict::Fail { .. }))
            .count()
    };
    // As issue 49's run: 20 law failures and more, 73 seeds of 76 and more.
    assert!(failing("law") >= 20, "{} laws fail", failing("law"));
    assert!(failing("seed") >= 73, "{} seeds fail", failing("seed"));
    let summary = Summary::of(&outcomes, std::time::Duration::ZERO, Vec::new());
    let page = lawsuite::report::html(&lawsuite::report::RunInfo::default(), &outcomes, &summary);
    eprintln!(
        "{} laws and {} seeds fail: a page of {} bytes",
        failing("law"),
        failing("seed"),
        page.len()
    );
    assert!(page.len() < 1_500_000, "{} bytes", page.len());
    // Every tree a failure links to is on the page, once.
    for link in page.split("href=\"#tree-").skip(1) {
        let n = link.split('"').next().unwrap_or_default();
        assert_eq!(
            page.matches(&format!("id=\"tree-{n}\"")).count(),
            1,
            "tree {n}"
        );
    }
}
