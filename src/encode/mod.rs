//! What the network sees of a position, and how its policy output maps back
//! onto actions.
//!
//! A position becomes [`INPUT_PLANES`] planes over the 11x11 grid of
//! [`Point::index`](crate::yinsh::Point::index) cells (plane-major: `out[plane * 121 + cell]`), always
//! from the point of view of the player to act, so one network plays both
//! sides. The policy side is the dense [`Action::index`] of size
//! [`ACTION_SPACE`]: [`legal_indices`], [`legal_mask`] and [`masked_softmax`]
//! pick the legal actions out of it.
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

use arrayvec::ArrayVec;

pub use planes::INPUT_PLANES;

use crate::yinsh::point::{CELLS, VALID};
use crate::yinsh::position::{MARKERS, MAX_ACTIONS};
use crate::yinsh::{ACTION_SPACE, Action, Decision, Position};

/// Floats written by [`encode`] for one position.
pub const INPUT_SIZE: usize = INPUT_PLANES * CELLS;

/// Writes the planes of `pos` into `out[..INPUT_SIZE]`, seen by the player to
/// act. Everything already in that range is overwritten.
///
/// ```
/// use yinsh_zero::encode::{encode, planes, INPUT_SIZE};
/// use yinsh_zero::yinsh::{Action, Position};
///
/// let mut pos = Position::new();
/// let f6: yinsh_zero::yinsh::Point = "f6".parse().unwrap();
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
            f32::from(u8::from(me == crate::yinsh::Color::White)),
        ),
        (
            Some(planes::BLACK_TO_ACT),
            f32::from(u8::from(me == crate::yinsh::Color::Black)),
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

/// Encodes a batch: position `i` goes to `out[i * INPUT_SIZE..]`.
///
/// # Panics
/// If `out` is shorter than `positions.len() * INPUT_SIZE`.
pub fn encode_batch(positions: &[Position], out: &mut [f32]) {
    assert!(
        out.len() >= positions.len() * INPUT_SIZE,
        "encode_batch: room for {} floats, {} positions need {}",
        out.len(),
        positions.len(),
        positions.len() * INPUT_SIZE
    );
    for (pos, chunk) in positions.iter().zip(out.chunks_exact_mut(INPUT_SIZE)) {
        encode(pos, chunk);
    }
}

/// The dense indices of the legal actions of `pos`, in
/// [`Position::legal_actions`] order.
pub fn legal_indices(pos: &Position) -> ArrayVec<usize, MAX_ACTIONS> {
    pos.legal_actions().iter().map(|a| a.index()).collect()
}

/// `true` at the dense index of every legal action of `pos`; length
/// [`ACTION_SPACE`].
pub fn legal_mask(pos: &Position) -> Vec<bool> {
    let mut mask = vec![false; ACTION_SPACE];
    for a in pos.legal_actions() {
        mask[a.index()] = true;
    }
    mask
}

/// Softmax of the dense policy `logits` restricted to `actions`: entry `i`
/// is the probability of `actions[i]`. Illegal actions take no mass, however
/// large their logits. An empty `actions` gives an empty vector.
///
/// ```
/// use yinsh_zero::encode::masked_softmax;
/// use yinsh_zero::yinsh::{ACTION_SPACE, Position};
///
/// let pos = Position::new();
/// let mut logits = vec![0.0f32; ACTION_SPACE];
/// logits[ACTION_SPACE - 1] = 100.0; // pass is illegal here
/// let priors = masked_softmax(&logits, &pos.legal_actions());
/// assert_eq!(priors.len(), 85);
/// assert!((priors.iter().sum::<f32>() - 1.0).abs() < 1e-5);
/// ```
///
/// # Panics
/// If `logits` is shorter than [`ACTION_SPACE`].
pub fn masked_softmax(logits: &[f32], actions: &[Action]) -> Vec<f32> {
    let logits = &logits[..ACTION_SPACE];
    let mut out: Vec<f32> = actions.iter().map(|a| logits[a.index()]).collect();
    let max = out.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for x in &mut out {
        *x = (*x - max).exp();
        sum += *x;
    }
    for x in &mut out {
        *x /= sum;
    }
    out
}
