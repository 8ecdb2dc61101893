//! The placing phase searched instead of solved, as Gasser (1996) proved
//! Nine Men's Morris a draw: the placing phase of Nine has 17,856,763,819
//! symmetry-reduced states (`yinsh-zero morris layers --variant nine`), twice
//! the moving phase and 40 GB of files, but
//! every line through it ends after at most 18 turns in a moving-phase
//! layer that the database holds. An alpha-beta search from a placing
//! state down to those layers gives its exact value.
//!
//! The search works on states, not positions: `(layer, m, o)` as the
//! solver numbers them, whole turns (a placement that closes a mill and its
//! removal are one), symmetric states merged in a transposition table keyed
//! by the canonical form. Scores count turns from the search's root, so a
//! sooner win scores higher; the table stores them relative to each state.
//!
//! Values that need the whole tree are found in two steps: a search with
//! the window (-1, 1) settles the outcome (a draw is then exact), and only a
//! decisive state is searched again for the length of its best line.

use std::time::{Duration, Instant};

use super::address::{Layer, canonical};
use super::db::{Database, DbError, Outcome, Turn, Value, for_each_turn};
use super::geometry::{Geometry, points};

/// A win in `p` turns from the root scores `WIN - p`.
const WIN: i32 = 1_000_000;
/// Scores beyond this are wins or losses (no line is this long).
const DECIDED: i32 = WIN / 2;

/// Work counters of a search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Placing states expanded.
    pub nodes: u64,
    /// Moving-phase states looked up in the database.
    pub lookups: u64,
    /// Answers taken from the transposition table.
    pub table_hits: u64,
}

impl std::iter::Sum for SearchStats {
    fn sum<I: Iterator<Item = SearchStats>>(iter: I) -> SearchStats {
        iter.fold(SearchStats::default(), |a, b| SearchStats {
            nodes: a.nodes + b.nodes,
            lookups: a.lookups + b.lookups,
            table_hits: a.table_hits + b.table_hits,
        })
    }
}

/// One table slot: the canonical key with the hands in its spare bits, and
/// bounds on the state's score in turns from the state itself.
#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    lo: i32,
    hi: i32,
}

/// Keys leave the bits 24..32 of [`canonical`] free (masks are 24 bits);
/// the hands go there. Key 0 (no stones, no hands) marks an empty slot:
/// no searched state has empty hands and an empty board.
pub(crate) fn state_key(geo: &Geometry, layer: Layer, m: u32, o: u32) -> u64 {
    canonical(geo, m, o) | u64::from(layer.hm) << 24 | u64::from(layer.ho) << 28
}

/// How much work a state's entry saved: the turns left to place.
fn work(key: u64) -> u32 {
    ((key >> 24) & 0xf) as u32 + ((key >> 28) & 0xf) as u32
}

const WAYS: usize = 4;

/// A fixed-size transposition table of four-way buckets; a full bucket
/// gives up its entry with the fewest placements left (the cheapest to
/// find again).
struct Table {
    slots: Vec<Entry>,
    mask: usize,
}

impl Table {
    fn new(bytes: usize) -> Table {
        let fit = (bytes / (WAYS * std::mem::size_of::<Entry>())).max(1);
        // The largest power of two that fits.
        let buckets = 1usize << (usize::BITS - 1 - fit.leading_zeros());
        Table {
            slots: vec![Entry::default(); buckets * WAYS],
            mask: buckets - 1,
        }
    }

    fn bucket(&self, key: u64) -> usize {
        // The canonical key's low bits are the opponent's stones on a few
        // points: mix before picking a bucket.
        let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        ((h >> 32) as usize & self.mask) * WAYS
    }

    fn get(&self, key: u64) -> Option<(i32, i32)> {
        let b = self.bucket(key);
        self.slots[b..b + WAYS]
            .iter()
            .find(|e| e.key == key)
            .map(|e| (e.lo, e.hi))
    }

    fn put(&mut self, key: u64, lo: i32, hi: i32) {
        let b = self.bucket(key);
        let bucket = &mut self.slots[b..b + WAYS];
        if let Some(e) = bucket.iter_mut().find(|e| e.key == key) {
            e.lo = e.lo.max(lo);
            e.hi = e.hi.min(hi);
            return;
        }
        let victim = bucket
            .iter_mut()
            .min_by_key(|e| if e.key == 0 { 0 } else { 1 + work(e.key) })
            .expect("a bucket has slots");
        *victim = Entry { key, lo, hi };
    }
}

/// A score seen from the state `ply` turns below the root, and back.
fn to_state(score: i32, ply: i32) -> i32 {
    if score > DECIDED {
        score + ply
    } else if score < -DECIDED {
        score - ply
    } else {
        score
    }
}

fn to_root(score: i32, ply: i32) -> i32 {
    if score > DECIDED {
        score - ply
    } else if score < -DECIDED {
        score + ply
    } else {
        score
    }
}

/// A database value of the state `ply` turns below the root.
fn score_of(v: Value, ply: i32) -> i32 {
    let at = ply + i32::from(v.plies);
    match v.outcome {
        Outcome::Win => WIN - at,
        Outcome::Loss => -(WIN - at),
        Outcome::Draw => 0,
    }
}

/// A searcher over one database's moving-phase layers, keeping its table
/// between questions.
///
/// ```no_run
/// use yinsh_zero::games::morris::address::Layer;
/// use yinsh_zero::games::morris::db::Database;
/// use yinsh_zero::games::morris::placing::PlacingSearch;
/// use yinsh_zero::games::morris::Variant;
///
/// let db = Database::open(&Database::default_dir(Variant::Nine), Variant::Nine).unwrap();
/// let mut search = PlacingSearch::new(1 << 30, None);
/// // The empty board, White to place nine and Black nine.
/// let start = Layer { a: 0, b: 0, hm: 9, ho: 9 };
/// println!("{}", search.value(&db, start, 0, 0).unwrap());
/// ```
pub struct PlacingSearch {
    table: Table,
    stats: SearchStats,
    /// Most nodes one question may expand; `None`: no limit.
    budget: Option<u64>,
    spent: u64,
    /// How often to report on standard error, and since when.
    progress: Option<(Duration, Instant, Instant)>,
}

impl PlacingSearch {
    /// A searcher whose table takes about `table_bytes`, answering each
    /// question within `budget` expanded states (or failing with
    /// [`DbError::SearchLimit`]).
    pub fn new(table_bytes: usize, budget: Option<u64>) -> PlacingSearch {
        PlacingSearch {
            table: Table::new(table_bytes),
            stats: SearchStats::default(),
            budget,
            spent: 0,
            progress: None,
        }
    }

    /// Reports the work so far on standard error every `every` (a search
    /// from the start of Nine Men's Morris runs for minutes).
    pub fn with_progress(mut self, every: Duration) -> PlacingSearch {
        let now = Instant::now();
        self.progress = Some((every, now, now));
        self
    }

    fn report(&mut self) {
        if let Some((every, started, last)) = &mut self.progress
            && last.elapsed() >= *every
        {
            *last = Instant::now();
            let secs = started.elapsed().as_secs_f64();
            let s = self.stats;
            eprintln!(
                "placing search: {} states expanded, {} moving-phase look-ups, {} table answers \
                 in {secs:.0} s ({:.0} states and look-ups a second)",
                s.nodes,
                s.lookups,
                s.table_hits,
                (s.nodes + s.lookups) as f64 / secs.max(1e-9)
            );
        }
    }

    pub fn stats(&self) -> SearchStats {
        self.stats
    }

    /// The exact value of a state: its outcome, and for a win or loss the
    /// turns to the end under best play.
    pub fn value(&mut self, db: &Database, layer: Layer, m: u32, o: u32) -> Result<Value, DbError> {
        self.spent = 0;
        let s = self.search(db, layer, m, o, 0, -1, 1)?;
        let s = match s {
            0 => 0,
            s if s > 0 => self.search(db, layer, m, o, 0, 0, WIN + 1)?,
            _ => self.search(db, layer, m, o, 0, -WIN - 1, 0)?,
        };
        Ok(value_of(s))
    }

    /// The outcome of a state alone (cheaper than [`value`](Self::value)
    /// for a decisive one).
    pub fn outcome(
        &mut self,
        db: &Database,
        layer: Layer,
        m: u32,
        o: u32,
    ) -> Result<Outcome, DbError> {
        self.spent = 0;
        let s = self.search(db, layer, m, o, 0, -1, 1)?;
        Ok(match s {
            0 => Outcome::Draw,
            s if s > 0 => Outcome::Win,
            _ => Outcome::Loss,
        })
    }

    /// Fail-soft negamax with alpha-beta: the exact score when it lies in
    /// `(alpha, beta)`, else a bound on the far side of the window.
    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        db: &Database,
        layer: Layer,
        m: u32,
        o: u32,
        ply: i32,
        mut alpha: i32,
        mut beta: i32,
    ) -> Result<i32, DbError> {
        let geo = db.variant().geometry();
        if (layer.hm == 0 && layer.ho == 0) || db.has_layer(layer) {
            self.stats.lookups += 1;
            return Ok(score_of(db.state_value(layer, m, o)?, ply));
        }
        let k = state_key(geo, layer, m, o);
        if let Some((lo, hi)) = self.table.get(k) {
            let (lo, hi) = (to_root(lo, ply), to_root(hi, ply));
            if lo >= beta || hi <= alpha || lo == hi {
                self.stats.table_hits += 1;
                return Ok(if lo >= beta { lo } else { hi });
            }
            alpha = alpha.max(lo);
            beta = beta.min(hi);
        }
        self.stats.nodes += 1;
        self.spent += 1;
        if self.stats.nodes.is_multiple_of(65_536) {
            self.report();
        }
        if let Some(b) = self.budget
            && self.spent > b
        {
            return Err(DbError::SearchLimit { nodes: b });
        }
        let turns = ordered_turns(geo, layer, m, o);
        if turns.is_empty() {
            // No placement or move: lost now.
            return Ok(-(WIN - ply));
        }
        let (alpha0, beta0) = (alpha, beta);
        let mut best = -WIN - 1;
        for t in turns {
            let score = match t {
                Turn::Win => WIN - (ply + 1),
                Turn::To(l2, m2, o2) => {
                    -self.search(db, l2, m2, o2, ply + 1, -beta, -alpha.max(best))?
                }
            };
            if score > best {
                best = score;
                if best >= beta {
                    break;
                }
            }
        }
        let rel = to_state(best, ply);
        if best <= alpha0 {
            self.table.put(k, -WIN - 1, rel);
        } else if best >= beta0 {
            self.table.put(k, rel, WIN + 1);
        } else {
            self.table.put(k, rel, rel);
        }
        Ok(best)
    }
}

fn value_of(score: i32) -> Value {
    if score > DECIDED {
        Value::win((WIN - score) as u16)
    } else if score < -DECIDED {
        Value::loss((WIN + score) as u16)
    } else {
        Value::DRAW
    }
}

/// The turns of a state, the likeliest best first: wins, captures, blocks
/// of the opponent's open lines, own open lines, then the better-connected
/// points. A good first move is most of alpha-beta's saving.
fn ordered_turns(geo: &Geometry, layer: Layer, m: u32, o: u32) -> Vec<Turn> {
    let mut scored: Vec<(i32, Turn)> = Vec::with_capacity(32);
    let empty = geo.all & !(m | o);
    // Points where the opponent (or we) would close a mill.
    let (mut theirs, mut ours) = (0u32, 0u32);
    for &line in &geo.mills {
        let free = line & empty;
        if free.count_ones() == 1 {
            if line & o == line & !free {
                theirs |= free;
            } else if line & m == line & !free {
                ours |= free;
            }
        }
    }
    for_each_turn(geo, layer, m, o, |t| {
        let score = match t {
            Turn::Win => i32::MAX,
            Turn::To(l2, after_o, after_m) => {
                let moved = after_m & !m;
                let captured = l2.a < layer.b;
                let p = points(moved).next();
                let mut s = 0;
                if captured {
                    s += 10_000;
                }
                if moved & theirs != 0 {
                    s += 1_000;
                }
                if moved & ours != 0 {
                    s += 500;
                }
                if let Some(p) = p {
                    // Open lines this stone starts: a mill of ours with
                    // no opponent stone and this one its second stone.
                    for &line in &geo.mills_at[p.index()] {
                        if line & after_o == 0 && (line & after_m).count_ones() == 2 {
                            s += 50;
                        }
                    }
                    s += 10 * geo.adjacent[p.index()].count_ones() as i32;
                }
                s
            }
        };
        scored.push((score, t));
    });
    scored.sort_by_key(|&(s, _)| std::cmp::Reverse(s));
    scored.into_iter().map(|(_, t)| t).collect()
}
