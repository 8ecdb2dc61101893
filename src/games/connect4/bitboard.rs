//! The board as bits of a `u64`, in Pascal Pons's layout: column `c` takes
//! bits `7c` (the bottom cell) to `7c + 5` (the top one), and bit `7c + 6`
//! is a spare that stays 0, so that a four in a line never wraps from one
//! column into the next and `mask + bottom` finds each column's free cell.
//!
//! Why this layout: a position is two words (the player to act's stones
//! and the occupied cells), a move is two additions, and a four in any of
//! the four directions is two shifts and two ANDs, which is what makes the
//! exact solver fast (<http://blog.gamesolver.org/solving-connect-four/>).

/// Columns of the board.
pub const WIDTH: usize = 7;
/// Rows of the board.
pub const HEIGHT: usize = 6;
/// Cells of the board: the most stones a game can have.
pub const CELLS: usize = WIDTH * HEIGHT;
/// Bits per column (the rows and the spare above them).
pub const STRIDE: usize = HEIGHT + 1;

/// The bottom cell of every column.
pub const BOTTOM: u64 = bottom();
/// Every cell of the board (no spare bit).
pub const BOARD: u64 = BOTTOM * ((1 << HEIGHT) - 1);

const fn bottom() -> u64 {
    let mut b = 0;
    let mut c = 0;
    while c < WIDTH {
        b |= 1 << (c * STRIDE);
        c += 1;
    }
    b
}

/// The bit of the cell in column `col` (0-based, left to right) and row
/// `row` (0 at the bottom).
pub const fn cell(col: usize, row: usize) -> u64 {
    1 << (col * STRIDE + row)
}

/// The bottom cell of column `col`.
pub const fn bottom_of(col: usize) -> u64 {
    1 << (col * STRIDE)
}

/// The top cell of column `col`: once it is taken, the column is full.
pub const fn top_of(col: usize) -> u64 {
    1 << (col * STRIDE + HEIGHT - 1)
}

/// The cells of column `col`.
pub const fn column(col: usize) -> u64 {
    ((1 << HEIGHT) - 1) << (col * STRIDE)
}

/// Whether `stones` hold four in a line: vertically, horizontally or on
/// either diagonal.
pub const fn has_four(stones: u64) -> bool {
    // Each shift by `d` pairs a cell with its neighbour in one direction;
    // two pairs `2d` apart make four.
    let mut k = 0;
    let dirs = [1, STRIDE, STRIDE - 1, STRIDE + 1];
    while k < 4 {
        let d = dirs[k];
        let m = stones & (stones >> d);
        if m & (m >> (2 * d)) != 0 {
            return true;
        }
        k += 1;
    }
    false
}

/// The empty cells (on the board, taken or not by gravity) where one more
/// stone of `stones` would make four in a line, `mask` being the occupied
/// cells: the player's threats.
pub const fn winning_cells(stones: u64, mask: u64) -> u64 {
    let p = stones;
    // Vertical: three below.
    let mut r = (p << 1) & (p << 2) & (p << 3);
    let mut k = 0;
    let dirs = [STRIDE, STRIDE - 1, STRIDE + 1];
    while k < 3 {
        let d = dirs[k];
        // Two on one side, and a third beyond them or on the other side.
        let a = (p << d) & (p << (2 * d));
        r |= a & (p << (3 * d));
        r |= a & (p >> d);
        let b = (p >> d) & (p >> (2 * d));
        r |= b & (p << d);
        r |= b & (p >> (3 * d));
        k += 1;
    }
    r & (BOARD ^ mask)
}

/// The column cells `stones` lie in, mirrored left to right: column `c`
/// goes to column `6 - c`.
pub const fn mirror(stones: u64) -> u64 {
    let mut out = 0;
    let mut c = 0;
    while c < WIDTH {
        let col = (stones >> (c * STRIDE)) & ((1 << STRIDE) - 1);
        out |= col << ((WIDTH - 1 - c) * STRIDE);
        c += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fours_in_every_direction_and_none_across_columns() {
        let vertical = cell(2, 0) | cell(2, 1) | cell(2, 2) | cell(2, 3);
        let horizontal = cell(1, 4) | cell(2, 4) | cell(3, 4) | cell(4, 4);
        let up = cell(0, 0) | cell(1, 1) | cell(2, 2) | cell(3, 3);
        let down = cell(6, 0) | cell(5, 1) | cell(4, 2) | cell(3, 3);
        for four in [vertical, horizontal, up, down] {
            assert!(has_four(four), "{four:b}");
            // Three of them are not four.
            assert!(!has_four(four & (four - 1)));
        }
        // The top of column 0 and the bottom of column 1 are not adjacent.
        let wrap = cell(0, 4) | cell(0, 5) | cell(1, 0) | cell(1, 1);
        assert!(!has_four(wrap));
        assert_eq!(BOARD.count_ones(), 42);
        assert_eq!(mirror(mirror(horizontal | up)), horizontal | up);
        assert_eq!(mirror(cell(0, 3)), cell(6, 3));
    }

    #[test]
    fn winning_cells_are_the_empty_fourth_cells() {
        let three = cell(1, 0) | cell(2, 0) | cell(3, 0);
        let w = winning_cells(three, three);
        assert_eq!(w, cell(0, 0) | cell(4, 0));
        let gap = cell(1, 0) | cell(3, 0) | cell(4, 0);
        assert_eq!(winning_cells(gap, gap), cell(2, 0));
        let col = cell(5, 0) | cell(5, 1) | cell(5, 2);
        assert_eq!(winning_cells(col, col), cell(5, 3));
    }
}
