//! The rules: bitboards, moves, flips, passes and the end.

use std::fmt;

use arrayvec::ArrayVec;
use yinsh_zero::game::{Color, GameResult, IllegalAction, Square, State};

/// Squares on a side of the board.
pub const SIZE: u8 = 6;
/// Squares on the board; also the pass's dense index.
pub const CELLS: usize = 36;

const FULL: u64 = (1 << CELLS) - 1;
const FILE_A: u64 = 0x4104_1041;
const FILE_F: u64 = FILE_A << 5;
/// c3, d3, c4, d4: filled at the start, and never emptied.
const CENTRE: u64 = (0b11 << 14) | (0b11 << 20);

/// The eight directions as a shift (bit `row * 6 + col`) and the mask
/// that stops a line at the board's edge: E, W, N, S, NE, NW, SE, SW.
const DIRECTIONS: [(i8, u64); 8] = [
    (1, FULL & !FILE_A),
    (-1, FULL & !FILE_F),
    (6, FULL),
    (-6, FULL),
    (7, FULL & !FILE_A),
    (5, FULL & !FILE_F),
    (-5, FULL & !FILE_A),
    (-7, FULL & !FILE_F),
];

fn shift(x: u64, (by, mask): (i8, u64)) -> u64 {
    (if by > 0 { x << by } else { x >> -by }) & mask
}

/// The empty squares where the side with `own` discs may play.
pub fn moves(own: u64, opp: u64) -> u64 {
    let empty = FULL & !(own | opp);
    let mut moves = 0;
    for d in DIRECTIONS {
        let mut run = shift(own, d) & opp;
        // A line holds at most four of the opponent's discs.
        for _ in 0..3 {
            run |= shift(run, d) & opp;
        }
        moves |= shift(run, d) & empty;
    }
    moves
}

/// The opponent's discs that a disc on `square` (one bit) turns over.
fn flips(own: u64, opp: u64, square: u64) -> u64 {
    let mut all = 0;
    for d in DIRECTIONS {
        let (mut run, mut x) = (0, shift(square, d));
        while x & opp != 0 {
            run |= x;
            x = shift(x, d);
        }
        if x & own != 0 {
            all |= run;
        }
    }
    all
}

/// One decision: a disc on a square, or a pass. Written `a1` to `f6`
/// (file, then rank) or `pass`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Move(u8);

impl Move {
    /// The only decision of a side that cannot place a disc while its
    /// opponent can.
    pub const PASS: Move = Move(CELLS as u8);

    /// A disc on file `col` and rank `row` (both from 0), if on the board.
    pub fn at(col: u8, row: u8) -> Option<Move> {
        (col < SIZE && row < SIZE).then_some(Move(row * SIZE + col))
    }

    /// The move of a dense index: `row * 6 + col`, or 36 for the pass.
    pub fn from_index(index: usize) -> Option<Move> {
        (index <= CELLS).then_some(Move(index as u8))
    }

    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// Its square, `None` for the pass.
    pub fn square(self) -> Option<Square> {
        (self != Move::PASS).then_some(Square {
            col: self.0 % SIZE,
            row: self.0 / SIZE,
        })
    }

    /// Reads `pass` or a square `a1` to `f6` (whatever the position).
    pub fn parse(text: &str) -> Result<Move, String> {
        let t = text.trim().to_ascii_lowercase();
        if t == "pass" {
            return Ok(Move::PASS);
        }
        Square::parse(&t)
            .and_then(|s| Move::at(s.col, s.row))
            .ok_or_else(|| format!("`{text}` is not a move: expected a square a1 to f6, or pass"))
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.square() {
            Some(s) => write!(f, "{s}"),
            None => f.write_str("pass"),
        }
    }
}

/// A position: each side's discs as bits `row * 6 + col` (row 0 is rank 1,
/// col 0 file a), and the decisions made so far. Black makes the first
/// decision and the sides alternate, a pass being a decision, so the side
/// to act is Black exactly when `ply` is even.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    black: u64,
    white: u64,
    ply: u8,
}

impl Position {
    /// White on c3 and d4, Black on d3 and c4; Black to act.
    pub const fn start() -> Position {
        Position {
            black: (1 << 15) | (1 << 20),
            white: (1 << 14) | (1 << 21),
            ply: 0,
        }
    }

    /// A position from its parts, checked against what play can reach as
    /// far as the discs tell; the error says what is wrong.
    pub fn from_parts(black: u64, white: u64, ply: u8) -> Result<Position, String> {
        if (black | white) & !FULL != 0 {
            return Err("a disc lies off the 6x6 board".into());
        }
        if black & white != 0 {
            return Err("a square holds a black and a white disc".into());
        }
        if (black | white) & CENTRE != CENTRE {
            return Err("a centre square is empty: its discs are there from the start".into());
        }
        let placed = (black | white).count_ones() as u8 - 4;
        // Each pass is followed by a disc: the passer's opponent can move.
        if ply < placed || ply - placed > placed {
            return Err(format!(
                "{ply} decisions cannot have placed {placed} discs (each pass is followed by a disc)"
            ));
        }
        Ok(Position { black, white, ply })
    }

    /// The discs of `side`, as bits.
    pub fn discs(&self, side: Color) -> u64 {
        match side {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }

    /// The squares where `side` may place a disc, as bits.
    pub fn moves_of(&self, side: Color) -> u64 {
        moves(self.discs(side), self.discs(!side))
    }

    fn mover(&self) -> (u64, u64) {
        let me = self.to_act();
        (self.discs(me), self.discs(!me))
    }

    /// Why `m` cannot be played here, if it cannot.
    pub fn illegal_reason(&self, m: Move) -> Option<String> {
        let (own, opp) = self.mover();
        let mine = moves(own, opp);
        let over = mine == 0 && moves(opp, own) == 0;
        if over {
            Some("the game is over".into())
        } else if m == Move::PASS {
            (mine != 0).then(|| format!("{} has a move, so may not pass", self.to_act()))
        } else if (own | opp) >> m.0 & 1 == 1 {
            Some(format!("{m} is taken"))
        } else {
            (mine >> m.0 & 1 == 0).then(|| format!("{m} turns over no disc"))
        }
    }

    /// Maps every disc with `f`, a map of squares; the ply is kept.
    pub fn map_squares(&self, f: impl Fn(usize) -> usize) -> Position {
        let map = |bits: u64| {
            (0..CELLS)
                .filter(|&i| bits >> i & 1 == 1)
                .fold(0, |m, i| m | 1 << f(i))
        };
        Position {
            black: map(self.black),
            white: map(self.white),
            ply: self.ply,
        }
    }
}

/// The board with rank 6 at the top (`X` Black, `O` White), then who acts.
impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..CELLS / 6).rev() {
            write!(f, "{} ", row + 1)?;
            for col in 0..6 {
                let (b, w) = (
                    self.black >> (row * 6 + col) & 1,
                    self.white >> (row * 6 + col) & 1,
                );
                let c = ['.', 'X', 'O'][(b + 2 * w) as usize];
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "  abcdef")?;
        let (b, w) = (self.black.count_ones(), self.white.count_ones());
        match self.result() {
            Some(_) => write!(f, "game over, black {b} white {w}"),
            None => write!(f, "{} to act, black {b} white {w}", self.to_act()),
        }
    }
}

impl State for Position {
    type Action = Move;
    type Actions = ArrayVec<Move, 32>;

    fn to_act(&self) -> Color {
        if self.ply.is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        }
    }

    fn legal_actions(&self) -> ArrayVec<Move, 32> {
        let (own, opp) = self.mover();
        let mut out = ArrayVec::new();
        let mut bits = moves(own, opp);
        if bits == 0 && moves(opp, own) != 0 {
            out.push(Move::PASS);
        }
        while bits != 0 {
            out.push(Move(bits.trailing_zeros() as u8));
            bits &= bits - 1;
        }
        out
    }

    fn legal_action_count(&self) -> usize {
        let (own, opp) = self.mover();
        match moves(own, opp).count_ones() {
            0 => usize::from(moves(opp, own) != 0),
            n => n as usize,
        }
    }

    fn play(&mut self, action: Move) -> Result<(), IllegalAction> {
        if let Some(reason) = self.illegal_reason(action) {
            return Err(IllegalAction {
                action: action.to_string(),
                reason,
            });
        }
        self.play_unchecked(action);
        Ok(())
    }

    fn play_unchecked(&mut self, action: Move) {
        if action != Move::PASS {
            let (own, opp) = self.mover();
            let bit = 1 << action.0;
            let turned = flips(own, opp, bit);
            let (own, opp) = (own | bit | turned, opp & !turned);
            (self.black, self.white) = match self.to_act() {
                Color::Black => (own, opp),
                Color::White => (opp, own),
            };
        }
        self.ply += 1;
    }

    /// Over when neither side can place a disc; won by the side with more.
    fn result(&self) -> Option<GameResult> {
        if self.moves_of(Color::Black) | self.moves_of(Color::White) != 0 {
            return None;
        }
        Some(
            match self.black.count_ones().cmp(&self.white.count_ones()) {
                std::cmp::Ordering::Greater => GameResult::Win(Color::Black),
                std::cmp::Ordering::Less => GameResult::Win(Color::White),
                std::cmp::Ordering::Equal => GameResult::Draw,
            },
        )
    }

    fn ply(&self) -> u32 {
        u32::from(self.ply)
    }

    /// The discs and the side to act (not the passes that led here).
    fn key(&self) -> u64 {
        let mix = |mut z: u64| {
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        mix(self.black ^ mix((self.white << 1) | u64::from(self.ply % 2)))
    }

    /// The disc difference for `player`, over the 36 squares.
    fn margin(&self, player: Color) -> Option<f32> {
        let (own, opp) = (self.discs(player), self.discs(!player));
        Some((own.count_ones() as f32 - opp.count_ones() as f32) / CELLS as f32)
    }
}
