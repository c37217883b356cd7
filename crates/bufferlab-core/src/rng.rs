//! Seeded random streams: one per component, derived from the run seed and a component key, so
//! adding a component does not shift the numbers another one draws.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

pub type Rng = Xoshiro256PlusPlus;

/// Stream kinds, so two components of different kinds never share a key.
#[derive(Clone, Copy, Debug)]
#[repr(u64)]
pub enum Stream {
    Agent = 1,
    Link = 2,
    Qdisc = 3,
    Traffic = 4,
    /// Per-pair access delays drawn when a template topology is resolved.
    Access = 5,
}

/// SplitMix64 finaliser (Steele et al., 2014): decorrelates nearby keys.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A derived 64-bit key, to seed a component that takes a seed rather than a stream.
pub fn mix_key(seed: u64, index: u64) -> u64 {
    mix(mix(seed) ^ mix(index))
}

/// The stream of component `index` of kind `kind` in a run seeded with `seed`.
pub fn stream(seed: u64, kind: Stream, index: u64) -> Rng {
    Rng::seed_from_u64(mix(mix(seed) ^ mix((kind as u64) << 48 ^ index)))
}
