//! One run's results as `diff`, `history` and `run --baseline` compare
//! them: a results file, checked whole on its first reading and read
//! again for each later walk, or results held in memory (a run's own).
//! A walk gives each outcome as a [`Trial`]: its key, its id, verdict,
//! peer and spec section as a report shows them, and why it fails.

use std::ops::ControlFlow;

use serde::Deserialize;

use super::check::{Check, Problems, Step};
use super::index::Loc;
use super::line::{Cut, Id, Key, Lines, Tag, kept};
use super::{Accept, Results, ResultsError, ResultsErrorKind, Source, tag};
use crate::conformance::{Outcome, Verdict};
use crate::report::RunInfo;

/// One outcome as a comparison keeps it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Trial {
    pub(crate) key: Key,
    /// The id, as a report shows it ([`kept`]).
    pub(crate) id: String,
    pub(crate) tag: Tag,
    pub(crate) peer: Option<String>,
    pub(crate) spec: Option<String>,
    /// Why it fails, as `run` says it ([`reason`]).
    pub(crate) reason: Option<String>,
}

/// What a walk reads of an outcome line.
#[derive(Debug, Deserialize)]
struct Read {
    id: Id,
    verdict: Tag,
    #[serde(default)]
    peer: Option<Cut>,
    #[serde(default)]
    spec: Option<Cut>,
    #[serde(default)]
    why: Option<Cut>,
    #[serde(default)]
    reason: Option<Cut>,
    #[serde(default)]
    source: Option<Cut>,
    #[serde(default)]
    report: Option<ReportHead>,
}

/// A report's summary and its first case's first problem.
#[derive(Debug, Default, Deserialize)]
struct ReportHead {
    #[serde(default)]
    summary: Cut,
    #[serde(default)]
    cases: First<CaseHead>,
}

#[derive(Debug, Default, Deserialize)]
struct CaseHead {
    #[serde(default)]
    problems: First<Cut>,
}

/// The first element of a list, the others skipped.
#[derive(Debug)]
struct First<T>(Option<T>);

impl<T> Default for First<T> {
    fn default() -> First<T> {
        First(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for First<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<First<T>, D::Error> {
        struct Visit<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Visit<T> {
            type Value = First<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<First<T>, A::Error> {
                let first = seq.next_element()?;
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(First(first))
            }
        }
        d.deserialize_seq(Visit(std::marker::PhantomData))
    }
}

impl Read {
    fn trial(self) -> Trial {
        let why = match self.verdict {
            Tag::Fail => self.report.map(|r| {
                let summary = r.summary.0;
                match r.cases.0.and_then(|c| c.problems.0) {
                    Some(Cut(p)) => format!("{summary}: {p}"),
                    None => summary,
                }
            }),
            Tag::UnexpectedPass => Some(unexpected_pass(
                &self.reason.unwrap_or_default().0,
                &self.source.unwrap_or_default().0,
            )),
            Tag::Broken => Some(self.why.unwrap_or_default().0),
            _ => None,
        };
        Trial {
            key: self.id.key,
            id: self.id.shown,
            tag: self.verdict,
            peer: self.peer.map(|p| p.0),
            spec: self.spec.map(|s| s.0),
            reason: why,
        }
    }
}

/// The reason of an unexpected pass ([`crate::conformance::sentence`]).
pub(crate) fn unexpected_pass(reason: &str, source: &str) -> String {
    crate::conformance::sentence::unexpected_pass(None, reason, source)
}

impl Trial {
    /// An outcome held in memory.
    pub(crate) fn of(o: &Outcome) -> Trial {
        Trial {
            key: Key::of(o.id.as_str()),
            id: kept(o.id.as_str()),
            tag: tag(o),
            peer: o.peer.clone(),
            spec: o.spec.clone(),
            reason: reason(&o.verdict),
        }
    }
}

/// A file's state once checked.
#[derive(Debug)]
struct Checked {
    info: RunInfo,
    len: u64,
    outcomes: usize,
}

/// One run's results, for a comparison.
#[derive(Debug)]
pub struct Side<'a> {
    what: What<'a>,
    checked: Option<Checked>,
}

#[derive(Debug)]
enum What<'a> {
    File(Source),
    Held(&'a Results),
}

impl<'a> Side<'a> {
    /// A results file, checked whole when first read.
    pub fn file(source: Source) -> Side<'static> {
        Side {
            what: What::File(source),
            checked: None,
        }
    }

    /// Results held in memory (checked when they were read, or a run's
    /// own).
    pub fn held(results: &'a Results) -> Side<'a> {
        Side {
            what: What::Held(results),
            checked: None,
        }
    }

    /// Its name, for messages.
    pub fn name(&self) -> String {
        match &self.what {
            What::File(source) => source.name(),
            What::Held(results) => results.sources.first().cloned().unwrap_or_default(),
        }
    }

    /// Its run line (after [`Side::check`], for a file).
    pub(crate) fn info(&self) -> &RunInfo {
        match (&self.what, &self.checked) {
            (What::Held(results), _) => &results.info,
            (What::File(_), Some(checked)) => &checked.info,
            (What::File(_), None) => {
                static NONE: std::sync::OnceLock<RunInfo> = std::sync::OnceLock::new();
                NONE.get_or_init(RunInfo::default)
            }
        }
    }

    /// Check a results file whole now (every rule of its own, and each
    /// trial once), as a run with `--baseline` does before its trials:
    /// the comparison later reads it again.
    pub fn check_whole(&mut self) -> Result<(), ResultsError> {
        let name = self.name();
        let mut index = super::index::Index::default();
        self.check(0, |n, trial| {
            index.push(trial.key, Loc::new(0, n, trial.tag, &name)?);
            Ok(())
        })?;
        index.sort();
        if let Some(group) = index.repeats().next() {
            let (first, again) = (group[0].loc, group[1].loc);
            return Err(found_twice(
                self,
                0,
                group[0].key,
                again.line(),
                (first.tag(), again.tag()),
            )?);
        }
        Ok(())
    }

    /// The first reading: a file is checked whole (each of its own rules;
    /// any problem is an error: a comparison with part of a run would call
    /// the rest added or removed), each trial given to `each` with its
    /// line.
    pub(crate) fn check(
        &mut self,
        file: usize,
        mut each: impl FnMut(u64, Trial) -> Result<(), ResultsError>,
    ) -> Result<(), ResultsError> {
        if self.checked.is_some() {
            // Checked already: read again.
            return self.walk(file, |n, trial| {
                each(n, trial).map(|()| ControlFlow::Continue(()))
            });
        }
        let source = match &self.what {
            What::Held(results) => {
                for (i, o) in results.outcomes.iter().enumerate() {
                    each(i as u64 + 1, Trial::of(o))?;
                }
                return Ok(());
            }
            What::File(source) => source,
        };
        let name = source.name();
        let mut problems = Problems::default();
        let mut check = Check::new(&name, file);
        let mut lines = Lines::new(source.read(None)?);
        let mut info = RunInfo::default();
        while let Some(got) = lines.next::<Read>() {
            match check.line(got, &mut problems)? {
                Step::Run(run) => info = *run,
                Step::Outcome(n, read) => each(n, read.trial())?,
                Step::Other => {}
                Step::End => break,
            }
        }
        check.finish(&mut problems)?;
        problems.settle(Accept::WHOLE, |_| Ok(Vec::new()))?;
        self.checked = Some(Checked {
            info,
            len: lines.offset,
            outcomes: check.outcome_lines,
        });
        Ok(())
    }

    /// Each trial again, with its line, until `each` breaks.
    pub(crate) fn walk(
        &self,
        file: usize,
        mut each: impl FnMut(u64, Trial) -> Result<ControlFlow<()>, ResultsError>,
    ) -> Result<(), ResultsError> {
        let (source, checked) = match (&self.what, &self.checked) {
            (What::Held(results), _) => {
                for (i, o) in results.outcomes.iter().enumerate() {
                    if each(i as u64 + 1, Trial::of(o))?.is_break() {
                        break;
                    }
                }
                return Ok(());
            }
            (What::File(source), Some(checked)) => (source, checked),
            (What::File(source), None) => {
                return Err(ResultsError {
                    kind: ResultsErrorKind::Unreadable,
                    source: source.name(),
                    line: None,
                    message: "walked before it was checked".into(),
                });
            }
        };
        let name = source.name();
        let mut again = Problems::default();
        let mut check = Check::new(&name, file);
        let mut lines = Lines::new(source.read(Some(checked.len))?);
        let mut outcomes = 0;
        let changed = |message: String| ResultsError {
            kind: ResultsErrorKind::Unreadable,
            source: name.clone(),
            line: None,
            message: format!(
                "{message}; it changed while it was read (a run still writing it?): compare it once it is whole"
            ),
        };
        while let Some(got) = lines.next::<Read>() {
            match check
                .line(got, &mut again)
                .map_err(|e| changed(e.to_string()))?
            {
                Step::Outcome(n, read) => {
                    outcomes += 1;
                    if each(n, read.trial())?.is_break() {
                        return Ok(());
                    }
                }
                Step::End => break,
                Step::Run(_) | Step::Other => {}
            }
        }
        if outcomes != checked.outcomes {
            return Err(changed(format!(
                "{outcomes} outcome lines now, {} when it was checked",
                checked.outcomes
            )));
        }
        Ok(())
    }

    /// The ids at `lines` (sorted), read again.
    pub(crate) fn ids_at(
        &self,
        file: usize,
        lines: &[u64],
    ) -> Result<Vec<(u64, String)>, ResultsError> {
        let mut out = Vec::new();
        let mut wanted = lines.iter().copied().peekable();
        self.walk(file, |n, trial| {
            while wanted.next_if(|w| *w < n).is_some() {}
            if wanted.next_if_eq(&n).is_some() {
                out.push((n, trial.id));
            }
            Ok(if wanted.peek().is_none() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            })
        })?;
        Ok(out)
    }

    /// The first line holding `key`, read again.
    pub(crate) fn first_line_of(&self, file: usize, key: Key) -> Result<Option<u64>, ResultsError> {
        let mut first = None;
        self.walk(file, |n, trial| {
            Ok(if trial.key == key {
                first = Some(n);
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            })
        })?;
        Ok(first)
    }
}

/// A trial found twice in side `file`, at `at`: refused, named.
pub(crate) fn found_twice(
    side: &Side<'_>,
    file: usize,
    key: Key,
    at: u64,
    tags: (Tag, Tag),
) -> Result<ResultsError, ResultsError> {
    let first = side.first_line_of(file, key)?.unwrap_or(0);
    let id = side
        .ids_at(file, &[at])?
        .pop()
        .map_or_else(|| "?".to_string(), |(_, id)| id);
    let names = vec![side.name(); file + 1];
    Ok(super::merge::twice(
        &names,
        Loc::new(file, at, tags.1, &names[file])?,
        Loc::new(file, first, tags.0, &names[file])?,
        &id,
    ))
}

/// Why a trial fails, in one line: its report's summary, or what the
/// verdict says.
pub fn reason(verdict: &Verdict) -> Option<String> {
    match verdict {
        // What is wrong, as the report's first problem says it ("/paths:
        // expected 2 entries, got 1"), else its one-line summary.
        Verdict::Fail { report } => Some(
            report
                .cases
                .first()
                .and_then(|c| c.problems.first())
                .map_or_else(
                    || report.summary.clone(),
                    |p| format!("{}: {p}", report.summary),
                ),
        ),
        Verdict::UnexpectedPass { reason, source } => Some(unexpected_pass(reason, source)),
        Verdict::Broken { why } => Some(why.clone()),
        _ => None,
    }
}
