//! Shards of a run: a shard takes the items whose id hashes to it
//! ([`in_shard`]), the way `cargo nextest run --partition hash:K/N` takes
//! tests: stable across machines and runs, whatever else is selected, and
//! an item's trials (a seed on every subject) stay together. `lawsuite
//! merge` puts the shards' results back together
//! ([`crate::report::results`]).
//!
//! ```
//! use lawsuite::conformance::shard::in_shard;
//! let ids = ["law::a::x", "law::b::y", "seed::smthrs::0001", "regression::r"];
//! for id in ids {
//!     // Every item is in exactly one of the N shards.
//!     assert_eq!((1..=3).filter(|k| in_shard(id, *k, 3)).count(), 1);
//! }
//! ```

/// Whether item `id` is in shard `k` of `n` (1-based): FNV-1a of the id,
/// modulo `n`.
pub fn in_shard(id: &str, k: u64, n: u64) -> bool {
    let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    n > 0 && hash % n == k.wrapping_sub(1)
}

/// `K/N` with `1 <= K <= N`.
///
/// ```
/// use lawsuite::conformance::shard::parse_shard;
/// assert_eq!(parse_shard("2/8"), Ok((2, 8)));
/// assert!(parse_shard("0/8").is_err() && parse_shard("9/8").is_err());
/// ```
pub fn parse_shard(text: &str) -> Result<(u64, u64), BadShard> {
    let bad = || BadShard(text.to_string());
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (u64, u64) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// A `--shard` that is not `K/N` with `1 <= K <= N`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadShard(pub String);

impl std::fmt::Display for BadShard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "--shard takes K/N with 1 <= K <= N (e.g. 2/8), not {:?}",
            self.0
        )
    }
}

impl std::error::Error for BadShard {}
