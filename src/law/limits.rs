//! How big a law's tree may be: the bounds of the law file format, apart
//! from the format and from the problems that name them, so both can use
//! them without importing each other.

/// The most text one law may generate (a file or an expected string): far
/// above any cap of the spec, far below what would exhaust memory.
pub(super) const MAX_GENERATED: usize = 256 << 20;

/// The most entries one `count` form may make: ten times the largest cap
/// the spec counts to (1,000 glob entries), and small enough that writing
/// them takes well under a second.
pub const MAX_COUNT: usize = 10_000;

/// The largest `size` a sparse file may be given: 1 GiB, sixteen times the
/// 64 MiB read cap the `size` form exists to get past.
pub const MAX_SIZE: u64 = 1 << 30;
