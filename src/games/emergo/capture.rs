//! Captures: single jumps, chains of them, and the rule that a player must
//! take one of the longest chains.
//!
//! A chain is searched by playing its jumps on a scratch copy of the cells
//! and taking them back, because a jump changes the board the next one is
//! judged on: the jumper's start square empties (so a chain may pass it
//! again), a jumped unit may vanish or change owner, and a unit that is
//! still the opponent's may be jumped again later in the same chain.
//! Every jump takes one controller from the opponent, so a chain is at most
//! as long as the opponent has men controlling units, and the search ends.

use arrayvec::ArrayVec;

use super::geometry::{Cell, Dir, Geometry, MAX_CELLS};
use super::unit::Unit;
use crate::game::Color;

/// What stands on each cell (`None`: empty or not a playable square).
pub type Cells = [Option<Unit>; MAX_CELLS];

/// One jump: the unit on `from` jumps the opponent's unit on `over` and
/// lands on `to`, the empty square behind it in direction `dir`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Jump {
    pub from: Cell,
    pub over: Cell,
    pub to: Cell,
    pub dir: Dir,
}

/// The jumps a unit can make in one position: at most 12 units of the
/// player, four directions each.
pub type Jumps = ArrayVec<Jump, 48>;

/// The jump of the unit on `from` in direction `d`, if there is one: an
/// opponent-controlled unit next to it and an empty square behind.
pub fn jump(geo: Geometry, cells: &Cells, from: Cell, d: Dir) -> Option<Jump> {
    let me = cells[from.index()]?.owner;
    let over = geo.step(from, d)?;
    let to = geo.step(over, d)?;
    match (cells[over.index()], cells[to.index()]) {
        (Some(u), None) if u.owner != me => Some(Jump {
            from,
            over,
            to,
            dir: d,
        }),
        _ => None,
    }
}

/// Plays a jump on `cells`; returns the two units it changed, for [`undo`].
pub fn apply(cells: &mut Cells, j: Jump) -> (Unit, Unit) {
    let jumper = cells[j.from.index()]
        .take()
        .expect("a jump starts on a unit");
    let jumped = cells[j.over.index()].expect("a jump goes over a unit");
    cells[j.to.index()] = Some(jumper.with_prisoner());
    cells[j.over.index()] = jumped.jumped();
    (jumper, jumped)
}

/// Takes back a jump played by [`apply`].
pub fn undo(cells: &mut Cells, j: Jump, (jumper, jumped): (Unit, Unit)) {
    cells[j.to.index()] = None;
    cells[j.over.index()] = Some(jumped);
    cells[j.from.index()] = Some(jumper);
}

/// The jumps the unit on `at` may make next; after a jump in direction
/// `last` the way straight back is barred.
pub fn jumps_from(geo: Geometry, cells: &Cells, at: Cell, last: Option<Dir>) -> Jumps {
    Dir::ALL
        .into_iter()
        .filter(|&d| last != Some(d.reverse()))
        .filter_map(|d| jump(geo, cells, at, d))
        .collect()
}

/// The most jumps the unit on `at` can still chain, after a jump in
/// direction `last` (`None` at the start of a chain).
pub fn longest(geo: Geometry, cells: &mut Cells, at: Cell, last: Option<Dir>) -> u8 {
    let mut best = 0;
    for j in jumps_from(geo, cells, at, last) {
        let saved = apply(cells, j);
        best = best.max(1 + longest(geo, cells, j.to, Some(j.dir)));
        undo(cells, j, saved);
    }
    best
}

/// Whether any unit of `c` can jump: then `c` must capture.
pub fn any_capture(geo: Geometry, cells: &Cells, c: Color) -> bool {
    geo.playable().any(|at| {
        cells[at.index()].is_some_and(|u| u.owner == c)
            && !jumps_from(geo, cells, at, None).is_empty()
    })
}

/// The jumps `me` may make: those that begin one of the longest chains of
/// any of `me`'s units, or, in the middle of a chain (`chain`: the
/// jumping unit's square and its last direction), those that continue it
/// as long as it can go. The second value is the longest chain's length
/// counted from this jump (0 when there is no jump).
pub fn best_jumps(
    geo: Geometry,
    cells: &Cells,
    me: Color,
    chain: Option<(Cell, Dir)>,
) -> (Jumps, u8) {
    let mut scratch = *cells;
    let mut best = Jumps::new();
    let mut len = 0;
    let mut consider = |j: Jump, scratch: &mut Cells| {
        let saved = apply(scratch, j);
        let n = 1 + longest(geo, scratch, j.to, Some(j.dir));
        undo(scratch, j, saved);
        if n > len {
            len = n;
            best.clear();
        }
        if n == len {
            best.push(j);
        }
    };
    match chain {
        Some((at, last)) => {
            for j in jumps_from(geo, cells, at, Some(last)) {
                consider(j, &mut scratch);
            }
        }
        None => {
            for at in geo.playable() {
                if cells[at.index()].is_some_and(|u| u.owner == me) {
                    for j in jumps_from(geo, cells, at, None) {
                        consider(j, &mut scratch);
                    }
                }
            }
        }
    }
    (best, len)
}
