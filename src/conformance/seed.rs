//! Judging a seed: its plan through the reference and every subject in
//! one pass, each subject's divergences its verdict (those its registered
//! built-in documents counted apart), the first few shrunk and recorded
//! when asked.

use std::collections::BTreeMap;
use std::time::Instant;

use serde_json::Value;

use super::{Case, Engine, Item, Outcome, Report, SeedItem, Subject, TreeEntry, Verdict};
use crate::kit::answer::Answer;
use crate::kit::compare::{Compared, Divergence, compare_plan_with};
use crate::kit::generate;
use crate::kit::plan::PLAN_ROOT;
use crate::peer::{Health, Search};

/// The fewest files a seed report lists: those the calls and answers name
/// and the ignore files always, then others up to this many.
const SHOWN_FILES: usize = 12;

impl Engine {
    /// A seed on its subjects, compared with the reference in one pass.
    pub(super) fn run_seed(
        &self,
        item: &Item,
        seed: &SeedItem,
        peers: &[Option<usize>],
        started: Instant,
    ) -> Vec<Outcome> {
        let reference = &self.everyone[0];
        let mut verdicts: Vec<Option<Verdict>> = vec![None; peers.len()];
        let mut asked: Vec<(usize, &Subject)> = Vec::new();
        for (slot, p) in peers.iter().enumerate() {
            let Some(subject) = p.and_then(|p| (p > 0).then(|| &self.everyone[p])) else {
                verdicts[slot] = Some(Verdict::Broken {
                    why: "a seed compares a subject with the reference; it has no trial of its own on the reference".into(),
                });
                continue;
            };
            if let Some(why) = self.skip(item, subject) {
                verdicts[slot] = Some(Verdict::Skipped { why });
            } else if let Some(v) = self.stopped_verdict(subject) {
                verdicts[slot] = Some(v);
            } else {
                asked.push((slot, subject));
            }
        }
        let mut documented: Vec<BTreeMap<String, usize>> = vec![BTreeMap::new(); peers.len()];
        let mut compared_calls: Vec<usize> = vec![0; peers.len()];
        if !asked.is_empty() {
            let before: Vec<usize> = asked
                .iter()
                .map(|(_, s)| s.peer().health().map_or(0, |h| h.faults))
                .collect();
            let plan = generate(seed.generator, seed.seed, PLAN_ROOT, seed.ground)
                .map(|plan| match seed.only_call {
                    Some(call) => plan.only_call(call),
                    None => plan,
                })
                .map_err(|e| e.to_string());
            // A subject's documented differences are its registered
            // built-in's, never the peer's own say.
            let subjects: Vec<Compared<'_>> =
                asked.iter().map(|(_, s)| Compared::from(*s)).collect();
            let compared = plan.and_then(|plan| {
                compare_plan_with(&plan, Compared::from(reference), &subjects)
                    .map(|mut ds| {
                        // A one-call plan (`--call N`) numbers its call 0:
                        // name it as the whole plan does, so the report and
                        // its replay say `--call N`, not `--call 0`.
                        if let Some(call) = seed.only_call {
                            for d in &mut ds {
                                d.call_index += call;
                            }
                        }
                        (plan, ds)
                    })
                    .map_err(|e| format!("its tree cannot be written: {e}"))
            });
            for (i, (slot, subject)) in asked.iter().enumerate() {
                let verdict = match &compared {
                    Err(e) => Verdict::Broken {
                        why: format!("{}: {e}", item.id()),
                    },
                    Ok((plan, divergences)) => {
                        compared_calls[*slot] = plan
                            .calls()
                            .iter()
                            .filter(|c| subject.peer().supports(c.method()))
                            .count();
                        let (verdict, explained) = self.seed_verdict(&SeedTrial {
                            item,
                            plan,
                            divergences,
                            compared: &subjects,
                            position: i,
                            subject,
                            faults_before: before[i],
                        });
                        documented[*slot] = explained;
                        verdict
                    }
                };
                verdicts[*slot] = Some(self.note_stop(item, subject, verdict));
            }
        }
        self.plan_outcomes(item, peers, verdicts, documented, compared_calls, started)
    }

    /// The outcomes of one generated plan's trials (a seed's or an
    /// exhaustive family's), one per place of `peers`: each verdict (a
    /// place never judged is broken, "not judged"), the calls its
    /// documented differences explain and the calls compared, and the
    /// plan's whole time, which every peer shared.
    pub(super) fn plan_outcomes(
        &self,
        item: &Item,
        peers: &[Option<usize>],
        verdicts: Vec<Option<Verdict>>,
        documented: Vec<BTreeMap<String, usize>>,
        compared: Vec<usize>,
        started: Instant,
    ) -> Vec<Outcome> {
        let elapsed = started.elapsed();
        verdicts
            .into_iter()
            .zip(documented)
            .zip(compared)
            .zip(peers)
            .map(|(((verdict, documented), compared), p)| {
                let subject = p.map(|p| &self.everyone[p]);
                let mut o = self.outcome(
                    item,
                    subject,
                    verdict.unwrap_or(Verdict::Broken {
                        why: "not judged".into(),
                    }),
                    documented,
                    started,
                );
                o.seconds = elapsed.as_secs_f64();
                o.compared = compared;
                o
            })
            .collect()
    }

    /// The verdict of one subject on a compared plan, with the documented
    /// differences it showed.
    pub(super) fn seed_verdict(&self, trial: &SeedTrial<'_>) -> (Verdict, BTreeMap<String, usize>) {
        let Read {
            cases,
            unanswered,
            documented,
        } = trial.read();
        let SeedTrial {
            item,
            plan,
            subject,
            ..
        } = *trial;
        // A call the reference did not answer is never an agreement. Where
        // the subject diverged elsewhere it fails on those calls (with this
        // said beside them); otherwise the trial is broken, the reference's
        // fault named: a subject cannot pass a seed nobody judged.
        let reference_fault = unanswered.first().map(|d| {
            let fault = d
                .reference_answer()
                .and_then(Answer::fault_text)
                .unwrap_or("no answer");
            format!(
                "the reference {} did not answer {} of the {} calls of {} asked of {}, so nothing was compared there; first, call {} ({}): {fault}",
                self.everyone[0].name(),
                unanswered.len(),
                plan.call_count(),
                item.id(),
                subject.name(),
                d.call_index,
                d.call.method(),
            )
        });
        if cases.is_empty() {
            return match reference_fault {
                Some(why) => (Verdict::Broken { why }, documented),
                None => (Verdict::Pass, documented),
            };
        }
        let mut recorded = BTreeMap::new();
        (
            self.seed_failure(trial, cases, reference_fault, &mut recorded),
            documented,
        )
    }

    /// The failure of a subject that diverged on `cases`: one report case
    /// a call, the seed's tree shown once, each method's first divergence
    /// recorded when asked (unless `recorded` already holds the method: a
    /// family's batches share one map, so a trial records a method once).
    pub(super) fn seed_failure(
        &self,
        trial: &SeedTrial<'_>,
        cases: Vec<(&Divergence, &Answer)>,
        reference_fault: Option<String>,
        recorded_methods: &mut BTreeMap<crate::peer::Method, usize>,
    ) -> Verdict {
        let SeedTrial {
            item,
            plan,
            subject,
            faults_before,
            ..
        } = *trial;
        let trial = item.trial_id(subject.name());
        let total = cases.len();
        // One tree per seed, with its first divergent call: every file any
        // of its divergent calls or answers names, every ignore file, then
        // the first others, then how many are left out.
        let (shown, left_out) = {
            let calls: Vec<&crate::call::Call> = cases.iter().map(|(d, _)| &d.call).collect();
            // What the answers say, as a report shows them (paths and
            // messages name files).
            let shown: Vec<Value> = cases
                .iter()
                .map(|(_, actual)| actual.shown())
                .chain(
                    cases
                        .iter()
                        .filter_map(|(d, _)| d.reference_answer().map(Answer::shown)),
                )
                .collect();
            let answers: Vec<&Value> = shown.iter().collect();
            crate::kit::report::files_to_show(
                &plan.files,
                &plan.root,
                &calls,
                &answers,
                SHOWN_FILES,
            )
        };
        let first_call = cases.first().map_or(0, |(d, _)| d.call_index);
        let (files, bytes) = cases
            .first()
            .map_or((0, 0), |(d, _)| (d.tree.files, d.tree.bytes));
        // One regression file per bug: the first divergent call of each
        // method is shrunk (keeping where it differs) and recorded, unless
        // a file of that method already fails
        // ([`crate::kit::regression::pinned_by`]); the others would pin the
        // same bug again.
        let mut report_cases = Vec::new();
        for (n, (d, actual)) in cases.into_iter().enumerate() {
            // Two answers that do not agree always differ somewhere; a
            // kind is only missing where the reference gave no answer.
            let kind = d
                .reference_answer()
                .and_then(|expected| crate::kit::difference::difference_kind(expected, actual))
                .unwrap_or_else(|| "differs".to_string());
            let actual_shown = actual.shown();
            let expected_shown = d.reference_answer().map_or(Value::Null, Answer::shown);
            let recorded = self.record.as_ref().map(|dir| {
                let method = d.call.method();
                if let Some(call) = recorded_methods.get(&method) {
                    return format!(
                        "not recorded: call {call}, this seed's first divergent {method} call, stands for the method"
                    );
                }
                recorded_methods.insert(method, d.call_index);
                // Seeds are judged side by side: one records at a time, so
                // a second seed meeting the same bug finds the first's file.
                let _one_at_a_time = self.recording.lock();
                match crate::kit::regression::record(
                    plan,
                    d.call_index,
                    &d.call,
                    self.everyone[0].peer().as_ref(),
                    subject.peer().as_ref(),
                    dir,
                    None,
                ) {
                    Ok((recorded, _)) => recorded.to_string(),
                    Err(e) => format!("not recorded: {e}"),
                }
            });
            let (tree, tree_note) = if n == 0 {
                (
                    shown
                        .iter()
                        .map(|&i| TreeEntry::of(&plan.files[i]))
                        .collect(),
                    (left_out > 0).then(|| {
                        format!("and {left_out} more files ({files} in the tree, {bytes} bytes)")
                    }),
                )
            } else {
                (
                    Vec::new(),
                    Some(format!("the seed's tree is shown with call {first_call}")),
                )
            };
            // A family's numbered plans are its batches.
            let unit = if crate::kit::exhaustive::is_family_plan(&d.generator) {
                "batch"
            } else {
                "seed"
            };
            report_cases.push(
                Case::new(
                    format!(
                        "{} {unit} {}, call {} ({})",
                        d.generator,
                        d.seed,
                        d.call_index,
                        d.call.method()
                    ),
                    serde_json::to_value(&d.call).unwrap_or(Value::Null),
                    d.call.method(),
                    // Compared by code (and by message where the spec fixes
                    // both), shown with each failure's message.
                    &expected_shown,
                    actual_shown,
                )
                .tree(tree, tree_note)
                .call_index(d.call_index)
                .kind(kind.clone())
                .problem(format!(
                    "{} answers differently from the reference {}: {kind}",
                    subject.name(),
                    self.everyone[0].name()
                ))
                .replay(
                    self.replay
                        .command(item, &trial, subject.name(), Some(d.call_index)),
                )
                .recorded(recorded),
            );
        }
        let health = faults_since(subject, faults_before);
        let diverge = format!(
            "{total} of {} calls of {} diverge from the reference {}",
            plan.call_count(),
            item.id(),
            self.everyone[0].name()
        );
        Verdict::Fail {
            report: Report {
                summary: match &reference_fault {
                    None => diverge,
                    Some(why) => format!("{diverge}; {why}"),
                },
                cases: report_cases,
                health,
            },
        }
    }
}

/// One subject's part of a compared seed: everything its verdict is read
/// from.
#[derive(Clone, Copy)]
pub(super) struct SeedTrial<'a> {
    /// The seed.
    pub item: &'a Item,
    /// Its plan.
    pub plan: &'a crate::kit::plan::Plan,
    /// The calls on which some subject disagreed with the reference.
    pub divergences: &'a [Divergence],
    /// Every subject compared, as the divergences' answers are ordered.
    pub compared: &'a [Compared<'a>],
    /// This subject's place among them.
    pub position: usize,
    /// This subject.
    pub subject: &'a Subject,
    /// Its fault count before the seed.
    pub faults_before: usize,
}

/// What a subject's answers to a seed show.
pub(super) struct Read<'a> {
    /// Its divergent calls, with its answer.
    pub cases: Vec<(&'a Divergence, &'a Answer)>,
    /// Calls it was asked that the reference did not answer.
    pub unanswered: Vec<&'a Divergence>,
    /// Divergences its built-in's listed differences explain, by id.
    pub documented: BTreeMap<String, usize>,
}

impl<'a> SeedTrial<'a> {
    /// This subject's answer to each divergent call, sorted.
    pub(super) fn read(&self) -> Read<'a> {
        let SeedTrial {
            divergences,
            compared,
            position,
            ..
        } = *self;
        let mut documented = BTreeMap::new();
        let mut cases = Vec::new();
        // Calls this subject was asked and the reference did not answer:
        // nothing was compared there, whatever the subject said.
        let mut unanswered: Vec<&Divergence> = Vec::new();
        for d in divergences {
            let reference = d.reference_answer();
            // A divergence's answers are the reference's, then those of the
            // compared subjects that answer the call's method, in order:
            // find this subject's by position, never by name (two subjects
            // may be the same built-in).
            let method = d.call.method();
            if !compared[position].peer.supports(method) {
                continue;
            }
            let at = compared[..position]
                .iter()
                .filter(|s| s.peer.supports(method))
                .count();
            let Some(answer) = d.answers.get(at + 1) else {
                continue;
            };
            if reference.is_some_and(Answer::is_fault) {
                unanswered.push(d);
                continue;
            }
            if reference.is_some_and(|r| r.agrees(&answer.answer)) {
                continue;
            }
            if let Some(why) = &answer.explained {
                *documented.entry(why.clone()).or_default() += 1;
                continue;
            }
            cases.push((d, &answer.answer));
        }
        Read {
            cases,
            unanswered,
            documented,
        }
    }
}

/// The faults `subject` had since its count was `before` (the last three
/// of them), or `None` when it had none and is not stopped: what a report
/// shows beside the failure they caused.
pub(super) fn faults_since(subject: &Subject, before: usize) -> Option<Health> {
    let h = subject.peer().health()?;
    let new = h.faults.saturating_sub(before);
    (new > 0 || h.stopped.is_some()).then(|| Health {
        faults: new,
        recent: h
            .recent
            .iter()
            .rev()
            .take(new.min(3))
            .rev()
            .cloned()
            .collect(),
        stopped: h.stopped.clone(),
    })
}
