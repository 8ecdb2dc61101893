//! The grid game's own player, `solver` (exact play from the solver), and
//! its judgement for the generic `alphabeta`.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::arena::{GamePlayers, PlayerInfo, PlayerSpec, PlayerSpecError};
use crate::arena::{Grading, Player};
use crate::game::{Color, State};
use crate::games::grid::solve::Solver;
use crate::games::grid::{Action, Grid, Position};

const GRID_PLAYERS: &[PlayerInfo] = &[PlayerInfo {
    name: "solver",
    keys: &[],
    about: "exact play: the winner's fastest line, the loser's slowest (ties at random)",
}];

/// Plays what the exact solver says: the fastest win or the slowest loss.
pub struct SolverPlayer {
    solver: Solver,
    rng: SmallRng,
}

impl SolverPlayer {
    pub fn new(grid: Grid, seed: u64) -> SolverPlayer {
        SolverPlayer {
            solver: Solver::new(grid),
            rng: SmallRng::seed_from_u64(seed),
        }
    }
}

impl Player<Position> for SolverPlayer {
    fn name(&self) -> String {
        "solver".into()
    }

    fn choose(&mut self, pos: &Position) -> Action {
        let best = self.solver.best_actions(pos);
        best[self.rng.random_range(0..best.len())].0
    }
}

impl GamePlayers for Grid {
    /// Graded against the exact solver, on the problem's 9x9 board by
    /// default.
    fn grading() -> Option<Grading<Self>> {
        Some(Grading {
            variant: "9x9",
            grade: super::commands::grade,
        })
    }

    fn own_players() -> &'static [PlayerInfo] {
        GRID_PLAYERS
    }

    fn build_own(
        &self,
        spec: &PlayerSpec,
        seed: u64,
    ) -> Result<Box<dyn Player<Position>>, PlayerSpecError> {
        match spec.name.as_str() {
            "solver" => Ok(Box::new(SolverPlayer::new(*self, seed))),
            other => unreachable!("GRID_PLAYERS lists `{other}` but nothing builds it"),
        }
    }

    /// Green's distance from the nearest corner, and its free neighbours:
    /// Player 1 wants both large, Player 2 small.
    fn evaluation(&self, state: &Position) -> f32 {
        let m = f32::from(self.side - 1);
        let far = state.corner_distance(state.green()) as f32 / m;
        let free = state.free_neighbours() as f32 / 4.0;
        let p1 = (0.8 * far + 0.2 * free) * 2.0 - 1.0;
        if state.to_act() == Color::White {
            p1
        } else {
            -p1
        }
    }
}
