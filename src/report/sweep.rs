//! Which sweep a results file belongs to, so that `lawsuite merge` and
//! `lawsuite report` put together only the shards of one.
//!
//! A run's [`RunInfo`] names its sweep: the lawsuite version, the
//! reference, each generator that ran with its version, ground and seeds
//! ([`RunInfo::seed_sets`]: what the seeds are, however they were spelled:
//! `--seeds`, `LAWSUITE_SEEDS` or the default), its law set and its
//! regressions (each a count and a digest of every one's id and content,
//! [`laws_of`], [`regressions_of`]), the trial filter
//! ([`RunInfo::filter`]), and the shard. Two shards of `run --shard K/N
//! --seeds 0..6` and `--seeds 0..12` used to merge with exit status 0 and
//! no word; [`differences`] names each field in which two run lines
//! differ.
//!
//! Results files written before these fields existed name only their
//! generators, seeds and ground; they are compared on those, and a merge
//! of such files says that the rest could not be checked. A file that
//! names its sweep beside one that does not is of another sweep: which
//! laws the older one ran cannot be known.

use std::fmt::Write as _;
use std::hash::Hasher;

use super::RunInfo;
use crate::conformance::Item;
use crate::conformance::config::{SeedSet, Seeds};

/// The fields in which the run lines `a` and `b` name different sweeps:
/// `(field, a's value, b's value)`, each value as a person reads it. The
/// lawsuite version and the reference are not among them (their own
/// checks say more), nor the shard (the shards are checked together).
///
/// ```
/// use lawsuite::report::RunInfo;
/// use lawsuite::report::sweep::differences;
/// let run = |seeds: &str| RunInfo {
///     seed_sets: vec![format!("lawsuite v5 shared {seeds}")],
///     laws: Some("12 laws, digest 0123456789abcdef".into()),
///     regressions: Some("0 regressions".into()),
///     ..RunInfo::default()
/// };
/// assert!(differences(&run("0..6"), &run("0..6")).is_empty());
/// let d = differences(&run("0..6"), &run("0..12"));
/// assert_eq!(d[0].0, "seeds");
/// ```
pub fn differences(a: &RunInfo, b: &RunInfo) -> Vec<(&'static str, String, String)> {
    let mut out = Vec::new();
    let mut field = |name: &'static str, x: String, y: String| {
        if x != y {
            out.push((name, x, y));
        }
    };
    let shown = |v: &Option<String>| match v {
        Some(v) => format!("{v:?}"),
        None => "none".to_string(),
    };
    if names_its_sweep(a) && names_its_sweep(b) {
        let sets = |info: &RunInfo| format!("{:?}", info.seed_sets.join(", "));
        field("seeds", sets(a), sets(b));
        field("law set", shown(&a.laws), shown(&b.laws));
        field("regressions", shown(&a.regressions), shown(&b.regressions));
        field("filter", shown(&a.filter), shown(&b.filter));
        return out;
    }
    // Written before results named their sweep: what both say.
    field("generators", shown(&a.generator), shown(&b.generator));
    field("seeds", shown(&a.seeds), shown(&b.seeds));
    field("ground", shown(&a.ground), shown(&b.ground));
    if names_its_sweep(a) != names_its_sweep(b) {
        let named = |info: &RunInfo| {
            if names_its_sweep(info) {
                shown(&info.laws)
            } else {
                "not named (written before results named their sweep)".to_string()
            }
        };
        field("law set", named(a), named(b));
    }
    out
}

/// Whether `info` names its sweep: its law set, regressions, seed sets
/// and filter (results written since they were added always do).
pub fn names_its_sweep(info: &RunInfo) -> bool {
    info.laws.is_some()
}

/// A seed set as a run line names it: generator, version, ground and
/// seeds (`lawsuite v5 shared 0..64`); a long list of seeds (a
/// `--rerun-failed`'s) as its count and a digest.
///
/// ```
/// use lawsuite::conformance::config::{SeedSet, Seeds};
/// use lawsuite::kit::Generator;
/// use lawsuite::peer::Ground;
/// let set = SeedSet { generator: Generator::Smthrs, ground: Ground::Shared, seeds: Seeds::Range(0..12) };
/// assert_eq!(lawsuite::report::sweep::seed_set(&set), "smthrs v1 shared 0..12");
/// ```
pub fn seed_set(set: &SeedSet) -> String {
    let seeds = match &set.seeds {
        Seeds::Range(r) => format!("{}..{}", r.start, r.end),
        Seeds::Listed(list) if list.len() <= 16 => list
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(","),
        Seeds::Listed(list) => {
            let mut digest = Digest::default();
            for seed in list {
                digest.write_u64(*seed);
            }
            format!("{} seeds, digest {:016x}", list.len(), digest.finish())
        }
    };
    format!(
        "{} v{} {} {seeds}",
        set.generator.name(),
        set.generator.version(),
        set.ground.name()
    )
}

/// The law set of `items`: how many laws, and a digest of each law's id
/// and content in order (`2140 laws, digest 5f3c…`). Two runs with the
/// same law files give the same digest on any machine; a law added,
/// removed or changed changes it.
pub fn laws_of(items: &[Item]) -> String {
    let mut digest = Digest::default();
    let mut n = 0usize;
    for item in items {
        if let Item::Law(law) = item {
            n += 1;
            digest.write(law.id.as_bytes());
            digest.write_u8(0);
            // The law as loaded (its tree, call and expectation), in the
            // `Debug` form this version of lawsuite gives it: shards are
            // run by one version (its own check).
            let _ = write!(digest, "{:?}", law.law);
            digest.write_u8(0);
        }
    }
    format!("{n} laws, digest {:016x}", digest.finish())
}

/// The regressions of `items`, as [`laws_of`] says laws.
pub fn regressions_of(items: &[Item]) -> String {
    let mut digest = Digest::default();
    let mut n = 0usize;
    for item in items {
        if let Item::Regression {
            name, regression, ..
        } = item
        {
            n += 1;
            digest.write(name.as_bytes());
            digest.write_u8(0);
            let _ = serde_json::to_writer(&mut digest, regression.as_ref());
            digest.write_u8(0);
        }
    }
    format!("{n} regressions, digest {:016x}", digest.finish())
}

/// How many `pieces` there are and a digest of them in order, as a run
/// line names a set (`12 trials, digest 5f3c…`).
///
/// ```
/// let d = lawsuite::report::sweep::digest_of([&b"a"[..]], "trials");
/// assert!(d.starts_with("1 trials, digest "));
/// ```
pub fn digest_of<'a>(pieces: impl IntoIterator<Item = &'a [u8]>, what: &str) -> String {
    let mut digest = Digest::default();
    let mut n = 0usize;
    for piece in pieces {
        n += 1;
        digest.write(piece);
        digest.write_u8(0);
    }
    format!("{n} {what}, digest {:016x}", digest.finish())
}

/// FNV-1a, 64 bits: the same on every machine and build (what
/// [`crate::conformance::shard::in_shard`] uses), unlike the standard
/// library's hasher, whose output may change between Rust releases.
#[derive(Clone, Copy, Debug)]
struct Digest(u64);

impl Default for Digest {
    fn default() -> Digest {
        Digest(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Digest {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

impl std::fmt::Write for Digest {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        Hasher::write(self, s.as_bytes());
        Ok(())
    }
}

impl std::io::Write for Digest {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        Hasher::write(self, buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(seeds: &str, laws: &str, filter: Option<&str>) -> RunInfo {
        RunInfo {
            seed_sets: vec![seeds.to_string()],
            laws: Some(laws.to_string()),
            regressions: Some("0 regressions, digest 0".into()),
            filter: filter.map(str::to_string),
            ..RunInfo::default()
        }
    }

    #[test]
    fn each_field_of_a_sweep_is_compared() {
        let a = named("smthrs v1 shared 0..6", "3 laws, digest 1", None);
        assert!(differences(&a, &a.clone()).is_empty());
        for (b, field) in [
            (
                named("smthrs v1 shared 0..12", "3 laws, digest 1", None),
                "seeds",
            ),
            (
                named("lawsuite v5 shared 0..6", "3 laws, digest 1", None),
                "seeds",
            ),
            (
                named("smthrs v2 shared 0..6", "3 laws, digest 1", None),
                "seeds",
            ),
            (
                named("smthrs v1 shared 0..6", "3 laws, digest 2", None),
                "law set",
            ),
            (
                named("smthrs v1 shared 0..6", "3 laws, digest 1", Some("glob::")),
                "filter",
            ),
        ] {
            let d = differences(&a, &b);
            assert_eq!(d.len(), 1, "{d:?}");
            assert_eq!(d[0].0, field);
        }
        // An older file beside one that names its sweep.
        let old = RunInfo::default();
        let d = differences(&a, &old);
        assert!(
            d.iter()
                .any(|(f, _, y)| *f == "law set" && y.contains("not named")),
            "{d:?}"
        );
        assert!(differences(&old, &old.clone()).is_empty());
    }

    #[test]
    fn digests_are_fnv_1a() {
        let mut d = Digest::default();
        Hasher::write(&mut d, b"a");
        // The published FNV-1a 64 of "a".
        assert_eq!(d.finish(), 0xaf63dc4c8601ec8c);
    }
}
