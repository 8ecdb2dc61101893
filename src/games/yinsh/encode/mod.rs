//! What the network sees of a YINSH position.
//!
//! A position becomes [`INPUT_PLANES`] planes over the 11x11 grid of
//! [`Point::index`](crate::games::yinsh::Point::index) cells (plane-major:
//! `out[plane * 121 + cell]`), always from the point of view of the player
//! to act, so one network plays both sides. The policy side is the dense
//! [`Action::index`](crate::games::yinsh::Action::index) of size
//! [`ACTION_SPACE`](crate::games::yinsh::ACTION_SPACE).
//!
//! # Symmetry
//!
//! Every plane is either a per-point fact (a piece on the point, the point is
//! on the board) or a constant written on every board point. Off-board cells
//! are zero in every plane. Board symmetries permute the 85 board points among
//! themselves, so encoding a transformed position gives the transformed
//! planes: the encoding commutes with all 12 symmetries, and training can
//! augment by permuting cells instead of re-encoding.

pub mod planes;

pub use planes::INPUT_PLANES;

use crate::games::yinsh::lines::VALID;
use crate::games::yinsh::point::CELLS;
use crate::games::yinsh::position::MARKERS;
use crate::games::yinsh::{Decision, Position};

/// Input plane names, in order (see [`planes`]), as an
/// exported network's manifest lists them.
pub const PLANE_NAMES: [&str; INPUT_PLANES] = [
    "own_rings",
    "own_markers",
    "opponent_rings",
    "opponent_markers",
    "valid_point",
    "decision_place_ring",
    "decision_move_ring",
    "decision_remove_row",
    "decision_remove_ring",
    "own_rings_removed",
    "opponent_rings_removed",
    "markers_in_pool",
    "white_to_act",
    "black_to_act",
    "opponent_passed",
    "blitz",
];

/// Floats written by [`encode`] for one position.
pub const INPUT_SIZE: usize = INPUT_PLANES * CELLS;

/// Writes the planes of `pos` into `out[..INPUT_SIZE]`, seen by the player to
/// act. Everything already in that range is overwritten.
///
/// ```
/// use yinsh_zero::games::yinsh::encode::{encode, planes, INPUT_SIZE};
/// use yinsh_zero::games::yinsh::{Action, Position};
///
/// let mut pos = Position::new();
/// let f6: yinsh_zero::games::yinsh::Point = "f6".parse().unwrap();
/// pos.play(Action::Place(f6)).unwrap();
/// let mut x = vec![0.0; INPUT_SIZE];
/// encode(&pos, &mut x);
/// // Black to act: White's ring on f6 is the opponent's.
/// assert_eq!(x[planes::OPP_RINGS * 121 + f6.index()], 1.0);
/// assert_eq!(x[planes::OWN_RINGS * 121 + f6.index()], 0.0);
/// ```
///
/// # Panics
/// If `out` is shorter than [`INPUT_SIZE`].
pub fn encode(pos: &Position, out: &mut [f32]) {
    let out = &mut out[..INPUT_SIZE];
    out.fill(0.0);
    let me = pos.to_act();
    let them = !me;

    for (k, set) in [
        (planes::OWN_RINGS, pos.rings(me)),
        (planes::OWN_MARKERS, pos.markers(me)),
        (planes::OPP_RINGS, pos.rings(them)),
        (planes::OPP_MARKERS, pos.markers(them)),
        (planes::VALID, VALID),
    ] {
        let pl = plane_mut(out, k);
        for p in set {
            pl[p.index()] = 1.0;
        }
    }

    let decision = match pos.decision() {
        Decision::PlaceRing => Some(planes::PLACE_RING),
        Decision::MoveRing => Some(planes::MOVE_RING),
        Decision::RemoveRow => Some(planes::REMOVE_ROW),
        Decision::RemoveRing => Some(planes::REMOVE_RING),
        // Never evaluated; an all-zero decision block is as good as any.
        Decision::GameOver => None,
    };
    let to_win = f32::from(pos.variant().rings_to_win.max(1));
    let constants = [
        (decision, 1.0),
        (
            Some(planes::OWN_REMOVED),
            f32::from(pos.rings_removed(me)) / to_win,
        ),
        (
            Some(planes::OPP_REMOVED),
            f32::from(pos.rings_removed(them)) / to_win,
        ),
        (Some(planes::POOL), pos.pool() as f32 / MARKERS as f32),
        (
            Some(planes::WHITE_TO_ACT),
            f32::from(u8::from(me == crate::games::yinsh::Color::White)),
        ),
        (
            Some(planes::BLACK_TO_ACT),
            f32::from(u8::from(me == crate::games::yinsh::Color::Black)),
        ),
        (
            Some(planes::OPPONENT_PASSED),
            f32::from(pos.passes().min(1)),
        ),
        (
            Some(planes::BLITZ),
            f32::from(u8::from(pos.variant().rings_to_win == 1)),
        ),
    ];
    for (k, v) in constants {
        if let Some(k) = k
            && v != 0.0
        {
            let pl = plane_mut(out, k);
            for p in VALID {
                pl[p.index()] = v;
            }
        }
    }
}

fn plane_mut(out: &mut [f32], k: usize) -> &mut [f32] {
    &mut out[k * CELLS..(k + 1) * CELLS]
}
