//! The retrograde solver: win/draw/loss and turns to the end for every
//! state of a set of layers, written one file per layer (see
//! [`crate::games::morris::db`]).
//!
//! * Moving-phase layers (nothing in hand) come in pairs `{a:b, b:a}`: a
//!   move that captures nothing leads from one to the other, a capture to
//!   layer `b-1:a` (solved before, having one stone fewer) or, below three
//!   stones, to a win. Each pair is solved by retrograde analysis: every
//!   state counts its distinct successors in the pair; states are settled
//!   level by level in turns to the end (a bucket queue), a settled loss
//!   making its predecessors wins one turn later, a settled win taking one
//!   from their counts, a state whose count runs out being lost as late as
//!   its best successor allows. So wins take the fastest line and losses
//!   the slowest. What is never settled is a draw.
//! * Placement layers are acyclic (every turn puts a stone from a hand on
//!   the board): they are solved by stones in hand, fewest first, each
//!   state taking the best of its successors.
//!
//! A turn that closes a mill and removes a stone is one step; a state
//! whose mover is blocked is lost in 0.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU16, Ordering};
use std::time::Instant;

use arrayvec::ArrayVec;
use rayon::prelude::*;

use super::address::{Layer, LayerIndex, canonical, layers, orbit_size};
use super::db::{
    DbError, LayerValues, Outcome, Solved, Turn, Value, for_each_turn, read_layer, write_layer,
};
use super::geometry::{Geometry, Variant, points};

/// What to solve, and where.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    pub variant: Variant,
    pub dir: PathBuf,
    /// Solve only the moving-phase layers with at most this many stones a
    /// side (required for Nine Men's Morris; Three and Six are solved
    /// whole, placement included, when it is `None`).
    pub max_stones: Option<u8>,
}

/// One layer's result.
#[derive(Clone, Debug)]
pub struct LayerReport {
    pub layer: Layer,
    pub states: u64,
    /// States without the symmetry reduction.
    pub raw: u64,
    /// Seconds spent (a moving-phase pair's time goes to its first layer).
    pub seconds: f64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Most turns of any won state.
    pub longest_win: u16,
    /// The file was valid and kept.
    pub resumed: bool,
    /// Why an existing file was not kept.
    pub damaged: Option<String>,
}

/// The layers `solve` computes, in order: with `max_stones`, the
/// moving-phase layers with at most that many stones a side; without it,
/// every layer (Nine Men's Morris: up to 4 stones).
pub fn layers_to_solve(variant: Variant, max_stones: Option<u8>) -> Vec<Layer> {
    let max = max_stones.or((variant == Variant::Nine).then_some(4));
    layers(variant)
        .into_iter()
        .filter(|l| max.is_none_or(|n| l.is_moving() && l.a.max(l.b) <= n))
        .collect()
}

/// Solved layers in memory.
#[derive(Default)]
pub struct Store {
    pub map: HashMap<Layer, Arc<Solved>>,
}

impl Store {
    #[inline]
    fn value(&self, layer: Layer, m: u32, o: u32) -> Value {
        let s = self
            .map
            .get(&layer)
            .unwrap_or_else(|| panic!("layer {layer} is solved first"));
        s.value(m, o)
            .unwrap_or_else(|| panic!("{m:#x}/{o:#x} is a state of layer {layer}"))
    }

    #[inline]
    fn turn(&self, t: Turn) -> Value {
        match t {
            Turn::Win => Value::win(1),
            Turn::To(l, m, o) => self.value(l, m, o).back(),
        }
    }
}

fn summarize(layer: Layer, index: &LayerIndex, values: &LayerValues) -> LayerReport {
    let (mut wins, mut draws, mut losses, mut longest) = (0, 0, 0, 0);
    for (i, &c) in values.wdl.iter().enumerate() {
        match Outcome::from_code(c) {
            Some(Outcome::Win) => {
                wins += 1;
                longest = longest.max(values.plies[i]);
            }
            Some(Outcome::Loss) => losses += 1,
            _ => draws += 1,
        }
    }
    LayerReport {
        layer,
        states: index.len() as u64,
        raw: index.raw_len(),
        seconds: 0.0,
        wins,
        draws,
        losses,
        longest_win: longest,
        resumed: false,
        damaged: None,
    }
}

/// Solves what `opts` asks, keeping valid layer files already in the
/// directory (a damaged one is named in its report and recomputed).
/// `on_layer` hears of each layer as it is done. Returns the solved
/// layers, in memory.
pub fn solve(
    opts: &SolveOptions,
    mut on_layer: impl FnMut(&LayerReport),
) -> Result<Store, DbError> {
    let variant = opts.variant;
    std::fs::create_dir_all(&opts.dir).map_err(|e| DbError::Io {
        path: opts.dir.clone(),
        source: e,
    })?;
    let todo = layers_to_solve(variant, opts.max_stones);
    let mut store = Store::default();
    let mut done: HashSet<Layer> = HashSet::new();
    for &layer in &todo {
        if done.contains(&layer) {
            continue;
        }
        let group: Vec<Layer> = if layer.is_moving() && layer.a != layer.b {
            vec![layer, layer.partner()]
        } else {
            vec![layer]
        };
        let started = Instant::now();
        let indexes: Vec<LayerIndex> = group
            .iter()
            .map(|&l| LayerIndex::build(variant, l))
            .collect();
        // Keep valid files.
        let mut kept: Vec<Option<LayerValues>> = Vec::new();
        let mut damaged: Vec<Option<String>> = Vec::new();
        for (l, ix) in group.iter().zip(&indexes) {
            let path = opts.dir.join(l.file_name());
            if path.exists() {
                match read_layer(&path, variant, *l, Some(ix.len())) {
                    Ok(v) => {
                        kept.push(Some(v));
                        damaged.push(None);
                    }
                    Err(e) => {
                        kept.push(None);
                        damaged.push(Some(e.to_string()));
                    }
                }
            } else {
                kept.push(None);
                damaged.push(None);
            }
        }
        let all_kept = kept.iter().all(Option::is_some);
        let values: Vec<LayerValues> = if all_kept {
            kept.iter().map(|k| k.clone().unwrap()).collect()
        } else if layer.is_moving() {
            solve_moving(variant, &indexes, &store)
        } else {
            vec![solve_placement(variant, &indexes[0], &store)]
        };
        let seconds = started.elapsed().as_secs_f64();
        for (k, ((l, ix), v)) in group.iter().zip(indexes).zip(values).enumerate() {
            let resumed = kept[k].is_some();
            if !resumed {
                write_layer(&opts.dir.join(l.file_name()), variant, *l, &v)?;
            }
            let mut report = summarize(*l, &ix, &v);
            report.seconds = if k == 0 { seconds } else { 0.0 };
            report.resumed = resumed;
            report.damaged = damaged[k].take();
            on_layer(&report);
            store.map.insert(
                *l,
                Arc::new(Solved {
                    index: ix,
                    values: v,
                }),
            );
            done.insert(*l);
        }
    }
    Ok(store)
}

/// Loads the solved layers of `dir` (all of `variant`'s that have files)
/// into memory, checked.
pub fn load(dir: &Path, variant: Variant, max_stones: Option<u8>) -> Result<Store, DbError> {
    let mut store = Store::default();
    for l in layers_to_solve(variant, max_stones) {
        let path = dir.join(l.file_name());
        let index = LayerIndex::build(variant, l);
        let values = read_layer(&path, variant, l, Some(index.len()))?;
        store.map.insert(l, Arc::new(Solved { index, values }));
    }
    Ok(store)
}

/// A placement layer: every state takes its best turn.
fn solve_placement(variant: Variant, index: &LayerIndex, store: &Store) -> LayerValues {
    let geo = variant.geometry();
    let layer = index.layer;
    let (wdl, plies): (Vec<u8>, Vec<u16>) = index
        .keys()
        .par_iter()
        .map(|&key| {
            let (m, o) = super::address::split(key);
            let mut best: Option<Value> = None;
            for_each_turn(geo, layer, m, o, |t| {
                let v = store.turn(t);
                if best.is_none_or(|b| v.rank() > b.rank()) {
                    best = Some(v);
                }
            });
            // A player with stones in hand can always place one.
            let v = best.unwrap_or(Value::loss(0));
            (v.outcome.code(), v.plies)
        })
        .unzip();
    LayerValues { wdl, plies }
}

const UNSETTLED: u8 = 0;
const WON: u8 = 1;
const LOST: u8 = 2;
const LOSS_BIT: u32 = 1 << 31;

/// What a state knows before the retrograde pass: its successors in the
/// pair, and the best of those outside it.
#[derive(Clone, Copy)]
struct Start {
    count: u8,
    /// Fastest win through a turn leaving the pair (u16::MAX: none).
    win: u16,
    /// A turn leaving the pair draws.
    draw: bool,
    /// Slowest loss through turns leaving the pair (0: none).
    loss: u16,
    /// No turn at all: blocked.
    blocked: bool,
}

/// A moving-phase pair (or a single layer `a:a`), solved together.
fn solve_moving(variant: Variant, indexes: &[LayerIndex], store: &Store) -> Vec<LayerValues> {
    let geo = variant.geometry();
    let sides = indexes.len();
    let base: Vec<usize> = if sides == 2 {
        vec![0, indexes[0].len()]
    } else {
        vec![0]
    };
    let total: usize = indexes.iter().map(LayerIndex::len).sum();
    assert!(
        total < LOSS_BIT as usize,
        "a pair of layers with 2^31 states or more"
    );
    let partner = |side: usize| if sides == 2 { 1 - side } else { 0 };
    let side_of = |g: usize| if sides == 2 && g >= base[1] { 1 } else { 0 };
    let pair_layer: Vec<Layer> = indexes.iter().map(|ix| ix.layer).collect();

    let starts: Vec<Start> = (0..total)
        .into_par_iter()
        .map(|g| {
            let side = side_of(g);
            let (m, o) = indexes[side].masks((g - base[side]) as u32);
            let other = pair_layer[partner(side)];
            let mut inside: ArrayVec<u64, 128> = ArrayVec::new();
            let mut s = Start {
                count: 0,
                win: u16::MAX,
                draw: false,
                loss: 0,
                blocked: true,
            };
            for_each_turn(geo, pair_layer[side], m, o, |t| {
                s.blocked = false;
                match t {
                    Turn::To(l, m2, o2) if l == other => {
                        inside.push(canonical(geo, m2, o2));
                    }
                    t => {
                        let v = store.turn(t);
                        match v.outcome {
                            Outcome::Win => s.win = s.win.min(v.plies),
                            Outcome::Draw => s.draw = true,
                            Outcome::Loss => s.loss = s.loss.max(v.plies),
                        }
                    }
                }
            });
            inside.sort_unstable();
            let mut n = 0u8;
            for (i, k) in inside.iter().enumerate() {
                if i == 0 || inside[i - 1] != *k {
                    n += 1;
                }
            }
            s.count = n;
            s
        })
        .collect();

    let status: Vec<AtomicU8> = (0..total).map(|_| AtomicU8::new(UNSETTLED)).collect();
    let plies: Vec<AtomicU16> = (0..total).map(|_| AtomicU16::new(0)).collect();
    let count: Vec<AtomicU8> = starts.iter().map(|s| AtomicU8::new(s.count)).collect();
    let mut buckets: Vec<Vec<u32>> = Vec::new();
    let push = |buckets: &mut Vec<Vec<u32>>, level: usize, entry: u32| {
        if buckets.len() <= level {
            buckets.resize_with(level + 1, Vec::new);
        }
        buckets[level].push(entry);
    };
    for (g, s) in starts.iter().enumerate() {
        if s.blocked {
            push(&mut buckets, 0, g as u32 | LOSS_BIT);
        } else if s.win != u16::MAX {
            push(&mut buckets, usize::from(s.win), g as u32);
        } else if s.count == 0 && !s.draw {
            push(&mut buckets, usize::from(s.loss), g as u32 | LOSS_BIT);
        }
    }

    let mut level = 0;
    while level < buckets.len() {
        let items = std::mem::take(&mut buckets[level]);
        let next: Vec<(usize, u32)> = items
            .par_iter()
            .fold(Vec::new, |mut acc, &entry| {
                let g = (entry & !LOSS_BIT) as usize;
                let lost = entry & LOSS_BIT != 0;
                let code = if lost { LOST } else { WON };
                if status[g]
                    .compare_exchange(UNSETTLED, code, Ordering::AcqRel, Ordering::Acquire)
                    .is_err()
                {
                    return acc;
                }
                plies[g].store(level.min(u16::MAX as usize) as u16, Ordering::Relaxed);
                let side = side_of(g);
                let ps = partner(side);
                let (m, o) = indexes[side].masks((g - base[side]) as u32);
                let mut preds: ArrayVec<u32, 128> = ArrayVec::new();
                for_each_unmove(geo, m, o, |mp, op| {
                    if let Some(i) = indexes[ps].index_of(mp, op) {
                        let gp = (base[ps] + i as usize) as u32;
                        if !preds.contains(&gp) {
                            preds.push(gp);
                        }
                    }
                });
                for &gp in &preds {
                    let gp_u = gp as usize;
                    if lost {
                        if status[gp_u].load(Ordering::Acquire) == UNSETTLED {
                            acc.push((level + 1, gp));
                        }
                    } else {
                        let before = count[gp_u].fetch_sub(1, Ordering::AcqRel);
                        debug_assert!(before > 0, "a predecessor counted too few successors");
                        let st = &starts[gp_u];
                        if before == 1 && !st.draw && st.win == u16::MAX {
                            let at = (level + 1).max(usize::from(st.loss));
                            acc.push((at, gp | LOSS_BIT));
                        }
                    }
                }
                acc
            })
            .reduce(Vec::new, |mut a, mut b| {
                a.append(&mut b);
                a
            });
        for (l, e) in next {
            push(&mut buckets, l, e);
        }
        level += 1;
    }

    let mut out = Vec::with_capacity(sides);
    for (side, ix) in indexes.iter().enumerate() {
        let range = base[side]..base[side] + ix.len();
        let wdl: Vec<u8> = range
            .clone()
            .map(|g| match status[g].load(Ordering::Relaxed) {
                WON => Outcome::Win.code(),
                LOST => Outcome::Loss.code(),
                _ => Outcome::Draw.code(),
            })
            .collect();
        let pl: Vec<u16> = range
            .map(|g| {
                if status[g].load(Ordering::Relaxed) == UNSETTLED {
                    0
                } else {
                    plies[g].load(Ordering::Relaxed)
                }
            })
            .collect();
        out.push(LayerValues { wdl, plies: pl });
    }
    out
}

/// The states of the moving phase one quiet move before `(m, o)`: the
/// opponent's stone at `y`, in no mill of its own there, came from an
/// empty point next to it (any empty point if the opponent flies). Each
/// comes as `(opponent's stones before, m)`: the previous mover's view.
#[inline]
fn for_each_unmove(geo: &Geometry, m: u32, o: u32, mut f: impl FnMut(u32, u32)) {
    let empty = geo.all & !(m | o);
    let flies = geo.flies(o.count_ones());
    for y in points(o) {
        if geo.in_mill(o, y) {
            continue;
        }
        for x in points(geo.targets(y, empty, flies)) {
            f(o ^ y.bit() ^ x.bit(), m);
        }
    }
}

/// Positions reachable from the start, counted four ways.
#[derive(Clone, Debug, Default)]
pub struct Reach {
    /// Positions between turns (stones, hands, player to move; a blocked
    /// player's included), one per symmetry class.
    pub positions: u64,
    /// The same without the symmetry reduction.
    pub positions_raw: u64,
    /// The same with colours also identified (the solver's states: a
    /// moving-phase position and its colour-swapped twin count once).
    pub states: u64,
    pub states_raw: u64,
    /// Positions in the middle of a turn, a player about to remove a stone
    /// (symmetry-reduced, unreduced).
    pub removing: u64,
    pub removing_raw: u64,
    /// Final positions of games won by a capture to two stones or a line
    /// (symmetry-reduced, unreduced; colour as played).
    pub ended: u64,
    pub ended_raw: u64,
}

/// Breadth-first search over canonical positions from the start. Needs
/// every layer's index in `store` (Three and Six solved whole).
pub fn reachable(variant: Variant, store: &Store) -> Reach {
    let geo = variant.geometry();
    let all: Vec<Layer> = layers(variant);
    let id: HashMap<Layer, usize> = all.iter().enumerate().map(|(i, l)| (*l, i)).collect();
    let ix: Vec<&LayerIndex> = all
        .iter()
        .map(|l| &store.map.get(l).expect("every layer solved").index)
        .collect();
    // Visited bits: per layer, per state, per colour of the mover (a
    // placement layer's colour follows from the hands).
    let mut seen: Vec<Vec<u64>> = ix
        .iter()
        .map(|x| vec![0u64; (2 * x.len()).div_ceil(64)])
        .collect();
    let mut queue: Vec<(usize, u32, u8)> = Vec::new();
    let mut reach = Reach::default();
    let mut removing: HashSet<(Layer, u8, u64)> = HashSet::new();
    let mut ended: HashSet<(Layer, u8, u64)> = HashSet::new();
    let s = geo.stones;
    let start = Layer {
        a: 0,
        b: 0,
        hm: s,
        ho: s,
    };
    let visit = |seen: &mut Vec<Vec<u64>>,
                 queue: &mut Vec<(usize, u32, u8)>,
                 layer: Layer,
                 m: u32,
                 o: u32,
                 colour: u8| {
        let li = id[&layer];
        let i = ix[li].index_of(m, o).expect("a successor is a state");
        let bit = 2 * i as usize + usize::from(colour);
        if seen[li][bit / 64] & 1 << (bit % 64) == 0 {
            seen[li][bit / 64] |= 1 << (bit % 64);
            queue.push((li, i, colour));
        }
    };
    visit(&mut seen, &mut queue, start, 0, 0, 0);
    let mut head = 0;
    while head < queue.len() {
        let (li, i, colour) = queue[head];
        head += 1;
        let layer = all[li];
        let (m, o) = ix[li].masks(i);
        let orbit = u64::from(orbit_size(geo, m, o));
        reach.positions += 1;
        reach.positions_raw += orbit;
        let other = 1 - colour;
        let empty = geo.all & !(m | o);
        let mut arrivals: Vec<(u32, super::Point)> = Vec::new();
        if layer.hm > 0 {
            for p in points(empty) {
                arrivals.push((m | p.bit(), p));
            }
        } else {
            let flies = geo.flies(m.count_ones());
            for x in points(m) {
                for y in points(geo.targets(x, empty, flies)) {
                    arrivals.push((m ^ x.bit() ^ y.bit(), y));
                }
            }
        }
        let hm2 = layer.hm.saturating_sub(1);
        for (m2, at) in arrivals {
            let a2 = m2.count_ones() as u8;
            let after = Layer {
                a: layer.b,
                b: a2,
                hm: layer.ho,
                ho: hm2,
            };
            if geo.in_mill(m2, at) {
                if geo.mill_wins {
                    ended.insert((after, colour, canonical(geo, o, m2)));
                    continue;
                }
                if o != 0 {
                    removing.insert((after, colour, canonical(geo, m2, o)));
                    for r in points(geo.removable(o)) {
                        let o2 = o & !r.bit();
                        let next = Layer {
                            a: layer.b - 1,
                            ..after
                        };
                        if next.a + next.hm < 3 {
                            ended.insert((next, colour, canonical(geo, o2, m2)));
                        } else {
                            visit(&mut seen, &mut queue, next, o2, m2, other);
                        }
                    }
                    continue;
                }
            }
            visit(&mut seen, &mut queue, after, o, m2, other);
        }
    }
    // Colour-identified states: a state seen with either colour.
    for (li, bits) in seen.iter().enumerate() {
        for i in 0..ix[li].len() {
            let b0 = 2 * i;
            let any = (bits[b0 / 64] >> (b0 % 64)) & 3 != 0;
            if any {
                let (m, o) = ix[li].masks(i as u32);
                reach.states += 1;
                reach.states_raw += u64::from(orbit_size(geo, m, o));
            }
        }
    }
    for (l, _, key) in &removing {
        let _ = l;
        let (m, o) = super::address::split(*key);
        reach.removing += 1;
        reach.removing_raw += u64::from(orbit_size(geo, m, o));
    }
    for (_, _, key) in &ended {
        let (m, o) = super::address::split(*key);
        reach.ended += 1;
        reach.ended_raw += u64::from(orbit_size(geo, m, o));
    }
    reach
}
