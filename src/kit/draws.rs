//! The integer-only draws over ChaCha8 that the seeded generators share
//! (the `lawsuite` generator, [`super::lawsuite`], and the real-tree
//! differential, [`super::real_tree`]): one `next_u64` per draw, mapped to
//! `0..n` by multiply-shift, so a seed gives the same draws on every
//! platform.

use super::chacha::ChaCha8;

/// The integer-only draw helpers over ChaCha8 (module doc: one `next_u64`
/// per draw).
pub(crate) struct Draws(ChaCha8);

impl Draws {
    /// The draws of `seed`.
    pub(crate) fn seeded(seed: u64) -> Draws {
        Draws(ChaCha8::seed_from_u64(seed))
    }

    /// A uniform-enough integer in `0..n` (0 when `n` is 0), by
    /// multiply-shift: one draw whatever `n`, and no floats.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        let wide = u128::from(self.0.next_u64()) * (n as u128);
        // < n ≤ usize::MAX, so the narrowing is lossless.
        (wide >> 64) as usize
    }

    /// A whole draw: a seed for draws of its own.
    pub(crate) fn seed(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// `below(100) < p`.
    pub(crate) fn percent(&mut self, p: usize) -> bool {
        self.below(100) < p
    }

    /// One element of `list`, `None` when it is empty. One draw either way.
    pub(crate) fn pick<'a, T>(&mut self, list: &'a [T]) -> Option<&'a T> {
        let index = self.below(list.len());
        list.get(index)
    }

    /// One element of a constant vocabulary (non-empty, so the `""`
    /// fallback only guards against a future empty constant).
    pub(crate) fn word(&mut self, list: &[&'static str]) -> &'static str {
        self.pick(list).copied().unwrap_or("")
    }

    /// A value from a weight table: one draw of `below(total weight)`.
    pub(crate) fn weighted<T: Copy + Default>(&mut self, table: &[(usize, T)]) -> T {
        let total = table.iter().map(|(weight, _)| weight).sum();
        let mut draw = self.below(total);
        for &(weight, value) in table {
            if draw < weight {
                return value;
            }
            draw -= weight;
        }
        T::default()
    }
}
