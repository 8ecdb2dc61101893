//! Points of a square grid named like chess squares, for games drawn on one.

use std::fmt;

/// A point by file and rank: what actions carry, so that an action prints
/// (`d2`) without knowing its board.
///
/// ```
/// use yinsh_zero::game::Square;
/// let s = Square::parse("c7").unwrap();
/// assert_eq!((s.col, s.row), (2, 6));
/// assert_eq!(s.to_string(), "c7");
/// assert_eq!(Square::parse("c0"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square {
    /// From the left, 0 = `a`.
    pub col: u8,
    /// From the bottom, 0 = `1`.
    pub row: u8,
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.col) as char, self.row + 1)
    }
}

impl Square {
    /// Reads `a1`-style names (any board: whether the square is on it is
    /// the board's question).
    pub fn parse(name: &str) -> Option<Square> {
        let b = name.as_bytes();
        if b.len() < 2 || !b[0].is_ascii_lowercase() || !b[1].is_ascii_digit() {
            return None;
        }
        let row: u8 = name[1..].parse().ok()?;
        Some(Square {
            col: b[0] - b'a',
            row: row.checked_sub(1)?,
        })
    }
}
