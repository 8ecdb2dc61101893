//! Statistics of uniformly random games: branching factors, game lengths,
//! how games end.
//!
//! These numbers size everything downstream: the policy head, the search
//! budget, the length of self-play games. Published analyses of YINSH give
//! an average branching factor of about 40 and at most 81 turns; a run here
//! checks the engine against them.
//!
//! ```
//! use yinsh_zero::games::yinsh::stats::random_game_stats;
//! use yinsh_zero::games::yinsh::Variant;
//!
//! let s = random_game_stats(20, 1, Variant::STANDARD);
//! assert_eq!(s.games, 20);
//! assert!(s.max_turns <= 81);
//! assert_eq!(s, random_game_stats(20, 1, Variant::STANDARD));
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use serde::Serialize;

use super::position::MAX_ACTIONS;
use super::{Action, ActionList, Color, Decision, EndReason, Position, Variant};
use crate::util::sub_seed;

/// A count and its share of all games.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Share {
    pub count: u64,
    pub share: f64,
}

/// Branching at one turn number, over the games that reached it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TurnBranching {
    /// 1-based: turn 1 is White's first placement, turn 11 the first move.
    pub turn: u32,
    pub games: u64,
    pub mean_options: f64,
}

/// What [`random_game_stats`] measures. A *turn* is one ring placement or
/// one ring move; row and ring removals and passes are not turns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RandomGameStats {
    pub games: u64,
    pub seed: u64,
    pub variant: &'static str,
    /// Legal ring moves at each movement turn (passes excluded).
    pub mean_ring_moves: f64,
    pub median_ring_moves: f64,
    pub max_ring_moves: u32,
    /// Movement turns counted in the ring-move figures.
    pub movement_turns: u64,
    /// Forced passes (no ring could move), over all games.
    pub passes: u64,
    /// Legal actions at every turn, placements included.
    pub mean_options_all_turns: f64,
    pub mean_turns: f64,
    pub median_turns: f64,
    pub min_turns: u32,
    pub max_turns: u32,
    /// `three_rings`, `pool_empty`, `double_pass`.
    pub end_reasons: BTreeMap<&'static str, Share>,
    /// `white`, `black`, `draw`.
    pub outcomes: BTreeMap<&'static str, Share>,
    pub by_turn: Vec<TurnBranching>,
}

/// Integer tallies only, so merging partial results in any order gives
/// the same totals and the report does not depend on the thread count.
#[derive(Clone, Debug)]
struct Tallies {
    games: u64,
    /// `ring_moves[n]`: movement turns with `n` legal ring moves.
    ring_moves: Vec<u64>,
    passes: u64,
    options_sum: u64,
    options_n: u64,
    /// `(sum of options, games)` per 0-based turn.
    by_turn: Vec<(u64, u64)>,
    /// `turns[n]`: games that lasted `n` turns.
    turns: Vec<u64>,
    end_reasons: [u64; 3],
    /// White wins, Black wins, draws.
    outcomes: [u64; 3],
}

impl Tallies {
    fn new() -> Tallies {
        Tallies {
            games: 0,
            ring_moves: vec![0; MAX_ACTIONS + 1],
            passes: 0,
            options_sum: 0,
            options_n: 0,
            by_turn: Vec::new(),
            turns: Vec::new(),
            end_reasons: [0; 3],
            outcomes: [0; 3],
        }
    }

    fn play_one(mut self, start: Position, seed: u64) -> Tallies {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut pos = start;
        let mut list = ActionList::new();
        while !pos.is_over() {
            pos.legal_actions_into(&mut list);
            let n = list.len() as u64;
            let turn_options = match pos.decision() {
                Decision::PlaceRing => Some(n),
                Decision::MoveRing if list[0] == Action::Pass => {
                    self.passes += 1;
                    None
                }
                Decision::MoveRing => {
                    self.ring_moves[list.len()] += 1;
                    Some(n)
                }
                _ => None,
            };
            if let Some(n) = turn_options {
                self.options_sum += n;
                self.options_n += 1;
                let t = pos.turn() as usize;
                if self.by_turn.len() <= t {
                    self.by_turn.resize(t + 1, (0, 0));
                }
                self.by_turn[t].0 += n;
                self.by_turn[t].1 += 1;
            }
            pos.play_unchecked(list[rng.random_range(0..list.len())]);
        }
        let outcome = pos.outcome().expect("a finished game has an outcome");
        self.games += 1;
        let t = pos.turn() as usize;
        if self.turns.len() <= t {
            self.turns.resize(t + 1, 0);
        }
        self.turns[t] += 1;
        self.end_reasons[match outcome.reason {
            EndReason::ThreeRings => 0,
            EndReason::PoolEmpty => 1,
            EndReason::DoublePass | EndReason::Resign => 2,
        }] += 1;
        self.outcomes[match outcome.winner {
            Some(Color::White) => 0,
            Some(Color::Black) => 1,
            None => 2,
        }] += 1;
        self
    }

    fn merge(mut self, other: Tallies) -> Tallies {
        fn add_vec<T: Copy + Default>(a: &mut Vec<T>, b: &[T], add: impl Fn(T, T) -> T) {
            if a.len() < b.len() {
                a.resize(b.len(), T::default());
            }
            for (x, &y) in a.iter_mut().zip(b) {
                *x = add(*x, y);
            }
        }
        self.games += other.games;
        add_vec(&mut self.ring_moves, &other.ring_moves, |x, y| x + y);
        self.passes += other.passes;
        self.options_sum += other.options_sum;
        self.options_n += other.options_n;
        add_vec(&mut self.by_turn, &other.by_turn, |x, y| {
            (x.0 + y.0, x.1 + y.1)
        });
        add_vec(&mut self.turns, &other.turns, |x, y| x + y);
        for k in 0..3 {
            self.end_reasons[k] += other.end_reasons[k];
            self.outcomes[k] += other.outcomes[k];
        }
        self
    }

    fn report(&self, seed: u64, variant: Variant) -> RandomGameStats {
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let share = |count: u64| Share {
            count,
            share: ratio(count, self.games),
        };
        let (rm_sum, rm_n) = weighted(&self.ring_moves);
        let (turn_sum, _) = weighted(&self.turns);
        RandomGameStats {
            games: self.games,
            seed,
            variant: variant.name(),
            mean_ring_moves: ratio(rm_sum, rm_n),
            median_ring_moves: median(&self.ring_moves),
            max_ring_moves: last_nonzero(&self.ring_moves),
            movement_turns: rm_n,
            passes: self.passes,
            mean_options_all_turns: ratio(self.options_sum, self.options_n),
            mean_turns: ratio(turn_sum, self.games),
            median_turns: median(&self.turns),
            min_turns: self.turns.iter().position(|&c| c > 0).unwrap_or(0) as u32,
            max_turns: last_nonzero(&self.turns),
            end_reasons: [
                (EndReason::ThreeRings.name(), share(self.end_reasons[0])),
                (EndReason::PoolEmpty.name(), share(self.end_reasons[1])),
                (EndReason::DoublePass.name(), share(self.end_reasons[2])),
            ]
            .into(),
            outcomes: [
                ("white", share(self.outcomes[0])),
                ("black", share(self.outcomes[1])),
                ("draw", share(self.outcomes[2])),
            ]
            .into(),
            by_turn: self
                .by_turn
                .iter()
                .enumerate()
                .filter(|(_, (_, n))| *n > 0)
                .map(|(t, &(sum, n))| TurnBranching {
                    turn: t as u32 + 1,
                    games: n,
                    mean_options: ratio(sum, n),
                })
                .collect(),
        }
    }
}

/// `(sum of value * count, sum of count)` of a histogram indexed by value.
fn weighted(hist: &[u64]) -> (u64, u64) {
    hist.iter()
        .enumerate()
        .fold((0, 0), |(s, n), (v, &c)| (s + v as u64 * c, n + c))
}

fn last_nonzero(hist: &[u64]) -> u32 {
    hist.iter().rposition(|&c| c > 0).unwrap_or(0) as u32
}

/// The median of a histogram indexed by value (the mean of the two middle
/// values for an even count); 0 when empty.
fn median(hist: &[u64]) -> f64 {
    let n: u64 = hist.iter().sum();
    if n == 0 {
        return 0.0;
    }
    // The values of rank k (0-based) for the two middle ranks.
    let value_at = |k: u64| {
        let mut seen = 0;
        for (v, &c) in hist.iter().enumerate() {
            seen += c;
            if seen > k {
                return v as f64;
            }
        }
        unreachable!("rank {k} is below the total {n}")
    };
    (value_at((n - 1) / 2) + value_at(n / 2)) / 2.0
}

/// Plays `games` uniformly random games from the start of `variant`, in
/// parallel on the current rayon pool, and measures them.
///
/// Game `i` draws its moves from `sub_seed(seed, i)`, and all tallies are
/// integers merged by addition, so the report depends only on `games`,
/// `seed` and `variant`, not on the number of threads.
pub fn random_game_stats(games: u64, seed: u64, variant: Variant) -> RandomGameStats {
    let start = Position::with_variant(variant);
    (0..games)
        .into_par_iter()
        .fold(Tallies::new, |t, i| t.play_one(start, sub_seed(seed, i)))
        .reduce(Tallies::new, Tallies::merge)
        .report(seed, variant)
}

impl fmt::Display for RandomGameStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} uniformly random {} games (seed {})",
            self.games, self.variant, self.seed
        )?;
        writeln!(
            f,
            "ring moves per movement turn: mean {:.2}, median {}, max {} ({} turns; {} forced passes)",
            self.mean_ring_moves,
            self.median_ring_moves,
            self.max_ring_moves,
            self.movement_turns,
            self.passes
        )?;
        writeln!(
            f,
            "options per turn (placements and moves): mean {:.2}",
            self.mean_options_all_turns
        )?;
        writeln!(
            f,
            "game length in turns: mean {:.2}, median {}, min {}, max {}",
            self.mean_turns, self.median_turns, self.min_turns, self.max_turns
        )?;
        let shares = |m: &BTreeMap<&str, Share>| {
            m.iter()
                .map(|(k, s)| format!("{k} {} ({:.1}%)", s.count, 100.0 * s.share))
                .collect::<Vec<_>>()
                .join(", ")
        };
        writeln!(f, "end reasons: {}", shares(&self.end_reasons))?;
        writeln!(f, "outcomes: {}", shares(&self.outcomes))?;
        writeln!(f, "branching by turn:")?;
        writeln!(f, "  turn   games  mean options")?;
        for t in &self.by_turn {
            writeln!(f, "  {:>4} {:>7} {:>13.2}", t.turn, t.games, t.mean_options)?;
        }
        Ok(())
    }
}

/// Drawing a chart failed.
#[derive(Debug, thiserror::Error)]
#[error("cannot draw the chart to {path}: {message}")]
pub struct PlotError {
    pub path: String,
    pub message: String,
}

/// Draws mean legal options against turn number as an SVG line chart.
pub fn plot_branching(stats: &RandomGameStats, path: &Path) -> Result<(), PlotError> {
    use plotters::prelude::*;

    let fail = |e: &dyn fmt::Display| PlotError {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let last_turn = stats.by_turn.last().map_or(1, |t| t.turn).max(2);
    let top = stats
        .by_turn
        .iter()
        .map(|t| t.mean_options)
        .fold(1.0, f64::max)
        * 1.1;

    let root = SVGBackend::new(path, (900, 540)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!(
                "YINSH branching by turn: {} random {} games",
                stats.games, stats.variant
            ),
            ("sans-serif", 22),
        )
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d(1u32..last_turn, 0f64..top)
        .map_err(|e| fail(&e))?;
    chart
        .configure_mesh()
        .x_desc("turn (placement or ring move)")
        .y_desc("mean legal options")
        .draw()
        .map_err(|e| fail(&e))?;
    chart
        .draw_series(LineSeries::new(
            stats.by_turn.iter().map(|t| (t.turn, t.mean_options)),
            &BLUE,
        ))
        .map_err(|e| fail(&e))?;
    root.present().map_err(|e| fail(&e))?;
    Ok(())
}
