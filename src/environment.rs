//! Every `LAWSUITE_*` environment variable, read in this one place.
//!
//! Both front doors, the engine and the `rg`-driven peers take their
//! environment from here, so a variable means the same thing however a
//! run is started, and one table ([`VARIABLES`]) documents them all:
//! `lawsuite --help` lists them from it ([`help`]), and each `lawsuite
//! run` flag that sets the same as a variable ([`Variable::flag`]) shows
//! it in its help as `[env: LAWSUITE_…]`. A value that
//! cannot be read is an [`EnvError`] naming the variable, the value and
//! what it takes, never a silent default: `LAWSUITE_SEEDS=0-100` used to
//! run the default seeds without a word.
//!
//! They are read once, into an [`Environment`]: the binary reads it at
//! dispatch, before any command starts a peer, and a `cargo test` suite
//! when it is made. The run's settings
//! ([`crate::conformance::config::Config`]) overlay it on their defaults,
//! and an explicit setting (a flag, a builder call) wins over both, as
//! proptest's `Config` takes `PROPTEST_CASES`. Nothing else reads a
//! `LAWSUITE_*` variable: the `rg` peers, the SLOW watcher and the
//! interrupt handler are handed their settings.
//!
//! ```
//! use lawsuite::environment::{Environment, VARIABLES, parse_seeds};
//! assert!(VARIABLES.iter().any(|v| v.name == "LAWSUITE_SEEDS"));
//! assert_eq!(parse_seeds("0..10"), Some(0..10));
//! let env = Environment::from_vars([("LAWSUITE_SEEDS", "0..100")])?;
//! assert_eq!(env.seeds(), Some(0..100));
//! # Ok::<(), Vec<lawsuite::environment::EnvError>>(())
//! ```

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::peer::Ground;

/// One variable: its name, what it does, and the flag that sets the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variable {
    /// `LAWSUITE_…`.
    pub name: &'static str,
    /// What it takes and does, one sentence.
    pub meaning: &'static str,
    /// The `lawsuite run` flag (its long name, without `--`) that sets
    /// the same, and wins over the variable; `None` when only the
    /// variable sets it.
    pub flag: Option<&'static str>,
}

/// Every variable lawsuite reads.
pub const VARIABLES: &[Variable] = &[
    Variable {
        name: SEEDS,
        meaning: "A..B or N: the seeds of every generator, instead of the default ones (a wider sweep)",
        flag: Some("seeds"),
    },
    Variable {
        name: GROUND,
        meaning: "shared or full: the ground of the lawsuite generator's plans (default shared)",
        flag: Some("ground"),
    },
    Variable {
        name: EXHAUSTIVE_SIZE,
        meaning: "a number from 0 to 8: every bounded-exhaustive family (glob, gitignore, pattern) at that size instead of its default (0 runs none)",
        flag: Some("exhaustive-size"),
    },
    Variable {
        name: RECORD,
        meaning: "1: a failing seed shrinks its divergences and records them in the project's regression directory",
        flag: None,
    },
    Variable {
        name: SLOW_SECS,
        meaning: "seconds: how long a trial runs before a SLOW line names it (default 10; 0 turns them off)",
        flag: None,
    },
    Variable {
        name: INTERRUPT_GRACE_SECS,
        meaning: "seconds: how long running trials get to end after Ctrl-C before their peers are stopped (default 10)",
        flag: None,
    },
    Variable {
        name: MAX_REPORTS,
        meaning: "a number: failing calls `cargo test` and `lawsuite run` print in full, the rest counted (default 20; 0 prints all)",
        flag: Some("max-reports"),
    },
    Variable {
        name: REPEAT,
        meaning: "a number from 1: each trial is asked that many times, on fresh trees; one whose verdicts differ is flaky (default 1)",
        flag: Some("repeat"),
    },
    Variable {
        name: RG,
        meaning: "a path: the rg binary the ripgrep peers run (default rg on PATH)",
        flag: None,
    },
    Variable {
        name: RG_TIMEOUT_MS,
        meaning: "milliseconds: how long one rg may run before it is killed (default 60000)",
        flag: None,
    },
    Variable {
        name: RG_MEMORY_MB,
        meaning: "MiB: the address-space bound of each rg (default 4096; 0 for none)",
        flag: None,
    },
];

const SEEDS: &str = "LAWSUITE_SEEDS";
const GROUND: &str = "LAWSUITE_GROUND";
const EXHAUSTIVE_SIZE: &str = "LAWSUITE_EXHAUSTIVE_SIZE";

/// The largest size `LAWSUITE_EXHAUSTIVE_SIZE` (and `--exhaustive-size`)
/// takes: [`crate::kit::exhaustive::MAX_SIZE`], whose doc says why.
pub const MAX_EXHAUSTIVE_SIZE: usize = 8;
const RECORD: &str = "LAWSUITE_RECORD";
const SLOW_SECS: &str = "LAWSUITE_SLOW_SECS";
const INTERRUPT_GRACE_SECS: &str = "LAWSUITE_INTERRUPT_GRACE_SECS";
const MAX_REPORTS: &str = "LAWSUITE_MAX_REPORTS";
const REPEAT: &str = "LAWSUITE_REPEAT";
const RG: &str = "LAWSUITE_RG";
const RG_TIMEOUT_MS: &str = "LAWSUITE_RG_TIMEOUT_MS";
const RG_MEMORY_MB: &str = "LAWSUITE_RG_MEMORY_MB";

/// A variable whose value cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnvError {
    /// The variable.
    pub variable: &'static str,
    /// Its value, as set.
    pub value: String,
    /// What it takes.
    pub expected: &'static str,
}

impl fmt::Display for EnvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}={:?} is not {}; unset it or give such a value",
            self.variable, self.value, self.expected
        )
    }
}

impl std::error::Error for EnvError {}

/// The `LAWSUITE_*` variables of one process, read once and typed: each
/// setting is `None` where its variable is unset (or empty), so a
/// [`Config`](crate::conformance::config::Config) overlays only what was
/// set. [`Environment::read`] takes the process's variables;
/// [`Environment::from_vars`] takes any, so a host (or a test) says what
/// the environment is without touching the process's.
///
/// ```
/// use std::time::Duration;
/// use lawsuite::environment::Environment;
///
/// let env = Environment::from_vars([("LAWSUITE_RG_TIMEOUT_MS", "1500")])?;
/// assert_eq!(env.rg_timeout(), Some(Duration::from_millis(1500)));
/// assert_eq!(env.seeds(), None);
///
/// let bad = Environment::from_vars([("LAWSUITE_RG_TIMEOUT_MS", "abc")]).unwrap_err();
/// assert_eq!(
///     bad[0].to_string(),
///     "LAWSUITE_RG_TIMEOUT_MS=\"abc\" is not a number of milliseconds above 0; unset it or give such a value"
/// );
/// # Ok::<(), Vec<lawsuite::environment::EnvError>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Environment {
    seeds: Option<Range<u64>>,
    ground: Option<Ground>,
    exhaustive_size: Option<usize>,
    record: bool,
    slow_period: Option<Option<Duration>>,
    interrupt_grace: Option<Duration>,
    max_reports: Option<usize>,
    repeat: Option<u32>,
    rg_program: Option<PathBuf>,
    rg_timeout: Option<Duration>,
    rg_memory_mb: Option<u64>,
}

impl Environment {
    /// No variable set: every setting takes its default.
    pub fn none() -> Environment {
        Environment::default()
    }

    /// The process's variables. Every variable set to a value it cannot
    /// take is an [`EnvError`] naming it (all of them, not the first).
    pub fn read() -> Result<Environment, Vec<EnvError>> {
        Environment::from_lookup(|name| std::env::var_os(name))
    }

    /// The variables `vars` sets (the last of a name wins), read as
    /// [`Environment::read`] reads the process's.
    pub fn from_vars<K, V>(
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Result<Environment, Vec<EnvError>>
    where
        K: AsRef<str>,
        V: AsRef<OsStr>,
    {
        let vars: Vec<(String, OsString)> = vars
            .into_iter()
            .map(|(k, v)| (k.as_ref().to_string(), v.as_ref().to_os_string()))
            .collect();
        Environment::from_lookup(|name| {
            vars.iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        })
    }

    fn from_lookup(
        lookup: impl Fn(&str) -> Option<OsString>,
    ) -> Result<Environment, Vec<EnvError>> {
        let mut errors = Vec::new();
        let mut var = Reader {
            lookup: &lookup,
            errors: &mut errors,
        };
        let env = Environment {
            seeds: var.read(
                SEEDS,
                "A..B (with A < B) or N, such as 0..1000",
                parse_seeds,
            ),
            ground: var.read(GROUND, "shared or full", |v| v.parse().ok()),
            exhaustive_size: var.read(EXHAUSTIVE_SIZE, "a whole number from 0 to 8", |v| {
                v.parse().ok().filter(|n: &usize| *n <= MAX_EXHAUSTIVE_SIZE)
            }),
            record: var
                .read(RECORD, "1 (or unset)", |v| {
                    (v == "1" || v == "0").then(|| v == "1")
                })
                .unwrap_or(false),
            slow_period: var.read(SLOW_SECS, "a whole number of seconds", |v| {
                let secs: u64 = v.parse().ok()?;
                Some((secs > 0).then(|| Duration::from_secs(secs)))
            }),
            interrupt_grace: var.read(
                INTERRUPT_GRACE_SECS,
                "a number of seconds from 0 to 18446744073709551615",
                parse_secs,
            ),
            max_reports: var.read(MAX_REPORTS, "a whole number (0 prints all)", |v| {
                v.parse().ok()
            }),
            repeat: var.read(REPEAT, "a whole number from 1", |v| {
                v.parse().ok().filter(|n: &u32| *n >= 1)
            }),
            // Any path names a program: `LAWSUITE_RG` is taken as it is.
            rg_program: lookup(RG).filter(|v| !v.is_empty()).map(PathBuf::from),
            rg_timeout: var.read(RG_TIMEOUT_MS, "a number of milliseconds above 0", |v| {
                let ms: u64 = v.parse().ok()?;
                (ms > 0).then(|| Duration::from_millis(ms))
            }),
            rg_memory_mb: var.read(RG_MEMORY_MB, "a number of MiB (0 for no bound)", |v| {
                v.parse().ok()
            }),
        };
        if errors.is_empty() {
            Ok(env)
        } else {
            Err(errors)
        }
    }

    /// `LAWSUITE_SEEDS`: the seeds every generator runs instead of its
    /// defaults.
    pub fn seeds(&self) -> Option<Range<u64>> {
        self.seeds.clone()
    }

    /// `LAWSUITE_GROUND`: the `lawsuite` generator's ground.
    pub fn ground(&self) -> Option<Ground> {
        self.ground
    }

    /// `LAWSUITE_EXHAUSTIVE_SIZE`: every bounded-exhaustive family's size
    /// (`Some(0)`: none).
    pub fn exhaustive_size(&self) -> Option<usize> {
        self.exhaustive_size
    }

    /// `LAWSUITE_RECORD=1`: failing seeds are recorded.
    pub fn record(&self) -> bool {
        self.record
    }

    /// `LAWSUITE_SLOW_SECS`: the SLOW-line period (`Some(None)`: off).
    pub fn slow_period(&self) -> Option<Option<Duration>> {
        self.slow_period
    }

    /// `LAWSUITE_INTERRUPT_GRACE_SECS`: the grace after the first interrupt.
    pub fn interrupt_grace(&self) -> Option<Duration> {
        self.interrupt_grace
    }

    /// `LAWSUITE_MAX_REPORTS`: failing calls printed in full (`Some(0)`:
    /// all).
    pub fn max_reports(&self) -> Option<usize> {
        self.max_reports
    }

    /// `LAWSUITE_REPEAT`: how many times each trial is asked.
    pub fn repeat(&self) -> Option<u32> {
        self.repeat
    }

    /// `LAWSUITE_RG`: the `rg` binary to run.
    pub fn rg_program(&self) -> Option<&Path> {
        self.rg_program.as_deref()
    }

    /// `LAWSUITE_RG_TIMEOUT_MS`: one `rg`'s deadline.
    pub fn rg_timeout(&self) -> Option<Duration> {
        self.rg_timeout
    }

    /// `LAWSUITE_RG_MEMORY_MB`: one `rg`'s address-space bound in MiB
    /// (`Some(0)`: none).
    pub fn rg_memory_mb(&self) -> Option<u64> {
        self.rg_memory_mb
    }
}

/// Reads variables through a lookup, keeping every value it cannot read
/// as an [`EnvError`].
struct Reader<'a, F> {
    lookup: &'a F,
    errors: &'a mut Vec<EnvError>,
}

impl<F: Fn(&str) -> Option<OsString>> Reader<'_, F> {
    /// `name` read with `parse`: `None` when it is unset or blank, or when
    /// `parse` refuses it (an error naming it is then kept).
    fn read<T>(
        &mut self,
        name: &'static str,
        expected: &'static str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Option<T> {
        let value = (self.lookup)(name)?.to_string_lossy().into_owned();
        if value.trim().is_empty() {
            return None;
        }
        let parsed = parse(value.trim());
        if parsed.is_none() {
            self.errors.push(EnvError {
                variable: name,
                value,
                expected,
            });
        }
        parsed
    }
}

/// Parse `A..B` or `N` into a non-empty range of seeds (`LAWSUITE_SEEDS`,
/// and `--seeds` on the command line).
///
/// ```
/// use lawsuite::environment::parse_seeds;
/// assert_eq!(parse_seeds("0..10"), Some(0..10));
/// assert_eq!(parse_seeds("7"), Some(7..8));
/// assert_eq!(parse_seeds("5..2"), None);
/// ```
pub fn parse_seeds(text: &str) -> Option<Range<u64>> {
    let range = match text.split_once("..") {
        Some((a, b)) => a.trim().parse().ok()?..b.trim().parse().ok()?,
        None => {
            let n: u64 = text.trim().parse().ok()?;
            n..n.checked_add(1)?
        }
    };
    (!range.is_empty()).then_some(range)
}

/// A number of seconds (`2.5`, `1e3`) as a [`Duration`]: `None` for one
/// that is not a number, negative, or longer than a `Duration` holds
/// (`1e30` made `Duration::from_secs_f64` panic).
///
/// ```
/// use std::time::Duration;
/// use lawsuite::environment::parse_secs;
/// assert_eq!(parse_secs("2.5"), Some(Duration::from_millis(2500)));
/// assert_eq!(parse_secs("1e30"), None);
/// assert_eq!(parse_secs("-1"), None);
/// assert_eq!(parse_secs("NaN"), None);
/// ```
pub fn parse_secs(text: &str) -> Option<Duration> {
    let secs: f64 = text.trim().parse().ok()?;
    Duration::try_from_secs_f64(secs).ok()
}

/// Where law trees and seed plans are written: `TMPDIR` when it is set
/// (the standard variable, honoured as [`std::env::temp_dir`] does); else,
/// on Linux, `/dev/shm` when it is a directory lawsuite can write; else the
/// system's temporary directory.
///
/// A run of the shipped laws creates and removes about 7,500 small files.
/// On tmpfs that costs a fraction of what a disk file system does: the
/// 2,125 trials of a skeleton Rust peer's `cargo test` took 4.1–7.3 s
/// wall (2.3–8.6 s of it system CPU) with trees on the ext4 `/tmp` of the
/// 2-core machine measured and 3.0 s (0.9 s system) on `/dev/shm`.
pub fn trees_dir() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        if std::env::var_os("TMPDIR").is_some_and(|v| !v.is_empty()) {
            return std::env::temp_dir();
        }
        let shm = std::path::Path::new("/dev/shm");
        if cfg!(target_os = "linux") && writable(shm) {
            return shm.to_path_buf();
        }
        std::env::temp_dir()
    })
    .clone()
}

/// Whether a directory can be made (and removed) in `dir`.
fn writable(dir: &std::path::Path) -> bool {
    let probe = dir.join(format!("lawsuite-probe-{}", std::process::id()));
    let made = std::fs::create_dir(&probe).is_ok();
    made && std::fs::remove_dir(&probe).is_ok()
}

/// The variables as a table for `lawsuite --help`: one line each, with the
/// `lawsuite run` flag that wins over it, when there is one.
///
/// ```
/// let help = lawsuite::environment::help();
/// assert!(help.contains("LAWSUITE_RG_MEMORY_MB"));
/// assert!(help.contains("(run --seeds wins)"));
/// ```
pub fn help() -> String {
    VARIABLES
        .iter()
        .map(|v| {
            let flag = v
                .flag
                .map_or_else(String::new, |flag| format!(" (run --{flag} wins)"));
            format!("  {:<31} {}{flag}\n", v.name, v.meaning)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_value_names_the_variable_and_what_it_takes() {
        let e = EnvError {
            variable: SEEDS,
            value: "0-100".into(),
            expected: "A..B (with A < B) or N, such as 0..1000",
        };
        assert_eq!(
            e.to_string(),
            "LAWSUITE_SEEDS=\"0-100\" is not A..B (with A < B) or N, such as 0..1000; unset it or give such a value"
        );
    }

    #[test]
    fn every_bad_value_is_named_not_only_the_first() {
        let errors = Environment::from_vars([
            ("LAWSUITE_RG_TIMEOUT_MS", "abc"),
            ("LAWSUITE_REPEAT", "0"),
            ("LAWSUITE_GROUND", "full"),
        ])
        .unwrap_err();
        let named: Vec<&str> = errors.iter().map(|e| e.variable).collect();
        assert_eq!(named, ["LAWSUITE_REPEAT", "LAWSUITE_RG_TIMEOUT_MS"]);
    }

    #[test]
    fn unset_and_blank_are_the_defaults() {
        let env = Environment::from_vars([("LAWSUITE_SEEDS", " "), ("LAWSUITE_RG", "")]).unwrap();
        assert_eq!(env, Environment::none());
        let env = Environment::from_vars([
            ("LAWSUITE_RECORD", "1"),
            ("LAWSUITE_SLOW_SECS", "0"),
            ("LAWSUITE_RG_MEMORY_MB", "0"),
            ("LAWSUITE_RG", "/opt/rg"),
        ])
        .unwrap();
        assert!(env.record());
        assert_eq!(env.slow_period(), Some(None));
        assert_eq!(env.rg_memory_mb(), Some(0));
        assert_eq!(env.rg_program(), Some(Path::new("/opt/rg")));
    }

    /// Both sides of the largest size, and what a size is not.
    #[test]
    fn the_exhaustive_size_is_a_number_up_to_the_largest() {
        let env = Environment::from_vars([("LAWSUITE_EXHAUSTIVE_SIZE", "8")]).unwrap();
        assert_eq!(env.exhaustive_size(), Some(8));
        let env = Environment::from_vars([("LAWSUITE_EXHAUSTIVE_SIZE", "0")]).unwrap();
        assert_eq!(env.exhaustive_size(), Some(0));
        for bad in ["9", "-1", "three"] {
            let errors = Environment::from_vars([("LAWSUITE_EXHAUSTIVE_SIZE", bad)]).unwrap_err();
            assert_eq!(errors[0].variable, "LAWSUITE_EXHAUSTIVE_SIZE", "{bad}");
            assert!(
                errors[0].to_string().contains("from 0 to 8"),
                "{}",
                errors[0]
            );
        }
    }

    #[test]
    fn every_variable_is_documented_once() {
        let mut names: Vec<&str> = VARIABLES.iter().map(|v| v.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), VARIABLES.len());
        assert!(names.iter().all(|n| n.starts_with("LAWSUITE_")));
    }
}
