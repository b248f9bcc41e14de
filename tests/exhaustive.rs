//! The bounded-exhaustive families (`lawsuite::kit::exhaustive`) as a
//! user meets them: a peer wrong on one rare `.gitignore` shape passes
//! every law and the default seeds and fails an `exhaustive::` trial at
//! the default size; filters select the families' trials in both front
//! doors; sizes say what runs.

use std::path::Path;
use std::process::Command;

use lawsuite::conformance::config::Config;
use lawsuite::conformance::peers::PeerSet;
use lawsuite::conformance::{Kind, Outcome, RunOptions, Subject, Verdict};
use lawsuite::contract::{GlobInput, GlobOutput, StdError};
use lawsuite::portable::Portable;
use lawsuite::suite::Suite;
use lawsuite::testing::Altered;

const LAWSUITE: &str = env!("CARGO_BIN_EXE_lawsuite");

/// Every `.gitignore` under `dir`, relative to `root` (`""` for the root's
/// own), with its text.
fn gitignores(root: &Path, dir: &str, out: &mut Vec<(String, String)>) {
    let here = if dir.is_empty() {
        root.to_path_buf()
    } else {
        root.join(dir)
    };
    let Ok(entries) = std::fs::read_dir(&here) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = if dir.is_empty() {
            name.clone()
        } else {
            format!("{dir}/{name}")
        };
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            gitignores(root, &path, out);
        } else if name == ".gitignore" {
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            out.push((dir.to_string(), text));
        }
    }
}

/// git's reading of a rule `P**/S` with literal `P` and `S` (what git's
/// wildmatch does, checked with git 2.47: `foo**/bar` ignores `foo/x/bar`
/// and the directory `foobar`): `P`, then anything ending in `/` or
/// nothing, then `S`. `None` for any other rule.
fn git_reading(rule: &str) -> Option<(String, String)> {
    let rule = rule.trim_end_matches(' ');
    if rule.starts_with(['!', '#']) {
        return None;
    }
    let rule = rule.strip_prefix('/').unwrap_or(rule);
    let (p, s) = rule.split_once("**/")?;
    let literal = |t: &str| !t.is_empty() && !t.contains(['*', '?', '[', ']', '\\', '/', '{']);
    (literal(p) && literal(s)).then(|| (p.to_string(), s.to_string()))
}

/// Whether git's reading `(p, s)` matches `path` or one of its ancestors
/// (an ignored directory hides what is below it).
fn git_ignores(p: &str, s: &str, path: &str) -> bool {
    let mut ends: Vec<usize> = path.match_indices('/').map(|(i, _)| i).collect();
    ends.push(path.len());
    ends.into_iter().any(|end| {
        let q = &path[..end];
        q.len() >= p.len() + s.len() && q.starts_with(p) && q.ends_with(s) && {
            let middle = &q[p.len()..q.len() - s.len()];
            middle.is_empty() || middle.ends_with('/')
        }
    })
}

/// `portable`, but reading a `.gitignore` rule `P**/S` as git does: wrong
/// on that one shape only, which no shipped law or default seed holds.
fn git_reading_peer() -> Altered {
    Altered::new("git-reading").on_glob(
        |input: &GlobInput, answer: Result<GlobOutput, StdError>| {
            let mut answer = answer?;
            if input.no_ignore {
                return Ok(answer);
            }
            let root = Path::new(&input.root);
            let mut files = Vec::new();
            gitignores(root, "", &mut files);
            let readings: Vec<(String, String, String)> = files
                .into_iter()
                .flat_map(|(dir, text)| {
                    text.lines()
                        .filter_map(git_reading)
                        .map(|(p, s)| (dir.clone(), p, s))
                        .collect::<Vec<_>>()
                })
                .collect();
            if readings.is_empty() {
                return Ok(answer);
            }
            let prefix = format!("{}/", input.root.trim_end_matches('/'));
            answer.paths.retain(|path| {
                let relative = path.strip_prefix(&prefix).unwrap_or(path);
                !readings.iter().any(|(dir, p, s)| {
                    let below = if dir.is_empty() {
                        Some(relative)
                    } else {
                        relative
                            .strip_prefix(dir.as_str())
                            .and_then(|r| r.strip_prefix('/'))
                    };
                    below.is_some_and(|b| git_ignores(p, s, b))
                })
            });
            answer.total = answer.paths.len() as u64;
            Ok(answer)
        },
    )
}

#[test]
fn git_s_reading_matches_what_git_does() {
    assert_eq!(git_reading("foo**/bar"), Some(("foo".into(), "bar".into())));
    assert_eq!(git_reading("**/bar"), None);
    assert_eq!(git_reading("!a**/a"), None);
    assert!(git_ignores("foo", "bar", "foo/x/bar"));
    assert!(git_ignores("foo", "bar", "foobar/y"));
    assert!(git_ignores("foo", "bar", "fooX/bar"));
    assert!(!git_ignores("foo", "bar", "bar/foo"));
}

/// The issue's own case: a peer wrong only where git reads `a**/a` passes
/// every default seed and every shipped law but the one written for that
/// shape (`foo**/bar`, §9.3, added when git became a peer), and fails
/// `exhaustive::gitignore::4` in a default run (no size given, no
/// `--exhaustive`), with that rule in the report. Before the families
/// and that law, nothing lawsuite ran caught it; before the families ran
/// by default, only a run that asked for them did.
#[test]
fn a_peer_wrong_on_one_rare_gitignore_shape_fails_the_gitignore_family_of_a_default_run() {
    let config = Config::builder()
        .regressions(None)
        .judge_reference(false)
        .build()
        .unwrap_or_else(|e| panic!("{e:?}"));
    let peers = PeerSet::new(
        Subject::new("portable", Portable::default()),
        vec![Subject::new("git-reading", git_reading_peer())],
    );
    let engine = config
        .engine(peers, None)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let trials = engine.trials();
    let outcomes: Vec<Outcome> = engine.run(
        &trials,
        RunOptions {
            jobs: 4,
            fail_fast: false,
        },
        |_| {},
    );
    let failed: Vec<&Outcome> = outcomes.iter().filter(|o| o.verdict.is_failure()).collect();
    let mut ids: Vec<&str> = failed.iter().map(|o| o.id.as_str()).collect();
    ids.sort_unstable();
    // The law for `foo**/bar` (§9.3) was written once the family had
    // shown the shape; the family finds it without it.
    assert_eq!(
        ids,
        [
            "exhaustive::gitignore::4::git-reading",
            "law::gitignore::git-differences::double-star-after-a-name-is-two-ordinary-stars::git-reading",
        ],
        "{failed:#?}"
    );
    let laws = outcomes.iter().filter(|o| o.kind == Kind::Law).count();
    let seeds = outcomes.iter().filter(|o| o.kind == Kind::Seed).count();
    assert!(laws > 1000 && seeds == 76, "{laws} laws, {seeds} seeds");
    let family = failed
        .iter()
        .find(|o| o.kind == Kind::Exhaustive)
        .expect("the family's trial failed");
    let Verdict::Fail { report } = &family.verdict else {
        unreachable!("a failure")
    };
    let shown = serde_json::to_string(report).unwrap_or_default();
    assert!(shown.contains("a**/a"), "{}", report.summary);
    // The other families pass.
    for id in [
        "exhaustive::glob::3::git-reading",
        "exhaustive::pattern::3::git-reading",
    ] {
        let o = outcomes.iter().find(|o| o.id == id);
        assert_eq!(o.map(|o| &o.verdict), Some(&Verdict::Pass), "{id}");
    }
}

/// `--exhaustive-size` and a filter choose the families' trials in `lawsuite
/// run`, as `LAWSUITE_EXHAUSTIVE_SIZE` does (on `model`, which runs
/// wherever lawsuite does: no `rg` needed).
#[test]
fn the_run_front_door_selects_families_by_filter_and_size() {
    let dir = tempfile::tempdir().unwrap();
    let list = |args: &[&str], env: Option<&str>| -> Vec<String> {
        let mut command = Command::new(LAWSUITE);
        command
            .args(["run", "--list", "--peer", "portable", "--no-laws"])
            .args(args)
            .current_dir(dir.path())
            .env_remove("LAWSUITE_EXHAUSTIVE_SIZE");
        if let Some(size) = env {
            command.env("LAWSUITE_EXHAUSTIVE_SIZE", size);
        }
        let out = command.output().unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.starts_with("exhaustive::"))
            .map(str::to_string)
            .collect()
    };
    // On by default, each family at its default size on `model` (which
    // starts no process per call).
    let plain = Command::new(LAWSUITE)
        .args([
            "run",
            "--list",
            "--peer",
            "model",
            "--no-laws",
            "exhaustive::",
        ])
        .current_dir(dir.path())
        .env_remove("LAWSUITE_EXHAUSTIVE_SIZE")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&plain.stdout)
            .lines()
            .filter(|l| l.starts_with("exhaustive::"))
            .collect::<Vec<_>>(),
        [
            "exhaustive::glob::3::model",
            "exhaustive::gitignore::4::model",
            "exhaustive::pattern::3::model"
        ],
        "the families run by default"
    );
    // `--no-exhaustive` runs none.
    let off = Command::new(LAWSUITE)
        .args([
            "run",
            "--list",
            "--peer",
            "model",
            "--no-laws",
            "--no-exhaustive",
            "exhaustive::",
        ])
        .current_dir(dir.path())
        .env_remove("LAWSUITE_EXHAUSTIVE_SIZE")
        .output()
        .unwrap();
    assert!(off.status.success());
    assert!(
        !String::from_utf8_lossy(&off.stdout).contains("exhaustive::"),
        "--no-exhaustive runs none"
    );
    let mine = Command::new(LAWSUITE)
        .args([
            "run",
            "--list",
            "--peer",
            "model",
            "--no-laws",
            "--exhaustive",
            "exhaustive::",
        ])
        .current_dir(dir.path())
        .env_remove("LAWSUITE_EXHAUSTIVE_SIZE")
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&mine.stdout);
    // The reference has no trial of its own; every other peer has one per
    // family, at the default sizes.
    assert!(listed.contains("exhaustive::glob::3::"), "{listed}");
    assert!(listed.contains("exhaustive::gitignore::4::"), "{listed}");
    assert!(listed.contains("exhaustive::pattern::3::"), "{listed}");
    assert!(!listed.contains("::portable\n"), "{listed}");
    assert!(
        list(&["--exhaustive", "exhaustive::gitignore"], None).is_empty(),
        "only the reference"
    );
    let sized = Command::new(LAWSUITE)
        .args([
            "run",
            "--list",
            "--peer",
            "model",
            "--no-laws",
            "--exhaustive-size",
            "2",
            "exhaustive::gitignore",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let sized = String::from_utf8_lossy(&sized.stdout);
    assert!(sized.contains("exhaustive::gitignore::2::"), "{sized}");
    assert!(!sized.contains("exhaustive::glob"), "{sized}");
    let from_env = Command::new(LAWSUITE)
        .args([
            "run",
            "--list",
            "--peer",
            "model",
            "--no-laws",
            "exhaustive::",
        ])
        .env("LAWSUITE_EXHAUSTIVE_SIZE", "0")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&from_env.stdout).contains("exhaustive::"),
        "size 0 runs none"
    );
    // Past the largest size: refused, naming it.
    let past = Command::new(LAWSUITE)
        .args(["run", "--list", "--exhaustive-size", "9"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!past.status.success());
    assert!(
        String::from_utf8_lossy(&past.stderr).contains("0..=8"),
        "{}",
        String::from_utf8_lossy(&past.stderr)
    );
    let max = Command::new(LAWSUITE)
        .args([
            "run",
            "--list",
            "--peer",
            "model",
            "--no-laws",
            "--exhaustive-size",
            "8",
            "exhaustive::glob",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&max.stdout).contains("exhaustive::glob::8::"));
    // A run's summary counts the families' trials as it counts the seeds'.
    let ran = Command::new(LAWSUITE)
        .args([
            "run",
            "--peer",
            "model",
            "--no-laws",
            "--exhaustive-size",
            "1",
            "exhaustive::",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&ran.stdout);
    assert!(ran.status.success(), "{said}");
    assert!(
        said.contains("exhaustive families (family × subject): 3 pass"),
        "{said}"
    );
}

/// The `cargo test` front door lists the same trials, a filter picks them,
/// and a peer crate's default of none still lets a size through.
#[test]
fn the_suite_front_door_lists_the_families() {
    let names = |suite: Suite| -> Vec<String> {
        suite
            .trials()
            .iter()
            .map(|t| t.name().to_string())
            .filter(|n| n.starts_with("exhaustive::"))
            .collect()
    };
    let suite = || {
        Suite::new()
            .reference("portable", Portable::default())
            .peer("mine", Portable::with_threads(1))
            .without_laws()
    };
    let defaults = [
        "exhaustive::glob::3::mine",
        "exhaustive::gitignore::4::mine",
        "exhaustive::pattern::3::mine",
    ];
    // On by default, each family at its own size on a peer under test.
    assert_eq!(names(suite()), defaults);
    assert_eq!(names(suite().exhaustive()), defaults);
    assert!(names(suite().exhaustive_size(0)).is_empty());
    assert!(names(suite().exhaustive().default_exhaustive_size(0)).is_empty());
    assert_eq!(
        names(suite().default_exhaustive_size(0).exhaustive_size(2)),
        [
            "exhaustive::glob::2::mine",
            "exhaustive::gitignore::2::mine",
            "exhaustive::pattern::2::mine"
        ]
    );
    // And a trial runs and passes on a right peer.
    let engine = suite()
        .exhaustive_size(1)
        .engine()
        .unwrap_or_else(|e| panic!("{e:?}"));
    let trials = engine.trials_where(|id| id == "exhaustive::gitignore::1::mine");
    assert_eq!(trials.len(), 1);
    let outcome = engine.run_trial(&trials[0]);
    assert_eq!(outcome.verdict, Verdict::Pass, "{outcome:?}");
    assert_eq!(outcome.compared, 24, "12 rules, two placements each");
}

/// A report holds the first 64 divergent calls in full and counts the
/// rest: 64 wrong calls are all shown, 65 are 64 shown and one counted.
#[test]
fn a_report_shows_the_first_64_divergent_calls_and_counts_the_rest() {
    use lawsuite::kit::exhaustive::Family;
    let seam: Vec<String> = Family::Glob
        .batches(3)
        .flat_map(|plan| plan.glob.into_iter().map(|g| g.pattern))
        .collect();
    for wrong in [64usize, 65] {
        let chosen: std::collections::HashSet<String> = seam.iter().take(wrong).cloned().collect();
        let peer = Altered::new("off-by-one").on_glob(move |input, answer| {
            let mut answer = answer?;
            if chosen.contains(&input.pattern) {
                answer.total += 1;
            }
            Ok(answer)
        });
        let engine = Suite::new()
            .reference("portable", Portable::default())
            .peer("off-by-one", peer)
            .without_laws()
            .exhaustive_size(3)
            .engine()
            .unwrap_or_else(|e| panic!("{e:?}"));
        let trials = engine.trials_where(|id| id == "exhaustive::glob::3::off-by-one");
        let outcome = engine.run_trial(&trials[0]);
        let Verdict::Fail { report } = &outcome.verdict else {
            panic!("{outcome:?}")
        };
        assert_eq!(report.cases.len(), 64, "{wrong}");
        assert!(
            report
                .summary
                .starts_with(&format!("{wrong} of 2160 calls")),
            "{}",
            report.summary
        );
        assert_eq!(
            report
                .summary
                .contains("the first 64 (the smallest shapes) are shown"),
            wrong > 64,
            "{}",
            report.summary
        );
    }
}

/// A peer that starts a process per call (the built-ins `ripgrep`,
/// `ripgrep-walk` and `git`) is asked each family at size 2 by default;
/// every other peer each at its own default. A size, or `--exhaustive`,
/// asks every peer alike. (Stand-ins registered as those built-ins: the
/// class is read from what a peer is registered as, so no `rg` or `git`
/// is needed to list them.)
#[test]
fn peers_that_start_a_process_per_call_are_asked_smaller_families_by_default() {
    use lawsuite::peer::Builtin;
    use std::sync::Arc;
    let engine = |config: lawsuite::conformance::config::ConfigBuilder| {
        let peers = PeerSet::new(
            Subject::new("portable", Portable::default()),
            vec![
                Subject::new("mine", Portable::with_threads(1)),
                Subject::from_builtin("walk", Builtin::RipgrepWalk, Arc::new(Portable::default())),
                Subject::from_builtin("git", Builtin::Git, Arc::new(Portable::default())),
                Subject::from_builtin("model", Builtin::Model, Arc::new(Portable::default())),
            ],
        );
        config
            .laws(false)
            .regressions(None)
            .build()
            .unwrap_or_else(|e| panic!("{e:?}"))
            .engine(peers, None)
            .unwrap_or_else(|e| panic!("{e:?}"))
    };
    let ids = |engine: &lawsuite::conformance::Engine| -> Vec<String> {
        engine
            .trials_where(|id| id.starts_with("exhaustive::"))
            .iter()
            .map(|t| t.id.to_string())
            .collect()
    };
    let plain = engine(Config::builder());
    let listed = ids(&plain);
    let per_family = |family: &str, cheap: usize| {
        vec![
            format!("exhaustive::{family}::{cheap}::mine"),
            format!("exhaustive::{family}::{cheap}::model"),
            format!("exhaustive::{family}::2::walk"),
            format!("exhaustive::{family}::2::git"),
        ]
    };
    let expected: Vec<String> = [("glob", 3), ("gitignore", 4), ("pattern", 3)]
        .into_iter()
        .flat_map(|(f, k)| per_family(f, k))
        .collect();
    assert_eq!(listed, expected);
    // Counted as listed.
    assert_eq!(plain.trial_counts().get(&Kind::Exhaustive), Some(&12));
    // A trial at a class's size runs (and the stand-in passes it).
    let trials = plain.trials_where(|id| id == "exhaustive::gitignore::2::walk");
    let outcome = plain.run_trial(&trials[0]);
    assert_eq!(outcome.verdict, Verdict::Pass, "{outcome:?}");
    assert_eq!(outcome.compared, 202, "101 rules, two placements each");
    // Every peer alike: each family's own size, or the size given.
    let all = ids(&engine(Config::builder().exhaustive_at_family_sizes()));
    assert_eq!(all.len(), 12);
    assert!(
        all.contains(&"exhaustive::gitignore::4::walk".to_string()),
        "{all:?}"
    );
    let sized = ids(&engine(Config::builder().exhaustive_size(1)));
    assert_eq!(sized.len(), 12);
    assert!(sized.iter().all(|id| id.contains("::1::")), "{sized:?}");
}

/// `ripgrep-walk`'s `.gitignore` differences found by the family are
/// documented only where its answer is the one rg's reading predicts: a
/// stand-in registered as `ripgrep-walk` that reads `!` as rg does (every
/// entry re-admitted) passes the family with the difference counted, and
/// one wrong in another way on the same rule fails it.
#[test]
fn a_ripgrep_walk_difference_is_documented_only_where_it_is_the_listed_one() {
    use lawsuite::peer::{Builtin, Search};
    use std::sync::Arc;
    // rg's reading of a lone `!`: nothing below its scope stays ignored.
    let reading = |drop_one: bool| {
        Altered::new("ripgrep-walk").on_glob(move |input: &GlobInput, answer| {
            let mut files = Vec::new();
            gitignores(Path::new(&input.root), "", &mut files);
            if !files.iter().any(|(_, text)| text.lines().any(|l| l == "!")) {
                return answer;
            }
            let mut unignored = input.clone();
            unignored.no_ignore = true;
            let mut out = Portable::default().glob(&unignored)?;
            if drop_one {
                out.paths.pop();
                out.total = out.paths.len() as u64;
            }
            Ok(out)
        })
    };
    for (drop_one, passes) in [(false, true), (true, false)] {
        let peers = PeerSet::new(
            Subject::new("portable", Portable::default()),
            vec![Subject::from_builtin(
                "ripgrep-walk",
                Builtin::RipgrepWalk,
                Arc::new(reading(drop_one)),
            )],
        );
        let engine = Config::builder()
            .laws(false)
            .regressions(None)
            .exhaustive_size(1)
            .build()
            .unwrap_or_else(|e| panic!("{e:?}"))
            .engine(peers, None)
            .unwrap_or_else(|e| panic!("{e:?}"));
        let trials = engine.trials_where(|id| id == "exhaustive::gitignore::1::ripgrep-walk");
        let outcome = engine.run_trial(&trials[0]);
        if passes {
            assert_eq!(outcome.verdict, Verdict::Pass, "{outcome:?}");
            assert_eq!(
                outcome
                    .documented
                    .get("gitignore-empty-pattern-matches-every-path"),
                Some(&1),
                "{outcome:?}"
            );
        } else {
            let Verdict::Fail { report } = &outcome.verdict else {
                panic!("{outcome:?}")
            };
            // Both placements of `!`: the nested one, and the root's,
            // where rg re-admits nothing it had ignored.
            assert!(
                report.summary.starts_with("2 of 24 calls"),
                "{}",
                report.summary
            );
        }
    }
}

/// `cargo test` runs each subject's trial of a family on its own; the
/// reference answers the family's calls once for all of them (its answers
/// kept for the other trials), not once a trial.
#[test]
fn the_reference_answers_a_family_once_for_all_its_subjects_trials() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = asked.clone();
    let reference = Altered::new("portable").on_glob(move |_, answer| {
        counter.fetch_add(1, Ordering::Relaxed);
        answer
    });
    let engine = Suite::new()
        .reference("portable", reference)
        .peer("one", Portable::default())
        .peer("two", Portable::with_threads(1))
        .without_laws()
        .exhaustive_size(1)
        .engine()
        .unwrap_or_else(|e| panic!("{e:?}"));
    for name in ["one", "two"] {
        let id = format!("exhaustive::gitignore::1::{name}");
        let trials = engine.trials_where(|t| t == id);
        let outcome = engine.run_trial(&trials[0]);
        assert_eq!(outcome.verdict, Verdict::Pass, "{outcome:?}");
        assert_eq!(outcome.compared, 24);
    }
    assert_eq!(
        asked.load(Ordering::Relaxed),
        24,
        "12 rules in two placements, asked once"
    );
}
