//! A set of board points packed in one `u128`.
//!
//! The 85 points live on an 11x11 grid (121 cells), so one 128-bit word holds
//! any set of them and unions, intersections and line scans are single
//! instructions (two on x86-64).

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

use super::point::Point;

/// A set of points, one bit per cell of the 11x11 grid.
///
/// ```
/// use yinsh_zero::games::yinsh::{Bitboard, Point};
/// let e3: Point = "e3".parse().unwrap();
/// let bb = Bitboard::from_point(e3);
/// assert!(bb.contains(e3));
/// assert_eq!(bb.count(), 1);
/// assert_eq!(bb.into_iter().collect::<Vec<_>>(), vec![e3]);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Bitboard(pub u128);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);

    #[inline]
    pub const fn from_point(p: Point) -> Bitboard {
        Bitboard(1u128 << p.index())
    }

    #[inline]
    pub const fn contains(self, p: Point) -> bool {
        self.0 >> p.index() & 1 != 0
    }

    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// The point with the lowest cell index, if any.
    #[inline]
    pub const fn first(self) -> Option<Point> {
        if self.0 == 0 {
            None
        } else {
            Some(Point::from_index_unchecked(self.0.trailing_zeros() as u8))
        }
    }

    /// The point with the highest cell index, if any.
    #[inline]
    pub const fn last(self) -> Option<Point> {
        if self.0 == 0 {
            None
        } else {
            Some(Point::from_index_unchecked(
                127 - self.0.leading_zeros() as u8,
            ))
        }
    }

    /// The `n`-th point in ascending cell order (0-based).
    #[inline]
    pub fn select(self, n: u32) -> Option<Point> {
        // Clear the n lowest bits one word at a time: fast for the sparse
        // sets that uniform random play draws from.
        let lo = self.0 as u64;
        let c = lo.count_ones();
        let (mut word, mut n, base) = if n < c {
            (lo, n, 0u8)
        } else {
            ((self.0 >> 64) as u64, n - c, 64u8)
        };
        if n >= word.count_ones() {
            return None;
        }
        while n > 0 {
            word &= word - 1;
            n -= 1;
        }
        Some(Point::from_index_unchecked(
            base + word.trailing_zeros() as u8,
        ))
    }

    /// Points with a cell index strictly below `p`.
    #[inline]
    pub const fn below(p: Point) -> Bitboard {
        Bitboard((1u128 << p.index()) - 1)
    }

    /// Points with a cell index strictly above `p`.
    #[inline]
    pub const fn above(p: Point) -> Bitboard {
        Bitboard(!((2u128 << p.index()).wrapping_sub(1)))
    }

    #[inline]
    pub const fn with(self, p: Point) -> Bitboard {
        Bitboard(self.0 | 1u128 << p.index())
    }

    #[inline]
    pub const fn without(self, p: Point) -> Bitboard {
        Bitboard(self.0 & !(1u128 << p.index()))
    }
}

impl Iterator for Bitboard {
    type Item = Point;

    #[inline]
    fn next(&mut self) -> Option<Point> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Point::from_index_unchecked(i))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

impl FromIterator<Point> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Point>>(iter: I) -> Self {
        iter.into_iter().fold(Bitboard::EMPTY, |b, p| b.with(p))
    }
}

macro_rules! bitop {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $atr for Bitboard {
            #[inline]
            fn $af(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bitop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bitop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bitop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(*self).finish()
    }
}
