//! The boards of the Morris family: points, lines, mills and symmetries.
//!
//! Every board is concentric squares ("rings") of eight points each, the
//! corners at even and the side midpoints at odd positions, numbered
//! clockwise from the lower-left corner, plus (Three Men's Morris) a centre
//! point. A point's number is `ring * 8 + k`, the centre last. Written this
//! way the symmetries are arithmetic: the 8 of the square act on `k`
//! (`k + 2j` turns, `-k + 2j` reflects), and swapping the inner and outer
//! rings is `ring -> rings - 1 - ring`.
//!
//! Sets of points are `u32` bit masks (bit `p` for point `p`).

use std::fmt;

pub use crate::game::Square;

/// One of a board's points, by number (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Point(pub u8);

impl Point {
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    pub const fn bit(self) -> u32 {
        1 << self.0
    }
}

/// The Morris games this module knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    Nine,
    Six,
    Three,
}

impl Variant {
    /// Names as configs, records and the command line write them, the
    /// usual game first.
    pub const NAMES: [&'static str; 3] = ["nine", "six", "three"];

    pub fn name(self) -> &'static str {
        match self {
            Variant::Nine => "nine",
            Variant::Six => "six",
            Variant::Three => "three",
        }
    }

    pub fn from_name(name: &str) -> Option<Variant> {
        match name {
            "nine" => Some(Variant::Nine),
            "six" => Some(Variant::Six),
            "three" => Some(Variant::Three),
            _ => None,
        }
    }

    /// The board and rules of this variant.
    pub fn geometry(self) -> &'static Geometry {
        use std::sync::OnceLock;
        static NINE: OnceLock<Geometry> = OnceLock::new();
        static SIX: OnceLock<Geometry> = OnceLock::new();
        static THREE: OnceLock<Geometry> = OnceLock::new();
        match self {
            Variant::Nine => NINE.get_or_init(|| Geometry::new(Variant::Nine)),
            Variant::Six => SIX.get_or_init(|| Geometry::new(Variant::Six)),
            Variant::Three => THREE.get_or_init(|| Geometry::new(Variant::Three)),
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A symmetry of a board: a permutation of its points that keeps lines,
/// adjacency and mills.
#[derive(Clone, Debug)]
pub struct Symmetry {
    /// `perm[p]` is where point `p` goes.
    pub perm: Vec<u8>,
    /// Byte-wise lookup tables mapping a mask's bits at once: the image of
    /// `mask` is `lut[0][mask & 0xff] | lut[1][(mask >> 8) & 0xff] | ...`.
    lut: [[u32; 256]; 4],
}

impl Symmetry {
    fn new(perm: Vec<u8>) -> Symmetry {
        let mut lut = [[0u32; 256]; 4];
        for (byte, table) in lut.iter_mut().enumerate() {
            for (bits, out) in table.iter_mut().enumerate() {
                let mut m = 0u32;
                for b in 0..8 {
                    let p = byte * 8 + b;
                    if bits & (1 << b) != 0 && p < perm.len() {
                        m |= 1 << perm[p];
                    }
                }
                *out = m;
            }
        }
        Symmetry { perm, lut }
    }

    /// The image of a set of points.
    #[inline]
    pub fn map(&self, mask: u32) -> u32 {
        self.lut[0][(mask & 0xff) as usize]
            | self.lut[1][((mask >> 8) & 0xff) as usize]
            | self.lut[2][((mask >> 16) & 0xff) as usize]
            | self.lut[3][(mask >> 24) as usize]
    }

    #[inline]
    pub fn point(&self, p: Point) -> Point {
        Point(self.perm[p.index()])
    }
}

/// A board and the rules that differ between the variants.
#[derive(Clone, Debug)]
pub struct Geometry {
    pub variant: Variant,
    /// Number of points.
    pub points: usize,
    /// Concentric rings of eight points.
    pub rings: usize,
    /// Whether there is a centre point (the last one).
    pub centre: bool,
    /// Stones each player has to place.
    pub stones: u8,
    /// A player down to exactly three stones may move one to any empty
    /// point (Nine Men's Morris).
    pub flying: bool,
    /// Closing a mill wins the game at once (Three Men's Morris, where
    /// nobody ever removes a stone).
    pub mill_wins: bool,
    /// Side of the square grid the points sit on (7, 5, 3).
    pub side: usize,
    /// Mask of all points.
    pub all: u32,
    /// `adjacent[p]`: the points one step from `p` along a line.
    pub adjacent: Vec<u32>,
    /// Every mill (three points on one line) as a mask.
    pub mills: Vec<u32>,
    /// `mills_at[p]`: the mills through `p`.
    pub mills_at: Vec<Vec<u32>>,
    /// `(column, row)` of each point on the grid, from the lower left.
    pub coords: Vec<(u8, u8)>,
    /// The board's symmetries, the identity first.
    pub symmetries: Vec<Symmetry>,
}

impl Geometry {
    fn new(variant: Variant) -> Geometry {
        let (rings, centre, stones, flying, mill_wins) = match variant {
            Variant::Nine => (3, false, 9, true, false),
            Variant::Six => (2, false, 6, false, false),
            Variant::Three => (1, true, 3, false, true),
        };
        let points = rings * 8 + usize::from(centre);
        let side = 2 * rings + 1;
        let mid = rings as i32;
        let centre_point = (rings * 8) as u8;
        let mut coords = Vec::with_capacity(points);
        for r in 0..rings {
            let s = (rings - r) as i32;
            for k in 0..8 {
                let (dx, dy) = match k {
                    0 => (-s, -s),
                    1 => (-s, 0),
                    2 => (-s, s),
                    3 => (0, s),
                    4 => (s, s),
                    5 => (s, 0),
                    6 => (s, -s),
                    _ => (0, -s),
                };
                coords.push(((mid + dx) as u8, (mid + dy) as u8));
            }
        }
        if centre {
            coords.push((mid as u8, mid as u8));
        }

        let pt = |r: usize, k: usize| (r * 8 + k % 8) as u8;
        let mut adjacent = vec![0u32; points];
        let mut link = |a: u8, b: u8| {
            adjacent[a as usize] |= 1 << b;
            adjacent[b as usize] |= 1 << a;
        };
        for r in 0..rings {
            for k in 0..8 {
                link(pt(r, k), pt(r, k + 1));
            }
        }
        for r in 0..rings.saturating_sub(1) {
            for k in [1, 3, 5, 7] {
                link(pt(r, k), pt(r + 1, k));
            }
        }
        let mut mills = Vec::new();
        for r in 0..rings {
            for k in [0, 2, 4, 6] {
                mills.push([pt(r, k), pt(r, k + 1), pt(r, k + 2)]);
            }
        }
        if rings == 3 {
            for k in [1, 3, 5, 7] {
                mills.push([pt(0, k), pt(1, k), pt(2, k)]);
            }
        }
        if centre {
            // The middle row and column, and both diagonals: every point of
            // the ring is one step from the centre along a drawn line.
            for k in 0..8 {
                link(pt(0, k), centre_point);
            }
            for k in [0, 1, 2, 3] {
                mills.push([pt(0, k), centre_point, pt(0, k + 4)]);
            }
        }
        let mills: Vec<u32> = mills
            .iter()
            .map(|m| m.iter().fold(0, |acc, &p| acc | 1 << p))
            .collect();
        let mills_at = (0..points)
            .map(|p| {
                mills
                    .iter()
                    .copied()
                    .filter(|m| m & (1 << p) != 0)
                    .collect()
            })
            .collect();

        let mut symmetries = Vec::new();
        let swaps: &[bool] = if rings >= 2 { &[false, true] } else { &[false] };
        for &swap in swaps {
            for reflect in [false, true] {
                for turn in 0..4 {
                    let perm = (0..points)
                        .map(|p| {
                            if centre && p == points - 1 {
                                return p as u8;
                            }
                            let (r, k) = (p / 8, (p % 8) as i32);
                            let k2 = if reflect { -k } else { k } + 2 * turn;
                            let r2 = if swap { rings - 1 - r } else { r };
                            pt(r2, k2.rem_euclid(8) as usize)
                        })
                        .collect();
                    symmetries.push(Symmetry::new(perm));
                }
            }
        }
        Geometry {
            variant,
            points,
            rings,
            centre,
            stones,
            flying,
            mill_wins,
            side,
            all: if points == 32 {
                u32::MAX
            } else {
                (1u32 << points) - 1
            },
            adjacent,
            mills,
            mills_at,
            coords,
            symmetries,
        }
    }

    /// The point's name: column letter and row number (`a1`, `d7`).
    pub fn name(&self, p: Point) -> String {
        self.square(p).to_string()
    }

    /// Where a point sits on the grid.
    pub fn square(&self, p: Point) -> Square {
        let (col, row) = self.coords[p.index()];
        Square { col, row }
    }

    /// The point on `square`, if the board has one there.
    pub fn point_at(&self, square: Square) -> Option<Point> {
        self.coords
            .iter()
            .position(|&xy| xy == (square.col, square.row))
            .map(|p| Point(p as u8))
    }

    /// The point called `name`, if the board has one.
    pub fn parse_point(&self, name: &str) -> Option<Point> {
        self.point_at(Square::parse(name)?)
    }

    /// The grid cell (`row * side + column`) of a point.
    pub fn cell(&self, p: Point) -> usize {
        let (c, r) = self.coords[p.index()];
        r as usize * self.side + c as usize
    }

    /// Whether `p` lies in a mill made entirely of `stones`.
    #[inline]
    pub fn in_mill(&self, stones: u32, p: Point) -> bool {
        self.mills_at[p.index()].iter().any(|&m| m & !stones == 0)
    }

    /// The stones of `stones` that an opponent's mill may remove: those in
    /// no mill, or all of them when every one is in a mill.
    pub fn removable(&self, stones: u32) -> u32 {
        let mut in_mills = 0;
        for &m in &self.mills {
            if stones & m == m {
                in_mills |= m;
            }
        }
        let free = stones & !in_mills;
        if free != 0 { free } else { stones }
    }

    /// The points a stone at `from` may go to, given the empty points and
    /// whether its owner flies.
    #[inline]
    pub fn targets(&self, from: Point, empty: u32, flies: bool) -> u32 {
        if flies {
            empty
        } else {
            self.adjacent[from.index()] & empty
        }
    }

    /// Whether a player with `on_board` stones and none to place flies.
    #[inline]
    pub fn flies(&self, on_board: u32) -> bool {
        self.flying && on_board == 3
    }
}

/// The points of a mask, lowest first.
pub fn points(mut mask: u32) -> impl Iterator<Item = Point> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let p = mask.trailing_zeros() as u8;
        mask &= mask - 1;
        Some(Point(p))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_have_the_known_points_lines_and_symmetries() {
        let nine = Variant::Nine.geometry();
        assert_eq!(nine.points, 24);
        assert_eq!(nine.mills.len(), 16);
        assert_eq!(nine.symmetries.len(), 16);
        let links: u32 = nine.adjacent.iter().map(|m| m.count_ones()).sum();
        assert_eq!(links / 2, 32);
        let names: Vec<String> = (0..8).map(|k| nine.name(Point(k))).collect();
        assert_eq!(names, ["a1", "a4", "a7", "d7", "g7", "g4", "g1", "d1"]);
        assert_eq!(nine.name(Point(16)), "c3");
        assert_eq!(nine.parse_point("e4"), Some(Point(21)));
        assert_eq!(nine.parse_point("b1"), None);

        let six = Variant::Six.geometry();
        assert_eq!(
            (six.points, six.mills.len(), six.symmetries.len()),
            (16, 8, 16)
        );
        let links: u32 = six.adjacent.iter().map(|m| m.count_ones()).sum();
        assert_eq!(links / 2, 20);

        let three = Variant::Three.geometry();
        assert_eq!(
            (three.points, three.mills.len(), three.symmetries.len()),
            (9, 8, 8)
        );
        assert_eq!(three.adjacent[8].count_ones(), 8);
        assert_eq!(three.name(Point(8)), "b2");
    }

    #[test]
    fn symmetries_keep_adjacency_and_mills() {
        for v in [Variant::Nine, Variant::Six, Variant::Three] {
            let g = v.geometry();
            for s in &g.symmetries {
                for p in 0..g.points {
                    let adj = s.map(g.adjacent[p]);
                    assert_eq!(adj, g.adjacent[s.perm[p] as usize], "{v} point {p}");
                }
                let mut mapped: Vec<u32> = g.mills.iter().map(|&m| s.map(m)).collect();
                let mut mills = g.mills.clone();
                mapped.sort_unstable();
                mills.sort_unstable();
                assert_eq!(mapped, mills, "{v}");
            }
        }
    }
}
