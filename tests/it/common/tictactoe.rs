//! Tic-tac-toe on the [`Game`] interface: a game small enough to solve
//! outright, so that the generic layers (search, players, records,
//! symmetries) can be tested against known answers.
//!
//! Cells are numbered 0..9 row-major with row 0 at the top. Their notation
//! reads like chess: a column letter `a`-`c` from the left, then a row
//! number `1`-`3` counted from the *bottom*, so cell 0 is `a3`, cell 6 is
//! `a1` and cell 8 is `c1`. X is [`Color::White`] and moves first.

use std::collections::HashMap;
use std::fmt;

use arrayvec::ArrayVec;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use yinsh_zero::arena::{GamePlayers, MoveInfo, Player};
use yinsh_zero::game::{Color, Game, GameResult, IllegalAction, NetShape, State};

/// The eight lines of three.
pub const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

/// The stone a side plays.
pub fn mark(c: Color) -> char {
    match c {
        Color::White => 'X',
        Color::Black => 'O',
    }
}

/// One cell, `0..9`, row-major from the top left.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Cell(pub u8);

impl Cell {
    /// The cell at `row` (0 at the top) and `col` (0 at the left).
    pub const fn at(row: u8, col: u8) -> Cell {
        Cell(row * 3 + col)
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    pub const fn row(self) -> u8 {
        self.0 / 3
    }

    pub const fn col(self) -> u8 {
        self.0 % 3
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 >= 9 {
            return write!(f, "cell{}", self.0);
        }
        write!(f, "{}{}", (b'a' + self.col()) as char, 3 - self.row())
    }
}

/// A position: the nine cells and the side to act.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Board {
    cells: [Option<Color>; 9],
    to_act: Color,
}

impl Default for Board {
    fn default() -> Self {
        Board::new()
    }
}

impl Board {
    /// The empty board, X to act.
    pub const fn new() -> Board {
        Board {
            cells: [None; 9],
            to_act: Color::White,
        }
    }

    /// A board from a diagram of nine `X`, `O` or `.` (whitespace ignored),
    /// top row first. The side to act follows from the stone counts.
    ///
    /// ```text
    /// Board::from_diagram("XX. OO. ...")  // X to act, and c3 wins
    /// ```
    pub fn from_diagram(text: &str) -> Result<Board, String> {
        let mut cells = [None; 9];
        let mut n = 0;
        for ch in text.chars().filter(|c| !c.is_whitespace()) {
            if n == 9 {
                return Err(format!("`{text}` has more than nine cells"));
            }
            cells[n] = match ch {
                'X' | 'x' => Some(Color::White),
                'O' | 'o' => Some(Color::Black),
                '.' | '-' => None,
                other => {
                    return Err(format!(
                        "`{text}`: `{other}` is not a cell (expected X, O or .)"
                    ));
                }
            };
            n += 1;
        }
        if n != 9 {
            return Err(format!("`{text}` has {n} cells, expected nine"));
        }
        let xs = cells.iter().filter(|c| **c == Some(Color::White)).count();
        let os = cells.iter().filter(|c| **c == Some(Color::Black)).count();
        let to_act = if xs > os { Color::Black } else { Color::White };
        Board::checked(cells, to_act)
    }

    /// The stone on `cell`, if any.
    pub fn at(&self, cell: Cell) -> Option<Color> {
        self.cells[cell.index()]
    }

    /// Who has three in a row, if anyone (the first line found).
    fn line_owner(cells: &[Option<Color>; 9]) -> Option<Color> {
        LINES.iter().find_map(|&[a, b, c]| match cells[a] {
            Some(s) if cells[b] == Some(s) && cells[c] == Some(s) => Some(s),
            _ => None,
        })
    }

    fn has_line(cells: &[Option<Color>; 9], side: Color) -> bool {
        LINES
            .iter()
            .any(|l| l.iter().all(|&i| cells[i] == Some(side)))
    }

    /// A board from its parts, checked against what play can reach; the
    /// error says what is wrong.
    fn checked(cells: [Option<Color>; 9], to_act: Color) -> Result<Board, String> {
        let xs = cells.iter().filter(|c| **c == Some(Color::White)).count();
        let os = cells.iter().filter(|c| **c == Some(Color::Black)).count();
        match to_act {
            Color::White if xs != os => {
                return Err(format!(
                    "X to act with {xs} X and {os} O stones: X moves first, so X to act \
                     needs as many X stones as O stones"
                ));
            }
            Color::Black if xs != os + 1 => {
                return Err(format!(
                    "O to act with {xs} X and {os} O stones: O to act needs exactly one \
                     X stone more than O stones"
                ));
            }
            _ => {}
        }
        let x_line = Board::has_line(&cells, Color::White);
        let o_line = Board::has_line(&cells, Color::Black);
        if x_line && o_line {
            return Err("both X and O have three in a row".into());
        }
        // The game stops at a line, so its owner made the last move.
        for (line, side) in [(x_line, Color::White), (o_line, Color::Black)] {
            if line && to_act == side {
                return Err(format!(
                    "{} has three in a row but {} moved after it",
                    mark(side),
                    mark(!side)
                ));
            }
        }
        Ok(Board { cells, to_act })
    }

    /// Why `cell` cannot be played here, if it cannot.
    fn illegal_reason(&self, cell: Cell) -> Option<String> {
        if cell.0 >= 9 {
            return Some(format!("there is no cell {} (cells are 0 to 8)", cell.0));
        }
        if self.is_over() {
            return Some("the game is over".into());
        }
        self.cells[cell.index()].map(|s| format!("{cell} is taken by {}", mark(s)))
    }
}

/// Three rows, top row first, then the side to act.
impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in self.cells.chunks(3) {
            for c in row {
                write!(f, "{}", c.map_or('.', mark))?;
            }
            writeln!(f)?;
        }
        write!(f, "{} to act", mark(self.to_act))
    }
}

impl State for Board {
    type Action = Cell;
    type Actions = ArrayVec<Cell, 9>;

    fn to_act(&self) -> Color {
        self.to_act
    }

    fn legal_actions(&self) -> ArrayVec<Cell, 9> {
        if self.is_over() {
            return ArrayVec::new();
        }
        (0..9u8)
            .filter(|&i| self.cells[i as usize].is_none())
            .map(Cell)
            .collect()
    }

    fn play(&mut self, action: Cell) -> Result<(), IllegalAction> {
        if let Some(reason) = self.illegal_reason(action) {
            return Err(IllegalAction {
                action: action.to_string(),
                reason,
            });
        }
        self.cells[action.index()] = Some(self.to_act);
        self.to_act = !self.to_act;
        Ok(())
    }

    fn result(&self) -> Option<GameResult> {
        if let Some(side) = Board::line_owner(&self.cells) {
            Some(GameResult::Win(side))
        } else if self.cells.iter().all(Option::is_some) {
            Some(GameResult::Draw)
        } else {
            None
        }
    }

    fn end_reason(&self) -> Option<&'static str> {
        self.result().map(|r| match r {
            GameResult::Win(_) => "three_in_a_row",
            GameResult::Draw => "full_board",
        })
    }

    fn ply(&self) -> u32 {
        self.cells.iter().filter(|c| c.is_some()).count() as u32
    }

    /// The cells as a base-3 number, doubled, plus the side to act: distinct
    /// for distinct boards.
    fn key(&self) -> u64 {
        let cells = self.cells.iter().rev().fold(0u64, |k, c| {
            k * 3
                + match c {
                    None => 0,
                    Some(Color::White) => 1,
                    Some(Color::Black) => 2,
                }
        });
        cells * 2 + self.to_act.index() as u64
    }
}

/// `k`'s map of the square (`k < 8`): the cell that `index` goes to.
/// 0 is the identity, 1-3 the quarter turns clockwise, 4 the left-right
/// mirror, 5 the top-bottom mirror, 6 the main diagonal, 7 the other one.
pub fn map_cell(index: usize, k: usize) -> usize {
    let (r, c) = (index / 3, index % 3);
    let (r, c) = match k {
        0 => (r, c),
        1 => (c, 2 - r),
        2 => (2 - r, 2 - c),
        3 => (2 - c, r),
        4 => (r, 2 - c),
        5 => (2 - r, c),
        6 => (c, r),
        7 => (2 - c, 2 - r),
        _ => panic!("tic-tac-toe has 8 symmetries, not {}", k + 1),
    };
    r * 3 + c
}

/// Standard tic-tac-toe, the only variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TicTacToe;

impl TicTacToe {
    const RECORD_BYTES: usize = 10;
}

impl Game for TicTacToe {
    type State = Board;

    const NAME: &'static str = "tictactoe";
    const VARIANTS: &'static [&'static str] = &["standard"];

    fn variant(&self) -> &str {
        "standard"
    }

    fn with_variant(variant: &str) -> Result<TicTacToe, String> {
        match variant {
            "standard" => Ok(TicTacToe),
            other => Err(format!(
                "tictactoe has no variant `{other}` (known: {})",
                TicTacToe::VARIANTS.join(", ")
            )),
        }
    }

    fn start(&self) -> Board {
        Board::new()
    }

    fn net_shape(&self) -> NetShape {
        NetShape {
            planes: 3,
            height: 3,
            width: 3,
            policy_planes: 1,
            extra_actions: 0,
        }
    }

    /// Own stones, the opponent's, then a plane of ones when X is to act:
    /// the first two planes alone do not tell the net which side it plays.
    fn encode(&self, state: &Board, out: &mut [f32]) {
        let out = &mut out[..27];
        out.fill(0.0);
        let me = state.to_act;
        for (i, c) in state.cells.iter().enumerate() {
            match c {
                Some(s) if *s == me => out[i] = 1.0,
                Some(_) => out[9 + i] = 1.0,
                None => {}
            }
        }
        if me == Color::White {
            out[18..27].fill(1.0);
        }
    }

    fn action_index(&self, action: Cell) -> usize {
        action.index()
    }

    fn action_from_index(&self, index: usize) -> Option<Cell> {
        (index < 9).then_some(Cell(index as u8))
    }

    fn symmetries(&self) -> usize {
        8
    }

    fn transform(&self, state: &Board, k: usize) -> Board {
        let mut cells = [None; 9];
        for (i, c) in state.cells.iter().enumerate() {
            cells[map_cell(i, k)] = *c;
        }
        Board {
            cells,
            to_act: state.to_act,
        }
    }

    fn transform_index(&self, index: usize, k: usize) -> usize {
        map_cell(index, k)
    }

    /// Nine cells (0 empty, 1 X, 2 O), then the side to act (0 X, 1 O).
    fn write_state(&self, state: &Board, out: &mut Vec<u8>) {
        out.extend(state.cells.iter().map(|c| match c {
            None => 0u8,
            Some(Color::White) => 1,
            Some(Color::Black) => 2,
        }));
        out.push(state.to_act.index() as u8);
    }

    fn read_state(&self, bytes: &[u8]) -> Result<Board, String> {
        if bytes.len() != TicTacToe::RECORD_BYTES {
            return Err(format!(
                "a tic-tac-toe position takes {} bytes (9 cells and the side to act), got {}",
                TicTacToe::RECORD_BYTES,
                bytes.len()
            ));
        }
        let mut cells = [None; 9];
        for (i, &b) in bytes[..9].iter().enumerate() {
            cells[i] = match b {
                0 => None,
                1 => Some(Color::White),
                2 => Some(Color::Black),
                v => {
                    return Err(format!(
                        "cell {} holds {v}: expected 0 (empty), 1 (X) or 2 (O)",
                        Cell(i as u8)
                    ));
                }
            };
        }
        let to_act = match bytes[9] {
            0 => Color::White,
            1 => Color::Black,
            v => return Err(format!("side to act is {v}: expected 0 (X) or 1 (O)")),
        };
        Board::checked(cells, to_act)
    }

    fn parse_action(&self, state: &Board, text: &str) -> Result<Cell, String> {
        let t = text.trim().to_ascii_lowercase();
        let cell = match t.as_bytes() {
            &[col @ b'a'..=b'c', row @ b'1'..=b'3'] => Cell::at(b'3' - row, col - b'a'),
            _ => {
                return Err(format!(
                    "`{text}` is not a cell: expected a column a-c then a row 1-3, like b2"
                ));
            }
        };
        match state.illegal_reason(cell) {
            Some(reason) => Err(format!("`{text}` cannot be played: {reason}")),
            None => Ok(cell),
        }
    }
}

impl GamePlayers for TicTacToe {}

/// Exact game values by negamax over the whole tree, memoised by board.
///
/// The score of a board is for its side to act: `10 - ply` at the end of
/// a won game (positive for the winner), 0 for a draw; so a sooner win
/// scores higher and a later loss less badly.
#[derive(Clone, Debug, Default)]
pub struct Solver {
    memo: HashMap<Board, i8>,
}

impl Solver {
    pub fn new() -> Solver {
        Solver::default()
    }

    /// The depth-weighted score of `board` for its side to act.
    pub fn score(&mut self, board: &Board) -> i8 {
        if let Some(r) = board.result() {
            let magnitude = 10 - board.ply() as i8;
            return r.score_for(board.to_act) * magnitude;
        }
        if let Some(&s) = self.memo.get(board) {
            return s;
        }
        let best = board
            .legal_actions()
            .iter()
            .map(|&a| -self.score(&after(board, a)))
            .max()
            .expect("a running game has a legal action");
        self.memo.insert(*board, best);
        best
    }

    /// +1 if the side to act wins with best play, 0 for a draw, -1 if it
    /// loses.
    pub fn value(&mut self, board: &Board) -> i8 {
        self.score(board).signum()
    }

    /// The actions of best score (fastest win, slowest loss), in index
    /// order; empty when the game is over.
    pub fn best_actions(&mut self, board: &Board) -> Vec<Cell> {
        let scored: Vec<(Cell, i8)> = board
            .legal_actions()
            .iter()
            .map(|&a| (a, -self.score(&after(board, a))))
            .collect();
        let Some(best) = scored.iter().map(|&(_, s)| s).max() else {
            return Vec::new();
        };
        scored
            .into_iter()
            .filter(|&(_, s)| s == best)
            .map(|(a, _)| a)
            .collect()
    }
}

/// `board` after the legal action `a`.
pub fn after(board: &Board, a: Cell) -> Board {
    let mut b = *board;
    b.play_unchecked(a);
    b
}

/// The value of `board` with perfect play for its side to act: +1 win,
/// 0 draw, -1 loss.
pub fn solve(board: &Board) -> i8 {
    Solver::new().value(board)
}

/// Plays a best action ([`Solver::best_actions`]), drawing among equals
/// with its seeded rng so that games vary.
#[derive(Clone, Debug)]
pub struct PerfectPlayer {
    solver: Solver,
    rng: SmallRng,
    last: Option<MoveInfo<Cell>>,
}

impl PerfectPlayer {
    pub fn new(seed: u64) -> PerfectPlayer {
        PerfectPlayer {
            solver: Solver::new(),
            rng: SmallRng::seed_from_u64(seed),
            last: None,
        }
    }
}

impl Player<Board> for PerfectPlayer {
    fn name(&self) -> String {
        "perfect".into()
    }

    fn choose(&mut self, pos: &Board) -> Cell {
        let best = self.solver.best_actions(pos);
        assert!(
            !best.is_empty(),
            "perfect player asked to act in a finished game:\n{pos}"
        );
        let a = best[self.rng.random_range(0..best.len())];
        self.last = Some(MoveInfo {
            value: Some(f32::from(self.solver.value(pos))),
            pv: vec![a],
            ..MoveInfo::default()
        });
        a
    }

    fn info(&self) -> Option<MoveInfo<Cell>> {
        self.last.clone()
    }
}
