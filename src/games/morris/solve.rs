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
use std::time::Instant;

use rayon::prelude::*;

use super::address::{Layer, LayerIndex, canonical, layer_size, layers, orbit_size};
use super::db::{
    DbError, LayerValues, Outcome, Solved, Turn, Value, for_each_turn, read_layer, write_layer,
};
use super::geometry::{Variant, points};
use super::pair::{PairOptions, solve_pair};

/// What to solve, and where.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    pub variant: Variant,
    pub dir: PathBuf,
    /// Solve only the moving-phase layers with at most this many stones a
    /// side (required for Nine Men's Morris; Three and Six are solved
    /// whole, placement included, when it is `None`).
    pub max_stones: Option<u8>,
    /// Most seconds between checkpoints inside a moving-phase pair.
    pub checkpoint_secs: u64,
    /// Progress lines (to standard error) about every this many seconds.
    pub progress_secs: Option<u64>,
}

impl SolveOptions {
    /// Checkpoints every 20 minutes, no progress lines.
    pub fn new(variant: Variant, dir: &Path, max_stones: Option<u8>) -> SolveOptions {
        SolveOptions {
            variant,
            dir: dir.to_path_buf(),
            max_stones,
            checkpoint_secs: 20 * 60,
            progress_secs: None,
        }
    }
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

/// Solved layers in memory, by layer: a dense table, not a hash map, as
/// the pair solver looks a layer up for every capture it generates.
pub struct Store {
    slots: Vec<Option<Arc<Solved>>>,
}

impl Default for Store {
    fn default() -> Store {
        Store {
            slots: vec![None; 10_000],
        }
    }
}

impl Store {
    /// Every count in a layer is at most nine.
    #[inline]
    fn slot(layer: Layer) -> usize {
        let d = |x: u8| usize::from(x.min(9));
        ((d(layer.a) * 10 + d(layer.b)) * 10 + d(layer.hm)) * 10 + d(layer.ho)
    }

    pub fn get(&self, layer: Layer) -> Option<&Arc<Solved>> {
        self.slots[Self::slot(layer)].as_ref()
    }

    pub fn insert(&mut self, layer: Layer, solved: Arc<Solved>) {
        self.slots[Self::slot(layer)] = Some(solved);
    }

    /// Keeps the layers `keep` says yes to.
    pub fn retain(&mut self, mut keep: impl FnMut(Layer) -> bool) {
        for s in self.slots.iter_mut() {
            if let Some(solved) = s
                && !keep(solved.index.layer)
            {
                *s = None;
            }
        }
    }

    #[inline]
    fn value(&self, layer: Layer, m: u32, o: u32) -> Value {
        let s = self
            .get(layer)
            .unwrap_or_else(|| panic!("layer {layer} is solved first"));
        s.value(m, o)
            .unwrap_or_else(|| panic!("{m:#x}/{o:#x} is a state of layer {layer}"))
    }

    #[inline]
    pub(crate) fn turn(&self, t: Turn) -> Value {
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

/// The checkpoint file of the pair whose first layer is `layer`.
pub fn checkpoint_name(layer: Layer) -> String {
    format!(
        "pair-{}-{}-{}-{}.ckpt",
        layer.a, layer.b, layer.hm, layer.ho
    )
}

/// Solves what `opts` asks, keeping valid layer files already in the
/// directory (a damaged one is named in its report and recomputed).
/// `on_layer` hears of each layer as it is done. A moving-phase pair
/// interrupted half-way resumes from its checkpoint. Returns the solved
/// layers in memory: all of them for Three and Six; for Nine, only those
/// the next stone count would need (the layers with the most stones).
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
    // Nine keeps only the layers that captures lead to.
    let evict = variant == Variant::Nine;
    let mut store = Store::default();
    let mut done: HashSet<Layer> = HashSet::new();
    let all_states: u64 = todo.iter().map(|&l| layer_size(variant, l).0).sum();
    let mut states_done = 0u64;
    let (mut solved_states, mut solved_secs) = (0u64, 0f64);
    for &layer in &todo {
        if done.contains(&layer) {
            continue;
        }
        let group: Vec<Layer> = if layer.is_moving() && layer.a != layer.b {
            vec![layer, layer.partner()]
        } else {
            vec![layer]
        };
        if evict {
            let t = layer.a + layer.b;
            store.retain(|l| l.a + l.b + 1 >= t);
        }
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
        let was_kept: Vec<bool> = kept.iter().map(Option::is_some).collect();
        let group_states: u64 = indexes.iter().map(|i| i.len() as u64).sum();
        if !all_kept && let Some(every) = opts.progress_secs {
            let left = if solved_secs > 0.0 && solved_states > 0 {
                let rate = solved_states as f64 / solved_secs;
                format!(
                    "; about {} left for all {} remaining states at {:.0} states/s so far",
                    hms((all_states - states_done) as f64 / rate),
                    all_states - states_done,
                    rate
                )
            } else {
                String::new()
            };
            let _ = every;
            eprintln!(
                "solving {} ({group_states} states){left}",
                group
                    .iter()
                    .map(|l| l.to_string())
                    .collect::<Vec<_>>()
                    .join(" + ")
            );
        }
        let ckpt = opts.dir.join(checkpoint_name(layer));
        let values: Vec<LayerValues> = if all_kept {
            kept.iter_mut().map(|k| k.take().unwrap()).collect()
        } else if layer.is_moving() {
            let popts = PairOptions {
                progress_secs: opts.progress_secs,
                ..PairOptions::new(Some(ckpt.clone()), opts.checkpoint_secs)
            };
            let (values, plog) = solve_pair(variant, &indexes, &store, &popts)?;
            if let Some(why) = plog.bad_checkpoint {
                for d in damaged.iter_mut() {
                    if d.is_none() {
                        *d = Some(format!("checkpoint not used: {why}"));
                    }
                }
            }
            values
        } else {
            vec![solve_placement(variant, &indexes[0], &store)]
        };
        let seconds = started.elapsed().as_secs_f64();
        for (k, ((l, ix), v)) in group.iter().zip(indexes).zip(values).enumerate() {
            let resumed = was_kept[k];
            if !resumed {
                write_layer(&opts.dir.join(l.file_name()), variant, *l, &v)?;
            }
            let mut report = summarize(*l, &ix, &v);
            report.seconds = if k == 0 { seconds } else { 0.0 };
            report.resumed = resumed;
            report.damaged = damaged[k].take();
            on_layer(&report);
            store.insert(
                *l,
                Arc::new(Solved {
                    index: ix,
                    values: v,
                }),
            );
            done.insert(*l);
        }
        if !all_kept {
            if ckpt.exists() {
                std::fs::remove_file(&ckpt).map_err(|e| DbError::Io {
                    path: ckpt.clone(),
                    source: e,
                })?;
            }
            solved_states += group_states;
            solved_secs += seconds;
        }
        states_done += group_states;
    }
    Ok(store)
}

fn hms(secs: f64) -> String {
    let s = secs.max(0.0) as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// Loads the solved layers of `dir` (all of `variant`'s that have files)
/// into memory, checked.
pub fn load(dir: &Path, variant: Variant, max_stones: Option<u8>) -> Result<Store, DbError> {
    let mut store = Store::default();
    for l in layers_to_solve(variant, max_stones) {
        let path = dir.join(l.file_name());
        let index = LayerIndex::build(variant, l);
        let values = read_layer(&path, variant, l, Some(index.len()))?;
        store.insert(l, Arc::new(Solved { index, values }));
    }
    Ok(store)
}

/// A placement layer: every state takes its best turn.
fn solve_placement(variant: Variant, index: &LayerIndex, store: &Store) -> LayerValues {
    let geo = variant.geometry();
    let layer = index.layer;
    let n = index.len();
    let chunk = 1 << 16;
    let parts: Vec<(Vec<u8>, Vec<u16>)> = (0..n.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let range = c * chunk..((c + 1) * chunk).min(n);
            let mut wdl = Vec::with_capacity(range.len());
            let mut plies = Vec::with_capacity(range.len());
            index.for_each_in(range, |_, m, o| {
                let mut best: Option<Value> = None;
                for_each_turn(geo, layer, m, o, |t| {
                    let v = store.turn(t);
                    if best.is_none_or(|b| v.rank() > b.rank()) {
                        best = Some(v);
                    }
                });
                // A player with stones in hand can always place one.
                let v = best.unwrap_or(Value::loss(0));
                wdl.push(v.outcome.code());
                plies.push(v.plies);
            });
            (wdl, plies)
        })
        .collect();
    let mut wdl = Vec::with_capacity(n);
    let mut plies = Vec::with_capacity(n);
    for (w, p) in parts {
        wdl.extend_from_slice(&w);
        plies.extend_from_slice(&p);
    }
    LayerValues { wdl, plies }
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
        .map(|l| &store.get(*l).expect("every layer solved").index)
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
