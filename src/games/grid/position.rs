//! The UMO 2014 grid game's positions and rules (`docs/grid-rules.md`).
//!
//! Player 1 ([`Color::White`]) moves the Green stone one step along the
//! grid and leaves a Red stone where it stood; Player 2 ([`Color::Black`])
//! puts a Red stone on any empty point. Player 1 loses on entering a
//! corner; Player 2 loses when Green, at the start of Player 1's turn, can
//! neither move nor is on a corner. The points are bits of a `u128`, so
//! boards up to 11 x 11.

use std::fmt;

use arrayvec::ArrayVec;

pub use crate::game::Square;
use crate::game::{Color, GameResult, IllegalAction, State};
use crate::util::mix64;

/// The largest board side (121 points fit a `u128`).
pub const MAX_SIDE: u8 = 11;

/// One decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// Player 1 moves Green to this neighbouring point: `Ge6`.
    Step(Square),
    /// Player 2 puts a Red stone here: `e6`.
    Place(Square),
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Step(s) => write!(f, "G{s}"),
            Action::Place(s) => write!(f, "{s}"),
        }
    }
}

/// The text of an action (`Ge6`, `e6`), read without a board: whether the
/// square is a point of one, and the action legal, is the position's
/// question.
impl std::str::FromStr for Action {
    type Err = String;

    fn from_str(text: &str) -> Result<Action, String> {
        let (step, name) = match text.strip_prefix('G') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let s = Square::parse(name)
            .ok_or_else(|| format!("`{text}` is neither a point like e5 nor a step like Ge5"))?;
        Ok(if step {
            Action::Step(s)
        } else {
            Action::Place(s)
        })
    }
}

impl Action {
    /// The point the action names.
    pub fn square(self) -> Square {
        match self {
            Action::Step(s) | Action::Place(s) => s,
        }
    }
}

/// Legal actions: at most 4 steps, or a placement on any empty point.
pub type Actions = ArrayVec<Action, 128>;

/// A position: the side, the Red stones, Green and who acts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    side: u8,
    red: u128,
    green: u8,
    to_act: Color,
    ply: u32,
    result: Option<GameResult>,
}

impl Position {
    /// Green on the centre of an empty `side` x `side` board (odd side,
    /// 3..=11), Player 1 to move.
    pub fn start(side: u8) -> Position {
        assert!(
            side % 2 == 1 && (3..=MAX_SIDE).contains(&side),
            "side {side}"
        );
        let c = side / 2;
        Position {
            side,
            red: 0,
            green: c * side + c,
            to_act: Color::White,
            ply: 0,
            result: None,
        }
    }

    /// A position from its parts, checked: Red stones on the board, Green
    /// on an empty point and not on a corner, one Red stone per ply, the
    /// player to act by the ply's parity, the game not over.
    pub fn from_parts(side: u8, red: u128, green: u8, ply: u32) -> Result<Position, String> {
        if side.is_multiple_of(2) || !(3..=MAX_SIDE).contains(&side) {
            return Err(format!(
                "the board side must be odd, 3 to {MAX_SIDE}: got {side}"
            ));
        }
        let cells = u32::from(side) * u32::from(side);
        if cells < 128 && red >> cells != 0 {
            return Err(format!("Red stones off the {side}x{side} board"));
        }
        if u32::from(green) >= cells {
            return Err(format!(
                "Green at point {green}, off the {side}x{side} board"
            ));
        }
        if red & (1 << green) != 0 {
            return Err("Green stands on a Red stone".into());
        }
        if red.count_ones() != ply {
            return Err(format!(
                "{} Red stones after {ply} plies: every ply adds one",
                red.count_ones()
            ));
        }
        let p = Position {
            side,
            red,
            green,
            to_act: if ply.is_multiple_of(2) {
                Color::White
            } else {
                Color::Black
            },
            ply,
            result: None,
        };
        if p.is_corner(green) {
            return Err("Green is on a corner: the game is over".into());
        }
        if p.to_act == Color::White && p.free_neighbours() == 0 {
            return Err("Green cannot move: the game is over".into());
        }
        if p.to_act == Color::Black && p.empty() == 0 {
            return Err("no empty point is left: the game is over".into());
        }
        Ok(p)
    }

    /// The same position with its stones moved by a symmetry of the board
    /// (`red` and `green` the images of this position's): who acts, the ply
    /// and the result stay.
    pub fn mapped(&self, red: u128, green: u8) -> Position {
        debug_assert_eq!(red.count_ones(), self.red.count_ones());
        Position {
            red,
            green,
            ..*self
        }
    }

    pub fn side(&self) -> u8 {
        self.side
    }

    /// The Red stones, bit `row * side + col`.
    pub fn red(&self) -> u128 {
        self.red
    }

    /// Green's point, `row * side + col`.
    pub fn green(&self) -> u8 {
        self.green
    }

    pub fn cells(&self) -> u32 {
        u32::from(self.side) * u32::from(self.side)
    }

    pub fn square(&self, cell: u8) -> Square {
        Square {
            col: cell % self.side,
            row: cell / self.side,
        }
    }

    /// The point on `s`, if it is on the board.
    pub fn cell(&self, s: Square) -> Option<u8> {
        // `then`, not `then_some`: the cell is computed only on the board
        // (`c35`, read from outside, overflowed `row * side`).
        (s.col < self.side && s.row < self.side).then(|| s.row * self.side + s.col)
    }

    pub fn is_corner(&self, cell: u8) -> bool {
        let (c, r, m) = (cell % self.side, cell / self.side, self.side - 1);
        (c == 0 || c == m) && (r == 0 || r == m)
    }

    /// Steps from `cell` to the nearest corner (Manhattan distance).
    pub fn corner_distance(&self, cell: u8) -> u32 {
        let (c, r, m) = (cell % self.side, cell / self.side, self.side - 1);
        u32::from(c.min(m - c)) + u32::from(r.min(m - r))
    }

    /// Manhattan distance between two points.
    pub fn distance(&self, a: u8, b: u8) -> u32 {
        let (ac, ar) = (a % self.side, a / self.side);
        let (bc, br) = (b % self.side, b / self.side);
        u32::from(ac.abs_diff(bc)) + u32::from(ar.abs_diff(br))
    }

    /// The points next to `cell` on the board.
    pub fn neighbours(&self, cell: u8) -> ArrayVec<u8, 4> {
        let (c, r, n) = (cell % self.side, cell / self.side, self.side);
        let mut out = ArrayVec::new();
        if r + 1 < n {
            out.push(cell + n);
        }
        if c + 1 < n {
            out.push(cell + 1);
        }
        if r > 0 {
            out.push(cell - n);
        }
        if c > 0 {
            out.push(cell - 1);
        }
        out
    }

    /// Green's neighbours without a Red stone.
    pub fn free_neighbours(&self) -> u32 {
        self.neighbours(self.green)
            .iter()
            .filter(|&&q| self.red & (1 << q) == 0)
            .count() as u32
    }

    /// Empty points (no Red stone, not Green) as a mask.
    pub fn empty(&self) -> u128 {
        let all = if self.cells() >= 128 {
            u128::MAX
        } else {
            (1u128 << self.cells()) - 1
        };
        all & !self.red & !(1u128 << self.green)
    }

    fn illegal_reason(&self, action: Action) -> Option<String> {
        if let Some(r) = self.result {
            return Some(format!("the game is over ({r:?})"));
        }
        let on_board = |s: Square| {
            self.cell(s)
                .ok_or_else(|| format!("{s} is off the {0}x{0} board", self.side))
        };
        let check = || -> Result<(), String> {
            match (action, self.to_act) {
                (Action::Step(s), Color::White) => {
                    let q = on_board(s)?;
                    if !self.neighbours(self.green).contains(&q) {
                        return Err(format!(
                            "{s} is not next to Green on {}",
                            self.square(self.green)
                        ));
                    }
                    if self.red & (1 << q) != 0 {
                        return Err(format!("{s} holds a Red stone"));
                    }
                }
                (Action::Place(s), Color::Black) => {
                    let q = on_board(s)?;
                    if self.empty() & (1 << q) == 0 {
                        return Err(format!("{s} is not empty"));
                    }
                }
                (Action::Step(_), Color::Black) => {
                    return Err("Player 2 places a Red stone; Player 1 moves Green".into());
                }
                (Action::Place(_), Color::White) => {
                    return Err(
                        "Player 1 moves Green (write `G` and the point); Player 2 places".into(),
                    );
                }
            }
            Ok(())
        };
        check().err()
    }

    fn apply(&mut self, action: Action) {
        self.ply += 1;
        match action {
            Action::Step(s) => {
                let q = self.cell(s).expect("legal step");
                self.red |= 1 << self.green;
                self.green = q;
                if self.is_corner(q) {
                    self.result = Some(GameResult::Win(Color::Black));
                } else if self.empty() == 0 {
                    // Player 2 cannot place, and Green cannot move either.
                    self.result = Some(GameResult::Win(Color::White));
                } else {
                    self.to_act = Color::Black;
                }
            }
            Action::Place(s) => {
                let q = self.cell(s).expect("legal placement");
                self.red |= 1 << q;
                self.to_act = Color::White;
                if self.free_neighbours() == 0 {
                    self.result = Some(GameResult::Win(Color::White));
                }
            }
        }
    }
}

impl State for Position {
    type Action = Action;
    type Actions = Actions;

    fn to_act(&self) -> Color {
        self.to_act
    }

    fn legal_actions(&self) -> Actions {
        let mut out = Actions::new();
        if self.result.is_some() {
            return out;
        }
        match self.to_act {
            Color::White => {
                for q in self.neighbours(self.green) {
                    if self.red & (1 << q) == 0 {
                        out.push(Action::Step(self.square(q)));
                    }
                }
            }
            Color::Black => {
                let mut e = self.empty();
                while e != 0 {
                    let q = e.trailing_zeros() as u8;
                    e &= e - 1;
                    out.push(Action::Place(self.square(q)));
                }
            }
        }
        out
    }

    fn play(&mut self, action: Action) -> Result<(), IllegalAction> {
        if let Some(reason) = self.illegal_reason(action) {
            return Err(IllegalAction {
                action: action.to_string(),
                reason,
            });
        }
        self.apply(action);
        Ok(())
    }

    fn play_unchecked(&mut self, action: Action) {
        self.apply(action);
    }

    fn result(&self) -> Option<GameResult> {
        self.result
    }

    fn end_reason(&self) -> Option<&'static str> {
        match self.result? {
            GameResult::Win(Color::Black) => Some("corner"),
            _ => Some("trapped"),
        }
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    fn key(&self) -> u64 {
        mix64(self.red as u64)
            ^ mix64((self.red >> 64) as u64 ^ 0x1234_5678).rotate_left(21)
            ^ mix64(
                u64::from(self.green)
                    | (self.to_act.index() as u64) << 8
                    | u64::from(self.side) << 16,
            )
            .rotate_left(42)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in (0..self.side).rev() {
            write!(f, "{:>2} ", r + 1)?;
            for c in 0..self.side {
                let q = r * self.side + c;
                let ch = if q == self.green {
                    'G'
                } else if self.red & (1 << q) != 0 {
                    'R'
                } else if self.is_corner(q) {
                    '+'
                } else {
                    '.'
                };
                write!(f, "{ch}{}", if c + 1 < self.side { " " } else { "\n" })?;
            }
        }
        write!(f, "   ")?;
        for c in 0..self.side {
            write!(f, "{} ", (b'a' + c) as char)?;
        }
        writeln!(f)?;
        match self.result {
            Some(GameResult::Win(Color::Black)) => {
                write!(f, "Player 2 wins: Green entered a corner")
            }
            Some(_) => write!(f, "Player 1 wins: Green is trapped"),
            None => write!(
                f,
                "{} to {}; {} Red stones",
                if self.to_act == Color::White {
                    "Player 1"
                } else {
                    "Player 2"
                },
                if self.to_act == Color::White {
                    "move Green"
                } else {
                    "place Red"
                },
                self.red.count_ones()
            ),
        }
    }
}
