//! The 12 symmetries of the board: 6 rotations about F6 and their mirror
//! images.
//!
//! With `x = col - 5` and `y = row - 5` (0-based row, so F6 is the origin),
//! a 60-degree rotation is `(x, y) -> (x - y, x)` and the mirror is
//! `(x, y) -> (y, x)`. Both are linear maps that send each of the three line
//! axes onto a line axis, so they map rings, markers, moves and rows of five
//! onto rings, markers, moves and rows of five: a symmetric image of a
//! position has the symmetric images of its legal actions, and every game
//! result is unchanged. Self-play uses this to multiply its training data.
//!
//! Symmetry `k` (0..12) is `r = k % 6` rotations followed by a mirror when
//! `k >= 6`; 0 is the identity. Every table below is built once: points and
//! directions at compile time, the dense action-index permutation on first
//! use.

use std::sync::LazyLock;

use super::action::{ACTION_SPACE, Action};
use super::bitboard::Bitboard;
use super::point::{CELLS, Direction, Point};
use super::position::Position;

/// One of the 12 symmetries of the board.
///
/// ```
/// use yinsh_zero::games::yinsh::{Point, symmetry::Symmetry};
/// let e3: Point = "e3".parse().unwrap();
/// let f6: Point = "f6".parse().unwrap();
/// // The centre is fixed by every symmetry; other points move around it.
/// assert!(Symmetry::ALL.iter().all(|s| s.point(f6) == f6));
/// let images: std::collections::HashSet<Point> =
///     Symmetry::ALL.iter().map(|s| s.point(e3)).collect();
/// assert_eq!(images.len(), 12);
/// // Undoing a symmetry gets the point back.
/// for s in Symmetry::ALL {
///     assert_eq!(s.inverse().point(s.point(e3)), e3);
/// }
/// ```
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct Symmetry(u8);

/// Number of symmetries.
const COUNT: usize = 12;

/// Image of the vector `(x, y)` (relative to F6) under symmetry `s`.
const fn map_vector(s: usize, x: i32, y: i32) -> (i32, i32) {
    let (mut x, mut y) = (x, y);
    let mut r = 0;
    while r < s % 6 {
        (x, y) = (x - y, x);
        r += 1;
    }
    if s >= 6 { (y, x) } else { (x, y) }
}

/// `POINT_TABLE[s][cell]`: the cell that symmetry `s` sends `cell` to. Cells
/// that are not board points map to themselves; no bitboard or action ever
/// holds one.
static POINT_TABLE: [[u8; CELLS]; COUNT] = {
    let mut t = [[0u8; CELLS]; COUNT];
    let mut s = 0;
    while s < COUNT {
        let mut cell = 0;
        while cell < CELLS {
            t[s][cell] = cell as u8;
            if Point::from_index(cell as u8).is_some() {
                let (x, y) = map_vector(s, (cell % 11) as i32 - 5, (cell / 11) as i32 - 5);
                t[s][cell] = ((y + 5) * 11 + (x + 5)) as u8;
            }
            cell += 1;
        }
        s += 1;
    }
    t
};

/// `DIRECTION_TABLE[s][d]`: the direction symmetry `s` sends direction `d` to.
static DIRECTION_TABLE: [[Direction; 6]; COUNT] = {
    let mut t = [[Direction::East; 6]; COUNT];
    let mut s = 0;
    while s < COUNT {
        let mut d = 0;
        while d < 6 {
            let (dc, dr) = Direction::ALL[d].delta();
            let image = map_vector(s, dc, dr);
            let mut e = 0;
            while e < 6 {
                let delta = Direction::ALL[e].delta();
                if delta.0 == image.0 && delta.1 == image.1 {
                    t[s][d] = Direction::ALL[e];
                }
                e += 1;
            }
            d += 1;
        }
        s += 1;
    }
    t
};

/// `COMPOSE[a][b]`: the symmetry "first `a`, then `b`". The maps are linear,
/// so the images of the two unit vectors identify them.
const COMPOSE: [[u8; COUNT]; COUNT] = {
    let mut t = [[0u8; COUNT]; COUNT];
    let mut a = 0;
    while a < COUNT {
        let mut b = 0;
        while b < COUNT {
            let (ux, uy) = map_vector(a, 1, 0);
            let (vx, vy) = map_vector(a, 0, 1);
            let u = map_vector(b, ux, uy);
            let v = map_vector(b, vx, vy);
            let mut c = 0;
            while c < COUNT {
                let cu = map_vector(c, 1, 0);
                let cv = map_vector(c, 0, 1);
                if cu.0 == u.0 && cu.1 == u.1 && cv.0 == v.0 && cv.1 == v.1 {
                    t[a][b] = c as u8;
                }
                c += 1;
            }
            b += 1;
        }
        a += 1;
    }
    t
};

/// `ACTION_TABLE[s * ACTION_SPACE + i]`: the dense index that symmetry `s`
/// sends index `i` to. Indices that name no action map to themselves, so each
/// row is a permutation of `0..ACTION_SPACE`.
static ACTION_TABLE: LazyLock<Box<[u16]>> = LazyLock::new(|| {
    let mut t = vec![0u16; COUNT * ACTION_SPACE];
    for (s, row) in t.chunks_exact_mut(ACTION_SPACE).enumerate() {
        let sym = Symmetry(s as u8);
        for (i, slot) in row.iter_mut().enumerate() {
            let image = Action::from_index(i).map_or(i, |a| sym.action(a).index());
            *slot = image as u16;
        }
    }
    t.into_boxed_slice()
});

impl Symmetry {
    /// The identity.
    pub const IDENTITY: Symmetry = Symmetry(0);

    /// All 12 symmetries, the identity first.
    pub const ALL: [Symmetry; 12] = {
        let mut all = [Symmetry(0); COUNT];
        let mut s = 0;
        while s < COUNT {
            all[s] = Symmetry(s as u8);
            s += 1;
        }
        all
    };

    /// The symmetry numbered `index` (0..12): `index % 6` rotations by 60
    /// degrees, then a mirror when `index >= 6`.
    pub const fn from_index(index: usize) -> Option<Symmetry> {
        if index < COUNT {
            Some(Symmetry(index as u8))
        } else {
            None
        }
    }

    /// The number of this symmetry, 0..12.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Number of 60-degree rotations (counter-clockwise on the ASCII board).
    #[inline]
    pub const fn rotations(self) -> u8 {
        self.0 % 6
    }

    /// Whether the mirror `(x, y) -> (y, x)` follows the rotations.
    #[inline]
    pub const fn is_mirror(self) -> bool {
        self.0 >= 6
    }

    /// The symmetry that undoes this one.
    ///
    /// ```
    /// use yinsh_zero::games::yinsh::symmetry::Symmetry;
    /// for s in Symmetry::ALL {
    ///     assert_eq!(s.then(s.inverse()), Symmetry::IDENTITY);
    /// }
    /// ```
    pub fn inverse(self) -> Symmetry {
        let a = self.index();
        let b = (0..COUNT)
            .find(|&b| COMPOSE[a][b] == 0)
            .expect("the symmetries form a group");
        Symmetry(b as u8)
    }

    /// First `self`, then `other`: `self.then(other).point(p) ==
    /// other.point(self.point(p))`.
    ///
    /// ```
    /// use yinsh_zero::games::yinsh::{Point, symmetry::Symmetry};
    /// let p: Point = "b7".parse().unwrap();
    /// let (a, b) = (Symmetry::ALL[1], Symmetry::ALL[7]);
    /// assert_eq!(a.then(b).point(p), b.point(a.point(p)));
    /// ```
    #[inline]
    pub fn then(self, other: Symmetry) -> Symmetry {
        Symmetry(COMPOSE[self.index()][other.index()])
    }

    /// The image of a point.
    #[inline]
    pub fn point(self, p: Point) -> Point {
        Point::from_index_unchecked(POINT_TABLE[self.index()][p.index()])
    }

    /// The image of a direction.
    ///
    /// ```
    /// use yinsh_zero::games::yinsh::{Direction, symmetry::Symmetry};
    /// // One rotation turns the (1,0) direction into (1,1).
    /// assert_eq!(Symmetry::ALL[1].direction(Direction::East), Direction::NorthEast);
    /// ```
    #[inline]
    pub fn direction(self, d: Direction) -> Direction {
        DIRECTION_TABLE[self.index()][d.index()]
    }

    /// The image of a set of points.
    #[inline]
    pub fn bitboard(self, b: Bitboard) -> Bitboard {
        let table = &POINT_TABLE[self.index()];
        let bits = b.fold(0u128, |acc, p| acc | 1u128 << table[p.index()]);
        Bitboard(bits)
    }

    /// The image of an action. A row removal is named by its lower end (see
    /// [`Action::RemoveRow`]), so the transformed row is renamed by whichever
    /// of its transformed ends is now the lower, along its new axis.
    ///
    /// ```
    /// use yinsh_zero::games::yinsh::{Action, Axis, symmetry::Symmetry};
    /// let row = Action::RemoveRow { start: "c3".parse().unwrap(), axis: Axis::Row };
    /// assert_eq!(row.to_string(), "xc3-g3");
    /// // One rotation sends the row along the (1,1) axis.
    /// assert_eq!(Symmetry::ALL[1].action(row).to_string(), "xf3-j7");
    /// // Three rotations (half a turn) reverse it: the lower end changes.
    /// assert_eq!(Symmetry::ALL[3].action(row).to_string(), "xe9-i9");
    /// ```
    pub fn action(self, a: Action) -> Action {
        match a {
            Action::Place(p) => Action::Place(self.point(p)),
            Action::Move { from, to } => Action::Move {
                from: self.point(from),
                to: self.point(to),
            },
            Action::RemoveRow { start, axis } => {
                let end = Action::row_points(start, axis)[4];
                let (a, b) = (self.point(start), self.point(end));
                let (lo, hi) = if a.index() < b.index() {
                    (a, b)
                } else {
                    (b, a)
                };
                let (dir, _) = Direction::between(lo, hi).expect("a row stays on one line");
                Action::RemoveRow {
                    start: lo,
                    axis: dir.axis(),
                }
            }
            Action::RemoveRing(p) => Action::RemoveRing(self.point(p)),
            Action::Pass => Action::Pass,
        }
    }

    /// The image of a position: rings and markers move, everything else
    /// (who acts, on what, rings removed, counters, variant, result) stays.
    ///
    /// ```
    /// use yinsh_zero::games::yinsh::{Position, symmetry::Symmetry};
    /// let mut pos = Position::new();
    /// pos.play(pos.legal_actions()[3]).unwrap();
    /// for s in Symmetry::ALL {
    ///     let image = s.position(&pos);
    ///     assert_eq!(s.inverse().position(&image), pos);
    ///     assert_eq!(image.legal_actions().len(), pos.legal_actions().len());
    /// }
    /// ```
    pub fn position(self, pos: &Position) -> Position {
        let mut out = *pos;
        for i in 0..2 {
            out.rings[i] = self.bitboard(pos.rings[i]);
            out.markers[i] = self.bitboard(pos.markers[i]);
        }
        out
    }

    /// The dense index of the image of the action with dense index `index`
    /// (`Action::from_index(index).map(|a| self.action(a).index())`), read
    /// from a table. Indices that name no action map to themselves, so this
    /// is a permutation of `0..ACTION_SPACE`.
    ///
    /// ```
    /// use yinsh_zero::games::yinsh::{Action, symmetry::Symmetry};
    /// let a = Action::Move { from: "a2".parse().unwrap(), to: "a5".parse().unwrap() };
    /// let s = Symmetry::ALL[8];
    /// assert_eq!(s.action_index(a.index()), s.action(a).index());
    /// ```
    #[inline]
    pub fn action_index(self, index: usize) -> usize {
        self.action_indices()[index] as usize
    }

    /// The whole permutation behind [`Symmetry::action_index`]: entry `i` is
    /// the image of index `i`. To carry a policy vector over to the
    /// transformed position: `out[table[i]] = policy[i]`.
    pub fn action_indices(self) -> &'static [u16] {
        let start = self.index() * ACTION_SPACE;
        &ACTION_TABLE[start..start + ACTION_SPACE]
    }
}
