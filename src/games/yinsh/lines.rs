//! The board's lines as bitboards: every point, the rays from each point
//! in each direction, the five-point windows of each axis, and the
//! whole-board shift that finds runs of five. Apart from `point`, so that
//! points know nothing of bitboards and bitboards nothing of lines.

use super::bitboard::Bitboard;
use super::point::{Axis, CELLS, Direction, ON_BOARD_BITS, Point, on_board};

/// Every point of the board.
pub const VALID: Bitboard = Bitboard(ON_BOARD_BITS);

/// `RAYS[p][d]`: the points beyond `p` in direction `d`, up to the board's edge.
pub static RAYS: [[Bitboard; 6]; CELLS] = {
    let mut rays = [[Bitboard(0); 6]; CELLS];
    let mut i = 0;
    while i < CELLS {
        let (c0, r0) = ((i % 11) as i32, (i / 11) as i32);
        if on_board(c0, r0) {
            let mut d = 0;
            while d < 6 {
                let (dc, dr) = Direction::ALL[d].delta();
                let (mut c, mut r) = (c0 + dc, r0 + dr);
                let mut bits = 0u128;
                while on_board(c, r) {
                    bits |= 1u128 << (r * 11 + c);
                    c += dc;
                    r += dr;
                }
                rays[i][d] = Bitboard(bits);
                d += 1;
            }
        }
        i += 1;
    }
    rays
};

/// `WINDOWS[p][a]`: the five points starting at `p` along axis `a` in its
/// positive sense, or empty when they do not all lie on the board.
pub static WINDOWS: [[Bitboard; 3]; CELLS] = {
    let mut w = [[Bitboard(0); 3]; CELLS];
    let mut i = 0;
    while i < CELLS {
        let (c0, r0) = ((i % 11) as i32, (i / 11) as i32);
        let mut a = 0;
        while a < 3 {
            let (dc, dr) = Direction::ALL[a].delta();
            let mut bits = 0u128;
            let mut k = 0;
            let mut ok = true;
            while k < 5 {
                let (c, r) = (c0 + dc * k, r0 + dr * k);
                if !on_board(c, r) {
                    ok = false;
                }
                if ok {
                    bits |= 1u128 << (r * 11 + c);
                }
                k += 1;
            }
            if ok {
                w[i][a] = Bitboard(bits);
            }
            a += 1;
        }
        i += 1;
    }
    w
};

/// The points beyond `p` in direction `d`.
#[inline]
pub fn ray(p: Point, d: Direction) -> Bitboard {
    RAYS[p.index()][d.index()]
}

/// The points strictly between two points on one line (empty if not on one line).
#[inline]
pub fn between(from: Point, to: Point) -> Bitboard {
    match Direction::between(from, to) {
        Some((d, _)) => ray(from, d) & !ray(to, d) & !Bitboard::from_point(to),
        None => Bitboard::EMPTY,
    }
}

/// The five-point window starting at `start` along `axis`, if it fits on the board.
#[inline]
pub fn window(start: Point, axis: Axis) -> Option<Bitboard> {
    let w = WINDOWS[start.index()][axis.index()];
    w.any().then_some(w)
}

/// Start points of every run of five set points along `axis`: bit `p` is set
/// when `p`, `p+s`, ..., `p+4s` are all in `set`. Five shifts and ANDs cover
/// the whole board at once.
#[inline]
pub fn five_starts(set: Bitboard, axis: Axis) -> Bitboard {
    let m = set.0;
    let s = axis.step();
    let two = m & (m >> s);
    let four = two & (two >> (2 * s));
    Bitboard(four & (m >> (4 * s)))
}
