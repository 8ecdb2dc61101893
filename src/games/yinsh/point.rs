//! Board geometry: the 85 points, the six directions, the three axes, and the
//! precomputed rays and five-point windows that move generation and row
//! detection read.
//!
//! Points live on an 11x11 grid: column A..K is `col` 0..=10, row 1..=11 is
//! `row` 0..=10, and the cell index is `row * 11 + col`. With that layout the
//! three line axes are fixed index steps: +1 (next column, same row number),
//! +11 (same column, next row) and +12 (both grow). No valid point is
//! index-adjacent to another valid point across the grid's wrap-around, so
//! whole-board shifts of a [`Bitboard`](super::bitboard::Bitboard) never join unrelated points.

use std::fmt;
use std::str::FromStr;

/// Number of cells in the 11x11 grid that holds the board.
pub const CELLS: usize = 121;
/// Number of points on the YINSH board.
pub const POINTS: usize = 85;

/// One of the 85 intersections of the board.
///
/// ```
/// use yinsh_zero::games::yinsh::Point;
/// let p: Point = "F6".parse().unwrap();
/// assert_eq!(p.to_string(), "f6");
/// assert_eq!((p.col(), p.row()), (5, 5));
/// assert!("a1".parse::<Point>().is_err()); // a corner that is not on the board
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(u8);

/// Is (col, row) one of the 85 points? The board is the hexagon of radius 5
/// around F6 (in axial coordinates where (1,1) is the third axis) less its six
/// corners.
/// Bit `i` set for each grid cell `i` on the board (`lines::VALID` as a
/// bitboard).
pub(crate) const ON_BOARD_BITS: u128 = {
    let mut bits = 0u128;
    let mut i = 0;
    while i < CELLS {
        if on_board((i % 11) as i32, (i / 11) as i32) {
            bits |= 1u128 << i;
        }
        i += 1;
    }
    bits
};

pub(crate) const fn on_board(col: i32, row: i32) -> bool {
    if col < 0 || col > 10 || row < 0 || row > 10 {
        return false;
    }
    let x = col - 5;
    let y = row - 5;
    let d = {
        let ax = if x < 0 { -x } else { x };
        let ay = if y < 0 { -y } else { y };
        let dxy = if x - y < 0 { y - x } else { x - y };
        let m = if ax > ay { ax } else { ay };
        if m > dxy { m } else { dxy }
    };
    if d > 5 {
        return false;
    }
    // The six corners of the radius-5 hexagon are not points.
    !(d == 5 && (x == 0 || y == 0 || x == y))
}

impl Point {
    /// Point at (col, row), 0-based, if it is on the board.
    pub const fn new(col: u8, row: u8) -> Option<Point> {
        if on_board(col as i32, row as i32) {
            Some(Point(row * 11 + col))
        } else {
            None
        }
    }

    /// Point from a grid cell index, if that cell is on the board.
    pub const fn from_index(index: u8) -> Option<Point> {
        if (index as usize) < CELLS && ON_BOARD_BITS >> index & 1 != 0 {
            Some(Point(index))
        } else {
            None
        }
    }

    #[inline]
    pub(crate) const fn from_index_unchecked(index: u8) -> Point {
        Point(index)
    }

    /// Cell index on the 11x11 grid (`row * 11 + col`), 0..121.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Column, 0 for A to 10 for K.
    #[inline]
    pub const fn col(self) -> u8 {
        self.0 % 11
    }

    /// Row, 0 for row 1 to 10 for row 11.
    #[inline]
    pub const fn row(self) -> u8 {
        self.0 / 11
    }

    /// The neighbouring point one step in `dir`, if it is on the board.
    pub const fn step(self, dir: Direction) -> Option<Point> {
        let (dc, dr) = dir.delta();
        let c = self.col() as i32 + dc;
        let r = self.row() as i32 + dr;
        if on_board(c, r) {
            Some(Point((r * 11 + c) as u8))
        } else {
            None
        }
    }

    /// All 85 points in ascending cell order.
    pub fn all() -> impl Iterator<Item = Point> {
        (0..CELLS as u8).filter_map(Point::from_index)
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.col()) as char, self.row() + 1)
    }
}

impl fmt::Debug for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a point name did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParsePointError {
    #[error("`{0}` is not a point name (expected a column a-k and a row 1-11, e.g. `e3`)")]
    Syntax(String),
    #[error("`{0}` is not on the board")]
    OffBoard(String),
}

impl FromStr for Point {
    type Err = ParsePointError;

    fn from_str(s: &str) -> Result<Point, ParsePointError> {
        let bytes = s.as_bytes();
        let syntax = || ParsePointError::Syntax(s.to_string());
        let (&c, digits) = bytes.split_first().ok_or_else(syntax)?;
        let col = c.to_ascii_lowercase();
        if !(b'a'..=b'k').contains(&col)
            || digits.is_empty()
            || digits.len() > 2
            || !digits.iter().all(u8::is_ascii_digit)
            || digits[0] == b'0'
        {
            return Err(syntax());
        }
        let row: u8 = digits.iter().fold(0, |acc, d| acc * 10 + (d - b'0'));
        if !(1..=11).contains(&row) {
            return Err(ParsePointError::OffBoard(s.to_string()));
        }
        Point::new(col - b'a', row - 1).ok_or_else(|| ParsePointError::OffBoard(s.to_string()))
    }
}

/// One of the three line axes of the board.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Axis {
    /// (1,0): next column, same row number; cell step +1.
    Row = 0,
    /// (0,1): along a column; cell step +11.
    Column = 1,
    /// (1,1): column letter and row number grow together; cell step +12.
    Diagonal = 2,
}

impl Axis {
    pub const ALL: [Axis; 3] = [Axis::Row, Axis::Column, Axis::Diagonal];

    /// Cell-index step along the axis in its positive sense.
    #[inline]
    pub const fn step(self) -> u32 {
        match self {
            Axis::Row => 1,
            Axis::Column => 11,
            Axis::Diagonal => 12,
        }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn from_index(i: usize) -> Axis {
        Axis::ALL[i]
    }

    /// The direction in which cell indices grow along this axis.
    pub const fn positive(self) -> Direction {
        Direction::ALL[self as usize]
    }
}

/// One of the six directions a ring can move in.
///
/// The first three point the way cell indices grow; direction `d + 3` is the
/// opposite of direction `d`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Direction {
    /// (+1, 0)
    East = 0,
    /// (0, +1)
    North = 1,
    /// (+1, +1)
    NorthEast = 2,
    /// (-1, 0)
    West = 3,
    /// (0, -1)
    South = 4,
    /// (-1, -1)
    SouthWest = 5,
}

impl Direction {
    pub const ALL: [Direction; 6] = [
        Direction::East,
        Direction::North,
        Direction::NorthEast,
        Direction::West,
        Direction::South,
        Direction::SouthWest,
    ];

    /// (column step, row step).
    pub const fn delta(self) -> (i32, i32) {
        match self {
            Direction::East => (1, 0),
            Direction::North => (0, 1),
            Direction::NorthEast => (1, 1),
            Direction::West => (-1, 0),
            Direction::South => (0, -1),
            Direction::SouthWest => (-1, -1),
        }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn from_index(i: usize) -> Direction {
        Direction::ALL[i]
    }

    #[inline]
    pub const fn axis(self) -> Axis {
        Axis::ALL[self as usize % 3]
    }

    /// Whether cell indices grow in this direction.
    #[inline]
    pub const fn is_positive(self) -> bool {
        (self as usize) < 3
    }

    pub const fn opposite(self) -> Direction {
        Direction::ALL[(self as usize + 3) % 6]
    }

    /// The direction and distance from `from` to `to`, if they lie on one
    /// line (distance >= 1).
    pub const fn between(from: Point, to: Point) -> Option<(Direction, u8)> {
        let dc = to.col() as i32 - from.col() as i32;
        let dr = to.row() as i32 - from.row() as i32;
        let (dir, dist) = if dr == 0 && dc != 0 {
            (
                if dc > 0 {
                    Direction::East
                } else {
                    Direction::West
                },
                dc,
            )
        } else if dc == 0 && dr != 0 {
            (
                if dr > 0 {
                    Direction::North
                } else {
                    Direction::South
                },
                dr,
            )
        } else if dc == dr && dc != 0 {
            (
                if dc > 0 {
                    Direction::NorthEast
                } else {
                    Direction::SouthWest
                },
                dc,
            )
        } else {
            return None;
        };
        Some((dir, if dist < 0 { -dist } else { dist } as u8))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::yinsh::lines::*;

    #[test]
    fn board_matches_the_rules_table() {
        // Column A..K: rows (1-based) from..=to, as pinned in the rules doc.
        let table = [
            (2, 5),
            (1, 7),
            (1, 8),
            (1, 9),
            (1, 10),
            (2, 10),
            (2, 11),
            (3, 11),
            (4, 11),
            (5, 11),
            (7, 10),
        ];
        let mut n = 0;
        for (col, &(lo, hi)) in table.iter().enumerate() {
            for row in 1..=11u8 {
                let on = Point::new(col as u8, row - 1).is_some();
                assert_eq!(on, (lo..=hi).contains(&row), "col {col} row {row}");
                n += on as usize;
            }
        }
        assert_eq!(n, POINTS);
        assert_eq!(VALID.count() as usize, POINTS);
    }

    #[test]
    fn lines_and_windows() {
        // Each axis has 11 lines of lengths 4,7,8,9,10,9,10,9,8,7,4.
        for axis in Axis::ALL {
            let d = axis.positive();
            let mut lengths: Vec<u32> = Point::all()
                .filter(|p| p.step(d.opposite()).is_none())
                .map(|p| ray(p, d).count() + 1)
                .collect();
            lengths.sort();
            let mut want = vec![4, 7, 8, 9, 10, 9, 10, 9, 8, 7, 4];
            want.sort();
            assert_eq!(lengths, want, "{axis:?}");
        }
        let windows: usize = Point::all()
            .map(|p| {
                Axis::ALL
                    .iter()
                    .filter(|&&a| window(p, a).is_some())
                    .count()
            })
            .sum();
        assert_eq!(windows, 123);
    }

    #[test]
    fn five_starts_finds_exactly_the_geometric_windows() {
        for axis in Axis::ALL {
            let starts = five_starts(VALID, axis);
            for p in Point::all() {
                assert_eq!(
                    starts.contains(p),
                    window(p, axis).is_some(),
                    "{p} {axis:?}"
                );
            }
            assert!((starts & !VALID).is_empty());
        }
    }

    #[test]
    fn parse_and_print() {
        for p in Point::all() {
            assert_eq!(p.to_string().parse::<Point>().unwrap(), p);
        }
        for bad in ["", "a", "l5", "a0", "a01", "e12", "k11", "a1", "e3x", "3e"] {
            assert!(bad.parse::<Point>().is_err(), "{bad}");
        }
    }
}
