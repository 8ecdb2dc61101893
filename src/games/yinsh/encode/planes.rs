//! The input planes, in order. "Own" and "opponent" are relative to the
//! player to act.

/// Own rings.
pub const OWN_RINGS: usize = 0;
/// Own markers.
pub const OWN_MARKERS: usize = 1;
/// Opponent's rings.
pub const OPP_RINGS: usize = 2;
/// Opponent's markers.
pub const OPP_MARKERS: usize = 3;
/// 1 on the 85 board points: lets the convolutions find the edges, since
/// zero padding alone cannot tell an empty board point from the off-board
/// corners of the 11x11 grid.
pub const VALID: usize = 4;
/// The decision asked (one-hot over these four planes): place a ring.
pub const PLACE_RING: usize = 5;
/// Move a ring (or pass).
pub const MOVE_RING: usize = 6;
/// Choose a row of five to remove.
pub const REMOVE_ROW: usize = 7;
/// Choose a ring to remove.
pub const REMOVE_RING: usize = 8;
/// Rings the player to act has removed, over the rings needed to win.
pub const OWN_REMOVED: usize = 9;
/// Rings the opponent has removed, over the rings needed to win.
pub const OPP_REMOVED: usize = 10;
/// Markers left in the pool, over 51: the game ends when it runs dry.
pub const POOL: usize = 11;
/// 1 when White acts (first-player advantage is real in YINSH).
pub const WHITE_TO_ACT: usize = 12;
/// 1 when Black acts.
pub const BLACK_TO_ACT: usize = 13;
/// 1 when the opponent just passed: passing again ends the game.
pub const OPPONENT_PASSED: usize = 14;
/// 1 under the Blitz rule (one ring wins).
pub const BLITZ: usize = 15;

/// Number of input planes.
pub const INPUT_PLANES: usize = 16;
