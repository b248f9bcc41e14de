//! Judging a bounded-exhaustive family ([`crate::kit::exhaustive`]): its
//! batches through the reference and every subject in one pass each, a
//! subject's divergences its verdict as a seed's are ([`super::seed`]:
//! the same reading, report cases, documented differences and recording),
//! the report holding the first [`SHOWN_CALLS`] divergent calls (the
//! smallest shapes: a family is enumerated smallest first) and counting
//! the rest.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use super::seed::SeedTrial;
use super::{Engine, ExhaustiveItem, Item, Outcome, Report, Subject, Verdict};
use crate::kit::answer::Answer;
use crate::kit::compare::Compared;
use crate::kit::exhaustive::{BatchTrees, Family, MAX_SIZE, ReferenceAnswers};
use crate::peer::Method;

/// The reference's answers to a family's batches, shared by the trials of
/// the family's subjects.
///
/// `cargo test` runs each (family, subject) as a trial of its own, and
/// each would ask the reference the whole family again: in this
/// checkout's run the `gitignore` family at size 4 cost `portable` 10
/// CPU-s a trial in a debug build, once for `model` and once again for
/// `python-glob`. The trials of one family run side by side, batch by
/// batch: the first to reach a batch asks the reference beside its
/// subject, and a trial reaching it meanwhile waits for those answers
/// rather than asking again. A batch's answers are dropped once every
/// subject the family asks has taken them (a trial filtered out never
/// does: they then stay until the run ends).
#[derive(Debug, Default)]
pub(super) struct KeptAnswers {
    batches: Mutex<HashMap<(Family, usize, u64), Kept>>,
}

/// One batch's answers, made once.
type Shared = Arc<OnceLock<Arc<ReferenceAnswers>>>;

#[derive(Debug)]
struct Kept {
    answers: Shared,
    /// Trials still to take them.
    left: usize,
}

impl KeptAnswers {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(Family, usize, u64), Kept>> {
        self.batches
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Batch `key`'s answers, made or to be made, for `trials` trials in
    /// all.
    fn batch(&self, key: (Family, usize, u64), trials: usize) -> Shared {
        self.lock()
            .entry(key)
            .or_insert_with(|| Kept {
                answers: Shared::default(),
                left: trials,
            })
            .answers
            .clone()
    }

    /// One trial is done with batch `key`.
    fn taken(&self, key: (Family, usize, u64)) {
        let mut batches = self.lock();
        if let Some(kept) = batches.get_mut(&key) {
            kept.left = kept.left.saturating_sub(1);
            if kept.left == 0 {
                batches.remove(&key);
            }
        }
    }
}

/// The most divergent calls one exhaustive trial's report holds in full;
/// the rest are counted in its summary. A seed's report holds every
/// divergent call of its plan, a few dozen at most (a `lawsuite` plan has
/// about 60 calls); a family has thousands, and a peer wrong on a whole
/// family would fill a report with them. 64 is a seed's worth, the
/// smallest shapes first.
pub const SHOWN_CALLS: usize = 64;

/// One subject's verdict, gathered batch by batch.
#[derive(Default)]
struct Gathered {
    /// Report cases so far (at most [`SHOWN_CALLS`]).
    cases: Vec<super::Case>,
    /// Divergent calls, all of them.
    divergent: usize,
    /// Calls the reference did not answer that this subject was asked,
    /// and the first of them, said.
    unanswered: usize,
    first_unanswered: Option<String>,
    /// Calls of a method it answers.
    compared: usize,
    /// Documented differences, by id.
    documented: BTreeMap<String, usize>,
    /// Methods a regression was recorded (or tried) for.
    recorded: BTreeMap<Method, usize>,
    /// The health its failures are shown with.
    health: Option<crate::peer::Health>,
}

impl Engine {
    /// A family on its subjects, compared with the reference batch by
    /// batch.
    pub(super) fn run_exhaustive(
        &self,
        item: &Item,
        family: &ExhaustiveItem,
        peers: &[Option<usize>],
        started: Instant,
    ) -> Vec<Outcome> {
        let reference = &self.everyone[0];
        let mut verdicts: Vec<Option<Verdict>> = vec![None; peers.len()];
        let mut asked: Vec<(usize, &Subject)> = Vec::new();
        for (slot, p) in peers.iter().enumerate() {
            let Some(subject) = p.and_then(|p| (p > 0).then(|| &self.everyone[p])) else {
                verdicts[slot] = Some(Verdict::Broken {
                    why: "a family compares a subject with the reference; it has no trial of its own on the reference".into(),
                });
                continue;
            };
            if family.size > MAX_SIZE {
                verdicts[slot] = Some(Verdict::Broken {
                    why: format!(
                        "{} asks shapes of {} tokens, past the largest size, {MAX_SIZE} (its shapes would take days to ask); give a size from 0 to {MAX_SIZE}",
                        item.id(),
                        family.size
                    ),
                });
            } else if let Some(why) = self.skip(item, subject) {
                verdicts[slot] = Some(Verdict::Skipped { why });
            } else if let Some(v) = self.stopped_verdict(subject) {
                verdicts[slot] = Some(v);
            } else {
                asked.push((slot, subject));
            }
        }
        let mut gathered: Vec<Gathered> = asked.iter().map(|_| Gathered::default()).collect();
        let mut documented: Vec<BTreeMap<String, usize>> = vec![BTreeMap::new(); peers.len()];
        let mut compared: Vec<usize> = vec![0; peers.len()];
        if !asked.is_empty() {
            let before: Vec<usize> = asked
                .iter()
                .map(|(_, s)| s.peer().health().map_or(0, |h| h.faults))
                .collect();
            let subjects: Vec<Compared<'_>> =
                asked.iter().map(|(_, s)| Compared::from(*s)).collect();
            let mut broken: Option<String> = None;
            let mut trees = BatchTrees::new();
            // One subject's trial of a family other subjects are asked
            // too: the reference's answers are shared ([`KeptAnswers`]).
            // Asked together (`lawsuite run`), it answers once anyway.
            let others = self.others_asked(item, family, &asked);
            for plan in family.family.batches(family.size) {
                let reference = Compared::from(reference);
                let compared = if others == 0 {
                    trees.compare(&plan, reference, &subjects)
                } else {
                    let key = (family.family, family.size, plan.seed);
                    let shared = self.kept_answers.batch(key, others + 1);
                    let mut asked_here = None;
                    let known = shared
                        .get_or_init(|| {
                            let (compared, answers) =
                                match trees.compare_knowing(&plan, reference, &subjects, None) {
                                    Ok((d, answers)) => (Ok(d), answers),
                                    Err(e) => (Err(e), Vec::new()),
                                };
                            asked_here = Some(compared);
                            Arc::new(answers)
                        })
                        .clone();
                    self.kept_answers.taken(key);
                    match asked_here {
                        Some(compared) => compared,
                        None => trees
                            .compare_knowing(&plan, reference, &subjects, Some(&known))
                            .map(|(d, _)| d),
                    }
                };
                let divergences = match compared {
                    Ok(d) => d,
                    Err(e) => {
                        broken = Some(format!(
                            "{}: batch {}'s tree cannot be written: {e}",
                            item.id(),
                            plan.seed
                        ));
                        break;
                    }
                };
                let calls = plan.calls();
                for (i, (_, subject)) in asked.iter().enumerate() {
                    let g = &mut gathered[i];
                    g.compared += calls
                        .iter()
                        .filter(|c| subject.peer().supports(c.method()))
                        .count();
                    if divergences.is_empty() {
                        continue;
                    }
                    let trial = SeedTrial {
                        item,
                        plan: &plan,
                        divergences: &divergences,
                        compared: &subjects,
                        position: i,
                        subject,
                        faults_before: before[i],
                    };
                    let read = trial.read();
                    for (id, n) in read.documented {
                        *g.documented.entry(id).or_default() += n;
                    }
                    if g.first_unanswered.is_none()
                        && let Some(d) = read.unanswered.first()
                    {
                        let fault = d
                            .reference_answer()
                            .and_then(Answer::fault_text)
                            .unwrap_or("no answer");
                        g.first_unanswered = Some(format!(
                            "first, batch {} call {} ({}): {fault}",
                            plan.seed,
                            d.call_index,
                            d.call.method()
                        ));
                    }
                    g.unanswered += read.unanswered.len();
                    g.divergent += read.cases.len();
                    let room = SHOWN_CALLS.saturating_sub(g.cases.len());
                    if room == 0 || read.cases.is_empty() {
                        continue;
                    }
                    let shown: Vec<_> = read.cases.into_iter().take(room).collect();
                    if let Verdict::Fail { report } =
                        self.seed_failure(&trial, shown, None, &mut g.recorded)
                    {
                        g.cases.extend(report.cases);
                        g.health = report.health;
                    }
                }
            }
            for (i, (slot, subject)) in asked.iter().enumerate() {
                let g = std::mem::take(&mut gathered[i]);
                documented[*slot] = g.documented.clone();
                compared[*slot] = g.compared;
                let verdict = match &broken {
                    Some(why) => Verdict::Broken { why: why.clone() },
                    None => self.family_verdict(item, reference, subject, g),
                };
                verdicts[*slot] = Some(self.note_stop(item, subject, verdict));
            }
        }
        self.plan_outcomes(item, peers, verdicts, documented, compared, started)
    }
}

impl Engine {
    /// How many trials of `family` other than the one asking `asked` will
    /// ask the reference the same batches: the family's other subjects
    /// that answer its method, when one subject's trial runs alone (as
    /// `cargo test` runs them); none when asked together, or asked again
    /// (`--repeat`: each asking on fresh answers).
    fn others_asked(
        &self,
        item: &Item,
        family: &ExhaustiveItem,
        asked: &[(usize, &Subject)],
    ) -> usize {
        if asked.len() != 1 || self.repeat > 1 {
            return 0;
        }
        let this = asked[0].1.name();
        self.everyone[1..]
            .iter()
            .filter(|s| s.name() != this)
            .filter(|s| family.asks(s.builtin()) && self.skip(item, s).is_none())
            .count()
    }

    /// A subject's verdict on a whole family, from what its batches
    /// gathered: as a seed's ([`Engine::seed_verdict`]), a reference that
    /// did not answer never an agreement.
    fn family_verdict(
        &self,
        item: &Item,
        reference: &Subject,
        subject: &Subject,
        g: Gathered,
    ) -> Verdict {
        let reference_fault = g.first_unanswered.as_ref().map(|first| {
            format!(
                "the reference {} did not answer {} of the {} calls of {} asked of {}, so nothing was compared there; {first}",
                reference.name(),
                g.unanswered,
                g.compared,
                item.id(),
                subject.name(),
            )
        });
        if g.divergent == 0 {
            return match reference_fault {
                Some(why) => Verdict::Broken { why },
                None => Verdict::Pass,
            };
        }
        let mut summary = format!(
            "{} of {} calls of {} diverge from the reference {}",
            g.divergent,
            g.compared,
            item.id(),
            reference.name()
        );
        if g.divergent > g.cases.len() {
            summary.push_str(&format!(
                "; the first {} (the smallest shapes) are shown",
                g.cases.len()
            ));
        }
        if let Some(why) = reference_fault {
            summary.push_str(&format!("; {why}"));
        }
        Verdict::Fail {
            report: Report {
                summary,
                cases: g.cases,
                health: g.health,
            },
        }
    }
}
