//! `lawsuite merge` and `lawsuite report`: shards (or runs) put together
//! as one, streamed.
//!
//! [`Merge::check`] reads every input once, line by line: each file's own
//! rules ([`super::check`]), its run line against the first input's (one
//! reference, one lawsuite version, one sweep: [`crate::report::sweep`]),
//! every shard once, and each trial once ([`super::index`]: 24 bytes a
//! trial). Nothing of an outcome is kept but its key and place. A report
//! then walks the merged outcomes ([`Merge::walk`]), each input read
//! again and each outcome parsed as it is written; the counts are a walk
//! of their own ([`Merge::summary`]).

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::check::{Check, Problems, SHARDS, SWEEP, Step};
use super::index::{Index, Loc, MAX_FILES};
use super::line::{Cut, CutOutcome, Key, Lines, Tag};
use super::{Accept, Closing, ResultsError, ResultsErrorKind, Source, closing_of};
use crate::conformance::shard::parse_shard;
use crate::conformance::{Counts, Kind, Outcome, Summary, section_of};
use crate::report::{RunInfo, Walk, sweep};

/// What [`Merge::check`] keeps of an outcome: its trial and verdict.
#[derive(Debug, Deserialize)]
struct Head {
    id: Key,
    verdict: Tag,
}

/// An outcome's id as a message shows it.
#[derive(Debug, Deserialize)]
struct Named {
    id: Cut,
}

/// What [`Merge::summary`] counts of an outcome.
#[derive(Debug, Deserialize)]
struct Counted {
    kind: Kind,
    #[serde(default)]
    peer: Option<Cut>,
    #[serde(default)]
    spec: Option<Cut>,
    item: Key,
    verdict: Tag,
    #[serde(default)]
    compared: usize,
    #[serde(default)]
    report: Option<CaseCount>,
}

/// What [`Merge::summary`] counts of a report: its cases' kinds of
/// difference, everything else of them skipped.
#[derive(Debug, Default, Deserialize)]
struct CaseCount {
    #[serde(default)]
    cases: Vec<CaseKind>,
}

/// A case's kind of difference ([`crate::conformance::Case::kind`]).
#[derive(Debug, Default, Deserialize)]
struct CaseKind {
    #[serde(default)]
    kind: Option<Cut>,
}

/// Results files checked as one sweep, walked again for each report.
///
/// ```
/// use lawsuite::report::results::{Accept, Merge, Source};
///
/// let run = |shard: &str| format!(
///     "{{\"type\":\"run\",\"lawsuite\":\"0.1.0\",\"project\":\"p\",\"reference\":\"portable\",\"peers\":[],\"started\":0,\"machine\":\"m\",\"shard\":\"{shard}\",\"laws\":\"1 laws, digest 0\"}}\n"
/// );
/// let outcome = |id: &str| format!(
///     "{{\"type\":\"outcome\",\"id\":\"{id}\",\"item\":\"law::a\",\"kind\":\"law\",\"peer\":\"p\",\"verdict\":\"pass\",\"seconds\":0.0}}\n"
/// );
/// let summary = "{\"type\":\"summary\",\"byKind\":{\"law\":{\"pass\":1,\"fail\":0,\"expectedFailure\":0,\"unexpectedPass\":0,\"skipped\":0,\"broken\":0}},\"byPeer\":{},\"bySection\":{},\"divergentCalls\":0,\"seeds\":0,\"stopped\":[],\"seconds\":1.0,\"complete\":true}\n";
/// let one = Source::bytes("1.jsonl", run("1/2") + &outcome("law::a::p") + summary);
/// let two = Source::bytes("2.jsonl", run("2/2") + &outcome("law::b::p") + summary);
/// let merged = Merge::check(vec![one.clone(), two], Accept::WHOLE)?;
/// assert_eq!(merged.outcomes(), 2);
/// assert_eq!(merged.summary()?.total().pass, 2);
/// // A shard twice is refused, naming it.
/// let err = Merge::check(vec![one.clone(), one], Accept::WHOLE).unwrap_err();
/// assert!(err.to_string().contains("shard 1/2 again"), "{err}");
/// # Ok::<(), lawsuite::report::results::ResultsError>(())
/// ```
#[derive(Debug)]
pub struct Merge {
    sources: Vec<Source>,
    names: Vec<String>,
    /// Bytes of each input checked: a walk reads no further.
    lens: Vec<u64>,
    /// Outcome lines of each input (checked again by each walk).
    lines: Vec<usize>,
    info: RunInfo,
    stopped: Vec<(String, String, String)>,
    seconds: f64,
    warnings: Vec<ResultsError>,
    more: usize,
    notes: Vec<String>,
    /// Places ([`Loc::place`]) of outcomes not counted: a duplicate, the
    /// other verdict of a conflict. Sorted.
    dropped: Vec<u64>,
    outcomes: usize,
}

impl Merge {
    /// Read and check `sources` as the shards (or runs) of one sweep: each
    /// whole, of one reference, lawsuite version and sweep, every shard
    /// once, each trial in one place only. What `accept` lets through is
    /// a warning ([`Merge::warnings`]); anything else is the error of the
    /// first such problem in reading order.
    pub fn check(sources: Vec<Source>, accept: Accept) -> Result<Merge, ResultsError> {
        if sources.is_empty() {
            return Err(ResultsError {
                kind: ResultsErrorKind::Mismatch,
                source: "(no files)".into(),
                line: None,
                message: "give at least one results file".into(),
            });
        }
        if sources.len() > MAX_FILES {
            return Err(ResultsError {
                kind: ResultsErrorKind::Mismatch,
                source: format!("{} files", sources.len()),
                line: None,
                message: format!(
                    "more than {MAX_FILES} results files: merge them in groups, then the groups"
                ),
            });
        }
        let names: Vec<String> = sources.iter().map(Source::name).collect();
        let mut problems = Problems::default();
        let mut index = Index::default();
        let mut info: Option<RunInfo> = None;
        let mut shards = Vec::new();
        let mut lens = Vec::new();
        let mut lines_of = Vec::new();
        let mut stopped: Vec<(String, String, String)> = Vec::new();
        let mut seconds = 0.0;
        for (i, source) in sources.iter().enumerate() {
            let mut lines = Lines::new(source.read(None)?);
            let mut check = Check::new(&names[i], i);
            while let Some(got) = lines.next::<Head>() {
                match check.line(got, &mut problems)? {
                    Step::Run(run) => {
                        index.reserve(run.trials.unwrap_or(0));
                        shards.push((names[i].clone(), run.shard.clone()));
                        match &mut info {
                            None => info = Some(*run),
                            Some(merged) => {
                                compare(merged, &run, &names, i, check.last, &mut problems)?;
                                absorb(merged, *run);
                            }
                        }
                    }
                    Step::Outcome(n, head) => {
                        index.push(head.id, Loc::new(i, n, head.verdict, &names[i])?);
                    }
                    Step::Other => {}
                    Step::End => break,
                }
            }
            check.finish(&mut problems)?;
            lens.push(lines.offset);
            lines_of.push(check.outcome_lines);
            for s in std::mem::take(&mut check.stopped) {
                if !stopped.contains(&s) {
                    stopped.push(s);
                }
            }
            seconds += check.seconds;
        }
        let Some(mut info) = info else {
            unreachable!("every input has a run line (its check says so)")
        };
        for problem in shard_problems(&shards) {
            problems.add((SHARDS, 0, 0), problem);
        }
        // Each trial once: of two verdicts the one that fails the run
        // counts, else the first; the others are dropped.
        index.sort();
        let mut dropped = Vec::new();
        for group in index.repeats() {
            let first = group[0].loc;
            let kept = group
                .iter()
                .find(|e| e.loc.tag().is_failure())
                .unwrap_or(&group[0])
                .loc;
            for e in &group[1..] {
                problems.twice(e.loc, first);
            }
            dropped.extend(
                group
                    .iter()
                    .filter(|e| e.loc != kept)
                    .map(|e| e.loc.place()),
            );
        }
        let outcomes = index.len() - dropped.len();
        drop(index);
        dropped.sort_unstable();
        let (warnings, more) = problems.settle(accept, |pairs| {
            let places: Vec<Loc> = pairs.iter().map(|(at, _)| *at).collect();
            let ids = ids_at(&sources, &lens, &places)?;
            Ok(pairs
                .iter()
                .map(|(at, first)| {
                    let id = ids.get(&at.place()).map_or("?", String::as_str);
                    twice(&names, *at, *first, id)
                })
                .collect())
        })?;
        let mut notes = Vec::new();
        if sources.len() > 1 && !sweep::names_its_sweep(&info) {
            notes.push(format!(
                "{} were written before results named their sweep: only their lawsuite version, reference, generators, seeds, ground and shards are compared, not their laws, regressions or filter",
                names.join(", ")
            ));
        }
        // The merge is the sweep, not one of its shards; what it accepted
        // is said by every report of it.
        info.shard = None;
        for w in &warnings {
            let w = w.to_string();
            if !info.warnings.contains(&w) {
                info.warnings.push(w);
            }
        }
        if more > 0 {
            info.warnings.push(format!("… and {more} more problems"));
        }
        Ok(Merge {
            sources,
            names,
            lens,
            lines: lines_of,
            info,
            stopped,
            seconds,
            warnings,
            more,
            notes,
            dropped,
            outcomes,
        })
    }

    /// The merged run: the first input's, with every input's peers, the
    /// earliest start, the trials summed, no shard, and the problems
    /// accepted in [`RunInfo::warnings`].
    pub fn info(&self) -> &RunInfo {
        &self.info
    }

    /// The problems [`Accept`] let through, the first
    /// [`super::LISTED_PROBLEMS`] of them.
    pub fn warnings(&self) -> &[ResultsError] {
        &self.warnings
    }

    /// How many problems were let through, listed or not.
    pub fn problems(&self) -> usize {
        self.warnings.len() + self.more
    }

    /// What the merge could not check, for a person (inputs written
    /// before results named their sweep).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The inputs' names.
    pub fn sources(&self) -> &[String] {
        &self.names
    }

    /// How many outcomes the merge counts: each trial once.
    pub fn outcomes(&self) -> usize {
        self.outcomes
    }

    /// How the merged results end when written again: complete unless a
    /// problem was let through, so a later merge sees it.
    pub fn closing(&self) -> Closing {
        closing_of(&self.warnings, self.problems())
    }

    /// The merged counts: a walk of every input, each outcome read for
    /// what it counts.
    pub fn summary(&self) -> Result<Summary, ResultsError> {
        let seconds = std::time::Duration::try_from_secs_f64(self.seconds.max(0.0))
            .unwrap_or(std::time::Duration::MAX);
        let mut summary = Summary {
            seconds: seconds.as_secs_f64(),
            stopped: self.stopped.clone(),
            ..Summary::default()
        };
        // Seeds are counted once however many subjects ran them: their
        // items' keys, sorted and deduplicated at the end.
        let mut seeds: Vec<Key> = Vec::new();
        self.each(|o: Counted| {
            let count = |c: &mut Counts| count(c, o.verdict);
            count(
                summary
                    .by_kind
                    .entry(o.kind.name().to_string())
                    .or_default(),
            );
            if let Some(peer) = &o.peer {
                count(summary.by_peer.entry(peer.0.clone()).or_default());
            }
            if let Some(spec) = &o.spec {
                count(summary.by_section.entry(section_of(&spec.0)).or_default());
            }
            if o.kind == Kind::Seed {
                seeds.push(o.item);
                summary.compared_calls += o.compared;
                if o.verdict == Tag::Fail {
                    let cases = o.report.map_or_else(Vec::new, |r| r.cases);
                    summary.divergent_calls += cases.len();
                    let kinds = summary
                        .divergent_kinds
                        .entry(o.peer.as_ref().map(|p| p.0.clone()).unwrap_or_default())
                        .or_default();
                    for case in cases {
                        let kind = case.kind.map_or_else(
                            || crate::conformance::verdict::UNCLASSIFIED.to_string(),
                            |k| k.0,
                        );
                        *kinds.entry(kind).or_default() += 1;
                    }
                }
            }
            Ok(())
        })?;
        seeds.sort_unstable();
        seeds.dedup();
        summary.seeds = seeds.len();
        Ok(summary)
    }

    /// Each merged outcome in turn, as a report shows it: every string
    /// kept to [`super::KEPT_STRING`] bytes (`exact`: whole, as `--format
    /// json` writes it).
    pub fn walk(&self, exact: bool) -> impl Walk + '_ {
        Walked { merge: self, exact }
    }

    /// Write the merged results as `--format jsonl` does: the run line,
    /// every outcome as it is read, the summary line.
    pub fn write_jsonl(&self, summary: &Summary, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{}", crate::report::jsonl_line("run", &self.info))?;
        self.each(|o: Outcome| {
            crate::report::json::write_jsonl_line(out, "outcome", &o)
                .map_err(|e| self.cannot_write(e))
        })
        .map_err(io::Error::other)?;
        writeln!(out, "{}", super::summary_line(summary, &self.closing()))
    }

    fn cannot_write(&self, e: io::Error) -> ResultsError {
        ResultsError {
            kind: ResultsErrorKind::Unreadable,
            source: "the output".into(),
            line: None,
            message: format!("cannot be written: {e}"),
        }
    }

    /// Each counted outcome of every input, read as `O`, in input and
    /// line order.
    fn each<O: DeserializeOwned>(
        &self,
        mut f: impl FnMut(O) -> Result<(), ResultsError>,
    ) -> Result<(), ResultsError> {
        let mut dropped = self.dropped.iter().copied().peekable();
        for (i, source) in self.sources.iter().enumerate() {
            let mut lines = Lines::new(source.read(Some(self.lens[i]))?);
            let mut check = Check::new(&self.names[i], i);
            // Checked already: what a walk finds again is not news.
            let mut again = Problems::default();
            let mut outcomes = 0;
            while let Some(got) = lines.next::<O>() {
                let step = check.line(got, &mut again).map_err(|e| self.changed(e))?;
                match step {
                    Step::Outcome(n, o) => {
                        outcomes += 1;
                        let place = Loc::new(i, n, Tag::Pass, &self.names[i])?.place();
                        while dropped.next_if(|d| *d < place).is_some() {}
                        if dropped.next_if_eq(&place).is_some() {
                            continue;
                        }
                        f(o)?;
                    }
                    Step::End => break,
                    Step::Run(_) | Step::Other => {}
                }
            }
            if outcomes != self.lines[i] {
                return Err(self.changed(ResultsError {
                    kind: ResultsErrorKind::Unreadable,
                    source: self.names[i].clone(),
                    line: None,
                    message: format!(
                        "{outcomes} outcome lines now, {} when it was checked",
                        self.lines[i]
                    ),
                }));
            }
        }
        Ok(())
    }

    /// A file that reads otherwise than when it was checked.
    fn changed(&self, err: ResultsError) -> ResultsError {
        ResultsError {
            message: format!(
                "{}; it changed while it was read (a run still writing it?): merge it again once it is whole",
                err.message
            ),
            kind: ResultsErrorKind::Unreadable,
            ..err
        }
    }
}

/// The merged outcomes as a report walks them.
struct Walked<'a> {
    merge: &'a Merge,
    exact: bool,
}

impl Walk for Walked<'_> {
    fn walk(&self, each: &mut dyn FnMut(&Outcome) -> io::Result<()>) -> io::Result<()> {
        let io = |e: io::Error| ResultsError {
            kind: ResultsErrorKind::Unreadable,
            source: "the report".into(),
            line: None,
            message: e.to_string(),
        };
        let walked = if self.exact {
            self.merge.each(|o: Outcome| each(&o).map_err(io))
        } else {
            self.merge.each(|o: CutOutcome| each(&o.0).map_err(io))
        };
        walked.map_err(io::Error::other)
    }
}

/// One verdict more in `counts`.
fn count(counts: &mut Counts, tag: Tag) {
    match tag {
        Tag::Pass => counts.pass += 1,
        Tag::Fail => counts.fail += 1,
        Tag::ExpectedFailure => counts.expected_failure += 1,
        Tag::UnexpectedPass => counts.unexpected_pass += 1,
        Tag::Skipped => counts.skipped += 1,
        Tag::Broken => counts.broken += 1,
        Tag::Flaky => counts.flaky += 1,
    }
}

/// The run line of input `i` (`run`, read at `line`) against the merged
/// one: another reference is an error; another lawsuite version or sweep
/// is a problem.
fn compare(
    merged: &RunInfo,
    run: &RunInfo,
    names: &[String],
    i: usize,
    line: u64,
    problems: &mut Problems,
) -> Result<(), ResultsError> {
    let problem = |kind, message| ResultsError {
        kind,
        source: names[i].clone(),
        line: None,
        message,
    };
    let first = &names[0];
    if run.reference != merged.reference {
        return Err(problem(
            ResultsErrorKind::Mismatch,
            format!(
                "its reference is {:?}, not {:?}: these runs do not compare the same thing",
                run.reference, merged.reference
            ),
        ));
    }
    let order = (SWEEP, i as u64, line);
    if run.lawsuite != merged.lawsuite {
        problems.add(
            order,
            problem(
                ResultsErrorKind::Version,
                format!(
                    "written by lawsuite {:?}, but {first} by lawsuite {:?}: the laws, seeds and verdicts of two versions differ; run every shard with one version",
                    run.lawsuite, merged.lawsuite
                ),
            ),
        );
    }
    for (field, theirs, ours) in sweep::differences(merged, run) {
        problems.add(
            order,
            problem(
                ResultsErrorKind::Mixed,
                format!(
                    "its {field} is {ours}, but {first}'s is {theirs}: results of two sweeps; merge the shards of one `lawsuite run` command"
                ),
            ),
        );
    }
    Ok(())
}

/// `run` put into the merged run line.
fn absorb(merged: &mut RunInfo, run: RunInfo) {
    merged.trials = merged
        .trials
        .zip(run.trials)
        .map(|(a, b)| a.saturating_add(b));
    for peer in run.peers {
        if !merged.peers.iter().any(|p| p.name == peer.name) {
            merged.peers.push(peer);
        }
    }
    if run.started > 0 && (merged.started == 0 || run.started < merged.started) {
        merged.started = run.started;
    }
    for w in run.warnings {
        if !merged.warnings.contains(&w) {
            merged.warnings.push(w);
        }
    }
}

/// The ids of the outcomes at `places`, read again from their files.
fn ids_at(
    sources: &[Source],
    lens: &[u64],
    places: &[Loc],
) -> Result<BTreeMap<u64, String>, ResultsError> {
    let mut wanted: Vec<Loc> = places.to_vec();
    wanted.sort_unstable();
    let mut ids = BTreeMap::new();
    for group in wanted.chunk_by(|a, b| a.file() == b.file()) {
        let file = group[0].file();
        let mut lines = Lines::new(sources[file].read(Some(lens[file]))?);
        let mut rest = group.iter().peekable();
        while let Some(got) = lines.next::<Named>() {
            let Some(next) = rest.peek() else { break };
            if got.n < next.line() {
                continue;
            }
            if let Ok(super::line::Line::Outcome(named)) = got.got {
                while let Some(at) = rest.next_if(|l| l.line() == got.n) {
                    ids.insert(at.place(), named.id.0.clone());
                }
            }
        }
    }
    Ok(ids)
}

/// A trial found at `at` after `first`: in one file, or in two.
pub(crate) fn twice(names: &[String], at: Loc, first: Loc, id: &str) -> ResultsError {
    let (was, is) = (first.tag().name(), at.tag().name());
    let same = was == is;
    let (kind, message) = if first.file() == at.file() {
        let n = first.line();
        if same {
            (
                ResultsErrorKind::Duplicate,
                format!(
                    "trial {id} again (first at line {n}, {is} both times): it would be counted twice"
                ),
            )
        } else {
            (
                ResultsErrorKind::Conflict,
                format!("trial {id} is {is} here but {was} at line {n}: one trial, two verdicts"),
            )
        }
    } else {
        let (f, n) = (&names[first.file()], first.line());
        if same {
            (
                ResultsErrorKind::Duplicate,
                format!(
                    "trial {id} is also in {f} line {n} ({is} both times): it would be counted twice; merge each shard once"
                ),
            )
        } else {
            (
                ResultsErrorKind::Conflict,
                format!(
                    "trial {id} is {is} here but {was} in {f} line {n}: one trial, two verdicts; merge the shards of one run"
                ),
            )
        }
    };
    ResultsError {
        kind,
        source: names[at.file()].clone(),
        line: Some(super::check::saturate(at.line())),
        message,
    }
}

/// When every input is a shard (`run --shard K/N`): one N, and each K of
/// 1..=N exactly once, so no shard's results are lost or counted twice.
fn shard_problems(shards: &[(String, Option<String>)]) -> Vec<ResultsError> {
    let mut problems = Vec::new();
    let parsed: Option<Vec<(&String, (u64, u64))>> = shards
        .iter()
        .map(|(source, shard)| Some((source, parse_shard(shard.as_deref()?).ok()?)))
        .collect();
    let Some(parsed) = parsed else {
        return problems;
    };
    let Some(&(first, (_, n))) = parsed.first() else {
        return problems;
    };
    let mut have: BTreeMap<u64, &String> = BTreeMap::new();
    for &(source, (k, m)) in &parsed {
        let problem = |kind, message| ResultsError {
            kind,
            source: source.clone(),
            line: None,
            message,
        };
        if m != n {
            problems.push(problem(
                ResultsErrorKind::Mixed,
                format!("shard {k}/{m}, but {first} is a shard of {n}: shards of two sweeps"),
            ));
        } else if let Some(other) = have.insert(k, source) {
            problems.push(problem(
                ResultsErrorKind::Duplicate,
                format!("shard {k}/{n} again (also {other}): merge each shard once"),
            ));
        }
    }
    let missing: Vec<String> = (1..=n)
        .filter(|k| !have.contains_key(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        let given: Vec<&str> = shards.iter().map(|(s, _)| s.as_str()).collect();
        problems.push(ResultsError {
            kind: ResultsErrorKind::Incomplete,
            source: given.join(", "),
            line: None,
            message: format!(
                "shard {} of the sweep is missing: merge all {n} shards",
                missing.join(", ")
            ),
        });
    }
    problems
}
