//! The Emergo board: an N x N grid (N odd) played on the squares whose row
//! and column add up to an even number, like the dark squares of a
//! draughts board with the corners included (41 squares on 9 x 9, 25 on
//! 7 x 7). Units move and jump along diagonals only, so they never leave
//! these squares.
//!
//! Squares are named like chess squares (`a1` lower left, `e5` the centre
//! of 9 x 9): files `a`.. from the left, ranks `1`.. from the bottom.
//! Inside the program a square is a [`Cell`], `row * side + col`, so that the
//! network's planes are the plain grid.

pub use crate::game::Square;

/// The largest board side the position arrays hold.
pub const MAX_SIDE: u8 = 9;

/// Cells of the largest board: the length of a position's cell array.
pub const MAX_CELLS: usize = MAX_SIDE as usize * MAX_SIDE as usize;

/// A point of the grid by number, `row * side + col` (rows from the
/// bottom), playable or not; what the position arrays and the network's
/// planes are indexed by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell(pub u8);

impl Cell {
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// One of the four diagonal directions, the only ones units move in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dir {
    /// Up and right: file +1, rank +1.
    NorthEast,
    /// Up and left.
    NorthWest,
    /// Down and left.
    SouthWest,
    /// Down and right.
    SouthEast,
}

impl Dir {
    pub const ALL: [Dir; 4] = [
        Dir::NorthEast,
        Dir::NorthWest,
        Dir::SouthWest,
        Dir::SouthEast,
    ];

    /// The direction's number, 0..4 (the action index's plane offset).
    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn from_index(i: usize) -> Option<Dir> {
        match i {
            0 => Some(Dir::NorthEast),
            1 => Some(Dir::NorthWest),
            2 => Some(Dir::SouthWest),
            3 => Some(Dir::SouthEast),
            _ => None,
        }
    }

    /// The step as (files, ranks).
    pub const fn delta(self) -> (i8, i8) {
        match self {
            Dir::NorthEast => (1, 1),
            Dir::NorthWest => (-1, 1),
            Dir::SouthWest => (-1, -1),
            Dir::SouthEast => (1, -1),
        }
    }

    /// The direction of a step of (files, ranks), if it is diagonal and
    /// one square long.
    pub const fn from_delta(dc: i8, dr: i8) -> Option<Dir> {
        match (dc, dr) {
            (1, 1) => Some(Dir::NorthEast),
            (-1, 1) => Some(Dir::NorthWest),
            (-1, -1) => Some(Dir::SouthWest),
            (1, -1) => Some(Dir::SouthEast),
            _ => None,
        }
    }

    /// The way back: a capture chain may not take it right after this
    /// direction (no 180-degree turn).
    pub const fn reverse(self) -> Dir {
        match self {
            Dir::NorthEast => Dir::SouthWest,
            Dir::NorthWest => Dir::SouthEast,
            Dir::SouthWest => Dir::NorthEast,
            Dir::SouthEast => Dir::NorthWest,
        }
    }

    /// The direction under symmetry `k` of the square (see
    /// [`Geometry::map_cell`]): the same map without the translation.
    pub fn mapped(self, k: usize) -> Dir {
        let (dc, dr) = self.delta();
        let (dc, dr) = if k & 4 != 0 { (dr, dc) } else { (dc, dr) };
        let (dc, dr) = match k & 3 {
            0 => (dc, dr),
            1 => (-dr, dc),
            2 => (-dc, -dr),
            _ => (dr, -dc),
        };
        Dir::from_delta(dc, dr).expect("a symmetry keeps diagonals diagonal")
    }
}

/// The board of one size: which cells exist and which are played on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Geometry {
    /// Squares per side, odd, at most [`MAX_SIDE`].
    pub side: u8,
}

impl Geometry {
    pub const fn new(side: u8) -> Geometry {
        assert!(side % 2 == 1 && side >= 3 && side <= MAX_SIDE);
        Geometry { side }
    }

    /// Cells of the grid, playable or not.
    pub const fn cells(self) -> usize {
        self.side as usize * self.side as usize
    }

    /// The playable squares: (side^2 + 1) / 2.
    pub const fn playable_count(self) -> usize {
        self.cells().div_ceil(2)
    }

    /// The cell of a square on this board, `None` off the board.
    pub fn cell(self, s: Square) -> Option<Cell> {
        // `then`, not `then_some`: the cell is computed only on the board
        // (`d255`, read from outside, overflowed `row * side`).
        (s.col < self.side && s.row < self.side).then(|| Cell(s.row * self.side + s.col))
    }

    pub fn square(self, c: Cell) -> Square {
        Square {
            col: c.0 % self.side,
            row: c.0 / self.side,
        }
    }

    /// Whether units may stand on `c`: row + column even.
    pub fn is_playable(self, c: Cell) -> bool {
        let s = self.square(c);
        (s.col + s.row).is_multiple_of(2)
    }

    /// The playable cells in increasing order (the order records and legal
    /// entries follow).
    pub fn playable(self) -> impl Iterator<Item = Cell> {
        (0..self.cells() as u8)
            .map(Cell)
            .filter(move |&c| self.is_playable(c))
    }

    /// The centre square, where White may not enter on the first move.
    pub const fn centre(self) -> Cell {
        let h = self.side / 2;
        Cell(h * self.side + h)
    }

    /// The cell one diagonal step from `c` in direction `d`, if on the board.
    pub fn step(self, c: Cell, d: Dir) -> Option<Cell> {
        let s = self.square(c);
        let (dc, dr) = d.delta();
        let col = s.col.checked_add_signed(dc)?;
        let row = s.row.checked_add_signed(dr)?;
        self.cell(Square { col, row })
    }

    /// Where symmetry `k` (0..8) of the square sends `c`: transpose when
    /// `k & 4`, then turn a quarter `k & 3` times. The centre stays, and the
    /// playable squares map onto themselves because the side is odd.
    pub fn map_cell(self, c: Cell, k: usize) -> Cell {
        let m = self.side - 1;
        let Square { col: c0, row: r0 } = self.square(c);
        let (col, row) = if k & 4 != 0 { (r0, c0) } else { (c0, r0) };
        let (col, row) = match k & 3 {
            0 => (col, row),
            1 => (m - row, col),
            2 => (m - col, m - row),
            _ => (row, m - col),
        };
        Cell(row * self.side + col)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_board_has_41_squares_and_symmetries_keep_them() {
        let g = Geometry::new(9);
        assert_eq!(g.playable().count(), 41);
        assert_eq!(g.playable_count(), 41);
        assert_eq!(Geometry::new(7).playable().count(), 25);
        assert_eq!(g.square(g.centre()).to_string(), "e5");
        for k in 0..8 {
            let mut seen = std::collections::BTreeSet::new();
            for c in g.playable() {
                let t = g.map_cell(c, k);
                assert!(g.is_playable(t));
                seen.insert(t);
                for d in Dir::ALL {
                    // A step and its image agree.
                    let to = g.step(c, d).map(|s| g.map_cell(s, k));
                    assert_eq!(g.step(t, d.mapped(k)), to, "k {k} {d:?}");
                }
            }
            assert_eq!(seen.len(), 41);
            assert_eq!(g.map_cell(g.centre(), k), g.centre());
        }
        for d in Dir::ALL {
            assert_eq!(d.reverse().reverse(), d);
            assert_eq!(Dir::from_index(d.index()), Some(d));
        }
    }
}
