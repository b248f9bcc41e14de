//! A run's counts: by peer, by kind, and the failing spec sections.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{Kind, Outcome, Verdict};

/// Counts of verdicts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// Passed.
    pub pass: usize,
    /// Failed.
    pub fail: usize,
    /// Listed failures that failed.
    pub expected_failure: usize,
    /// Listed failures that passed.
    pub unexpected_pass: usize,
    /// Not run.
    pub skipped: usize,
    /// Could not be judged.
    pub broken: usize,
    /// Concluded differently when asked again (`--repeat`); absent from
    /// the results of earlier versions.
    #[serde(default)]
    pub flaky: usize,
}

impl Counts {
    /// Count one verdict.
    pub fn add(&mut self, verdict: &Verdict) {
        match verdict {
            Verdict::Pass => self.pass += 1,
            Verdict::Fail { .. } => self.fail += 1,
            Verdict::ExpectedFailure { .. } => self.expected_failure += 1,
            Verdict::UnexpectedPass { .. } => self.unexpected_pass += 1,
            Verdict::Skipped { .. } => self.skipped += 1,
            Verdict::Broken { .. } => self.broken += 1,
            Verdict::Flaky { .. } => self.flaky += 1,
        }
    }

    /// Add `other`'s counts to these. It names every field, so a verdict
    /// added later cannot be left out of a total (`flaky` once was: a run
    /// of 30 flaky trials said "1 fail the run").
    pub fn absorb(&mut self, other: &Counts) {
        let Counts {
            pass,
            fail,
            expected_failure,
            unexpected_pass,
            skipped,
            broken,
            flaky,
        } = *other;
        self.pass += pass;
        self.fail += fail;
        self.expected_failure += expected_failure;
        self.unexpected_pass += unexpected_pass;
        self.skipped += skipped;
        self.broken += broken;
        self.flaky += flaky;
    }

    /// Every trial counted.
    pub fn total(&self) -> usize {
        self.pass
            + self.fail
            + self.expected_failure
            + self.unexpected_pass
            + self.skipped
            + self.broken
            + self.flaky
    }

    /// Trials that fail the run.
    pub fn failures(&self) -> usize {
        self.fail + self.unexpected_pass + self.broken + self.flaky
    }
}

/// What a run found, counted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// By kind of item.
    pub by_kind: BTreeMap<String, Counts>,
    /// By registered peer name.
    pub by_peer: BTreeMap<String, Counts>,
    /// Laws by spec section (`search-contract §13`).
    pub by_section: BTreeMap<String, Counts>,
    /// Divergent calls over every seed.
    pub divergent_calls: usize,
    /// Divergent seed calls by subject, then by kind of difference
    /// ([`super::Case::kind`]), as `lawsuite survey` counts them: why a
    /// subject's seeds fail, where `divergent_calls` says only how often.
    /// Absent from the results of earlier versions.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub divergent_kinds: BTreeMap<String, BTreeMap<String, usize>>,
    /// Calls compared with the reference over every seed and subject.
    #[serde(default)]
    pub compared_calls: usize,
    /// Seeds run (each seed once, however many subjects).
    pub seeds: usize,
    /// Peers the harness stopped restarting: (peer, trial, why).
    pub stopped: Vec<(String, String, String)>,
    /// Wall-clock seconds of the whole run; for merged shards
    /// (`lawsuite merge`), the sum of the shards' seconds.
    pub seconds: f64,
}

impl Summary {
    /// Count `outcomes`.
    pub fn of(
        outcomes: &[Outcome],
        elapsed: Duration,
        stopped: Vec<(String, String, String)>,
    ) -> Summary {
        let mut s = Summary {
            seconds: elapsed.as_secs_f64(),
            stopped,
            ..Summary::default()
        };
        let mut seeds = std::collections::HashSet::new();
        for o in outcomes {
            s.by_kind
                .entry(o.kind.name().to_string())
                .or_default()
                .add(&o.verdict);
            if let Some(peer) = &o.peer {
                s.by_peer.entry(peer.clone()).or_default().add(&o.verdict);
            }
            if let Some(spec) = &o.spec {
                s.by_section
                    .entry(section_of(spec))
                    .or_default()
                    .add(&o.verdict);
            }
            if o.kind == Kind::Seed {
                seeds.insert(o.item.clone());
                s.compared_calls += o.compared;
                if let Verdict::Fail { report } = &o.verdict {
                    s.divergent_calls += report.cases.len();
                    let kinds = s
                        .divergent_kinds
                        .entry(o.peer.clone().unwrap_or_default())
                        .or_default();
                    for case in &report.cases {
                        *kinds
                            .entry(case.kind_or_unclassified().to_string())
                            .or_default() += 1;
                    }
                }
            }
        }
        s.seeds = seeds.len();
        s
    }

    /// The spec sections with laws that fail the run, with their counts:
    /// `search-contract §8 (3)`.
    /// In document and section order (`§2` before `§10`, `§13` before
    /// `§13.1`), not as strings sort.
    pub fn failing_sections(&self) -> Vec<String> {
        let mut failing: Vec<(&String, usize)> = self
            .by_section
            .iter()
            .filter(|(_, c)| c.failures() > 0)
            .map(|(s, c)| (s, c.failures()))
            .collect();
        failing.sort_by_key(|(s, _)| section_key(s));
        failing
            .into_iter()
            .map(|(s, n)| format!("{s} ({n})"))
            .collect()
    }

    /// `peer`'s divergent seed calls by kind, the most frequent first
    /// (ties by kind), as `lawsuite survey` lists them.
    ///
    /// ```
    /// use lawsuite::conformance::Summary;
    /// let mut summary = Summary::default();
    /// let kinds = summary.divergent_kinds.entry("mine".into()).or_default();
    /// kinds.insert("/paths: items added".into(), 3);
    /// kinds.insert("error code timeout vs answer".into(), 9);
    /// assert_eq!(
    ///     summary.kinds_of("mine"),
    ///     [("error code timeout vs answer", 9), ("/paths: items added", 3)]
    /// );
    /// ```
    pub fn kinds_of(&self, peer: &str) -> Vec<(&str, usize)> {
        let mut kinds: Vec<(&str, usize)> = self
            .divergent_kinds
            .get(peer)
            .map(|k| k.iter().map(|(kind, n)| (kind.as_str(), *n)).collect())
            .unwrap_or_default();
        kinds.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        kinds
    }

    /// Every trial counted.
    pub fn total(&self) -> Counts {
        let mut c = Counts::default();
        for k in self.by_kind.values() {
            c.absorb(k);
        }
        c
    }
}

/// `search-contract §13.1` → `search-contract §13`: the top-level section
/// a law's spec names, for grouping.
pub fn section_of(spec: &str) -> String {
    let Some((doc, after)) = spec.split_once('§') else {
        return spec.to_string();
    };
    let number: String = after.chars().take_while(char::is_ascii_digit).collect();
    format!("{}§{number}", doc)
}

/// `search-contract §13.1` → (`search-contract`, [13, 1]): the order a
/// reader finds sections in.
fn section_key(section: &str) -> (String, Vec<u64>) {
    let (document, number) = section.split_once('§').unwrap_or((section, ""));
    let parts = number
        .trim()
        .split('.')
        .map(|p| p.trim().parse().unwrap_or(u64::MAX))
        .collect();
    (document.trim().to_string(), parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_sort_by_number_not_as_strings() {
        let mut sections = vec![
            "search-contract §10",
            "search-contract §2",
            "read-ls-flows §1",
            "search-contract §13.1",
            "search-contract §13",
        ];
        sections.sort_by_key(|s| section_key(s));
        assert_eq!(
            sections,
            [
                "read-ls-flows §1",
                "search-contract §2",
                "search-contract §10",
                "search-contract §13",
                "search-contract §13.1"
            ]
        );
    }

    /// The run's headline counts every verdict: a run of two flaky trials
    /// and one failure has three that fail it.
    #[test]
    fn the_total_counts_flaky_trials() {
        let mut by_kind = BTreeMap::new();
        by_kind.insert(
            "law".to_string(),
            Counts {
                pass: 4,
                fail: 1,
                flaky: 2,
                ..Counts::default()
            },
        );
        let summary = Summary {
            by_kind,
            ..Summary::default()
        };
        let total = summary.total();
        assert_eq!((total.total(), total.failures()), (7, 3));
    }
}
