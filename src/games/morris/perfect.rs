//! The `perfect` Morris player: plays from the solved database
//! ([`crate::games::morris::db`]), Nine Men's Morris's placing phase by the
//! database's exact search down to the solved moving phase
//! ([`crate::games::morris::placing`]). Where neither answers (a layer not
//! solved, or the search over its budget) it searches with alpha-beta,
//! judging the leaves it reaches by the database's files and the others by
//! the game's evaluation.

use std::sync::Arc;

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;

use crate::arena::GamePlayers;
use crate::arena::{MoveInfo, Player};
use crate::game::{Color, GameResult, State};
use crate::games::morris::db::{Database, DbError, Outcome, Value};
use crate::games::morris::{Action, Morris, Position};

/// A proven result outranks every evaluation; sooner wins rank higher.
const WIN: f32 = 1.0;
const PLY_STEP: f32 = 1e-3;
const EVAL_SCALE: f32 = 0.5;

/// Looks moves up; among equally valued ones prefers the fastest win and
/// the slowest loss, ties broken by its seeded generator.
pub struct PerfectPlayer {
    db: Arc<Database>,
    game: Morris,
    depth: u32,
    name: String,
    rng: SmallRng,
    nodes: u64,
    last: Option<MoveInfo<Action>>,
    warned: bool,
}

impl PerfectPlayer {
    /// A player over `db`, searching `depth` decisions where the database
    /// has no answer.
    pub fn new(db: Arc<Database>, depth: u32, name: String, seed: u64) -> PerfectPlayer {
        PerfectPlayer {
            game: Morris::new(db.variant()),
            db,
            depth: depth.max(1),
            name,
            rng: SmallRng::seed_from_u64(seed),
            nodes: 0,
            last: None,
            warned: false,
        }
    }

    fn warn(&mut self, e: &DbError) {
        if !self.warned {
            eprintln!("perfect: {e}; searching instead");
            self.warned = true;
        }
    }

    /// A database value as a score for the player to act, `ply` decisions
    /// below the root.
    fn score(v: Value, ply: u32) -> f32 {
        let at = PLY_STEP * (ply + u32::from(v.plies)) as f32;
        match v.outcome {
            Outcome::Win => WIN - at,
            Outcome::Loss => -(WIN - at),
            Outcome::Draw => 0.0,
        }
    }

    /// The value of `pos` from White's view.
    fn search(
        &mut self,
        pos: &Position,
        depth: u32,
        ply: u32,
        mut alpha: f32,
        mut beta: f32,
    ) -> f32 {
        self.nodes += 1;
        if let Some(result) = pos.result() {
            let win = WIN - PLY_STEP * ply as f32;
            return match result {
                GameResult::Win(Color::White) => win,
                GameResult::Win(Color::Black) => -win,
                _ => 0.0,
            };
        }
        let view = |v: f32| if pos.to_act() == Color::White { v } else { -v };
        // Files only: a placing-phase search at every node of this search
        // would cost its whole budget again and again.
        match self.db.stored_value(pos) {
            Ok(v) => return view(Self::score(v, ply)),
            Err(e) if e.is_not_solved() => {}
            Err(e) => self.warn(&e),
        }
        if depth == 0 {
            let e = <Morris as GamePlayers>::evaluation(&self.game, pos).clamp(-1.0, 1.0);
            return view(EVAL_SCALE * e);
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
            let v = self.search(&child, depth - 1, ply + 1, alpha, beta);
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

impl Player<Position> for PerfectPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, pos: &Position) -> Action {
        self.nodes = 0;
        match self.db.action_values(pos) {
            Ok(values) => {
                let best = values
                    .iter()
                    .map(|(_, v)| v.rank())
                    .max()
                    .expect("a legal action");
                let mut top: Vec<(Action, Value)> = values
                    .into_iter()
                    .filter(|(_, v)| v.rank() == best)
                    .collect();
                top.shuffle(&mut self.rng);
                let (a, v) = top[0];
                self.last = Some(MoveInfo {
                    value: Some(match v.outcome {
                        Outcome::Win => 1.0,
                        Outcome::Draw => 0.0,
                        Outcome::Loss => -1.0,
                    }),
                    depth: Some(u32::from(v.plies)),
                    pv: vec![a],
                    ..MoveInfo::default()
                });
                return a;
            }
            Err(e) if e.is_not_solved() => {}
            Err(e) => self.warn(&e),
        }
        let me = pos.to_act();
        let mut order: Vec<Action> = pos.legal_actions().iter().copied().collect();
        order.shuffle(&mut self.rng);
        let mut best = (order[0], f32::NEG_INFINITY);
        for &a in &order {
            let mut child = pos.clone();
            child.play_unchecked(a);
            let bound = if me == Color::White { best.1 } else { -best.1 };
            let (alpha, beta) = if me == Color::White {
                (bound, f32::INFINITY)
            } else {
                (f32::NEG_INFINITY, bound)
            };
            let v = self.search(&child, self.depth - 1, 1, alpha, beta);
            let v = if me == Color::White { v } else { -v };
            if v > best.1 {
                best = (a, v);
            }
        }
        self.last = Some(MoveInfo {
            value: Some(best.1.clamp(-1.0, 1.0)),
            depth: Some(self.depth),
            nodes: Some(self.nodes),
            pv: vec![best.0],
            ..MoveInfo::default()
        });
        best.0
    }

    fn info(&self) -> Option<MoveInfo<Action>> {
        self.last.clone()
    }
}
