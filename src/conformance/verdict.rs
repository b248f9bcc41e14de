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
    /// diffs are one failure, reported as the first.
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
        let tags: Vec<String> = runs.iter().map(|v| v.tag().to_string()).collect();
        if tags.windows(2).all(|w| w[0] == w[1]) {
            return runs.into_iter().next().unwrap_or(Verdict::Broken {
                why: "asked no times".into(),
            });
        }
        let listed = runs.iter().find_map(|v| match v {
            Verdict::ExpectedFailure { reason, source, .. }
            | Verdict::UnexpectedPass { reason, source } => Some((reason.clone(), source.clone())),
            _ => None,
        });
        let failing = runs.iter().enumerate().find_map(|(i, v)| {
            let why = match v {
                Verdict::Broken { why } => Some(Report {
                    summary: why.clone(),
                    ..Report::default()
                }),
                other => other.report().cloned(),
            };
            why.map(|r| (i, r))
        });
        let (at, mut report) = failing.unwrap_or_default();
        let passed = runs
            .iter()
            .filter(|v| matches!(v, Verdict::Pass | Verdict::UnexpectedPass { .. }))
            .count();
        report.summary = format!(
            "flaky: asked {} times on fresh trees, it passed {passed} and did not pass {} ({}); asking {} of {}: {}",
            runs.len(),
            runs.len() - passed,
            tags.join(", "),
            at + 1,
            runs.len(),
            report.summary
        );
        match listed {
            Some((reason, source)) => Verdict::ExpectedFailure {
                reason,
                source,
                report,
            },
            None => Verdict::Flaky { runs: tags, report },
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
