//! The `lawsuite` generator's tests: the golden hashes that pin the draw
//! order, and what plans reach over many seeds.

use std::collections::{HashMap, HashSet};

use proptest::prelude::*;

use super::extras::UNDOTTED_SKIPS;
use super::flow_calls::line_count;
use super::flow_fixture::{FLOW_FIXTURE, FLOW_LIST};
use super::tree::{ancestors, depth, relative};
use super::*;
use crate::contract::skip::SKIP_LIST;
use crate::contract::{validate_glob, validate_pattern};
use crate::kit::materialize::{TempTree, validate};
use crate::kit::plan::FileKind;

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn full() -> GeneratorOptions {
    GeneratorOptions {
        ground: Ground::Full,
        ..GeneratorOptions::default()
    }
}

/// FNV-1a, 64 bits: a tiny, dependency-free fingerprint of plan JSON.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[test]
fn same_seed_same_bytes() -> TestResult {
    for seed in [0, 1, 7, 42, u64::MAX] {
        for options in [GeneratorOptions::default(), full()] {
            let first = serde_json::to_string(&plan(seed, "/r", &options))?;
            let second = serde_json::to_string(&plan(seed, "/r", &options))?;
            assert_eq!(first, second, "seed {seed}");
        }
    }
    assert_ne!(
        serde_json::to_string(&plan(1, "/r", &full()))?,
        serde_json::to_string(&plan(2, "/r", &full()))?
    );
    Ok(())
}

/// Pins the draw order. These values change whenever the generator's
/// output does; update them **together with [`VERSION`]**, never alone.
#[test]
fn golden_hashes_pin_the_draw_order() -> TestResult {
    assert_eq!(VERSION, 5);
    let shared = serde_json::to_string(&plan(0, "/r", &GeneratorOptions::default()))?;
    // A full-ground plan names its ground (so a replay knows it); the
    // draws are pinned by the rest of the plan, hashed as before.
    let mut full = serde_json::to_value(plan(7, "/r", &full()))?;
    let ground = full.as_object_mut().and_then(|o| o.shift_remove("ground"));
    assert_eq!(ground, Some(serde_json::json!("full")));
    let full = serde_json::to_string(&full)?;
    assert_eq!(
        (fnv1a64(shared.as_bytes()), fnv1a64(full.as_bytes())),
        (GOLDEN_SHARED_0, GOLDEN_FULL_7),
        "the plans changed: bump VERSION and update the golden hashes together"
    );
    Ok(())
}

// Version 2 (the file-flow fixture and the read and ls calls, steps
// 6–8) changed both: the plans gained `read` and `ls` calls and the
// fixture entries. Their grep and glob calls, and version 1's tree,
// are unchanged (checked against version 1's plans for seeds 0..60 of
// both grounds, answers included, when the version was bumped).
// Version 3 changed both again, with the same draws: a drawn grep or
// glob call that validation refuses moved from the seam to the plan's
// `flow` calls, and seam calls carry the normalised input (v2 hashes:
// 10604507409621557384, 16896025765646918678).
// Version 4 added step 9's corners after every earlier draw: the tree
// gains `corners/` and the call lists gain their corner calls at the end;
// everything before is version 3's (v3 hashes: 12031549120750662757,
// 5428331139100247037).
// Version 5 appended the class corner to step 9: `corners/classes.txt`, a
// seam grep and a flow grep at the ends of their lists; without them a
// plan is version 4's, byte for byte (`version_5_is_version_4_plus_the_class_corner`
// checks the v4 hashes below).
const GOLDEN_SHARED_0: u64 = 8935634503492649455;
const GOLDEN_FULL_7: u64 = 7853718488276476635;
const V4_SHARED_0: u64 = 14553102016861849656;
const V4_FULL_7: u64 = 4860968462596454920;

/// A version 5 plan with the class corner taken out is the version 4 plan
/// of its seed, byte for byte: the corner was drawn after every other
/// draw, so it changed nothing else.
#[test]
fn version_5_is_version_4_plus_the_class_corner() -> TestResult {
    let as_v4 = |plan: Plan| -> Result<serde_json::Value, serde_json::Error> {
        let accepted = |c: &GrepInput| super::corners::CLASS_ACCEPTED.contains(&c.pattern.as_str());
        let mut plan = plan;
        plan.version = 4;
        plan.files.retain(|f| f.path != "corners/classes.txt");
        plan.grep.retain(|c| !accepted(c));
        plan.flow.retain(|call| {
            !matches!(call, Call::FlowGrep(r) if super::corners::CLASS_REFUSED.contains(&r.pattern.as_str()))
        });
        serde_json::to_value(plan)
    };
    // Where the corner is drawn, its calls are the last of their lists
    // (so everything before them is as it was).
    for seed in 0..64 {
        let plan = plan(seed, "/r", &GeneratorOptions::default());
        if !plan.files.iter().any(|f| f.path == "corners/classes.txt") {
            continue;
        }
        let last_grep = plan
            .grep
            .last()
            .map(|c| c.pattern.as_str())
            .unwrap_or_default();
        assert!(
            super::corners::CLASS_ACCEPTED.contains(&last_grep),
            "seed {seed}"
        );
        assert!(
            matches!(plan.flow.last(), Some(Call::FlowGrep(r)) if super::corners::CLASS_REFUSED.contains(&r.pattern.as_str())),
            "seed {seed}"
        );
    }
    let (shared, full) = (
        plan(0, "/r", &GeneratorOptions::default()),
        plan(7, "/r", &full()),
    );
    let shared = serde_json::to_string(&as_v4(shared)?)?;
    let mut full = as_v4(full)?;
    full.as_object_mut().and_then(|o| o.shift_remove("ground"));
    let full = serde_json::to_string(&full)?;
    assert_eq!(
        (fnv1a64(shared.as_bytes()), fnv1a64(full.as_bytes())),
        (V4_SHARED_0, V4_FULL_7)
    );
    Ok(())
}

/// Seam calls carry only what validation passes, normalised; what it
/// refuses is asked of the flow (search-contract §3–§5).
#[test]
fn seam_calls_are_inside_the_contract_and_the_rest_go_to_the_flow() -> TestResult {
    let mut flow_calls = 0;
    for seed in 0..300 {
        for options in [GeneratorOptions::default(), full()] {
            let plan = plan(seed, "/r", &options);
            for input in &plan.grep {
                crate::contract::validate_pattern(&input.pattern, input.fixed_strings)?;
                for glob in &input.globs {
                    crate::contract::validate_glob(glob)?;
                }
            }
            for input in &plan.glob {
                crate::contract::validate_glob(&input.pattern)?;
            }
            for call in &plan.flow {
                let refused = match call {
                    Call::FlowGrep(r) => crate::contract::normalize_grep(r).is_err(),
                    Call::FlowGlob(r) => crate::contract::normalize_glob(r).is_err(),
                    other => panic!("a seam call among the flow calls: {other:?}"),
                };
                assert!(refused, "seed {seed}: {call:?} would pass validation");
            }
            flow_calls += plan.flow.len();
        }
    }
    assert!(
        flow_calls > 100,
        "only {flow_calls} flow calls in 600 plans"
    );
    Ok(())
}

#[test]
fn options_serde() -> TestResult {
    assert_eq!(
        serde_json::to_string(&full())?,
        r#"{"files":24,"calls":16,"ground":"full"}"#
    );
    let partial: GeneratorOptions = serde_json::from_str(r#"{"files":3}"#)?;
    assert_eq!(
        partial,
        GeneratorOptions {
            files: 3,
            ..GeneratorOptions::default()
        }
    );
    assert!(serde_json::from_str::<GeneratorOptions>(r#"{"ground":"Full"}"#).is_err());
    Ok(())
}

#[test]
fn draws_are_integer_and_in_range() {
    let mut draws = Draws::seeded(3);
    assert_eq!(draws.below(0), 0);
    assert!((0..1000).all(|_| draws.below(7) < 7));
    assert!((0..1000).all(|_| draws.below(1) == 0));
    let empty: [u8; 0] = [];
    assert_eq!(draws.pick(&empty), None);
    assert_eq!(draws.weighted::<u8>(&[]), 0);
    assert_eq!(draws.weighted(&[(0, 1u8), (5, 2)]), 2);
}

#[test]
fn undotted_skips_are_the_skip_lists_undotted_names() {
    let undotted: Vec<&str> = SKIP_LIST
        .iter()
        .copied()
        .filter(|name| !name.starts_with('.'))
        .collect();
    assert_eq!(undotted, UNDOTTED_SKIPS);
}

#[test]
fn helpers() {
    assert_eq!(ancestors("a/b/c").collect::<Vec<_>>(), ["a", "a/b"]);
    assert_eq!(ancestors("a").count(), 0);
    assert_eq!(relative("", "x/y.txt"), "x/y.txt");
    assert_eq!(relative("a/b", "x"), "../../x");
    assert_eq!(relative("", ""), ".");
    assert_eq!(relative("a", ""), "..");
    assert_eq!((depth(""), depth("a"), depth("a/b")), (0, 1, 2));
}

/// Counts of each feature over many plans.
#[derive(Default, Debug)]
struct Seen(HashMap<&'static str, usize>);

impl Seen {
    fn add(&mut self, feature: &'static str, present: bool) {
        *self.0.entry(feature).or_default() += usize::from(present);
    }
    fn count(&self, feature: &str) -> usize {
        self.0.get(feature).copied().unwrap_or(0)
    }
}

fn lines_of(content: &[u8]) -> impl Iterator<Item = String> + '_ {
    content.split(|&b| b == b'\n').map(|line| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        String::from_utf8_lossy(line).into_owned()
    })
}

/// The plan without its file-flow fixture: what grep and glob calls
/// can see, to which the tree's own invariants apply (no lone CR, CRLF
/// and invalid UTF-8 on the full ground only, the extras budget).
fn search_visible(plan: &Plan) -> Plan {
    let mut visible = plan.clone();
    visible
        .files
        .retain(|f| !f.path.starts_with("flows.fixture/"));
    visible
}

/// Every `\r` is followed by `\n` (README Q3).
fn no_lone_cr(content: &[u8]) -> bool {
    content
        .iter()
        .enumerate()
        .all(|(at, &b)| b != b'\r' || content.get(at + 1) == Some(&b'\n'))
}

fn survey(seen: &mut Seen, plan: &Plan) {
    let plan = &search_visible(plan);
    let skip: HashSet<&str> = SKIP_LIST.iter().copied().collect();
    let files: HashSet<&str> = plan
        .files
        .iter()
        .filter(|f| f.kind == FileKind::File)
        .map(|f| f.path.as_str())
        .collect();
    let links: HashMap<&str, &str> = plan
        .files
        .iter()
        .filter(|f| f.kind == FileKind::Symlink)
        .map(|f| (f.path.as_str(), f.target.as_deref().unwrap_or("")))
        .collect();
    for file in &plan.files {
        let segments: Vec<&str> = file.path.split('/').collect();
        let (name, parents) = segments.split_last().unwrap_or((&"", &[]));
        let is_file = file.kind == FileKind::File;
        seen.add(
            "hidden file",
            is_file && name.starts_with('.') && *name != ".gitignore",
        );
        seen.add("hidden dir", parents.iter().any(|p| p.starts_with('.')));
        seen.add("skip-list dir", parents.iter().any(|p| skip.contains(p)));
        seen.add("skip-list name as file", is_file && skip.contains(name));
        seen.add("depth 5", parents.len() >= 5);
        seen.add("space in name", file.path.contains(' '));
        seen.add("non-ascii name", !file.path.is_ascii());
        seen.add("leading dash", name.starts_with('-'));
        let text = String::from_utf8_lossy(&file.content);
        let gitignore = *name == ".gitignore";
        seen.add(
            "nested .gitignore with negation",
            gitignore && !parents.is_empty() && text.lines().any(|l| l.starts_with('!')),
        );
        seen.add(
            "malformed ignore line",
            gitignore && text.lines().any(|l| l == "[z-a]" || l == "{broken"),
        );
        seen.add(
            "ignore comment",
            gitignore && text.lines().any(|l| l.starts_with('#')),
        );
        seen.add(
            "ignore trailing spaces",
            gitignore && text.lines().any(|l| l.ends_with("   ")),
        );
        seen.add("ignore ** rule", gitignore && text.contains("**"));
        seen.add(
            "ignore dir rule",
            gitignore && text.lines().any(|l| l.ends_with('/')),
        );
        seen.add(
            "ignore anchored rule",
            gitignore && text.lines().any(|l| l.starts_with('/')),
        );
        seen.add("binary", file.content.contains(&0));
        seen.add(
            "late NUL",
            file.content
                .iter()
                .position(|&b| b == 0)
                .is_some_and(|at| at > 8192),
        );
        seen.add("empty file", is_file && file.content.is_empty());
        seen.add("newline only", file.content == b"\n");
        seen.add(
            "no final newline",
            !file.content.is_empty() && !file.content.ends_with(b"\n"),
        );
        let lengths: Vec<usize> = lines_of(&file.content).map(|l| l.chars().count()).collect();
        seen.add("long line", lengths.iter().any(|&n| n > 501));
        for (feature, n) in [("499 line", 499), ("500 line", 500), ("501 line", 501)] {
            seen.add(feature, lengths.contains(&n));
        }
        seen.add(
            "multibyte at the edge",
            lines_of(&file.content)
                .any(|l| (499..=501).contains(&l.chars().count()) && !l.ends_with('x')),
        );
        seen.add("crlf", file.content.windows(2).any(|w| w == b"\r\n"));
        seen.add("invalid utf-8", std::str::from_utf8(&file.content).is_err());
        seen.add("lone cr", !no_lone_cr(&file.content));
        seen.add("symlink", file.kind == FileKind::Symlink);
        seen.add(
            "unreadable dir",
            file.kind == FileKind::Dir && file.mode == Some(0),
        );
        seen.add("unreadable file", is_file && file.mode == Some(0));
        seen.add(
            "empty dir",
            file.kind == FileKind::Dir && file.mode.is_none(),
        );
        if let Some(target) = file.target.as_deref() {
            let parent = parents.join("/");
            let resolved = resolve(&parent, target);
            seen.add(
                "link to file",
                resolved.as_deref().is_some_and(|p| files.contains(p)),
            );
            seen.add("dangling link", target.starts_with("missing/"));
            seen.add(
                "link loop",
                resolved.as_deref().is_some_and(|p| {
                    links.get(p).is_some_and(|next| {
                        resolve(&parent, next).as_deref() == Some(&file.path[..])
                    })
                }),
            );
        }
    }
    let prefix = format!("{}/", plan.root);
    let entries: HashSet<String> = plan.files.iter().map(|f| f.path.clone()).collect();
    let dirs: HashSet<&str> = plan.files.iter().flat_map(|f| ancestors(&f.path)).collect();
    // Every drawn call, wherever it went: the seam's, and the flow's
    // (whose requests carry every field, so the defaults restore them).
    let drawn_grep: Vec<GrepInput> = plan
        .grep
        .iter()
        .cloned()
        .chain(plan.flow.iter().filter_map(|c| match c {
            Call::FlowGrep(r) => Some(crate::contract::normalize::grep_defaults(r)),
            _ => None,
        }))
        .collect();
    let drawn_glob: Vec<GlobInput> = plan
        .glob
        .iter()
        .cloned()
        .chain(plan.flow.iter().filter_map(|c| match c {
            Call::FlowGlob(r) => Some(crate::contract::normalize::glob_defaults(r)),
            _ => None,
        }))
        .collect();
    for call in &drawn_grep {
        let invalid = validate_pattern(&call.pattern, call.fixed_strings).is_err()
            || call.globs.iter().any(|g| validate_glob(g).is_err());
        seen.add(
            "invalid pattern",
            validate_pattern(&call.pattern, call.fixed_strings).is_err(),
        );
        seen.add("grep call", true);
        seen.add("invalid grep call", invalid);
        seen.add("non-ascii pattern", !call.pattern.is_ascii());
        seen.add(
            "meta literal",
            call.fixed_strings && call.pattern.contains(['(', '?', '+', '*', '[']),
        );
        seen.add(
            "regex class",
            call.pattern.contains("[a-z]") || call.pattern.contains("[^"),
        );
        seen.add("regex alternation", call.pattern.contains('|'));
        seen.add("regex count", call.pattern.contains("{1,3}"));
        seen.add(
            "regex anchors",
            call.pattern.starts_with('^') && call.pattern.ends_with('$'),
        );
        seen.add("escaped meta", call.pattern.contains("\\."));
        seen.add("! glob", call.globs.iter().any(|g| g.starts_with('!')));
        seen.add("3 globs", call.globs.len() == 3);
        seen.add("limit 0", call.limit == 0);
        seen.add(
            "ignoreCase and smartCase",
            call.ignore_case && call.smart_case,
        );
        seen.add("maxCount", call.max_count.is_some());
        let rel = call.root.strip_prefix(&prefix).unwrap_or("");
        seen.add("file root", entries.contains(rel) && files.contains(rel));
        seen.add("subdir root", dirs.contains(rel));
        seen.add(
            "missing root",
            call.root != plan.root
                && !entries.contains(rel)
                && !dirs.contains(rel)
                && !rel.ends_with('/')
                && !rel.starts_with("./"),
        );
        seen.add("link root", links.contains_key(rel));
    }
    for call in &drawn_glob {
        seen.add("! glob pattern", call.pattern.starts_with('!'));
        seen.add("glob limit 0", call.limit == 0);
        seen.add("invalid glob", validate_glob(&call.pattern).is_err());
    }
}

/// A link target resolved lexically against the link's directory;
/// `None` when it leaves the tree.
fn resolve(dir: &str, target: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for segment in target.split('/') {
        match segment {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            name => parts.push(name),
        }
    }
    Some(parts.join("/"))
}

#[test]
fn every_feature_appears_over_500_seeds() {
    let mut shared = Seen::default();
    let mut full_seen = Seen::default();
    for seed in 0..500 {
        survey(&mut shared, &plan(seed, "/r", &GeneratorOptions::default()));
        survey(&mut full_seen, &plan(seed, "/r", &full()));
    }
    let everywhere = [
        "hidden file",
        "hidden dir",
        "skip-list dir",
        "skip-list name as file",
        "depth 5",
        "space in name",
        "non-ascii name",
        "leading dash",
        "nested .gitignore with negation",
        "malformed ignore line",
        "ignore comment",
        "ignore trailing spaces",
        "ignore ** rule",
        "ignore dir rule",
        "ignore anchored rule",
        "binary",
        "late NUL",
        "empty file",
        "newline only",
        "no final newline",
        "long line",
        "499 line",
        "500 line",
        "501 line",
        "multibyte at the edge",
        "invalid pattern",
        "non-ascii pattern",
        "meta literal",
        "regex class",
        "regex alternation",
        "regex count",
        "regex anchors",
        "escaped meta",
        "! glob",
        "3 globs",
        "limit 0",
        "ignoreCase and smartCase",
        "maxCount",
        "file root",
        "subdir root",
        "missing root",
        "! glob pattern",
        "glob limit 0",
        "invalid glob",
    ];
    for feature in everywhere {
        assert!(
            shared.count(feature) > 0,
            "shared never had {feature}: {shared:?}"
        );
        assert!(full_seen.count(feature) > 0, "full never had {feature}");
    }
    let full_only = [
        "crlf",
        "invalid utf-8",
        "symlink",
        "link to file",
        "dangling link",
        "link loop",
        "unreadable dir",
        "unreadable file",
        "empty dir",
        "link root",
    ];
    for feature in full_only {
        assert!(
            full_seen.count(feature) > 0,
            "full never had {feature}: {full_seen:?}"
        );
        assert_eq!(shared.count(feature), 0, "shared had {feature}");
    }
    assert_eq!(shared.count("lone cr") + full_seen.count("lone cr"), 0);

    // Shares: both case flags in about 3 % of grep calls; invalid
    // patterns a minority, valid calls the majority.
    let calls = shared.count("grep call");
    let both = shared.count("ignoreCase and smartCase");
    assert!(
        both * 100 >= calls && both * 100 <= calls * 6,
        "{both} of {calls}"
    );
    let invalid = shared.count("invalid grep call");
    assert!(
        invalid * 100 >= calls * 10 && invalid * 100 <= calls * 40,
        "{invalid} of {calls}"
    );
}

#[test]
fn calls_respect_their_ranges() {
    for seed in 0..200 {
        for options in [GeneratorOptions::default(), full()] {
            let (plan, corners) = generate(seed, "/r", &options);
            // Every drawn call is at the seam or, refused, in the flow;
            // the corners all pass validation.
            assert_eq!(
                plan.grep.len() + plan.glob.len() + plan.flow.len(),
                32 + corners.grep + corners.glob + corners.flow
            );
            assert!(
                corners.grep <= 3 && corners.glob <= 3 && corners.read <= 1 && corners.flow <= 1,
                "{corners:?}"
            );
            // The only corner calls in the flow are the class corner's
            // look-alikes, refused by construction.
            let refused_corners = plan.flow[..plan.flow.len() - corners.flow]
                .iter()
                .filter(|call| {
                    serde_json::to_string(call).is_ok_and(|json| json.contains("/r/corners"))
                })
                .count();
            assert_eq!(
                refused_corners, 0,
                "seed {seed}: a corner call failed validation"
            );
            for call in &plan.grep[..plan.grep.len() - corners.grep] {
                assert!(
                    call.root == "/r" || call.root.starts_with("/r/"),
                    "{}",
                    call.root
                );
                assert!(call.before_context <= 3 && call.after_context <= 3);
                assert!(matches!(call.max_count, None | Some(1..=3)));
                assert!([0, 1, 2, 5, 40, 200].contains(&call.limit));
                assert!(call.globs.len() <= 3);
            }
            for call in &plan.glob[..plan.glob.len() - corners.glob] {
                assert!(
                    call.root == "/r" || call.root.starts_with("/r/"),
                    "{}",
                    call.root
                );
                assert!(call.limit <= 1000);
            }
            for call in &plan.grep[plan.grep.len() - corners.grep..] {
                assert!(call.root.starts_with("/r/corners"), "{}", call.root);
            }
            for call in &plan.glob[plan.glob.len() - corners.glob..] {
                assert!(
                    call.root == "/r" || call.root == "/r/corners/rules",
                    "{}",
                    call.root
                );
            }
            for call in &plan.read[plan.read.len() - corners.read..] {
                assert!(!call.path.starts_with('/'), "{}", call.path);
                assert!(
                    matches!(call.cwd.as_deref(), Some("/r" | "/r/corners")),
                    "{call:?}"
                );
            }
        }
    }
}

/// Step 9 puts every corner before a default run: each one's calls show up
/// in at least five of the `lawsuite` generator's 64 default seeds.
#[test]
fn the_default_seeds_reach_every_corner() {
    let mut seen = HashMap::new();
    for seed in 0..64 {
        let plan = plan(seed, "/r", &GeneratorOptions::default());
        let mut note =
            |what: &'static str, hit: bool| *seen.entry(what).or_insert(0) += usize::from(hit);
        note(
            "a brace rule",
            plan.files
                .iter()
                .any(|f| f.path == "corners/rules/.gitignore"),
        );
        note(
            "a shared-text glob",
            plan.glob.iter().any(|c| c.pattern.contains("shared-text")),
        );
        note(
            "a long glob",
            plan.glob.iter().any(|c| c.pattern.len() > 18_000),
        );
        note(
            "an empty-line grep",
            plan.grep.iter().any(|c| c.pattern.ends_with('$')),
        );
        note(
            "the long file",
            plan.grep.iter().any(|c| c.pattern == "cornered"),
        );
        note(
            "a relative read",
            plan.read.iter().any(|c| !c.path.starts_with('/')),
        );
        note(
            "a class beside an escaped dash, at the seam",
            plan.grep
                .iter()
                .any(|c| super::corners::CLASS_ACCEPTED.contains(&c.pattern.as_str())),
        );
    }
    assert_eq!(seen.len(), 7);
    for (what, count) in &seen {
        assert!(*count >= 5, "{what}: only {count} of 64 seeds: {seen:?}");
    }
}

/// The class corner's patterns are placed by construction: each accepted
/// one is already the normalised seam input and is answered by both the
/// reference and the model (whose §10 parser is its own), and each refused
/// one is refused by both.
#[test]
fn the_class_corner_places_its_patterns_by_construction() -> TestResult {
    use crate::peer::Search;
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("classes.txt"), "a-b\nx/y\n--\nplain\n\\-\n")?;
    let root = dir.path().to_str().unwrap_or_default();
    for pattern in super::corners::CLASS_ACCEPTED {
        let input = GrepInput::new(pattern, root);
        let normalised = crate::contract::normalize_grep(&GrepRequest::from(&input))?;
        assert_eq!(normalised, input, "{pattern}");
        let reference = crate::portable::Portable::with_threads(1).grep(&input)?;
        let model = crate::model::Model.grep(&input)?;
        assert!(!reference.matches.is_empty(), "{pattern}");
        assert_eq!(
            serde_json::to_value(&reference)?,
            serde_json::to_value(&model)?,
            "{pattern}"
        );
    }
    for pattern in super::corners::CLASS_REFUSED {
        let input = GrepInput::new(pattern, root);
        let refused = crate::contract::normalize_grep(&GrepRequest::from(&input));
        assert!(refused.is_err(), "{pattern}");
        let model = crate::model::Model.grep(&input);
        assert_eq!(
            model.map_err(|e| e.code),
            Err(crate::contract::ErrorCode::InvalidPattern),
            "{pattern}"
        );
    }
    Ok(())
}

/// Found by the proptest below: an early NUL landed between `\r` and
/// `\n`, making a lone CR (README Q3). The NUL now backs off to a
/// character boundary outside a CRLF.
#[test]
fn early_nul_never_splits_a_crlf_or_a_character() {
    let options = GeneratorOptions {
        files: 10,
        calls: 0,
        ground: Ground::Full,
    };
    let plan = search_visible(&plan(1_497_729_987_305_842_942, "", &options));
    assert!(plan.files.iter().all(|file| no_lone_cr(&file.content)));
    for seed in 0..300 {
        for file in &search_visible(&plan_for(seed)).files {
            assert!(no_lone_cr(&file.content), "seed {seed}: {}", file.path);
            if let Some(at) = file.content.iter().position(|&b| b == 0) {
                let next = file.content.get(at + 1).copied().unwrap_or(b'\n');
                assert!(next & 0xC0 != 0x80, "seed {seed}: NUL inside a character");
            }
        }
    }
}

fn plan_for(seed: u64) -> Plan {
    plan(seed, "/r", &full())
}

#[test]
fn zero_files_means_no_tree() {
    let options = GeneratorOptions {
        files: 0,
        calls: 3,
        ground: Ground::Full,
    };
    let plan = plan(5, "/r", &options);
    assert!(plan.files.is_empty());
    assert_eq!(plan.grep.len() + plan.glob.len() + plan.flow.len(), 6);
    assert!(
        plan.grep
            .iter()
            .all(|call| call.root == "/r" || call.root.starts_with("/r/"))
    );
}

#[cfg(unix)]
#[test]
fn materialized_full_plans_drop_cleanly() -> TestResult {
    use std::os::unix::fs::PermissionsExt;
    let mut locked_seen = 0;
    for seed in 0..12 {
        let plan = plan(seed, "/r", &full());
        let tree = TempTree::with_files(&plan.files)?;
        let path = tree.path().to_path_buf();
        for entry in &plan.files {
            let on_disk = std::fs::symlink_metadata(path.join(&entry.path))?;
            match entry.kind {
                FileKind::Symlink => assert!(on_disk.file_type().is_symlink()),
                FileKind::Dir => {
                    assert!(on_disk.is_dir());
                    if let Some(mode) = entry.mode {
                        assert_eq!(on_disk.permissions().mode() & 0o777, mode);
                        locked_seen += 1;
                    }
                }
                FileKind::File => assert!(on_disk.is_file()),
            }
        }
        drop(tree);
        assert!(!path.exists(), "seed {seed} left {}", path.display());
    }
    assert!(locked_seen > 0);
    Ok(())
}

/// The file-flow calls reach the corners of read-ls-flows §1 and §2
/// over a few hundred seeds.
#[test]
fn file_flow_calls_reach_the_spec_corners() {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut note = |what: &'static str, yes: bool| {
        *seen.entry(what).or_default() += usize::from(yes);
    };
    for seed in 0..300 {
        let plan = if seed % 2 == 0 {
            plan(seed, "/r", &GeneratorOptions::default())
        } else {
            plan_for(seed)
        };
        let content = |path: &str| {
            plan.files
                .iter()
                .find(|f| format!("/r/{}", f.path) == path)
                .map(|f| f.content.clone())
        };
        let listed = plan
            .files
            .iter()
            .filter(|f| f.path.starts_with(&format!("{FLOW_LIST}/")))
            .count();
        note("list over MAX_ENTRIES", listed > 1000);
        note("list at most MAX_ENTRIES", listed > 990 && listed <= 1000);
        note("empty list", listed == 0);
        for call in &plan.read {
            let bytes = content(&call.path);
            let lines = bytes.as_deref().map(line_count);
            note("read fixture", call.path.contains(FLOW_FIXTURE));
            note("read missing", call.path.contains("does-not-exist"));
            note("read a directory", call.path == "/r");
            note("read offset 0", call.offset == Some(0));
            note("read limit 0", call.limit == Some(0));
            note(
                "read offset past the end",
                matches!((call.offset, lines), (Some(o), Some(n)) if o > n.max(1)),
            );
            note("read over 2000 lines", lines.is_some_and(|n| n > 2000));
            note(
                "read over 60000 bytes",
                bytes.as_ref().is_some_and(|b| b.len() > 60_000),
            );
            note(
                "read crlf",
                bytes
                    .as_ref()
                    .is_some_and(|b| b.windows(2).any(|w| w == b"\r\n")),
            );
            note("read nul", bytes.as_ref().is_some_and(|b| b.contains(&0)));
            note(
                "read invalid utf-8",
                bytes
                    .as_ref()
                    .is_some_and(|b| std::str::from_utf8(b).is_err() && !b.contains(&0)),
            );
            note(
                "read long line",
                bytes.as_ref().is_some_and(|b| {
                    String::from_utf8_lossy(b)
                        .lines()
                        .any(|l| l.chars().count() > 2000)
                }),
            );
        }
        for call in &plan.ls {
            note("ls list", call.path.ends_with("/list"));
            note(
                "ls offset past 1000",
                call.offset.is_some_and(|o| o > 1000 && o < 1_000_000),
            );
            note("ls limit over 1000", call.limit.is_some_and(|l| l > 1000));
            note("ls missing", call.path.contains("does-not-exist"));
            note("ls a file", content(&call.path).is_some());
        }
    }
    for (what, count) in &seen {
        assert!(*count > 0, "never saw {what}: {seen:?}");
    }
}

proptest! {
    #[test]
    fn plans_validate_and_fit_the_budget(
        seed in any::<u64>(),
        files in 0usize..40,
        calls in 0usize..20,
        full_ground in any::<bool>(),
        root in "[a-z/]{0,8}",
    ) {
        let ground = if full_ground { Ground::Full } else { Ground::Shared };
        let options = GeneratorOptions { files, calls, ground };
        let (plan, corners) = generate(seed, &root, &options);
        prop_assert!(validate(&plan.files).is_ok(), "{:?}", validate(&plan.files));
        let visible = search_visible(&plan);
        // Skip-list entries, `.gitignore` files, full-ground notables, and
        // step 9's corners (5 + 9 + 1 + 1 + 1 + 1 files).
        let corner_files = if files > 0 && calls > 0 { 18 } else { 0 };
        let extras = if files == 0 { 0 } else if full_ground { 5 + 3 + 11 } else { 5 + 3 };
        let extras = extras + corner_files;
        prop_assert!(visible.files.len() <= files + extras);
        // The fixture: at most 5 read files, the listed directory, 1,005
        // entries and 2 links.
        prop_assert!(plan.files.len() - visible.files.len() <= 5 + 1 + 1005 + 2);
        prop_assert_eq!(plan.grep.len() + plan.glob.len() + plan.flow.len(), 2 * calls + corners.grep + corners.glob + corners.flow);
        prop_assert_eq!((plan.read.len(), plan.ls.len()), (calls + corners.read, calls));
        // No entry sits under a file or a link, and no path repeats.
        let leaves: HashSet<&str> = plan
            .files
            .iter()
            .filter(|f| f.kind != FileKind::Dir)
            .map(|f| f.path.as_str())
            .collect();
        let mut paths = HashSet::new();
        for entry in &plan.files {
            prop_assert!(paths.insert(entry.path.as_str()), "{} twice", entry.path);
            prop_assert!(ancestors(&entry.path).all(|dir| !leaves.contains(dir)), "{}", entry.path);
        }
        for entry in &visible.files {
            prop_assert!(no_lone_cr(&entry.content));
        }
        let prefix = format!("{root}/");
        let roots = plan.grep.iter().map(|c| &c.root).chain(plan.glob.iter().map(|c| &c.root));
        // A read relative to its `cwd` is checked by its `cwd`.
        let paths = plan.read.iter().map(|c| c.cwd.as_ref().unwrap_or(&c.path)).chain(plan.ls.iter().map(|c| &c.path));
        for call_root in roots.chain(paths) {
            prop_assert!(*call_root == root || call_root.starts_with(&prefix));
        }
        let json = serde_json::to_string(&plan).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let back: Plan = serde_json::from_str(&json).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(back, plan);
    }
}
