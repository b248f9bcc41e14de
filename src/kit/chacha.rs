//! The seeded generators' random stream: ChaCha with 8 rounds, the stream
//! `rand_chacha::ChaCha8Rng::seed_from_u64(seed)` gives, word for word.
//!
//! Why not that crate: a seed must give the same plan on every machine and
//! in every release (regression files and issue reports name seeds), and
//! the only draw the generators make is `next_u64`. The crate brought
//! `ppv-lite86` and `zerocopy` into every peer crate's first `cargo test`
//! (about 3 CPU-s of its build on 2 cores, `benches/first_day.sh
//! --timings`) for 60 lines of arithmetic. The unit tests below check this
//! stream against `rand_chacha` itself (a dev-dependency), so the draws
//! cannot drift.
//!
//! The stream, as `rand_chacha` 0.9 and `rand_core` 0.9 define it:
//! - the 32-byte key is eight outputs of PCG32 (multiplier
//!   6364136223846793005, increment 11634580027462260723, the state
//!   stepped before each output) started at `seed`, little-endian;
//! - each 64-byte block is Bernstein's ChaCha (constants, key, a 64-bit
//!   block counter from 0, a 64-bit stream number 0) after 4 double
//!   rounds, added to its input, read as 16 little-endian words;
//! - `next_u64` is two consecutive words, the first the low half.

/// ChaCha8 over a 64-bit seed (module doc).
#[derive(Clone, Debug)]
pub(crate) struct ChaCha8 {
    /// The key, as eight words.
    key: [u32; 8],
    /// The next block's counter.
    counter: u64,
    /// The current block's words.
    block: [u32; 16],
    /// The next unread word of `block` (16: none left).
    next: usize,
}

impl ChaCha8 {
    /// The stream of `seed`.
    pub(crate) fn seed_from_u64(mut seed: u64) -> ChaCha8 {
        let mut key = [0u32; 8];
        for word in &mut key {
            *word = pcg32(&mut seed);
        }
        ChaCha8 {
            key,
            counter: 0,
            block: [0; 16],
            next: 16,
        }
    }

    /// The next 64 bits of the stream.
    pub(crate) fn next_u64(&mut self) -> u64 {
        let low = self.next_u32();
        let high = self.next_u32();
        u64::from(high) << 32 | u64::from(low)
    }

    fn next_u32(&mut self) -> u32 {
        if self.next == 16 {
            self.block = block(&self.key, self.counter);
            self.counter = self.counter.wrapping_add(1);
            self.next = 0;
        }
        let word = self.block[self.next];
        self.next += 1;
        word
    }
}

/// One PCG32 output (`rand_core`'s `seed_from_u64`), stepping `state`
/// first.
fn pcg32(state: &mut u64) -> u32 {
    const MUL: u64 = 6364136223846793005;
    const INC: u64 = 11634580027462260723;
    *state = state.wrapping_mul(MUL).wrapping_add(INC);
    let s = *state;
    let xorshifted = (((s >> 18) ^ s) >> 27) as u32;
    xorshifted.rotate_right((s >> 59) as u32)
}

/// The ChaCha8 block `counter` of `key`, stream 0.
fn block(key: &[u32; 8], counter: u64) -> [u32; 16] {
    let input: [u32; 16] = [
        0x6170_7865,
        0x3320_646e,
        0x7962_2d32,
        0x6b20_6574,
        key[0],
        key[1],
        key[2],
        key[3],
        key[4],
        key[5],
        key[6],
        key[7],
        counter as u32,
        (counter >> 32) as u32,
        0,
        0,
    ];
    let mut x = input;
    for _ in 0..4 {
        quarter(&mut x, 0, 4, 8, 12);
        quarter(&mut x, 1, 5, 9, 13);
        quarter(&mut x, 2, 6, 10, 14);
        quarter(&mut x, 3, 7, 11, 15);
        quarter(&mut x, 0, 5, 10, 15);
        quarter(&mut x, 1, 6, 11, 12);
        quarter(&mut x, 2, 7, 8, 13);
        quarter(&mut x, 3, 4, 9, 14);
    }
    for (word, start) in x.iter_mut().zip(input) {
        *word = word.wrapping_add(start);
    }
    x
}

/// ChaCha's quarter round on four words of `x`.
fn quarter(x: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(16);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(12);
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(8);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(7);
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::{RngCore, SeedableRng};

    /// The stream is `rand_chacha`'s, across many blocks and seeds,
    /// including the seeds' edges.
    #[test]
    fn the_stream_is_rand_chachas() {
        let seeds = (0..300u64).chain([u64::MAX, u64::MAX - 1, 1 << 63, 0xdead_beef]);
        for seed in seeds {
            let mut ours = ChaCha8::seed_from_u64(seed);
            let mut theirs = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let draws = if seed < 4 { 5_000 } else { 200 };
            for draw in 0..draws {
                assert_eq!(
                    ours.next_u64(),
                    theirs.next_u64(),
                    "seed {seed}, draw {draw}"
                );
            }
        }
    }

    /// The zero key's first block is the published ChaCha8 keystream
    /// (draft-strombergson-chacha-test-vectors, TC1 with 8 rounds): the
    /// cipher itself, not only agreement with one implementation of it.
    #[test]
    fn the_zero_key_block_is_chacha8s() {
        let words = block(&[0; 8], 0);
        // ChaCha8, key 0, nonce 0: keystream 3e00ef2f895f40d6 7f5bb8e81f09a5a1 …
        assert_eq!(words[0].to_le_bytes(), [0x3e, 0x00, 0xef, 0x2f]);
        assert_eq!(words[1].to_le_bytes(), [0x89, 0x5f, 0x40, 0xd6]);
        assert_eq!(words[2].to_le_bytes(), [0x7f, 0x5b, 0xb8, 0xe8]);
        assert_eq!(words[3].to_le_bytes(), [0x1f, 0x09, 0xa5, 0xa1]);
    }
}
