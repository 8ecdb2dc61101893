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

/// Throughput of one game's search at play time, as a `net-mcts` player
/// runs it: one tree, leaves gathered `batch` at a time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OneGameBench {
    /// Simulations per second of wall time, evaluations included.
    pub sims_per_s: f64,
    pub simulations: u64,
    pub seconds: f64,
    /// Decisions searched (forced ones are played without search).
    pub moves: u64,
    /// Leaves asked for per evaluator call, and how many were gathered on
    /// average: fewer where descents collided or the budget ran out.
    pub batch: usize,
    pub mean_leaves_per_call: f64,
}

/// Plays one game from `start` (again from `start` when it ends) for about
/// `seconds`, each decision searched with `cfg` by a single [`Search`]
/// that gathers up to `batch` leaves per evaluator call
/// ([`Search::next_leaves`]), and reports the simulation rate.
///
/// ```
/// use yinsh_zero::evaluator::UniformEvaluator;
/// use yinsh_zero::mcts::{SearchConfig, bench_one_game};
/// use yinsh_zero::games::yinsh::Position;
/// let cfg = SearchConfig { simulations: 16, ..SearchConfig::for_play() };
/// let b = bench_one_game(&Position::new(), 0.05, &cfg, 4, 1, &mut UniformEvaluator);
/// assert!(b.simulations > 0 && b.mean_leaves_per_call > 1.0);
/// ```
///
/// # Panics
/// If `cfg` does not validate, or the evaluator answers badly.
pub fn bench_one_game<S: State>(
    start: &S,
    seconds: f64,
    cfg: &SearchConfig,
    batch: usize,
    seed: u64,
    evaluator: &mut dyn Evaluator<S>,
) -> OneGameBench {
    let mut rng = SmallRng::seed_from_u64(seed);
    let fresh = |rng: &mut SmallRng| {
        Search::new(start.clone(), cfg.clone(), rng.random()).expect("bench config is valid")
    };
    let mut search = fresh(&mut rng);
    let mut counted = Counted {
        inner: evaluator,
        calls: 0,
        positions: 0,
    };
    let (mut done_sims, mut moves) = (0u64, 0u64);
    let clock = Instant::now();
    while clock.elapsed().as_secs_f64() < seconds {
        let more = search
            .step_batch(&mut counted, batch)
            .expect("the evaluator answers every leaf");
        if more {
            continue;
        }
        moves += u64::from(!search.is_forced());
        let r = search.result();
        search
            .advance(r.action)
            .expect("the search chose a legal action");
        if search.position().is_over() {
            done_sims += search.total_simulations();
            search = fresh(&mut rng);
        }
    }
    let elapsed = clock.elapsed().as_secs_f64();
    let simulations = done_sims + search.total_simulations();
    OneGameBench {
        sims_per_s: simulations as f64 / elapsed,
        simulations,
        seconds: elapsed,
        moves,
        batch: batch.max(1),
        mean_leaves_per_call: counted.positions as f64 / counted.calls.max(1) as f64,
    }
}

/// An evaluator that counts what it is asked.
struct Counted<'a, S> {
    inner: &'a mut dyn Evaluator<S>,
    calls: u64,
    positions: u64,
}

impl<S: State> Evaluator<S> for Counted<'_, S> {
    fn evaluate(&mut self, positions: &[S]) -> Vec<crate::evaluator::Evaluation> {
        self.calls += 1;
        self.positions += positions.len() as u64;
        self.inner.evaluate(positions)
    }
}
