//! A time-bounded differential campaign over the seed space: `lawsuite
//! fuzz --for 10m`.
//!
//! The default seeds reach what a fixed range of plans happens to reach. A
//! campaign keeps going: it asks seed after seed of every generator and
//! ground (round robin, each its own sequence), compares every subject
//! with the reference on every call, and groups the divergent calls by
//! **signature**: the peer, the method, and where the answers differ (the
//! fields, or the two error codes, as [`difference_fields`] says). The
//! first call of a new group is shrunk and kept as a regression file, one
//! per group (a bug shows in many calls; each group is one finding), and
//! its seed and call are the group's replay line: plans are deterministic.
//!
//! Its state (the next seed of each sequence, the groups found, the
//! regression of each) is kept in a JSON file beside the project's
//! regressions and written whole (a new file renamed over the old one), so
//! the next campaign resumes where this one stopped and a group found
//! before is not new again. A state file that cannot be read is an error,
//! never replaced.
//!
//! ```no_run
//! use std::time::Duration;
//! use lawsuite::kit::campaign::{Campaign, Slot};
//! use lawsuite::kit::compare::Compared;
//! use lawsuite::portable::Portable;
//!
//! let (reference, mine) = (Portable::default(), Portable::default());
//! let campaign = Campaign {
//!     slots: Slot::all(),
//!     budget: Duration::from_secs(60),
//!     jobs: 2,
//!     state: "lawsuite/fuzz-state.json".into(),
//!     regressions: "lawsuite/regressions".into(),
//! };
//! let found = campaign.run(Compared::new(&reference), &[Compared::new(&mine)], None, |_| {})?;
//! println!("{} new groups", found.new_groups().count());
//! # Ok::<(), lawsuite::kit::campaign::CampaignError>(())
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::compare::{Compared, calls, compare_plan_with, difference_fields};
use super::plan::{FileKind, Plan};
use super::regression::{RecordError, Regression, shrink_to_regression};
use super::{Generator, generate};
use crate::file_error::{FileError, FileErrorKind};
use crate::peer::Ground;

/// The symbolic root campaign plans are spelled with.
const ROOT: &str = "/lawsuite-fuzz";

/// The state file's format; another is refused with what to do.
const STATE_FORMAT: u32 = 1;

/// One sequence of seeds: a generator on a ground.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The generator.
    pub generator: Generator,
    /// Its ground (`smthrs` plans are always shared).
    pub ground: Ground,
}

impl Slot {
    /// Every sequence: `smthrs`, `lawsuite` on the shared ground, and
    /// `lawsuite` on the full ground.
    pub fn all() -> Vec<Slot> {
        vec![
            Slot {
                generator: Generator::Smthrs,
                ground: Ground::Shared,
            },
            Slot {
                generator: Generator::Lawsuite,
                ground: Ground::Shared,
            },
            Slot {
                generator: Generator::Lawsuite,
                ground: Ground::Full,
            },
        ]
    }

    /// `smthrs`, `lawsuite`, `lawsuite@full`, as seed ids spell them.
    pub fn name(self) -> String {
        match (self.generator, self.ground) {
            (Generator::Lawsuite, Ground::Full) => "lawsuite@full".into(),
            (generator, _) => generator.name().into(),
        }
    }
}

/// A campaign's settings.
#[derive(Clone, Debug)]
pub struct Campaign {
    /// The seed sequences asked, round robin.
    pub slots: Vec<Slot>,
    /// How long to ask new seeds (a seed under way finishes, and a new
    /// group's shrinking with it).
    pub budget: Duration,
    /// Seeds asked at once.
    pub jobs: usize,
    /// The state file.
    pub state: PathBuf,
    /// Where each new group's regression file is written.
    pub regressions: PathBuf,
}

/// Where a group was first met: its replay line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// `smthrs`, `lawsuite` or `lawsuite@full`.
    pub sequence: String,
    /// The seed.
    pub seed: u64,
    /// The call's index in the plan.
    pub call: usize,
}

/// Divergent calls of one signature.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Group {
    /// `peer × method × where`, the key.
    pub signature: String,
    /// The peer.
    pub peer: String,
    /// The method.
    pub method: String,
    /// Where the answers differ: fields, or error codes.
    pub differs: String,
    /// The shape of the first call shrunk: its tree's entries and what
    /// they hold, and the call.
    #[serde(default)]
    pub shape: Option<String>,
    /// The first call met.
    pub first: Finding,
    /// Calls of this signature met, over every campaign.
    pub seen: u64,
    /// The regression file kept for it, when shrinking and writing worked.
    #[serde(default)]
    pub regression: Option<String>,
    /// Why it could not be kept, when it was not.
    #[serde(default)]
    pub not_kept: Option<String>,
    /// Which campaign found it (1 for the first).
    pub campaign: u64,
    /// Seconds into that campaign.
    pub after_secs: f64,
}

/// What is kept between campaigns.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct State {
    /// The state file's format number (1 today); another is refused.
    pub format: u32,
    /// Campaigns run so far.
    pub campaigns: u64,
    /// The next seed of each sequence, by [`Slot::name`].
    pub next: BTreeMap<String, u64>,
    /// Every group found, in the order found.
    pub groups: Vec<Group>,
}

/// A campaign that could not run or keep its state.
#[derive(Debug)]
pub enum CampaignError {
    /// The state file is there but cannot be read as one.
    State {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A file could not be written.
    Write {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
}

impl std::fmt::Display for CampaignError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CampaignError::State { path, message } => write!(
                f,
                "{}: {message}; it is the state of the project's fuzz campaigns (move it away to start again from seed 0)",
                path.display()
            ),
            CampaignError::Write { path, source } => {
                write!(f, "cannot write {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for CampaignError {}

/// How far a campaign is, for a live line.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Progress {
    /// Seeds asked.
    pub seeds: u64,
    /// Calls compared (a call once per subject).
    pub calls: u64,
    /// Groups found by this campaign.
    pub new_groups: usize,
    /// Seconds since it started.
    pub secs: f64,
    /// Seconds since it last found a new group (or since it started).
    pub quiet_secs: f64,
}

impl Progress {
    /// `seeds 120 · 310 calls/s · 2 new groups · last new 14 s ago`.
    pub fn line(&self) -> String {
        format!(
            "seeds {} · {:.0} calls/s · {} new {} · last new {:.0} s ago",
            self.seeds,
            self.calls as f64 / self.secs.max(0.001),
            self.new_groups,
            if self.new_groups == 1 {
                "group"
            } else {
                "groups"
            },
            self.quiet_secs
        )
    }
}

/// What a campaign found.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// The state after it (every group, new and old).
    pub state: State,
    /// How far it went.
    pub progress: Progress,
    /// Seconds from its start to its first new group.
    pub first_new_after: Option<f64>,
}

impl Found {
    /// The groups this campaign found.
    pub fn new_groups(&self) -> impl Iterator<Item = &Group> {
        let campaign = self.state.campaigns;
        self.state
            .groups
            .iter()
            .filter(move |g| g.campaign == campaign)
    }
}

impl State {
    /// The state in `path`, or a fresh one when there is none.
    pub fn load(path: &Path) -> Result<State, CampaignError> {
        let text = match FileError::read_to_string(path) {
            Ok(text) => text,
            Err(e) if matches!(e.kind(), FileErrorKind::Io(io) if io.kind() == std::io::ErrorKind::NotFound) =>
            {
                return Ok(State {
                    format: STATE_FORMAT,
                    ..State::default()
                });
            }
            Err(e) => {
                return Err(CampaignError::State {
                    path: path.into(),
                    message: format!("cannot be read: {}", e.kind()),
                });
            }
        };
        let state: State = serde_json::from_str(&text).map_err(|e| CampaignError::State {
            path: path.into(),
            message: format!("is not a campaign state: {e}"),
        })?;
        if state.format != STATE_FORMAT {
            return Err(CampaignError::State {
                path: path.into(),
                message: format!(
                    "is in format {}, and this lawsuite reads format {STATE_FORMAT}",
                    state.format
                ),
            });
        }
        Ok(state)
    }

    /// Write the state whole: a new file renamed over the old one.
    pub fn save(&self, path: &Path) -> Result<(), CampaignError> {
        let write = |source| CampaignError::Write {
            path: path.into(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(write)?;
        }
        let text =
            serde_json::to_string_pretty(self).map_err(|e| write(std::io::Error::other(e)))?;
        // Through the one careful writer: a device or a read-only state is
        // refused, the state's permissions are kept.
        crate::regular_file::replace_whole(path, &(text + "\n"))
            .map_err(|e| write(std::io::Error::other(e.kind().to_string())))
    }
}

/// The shape of a shrunk case: how many entries of which kind, the
/// features that decide most rules (ignore files, hidden names, binary
/// bytes, non-ASCII names), and the call's method and pattern.
pub fn shape_of(regression: &Regression) -> String {
    let files = &regression.files;
    let count = |kind: FileKind| files.iter().filter(|f| f.kind == kind).count();
    let mut features = Vec::new();
    if files.iter().any(|f| f.path.ends_with(".gitignore")) {
        features.push(".gitignore");
    }
    if files
        .iter()
        .any(|f| f.path.split('/').any(|part| part.starts_with('.')))
    {
        features.push("hidden names");
    }
    if files.iter().any(|f| f.content.contains(&0)) {
        features.push("binary bytes");
    }
    if files.iter().any(|f| !f.path.is_ascii()) {
        features.push("non-ASCII names");
    }
    let call = serde_json::to_value(&regression.call).unwrap_or_default();
    let pattern = call["input"]["pattern"]
        .as_str()
        .map(|p| format!(" pattern {p:?}"))
        .unwrap_or_default();
    format!(
        "{} files, {} dirs, {} symlinks{}; {}{pattern}",
        count(FileKind::File),
        count(FileKind::Dir),
        count(FileKind::Symlink),
        if features.is_empty() {
            String::new()
        } else {
            format!(" ({})", features.join(", "))
        },
        call["method"].as_str().unwrap_or("?"),
    )
}

impl Campaign {
    /// Run it: ask seeds until the budget is spent or `stop` is set, then
    /// save the state and answer what was found. `progress` is called
    /// about once a second (and once at the end).
    pub fn run(
        &self,
        reference: Compared<'_>,
        subjects: &[Compared<'_>],
        stop: Option<&AtomicBool>,
        progress: impl Fn(&Progress) + Sync,
    ) -> Result<Found, CampaignError> {
        let mut state = State::load(&self.state)?;
        state.campaigns += 1;
        let campaign = state.campaigns;
        let slots: Vec<Slot> = if self.slots.is_empty() {
            Slot::all()
        } else {
            self.slots.clone()
        };
        let started = Instant::now();
        let deadline = started + self.budget;
        let shared = Mutex::new(Shared {
            state,
            turn: 0,
            last_new: None,
            first_new: None,
        });
        let seeds = AtomicU64::new(0);
        let calls_done = AtomicU64::new(0);
        let save_error: Mutex<Option<CampaignError>> = Mutex::new(None);
        let stopped =
            || stop.is_some_and(|s| s.load(Ordering::SeqCst)) || Instant::now() >= deadline;
        let snapshot = |shared: &Shared| Progress {
            seeds: seeds.load(Ordering::SeqCst),
            calls: calls_done.load(Ordering::SeqCst),
            new_groups: shared
                .state
                .groups
                .iter()
                .filter(|g| g.campaign == campaign)
                .count(),
            secs: started.elapsed().as_secs_f64(),
            quiet_secs: shared.last_new.unwrap_or(started).elapsed().as_secs_f64(),
        };
        std::thread::scope(|scope| {
            for _ in 0..self.jobs.max(1) {
                scope.spawn(|| {
                    while !stopped() {
                        // The next seed of the next sequence, round robin.
                        let (slot, seed) = {
                            let mut s = lock(&shared);
                            let slot = slots[s.turn % slots.len()];
                            s.turn += 1;
                            let next = s.state.next.entry(slot.name()).or_insert(0);
                            let seed = *next;
                            *next += 1;
                            (slot, seed)
                        };
                        let Ok(plan) = generate(slot.generator, seed, ROOT, slot.ground) else {
                            continue;
                        };
                        let Ok(divergences) = compare_plan_with(&plan, reference, subjects) else {
                            continue;
                        };
                        seeds.fetch_add(1, Ordering::SeqCst);
                        calls_done.fetch_add(
                            (calls(&plan).len() * subjects.len()) as u64,
                            Ordering::SeqCst,
                        );
                        for d in &divergences {
                            let Some(expected) = d.reference_answer() else {
                                continue;
                            };
                            for (i, answer) in d.answers.iter().enumerate().skip(1) {
                                if &answer.answer == expected || answer.explained.is_some() {
                                    continue;
                                }
                                let Some(differs) = difference_fields(expected, &answer.answer)
                                else {
                                    continue;
                                };
                                let method = d.call.method().to_string();
                                let signature = format!("{} × {method} × {differs}", answer.peer);
                                let new = {
                                    let mut s = lock(&shared);
                                    match s
                                        .state
                                        .groups
                                        .iter_mut()
                                        .find(|g| g.signature == signature)
                                    {
                                        Some(g) => {
                                            g.seen += 1;
                                            false
                                        }
                                        None => {
                                            let after = started.elapsed().as_secs_f64();
                                            s.state.groups.push(Group {
                                                signature: signature.clone(),
                                                peer: answer.peer.clone(),
                                                method: method.clone(),
                                                differs: differs.clone(),
                                                shape: None,
                                                first: Finding {
                                                    sequence: slot.name(),
                                                    seed,
                                                    call: d.call_index,
                                                },
                                                seen: 1,
                                                regression: None,
                                                not_kept: None,
                                                campaign,
                                                after_secs: after,
                                            });
                                            s.last_new = Some(Instant::now());
                                            s.first_new.get_or_insert(after);
                                            true
                                        }
                                    }
                                };
                                if new {
                                    let kept = self.keep(
                                        &plan,
                                        d.call_index,
                                        d.call.clone(),
                                        reference,
                                        subjects[i - 1],
                                    );
                                    let mut s = lock(&shared);
                                    if let Some(g) =
                                        s.state.groups.iter_mut().find(|g| g.signature == signature)
                                    {
                                        match kept {
                                            Ok((path, shape)) => {
                                                g.regression = Some(path.display().to_string());
                                                g.shape = Some(shape);
                                            }
                                            Err(why) => g.not_kept = Some(why.to_string()),
                                        }
                                    }
                                    // Saved at once: a campaign killed now
                                    // still knows the group and its file.
                                    if let Err(e) = s.state.save(&self.state) {
                                        *lock(&save_error) = Some(e);
                                    }
                                }
                            }
                        }
                    }
                });
            }
            // The live line, about once a second.
            scope.spawn(|| {
                while !stopped() {
                    std::thread::sleep(
                        Duration::from_millis(250)
                            .min(deadline.saturating_duration_since(Instant::now())),
                    );
                    let s = lock(&shared);
                    progress(&snapshot(&s));
                    drop(s);
                    std::thread::sleep(
                        Duration::from_millis(750)
                            .min(deadline.saturating_duration_since(Instant::now())),
                    );
                }
            });
        });
        if let Some(e) = lock(&save_error).take() {
            return Err(e);
        }
        let shared = shared.into_inner().unwrap_or_else(|p| p.into_inner());
        let last = Progress {
            seeds: seeds.load(Ordering::SeqCst),
            calls: calls_done.load(Ordering::SeqCst),
            new_groups: shared
                .state
                .groups
                .iter()
                .filter(|g| g.campaign == campaign)
                .count(),
            secs: started.elapsed().as_secs_f64(),
            quiet_secs: shared.last_new.unwrap_or(started).elapsed().as_secs_f64(),
        };
        progress(&last);
        shared.state.save(&self.state)?;
        Ok(Found {
            state: shared.state,
            progress: last,
            first_new_after: shared.first_new,
        })
    }

    /// Shrink a new group's first call and write its regression file: its
    /// path and the shrunk case's shape, or why it could not be kept.
    fn keep(
        &self,
        plan: &Plan,
        call_index: usize,
        call: crate::call::Call,
        reference: Compared<'_>,
        subject: Compared<'_>,
    ) -> Result<(PathBuf, String), RecordError> {
        let (regression, _) =
            shrink_to_regression(plan, call_index, call, reference.peer, subject.peer, None)
                .map_err(RecordError::Shrink)?;
        let shape = shape_of(&regression);
        let path = regression
            .write(&self.regressions, &regression.default_name())
            .map_err(RecordError::Write)?;
        Ok((path, shape))
    }
}

/// What the campaign's threads share.
struct Shared {
    state: State,
    /// Which sequence the next seed comes from.
    turn: usize,
    last_new: Option<Instant>,
    first_new: Option<f64>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::portable::Portable;

    #[test]
    fn a_state_that_is_not_one_is_refused_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fuzz-state.json");
        std::fs::write(&path, "not json").unwrap();
        let err = State::load(&path).unwrap_err();
        assert!(err.to_string().contains("not a campaign state"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "not json");
    }

    #[test]
    fn a_campaign_resumes_where_the_last_stopped_and_peers_that_agree_form_no_group() {
        let dir = tempfile::tempdir().unwrap();
        let campaign = Campaign {
            slots: vec![Slot {
                generator: Generator::Lawsuite,
                ground: Ground::Shared,
            }],
            budget: Duration::from_millis(1500),
            jobs: 1,
            state: dir.path().join("state.json"),
            regressions: dir.path().join("regressions"),
        };
        let (reference, twin) = (Portable::default(), Portable::default());
        let found = campaign
            .run(
                Compared::new(&reference),
                &[Compared::new(&twin)],
                None,
                |_| {},
            )
            .unwrap();
        assert_eq!(found.new_groups().count(), 0);
        let first = found.state.next["lawsuite"];
        assert!(first > 0 && found.progress.seeds == first);
        let again = campaign
            .run(
                Compared::new(&reference),
                &[Compared::new(&twin)],
                None,
                |_| {},
            )
            .unwrap();
        assert_eq!(again.state.campaigns, 2);
        assert!(
            again.state.next["lawsuite"] > first,
            "it resumes past seed {first}"
        );
    }
}
