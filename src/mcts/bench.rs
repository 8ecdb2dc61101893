//! How fast the search itself runs: simulations per second with the
//! [`UniformEvaluator`], so that no network time hides the tree's own cost.

use std::time::Instant;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use super::batch::{Batches, step};
use super::{Search, SearchConfig, SearchError};
use crate::evaluator::{Evaluator, UniformEvaluator};
use crate::game::State;

/// Throughput of the search on one thread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchBench {
    /// Simulations per second of wall time, evaluations included (uniform,
    /// hence nearly free).
    pub sims_per_s_uniform: f64,
    pub simulations: u64,
    pub seconds: f64,
    /// Games stepped together, one leaf each per batch, as in self-play.
    pub games_in_flight: usize,
    /// Moves chosen (searched or forced) and games played to the end.
    pub moves: u64,
    pub games_finished: u64,
    pub gumbel: bool,
    pub simulations_per_move: u32,
}

/// Plays self-play-like games from `start` with `games` searches in flight for about
/// `seconds`, all leaves of a round evaluated in one batch by the
/// [`UniformEvaluator`], and reports the simulation rate.
///
/// ```
/// use yinsh_zero::mcts::{SearchConfig, bench_search};
/// use yinsh_zero::games::yinsh::Position;
/// let cfg = SearchConfig { simulations: 16, ..SearchConfig::default() };
/// let b = bench_search(&Position::new(), 0.05, &cfg, 4, 1);
/// assert!(b.simulations > 0 && b.sims_per_s_uniform > 0.0);
/// ```
///
/// # Panics
/// If `cfg` does not validate.
pub fn bench_search<S: State>(
    start: &S,
    seconds: f64,
    cfg: &SearchConfig,
    games: usize,
    seed: u64,
) -> SearchBench {
    bench_search_with(start, seconds, cfg, games, seed, &mut UniformEvaluator)
}

/// [`bench_search`] with any evaluator (a network, to see search speed as
/// self-play gets it); the rate is still reported as `sims_per_s_uniform`'s
/// field, so callers label it.
pub fn bench_search_with<S: State>(
    start: &S,
    seconds: f64,
    cfg: &SearchConfig,
    games: usize,
    seed: u64,
    evaluator: &mut dyn Evaluator<S>,
) -> SearchBench {
    let games = games.max(1);
    let mut rng = SmallRng::seed_from_u64(seed);
    let fresh = |rng: &mut SmallRng| {
        Some(Search::new(start.clone(), cfg.clone(), rng.random()).expect("bench config is valid"))
    };
    // Self-play's own stepping loop, with one evaluator for every game.
    let mut slots: Vec<Option<Search<S>>> = (0..games).map(|_| fresh(&mut rng)).collect();
    let mut buffers = Batches::new(1, games);
    let mut evaluators = [evaluator];
    let (mut done_sims, mut moves, mut finished) = (0u64, 0u64, 0u64);

    let start = Instant::now();
    while start.elapsed().as_secs_f64() < seconds {
        step(&mut slots, &mut evaluators, &mut buffers, |slot| {
            let s = slot.as_mut().expect("a decided search is in its slot");
            let r = s.result();
            moves += 1;
            s.advance(r.action)?;
            if s.position().is_over() {
                finished += 1;
                done_sims += s.total_simulations();
                *slot = fresh(&mut rng);
            }
            Ok::<(), SearchError>(())
        })
        .expect("the search chose a legal action and the evaluator answered it");
    }
    let elapsed = start.elapsed().as_secs_f64();
    let simulations = done_sims
        + slots
            .iter()
            .flatten()
            .map(|s| s.total_simulations())
            .sum::<u64>();
    SearchBench {
        sims_per_s_uniform: simulations as f64 / elapsed,
        simulations,
        seconds: elapsed,
        games_in_flight: games,
        moves,
        games_finished: finished,
        gumbel: cfg.gumbel,
        simulations_per_move: cfg.simulations,
    }
}
