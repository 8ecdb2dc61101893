//! Grading a grid-game player against the exact solver: how often its
//! decisions keep the game-theoretic value and how often they are
//! optimal (the winner's fastest, the loser's slowest), on positions from
//! the solver's own optimal lines and from the player's games, and how it
//! fares against the solver on either side.
//!
//! The two sides are graded apart because their tasks differ: from the
//! start Player 2 wins, so Player 2's decisions can throw the win away,
//! while Player 1 can only lose sooner than he must. A tally over both
//! would hide one side's weakness behind the other's easy decisions.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use crate::arena::Player;
pub use crate::arena::grade::Tally;
use crate::arena::{PlayError, play_game};
use crate::game::{Color, Game, GameResult, State};
use crate::games::grid::solve::{Solver, Value};
use crate::games::grid::{Action, Grid, Position};
use crate::util::sub_seed;

/// How much to measure.
#[derive(Clone, Debug)]
pub struct GridGradeOptions {
    /// Optimal games (the solver against itself, ties at random) whose
    /// positions the player decides on.
    pub solver_lines: usize,
    /// Games of the player against itself whose decisions are graded.
    pub own_games: usize,
    /// Games against the solver on each side: the player as Player 2
    /// against the solver's Player 1 (who delays as long as he can), and
    /// as Player 1 against the solver's Player 2 (who hurries).
    pub versus_solver: usize,
    /// Positions the solver may search for one question (a decision's
    /// action values, or its move in a game) before the question is left
    /// unanswered: positions where Player 2 has blundered and Player 1
    /// wins late can take it minutes and gigabytes.
    pub solver_nodes: u64,
    pub seed: u64,
}

/// Decisions of both sides in one sample of positions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SideTallies {
    /// Player 1's decisions (Green's steps).
    pub player1: Tally,
    /// Player 2's decisions (Red placements).
    pub player2: Tally,
}

impl SideTallies {
    fn side(&mut self, c: Color) -> &mut Tally {
        match c {
            Color::White => &mut self.player1,
            Color::Black => &mut self.player2,
        }
    }
}

/// Games of the player on one side against the solver on the other.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct VersusSolver {
    pub games: u32,
    pub wins: u32,
    /// Games that ended within the optimal length from the start (the
    /// player as Player 2: won in at most that many moves of Player 1; as
    /// Player 1: lost no sooner than that).
    pub optimal_length: u32,
    /// Moves of Player 1 under optimal play from the start.
    pub optimal_p1_moves: u32,
    /// Moves of Player 1 in each game, in order (so far, in a game left
    /// unresolved).
    pub p1_moves: Vec<u32>,
    /// Games stopped where the solver could not find its move within its
    /// node budget: counted in `games`, never in `wins` (a strayed
    /// Player 2 is where the solver's Player 1 gets slow).
    pub unresolved: u32,
}

/// Everything [`grade`] measured.
#[derive(Clone, Debug, Default, Serialize)]
pub struct GridGradeReport {
    pub solver_lines: SideTallies,
    pub own_games: SideTallies,
    /// The player as Player 2 against the solver's Player 1.
    pub as_player2: VersusSolver,
    /// The player as Player 1 against the solver's Player 2.
    pub as_player1: VersusSolver,
    /// A few decisions that lost value or length, for people to look at.
    pub mistakes: Vec<String>,
}

/// Why grading stopped.
#[derive(Debug, thiserror::Error)]
pub enum GridGradeError {
    #[error(transparent)]
    Play(#[from] PlayError),
    #[error("{0}")]
    Player(String),
}

const MISTAKES_KEPT: usize = 10;

/// Grades `action` chosen in `pos` into `tally`.
fn grade_decision(
    solver: &mut Solver,
    budget: u64,
    pos: &Position,
    action: Action,
    tally: &mut SideTallies,
    mistakes: &mut Vec<String>,
) {
    let me = pos.to_act();
    let Some(values) = solver.try_action_values(pos, budget) else {
        tally.side(me).unsolved += 1;
        return;
    };
    let rank = |v: &Value| v.rank_for(me);
    let best = values
        .iter()
        .map(|(_, v)| rank(v))
        .max()
        .expect("a legal action");
    let truth = values
        .iter()
        .find(|(_, v)| rank(v) == best)
        .map(|(_, v)| v.winner)
        .expect("a best action");
    let chosen = values
        .iter()
        .find(|(a, _)| *a == action)
        .map(|(_, v)| *v)
        .expect("the chosen action is legal");
    let t = tally.side(me);
    t.decisions += 1;
    t.preserving += u64::from(chosen.winner == truth);
    let optimal = rank(&chosen) == best;
    t.optimal += u64::from(optimal);
    if !optimal && mistakes.len() < MISTAKES_KEPT {
        let (a, v) = values.iter().find(|(_, v)| rank(v) == best).unwrap();
        mistakes.push(format!(
            "{pos}\nplayed {action} ({:?} after {} more moves of Player 1) where {a} ({:?} after {}) was there",
            chosen.winner, chosen.p1_moves, v.winner, v.p1_moves
        ));
    }
}

/// Moves of Player 1 in a finished game.
fn p1_moves(start: &Position, actions: &[Action]) -> u32 {
    let mut pos = *start;
    let mut n = 0;
    for &a in actions {
        n += u32::from(pos.to_act() == Color::White);
        pos.play_unchecked(a);
    }
    n
}

/// A game of `player` on `side` against the solver: `result` is `None`
/// where the solver's move needed more than `budget` positions.
struct VersusGame {
    actions: Vec<Action>,
    result: Option<GameResult>,
}

/// Plays `player` on `side` against the solver (the winner's fastest
/// action, the loser's slowest, ties at random) from `start`.
fn versus_solver(
    player: &mut dyn Player<Position>,
    side: Color,
    solver: &mut Solver,
    budget: u64,
    ties: &mut SmallRng,
    start: Position,
) -> Result<VersusGame, GridGradeError> {
    player.new_game(&start);
    let mut pos = start;
    let mut actions = Vec::new();
    while !pos.is_over() {
        let action = if pos.to_act() == side {
            let a = player
                .try_choose(&pos)
                .map_err(|e| GridGradeError::Player(e.to_string()))?;
            if !pos.is_legal(a) {
                return Err(GridGradeError::Player(format!(
                    "`{}` chose the illegal {a} in\n{pos}",
                    player.name()
                )));
            }
            a
        } else {
            let Some(best) = solver.try_best_actions(&pos, budget) else {
                return Ok(VersusGame {
                    actions,
                    result: None,
                });
            };
            best[ties.random_range(0..best.len())].0
        };
        player.observe(&pos, action);
        pos.play_unchecked(action);
        actions.push(action);
    }
    Ok(VersusGame {
        actions,
        result: pos.result(),
    })
}

/// Grades the player that `make_player(seed)` builds against the exact
/// solver of `game`.
pub fn grade(
    game: &Grid,
    make_player: &mut dyn FnMut(u64) -> Result<Box<dyn Player<Position>>, String>,
    opts: &GridGradeOptions,
) -> Result<GridGradeReport, GridGradeError> {
    let mut report = GridGradeReport::default();
    let mut solver = Solver::new(*game);
    let mut rng = SmallRng::seed_from_u64(sub_seed(opts.seed, 0x6e1d));
    let start = game.start();
    let optimal = solver.value(&start);

    // Positions of optimal games: the solver plays both sides, picking at
    // random among its best actions so that the lines differ.
    let mut player = make_player(sub_seed(opts.seed, 0x11e5)).map_err(GridGradeError::Player)?;
    for _ in 0..opts.solver_lines {
        let mut pos = start;
        while !pos.is_over() {
            player.new_game(&pos);
            let action = player
                .try_choose(&pos)
                .map_err(|e| GridGradeError::Player(e.to_string()))?;
            if !pos.is_legal(action) {
                return Err(GridGradeError::Player(format!(
                    "`{}` chose the illegal {action} in\n{pos}",
                    player.name()
                )));
            }
            grade_decision(
                &mut solver,
                opts.solver_nodes,
                &pos,
                action,
                &mut report.solver_lines,
                &mut report.mistakes,
            );
            let best = solver.best_actions(&pos);
            pos.play_unchecked(best[rng.random_range(0..best.len())].0);
        }
    }

    // The player's own games: both sides are the player.
    for g in 0..opts.own_games {
        let mut white =
            make_player(sub_seed(opts.seed, 2 * g as u64)).map_err(GridGradeError::Player)?;
        let mut black =
            make_player(sub_seed(opts.seed, 2 * g as u64 + 1)).map_err(GridGradeError::Player)?;
        let record = play_game(white.as_mut(), black.as_mut(), start)?;
        let mut pos = record.start;
        for &a in &record.actions {
            grade_decision(
                &mut solver,
                opts.solver_nodes,
                &pos,
                a,
                &mut report.own_games,
                &mut report.mistakes,
            );
            pos.play_unchecked(a);
        }
    }

    // Against the solver, on each side.
    for (side, out) in [
        (Color::Black, &mut report.as_player2),
        (Color::White, &mut report.as_player1),
    ] {
        out.optimal_p1_moves = optimal.p1_moves;
        for g in 0..opts.versus_solver {
            let mut me = make_player(sub_seed(opts.seed, 0x5e15_0000 + g as u64))
                .map_err(GridGradeError::Player)?;
            let mut ties = SmallRng::seed_from_u64(sub_seed(opts.seed, 0x5e15_8000 + g as u64));
            let game = versus_solver(
                me.as_mut(),
                side,
                &mut solver,
                opts.solver_nodes,
                &mut ties,
                start,
            )?;
            let moves = p1_moves(&start, &game.actions);
            out.games += 1;
            out.p1_moves.push(moves);
            let Some(result) = game.result else {
                out.unresolved += 1;
                continue;
            };
            let won = result == GameResult::Win(side);
            out.wins += u32::from(won);
            // The winner of the start is Player 2: as Player 2 the player
            // should win that fast, as Player 1 lose that slowly.
            let in_time = if side == Color::Black {
                won && moves <= optimal.p1_moves
            } else {
                won || moves >= optimal.p1_moves
            };
            out.optimal_length += u32::from(in_time);
        }
    }
    Ok(report)
}
