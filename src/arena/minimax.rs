//! The generic `alphabeta` player: minimax with alpha-beta pruning and
//! iterative deepening over any [`State`], judging the positions at its
//! depth limit with the game's own evaluation
//! ([`GamePlayers::evaluation`](super::GamePlayers::evaluation)). Games
//! with a stronger engine of their own (YINSH's, with a transposition
//! table) offer it under the same name instead.
//!
//! Values are from White's view and each node maximises or minimises by
//! who acts there, not by alternation, so a player who makes several
//! decisions in a row (a move, then a removal) is searched correctly.

use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;

use super::player::{MoveInfo, Player};
use crate::game::{Color, Game, GameResult, State};

/// A win; wins sooner score higher by [`PLY_STEP`] per decision.
const WIN: f32 = 1.0;
const PLY_STEP: f32 = 1e-3;
/// The game's evaluation is scaled into `±EVAL_SCALE`, below every proven
/// win or loss.
const EVAL_SCALE: f32 = 0.5;
/// How many nodes pass between looks at the clock.
const CLOCK_EVERY: u64 = 1024;

/// How deep and how long the player searches.
#[derive(Clone, Debug, PartialEq)]
pub struct MinimaxConfig {
    /// Deepest iteration, in decisions.
    pub depth: u32,
    /// Stop deepening once this is spent (the last complete iteration's
    /// choice is played).
    pub time: Option<Duration>,
}

impl Default for MinimaxConfig {
    fn default() -> Self {
        MinimaxConfig {
            depth: 4,
            time: None,
        }
    }
}

/// A static judgement of a state for the player to act, in [-1, 1].
pub type Evaluation<G> = fn(&G, &<G as Game>::State) -> f32;

/// Alpha-beta over game `G`.
pub struct MinimaxPlayer<G: Game> {
    game: G,
    evaluation: Evaluation<G>,
    config: MinimaxConfig,
    name: String,
    rng: SmallRng,
    nodes: u64,
    deadline: Option<Instant>,
    out_of_time: bool,
    last: Option<MoveInfo<<G::State as State>::Action>>,
}

impl<G: Game> MinimaxPlayer<G> {
    /// A player that judges positions at its depth limit with `evaluation`
    /// (a game's [`GamePlayers::evaluation`](super::GamePlayers::evaluation)).
    /// `name` is the spec the player was built from; `seed` orders the root
    /// actions, so equal values are broken differently from game to game.
    pub fn new(
        game: G,
        evaluation: Evaluation<G>,
        config: MinimaxConfig,
        name: String,
        seed: u64,
    ) -> Self {
        MinimaxPlayer {
            game,
            evaluation,
            config,
            name,
            rng: SmallRng::seed_from_u64(seed),
            nodes: 0,
            deadline: None,
            out_of_time: false,
            last: None,
        }
    }

    /// The value of `pos` from White's view, searched `depth` decisions
    /// deep; meaningless once `out_of_time` is set.
    fn value(
        &mut self,
        pos: &G::State,
        depth: u32,
        ply: u32,
        mut alpha: f32,
        mut beta: f32,
    ) -> f32 {
        self.nodes += 1;
        if self.nodes.is_multiple_of(CLOCK_EVERY)
            && self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.out_of_time = true;
        }
        if self.out_of_time {
            return 0.0;
        }
        if let Some(result) = pos.result() {
            return terminal(result, ply);
        }
        if depth == 0 {
            let v = EVAL_SCALE * (self.evaluation)(&self.game, pos).clamp(-1.0, 1.0);
            return white_view(pos.to_act(), v);
        }
        let maximize = pos.to_act() == Color::White;
        let mut best = if maximize {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        };
        for &a in pos.legal_actions().iter() {
            let mut child = pos.clone();
            child.play_unchecked(a);
            let v = self.value(&child, depth - 1, ply + 1, alpha, beta);
            if maximize {
                best = best.max(v);
                alpha = alpha.max(v);
            } else {
                best = best.min(v);
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

fn terminal(result: GameResult, ply: u32) -> f32 {
    let win = WIN - PLY_STEP * ply as f32;
    match result.winner() {
        Some(Color::White) => win,
        Some(Color::Black) => -win,
        None => 0.0,
    }
}

fn white_view(to_act: Color, v: f32) -> f32 {
    if to_act == Color::White { v } else { -v }
}

impl<G: Game> Player<G::State> for MinimaxPlayer<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, pos: &G::State) -> <G::State as State>::Action {
        let started = Instant::now();
        self.deadline = self.config.time.map(|t| started + t);
        self.out_of_time = false;
        self.nodes = 0;
        let me = pos.to_act();
        let mut order: Vec<_> = pos.legal_actions().iter().copied().collect();
        order.shuffle(&mut self.rng);
        let mut best = (order[0], f32::NEG_INFINITY);
        let mut reached = 0;
        for depth in 1..=self.config.depth.max(1) {
            // The previous iteration's choice first: it prunes the most.
            if let Some(i) = order.iter().position(|&a| a == best.0) {
                order[..=i].rotate_right(1);
            }
            let mut this = (order[0], f32::NEG_INFINITY);
            for &a in &order {
                let mut child = pos.clone();
                child.play_unchecked(a);
                // Only actions better than `this` for `me` matter.
                let bound = white_view(me, this.1);
                let (alpha, beta) = if me == Color::White {
                    (bound, f32::INFINITY)
                } else {
                    (f32::NEG_INFINITY, bound)
                };
                let v = white_view(me, self.value(&child, depth - 1, 1, alpha, beta));
                if self.out_of_time {
                    break;
                }
                if v > this.1 {
                    this = (a, v);
                }
            }
            if self.out_of_time {
                break;
            }
            best = this;
            reached = depth;
            // A proven result does not change with depth.
            if best.1.abs() > EVAL_SCALE {
                break;
            }
        }
        self.last = Some(MoveInfo {
            depth: Some(reached),
            nodes: Some(self.nodes),
            value: (reached > 0).then_some(best.1),
            pv: vec![best.0],
            ..MoveInfo::default()
        });
        best.0
    }

    fn info(&self) -> Option<MoveInfo<<G::State as State>::Action>> {
        self.last.clone()
    }
}
