//! Connect Four's own player, `perfect` (exact play from the solver), its
//! judgement for the generic `alphabeta`, and its grader.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::bitboard;
use super::solve::{DEFAULT_TABLE_BITS, Score, Solver};
use super::{Column, Connect4, Position};
use crate::arena::{GamePlayers, Grading, MoveInfo, Player, PlayerInfo, PlayerSpec};
use crate::arena::{PlayerSpecError, parse_num};

const CONNECT4_PLAYERS: &[PlayerInfo] = &[PlayerInfo {
    name: "perfect",
    keys: &[(
        "tt",
        "the solver's table, in bits of entries of 8 bytes (default 22: 32 MiB; 16 to 28)",
    )],
    about: "exact play from the solver: the fastest win, else a draw, else the slowest loss \
            (ties at random); its first moves from the empty board take minutes",
}];

/// Plays what the exact solver says: a random one of the columns with the
/// best score.
pub struct PerfectPlayer {
    name: String,
    /// Made at the first decision: a server keeps many games whose
    /// engines may never think.
    solver: Option<Solver>,
    bits: u32,
    rng: SmallRng,
    last: Option<(Score, Column)>,
}

impl PerfectPlayer {
    /// A player with a solver table of `2^tt_bits` entries, its ties broken
    /// by `seed`.
    pub fn new(name: String, tt_bits: u32, seed: u64) -> PerfectPlayer {
        PerfectPlayer {
            name,
            solver: None,
            bits: tt_bits,
            rng: SmallRng::seed_from_u64(seed),
            last: None,
        }
    }
}

impl Player<Position> for PerfectPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, pos: &Position) -> Column {
        let bits = self.bits;
        let solver = self.solver.get_or_insert_with(|| Solver::new(bits));
        let (score, best) = solver.best_columns(pos);
        let c = best[self.rng.random_range(0..best.len())];
        self.last = Some((score, c));
        c
    }

    /// The score of the position (Pons's units) and the column played.
    fn info(&self) -> Option<MoveInfo<Column>> {
        let (score, c) = self.last?;
        Some(MoveInfo {
            value: Some(score.get().signum() as f32),
            score: Some(score.get()),
            depth: None,
            nodes: self.solver.as_ref().map(|s| s.nodes),
            pv: vec![c],
        })
    }
}

impl GamePlayers for Connect4 {
    /// Graded against the exact solver: on the test set of
    /// `data/connect4/testset/`, the player's own games and games against
    /// `perfect`.
    fn grading() -> Option<Grading<Self>> {
        Some(Grading {
            variant: "standard",
            grade: super::commands::grade,
        })
    }

    fn own_players() -> &'static [PlayerInfo] {
        CONNECT4_PLAYERS
    }

    fn build_own(
        &self,
        spec: &PlayerSpec,
        seed: u64,
    ) -> Result<Box<dyn Player<Position>>, PlayerSpecError> {
        match spec.name.as_str() {
            "perfect" => {
                let bits = match spec.get("tt") {
                    Some(v) => parse_num(spec, "tt", v, 16, 28)? as u32,
                    None => DEFAULT_TABLE_BITS,
                };
                Ok(Box::new(PerfectPlayer::new(spec.to_string(), bits, seed)))
            }
            other => unreachable!("CONNECT4_PLAYERS lists `{other}` but nothing builds it"),
        }
    }

    /// Threats: the empty cells where a stone would make four, the player
    /// to act's less the opponent's, those that can be taken at once
    /// counting double, and a little for stones in the centre column. A
    /// won position for the player to act (a threat it can take now) is
    /// near 1.
    fn evaluation(&self, state: &Position) -> f32 {
        if state.can_win_next() {
            return 0.95;
        }
        let playable = state.playable();
        let mine = state.winning_cells();
        let theirs = state.opponent_winning_cells();
        let count = |cells: u64| (cells.count_ones() + (cells & playable).count_ones()) as f32;
        let centre = bitboard::column(3);
        let own = state.current();
        let opp = state.current() ^ state.mask();
        let centre_diff = (own & centre).count_ones() as f32 - (opp & centre).count_ones() as f32;
        ((count(mine) - count(theirs)) / 8.0 + centre_diff / 24.0).clamp(-0.9, 0.9)
    }
}
