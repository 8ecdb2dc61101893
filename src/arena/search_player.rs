//! Players that think with the tree search: `mcts-rollout` (random
//! playouts judge the leaves: the classic non-learned engine) and, with a
//! network evaluator, `net-mcts`. Both keep their tree between moves.

use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::player::{MoveInfo, Player};
use crate::evaluator::{Evaluation, Evaluator};
use crate::game::State;
use crate::mcts::{Leaf, Search, SearchConfig};

/// Judges a position by uniformly random playouts to the end: uniform
/// priors, and the playouts' mean result as win/draw/loss.
pub struct RolloutEvaluator {
    rng: SmallRng,
    /// Playouts per evaluated leaf.
    pub playouts_per_leaf: u32,
}

impl RolloutEvaluator {
    pub fn new(seed: u64) -> Self {
        RolloutEvaluator {
            rng: SmallRng::seed_from_u64(seed),
            playouts_per_leaf: 1,
        }
    }

    /// The result and margin of one random game from `pos`, for its player
    /// to act.
    fn playout<S: State>(&mut self, pos: &S) -> ([f32; 3], f32) {
        let me = pos.to_act();
        let mut p = pos.clone();
        while !p.is_over() {
            let legal = p.legal_actions();
            p.play_unchecked(legal[self.rng.random_range(0..legal.len())]);
        }
        let wdl = match p.result().expect("played out").score_for(me) {
            1 => [1.0, 0.0, 0.0],
            0 => [0.0, 1.0, 0.0],
            _ => [0.0, 0.0, 1.0],
        };
        (wdl, p.margin(me).unwrap_or(0.0))
    }
}

impl<S: State> Evaluator<S> for RolloutEvaluator {
    fn evaluate(&mut self, positions: &[S]) -> Vec<Evaluation> {
        positions
            .iter()
            .map(|p| {
                let n = p.legal_action_count().max(1);
                let k = self.playouts_per_leaf.max(1);
                let mut wdl = [0.0f32; 3];
                let mut margin = 0.0f32;
                for _ in 0..k {
                    let (r, m) = self.playout(p);
                    for i in 0..3 {
                        wdl[i] += r[i] / k as f32;
                    }
                    margin += m / k as f32;
                }
                Evaluation {
                    priors: vec![1.0 / n as f32; n],
                    wdl,
                    margin,
                }
            })
            .collect()
    }
}

/// A player that searches every decision with [`Search`] over any
/// evaluator, bounded by simulations and optionally by time, and reuses its
/// tree across moves (it follows the game through [`Player::observe`]).
pub struct SearchPlayer<S: State, E> {
    name: String,
    evaluator: E,
    config: SearchConfig,
    time: Option<Duration>,
    search: Option<Search<S>>,
    rng: SmallRng,
    last: Option<MoveInfo<S::Action>>,
    /// Leaves evaluated together (see [`SearchPlayer::with_batch`]).
    batch: usize,
}

impl<S: State, E: Evaluator<S> + Send> SearchPlayer<S, E> {
    /// `config` should come from [`SearchConfig::for_play`]; `time` stops
    /// each search early when spent.
    pub fn new(
        name: String,
        evaluator: E,
        config: SearchConfig,
        time: Option<Duration>,
        seed: u64,
    ) -> Self {
        SearchPlayer {
            name,
            evaluator,
            config,
            time,
            search: None,
            rng: SmallRng::seed_from_u64(seed),
            last: None,
            batch: 1,
        }
    }

    /// Gathers `batch` leaves from the tree and evaluates them in one call
    /// ([`Search::next_leaves`], with virtual loss), so that an evaluator
    /// with several threads keeps them all busy on this one game. 1 (the
    /// default) evaluates leaf by leaf.
    pub fn with_batch(mut self, batch: usize) -> Self {
        self.batch = batch.max(1);
        self
    }
}

impl<S: State, E: Evaluator<S> + Send> Player<S> for SearchPlayer<S, E> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, pos: &S) -> S::Action {
        let deadline = self.time.map(|t| Instant::now() + t);
        // Reuse the tree if it already stands at `pos` (it followed the game).
        if !self.search.as_ref().is_some_and(|s| s.position() == pos) {
            let s = Search::new(pos.clone(), self.config.clone(), self.rng.random())
                .expect("a player searches only running games with a valid config");
            self.search = Some(s);
        }
        let search = self.search.as_mut().expect("just set");
        let evaluator = &mut self.evaluator;
        loop {
            if self.batch > 1 {
                let more = search
                    .step_batch(evaluator, self.batch)
                    .expect("evaluators answer with one prior per legal action");
                if !more {
                    break;
                }
            } else {
                match search.next_leaf() {
                    Leaf::Done => break,
                    Leaf::NeedsEval(p) => {
                        let e = evaluator.evaluate(&[p]).pop().expect("one evaluation");
                        search
                            .provide(e)
                            .expect("evaluators answer with one prior per legal action");
                    }
                }
            }
            // Stop early on time, once the root has been judged.
            if deadline.is_some_and(|d| Instant::now() >= d) && search.simulations() > 0 {
                break;
            }
        }
        let result = search.result();
        self.last = Some(MoveInfo {
            value: result.root_value(),
            nodes: Some(result.simulations as u64),
            evaluations: Some(result.evaluations as u64),
            pv: vec![result.action],
            ..MoveInfo::default()
        });
        result.action
    }

    fn info(&self) -> Option<MoveInfo<S::Action>> {
        self.last.clone()
    }

    fn new_game(&mut self, _start: &S) {
        self.search = None;
    }

    fn observe(&mut self, pos_before: &S, action: S::Action) {
        if let Some(s) = &mut self.search {
            if s.position() == pos_before && s.advance(action).is_ok() {
                if s.position().is_over() {
                    self.search = None;
                }
            } else {
                self.search = None;
            }
        }
    }
}
