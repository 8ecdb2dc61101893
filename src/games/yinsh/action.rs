//! The decisions of YINSH.
//!
//! Every decision is its own action: placing a ring, moving a ring, choosing
//! which row of five to remove, choosing which ring to remove, and passing.
//! Each action has a fixed dense index for the policy head of the network
//! (see [`Action::index`]).

use std::fmt;

pub use crate::game::Color;

use super::lines::{ray, window};
use super::point::{Axis, CELLS, Direction, Point};

/// One decision.
///
/// ```
/// use yinsh_zero::games::yinsh::{Action, Point};
/// let a = Action::Move { from: "a2".parse().unwrap(), to: "a4".parse().unwrap() };
/// assert_eq!(a.to_string(), "a2-a4");
/// assert_eq!(Action::from_index(a.index()), Some(a));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Action {
    /// Place a ring on an empty point (placement phase).
    Place(Point),
    /// Put a marker in the ring at `from` and move the ring to `to`.
    Move { from: Point, to: Point },
    /// Remove the five markers starting at `start` along `axis` (positive sense).
    RemoveRow { start: Point, axis: Axis },
    /// Remove one of one's own rings after removing a row.
    RemoveRing(Point),
    /// No ring can move.
    Pass,
}

/// Planes of the dense action index, each over the 121 grid cells.
pub mod planes {
    /// Place a ring on the cell.
    pub const PLACE: usize = 0;
    /// Ring moves: `MOVE + direction * 10 + (distance - 1)`, from the cell.
    pub const MOVE: usize = 1;
    /// Row removals: `REMOVE_ROW + axis`, starting at the cell.
    pub const REMOVE_ROW: usize = 61;
    /// Remove the ring on the cell.
    pub const REMOVE_RING: usize = 64;
    /// Number of planes.
    pub const COUNT: usize = 65;
}

/// Size of the dense action index: 65 planes of 121 cells plus one pass action.
pub const ACTION_SPACE: usize = planes::COUNT * CELLS + 1;

impl Action {
    /// The dense index of this action: `plane * 121 + cell`, with the pass
    /// action last. Planes are laid out as in [`planes`], so the index maps
    /// cleanly under board symmetries and onto a convolutional policy head.
    pub fn index(self) -> usize {
        match self {
            Action::Place(p) => planes::PLACE * CELLS + p.index(),
            Action::Move { from, to } => {
                let (d, dist) = Direction::between(from, to).expect("a move stays on one line");
                (planes::MOVE + d.index() * 10 + dist as usize - 1) * CELLS + from.index()
            }
            Action::RemoveRow { start, axis } => {
                (planes::REMOVE_ROW + axis.index()) * CELLS + start.index()
            }
            Action::RemoveRing(p) => planes::REMOVE_RING * CELLS + p.index(),
            Action::Pass => ACTION_SPACE - 1,
        }
    }

    /// The action with this dense index, if the index names a geometrically
    /// possible action (a point on the board, a move that stays on the board,
    /// a row that fits). Whether it is legal depends on the position.
    pub fn from_index(index: usize) -> Option<Action> {
        if index == ACTION_SPACE - 1 {
            return Some(Action::Pass);
        }
        if index >= ACTION_SPACE {
            return None;
        }
        let (plane, cell) = (index / CELLS, index % CELLS);
        let p = Point::from_index(cell as u8)?;
        match plane {
            planes::PLACE => Some(Action::Place(p)),
            planes::REMOVE_RING => Some(Action::RemoveRing(p)),
            pl if pl >= planes::REMOVE_ROW => {
                let axis = Axis::from_index(pl - planes::REMOVE_ROW);
                window(p, axis).map(|_| Action::RemoveRow { start: p, axis })
            }
            pl => {
                let d = Direction::from_index((pl - planes::MOVE) / 10);
                let dist = (pl - planes::MOVE) % 10 + 1;
                let mut to = p;
                for _ in 0..dist {
                    to = to.step(d)?;
                }
                debug_assert!(ray(p, d).contains(to));
                Some(Action::Move { from: p, to })
            }
        }
    }

    /// The five points of a row removal, in line order.
    pub fn row_points(start: Point, axis: Axis) -> [Point; 5] {
        let d = axis.positive();
        let mut pts = [start; 5];
        for k in 1..5 {
            pts[k] = pts[k - 1].step(d).expect("row fits on the board");
        }
        pts
    }
}

/// Single-decision notation: `e3`, `a2-h9`, `xg5-g9` (a row), `xa5` (a ring),
/// `pass`. Whole turns in official notation join these (see [`super::notation`]).
impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Action::Place(p) => write!(f, "{p}"),
            Action::Move { from, to } => write!(f, "{from}-{to}"),
            Action::RemoveRow { start, axis } => {
                write!(f, "x{}-{}", start, Action::row_points(start, axis)[4])
            }
            Action::RemoveRing(p) => write!(f, "x{p}"),
            Action::Pass => f.write_str("pass"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_index_round_trips_and_counts() {
        let mut n = 0;
        for i in 0..ACTION_SPACE + 5 {
            if let Some(a) = Action::from_index(i) {
                assert_eq!(a.index(), i, "{a}");
                n += 1;
            }
        }
        // 85 placements + 85 ring removals + 123 rows + pass + every (point,
        // direction, distance) that stays on the board.
        let moves: usize = Point::all()
            .map(|p| {
                Direction::ALL
                    .iter()
                    .map(|&d| ray(p, d).count() as usize)
                    .sum::<usize>()
            })
            .sum();
        assert_eq!(n, 85 + 85 + 123 + 1 + moves);
    }
}
