//! An exact solver for the grid game: who wins from a position, and in how
//! many moves of Player 1 when the winner hurries and the loser delays.
//!
//! The game cannot cycle (every ply adds a Red stone), so the value is
//! found by iterative deepening on two bounded questions, each a
//! depth-first AND-OR proof search with a transposition table over
//! positions reduced by the 8 symmetries of the square:
//!
//! - `corners(p, k)`: can Player 2 force Green onto a corner within `k`
//!   more moves of Player 1?
//! - `traps(p, k)`: can Player 1 force Green to be stuck (not on a
//!   corner) at the start of one of his next `k + 1` turns?
//!
//! The smallest `k` at which one of them holds is the min-max length: the
//! winner cannot be faster, the loser cannot be slower.
//!
//! Pruning (each sound, so the values are exact):
//!
//! - *Distance*: Green needs `d` moves to reach a corner `d` steps away,
//!   so `corners(p, k)` is false when `k < d`.
//! - *Horizon*: within `k` more moves of Player 1, Green only steps on
//!   points at most `k` from where it stands, and only the neighbours of
//!   those decide whether it is stuck, so a Red stone farther than
//!   `k + 1` steps changes nothing the question can see. All such
//!   placements of Player 2 lead to the same answer; the search tries one
//!   of them (a "far" stone) and skips the rest.
//! - Player 2's near placements are tried next to Green first, and Player
//!   1's steps away from the nearest corner first: the order changes only
//!   the time, never the answer.
//!
//! Positions off the optimal lines, where Player 2 has blundered and
//! Player 1 wins late, can take the search minutes and gigabytes; the
//! `try_` questions stop at a node budget instead and answer `None`
//! (nothing learnt under a budget that ran out is kept: a question cut
//! short has no answer, so its table entries would be guesses).

use std::collections::HashMap;

use super::game::Grid;
use super::position::{Action, Position};
use crate::game::{Color, Game, GameResult, State};

/// A position's game-theoretic value under min-max length play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Value {
    pub winner: Color,
    /// Moves of Player 1 still to come before the game ends (the last one
    /// onto a corner when Player 2 wins).
    pub p1_moves: u32,
}

impl Value {
    /// Higher is better for `player`: a faster win, then a slower loss.
    pub fn rank_for(self, player: Color) -> i64 {
        if self.winner == player {
            1_000_000 - i64::from(self.p1_moves)
        } else {
            -1_000_000 + i64::from(self.p1_moves)
        }
    }
}

/// What the search knows of one question about one position: false for
/// every bound up to `no`, true from `yes` on.
#[derive(Clone, Copy, Debug)]
struct Known {
    no: i32,
    yes: u32,
}

impl Known {
    /// The answer at bound `k`, if known.
    fn at(self, k: u32) -> Option<bool> {
        if k >= self.yes {
            Some(true)
        } else if k as i32 <= self.no {
            Some(false)
        } else {
            None
        }
    }

    fn learn(&mut self, k: u32, answer: bool) {
        if answer {
            self.yes = self.yes.min(k);
        } else {
            self.no = self.no.max(k as i32);
        }
    }
}

impl Default for Known {
    fn default() -> Self {
        Known {
            no: -1,
            yes: u32::MAX,
        }
    }
}

/// The solver with its transposition tables (kept between questions, so
/// solving a whole line reuses its work).
pub struct Solver {
    grid: Grid,
    corners_tt: HashMap<(u128, u8, bool), Known>,
    traps_tt: HashMap<(u128, u8, bool), Known>,
    /// Positions searched (each question at each bound counts).
    pub nodes: u64,
    /// `nodes` at which the question in hand gives up.
    limit: u64,
    /// The question in hand ran past `limit`: every answer since is void.
    exhausted: bool,
}

/// Table entries past which the tables are emptied before the next
/// question (about 40 bytes each, so some 1.6 GB): a long grading run asks
/// thousands of unrelated questions and would otherwise keep them all.
const MAX_ENTRIES: usize = 40_000_000;

impl Solver {
    pub fn new(grid: Grid) -> Solver {
        Solver {
            grid,
            corners_tt: HashMap::new(),
            traps_tt: HashMap::new(),
            nodes: 0,
            limit: u64::MAX,
            exhausted: false,
        }
    }

    /// Runs `question` with at most `budget` more positions searched:
    /// `None` when it needs more (the tables keep only what was proven
    /// before the budget ran out).
    fn within<T>(&mut self, budget: u64, question: impl FnOnce(&mut Self) -> T) -> Option<T> {
        if self.corners_tt.len() + self.traps_tt.len() > MAX_ENTRIES {
            self.corners_tt.clear();
            self.traps_tt.clear();
        }
        self.limit = self.nodes.saturating_add(budget);
        self.exhausted = false;
        let answer = question(self);
        let done = !self.exhausted;
        self.limit = u64::MAX;
        self.exhausted = false;
        done.then_some(answer)
    }

    /// Counts one searched position; false once the budget is spent.
    fn visit(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes > self.limit {
            self.exhausted = true;
        }
        !self.exhausted
    }

    /// The position's key up to symmetry: the smallest image.
    fn key(&self, p: &Position) -> (u128, u8, bool) {
        let mut best: Option<(u128, u8)> = None;
        for k in 0..8 {
            let t = self.grid.transform(p, k);
            let img = (t.red(), t.green());
            if best.is_none_or(|b| img < b) {
                best = Some(img);
            }
        }
        let (red, green) = best.expect("eight symmetries");
        (red, green, p.to_act() == Color::White)
    }

    fn children(p: &Position) -> Vec<(Action, Position)> {
        p.legal_actions()
            .iter()
            .map(|&a| {
                let mut c = *p;
                c.play_unchecked(a);
                (a, c)
            })
            .collect()
    }

    /// Player 2's placements that matter for a question looking `reach`
    /// steps ahead: the empty points within `reach` of Green, nearest first,
    /// then one farther point standing for all the others.
    fn placements(p: &Position, reach: u32) -> Vec<Action> {
        let g = p.green();
        let mut near: Vec<(u32, u8)> = Vec::new();
        let mut far = None;
        let mut e = p.empty();
        while e != 0 {
            let q = e.trailing_zeros() as u8;
            e &= e - 1;
            let d = p.distance(g, q);
            if d <= reach {
                near.push((d, q));
            } else if far.is_none() {
                far = Some(q);
            }
        }
        near.sort_unstable();
        let mut out: Vec<Action> = near
            .into_iter()
            .map(|(_, q)| Action::Place(p.square(q)))
            .collect();
        if let Some(q) = far {
            out.push(Action::Place(p.square(q)));
        }
        out
    }

    /// Can Player 2 force Green onto a corner within `k` more moves of
    /// Player 1?
    pub fn corners(&mut self, p: &Position, k: u32) -> bool {
        if let Some(r) = p.result() {
            return r == GameResult::Win(Color::Black);
        }
        if k < p.corner_distance(p.green()) {
            return false;
        }
        let key = self.key(p);
        if let Some(known) = self.corners_tt.get(&key).and_then(|e| e.at(k)) {
            return known;
        }
        if !self.visit() {
            return false;
        }
        let answer = match p.to_act() {
            Color::White => {
                // Escapes first: the step that keeps Green farthest from a
                // corner refutes soonest.
                let mut ch = Self::children(p);
                ch.sort_by_key(|(_, c)| std::cmp::Reverse(c.corner_distance(c.green())));
                ch.iter().all(|(_, c)| self.corners(c, k - 1))
            }
            Color::Black => Self::placements(p, k).into_iter().any(|a| {
                let mut c = *p;
                c.play_unchecked(a);
                self.corners(&c, k)
            }),
        };
        if !self.exhausted {
            self.corners_tt.entry(key).or_default().learn(k, answer);
        }
        answer
    }

    /// Can Player 1 force Green to be stuck, not on a corner, at the start
    /// of one of his turns within `k` more moves?
    pub fn traps(&mut self, p: &Position, k: u32) -> bool {
        if let Some(r) = p.result() {
            return r == GameResult::Win(Color::White);
        }
        if p.to_act() == Color::White && k == 0 {
            return false;
        }
        let key = self.key(p);
        if let Some(known) = self.traps_tt.get(&key).and_then(|e| e.at(k)) {
            return known;
        }
        if !self.visit() {
            return false;
        }
        let answer = match p.to_act() {
            Color::White => Self::children(p).iter().any(|(_, c)| self.traps(c, k - 1)),
            Color::Black => {
                // Refutations are usually far from Green: try the far stone
                // first.
                let mut cands = Self::placements(p, k + 1);
                cands.rotate_right(1);
                cands.into_iter().all(|a| {
                    let mut c = *p;
                    c.play_unchecked(a);
                    self.traps(&c, k)
                })
            }
        };
        if !self.exhausted {
            self.traps_tt.entry(key).or_default().learn(k, answer);
        }
        answer
    }

    /// The value of `p` (which must not be over).
    pub fn value(&mut self, p: &Position) -> Value {
        self.value_search(p).expect("no budget")
    }

    /// [`Solver::value`] within `budget` searched positions, or `None`.
    pub fn try_value(&mut self, p: &Position, budget: u64) -> Option<Value> {
        self.within(budget, |s| s.value_search(p)).flatten()
    }

    /// The value, or `None` once the budget of the question in hand is
    /// spent.
    fn value_search(&mut self, p: &Position) -> Option<Value> {
        assert!(!p.is_over(), "the game is over");
        // Every ply fills a point, so the game ends within the empty points.
        let bound = p.empty().count_ones() + 1;
        for k in 0..=bound {
            if self.corners(p, k) {
                return (!self.exhausted).then_some(Value {
                    winner: Color::Black,
                    p1_moves: k,
                });
            }
            if self.traps(p, k) {
                return (!self.exhausted).then_some(Value {
                    winner: Color::White,
                    p1_moves: k,
                });
            }
            if self.exhausted {
                return None;
            }
        }
        unreachable!("the game ends within {bound} moves of Player 1")
    }

    /// Every legal action of `p` with the value it leads to.
    pub fn action_values(&mut self, p: &Position) -> Vec<(Action, Value)> {
        self.action_values_search(p).expect("no budget")
    }

    /// [`Solver::action_values`] within `budget` searched positions (all
    /// actions together), or `None`.
    pub fn try_action_values(&mut self, p: &Position, budget: u64) -> Option<Vec<(Action, Value)>> {
        self.within(budget, |s| s.action_values_search(p)).flatten()
    }

    fn action_values_search(&mut self, p: &Position) -> Option<Vec<(Action, Value)>> {
        let me = p.to_act();
        let mut out = Vec::new();
        for (a, c) in Self::children(p) {
            let v = match c.result() {
                Some(GameResult::Win(w)) => Value {
                    winner: w,
                    p1_moves: 0,
                },
                Some(GameResult::Draw) => unreachable!("the grid game has no draw"),
                None => self.value_search(&c)?,
            };
            // A step of Player 1 is one of the moves still to come.
            let v = if me == Color::White {
                Value {
                    p1_moves: v.p1_moves + 1,
                    ..v
                }
            } else {
                v
            };
            out.push((a, v));
        }
        Some(out)
    }

    /// Whether `winner` can force the end within `k` more moves of
    /// Player 1 from `p`.
    fn wins_within(&mut self, p: &Position, winner: Color, k: u32) -> bool {
        match winner {
            Color::Black => self.corners(p, k),
            Color::White => self.traps(p, k),
        }
    }

    /// The actions of `p` that keep its value: the winner's fastest, the
    /// loser's slowest. Each child is asked one or two bounded questions at
    /// the value's length instead of being solved from scratch.
    pub fn best_actions(&mut self, p: &Position) -> Vec<(Action, Value)> {
        self.best_actions_search(p).expect("no budget")
    }

    /// [`Solver::best_actions`] within `budget` searched positions, or
    /// `None`.
    pub fn try_best_actions(&mut self, p: &Position, budget: u64) -> Option<Vec<(Action, Value)>> {
        self.within(budget, |s| s.best_actions_search(p)).flatten()
    }

    fn best_actions_search(&mut self, p: &Position) -> Option<Vec<(Action, Value)>> {
        let me = p.to_act();
        let v = self.value_search(p)?;
        // Moves of Player 1 left after an action that keeps the value.
        let Some(left) = v.p1_moves.checked_sub(u32::from(me == Color::White)) else {
            unreachable!("Player 1 to act has a move to come")
        };
        let mut out = Vec::new();
        for (a, c) in Self::children(p) {
            let keeps = match c.result() {
                Some(r) => r.winner() == Some(v.winner) && left == 0,
                // The winner's action must still win as fast; the loser's
                // must not lose any faster.
                None if me == v.winner => self.wins_within(&c, v.winner, left),
                None => left == 0 || !self.wins_within(&c, v.winner, left - 1),
            };
            if self.exhausted {
                return None;
            }
            if keeps {
                out.push((a, v));
            }
        }
        debug_assert!(!out.is_empty(), "no action keeps the value of\n{p}");
        Some(out)
    }

    /// An optimal line from `p` to the end. Among equally good actions it
    /// takes Player 2's stone nearest Green (the line then reads like the
    /// official strategy instead of wasting stones far away).
    pub fn line(&mut self, p: &Position) -> Vec<Action> {
        let mut pos = *p;
        let mut out = Vec::new();
        while !pos.is_over() {
            let best = self.best_actions(&pos);
            let (a, _) = *best
                .iter()
                .min_by_key(|(a, _)| match a {
                    Action::Place(s) => {
                        pos.distance(pos.green(), pos.cell(*s).expect("on the board"))
                    }
                    Action::Step(_) => 0,
                })
                .expect("a best action");
            out.push(a);
            pos.play_unchecked(a);
        }
        out
    }
}
