//! Perft from the start, the library's `perft` on this crate's rules,
//! against counts pinned from an independent implementation.
//!
//! No published perft figures for 6x6 Othello were found (searched: "6x6
//! othello perft" and variants, in code and web pages; the published
//! tables are 8x8's). So the 6x6 counts below were computed by the array
//! implementation in `tests/common` (squares walked one by one with bounds
//! checks, no bitboards, perft as Aart Bik's pseudo-code), which is itself
//! checked here against the published 8x8 figures of Aart Bik, "Perft for
//! Reversi" (20 February 2009,
//! http://aartbik.blogspot.com/2009/02/perft-for-reversi.html and
//! http://www.aartbik.com/MISC/reversi.html; confirmed by Egaroucid's
//! perft, https://github.com/Nyanyan/Egaroucid/issues/318). Bik counts as
//! the library does (`yinsh_zero::game::perft`): a pass is a ply, and a
//! finished game is one leaf however deep the cut.

use crate::common;

use common::Naive;
use othello::{Move, Othello, Position};
use yinsh_zero::game::perft::{perft, perft_divide};
use yinsh_zero::game::{Game, State};

/// 8x8 Othello from the start, depths 1 to 9 (Bik; passes appear at 9).
const BIK_8X8: [u64; 9] = [4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288];

/// 6x6 Othello from the start, depths 1 to 10, by `common::Naive`. The
/// two implementations also agreed at 11 (108,820,292) and 12
/// (811,201,176), too slow to run here (43 s and 290 s for the array one).
const PERFT_6X6: [u64; 10] = [4, 12, 56, 244, 1364, 7604, 47740, 308716, 2114912, 14976792];

#[test]
fn the_independent_counter_matches_bik_on_8x8() {
    let start = Naive::start(8);
    let counts: Vec<u64> = (1..=9).map(|d| start.perft(d, false)).collect();
    assert_eq!(counts, BIK_8X8);
}

#[test]
fn the_independent_counter_gives_the_pinned_6x6_counts() {
    let start = Naive::start(6);
    let counts: Vec<u64> = (1..=9).map(|d| start.perft(d, false)).collect();
    assert_eq!(counts, PERFT_6X6[..9]);
}

#[test]
fn perft_from_the_start_equals_the_pinned_counts() {
    let start = Othello.start();
    assert_eq!(perft(&start, 0), 1);
    let counts: Vec<u64> = (1..=10).map(|d| perft(&start, d)).collect();
    assert_eq!(counts, PERFT_6X6);
    // By first move: the four are one move up to symmetry.
    let divide = perft_divide(&start, 6);
    assert_eq!(divide.len(), 4);
    assert!(
        divide.iter().all(|&(_, n)| n == PERFT_6X6[5] / 4),
        "{divide:?}"
    );
}

/// Passes and finished games, by the decision they come at, in the tree
/// cut at `depth`.
fn passes_and_ends(pos: &Position, depth: usize, at: usize, tally: &mut [[u64; 2]]) {
    if pos.is_over() {
        tally[at][1] += 1;
        return;
    }
    if at == depth {
        return;
    }
    for &m in pos.legal_actions().iter() {
        tally[at + 1][0] += u64::from(m == Move::PASS);
        let mut child = *pos;
        child.play_unchecked(m);
        passes_and_ends(&child, depth, at + 1, tally);
    }
}

#[test]
fn the_pinned_depths_reach_passes_and_finished_games() {
    let mut tally = [[0; 2]; 11];
    passes_and_ends(&Othello.start(), 10, 0, &mut tally);
    // The first passes are 9th decisions, and the first games end after
    // 9 decisions (a side wiped out, or neither able to move): depth 9
    // counts passes, depth 10 counts finished games once.
    assert!(
        tally[..9].iter().all(|&[p, e]| p == 0 && e == 0),
        "{tally:?}"
    );
    assert_eq!(tally[9], [112, 108]);
    assert_eq!(tally[10], [156, 112]);
}
