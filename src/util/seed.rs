//! Deriving independent seeds from one, so parallel work is reproducible.

/// The seed of item `index` of a job seeded with `seed`.
///
/// Each game of a match or a statistics run takes `sub_seed(seed, game)`,
/// so its result depends only on the job's seed and its own index, never on
/// how many threads ran the job or in what order. Nested streams (the two
/// players of one game) derive again: `sub_seed(sub_seed(seed, game), 1)`.
///
/// ```
/// use yinsh_zero::util::sub_seed;
/// assert_eq!(sub_seed(7, 3), sub_seed(7, 3));
/// assert_ne!(sub_seed(7, 3), sub_seed(7, 4));
/// assert_ne!(sub_seed(7, 3), sub_seed(8, 3));
/// ```
pub fn sub_seed(seed: u64, index: u64) -> u64 {
    // Two rounds of the splitmix64 finaliser: nearby seeds and indices give
    // unrelated streams, which a plain `seed + index` would not.
    mix64(mix64(seed) ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// The splitmix64 finaliser: every input bit moves every output bit. The
/// games hash their positions with it.
///
/// ```
/// use yinsh_zero::util::mix64;
/// assert_ne!(mix64(1), mix64(2));
/// ```
pub fn mix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
