//! Every `LAWSUITE_*` environment variable, read in this one place.
//!
//! Both front doors, the engine and the `rg`-driven peers take their
//! environment from here, so a variable means the same thing however a
//! run is started, and one table ([`VARIABLES`]) documents them all (the
//! README's and `lawsuite --help`'s lists come from it). A value that
//! cannot be read is an [`EnvError`] naming the variable, the value and
//! what it takes, never a silent default: `LAWSUITE_SEEDS=0-100` used to
//! run the default seeds without a word.
//!
//! The run's settings ([`crate::conformance::config::Config`]) overlay the
//! variables on their defaults, and an explicit setting (a flag, a builder
//! call) wins over both, as proptest's `Config` takes `PROPTEST_CASES`.
//!
//! ```
//! use lawsuite::environment::{VARIABLES, parse_seeds};
//! assert!(VARIABLES.iter().any(|v| v.name == "LAWSUITE_SEEDS"));
//! assert_eq!(parse_seeds("0..10"), Some(0..10));
//! ```

use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use std::time::Duration;

use crate::peer::Ground;

/// One variable: its name and what it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variable {
    /// `LAWSUITE_…`.
    pub name: &'static str,
    /// What it takes and does, one sentence.
    pub meaning: &'static str,
}

/// Every variable lawsuite reads.
pub const VARIABLES: &[Variable] = &[
    Variable {
        name: SEEDS,
        meaning: "A..B or N: the seeds of every generator, instead of the default ones (a wider sweep)",
    },
    Variable {
        name: GROUND,
        meaning: "shared or full: the ground of the lawsuite generator's plans (default shared)",
    },
    Variable {
        name: RECORD,
        meaning: "1: a failing seed shrinks its divergences and records them in the project's regression directory",
    },
    Variable {
        name: SLOW_SECS,
        meaning: "seconds: how long a trial runs before a SLOW line names it (default 10; 0 turns them off)",
    },
    Variable {
        name: INTERRUPT_GRACE_SECS,
        meaning: "seconds: how long running trials get to end after Ctrl-C before their peers are stopped (default 10)",
    },
    Variable {
        name: MAX_REPORTS,
        meaning: "a number: failing calls a `cargo test` of the suite prints in full, the rest counted (default 20; 0 prints all)",
    },
    Variable {
        name: REPEAT,
        meaning: "a number from 1: each trial is asked that many times, on fresh trees; one whose verdicts differ is flaky (default 1)",
    },
    Variable {
        name: RG,
        meaning: "a path: the rg binary the ripgrep peers run (default rg on PATH)",
    },
    Variable {
        name: RG_TIMEOUT_MS,
        meaning: "milliseconds: how long one rg may run before it is killed (default 60000)",
    },
    Variable {
        name: RG_MEMORY_MB,
        meaning: "MiB: the address-space bound of each rg (default 4096; 0 for none)",
    },
];

const SEEDS: &str = "LAWSUITE_SEEDS";
const GROUND: &str = "LAWSUITE_GROUND";
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

/// The value of `name`, when set and not empty.
fn raw(name: &'static str) -> Option<String> {
    let value = std::env::var_os(name)?;
    let value = value.to_string_lossy().into_owned();
    (!value.trim().is_empty()).then_some(value)
}

/// `name` read with `parse`; unset is `Ok(None)`.
fn read<T>(
    name: &'static str,
    expected: &'static str,
    parse: impl FnOnce(&str) -> Option<T>,
) -> Result<Option<T>, EnvError> {
    let Some(value) = raw(name) else {
        return Ok(None);
    };
    match parse(value.trim()) {
        Some(v) => Ok(Some(v)),
        None => Err(EnvError {
            variable: name,
            value,
            expected,
        }),
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

/// `LAWSUITE_SEEDS`: the seeds every generator runs instead of its defaults.
pub fn seeds() -> Result<Option<Range<u64>>, EnvError> {
    read(
        SEEDS,
        "A..B (with A < B) or N, such as 0..1000",
        parse_seeds,
    )
}

/// `LAWSUITE_GROUND`: the `lawsuite` generator's ground.
pub fn ground() -> Result<Option<Ground>, EnvError> {
    read(GROUND, "shared or full", |v| v.parse().ok())
}

/// `LAWSUITE_RECORD`: whether failing seeds are recorded (`1`).
pub fn record() -> Result<bool, EnvError> {
    read(RECORD, "1 (or unset)", |v| {
        (v == "1" || v == "0").then(|| v == "1")
    })
    .map(|v| v.unwrap_or(false))
}

/// `LAWSUITE_SLOW_SECS`: the SLOW-line period (`Some(None)`: off).
pub fn slow_period() -> Result<Option<Option<Duration>>, EnvError> {
    read(SLOW_SECS, "a whole number of seconds", |v| {
        let secs: u64 = v.parse().ok()?;
        Some((secs > 0).then(|| Duration::from_secs(secs)))
    })
}

/// `LAWSUITE_INTERRUPT_GRACE_SECS`: the grace after the first interrupt.
pub fn interrupt_grace() -> Result<Option<Duration>, EnvError> {
    read(
        INTERRUPT_GRACE_SECS,
        "a number of seconds from 0 to 18446744073709551615",
        parse_secs,
    )
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

/// `LAWSUITE_MAX_REPORTS`: how many failing calls `cargo test` prints in
/// full (`Some(0)`: all), as `lawsuite run --max-reports` does.
pub fn max_reports() -> Result<Option<usize>, EnvError> {
    read(MAX_REPORTS, "a whole number (0 prints all)", |v| {
        v.parse().ok()
    })
}

/// `LAWSUITE_REPEAT`: how many times each trial is asked (`--repeat`).
pub fn repeat() -> Result<Option<u32>, EnvError> {
    read(REPEAT, "a whole number from 1", |v| {
        v.parse().ok().filter(|n: &u32| *n >= 1)
    })
}

/// `LAWSUITE_RG`: the `rg` binary to run.
pub fn rg_program() -> Option<PathBuf> {
    std::env::var_os(RG)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// `LAWSUITE_RG_TIMEOUT_MS`: one `rg`'s deadline.
pub fn rg_timeout() -> Result<Option<Duration>, EnvError> {
    read(RG_TIMEOUT_MS, "a number of milliseconds above 0", |v| {
        let ms: u64 = v.parse().ok()?;
        (ms > 0).then(|| Duration::from_millis(ms))
    })
}

/// `LAWSUITE_RG_MEMORY_MB`: one `rg`'s address-space bound in MiB
/// (`Some(0)`: none).
pub fn rg_memory_mb() -> Result<Option<u64>, EnvError> {
    read(RG_MEMORY_MB, "a number of MiB (0 for no bound)", |v| {
        v.parse().ok()
    })
}

/// Every variable that is set to a value it cannot take (the run's
/// configuration refuses to start on any of them).
pub fn problems() -> Vec<EnvError> {
    let mut out = Vec::new();
    out.extend(seeds().err());
    out.extend(ground().err());
    out.extend(record().err());
    out.extend(slow_period().err());
    out.extend(interrupt_grace().err());
    out.extend(max_reports().err());
    out.extend(repeat().err());
    out.extend(rg_timeout().err());
    out.extend(rg_memory_mb().err());
    out
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

/// The variables as a table for `--help` and the README: one line each.
pub fn help() -> String {
    VARIABLES
        .iter()
        .map(|v| format!("  {:<31} {}\n", v.name, v.meaning))
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
    fn every_variable_is_documented_once() {
        let mut names: Vec<&str> = VARIABLES.iter().map(|v| v.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), VARIABLES.len());
        assert!(names.iter().all(|n| n.starts_with("LAWSUITE_")));
    }
}
