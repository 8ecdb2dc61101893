//! An independent Othello to check the crate's against: a plain array of
//! any even size, each line walked square by square with bounds checks,
//! no bitboards, and perft written as Aart Bik's pseudo-code has it.

use othello::Position;
use yinsh_zero::game::Color;

/// A side's disc: Black moves first.
pub const BLACK: i8 = 1;
pub const WHITE: i8 = -1;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Naive {
    pub n: usize,
    /// `row * n + col`, row 0 rank 1: 0 empty, else [`BLACK`] or [`WHITE`].
    pub cells: Vec<i8>,
    pub to_move: i8,
}

const LINES: [(i32, i32); 8] = [
    (0, 1),
    (0, -1),
    (1, 0),
    (-1, 0),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

impl Naive {
    /// The standard start on an `n` x `n` board: White on the centre's
    /// lower-left and upper-right squares (d4 and e5 on 8x8), Black to move.
    pub fn start(n: usize) -> Naive {
        let mut cells = vec![0; n * n];
        let m = n / 2;
        cells[(m - 1) * n + (m - 1)] = WHITE;
        cells[m * n + m] = WHITE;
        cells[(m - 1) * n + m] = BLACK;
        cells[m * n + (m - 1)] = BLACK;
        Naive {
            n,
            cells,
            to_move: BLACK,
        }
    }

    fn at(&self, r: i32, c: i32) -> Option<i8> {
        let n = self.n as i32;
        if (0..n).contains(&r) && (0..n).contains(&c) {
            Some(self.cells[(r * n + c) as usize])
        } else {
            None
        }
    }

    /// The squares `side` would turn over with a disc on `cell`.
    pub fn turned(&self, cell: usize, side: i8) -> Vec<usize> {
        let mut all = Vec::new();
        if self.cells[cell] != 0 {
            return all;
        }
        let (r0, c0) = ((cell / self.n) as i32, (cell % self.n) as i32);
        for (dr, dc) in LINES {
            let mut line = Vec::new();
            let (mut r, mut c) = (r0 + dr, c0 + dc);
            while self.at(r, c) == Some(-side) {
                line.push((r as usize) * self.n + c as usize);
                r += dr;
                c += dc;
            }
            if !line.is_empty() && self.at(r, c) == Some(side) {
                all.extend(line);
            }
        }
        all
    }

    /// The squares where `side` may play, in increasing order.
    pub fn moves_of(&self, side: i8) -> Vec<usize> {
        (0..self.n * self.n)
            .filter(|&i| !self.turned(i, side).is_empty())
            .collect()
    }

    pub fn moves(&self) -> Vec<usize> {
        self.moves_of(self.to_move)
    }

    pub fn over(&self) -> bool {
        self.moves_of(BLACK).is_empty() && self.moves_of(WHITE).is_empty()
    }

    /// Plays a disc on `cell` (which must be legal), or passes with `None`.
    pub fn play(&mut self, cell: Option<usize>) {
        if let Some(cell) = cell {
            let turned = self.turned(cell, self.to_move);
            assert!(!turned.is_empty(), "{cell} is not a move");
            for i in turned.into_iter().chain([cell]) {
                self.cells[i] = self.to_move;
            }
        }
        self.to_move = -self.to_move;
    }

    pub fn count(&self, side: i8) -> usize {
        self.cells.iter().filter(|&&c| c == side).count()
    }

    /// Leaves at `depth`, by Aart Bik's pseudo-code ("Perft for Reversi",
    /// http://www.aartbik.com/MISC/reversi.html): a pass is a ply, and a
    /// position where neither side can move is one leaf however deep.
    pub fn perft(&self, depth: u32, passed: bool) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.moves();
        if moves.is_empty() {
            if passed {
                return 1;
            }
            let mut child = self.clone();
            child.play(None);
            return child.perft(depth - 1, true);
        }
        if depth == 1 {
            // Each move is a leaf (the pseudo-code plays it to find so).
            return moves.len() as u64;
        }
        moves
            .iter()
            .map(|&m| {
                let mut child = self.clone();
                child.play(Some(m));
                child.perft(depth - 1, false)
            })
            .sum()
    }
}

/// A position from a diagram of 36 `X` (Black), `O` (White) or `.`,
/// drawn as `Position`'s `Display` draws it (rank 6 first; white space
/// ignored), with `to_act` to act: the fewest decisions that fit, one pass
/// added where the side to act needs it.
pub fn diagram(text: &str, to_act: Color) -> Result<Position, String> {
    let (mut black, mut white, mut n) = (0u64, 0u64, 0);
    for ch in text.chars().filter(|c| !c.is_whitespace()) {
        if n == 36 {
            return Err("more than 36 squares".into());
        }
        let bit = 1 << ((5 - n / 6) * 6 + n % 6);
        match ch {
            'X' => black |= bit,
            'O' => white |= bit,
            '.' => {}
            _ => return Err(format!("`{ch}` at square {n}: expected X, O or .")),
        }
        n += 1;
    }
    if n != 36 {
        return Err(format!("{n} squares, expected 36"));
    }
    let placed = (black | white).count_ones().saturating_sub(4) as u8;
    let pass = u8::from(placed.is_multiple_of(2) != (to_act == Color::Black));
    Position::from_parts(black, white, placed + pass)
}
