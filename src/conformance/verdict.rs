//! What a trial concludes: a typed [`Verdict`], and the [`Report`] that
//! carries the reason of a failure (the spec section, the tree, the call,
//! both answers and their diff, the replay command, the peer's fault log).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::peer::Health;

/// The conclusion of one trial (an item on one peer).
///
/// In JSON, tagged by `verdict`: `{"verdict": "fail", "report": {…}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// The peer answered as the law, regression or reference did.
    Pass,
    /// It did not.
    Fail {
        /// Why.
        report: Report,
    },
    /// It did not, and an expectation lists this failure.
    ExpectedFailure {
        /// The listed reason.
        reason: String,
        /// Where it is listed.
        source: String,
        /// The failure itself, so the listing can be checked against it.
        report: Report,
    },
    /// It passed, but an expectation lists it as failing: the listing is
    /// stale and must go (a failure, so lists stay true).
    UnexpectedPass {
        /// The listed reason.
        reason: String,
        /// Where it is listed.
        source: String,
    },
    /// Not run: the peer does not answer the method, claims a narrower
    /// ground, or cannot run here.
    Skipped {
        /// Why.
        why: String,
    },
    /// The trial could not be judged: a law or regression that cannot be
    /// set up, a broken file, a peer the harness stopped restarting. An
    /// error, never a pass, and never an expected failure.
    Broken {
        /// Why, and what to do about it.
        why: String,
    },
    /// Asked the same trial several times (`--repeat N`, each on a fresh
    /// tree), the peer did not conclude the same way every time: its
    /// answer depends on something besides the call and the tree. A bug of
    /// its own, never a pass; a trial listed as an expected failure is one
    /// instead.
    Flaky {
        /// Each asking's verdict (`pass`, `fail`, `broken`, …), in order.
        runs: Vec<String>,
        /// Why it is flaky, with the report of the first asking that
        /// failed: the answer that differed.
        report: Report,
    },
}

impl Verdict {
    /// The snake_case tag: `pass`, `fail`, `expected_failure`,
    /// `unexpected_pass`, `skipped` or `broken`.
    pub fn tag(&self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail { .. } => "fail",
            Verdict::ExpectedFailure { .. } => "expected_failure",
            Verdict::UnexpectedPass { .. } => "unexpected_pass",
            Verdict::Skipped { .. } => "skipped",
            Verdict::Broken { .. } => "broken",
            Verdict::Flaky { .. } => "flaky",
        }
    }

    /// Whether the run fails because of it: a failure, an unexpected pass,
    /// a trial that could not be judged, or a flaky one.
    pub fn is_failure(&self) -> bool {
        matches!(
            self,
            Verdict::Fail { .. }
                | Verdict::UnexpectedPass { .. }
                | Verdict::Broken { .. }
                | Verdict::Flaky { .. }
        )
    }

    /// The report of a failure (expected or not, or flaky).
    pub fn report(&self) -> Option<&Report> {
        match self {
            Verdict::Fail { report }
            | Verdict::ExpectedFailure { report, .. }
            | Verdict::Flaky { report, .. } => Some(report),
            _ => None,
        }
    }

    /// One verdict of `runs`, the verdicts of one trial asked several
    /// times in a row ([`Verdict::Flaky`] when they do not all agree).
    /// Verdicts agree when their tags do: two failures with different
    /// diffs are one failure, reported as the first. [`Repeats`] does the
    /// same one asking at a time, in constant memory.
    ///
    /// ```
    /// use lawsuite::conformance::{Report, Verdict};
    /// let fail = Verdict::Fail { report: Report { summary: "paths differ".into(), ..Report::default() } };
    /// assert_eq!(Verdict::of_repeats(vec![Verdict::Pass, Verdict::Pass]), Verdict::Pass);
    /// let flaky = Verdict::of_repeats(vec![Verdict::Pass, fail.clone(), Verdict::Pass]);
    /// assert_eq!(flaky.tag(), "flaky");
    /// assert!(flaky.is_failure());
    /// assert!(flaky.report().unwrap().summary.contains("asking 2 of 3: paths differ"));
    /// ```
    pub fn of_repeats(runs: Vec<Verdict>) -> Verdict {
        let mut runs = runs.into_iter();
        let Some(first) = runs.next() else {
            return Verdict::Broken {
                why: "asked no times".into(),
            };
        };
        let mut repeats = Repeats::new(first);
        for verdict in runs {
            repeats.add(verdict);
        }
        repeats.verdict()
    }
}

/// How many askings' tags a [`Verdict::Flaky`] lists in `runs`: as many
/// as fit [`CASE_VALUE_BYTES`] of JSON at the longest tag
/// (`"expected_failure",`, 19 bytes), so `runs` is bounded as every other
/// value of a report is; the askings past them are counted in the
/// report's summary. 862.
pub const FLAKY_RUNS_LISTED: usize = CASE_VALUE_BYTES / "\"expected_failure\",".len();

/// The verdicts of one trial asked again and again (`--repeat N`), folded
/// one asking at a time: what [`Verdict::of_repeats`] concludes, in
/// memory that does not grow with N. Kept: the first verdict whole (the
/// answer when every asking agrees), the first listing and the first
/// failing asking's report (what a flaky report shows), each tag's count,
/// and the first [`FLAKY_RUNS_LISTED`] tags in order. `--repeat
/// 4294967295` used to allocate room for every asking's answers at once
/// (103 GB) and abort.
///
/// ```
/// use lawsuite::conformance::verdict::{FLAKY_RUNS_LISTED, Repeats};
/// use lawsuite::conformance::{Report, Verdict};
/// let mut repeats = Repeats::new(Verdict::Pass);
/// for i in 1..1_000_000u32 {
///     repeats.add(if i % 4 == 0 { Verdict::Broken { why: "gone".into() } } else { Verdict::Pass });
/// }
/// let Verdict::Flaky { runs, report } = repeats.verdict() else { panic!("flaky") };
/// assert_eq!(runs.len(), FLAKY_RUNS_LISTED);
/// assert!(report.summary.contains("asked 1000000 times"), "{}", report.summary);
/// assert!(report.summary.contains("750001 pass, 249999 broken"), "{}", report.summary);
/// ```
#[derive(Clone, Debug)]
pub struct Repeats {
    first: Verdict,
    asked: u64,
    agree: bool,
    /// Each tag with its count, in the order they first came.
    counts: Vec<(&'static str, u64)>,
    /// The first [`FLAKY_RUNS_LISTED`] askings' tags.
    listed: Vec<&'static str>,
    /// The reason and source of the first asking an expectation lists.
    listing: Option<(String, String)>,
    /// The first failing asking (0-based) and its report.
    failing: Option<(u64, Report)>,
}

impl Repeats {
    /// The first asking.
    pub fn new(first: Verdict) -> Repeats {
        let mut repeats = Repeats {
            first: Verdict::Pass,
            asked: 0,
            agree: true,
            counts: Vec::new(),
            listed: Vec::new(),
            listing: None,
            failing: None,
        };
        repeats.note(&first);
        repeats.first = first;
        repeats
    }

    /// The next asking.
    pub fn add(&mut self, verdict: Verdict) {
        if verdict.tag() != self.first.tag() {
            self.agree = false;
        }
        self.note(&verdict);
    }

    /// Keep what a report of `verdict`, the next asking, needs.
    fn note(&mut self, verdict: &Verdict) {
        let tag = verdict.tag();
        match self.counts.iter_mut().find(|(t, _)| *t == tag) {
            Some((_, n)) => *n += 1,
            None => self.counts.push((tag, 1)),
        }
        if self.listed.len() < FLAKY_RUNS_LISTED {
            self.listed.push(tag);
        }
        if self.listing.is_none()
            && let Verdict::ExpectedFailure { reason, source, .. }
            | Verdict::UnexpectedPass { reason, source } = verdict
        {
            self.listing = Some((reason.clone(), source.clone()));
        }
        if self.failing.is_none() {
            let why = match verdict {
                Verdict::Broken { why } => Some(Report {
                    summary: why.clone(),
                    ..Report::default()
                }),
                other => other.report().cloned(),
            };
            self.failing = why.map(|r| (self.asked, r));
        }
        self.asked += 1;
    }

    /// How many askings so far.
    pub fn asked(&self) -> u64 {
        self.asked
    }

    /// The one verdict of every asking so far.
    pub fn verdict(self) -> Verdict {
        if self.agree {
            return self.first;
        }
        let (at, mut report) = self.failing.unwrap_or_default();
        let passed: u64 = self
            .counts
            .iter()
            .filter(|(t, _)| matches!(*t, "pass" | "unexpected_pass"))
            .map(|(_, n)| n)
            .sum();
        // Every tag in order while `runs` holds them all; past that, each
        // tag's count (a million tags would be megabytes of summary).
        let tags = if self.asked <= self.listed.len() as u64 {
            self.listed.join(", ")
        } else {
            self.counts
                .iter()
                .map(|(t, n)| format!("{n} {t}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        report.summary = format!(
            "flaky: asked {} times on fresh trees, it passed {passed} and did not pass {} ({tags}); asking {} of {}: {}",
            self.asked,
            self.asked - passed,
            at + 1,
            self.asked,
            report.summary
        );
        match self.listing {
            Some((reason, source)) => Verdict::ExpectedFailure {
                reason,
                source,
                report,
            },
            None => Verdict::Flaky {
                runs: self.listed.iter().map(|t| t.to_string()).collect(),
                report,
            },
        }
    }
}

/// The most bytes of JSON a report keeps of one answer, call or diff
/// ([`Verdict::excerpted`]): 12 KiB of its head and 4 KiB of its tail.
/// A divergent answer can be as large as its budget allows
/// ([`crate::call::Budget`]: megabytes for a large limit on a tree of long
/// paths), and a seed reports up to one case a call; its replay command
/// gives the whole answer again.
pub const CASE_VALUE_BYTES: usize = 16 << 10;

impl Verdict {
    /// The verdict with every case of its report cut to
    /// [`CASE_VALUE_BYTES`] a value: an answer, call or diff longer than
    /// that becomes `{"excerpt": "<head> … [N bytes left out] … <tail>",
    /// "bytes": N}` (a diff and a problem, its text cut the same way). So a
    /// results file holds a bounded excerpt of each trial, whatever a
    /// peer answered.
    ///
    /// ```
    /// use lawsuite::conformance::{Case, Report, Verdict};
    /// use serde_json::json;
    ///
    /// let actual = json!({"paths": ["x".repeat(1 << 20)]});
    /// let bytes = serde_json::to_string(&actual)?.len();
    /// let case = Case { actual, ..Case::default() };
    /// let verdict = Verdict::Fail { report: Report { cases: vec![case], ..Report::default() } };
    /// let cut = verdict.excerpted();
    /// let actual = &cut.report().unwrap().cases[0].actual;
    /// assert_eq!(actual["bytes"], bytes);
    /// assert!(actual["excerpt"].as_str().unwrap().len() < 17 << 10);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn excerpted(mut self) -> Verdict {
        if let Verdict::Fail { report }
        | Verdict::ExpectedFailure { report, .. }
        | Verdict::Flaky { report, .. } = &mut self
        {
            for case in &mut report.cases {
                for value in [&mut case.call, &mut case.expected, &mut case.actual] {
                    excerpt(value);
                }
                if case.diff.len() > CASE_VALUE_BYTES {
                    case.diff = cut(&case.diff);
                }
                for problem in &mut case.problems {
                    if problem.len() > CASE_VALUE_BYTES {
                        *problem = cut(problem);
                    }
                }
            }
        }
        self
    }
}

/// `value` as an excerpt of its JSON when that is past
/// [`CASE_VALUE_BYTES`].
fn excerpt(value: &mut Value) {
    let Ok(text) = serde_json::to_string(value) else {
        return;
    };
    if text.len() > CASE_VALUE_BYTES {
        *value = serde_json::json!({ "excerpt": cut(&text), "bytes": text.len() });
    }
}

fn cut(text: &str) -> String {
    crate::kit::report::cut(text, CASE_VALUE_BYTES * 3 / 4, CASE_VALUE_BYTES / 4).into_owned()
}

/// Why a trial failed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// One line: what failed.
    pub summary: String,
    /// The failing cases: one for a law or regression, one per divergent
    /// call for a seed.
    pub cases: Vec<Case>,
    /// An external peer's faults during the trial (fault kind, message,
    /// stderr tail), when there were any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<Health>,
}

/// One failing call: everything needed to understand it and to run it
/// again.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Case {
    /// What it is, e.g. `smthrs seed 51, call 3 (grep)`.
    pub title: String,
    /// The spec section it pins, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
    /// What lawsuite chose where the spec is silent (a law's `decision`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    /// The tree: each entry's path and what it holds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tree: Vec<TreeEntry>,
    /// What the tree listing leaves out (`and 13 more files (25 in the
    /// tree, 761 bytes)`), or where it is shown instead (a seed's tree is
    /// shown once, with its first divergent call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree_note: Option<String>,
    /// The call's index in its seed's plan (the `N` of `call N` in the
    /// title and of the replay's `--call N`), for a seed's divergent call:
    /// reports name the case by it, so the name says what to replay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_index: Option<usize>,
    /// The kind of difference of a seed's divergent call, as `lawsuite
    /// differ` names it ([`crate::kit::difference::difference_kind`]:
    /// `/paths: items added`, `error code timeout vs answer`): what the
    /// run's summary counts divergences by, and what reports group a
    /// seed's calls by. `None` for a law's or a regression's case, and in
    /// results of an older lawsuite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The call, `{"method": …, "input": …}`.
    pub call: Value,
    /// The expected answer (the law's, the recorded one, or the
    /// reference's), keys in the wire's order.
    pub expected: Value,
    /// The peer's answer.
    pub actual: Value,
    /// Every difference, one sentence each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
    /// A unified diff of the two answers as pretty JSON (`-` expected, `+`
    /// actual), look-alike characters escaped: the same text in every
    /// format.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub diff: String,
    /// The command that runs exactly this case again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<String>,
    /// The regression file this case was recorded into.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded: Option<String>,
}

impl Case {
    /// A failing case: its title, the call (`{"method": …, "input": …}`),
    /// the expected answer and the peer's, both as a report shows them.
    /// The one way a case is built, so every case's expected answer is in
    /// the wire's order (keys of `method`'s output, [`in_wire_order`]) and
    /// its diff is the same text in every report: a law's, a regression's
    /// and a seed's call alike. The rest is added by the setters.
    ///
    /// ```
    /// use lawsuite::conformance::Case;
    /// use lawsuite::peer::Method;
    /// use serde_json::json;
    ///
    /// let case = Case::new(
    ///     "law glob::x (laws/glob/x.toml)",
    ///     json!({"method": "glob", "input": {"pattern": "*"}}),
    ///     Method::Glob,
    ///     &json!({"truncated": false, "paths": ["a"], "total": 1}),
    ///     json!({"paths": [], "total": 0, "truncated": false}),
    /// )
    /// .spec("search-contract §8")
    /// .problem("the answer differs from the expected one");
    /// let keys: Vec<&String> = case.expected.as_object().unwrap().keys().collect();
    /// assert_eq!(keys, ["paths", "total", "truncated"]);
    /// assert!(case.diff.contains("-    \"a\""), "{}", case.diff);
    /// ```
    pub fn new(
        title: impl Into<String>,
        call: Value,
        method: crate::peer::Method,
        expected: &Value,
        actual: Value,
    ) -> Case {
        let expected = in_wire_order(expected, &actual, method);
        Case {
            title: title.into(),
            spec: None,
            decision: None,
            tree: Vec::new(),
            tree_note: None,
            call_index: None,
            kind: None,
            call,
            diff: crate::kit::report::json_diff(&expected, &actual, false),
            expected,
            actual,
            problems: Vec::new(),
            replay: None,
            recorded: None,
        }
    }

    /// The spec section it pins.
    pub fn spec(mut self, spec: impl Into<String>) -> Case {
        self.spec = Some(spec.into());
        self
    }

    /// What lawsuite chose where the spec is silent, or why it was kept.
    pub fn decision(mut self, decision: Option<String>) -> Case {
        self.decision = decision;
        self
    }

    /// The tree, and what its listing leaves out.
    pub fn tree(mut self, tree: Vec<TreeEntry>, note: Option<String>) -> Case {
        self.tree = tree;
        self.tree_note = note;
        self
    }

    /// The call's index in its seed's plan.
    pub fn call_index(mut self, index: usize) -> Case {
        self.call_index = Some(index);
        self
    }

    /// The kind of difference of a seed's divergent call
    /// ([`Case::kind`]).
    pub fn kind(mut self, kind: impl Into<String>) -> Case {
        self.kind = Some(kind.into());
        self
    }

    /// The kind of difference a report groups this case by: its
    /// [`Case::kind`], or, for a case without one (a results file of an
    /// older lawsuite), [`UNCLASSIFIED`].
    pub fn kind_or_unclassified(&self) -> &str {
        self.kind.as_deref().unwrap_or(UNCLASSIFIED)
    }

    /// One more difference, said in a sentence.
    pub fn problem(mut self, problem: impl Into<String>) -> Case {
        self.problems.push(problem.into());
        self
    }

    /// Every difference, one sentence each.
    pub fn problems(mut self, problems: Vec<String>) -> Case {
        self.problems = problems;
        self
    }

    /// The command that runs exactly this case again.
    pub fn replay(mut self, replay: String) -> Case {
        self.replay = Some(replay);
        self
    }

    /// What recording it did (`recorded FILE`, or why not).
    pub fn recorded(mut self, recorded: Option<String>) -> Case {
        self.recorded = recorded;
        self
    }
}

/// The kind a divergent call without [`Case::kind`] is counted under.
pub const UNCLASSIFIED: &str = "not classified (results of an older lawsuite)";

/// One entry of a case's tree.
///
/// In JSON its text is a plain string, as the file holds it (not quoted
/// again), and everything else is said in `about`:
///
/// ```
/// use lawsuite::conformance::TreeEntry;
/// use lawsuite::kit::plan::GeneratedFile;
///
/// let entry = TreeEntry::of(&GeneratedFile::new("a.ts", "x\n"));
/// assert_eq!(serde_json::to_string(&entry)?, r#"{"path":"a.ts","text":"x\n"}"#);
/// assert_eq!(entry.describe(), r#""x\n""#);
/// let link = TreeEntry::of(&GeneratedFile::symlink("l", "../t"));
/// assert_eq!(serde_json::to_string(&link)?, r#"{"path":"l","about":"a symlink to \"../t\""}"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeEntry {
    /// Its path, relative to the tree.
    pub path: String,
    /// Its text, when it is a text file: the first 240 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// What else there is to say of it: `a directory`, `a symlink to
    /// "../t"`, `bytes "\xff"`, `8915 bytes in all`, `mode 644`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub about: String,
}

impl TreeEntry {
    /// The entry of a generated file.
    pub fn of(file: &crate::kit::plan::GeneratedFile) -> TreeEntry {
        let (text, about) = file.text_and_about();
        TreeEntry {
            path: file.path.clone(),
            text,
            about,
        }
    }

    /// What it holds, for a person: the text quoted (escapes for what does
    /// not print), then the rest.
    pub fn describe(&self) -> String {
        crate::kit::plan::describe_entry(self.text.as_deref(), &self.about)
    }
}

/// `expected` with the keys of every object in the order `actual` has them
/// (keys `actual` lacks last, in their own order), so a diff of the two
/// compares like with like: a law's TOML expectation is sorted, the
/// peer's answer is in the wire's order.
///
/// ```
/// use lawsuite::conformance::verdict::align_keys;
/// use serde_json::json;
/// let expected = json!({"a": 1, "paths": ["x"], "total": 1});
/// let actual = json!({"paths": [], "total": 0, "truncated": false});
/// let aligned = align_keys(&expected, &actual);
/// let keys: Vec<&String> = aligned.as_object().unwrap().keys().collect();
/// assert_eq!(keys, ["paths", "total", "a"]);
/// ```
pub fn align_keys(expected: &Value, actual: &Value) -> Value {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            let mut out = serde_json::Map::new();
            for (key, value) in a {
                if let Some(want) = e.get(key) {
                    out.insert(key.clone(), align_keys(want, value));
                }
            }
            for (key, want) in e {
                if !out.contains_key(key) {
                    out.insert(key.clone(), want.clone());
                }
            }
            Value::Object(out)
        }
        // An item the actual list lacks is ordered like its last one.
        (Value::Array(e), Value::Array(a)) => Value::Array(
            e.iter()
                .enumerate()
                .map(|(i, want)| {
                    a.get(i)
                        .or(a.last())
                        .map_or_else(|| want.clone(), |got| align_keys(want, got))
                })
                .collect(),
        ),
        _ => expected.clone(),
    }
}

/// `expected` in the wire's key order for an answer to `method`: the order
/// of `actual` where it has the same keys ([`align_keys`]), and where it has
/// not (a failure where an answer was expected, a shorter list), the
/// order the method's answer is written in. A law's TOML expectation comes
/// sorted, so without this a failure's diff showed the expected answer as
/// `filesSearched, matches, notice, …` beside a wire-ordered actual one.
///
/// ```
/// use lawsuite::conformance::verdict::in_wire_order;
/// use lawsuite::peer::Method;
/// use serde_json::json;
///
/// let sorted = json!({"paths": ["/r/a"], "total": 1, "truncated": false});
/// let failure = json!({"failure": "timeout"});
/// let ordered = in_wire_order(&sorted, &failure, Method::Glob);
/// let keys: Vec<&String> = ordered.as_object().unwrap().keys().collect();
/// assert_eq!(keys, ["paths", "total", "truncated"]);
/// ```
pub fn in_wire_order(expected: &Value, actual: &Value, method: crate::peer::Method) -> Value {
    align_keys(&align_keys(expected, &wire_template(method)), actual)
}

/// An answer to `method` with every field set, serialised: the wire's key
/// order at every depth. Built from struct literals, so a field added to an
/// answer type must be added here too.
fn wire_template(method: crate::peer::Method) -> Value {
    use crate::contract::{ContextLine, GlobOutput, GrepFlowOutput, GrepOutput, Match, Symbol};
    use crate::flow::{EntryKind, LsEntry, LsOutput, ReadOutput};
    use crate::peer::Method;
    let text = String::new;
    let matches = || {
        vec![Match {
            file: text(),
            line: 1,
            text: text(),
            before: vec![ContextLine {
                line: 1,
                text: text(),
            }],
            after: vec![ContextLine {
                line: 1,
                text: text(),
            }],
            symbol: Some(Symbol {
                kind: text(),
                name: text(),
                start_line: 1,
                end_line: 1,
            }),
        }]
    };
    let value = match method {
        Method::Grep => serde_json::to_value(GrepOutput {
            matches: matches(),
            files: vec![text()],
            files_searched: 0,
            skipped_binary: 0,
            truncated: false,
            notice: Some(text()),
        }),
        Method::FlowGrep => serde_json::to_value(GrepFlowOutput {
            matches: matches(),
            files: vec![text()],
            files_searched: 0,
            skipped_binary: 0,
            truncated: false,
            retried_as_literal: Some(true),
            notice: Some(text()),
        }),
        Method::Glob | Method::FlowGlob => serde_json::to_value(GlobOutput {
            paths: vec![text()],
            total: 0,
            truncated: false,
            notice: Some(text()),
        }),
        Method::FlowRead => serde_json::to_value(ReadOutput {
            content: text(),
            start_line: 1,
            end_line: 1,
            total_lines: 1,
            truncated: false,
            notice: Some(text()),
        }),
        Method::FlowLs => serde_json::to_value(LsOutput {
            entries: vec![LsEntry {
                name: text(),
                kind: EntryKind::File,
            }],
            total: 0,
            truncated: false,
            notice: Some(text()),
        }),
        #[cfg(unix)]
        Method::FlowBash => serde_json::to_value(crate::flow::BashOutput {
            exit_code: 0,
            stdout: text(),
            stderr: text(),
            stdout_truncated: false,
            stderr_truncated: false,
            stdout_dropped_bytes: 0,
            stderr_dropped_bytes: 0,
            invalid_probe: Some(Value::Null),
            mutated: Some(false),
        }),
        #[cfg(not(unix))]
        Method::FlowBash => Ok(Value::Null),
    };
    value.unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `runs` lists every asking's tag up to `FLAKY_RUNS_LISTED` askings,
    /// and the summary each of them in order; one asking more and `runs`
    /// stops at the bound, the summary counts each tag instead, and what
    /// is kept of the askings does not grow.
    #[test]
    fn a_flaky_verdict_lists_its_askings_up_to_the_bound_then_counts_them() {
        let broken = || Verdict::Broken { why: "gone".into() };
        for (asked, listed) in [(FLAKY_RUNS_LISTED, true), (FLAKY_RUNS_LISTED + 1, false)] {
            let mut repeats = Repeats::new(Verdict::Pass);
            for i in 1..asked {
                repeats.add(if i == 1 { broken() } else { Verdict::Pass });
            }
            assert_eq!(repeats.asked(), asked as u64);
            assert!(repeats.listed.len() <= FLAKY_RUNS_LISTED && repeats.counts.len() == 2);
            let Verdict::Flaky { runs, report } = repeats.verdict() else {
                panic!("not flaky");
            };
            assert_eq!(runs.len(), FLAKY_RUNS_LISTED);
            assert_eq!(runs[..3], ["pass", "broken", "pass"]);
            let head = format!(
                "flaky: asked {asked} times on fresh trees, it passed {} and did not pass 1 (",
                asked - 1
            );
            assert!(report.summary.starts_with(&head), "{}", report.summary);
            let tags = if listed {
                "(pass, broken, pass, pass,".to_string()
            } else {
                format!("({} pass, 1 broken); asking 2 of {asked}: gone", asked - 1)
            };
            assert!(report.summary.contains(&tags), "{}", &report.summary[..200]);
        }
        assert_eq!(FLAKY_RUNS_LISTED, 862);
    }
}
