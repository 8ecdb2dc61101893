//! Perft: counting the decision sequences from a position, to check move
//! generation against known numbers and against an independent
//! implementation of the rules, in any game.
//!
//! Convention: every decision is one ply (YINSH: placements, ring moves,
//! passes, row choices and ring removals alike), and `perft(pos, d)` is the number of
//! leaves of the game tree cut off at depth `d`. A game that ends before
//! depth `d` is one leaf, counted once, however deep the cut is. So
//! `perft(pos, 0) == 1` and `perft(finished, d) == 1` for every `d`.

use rayon::prelude::*;

use super::State;

/// Leaves of the game tree from `pos` cut off at depth `depth` (see the
/// module documentation for how finished games count).
///
/// ```
/// use yinsh_zero::{games::yinsh::Position, game::perft::perft};
/// let start = Position::new();
/// assert_eq!(perft(&start, 0), 1);
/// assert_eq!(perft(&start, 1), 85);
/// assert_eq!(perft(&start, 2), 85 * 84);
/// ```
pub fn perft<S: State>(pos: &S, depth: u32) -> u64 {
    if depth == 0 || pos.is_over() {
        return 1;
    }
    // Bulk counting: each child at depth 1 is one leaf, finished or not, so
    // the count of legal actions is the answer without playing them.
    if depth == 1 {
        return pos.legal_action_count() as u64;
    }
    pos.legal_actions()
        .iter()
        .map(|&a| {
            let mut child = pos.clone();
            child.play_unchecked(a);
            perft(&child, depth - 1)
        })
        .sum()
}

/// Perft split by the first decision: each legal action with the number of
/// leaves below it at depth `depth`, in the order of
/// [`State::legal_actions`]. The counts add up to `perft(pos, depth)`.
/// Empty when `depth` is 0 or the game is over (no first decision). The root
/// actions are counted in parallel.
///
/// ```
/// use yinsh_zero::{games::yinsh::Position, game::perft::{perft, perft_divide}};
/// let start = Position::new();
/// let divide = perft_divide(&start, 2);
/// assert_eq!(divide.len(), 85);
/// assert!(divide.iter().all(|&(_, n)| n == 84));
/// assert_eq!(divide.iter().map(|&(_, n)| n).sum::<u64>(), perft(&start, 2));
/// ```
pub fn perft_divide<S: State>(pos: &S, depth: u32) -> Vec<(S::Action, u64)> {
    if depth == 0 || pos.is_over() {
        return Vec::new();
    }
    let actions = pos.legal_actions();
    actions
        .par_iter()
        .map(|&a| {
            let mut child = pos.clone();
            child.play_unchecked(a);
            (a, perft(&child, depth - 1))
        })
        .collect()
}

/// [`perft`], with the subtrees of the root actions counted in parallel on
/// rayon's thread pool.
///
/// ```
/// use yinsh_zero::{games::yinsh::Position, game::perft::{perft, perft_parallel}};
/// let start = Position::new();
/// assert_eq!(perft_parallel(&start, 3), perft(&start, 3));
/// ```
pub fn perft_parallel<S: State>(pos: &S, depth: u32) -> u64 {
    if depth <= 1 || pos.is_over() {
        return perft(pos, depth);
    }
    perft_divide(pos, depth).into_iter().map(|(_, n)| n).sum()
}
