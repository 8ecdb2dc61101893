//! State addressing: every Morris position between two turns gets a dense
//! number, reduced by the board's symmetries.
//!
//! A *state* is seen from the player to move (the game is colour-symmetric;
//! White places first, so in the placement phase the hands say which colour
//! moves: equal hands, White; the mover holding one more, Black). It is
//! the mover's stones `m`, the opponent's `o` (point masks) and the
//! [`Layer`]: stones on the board of each (`a`, `b`) and in hand
//! (`hm`, `ho`). Positions where a player is removing a stone are not
//! numbered: they are halves of a turn (see [`crate::games::morris::db`]).
//!
//! Within a layer a state is named by its *canonical key*, the least
//! `(s(m) << 32) | s(o)` over the board's symmetries `s`; the layer's
//! states are its canonical keys in increasing order, and a state's index
//! is its place in that list. A layer holds every pair of disjoint masks
//! with those stone counts (a moving player who cannot move included: that
//! state is lost), except that in Three Men's Morris, where a line of three
//! ends the game, states with a line are left out.
//!
//! The global *state number* is the layer's offset plus the index, the
//! layers taken in [`layers`] order: by stones in hand (`hm + ho`, the
//! moving phase first), then stones on the board (`a + b`), then `a`, `b`
//! and `hm`. That is also the order in which the solver finishes them.

use std::fmt;

use rayon::prelude::*;

use super::geometry::{Geometry, Variant, points};
use super::position::{Parts, Position};
use crate::game::{Color, State};

/// A set of states: stone counts on the board and in hand, from the
/// mover's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Layer {
    /// Mover's stones on the board.
    pub a: u8,
    /// Opponent's stones on the board.
    pub b: u8,
    /// Mover's stones in hand.
    pub hm: u8,
    /// Opponent's stones in hand.
    pub ho: u8,
}

impl Layer {
    /// A moving-phase layer (nothing in hand).
    pub const fn moving(a: u8, b: u8) -> Layer {
        Layer { a, b, hm: 0, ho: 0 }
    }

    /// Whether both hands are empty.
    pub const fn is_moving(self) -> bool {
        self.hm == 0 && self.ho == 0
    }

    /// The moving-phase layer with the roles swapped: where a move that
    /// captures nothing leads.
    pub const fn partner(self) -> Layer {
        Layer {
            a: self.b,
            b: self.a,
            hm: self.ho,
            ho: self.hm,
        }
    }

    /// The database file of this layer.
    pub fn file_name(self) -> String {
        format!("layer-{}-{}-{}-{}.mdb", self.a, self.b, self.hm, self.ho)
    }

    /// Whether the layer is one of `variant`'s.
    pub fn valid(self, variant: Variant) -> bool {
        let geo = variant.geometry();
        let s = geo.stones;
        let Layer { a, b, hm, ho } = self;
        if hm > s || ho > s || !(hm == ho || hm == ho + 1) {
            return false;
        }
        if a > s - hm || b > s - ho || a + hm < 3 || b + ho < 3 {
            return false;
        }
        if usize::from(a) + usize::from(b) > geo.points {
            return false;
        }
        // Nobody ever removes a stone in Three Men's Morris.
        !geo.mill_wins || (a == s - hm && b == s - ho)
    }

    /// Stones each side still has, on the board and in hand.
    pub fn totals(self) -> (u8, u8) {
        (self.a + self.hm, self.b + self.ho)
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{} in hand {}:{}", self.a, self.b, self.hm, self.ho)
    }
}

/// Every layer of `variant`, in numbering (and solving) order.
pub fn layers(variant: Variant) -> Vec<Layer> {
    let s = variant.geometry().stones;
    let mut out = Vec::new();
    for hm in 0..=s {
        for ho in 0..=s {
            for a in 0..=s {
                for b in 0..=s {
                    let l = Layer { a, b, hm, ho };
                    if l.valid(variant) {
                        out.push(l);
                    }
                }
            }
        }
    }
    out.sort_by_key(|l| (l.hm + l.ho, l.a + l.b, l.a, l.b, l.hm));
    out
}

/// The canonical key of the state `(m, o)`: the least
/// `(s(m) << 32) | s(o)` over the symmetries `s`.
///
/// The solver computes this for every successor and predecessor it
/// generates, so the boards of rings alone (Nine, Six) take it by
/// arithmetic on the key itself rather than by table: a ring is one byte
/// of each half, so a quarter turn rotates every byte by two bits, a
/// reflection reverses each byte's bits and rotates by one, and the ring
/// swap exchanges the outer and inner bytes (module docs of
/// [`super::geometry`]), where the 16 x 8 table reads' 64 KB overflow the
/// first-level cache (the whole solve to five stones: 0.81x the time).
#[inline]
pub fn canonical(geo: &Geometry, m: u32, o: u32) -> u64 {
    if !geo.centre && (geo.rings == 2 || geo.rings == 3) {
        return canonical_rings(geo.rings, m, o);
    }
    canonical_by_table(geo, m, o)
}

#[inline]
fn canonical_by_table(geo: &Geometry, m: u32, o: u32) -> u64 {
    let mut best = u64::MAX;
    for s in &geo.symmetries {
        let k = u64::from(s.map(m)) << 32 | u64::from(s.map(o));
        best = best.min(k);
    }
    best
}

/// [`canonical`] for a board of `rings` (2 or 3) rings of eight points
/// and no centre: the eight square symmetries of the key and of its
/// ring-swapped form.
#[inline]
fn canonical_rings(rings: usize, m: u32, o: u32) -> u64 {
    // One byte per ring in each half of the key.
    const BYTES3: u64 = 0x0000_0000_00FF_FFFF;
    const BYTES2: u64 = 0x0000_0000_0000_FFFF;
    let used = if rings == 3 { BYTES3 } else { BYTES2 };
    let used = used << 32 | used;
    let each = |b: u64| used / 0xFF * b;
    let (hi2, lo2) = (each(0xFC), each(0x03));
    let (hi1, lo1) = (each(0xFE), each(0x01));
    let (n1, n2, n4) = (each(0x55), each(0x33), each(0x0F));
    let ring0 = each(0xFF) & (0xFF << 32 | 0xFF);
    let turn = |x: u64| ((x << 2) & hi2) | ((x >> 6) & lo2);
    let reflect = |x: u64| {
        let x = ((x >> 1) & n1) | ((x & n1) << 1);
        let x = ((x >> 2) & n2) | ((x & n2) << 2);
        let x = ((x >> 4) & n4) | ((x & n4) << 4);
        ((x << 1) & hi1) | ((x >> 7) & lo1)
    };
    let key = u64::from(m) << 32 | u64::from(o);
    let swapped = if rings == 3 {
        (key & (ring0 << 8)) | ((key & ring0) << 16) | ((key >> 16) & ring0)
    } else {
        ((key & ring0) << 8) | ((key >> 8) & ring0)
    };
    let mut best = u64::MAX;
    for base in [key, swapped] {
        for mut x in [base, reflect(base)] {
            for _ in 0..4 {
                best = best.min(x);
                x = turn(x);
            }
        }
    }
    best
}

/// The canonical key and the index of a symmetry that gives it.
pub fn canonical_with(geo: &Geometry, m: u32, o: u32) -> (u64, usize) {
    let mut best = (u64::MAX, 0);
    for (i, s) in geo.symmetries.iter().enumerate() {
        let k = u64::from(s.map(m)) << 32 | u64::from(s.map(o));
        if k < best.0 {
            best = (k, i);
        }
    }
    best
}

/// How many distinct states the symmetries make of `(m, o)`.
pub fn orbit_size(geo: &Geometry, m: u32, o: u32) -> u32 {
    let fixed = geo
        .symmetries
        .iter()
        .filter(|s| s.map(m) == m && s.map(o) == o)
        .count();
    (geo.symmetries.len() / fixed) as u32
}

/// The masks of a key.
#[inline]
pub const fn split(key: u64) -> (u32, u32) {
    ((key >> 32) as u32, key as u32)
}

/// Whether `stones` holds a complete line.
fn has_line(geo: &Geometry, stones: u32) -> bool {
    geo.mills.iter().any(|&l| l & !stones == 0)
}

/// The `k`-subsets of an `n`-set, as masks in increasing order.
fn subsets(n: usize, k: usize) -> impl Iterator<Item = u32> {
    let end: u64 = 1 << n;
    let mut x: u64 = if k > n { end } else { (1u64 << k) - 1 };
    let mut done = k > n;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let out = x as u32;
        if x == 0 {
            done = true;
        } else {
            let c = x & x.wrapping_neg();
            let r = x + c;
            x = (((r ^ x) >> 2) / c) | r;
            if x >= end {
                done = true;
            }
        }
        Some(out)
    })
}

/// The bits of `compact` moved onto the points listed in `slots`.
#[inline]
fn scatter(compact: u32, slots: &[u8]) -> u32 {
    points(compact).fold(0, |acc, p| acc | 1 << slots[p.index()])
}

/// The mover masks with `a` stones that are least in their orbit, each
/// with the symmetries that keep it.
fn canonical_movers(geo: &Geometry, a: usize) -> Vec<(u32, Vec<usize>)> {
    subsets(geo.points, a)
        .filter_map(|m| {
            let mut stab = Vec::new();
            for (i, s) in geo.symmetries.iter().enumerate() {
                let t = s.map(m);
                if t < m {
                    return None;
                }
                if t == m {
                    stab.push(i);
                }
            }
            Some((m, stab))
        })
        .collect()
}

/// `C(n, k)` for `n, k <= 32`.
const BINOM: [[u64; 33]; 33] = {
    let mut t = [[0u64; 33]; 33];
    let mut n = 0;
    while n <= 32 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
};

/// The rank of `o` among the `b`-subsets of the points of `free`
/// (`o` inside `free`), in increasing mask order: the combinatorial number
/// system over `o`'s bits squeezed onto `free`'s points.
#[inline]
fn rank_in(o: u32, free: u32) -> u64 {
    let mut r = 0u64;
    let mut i = 1;
    let mut rest = o;
    while rest != 0 {
        let p = rest.trailing_zeros();
        rest &= rest - 1;
        let below = (free & ((1u32 << p) - 1)).count_ones() as usize;
        r += BINOM[below][i];
        i += 1;
    }
    r
}

/// The `b`-subset of the points of `free` with rank `r` (the inverse of
/// [`rank_in`]).
#[inline]
fn unrank_in(mut r: u64, b: usize, free: u32) -> u32 {
    // The free points, by position.
    let mut slots = [0u8; 32];
    let mut n = 0;
    for p in points(free) {
        slots[n] = p.0;
        n += 1;
    }
    let mut o = 0u32;
    let mut c = n;
    for i in (1..=b).rev() {
        // The largest c with C(c, i) <= r.
        c -= 1;
        while BINOM[c][i] > r {
            c -= 1;
        }
        r -= BINOM[c][i];
        o |= 1 << slots[c];
    }
    o
}

/// [`LayerIndex::listed`] of a mover whose every opponent mask is a state.
const UNLISTED: u32 = u32::MAX;
/// A free slot of [`LayerIndex::table`]: no board has 32 points.
const NO_MOVER: u32 = u32::MAX;

/// A sorted set of ranks as a bitmap with the count of members before
/// each 64-bit word: a member's place is that count plus the members below
/// it in its word.
#[derive(Clone, Debug)]
struct RankSet {
    words: Box<[u64]>,
    before: Box<[u32]>,
}

impl RankSet {
    fn new(ranks: &[u32]) -> RankSet {
        let n = ranks.last().map_or(0, |&r| r as usize / 64 + 1);
        let mut words = vec![0u64; n];
        for &r in ranks {
            words[r as usize / 64] |= 1 << (r % 64);
        }
        let mut before = Vec::with_capacity(n);
        let mut count = 0u32;
        for w in &words {
            before.push(count);
            count += w.count_ones();
        }
        RankSet {
            words: words.into_boxed_slice(),
            before: before.into_boxed_slice(),
        }
    }

    /// The place of `r` among the members, if it is one.
    #[inline]
    fn place(&self, r: u64) -> Option<u64> {
        let w = usize::try_from(r / 64).ok()?;
        let word = *self.words.get(w)?;
        let bit = 1u64 << (r % 64);
        (word & bit != 0)
            .then(|| u64::from(self.before[w]) + u64::from((word & (bit - 1)).count_ones()))
    }
}

/// The home slot of mover mask `m` in a table of `1 << bits` slots
/// (Fibonacci hashing: masks differ in few bits, the product spreads them).
#[inline]
fn slot(m: u32, bits: u32) -> usize {
    (m.wrapping_mul(0x9E37_79B1) >> (32 - bits)) as usize
}

/// The states of one layer, in canonical-key order, without a list of the
/// keys: the canonical mover masks (few: about 82,000 for nine stones),
/// each with the offset of its first state; a state's index is its
/// mover's offset plus the rank of its opponent mask among the
/// opponent masks on the free points. Movers that some symmetry keeps
/// (and Three Men's Morris's, whose states with a line are left out) keep
/// the sorted ranks of their states instead. About 32 bytes per mover
/// (against 8 a state for a list of keys), half of them a hash table from
/// mover mask to place, which finds a mover in one read where a binary
/// search over 82,000 takes seventeen (the solver's un-moves ask for an
/// index tens of times per state).
#[derive(Clone, Debug)]
pub struct LayerIndex {
    pub layer: Layer,
    pub variant: Variant,
    /// Canonical mover masks, increasing.
    movers: Vec<u32>,
    /// The index of each mover's first state; one more at the end, the
    /// layer's size.
    offsets: Vec<u64>,
    /// Per mover: [`UNLISTED`] when every opponent mask on its free points
    /// is a state, else where in `lists` the ranks that are (increasing)
    /// lie. Four bytes rather than an `Option<Box>`'s sixteen, as the
    /// look-up reads one per question.
    listed: Vec<u32>,
    lists: Vec<Box<[u32]>>,
    /// The same ranks as sets, for [`Self::index_of_key`]: a rank's place
    /// in two reads where a binary search over thousands of ranks missed
    /// the cache at every step (a tenth of the solver's levels pass).
    sets: Vec<RankSet>,
    /// Open addressing, linear probing, at most half full: `(mask, place)`
    /// of each mover, [`NO_MOVER`] in free slots.
    table: Box<[(u32, u32)]>,
    /// States without the symmetry reduction (the sum of orbit sizes).
    raw: u64,
}

impl LayerIndex {
    /// Enumerates the layer's mover masks (in parallel).
    pub fn build(variant: Variant, layer: Layer) -> LayerIndex {
        let geo = variant.geometry();
        let (a, b) = (usize::from(layer.a), usize::from(layer.b));
        let movers = canonical_movers(geo, a);
        let lines = geo.mill_wins;
        let groups = geo.symmetries.len() as u64;
        let full = BINOM[geo.points - a.min(geo.points)][b.min(32)];
        let full = if a + b > geo.points { 0 } else { full };
        // (mover, states, listed ranks, raw)
        type Part = (u32, u64, Option<Box<[u32]>>, u64);
        let parts: Vec<Part> = movers
            .par_iter()
            .map(|(m, stab)| {
                let m = *m;
                if lines && has_line(geo, m) {
                    return (m, 0, Some(Vec::new().into_boxed_slice()), 0);
                }
                if stab.len() == 1 && !lines {
                    return (m, full, None, full * groups);
                }
                let slots: Vec<u8> = points(geo.all & !m).map(|p| p.0).collect();
                let mut ranks = Vec::new();
                let mut raw = 0u64;
                'o: for (r, c) in subsets(slots.len(), b).enumerate() {
                    let o = scatter(c, &slots);
                    let mut fixed = 0u64;
                    for &i in stab {
                        let t = geo.symmetries[i].map(o);
                        if t < o {
                            continue 'o;
                        }
                        if t == o {
                            fixed += 1;
                        }
                    }
                    if lines && has_line(geo, o) {
                        continue;
                    }
                    ranks.push(r as u32);
                    raw += groups / fixed;
                }
                if ranks.len() as u64 == full {
                    (m, full, None, raw)
                } else {
                    (m, ranks.len() as u64, Some(ranks.into_boxed_slice()), raw)
                }
            })
            .collect();
        let mut offsets = Vec::with_capacity(parts.len() + 1);
        let mut at = 0u64;
        let mut raw = 0u64;
        let mut ms = Vec::with_capacity(parts.len());
        let mut listed = Vec::with_capacity(parts.len());
        let mut lists = Vec::new();
        let mut sets = Vec::new();
        for (m, n, l, r) in parts {
            ms.push(m);
            offsets.push(at);
            listed.push(match l {
                None => UNLISTED,
                Some(ranks) => {
                    sets.push(RankSet::new(&ranks));
                    lists.push(ranks);
                    (lists.len() - 1) as u32
                }
            });
            at += n;
            raw += r;
        }
        offsets.push(at);
        let table_bits = (2 * ms.len()).next_power_of_two().trailing_zeros().max(1);
        let mut table = vec![(NO_MOVER, 0u32); 1 << table_bits].into_boxed_slice();
        for (k, &m) in ms.iter().enumerate() {
            let mut h = slot(m, table_bits);
            while table[h].0 != NO_MOVER {
                h = (h + 1) & (table.len() - 1);
            }
            table[h] = (m, k as u32);
        }
        LayerIndex {
            layer,
            variant,
            movers: ms,
            offsets,
            listed,
            lists,
            sets,
            table,
            raw,
        }
    }

    /// The listed ranks of mover `k`, if it keeps a list.
    #[inline]
    fn ranks(&self, k: usize) -> Option<&[u32]> {
        match self.listed[k] {
            UNLISTED => None,
            at => Some(&self.lists[at as usize]),
        }
    }

    /// The place of the canonical mover mask `m` among the movers.
    #[inline]
    fn mover(&self, m: u32) -> Option<usize> {
        let mut h = slot(m, self.table.len().trailing_zeros());
        loop {
            let (x, k) = self.table[h];
            if x == m {
                return Some(k as usize);
            }
            if x == NO_MOVER {
                return None;
            }
            h = (h + 1) & (self.table.len() - 1);
        }
    }

    pub fn len(&self) -> usize {
        *self.offsets.last().expect("an end offset") as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// States counted without the symmetry reduction.
    pub fn raw_len(&self) -> u64 {
        self.raw
    }

    /// The canonical key of state `index`.
    #[inline]
    pub fn key(&self, index: u32) -> u64 {
        let (m, o) = self.masks(index);
        u64::from(m) << 32 | u64::from(o)
    }

    /// The index of a canonical key (`None` for a key that is no
    /// canonical state of the layer).
    #[inline]
    pub fn index_of_key(&self, key: u64) -> Option<u32> {
        let (m, o) = split(key);
        if m & o != 0
            || m.count_ones() != u32::from(self.layer.a)
            || o.count_ones() != u32::from(self.layer.b)
            || (m | o) & !self.variant.geometry().all != 0
        {
            return None;
        }
        let k = self.mover(m)?;
        let r = rank_in(o, !m);
        let local = match self.listed[k] {
            UNLISTED => r,
            at => self.sets[at as usize].place(r)?,
        };
        Some((self.offsets[k] + local) as u32)
    }

    /// The index of the state `(m, o)` (any symmetric form).
    #[inline]
    pub fn index_of(&self, m: u32, o: u32) -> Option<u32> {
        self.index_of_key(canonical(self.variant.geometry(), m, o))
    }

    /// The canonical masks of state `index`.
    #[inline]
    pub fn masks(&self, index: u32) -> (u32, u32) {
        let i = u64::from(index);
        assert!(
            i < self.len() as u64,
            "state {index} of layer {}",
            self.layer
        );
        let k = self.offsets.partition_point(|&x| x <= i) - 1;
        let m = self.movers[k];
        let local = i - self.offsets[k];
        let r = match self.ranks(k) {
            None => local,
            Some(ranks) => u64::from(ranks[local as usize]),
        };
        let free = self.variant.geometry().all & !m;
        (m, unrank_in(r, usize::from(self.layer.b), free))
    }

    /// The states of `range`, in order, as `(index, m, o)`: faster than
    /// [`Self::masks`] one by one.
    pub fn for_each_in(&self, range: std::ops::Range<usize>, mut f: impl FnMut(usize, u32, u32)) {
        if range.is_empty() {
            return;
        }
        let geo = self.variant.geometry();
        let b = usize::from(self.layer.b);
        let mut k = self.offsets.partition_point(|&x| x <= range.start as u64) - 1;
        let mut i = range.start;
        while i < range.end {
            let (lo, hi) = (self.offsets[k] as usize, self.offsets[k + 1] as usize);
            if i >= hi {
                k += 1;
                continue;
            }
            let m = self.movers[k];
            let free = geo.all & !m;
            let stop = hi.min(range.end);
            match self.ranks(k) {
                Some(ranks) => {
                    for j in i..stop {
                        f(j, m, unrank_in(u64::from(ranks[j - lo]), b, free));
                    }
                }
                None => {
                    // Opponent masks in increasing order: the next
                    // b-subset of the free points (Gosper's hack on the
                    // squeezed mask), spread onto them.
                    let slots: Vec<u8> = points(free).map(|p| p.0).collect();
                    let all = (1u32 << slots.len()) - 1;
                    let mut c = unrank_in((i - lo) as u64, b, all);
                    for j in i..stop {
                        f(j, m, scatter(c, &slots));
                        if c != 0 {
                            let low = c & c.wrapping_neg();
                            let r = c + low;
                            c = (((r ^ c) >> 2) / low) | r;
                        }
                    }
                }
            }
            i = stop;
        }
    }
}

/// Stone counts of a layer's states, computed without listing them
/// (Burnside's lemma over the symmetries that keep each canonical mover
/// mask): reduced and unreduced. Three Men's Morris, whose layers drop
/// states with lines, is counted by listing.
pub fn layer_size(variant: Variant, layer: Layer) -> (u64, u64) {
    let geo = variant.geometry();
    if geo.mill_wins {
        let ix = LayerIndex::build(variant, layer);
        return (ix.len() as u64, ix.raw_len());
    }
    let counts = sizes_by_b(variant, layer.a);
    counts[usize::from(layer.b)]
}

/// For `a` mover stones: (reduced, unreduced) state counts for every `b`.
fn sizes_by_b(variant: Variant, a: u8) -> Vec<(u64, u64)> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Sizes = HashMap<(Variant, u8), Vec<(u64, u64)>>;
    static CACHE: OnceLock<Mutex<Sizes>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(v) = cache.lock().unwrap().get(&(variant, a)) {
        return v.clone();
    }
    let geo = variant.geometry();
    let n = geo.points;
    let free = n - usize::from(a);
    let movers = canonical_movers(geo, usize::from(a));
    let reduced: Vec<u64> = movers
        .par_iter()
        .map(|(m, stab)| {
            // Fixed b-subsets of the free points under each symmetry of
            // the stabiliser: products of (1 + t^len) over its cycles.
            let mut total = vec![0u64; free + 1];
            for &i in stab {
                let perm = &geo.symmetries[i].perm;
                let mut seen = *m;
                let mut poly = vec![0u64; free + 1];
                poly[0] = 1;
                for p in 0..n {
                    if seen & 1 << p != 0 {
                        continue;
                    }
                    let mut len = 0;
                    let mut q = p;
                    while seen & 1 << q == 0 {
                        seen |= 1 << q;
                        len += 1;
                        q = perm[q] as usize;
                    }
                    for k in (len..=free).rev() {
                        poly[k] += poly[k - len];
                    }
                }
                for k in 0..=free {
                    total[k] += poly[k];
                }
            }
            total
                .iter()
                .map(|t| t / stab.len() as u64)
                .collect::<Vec<u64>>()
        })
        .reduce(
            || vec![0u64; free + 1],
            |x, y| x.iter().zip(&y).map(|(p, q)| p + q).collect(),
        );
    let binom = |n: u64, k: u64| -> u64 {
        if k > n {
            return 0;
        }
        (0..k).fold(1u64, |acc, i| acc * (n - i) / (i + 1))
    };
    let raw_a = binom(n as u64, u64::from(a));
    let out: Vec<(u64, u64)> = (0..=free)
        .map(|b| (reduced[b], raw_a * binom(free as u64, b as u64)))
        .collect();
    cache.lock().unwrap().insert((variant, a), out.clone());
    out
}

/// The global numbering of a variant's states: each layer's offset.
#[derive(Clone, Debug)]
pub struct Numbering {
    pub variant: Variant,
    /// `(layer, offset, reduced size, unreduced size)` in order.
    pub layers: Vec<(Layer, u64, u64, u64)>,
    pub total: u64,
}

impl Numbering {
    pub fn new(variant: Variant) -> Numbering {
        let mut offset = 0;
        let mut out = Vec::new();
        for l in layers(variant) {
            let (n, raw) = layer_size(variant, l);
            out.push((l, offset, n, raw));
            offset += n;
        }
        Numbering {
            variant,
            layers: out,
            total: offset,
        }
    }

    /// The offset of `layer`.
    pub fn offset(&self, layer: Layer) -> Option<u64> {
        self.layers.iter().find(|e| e.0 == layer).map(|e| e.1)
    }

    /// The layer and in-layer index of state `number`.
    pub fn locate(&self, number: u64) -> Result<(Layer, u64), String> {
        if number >= self.total {
            return Err(format!(
                "state number {number} is out of range: {} Men's Morris has {} states (0 to {})",
                title(self.variant),
                self.total,
                self.total - 1
            ));
        }
        let i = self.layers.partition_point(|e| e.1 <= number) - 1;
        let (l, off, ..) = self.layers[i];
        Ok((l, number - off))
    }
}

/// "Nine", "Six", "Three".
pub fn title(variant: Variant) -> &'static str {
    match variant {
        Variant::Nine => "Nine",
        Variant::Six => "Six",
        Variant::Three => "Three",
    }
}

/// The state of a position between turns: its layer and masks, from the
/// view of the player to move.
pub fn locate(pos: &Position) -> Result<(Layer, u32, u32), String> {
    if pos.result().is_some() {
        return Err("the game is over: finished positions have no state number".into());
    }
    if pos.removing() {
        return Err(
            "the player to act is removing a stone: only positions between turns are numbered"
                .into(),
        );
    }
    Ok(state_of(pos))
}

/// The layer and masks of `pos` from the view of the player to act,
/// unchecked: for a finished position, or one with a removal pending,
/// they are no state of the database (see [`locate`]).
pub fn state_of(pos: &Position) -> (Layer, u32, u32) {
    let me = pos.to_act();
    let (m, o) = (pos.stones(me), pos.stones(!me));
    let layer = Layer {
        a: m.count_ones() as u8,
        b: o.count_ones() as u8,
        hm: pos.hand(me),
        ho: pos.hand(!me),
    };
    (layer, m, o)
}

/// The colour to move in a state of `layer`: White when the hands are
/// equal (the moving phase included), Black when the mover holds one more.
pub fn mover_colour(layer: Layer) -> Color {
    if layer.hm == layer.ho {
        Color::White
    } else {
        Color::Black
    }
}

/// The position text of a state: see [`POSITION_FORMAT`].
pub fn state_text(variant: Variant, layer: Layer, m: u32, o: u32) -> String {
    let c = mover_colour(layer);
    let (w, b) = if c == Color::White { (m, o) } else { (o, m) };
    let (hw, hb) = if c == Color::White {
        (layer.hm, layer.ho)
    } else {
        (layer.ho, layer.hm)
    };
    board_text(variant, [w, b], c, [hw, hb])
}

/// The position text of a position (see [`POSITION_FORMAT`]).
pub fn position_text(pos: &Position) -> String {
    let p = pos.parts();
    let mut t = board_text(pos.variant(), p.stones, p.to_act, p.hand);
    if p.removing {
        t.push_str(" x");
    }
    t
}

fn board_text(variant: Variant, stones: [u32; 2], to_act: Color, hand: [u8; 2]) -> String {
    let geo = variant.geometry();
    let board: String = (0..geo.points)
        .map(|p| {
            if stones[0] & 1 << p != 0 {
                'W'
            } else if stones[1] & 1 << p != 0 {
                'B'
            } else {
                '.'
            }
        })
        .collect();
    let side = if to_act == Color::White { 'w' } else { 'b' };
    format!("{board} {side} {} {}", hand[0], hand[1])
}

/// How positions are written for `morris index` and `morris position`.
pub const POSITION_FORMAT: &str = "BOARD SIDE [WHITE-HAND BLACK-HAND] [x]: BOARD is one character \
per point (W White, B Black, . empty) in point order: ring by ring from the outside in, each ring \
clockwise from its lower-left corner (Nine: a1 a4 a7 d7 g7 g4 g1 d1, b2 b4 b6 d6 f6 f4 f2 d2, \
c3 c4 c5 d5 e5 e4 e3 d3; Six: a1 a3 a5 c5 e5 e3 e1 c1, b2 b3 b4 c4 d4 d3 d2 c2; Three: a1 a2 a3 \
b3 c3 c2 c1 b1, then the centre b2); SIDE is w or b, the player to act; the hands are the stones \
each still has to place (default 0 0); a final x means the player to act is removing a stone. \
Example (Six, White to place): `W.......B....... w 5 5`";

/// Reads a position written as [`POSITION_FORMAT`] says, checked against
/// the rules.
pub fn parse_position(variant: Variant, text: &str) -> Result<Position, String> {
    let geo = variant.geometry();
    let tokens: Vec<&str> = text.split_whitespace().collect();
    if !(2..=5).contains(&tokens.len()) {
        return Err(format!(
            "position `{text}`: expected BOARD SIDE [WHITE-HAND BLACK-HAND] [x], got {} words",
            tokens.len()
        ));
    }
    let board = tokens[0];
    if board.chars().count() != geo.points {
        return Err(format!(
            "position `{text}`: the {variant} board has {} points, the board text has {} characters",
            geo.points,
            board.chars().count()
        ));
    }
    let mut stones = [0u32; 2];
    for (p, ch) in board.chars().enumerate() {
        match ch {
            'W' | 'w' => stones[0] |= 1 << p,
            'B' | 'b' => stones[1] |= 1 << p,
            '.' | '-' | '_' => {}
            _ => {
                return Err(format!(
                    "position `{text}`: `{ch}` at point {} ({}) is none of W, B, .",
                    p,
                    geo.name(super::Point(p as u8))
                ));
            }
        }
    }
    let to_act = match tokens[1] {
        "w" | "W" => Color::White,
        "b" | "B" => Color::Black,
        t => {
            return Err(format!(
                "position `{text}`: side to act `{t}` is neither w nor b"
            ));
        }
    };
    let mut rest = &tokens[2..];
    let removing = rest.last() == Some(&"x");
    if removing {
        rest = &rest[..rest.len() - 1];
    }
    let hand = match rest {
        [] => [0, 0],
        [w, b] => {
            let h = |t: &str| {
                t.parse::<u8>()
                    .map_err(|_| format!("position `{text}`: hand `{t}` is not a count"))
            };
            [h(w)?, h(b)?]
        }
        _ => {
            return Err(format!(
                "position `{text}`: give both hands (white then black) or neither"
            ));
        }
    };
    let parts = Parts {
        stones,
        hand,
        to_act,
        removing,
        ply: 0,
        quiet: 0,
        reps: 1,
    };
    Position::from_parts(variant, parts).map_err(|e| format!("position `{text}`: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::SmallRng};

    /// A rank set gives each member its place in the sorted list, and
    /// nothing to a non-member, past the end included.
    #[test]
    fn a_rank_set_places_members_as_the_sorted_list_does() {
        let mut rng = SmallRng::seed_from_u64(3);
        for density in [0.01, 0.3, 0.9] {
            let ranks: Vec<u32> = (0..5000u32).filter(|_| rng.random_bool(density)).collect();
            let set = RankSet::new(&ranks);
            for r in 0..5200u64 {
                let want = ranks.binary_search(&(r as u32)).ok().map(|i| i as u64);
                assert_eq!(set.place(r), want, "rank {r} at density {density}");
            }
        }
        assert_eq!(RankSet::new(&[]).place(0), None);
    }

    /// The arithmetic symmetries give the table's key for random states of
    /// every board they serve, sparse and dense.
    #[test]
    fn canonical_by_arithmetic_is_canonical_by_table() {
        let mut rng = SmallRng::seed_from_u64(7);
        for v in [Variant::Nine, Variant::Six] {
            let geo = v.geometry();
            for _ in 0..200_000 {
                let (mut m, mut o) = (0u32, 0u32);
                let fill = rng.random_range(0.0..0.9);
                for p in 0..geo.points {
                    if rng.random_bool(fill) {
                        if rng.random_bool(0.5) {
                            m |= 1 << p;
                        } else {
                            o |= 1 << p;
                        }
                    }
                }
                assert_eq!(
                    canonical(geo, m, o),
                    canonical_by_table(geo, m, o),
                    "{v} {m:06x} {o:06x}"
                );
            }
        }
    }
}
