//! Connect Four's own player, `perfect` (exact play from the solver), its
//! judgement for the generic `alphabeta`, and its grader.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use std::path::{Path, PathBuf};

use super::bitboard;
use super::book::{Book, DEFAULT_BOOK};
use super::solve::{DEFAULT_TABLE_BITS, Score, Solver};
use super::{Column, Connect4, Position};
use crate::arena::{GamePlayers, Grading, MoveInfo, Player, PlayerInfo, PlayerSpec};
use crate::arena::{PlayerSpecError, parse_num};

const CONNECT4_PLAYERS: &[PlayerInfo] = &[PlayerInfo {
    name: "perfect",
    keys: &[
        (
            "tt",
            "the solver's table, in bits of entries of 8 bytes (default 22: 32 MiB; 16 to 28)",
        ),
        (
            "book",
            "the opening book written by `connect4-book` (default data/connect4/book.bin, \
             when there is one)",
        ),
    ],
    about: "exact play from the solver: the fastest win, else a draw, else the slowest loss \
            (ties at random); its first moves from the empty board take minutes where the \
            opening book does not answer them",
}];

/// Plays what the exact solver says: a random one of the columns with the
/// best score.
pub struct PerfectPlayer {
    name: String,
    /// Made at the first decision: a server keeps many games whose
    /// engines may never think.
    solver: Option<Solver>,
    bits: u32,
    /// Handed to the solver when it is made.
    book: Option<Book>,
    rng: SmallRng,
    /// The last decision's score, column and search nodes.
    last: Option<(Score, Column, u64)>,
}

impl PerfectPlayer {
    /// A player with a solver table of `2^tt_bits` entries, its ties broken
    /// by `seed`.
    pub fn new(name: String, tt_bits: u32, seed: u64) -> PerfectPlayer {
        PerfectPlayer {
            name,
            solver: None,
            bits: tt_bits,
            book: None,
            rng: SmallRng::seed_from_u64(seed),
            last: None,
        }
    }
}

impl PerfectPlayer {
    /// The player answering from `book` first (and adding to it, in
    /// memory, what costs its solver long).
    pub fn with_book(mut self, book: Book) -> PerfectPlayer {
        self.book = Some(book);
        self
    }
}

impl Player<Position> for PerfectPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, pos: &Position) -> Column {
        let (bits, book) = (self.bits, &mut self.book);
        let solver = self.solver.get_or_insert_with(|| {
            let s = Solver::new(bits);
            match book.take() {
                Some(b) => s.with_book(b),
                None => s,
            }
        });
        let before = solver.nodes;
        let (score, best) = solver.best_columns(pos);
        let nodes = solver.nodes - before;
        let c = best[self.rng.random_range(0..best.len())];
        self.last = Some((score, c, nodes));
        c
    }

    /// The score of the position (Pons's units), the column played and the
    /// positions its solve searched.
    fn info(&self) -> Option<MoveInfo<Column>> {
        let (score, c, nodes) = self.last?;
        Some(MoveInfo {
            value: Some(score.get().signum() as f32),
            score: Some(score.get()),
            depth: None,
            nodes: Some(nodes),
            evaluations: None,
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
                let player = PerfectPlayer::new(spec.to_string(), bits, seed);
                let path = spec.get("book").map(PathBuf::from);
                let book = match &path {
                    Some(p) => Some(Book::load(p)),
                    None => {
                        let p = Path::new(DEFAULT_BOOK);
                        p.exists().then(|| Book::load(p))
                    }
                };
                Ok(Box::new(match book {
                    None => player,
                    Some(Ok(b)) => player.with_book(b),
                    Some(Err(e)) => {
                        return Err(PlayerSpecError::BadValue {
                            player: spec.name.clone(),
                            key: "book".into(),
                            value: e.path.display().to_string(),
                            why: e.why,
                        });
                    }
                }))
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
