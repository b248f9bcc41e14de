//! `lawsuite merge` and `lawsuite report` take only whole results: a shard
//! whose run was killed, a cut last line, a trial twice or with two
//! verdicts, a missing shard and another lawsuite version are each refused
//! with the file and line, unless `--allow-incomplete` accepts them, and
//! then every problem is still printed.

use std::path::Path;
use std::process::{Command, Output};

const LAWSUITE: &str = env!("CARGO_BIN_EXE_lawsuite");

/// A project outside the checkout: the reference and a second built-in,
/// and twelve laws of its own (the shipped laws change with lawsuite; these
/// pass on both peers whatever it ships).
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("lawsuite.toml"),
        "reference = \"portable\"\nlaws = [\"laws\"]\nshipped_laws = false\n\n[[peer]]\nname = \"portable\"\nbuiltin = \"portable\"\n\n[[peer]]\nname = \"mine\"\nbuiltin = \"portable\"\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("laws")).unwrap();
    let laws: String = (0..12)
        .map(|n| {
            format!(
                "[[law]]\nname = \"star-{n}\"\nspec = \"search-contract §8.5\"\nmethod = \"glob\"\ninput = {{ pattern = \"*.t{n}\" }}\ntree.\"a.t{n}\" = \"\"\ntree.\"b.x\" = \"\"\nexpect = {{ paths = [\"a.t{n}\"], total = 1, truncated = false }}\n\n"
            )
        })
        .collect();
    std::fs::write(dir.path().join("laws/mine.toml"), laws).unwrap();
    dir
}

fn lawsuite(dir: &Path, args: &[&str]) -> Output {
    Command::new(LAWSUITE)
        .args(args)
        .current_dir(dir)
        .env_remove("CARGO_MANIFEST_DIR")
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The two shards of a small sweep, as `run --shard K/2` writes them.
fn shards(dir: &Path) -> [String; 2] {
    [1, 2].map(|k| {
        let shard = format!("{k}/2");
        let out = lawsuite(
            dir,
            &["run", "--no-seeds", "--format", "jsonl", "--shard", &shard],
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        String::from_utf8(out.stdout).unwrap()
    })
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    std::fs::write(dir.join(name), text).unwrap();
    name.to_string()
}

/// `merge` of `files`, then again with `--allow-incomplete`: the first is
/// refused (exit status 2, `says` on stderr), the second merges with a
/// warning that says it too, and exits with `allowed` (1 when a failure
/// counts).
fn refused_then_allowed(dir: &Path, files: &[&str], says: &str, allowed: i32) {
    let mut args = vec!["merge", "--format", "json"];
    args.extend(files);
    let out = lawsuite(dir, &args);
    assert_eq!(out.status.code(), Some(2), "{files:?}: {}", stderr(&out));
    assert!(stderr(&out).contains(says), "{files:?}: {}", stderr(&out));
    assert!(
        stderr(&out).contains("--allow-incomplete merges them anyway"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty());
    args.push("--allow-incomplete");
    let out = lawsuite(dir, &args);
    assert_eq!(
        out.status.code(),
        Some(allowed),
        "{files:?}: {}",
        stderr(&out)
    );
    let err = stderr(&out);
    assert!(
        err.contains("WARNING: --allow-incomplete: these results are NOT whole"),
        "{err}"
    );
    assert!(err.contains(says), "{err}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc["outcomes"].as_array().is_some_and(|o| !o.is_empty()));
}

#[test]
fn whole_shards_merge_and_broken_ones_are_refused_by_name_and_line() {
    let dir = project();
    let d = dir.path();
    let [one, two] = shards(d);
    let a = write(d, "a.jsonl", &one);
    let b = write(d, "b.jsonl", &two);
    let out = lawsuite(d, &["merge", "--format", "jsonl", &a, &b]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    // Its seconds are the shards' summed (once, the longest shard's).
    let seconds = |text: &str| {
        let last = text.lines().last().unwrap_or_default();
        serde_json::from_str::<serde_json::Value>(last).unwrap()["seconds"]
            .as_f64()
            .unwrap()
    };
    let merged_text = String::from_utf8_lossy(&out.stdout).into_owned();
    // Compared within a nanosecond: the sum may be taken in another order.
    let (merged, summed) = (seconds(&merged_text), seconds(&one) + seconds(&two));
    assert!((merged - summed).abs() < 1e-9, "{merged} vs {summed}");
    // The merged file is whole too, so merging it again is fine.
    let merged = write(d, "merged.jsonl", &String::from_utf8_lossy(&out.stdout));
    let out = lawsuite(d, &["merge", &merged]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let lines: Vec<&str> = two.lines().collect();
    // Killed between two lines: the run line and some outcomes, no summary.
    let killed = write(d, "killed.jsonl", &(lines[..4].join("\n") + "\n"));
    refused_then_allowed(
        d,
        &[&a, &killed],
        "killed.jsonl: no summary line after line 4: the run was killed or is still running",
        0,
    );
    // Killed in the middle of writing a line.
    let cut = lines[..4].join("\n") + "\n" + &lines[4][..lines[4].len() / 2];
    let cut = write(d, "cut.jsonl", &cut);
    refused_then_allowed(
        d,
        &[&a, &cut],
        "cut.jsonl line 5: the last line is cut off",
        0,
    );
    // One outcome twice in the first file: once it counted twice.
    let mut dup: Vec<&str> = lines.clone();
    dup.insert(2, lines[1]);
    let dup = write(d, "dup.jsonl", &(dup.join("\n") + "\n"));
    refused_then_allowed(d, &[&dup, &a], "dup.jsonl line 3: trial ", 0);
    // A pass and a fail of one trial: once both counted.
    let failed = lines[1].replace(
        "\"verdict\":\"pass\"",
        "\"verdict\":\"broken\",\"why\":\"made up\"",
    );
    assert_ne!(failed, lines[1]);
    let mut conflict: Vec<&str> = lines.clone();
    conflict.insert(2, &failed);
    let conflict = write(d, "conflict.jsonl", &(conflict.join("\n") + "\n"));
    refused_then_allowed(d, &[&a, &conflict], "conflict.jsonl line 3: trial law::", 1);
    // A shard left out, and a shard of another version.
    refused_then_allowed(d, &[&a], "shard 2/2 of the sweep is missing", 0);
    let other = write(
        d,
        "other.jsonl",
        &two.replacen("\"lawsuite\":\"0.1.0\"", "\"lawsuite\":\"0.0.9\"", 1),
    );
    refused_then_allowed(
        d,
        &[&a, &other],
        "other.jsonl: written by lawsuite \"0.0.9\"",
        0,
    );
    // `report` refuses the same way.
    let out = lawsuite(d, &["report", &a, &killed, "-o", "r.html"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!d.join("r.html").exists());
    let out = lawsuite(
        d,
        &["report", &a, &killed, "-o", "r.html", "--allow-incomplete"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("WARNING"), "{}", stderr(&out));
    // One file is one file ("from 1 files" before).
    let out = lawsuite(d, &["report", &a, "-o", "one.html", "--allow-incomplete"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains(" from 1 file)"), "{}", stderr(&out));
}

/// An interrupted run says so in its summary line, and `merge` refuses it.
#[cfg(unix)]
#[test]
fn an_interrupted_run_is_not_merged_as_whole() {
    let dir = project();
    let child = Command::new(LAWSUITE)
        .args([
            "run",
            "--seeds",
            "0..100000",
            "--format",
            "jsonl",
            "--jobs",
            "1",
        ])
        .current_dir(dir.path())
        .env_remove("CARGO_MANIFEST_DIR")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(3));
    let pid = child.id().to_string();
    let killed = Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or_default();
    assert!(
        last.contains("\"complete\":false") && last.contains("\"incomplete\":\"interrupted\""),
        "{last}"
    );
    let file = write(dir.path(), "int.jsonl", &text);
    let out = lawsuite(dir.path(), &["merge", &file]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the run did not finish (interrupted)"),
        "{}",
        stderr(&out)
    );
}

/// `--update-expectations` rewrites the expected failures and exits as the
/// run without it would: 1 when a trial fails the run. It used to exit 0
/// while printing "1 fail the run".
#[test]
fn update_expectations_rewrites_the_lists_and_keeps_the_exit_status() {
    let dir = project();
    let d = dir.path();
    let expected = d.join("lawsuite/expected");
    std::fs::create_dir_all(&expected).unwrap();
    let listed = expected.join("known.toml");
    // A law that passes, listed as an expected failure: an unexpected pass.
    let kept = "# Reviewed by hand: keep this note.\n[mine]\n# A second note, above the stale entry.\n\"mine::star-0\" = \"thought broken\"\n\"mine::never-run\" = \"stays\"   # an inline note\n";
    std::fs::write(&listed, kept).unwrap();
    let plain = lawsuite(d, &["run", "--no-seeds"]);
    assert_eq!(plain.status.code(), Some(1), "{}", stderr(&plain));
    let out = lawsuite(d, &["run", "--no-seeds", "--update-expectations"]);
    assert!(
        stderr(&out).contains("1 entries that now pass removed"),
        "{}",
        stderr(&out)
    );
    assert_eq!(out.status.code(), plain.status.code(), "{}", stderr(&out));
    // The entry is gone, so the next run passes.
    let text = std::fs::read_to_string(&listed).unwrap();
    assert!(!text.contains("star-0"), "{text}");
    // The user's comments and the other entries are kept as written.
    for part in [
        "# Reviewed by hand: keep this note.\n[mine]\n",
        "\"mine::never-run\" = \"stays\"   # an inline note\n",
    ] {
        assert!(text.contains(part), "{part:?} lost: {text}");
    }
    std::fs::write(&listed, "").unwrap();
    let after = lawsuite(d, &["run", "--no-seeds"]);
    assert_eq!(after.status.code(), Some(0), "{}", stderr(&after));

    // A recorded.toml lawsuite cannot read is the user's: refused, never
    // replaced (it used to be, silently, with the new entries alone).
    std::fs::write(&listed, "[mine]\n\"mine::star-0\" = \"thought broken\"\n").unwrap();
    let recorded = expected.join("recorded.toml");
    std::fs::write(&recorded, "this is [not toml\n").unwrap();
    let out = lawsuite(d, &["run", "--no-seeds", "--update-expectations"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("recorded.toml"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&recorded).unwrap(),
        "this is [not toml\n"
    );
}

/// A shard no trial hashes to is a complete, empty results file, so the
/// sweep still merges: of `--generator lawsuite --seeds 0..3` in 4 shards,
/// shard 2 holds nothing. It used to exit 2 writing nothing, and `merge`
/// refused the whole sweep ("no run line"). An empty selection that is
/// not the shard's doing is still an error.
#[test]
fn an_empty_shard_is_a_complete_empty_results_file() {
    let dir = project();
    let d = dir.path();
    let sweep = [
        "run",
        "--no-laws",
        "--no-exhaustive",
        "--generator",
        "lawsuite",
        "--seeds",
        "0..3",
    ];
    let mut files = Vec::new();
    let mut sizes = Vec::new();
    for k in 1..=4 {
        let shard = format!("{k}/4");
        let mut args = sweep.to_vec();
        args.extend(["--format", "jsonl", "--shard", &shard]);
        let out = lawsuite(d, &args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "shard {shard}: {}",
            stderr(&out)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0]["type"], "run", "{text}");
        assert_eq!(lines[0]["shard"], shard.as_str(), "{text}");
        let last = lines.last().unwrap();
        assert_eq!(last["type"], "summary", "{text}");
        assert_eq!(last["complete"], true, "{text}");
        sizes.push(lines.len() - 2);
        files.push(write(d, &format!("shard-{k}.jsonl"), &text));
    }
    assert_eq!(sizes, [1, 0, 1, 1], "the trials of each shard");
    let mut args = vec!["merge", "--format", "json"];
    args.extend(files.iter().map(String::as_str));
    let out = lawsuite(d, &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["outcomes"].as_array().map(Vec::len), Some(3), "{doc}");
    // Every format of an empty shard is written, and it passes.
    for format in ["human", "json", "junit", "markdown"] {
        let mut args = sweep.to_vec();
        args.extend(["--format", format, "--shard", "2/4"]);
        let out = lawsuite(d, &args);
        assert_eq!(out.status.code(), Some(0), "{format}: {}", stderr(&out));
        assert!(!out.stdout.is_empty(), "{format}");
    }
    // Nothing selected before the shard is still nothing to run.
    let mut args = sweep.to_vec();
    args.extend(["--shard", "2/4", "no-such-trial"]);
    let out = lawsuite(d, &args);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("nothing to run: none of the run's 3 trials matches \"no-such-trial\""),
        "{}",
        stderr(&out)
    );
}

/// A summary line whose seconds no `Duration` holds is an unreadable
/// line, named by file and line: `merge` used to panic (exit status 101)
/// turning `1e300` seconds into a `Duration`.
#[test]
fn seconds_past_what_a_duration_holds_are_refused_by_line() {
    let dir = project();
    let d = dir.path();
    let [one, two] = shards(d);
    let a = write(d, "a.jsonl", &one);
    let mut lines: Vec<String> = two.lines().map(str::to_string).collect();
    let last = lines.len() - 1;
    let mut summary: serde_json::Value = serde_json::from_str(&lines[last]).unwrap();
    summary["seconds"] = serde_json::json!(1e300);
    lines[last] = summary.to_string();
    let b = write(d, "b.jsonl", &(lines.join("\n") + "\n"));
    let out = lawsuite(d, &["merge", &a, &b]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("b.jsonl line {}: ", last + 1)) && err.contains("1e300"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// Shard `k` of 2 of a seeds-only sweep with `more` flags, as `run
/// --format jsonl` writes it.
fn seed_shard(dir: &Path, k: u32, more: &[&str]) -> String {
    let shard = format!("{k}/2");
    let mut args = vec![
        "run",
        "--no-laws",
        "--no-regressions",
        "--no-exhaustive",
        "--format",
        "jsonl",
        "--shard",
        &shard,
    ];
    args.extend_from_slice(more);
    let out = lawsuite(dir, &args);
    assert_eq!(out.status.code(), Some(0), "{more:?}: {}", stderr(&out));
    String::from_utf8(out.stdout).unwrap()
}

/// Shards of two sweeps merged with exit status 0 and no word: `--seeds
/// 0..6` beside `--seeds 0..12`, two generators, two law sets. Each is
/// refused naming both files and the field; `--allow-mixed` (and not
/// `--allow-incomplete`) merges them, the difference at the head of every
/// report of the merge.
#[test]
fn shards_of_two_sweeps_are_refused_by_field_unless_mixed_is_allowed() {
    let dir = project();
    let d = dir.path();
    let lawsuite_seeds = ["--generator", "lawsuite", "--seeds"];
    let six = write(
        d,
        "six.jsonl",
        &seed_shard(d, 1, &[&lawsuite_seeds[..], &["0..6"]].concat()),
    );
    let six2 = write(
        d,
        "six2.jsonl",
        &seed_shard(d, 2, &[&lawsuite_seeds[..], &["0..6"]].concat()),
    );
    let twelve = write(
        d,
        "twelve.jsonl",
        &seed_shard(d, 2, &[&lawsuite_seeds[..], &["0..12"]].concat()),
    );
    let smthrs = write(
        d,
        "smthrs.jsonl",
        &seed_shard(d, 2, &["--generator", "smthrs", "--seeds", "0..6"]),
    );
    // One sweep merges, and says nothing.
    let out = lawsuite(d, &["merge", &six, &six2]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    for (other, field, theirs, ours) in [
        (&twelve, "seeds", "0..12", "0..6"),
        (
            &smthrs,
            "seeds",
            "smthrs v1 shared 0..6",
            "lawsuite v5 shared 0..6",
        ),
    ] {
        let out = lawsuite(d, &["merge", "--allow-incomplete", &six, other]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!("{other}: its {field} is "))
                && err.contains("but six.jsonl's is"),
            "{err}"
        );
        assert!(err.contains(theirs) && err.contains(ours), "{err}");
        assert!(err.contains("--allow-mixed merges them anyway"), "{err}");
        assert!(out.stdout.is_empty());
        // Forced: merged, warned on stderr, and the warning heads the
        // report in every format.
        let out = lawsuite(d, &["merge", "--allow-mixed", &six, other]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{err}");
        assert!(err.contains("WARNING: --allow-mixed"), "{err}");
        let human = String::from_utf8_lossy(&out.stdout);
        assert!(
            human.contains(&format!("WARNING: {other}: its {field} is")),
            "{human}"
        );
        let out = lawsuite(
            d,
            &["merge", "--allow-mixed", "--format", "jsonl", &six, other],
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let run: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert!(
            run["warnings"][0].as_str().unwrap().contains(field),
            "{run}"
        );
        let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(last["complete"], false, "{last}");
        let out = lawsuite(
            d,
            &["report", "--allow-mixed", &six, other, "-o", "mixed.html"],
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let page = std::fs::read_to_string(d.join("mixed.html")).unwrap();
        assert!(page.contains("<b>WARNING</b>"), "the page says nothing");
        let out = lawsuite(d, &["report", &six, other, "-o", "refused.html"]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(!d.join("refused.html").exists());
    }
    // Another law set: a law added between the shards.
    let laws = d.join("laws/mine.toml");
    let text = std::fs::read_to_string(&laws).unwrap();
    let one = write(d, "one.jsonl", &shards(d)[0]);
    std::fs::write(&laws, text.replace("star-0\"", "star-zero\"")).unwrap();
    let two = write(d, "two.jsonl", &shards(d)[1]);
    let out = lawsuite(d, &["merge", &one, &two]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("two.jsonl: its law set is \"12 laws, digest "),
        "{err}"
    );
}

/// Results written before run lines named their sweep: two of them are
/// compared on what they name, with a note; one beside a newer file is of
/// another sweep.
#[test]
fn results_that_do_not_name_their_sweep() {
    let dir = project();
    let d = dir.path();
    let [one, two] = shards(d);
    let older = |text: &str| {
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let mut run: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
        for field in ["seedSets", "laws", "regressions", "filter"] {
            run.as_object_mut().unwrap().remove(field);
        }
        lines[0] = run.to_string();
        lines.join("\n") + "\n"
    };
    assert!(
        one.lines()
            .next()
            .unwrap()
            .contains("\"laws\":\"12 laws, digest ")
    );
    let old_one = write(d, "old1.jsonl", &older(&one));
    let old_two = write(d, "old2.jsonl", &older(&two));
    let out = lawsuite(d, &["merge", &old_one, &old_two]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("note: old1.jsonl, old2.jsonl were written before results named their sweep"),
        "{}",
        stderr(&out)
    );
    let new_two = write(d, "new2.jsonl", &two);
    let out = lawsuite(d, &["merge", &old_one, &new_two]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("not named"), "{}", stderr(&out));
}
