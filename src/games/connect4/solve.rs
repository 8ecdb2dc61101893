//! An exact Connect Four solver: the score of a position under perfect
//! play, after Pascal Pons's tutorial
//! (<http://blog.gamesolver.org/solving-connect-four/>).
//!
//! # The score
//!
//! Pons's convention, which his test sets use (`<moves> <score>` per line):
//!
//! - 0: a draw;
//! - positive: the player to act wins, and the sooner the larger: a win
//!   with the player's own `k`-th stone (counting every stone of that
//!   player on the board at the end) scores `22 - k`. A win by the next
//!   stone of the player to act, with `n` stones on the board, scores
//!   `(WIDTH * HEIGHT + 1 - n) / 2 = (43 - n) / 2`;
//! - negative: the opponent wins, the score being minus the opponent's
//!   score: the later the loss, the nearer 0.
//!
//! The empty board scores +1: White (first) wins with its 21st stone, the
//! 41st of the game, and only by starting in the centre column.
//!
//! # The search
//!
//! Negamax with alpha-beta on the bitboard (the position is two `u64`s,
//! [`super::bitboard`]), because it is the fastest known exact method for
//! a game this size:
//!
//! - moves that let the opponent win at once are never searched (a forced
//!   block is the only move; two threats to block lose now), so no search
//!   node can win in one;
//! - moves are tried by how many winning cells they create (threats), the
//!   centre first among equals: a good first move cuts the most;
//! - a transposition table keeps an upper or a lower bound per position
//!   (fail-low or fail-high), a position and its mirror image sharing one
//!   entry;
//! - the exact score is found by null-window searches (`is the score above
//!   m?`), narrowing `[min, max]` around 0 first and then by halves: a
//!   null window prunes far more than a wide one.
//!
//! Search nodes are counted, and the `try_` questions stop at a node budget
//! and answer `None` (what the table learnt before stopping is exact and
//! kept; nothing from the cut-short subtree is stored).
//!
//! ```
//! use yinsh_zero::games::connect4::Position;
//! use yinsh_zero::games::connect4::solve::{Outcome, Solver};
//!
//! let mut solver = Solver::new(16);
//! // White to act has three in the bottom row and wins with its 4th stone.
//! let p = Position::from_moves("121213").unwrap();
//! let s = solver.solve(&p);
//! assert_eq!(s.get(), 18);
//! assert_eq!(s.outcome(), Outcome::Win);
//! assert_eq!(s.plies_left(p.moves()), 1);
//! ```

use std::fmt;

use super::bitboard::{self, CELLS, WIDTH};
use super::book::Book;
use super::position::{Column, Position};
use crate::game::{Color, State};

/// The lowest score a position searched by [`Solver::negamax`] can have:
/// the opponent cannot win at once there, so it wins with its 4th stone at
/// the earliest.
const MIN_SCORE: i32 = -(CELLS as i32) / 2 + 3;
/// The highest: the player to act cannot win at once there.
const MAX_SCORE: i32 = (CELLS as i32 + 1) / 2 - 3;
/// Stones a full board holds, as a score computation wants them.
const N: i32 = CELLS as i32;

/// Columns from the centre outwards: the order moves of equal promise are
/// tried in.
const ORDER: [usize; WIDTH] = [3, 2, 4, 1, 5, 0, 6];

/// The most stones of a position whose exact score the solver adds to its
/// book: past it, answers take microseconds and the book would only grow.
pub const LEARN_STONES: usize = 16;
/// The fewest search nodes an answer must have cost to be added to the
/// book (about a tenth of a second).
pub const LEARN_NODES: u64 = 1_000_000;

/// The table size, in bits of entries, when none is asked for: 2^22
/// entries of 8 bytes, 32 MiB.
pub const DEFAULT_TABLE_BITS: u32 = 22;

/// A position's value under perfect play for the player to act, in Pons's
/// convention (see the [module docs](self)): 0 a draw, `22 - k` a win with
/// the player's own `k`-th stone, `-(22 - k)` a loss to the opponent's
/// `k`-th stone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Score(i8);

/// Win, draw or loss for the player to act.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Loss,
    Draw,
    Win,
}

impl Outcome {
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Draw => "draw",
            Outcome::Loss => "loss",
        }
    }
}

impl Score {
    /// A draw.
    pub const DRAW: Score = Score(0);

    /// The score `value`, which must be a possible one (-21 to 21).
    pub fn new(value: i32) -> Option<Score> {
        (-21..=21).contains(&value).then_some(Score(value as i8))
    }

    pub const fn get(self) -> i32 {
        self.0 as i32
    }

    /// The score of the position before a move that gave the opponent
    /// `self`.
    pub const fn negated(self) -> Score {
        Score(-self.0)
    }

    pub fn outcome(self) -> Outcome {
        match self.0 {
            0 => Outcome::Draw,
            s if s > 0 => Outcome::Win,
            _ => Outcome::Loss,
        }
    }

    /// Whether a position with `moves` stones can score `self`: no sooner
    /// than a win with the next stone, no sooner than a loss to the
    /// opponent's next.
    pub const fn fits(self, moves: usize) -> bool {
        let (lo, hi) = Score::range(moves);
        lo <= self.0 && self.0 <= hi
    }

    /// The lowest and highest score a position with `moves` stones can
    /// have: a loss to the opponent's next stone, a win with its own.
    pub const fn range(moves: usize) -> (i8, i8) {
        let n = moves as i32;
        ((-(N - n) / 2) as i8, ((N + 1 - n) / 2) as i8)
    }

    /// The score of a win with the next stone, `moves` stones being on the
    /// board.
    pub const fn win_now(moves: usize) -> Score {
        Score(((N + 1 - moves as i32) / 2) as i8)
    }

    /// Stones the game will have at its end under perfect play from a
    /// position with `moves` stones, less `moves`: the plies left.
    pub fn plies_left(self, moves: usize) -> usize {
        if self.0 == 0 {
            return CELLS - moves;
        }
        // The winner's stones at the end, and whether the winner is White
        // (who places stones number 1, 3, 5, ...).
        let k = (22 - i32::from(self.0).abs()) as usize;
        let white_to_act = moves.is_multiple_of(2);
        let winner_white = (self.0 > 0) == white_to_act;
        let end = if winner_white { 2 * k - 1 } else { 2 * k };
        end.saturating_sub(moves)
    }

    /// Decisions of the player to act from a position with `moves` stones
    /// until the end (the winning stone included when it wins); for a
    /// draw, until the board is full.
    pub fn own_moves_left(self, moves: usize) -> usize {
        self.plies_left(moves).div_ceil(2)
    }
}

/// `21st`, `2nd`, `13th`.
fn ordinal(n: i32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

impl Score {
    /// The score in words for `pos`, whose score it is: `White (to act)
    /// wins with its 20th stone, in 17 of its moves (33 plies left)`.
    pub fn describe(self, pos: &Position) -> String {
        let name = |c: Color| match c {
            Color::White => "White",
            Color::Black => "Black",
        };
        let me = pos.to_act();
        let n = pos.moves();
        let own = self.own_moves_left(n);
        let plies = match self.plies_left(n) {
            1 => "1 ply".to_string(),
            p => format!("{p} plies"),
        };
        match self.get() {
            0 => format!("a draw ({plies} to a full board)"),
            s if s > 0 => format!(
                "{} (to act) wins with its {} stone, in {own} of its moves ({plies} left)",
                name(me),
                ordinal(22 - s)
            ),
            s => format!(
                "{} (to act) loses to {}'s {} stone, after {own} of its moves ({plies} left)",
                name(me),
                name(!me),
                ordinal(22 + s)
            ),
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The moves of the player to act that do not let the opponent win at
/// once: where the opponent has a threat it could take next, the move
/// must block it (two such threats: none is safe), and no move may fill
/// the cell below an opponent threat. Meant for positions where the player
/// to act cannot win at once.
fn non_losing_moves(p: &Position) -> u64 {
    let mut possible = p.playable();
    let threats = p.opponent_winning_cells();
    let forced = possible & threats;
    if forced != 0 {
        if forced & (forced - 1) != 0 {
            return 0;
        }
        possible = forced;
    }
    possible & !(threats >> 1)
}

/// How promising a move is: the winning cells it leaves its player.
fn move_score(p: &Position, bit: u64) -> u32 {
    bitboard::winning_cells(p.current() | bit, p.mask() | bit).count_ones()
}

/// The transposition table: one `u64` per slot, the position's code in
/// the low 56 bits and its bound in the top byte (0: empty). A code is
/// exact (49 bits), so a slot never answers for another position.
struct Table {
    slots: Vec<u64>,
    shift: u32,
}

const CODE_BITS: u64 = (1 << 56) - 1;

impl Table {
    fn new(bits: u32) -> Table {
        assert!((1..=32).contains(&bits), "table bits {bits}");
        Table {
            slots: vec![0; 1 << bits],
            shift: 64 - bits,
        }
    }

    fn slot(&self, code: u64) -> usize {
        (code.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    fn put(&mut self, code: u64, value: u8) {
        let i = self.slot(code);
        self.slots[i] = code | u64::from(value) << 56;
    }

    /// The stored bound, 0 for none.
    fn get(&self, code: u64) -> i32 {
        let e = self.slots[self.slot(code)];
        if e & CODE_BITS == code {
            (e >> 56) as i32
        } else {
            0
        }
    }
}

/// The solver: its table, which it keeps between questions (every entry
/// stays true), its opening book if it has one, and its count of search
/// nodes.
pub struct Solver {
    table: Table,
    /// Exact scores looked up before searching; what costs the solver
    /// long is added to it (see [`Solver::with_book`]).
    book: Option<Book>,
    /// Search nodes visited since the solver was made.
    pub nodes: u64,
    /// The node count at which the current question gives up.
    limit: u64,
    stopped: bool,
}

impl Solver {
    /// A solver with a table of `2^bits` entries (8 bytes each; 22 is
    /// 32 MiB, 24 is 128 MiB). A larger table helps early positions most.
    pub fn new(bits: u32) -> Solver {
        Solver {
            table: Table::new(bits),
            book: None,
            nodes: 0,
            limit: u64::MAX,
            stopped: false,
        }
    }

    /// The solver with an opening book: every position the book holds is
    /// answered from it, at the root and inside the search; and every
    /// exact score that cost at least [`LEARN_NODES`] nodes, of a
    /// position with at most [`LEARN_STONES`] stones, is added to it (in
    /// memory: [`Solver::book`] gives it back to be saved).
    pub fn with_book(mut self, book: Book) -> Solver {
        self.book = Some(book);
        self
    }

    /// The opening book, with what the solver has added to it.
    pub fn book(&self) -> Option<&Book> {
        self.book.as_ref()
    }

    /// The opening book, to merge others' entries into (see
    /// [`Book::sync`]).
    pub fn book_mut(&mut self) -> Option<&mut Book> {
        self.book.as_mut()
    }

    /// Adds `p`'s exact `score` to the book, if the solver has one.
    pub fn learn(&mut self, p: &Position, score: Score) {
        if let Some(book) = &mut self.book {
            book.insert(p, score);
        }
    }

    /// [`Book::get`] checks the stones first, so deep in the search this
    /// costs two comparisons.
    fn book_score(&self, p: &Position) -> Option<Score> {
        self.book.as_ref()?.get(p)
    }

    /// Forgets everything the table holds (to time one question alone).
    pub fn clear(&mut self) {
        self.table.slots.fill(0);
    }

    /// The exact score of `p`, which must not be over.
    pub fn solve(&mut self, p: &Position) -> Score {
        self.try_solve(p, u64::MAX).expect("no node budget")
    }

    /// Only whether `p` is won, drawn or lost (the score's sign: a win
    /// scores 1, a loss -1): faster than [`Solver::solve`].
    pub fn outcome(&mut self, p: &Position) -> Outcome {
        self.within(u64::MAX, |s| s.search(p, true))
            .expect("no node budget")
            .outcome()
    }

    /// [`Solver::solve`] within `budget` search nodes, `None` past it.
    pub fn try_solve(&mut self, p: &Position, budget: u64) -> Option<Score> {
        let start = self.nodes;
        let score = self.within(budget, |s| s.search(p, false))?;
        if self.nodes - start >= LEARN_NODES && p.moves() <= LEARN_STONES {
            self.learn(p, score);
        }
        Some(score)
    }

    /// [`Solver::outcome`] within `budget` search nodes, `None` past it.
    pub fn try_outcome(&mut self, p: &Position, budget: u64) -> Option<Outcome> {
        self.within(budget, |s| s.search(p, true))
            .map(Score::outcome)
    }

    /// Whether the score of `p` is at most `bound`: one null-window search,
    /// cheaper than the exact score. `None` past `budget` nodes.
    pub fn try_at_most(&mut self, p: &Position, bound: i32, budget: u64) -> Option<bool> {
        assert_over_not(p);
        let n = p.moves() as i32;
        if p.can_win_next() {
            return Some(Score::win_now(p.moves()).get() <= bound);
        }
        if bound >= (N - 1 - n) / 2 {
            return Some(true);
        }
        if bound < -(N - n) / 2 {
            return Some(false);
        }
        if let Some(s) = self.book_score(p) {
            return Some(s.get() <= bound);
        }
        let r = self.within(budget, |s| {
            let r = s.negamax(p, bound, bound + 1);
            Score::new(r)
        })?;
        Some(r.get() <= bound)
    }

    /// The score of every column for the player to act (`None` for a full
    /// column): what playing there is worth.
    pub fn column_scores(&mut self, p: &Position) -> [Option<Score>; WIDTH] {
        self.try_column_scores(p, u64::MAX).expect("no node budget")
    }

    /// [`Solver::column_scores`] within `budget` nodes in all.
    pub fn try_column_scores(
        &mut self,
        p: &Position,
        budget: u64,
    ) -> Option<[Option<Score>; WIDTH]> {
        assert_over_not(p);
        let start = self.nodes;
        let mut out = [None; WIDTH];
        for c in Column::ALL {
            if !p.has_room(c) {
                continue;
            }
            let left = budget.saturating_sub(self.nodes - start);
            out[c.index()] = Some(self.try_column_score(p, c, left)?);
        }
        Some(out)
    }

    /// What playing `c` in `p` is worth to the player to act.
    pub fn try_column_score(&mut self, p: &Position, c: Column, budget: u64) -> Option<Score> {
        if p.wins_with(c) {
            return Some(Score::win_now(p.moves()));
        }
        let mut child = *p;
        child.drop(c);
        if child.moves() == CELLS {
            return Some(Score::DRAW);
        }
        Some(self.try_solve(&child, budget)?.negated())
    }

    /// The best columns for the player to act and their score: the
    /// fastest win, else a draw, else the slowest loss.
    pub fn best_columns(&mut self, p: &Position) -> (Score, Vec<Column>) {
        self.try_best_columns(p, u64::MAX).expect("no node budget")
    }

    /// [`Solver::best_columns`] within `budget` nodes in all: the score
    /// first, then a null-window check per column (does it keep the
    /// score?), cheaper than every column's exact score.
    pub fn try_best_columns(&mut self, p: &Position, budget: u64) -> Option<(Score, Vec<Column>)> {
        let start = self.nodes;
        let left = |s: &Solver| budget.saturating_sub(s.nodes - start);
        let score = self.try_solve(p, budget)?;
        let mut best = Vec::new();
        for c in Column::ALL {
            if !p.has_room(c) {
                continue;
            }
            let keeps = if p.wins_with(c) {
                Score::win_now(p.moves()) == score
            } else {
                let mut child = *p;
                child.drop(c);
                if child.moves() == CELLS {
                    score == Score::DRAW
                } else {
                    // The column is worth -child's score: it keeps `score`
                    // when the child's is at most -score.
                    let b = left(self);
                    self.try_at_most(&child, -score.get(), b)?
                }
            };
            if keeps {
                best.push(c);
            }
        }
        Some((score, best))
    }

    /// Runs `f` with the node budget `budget`; `None` if it ran out.
    fn within(
        &mut self,
        budget: u64,
        f: impl FnOnce(&mut Solver) -> Option<Score>,
    ) -> Option<Score> {
        self.limit = self.nodes.saturating_add(budget);
        self.stopped = false;
        let r = f(self);
        let stopped = self.stopped;
        self.limit = u64::MAX;
        self.stopped = false;
        if stopped { None } else { r }
    }

    /// The score of `p` (or its sign only, `weak`) by null-window searches
    /// narrowing `[min, max]`.
    fn search(&mut self, p: &Position, weak: bool) -> Option<Score> {
        assert_over_not(p);
        let n = p.moves() as i32;
        if p.can_win_next() {
            let s = Score::win_now(p.moves());
            return Some(if weak { Score(1) } else { s });
        }
        if let Some(s) = self.book_score(p) {
            return Some(if weak { Score(s.0.signum()) } else { s });
        }
        let (mut min, mut max) = if weak {
            (-1, 1)
        } else {
            (-(N - n) / 2, (N + 1 - n) / 2)
        };
        while min < max {
            // Try 0 first, then halfway towards the ends: most positions
            // are near a draw, and searches near 0 are cheap.
            let mut med = min + (max - min) / 2;
            if med <= 0 && min / 2 < med {
                med = min / 2;
            } else if med >= 0 && max / 2 > med {
                med = max / 2;
            }
            let r = self.negamax(p, med, med + 1);
            if self.stopped {
                return None;
            }
            if r <= med {
                max = r;
            } else {
                min = r;
            }
        }
        Score::new(min)
    }

    /// The score of `p` if it lies in `(alpha, beta)`; else a bound on
    /// the side it falls (at most `alpha`, or at least `beta`). The player
    /// to act must not be able to win at once.
    fn negamax(&mut self, p: &Position, mut alpha: i32, mut beta: i32) -> i32 {
        debug_assert!(alpha < beta);
        debug_assert!(!p.can_win_next());
        self.nodes += 1;
        if self.nodes > self.limit {
            self.stopped = true;
            return 0;
        }
        // An exact score answers any window.
        if let Some(s) = self.book_score(p) {
            return s.get();
        }
        let next = non_losing_moves(p);
        let n = p.moves() as i32;
        if next == 0 {
            // Whatever the player does, the opponent wins with its next
            // stone.
            return -(N - n) / 2;
        }
        if n >= N - 2 {
            // Neither can win in the last two stones.
            return 0;
        }
        // The opponent cannot win with its next stone, nor this player
        // with this one.
        let min = -(N - 2 - n) / 2;
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return alpha;
            }
        }
        let max = (N - 1 - n) / 2;
        if beta > max {
            beta = max;
            if alpha >= beta {
                return beta;
            }
        }
        // A position and its mirror image have the same score: one entry
        // serves both.
        let code = p.mirror_code();
        let stored = self.table.get(code);
        if stored > MAX_SCORE - MIN_SCORE + 1 {
            let lower = stored + 2 * MIN_SCORE - MAX_SCORE - 2;
            if alpha < lower {
                alpha = lower;
                if alpha >= beta {
                    return alpha;
                }
            }
        } else if stored != 0 {
            let upper = stored + MIN_SCORE - 1;
            if beta > upper {
                beta = upper;
                if alpha >= beta {
                    return beta;
                }
            }
        }

        // The moves, most threats first, the centre first among equals.
        let mut moves = [(0u32, 0u64); WIDTH];
        let mut count = 0;
        for (rank, &c) in ORDER.iter().enumerate() {
            let bit = next & bitboard::column(c);
            if bit != 0 {
                // Higher sorts first: threats, then nearness to the centre.
                let key = move_score(p, bit) * 8 + (WIDTH - rank) as u32;
                moves[count] = (key, bit);
                count += 1;
            }
        }
        let moves = &mut moves[..count];
        moves.sort_unstable_by_key(|m| std::cmp::Reverse(m.0));

        for &(_, bit) in moves.iter() {
            let mut child = *p;
            child.drop_bit(bit);
            let score = -self.negamax(&child, -beta, -alpha);
            if self.stopped {
                return 0;
            }
            if score >= beta {
                // A lower bound (a real score is at most MAX_SCORE).
                let lower = score.min(MAX_SCORE);
                self.table
                    .put(code, (lower + MAX_SCORE - 2 * MIN_SCORE + 2) as u8);
                return score;
            }
            if score > alpha {
                alpha = score;
            }
        }
        // An upper bound (a real score is at least MIN_SCORE).
        self.table
            .put(code, (alpha.max(MIN_SCORE) - MIN_SCORE + 1) as u8);
        alpha
    }
}

fn assert_over_not(p: &Position) {
    assert!(
        !p.last_mover_won() && p.moves() < CELLS,
        "the solver was asked about a finished game\n{p}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_read_as_pons_writes_them() {
        // An immediate win with 6 stones down: the 4th stone, 22 - 4.
        assert_eq!(Score::win_now(6).get(), 18);
        assert_eq!(Score::win_now(0).get(), 21);
        // The empty board's +1: White's 21st stone, the 41st ply.
        assert_eq!(Score(1).plies_left(0), 41);
        assert_eq!(Score(0).plies_left(10), 32);
        // Black to act (1 stone) loses to White's 4th stone (ply 7).
        assert_eq!(Score(-18).plies_left(1), 6);
        assert_eq!(Score(-18).own_moves_left(1), 3);
        assert_eq!(Score(18).own_moves_left(6), 1);
    }
}
