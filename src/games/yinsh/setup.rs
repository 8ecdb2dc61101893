//! Building a movement-phase position from a list of pieces: for tests,
//! puzzles and analysis, where playing up to a position is impractical.

use super::action::Color;
use super::bitboard::Bitboard;
use super::point::Point;
use super::position::{Decision, MARKERS, Position, RINGS, Variant};

/// Why a setup is not a position of the movement phase.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("`{0}` is not a piece: expected `<W|B|w|b><point>` such as `We3` or `bf6`")]
    Syntax(String),
    #[error("{0} holds two pieces")]
    Overlap(Point),
    #[error(
        "{color} has {on_board} rings on the board and {removed} removed: they must add up to 5"
    )]
    RingCount {
        color: Color,
        on_board: u32,
        removed: u8,
    },
    #[error(
        "{0} markers are on the board: a running game has at most 50 (an empty pool ends the game)"
    )]
    TooManyMarkers(u32),
    #[error("{0} has already won by removing {1} rings")]
    AlreadyWon(Color, u8),
    #[error("{0} has an unresolved row of five: rows are resolved before a ring move")]
    PendingRow(Color),
}

impl Position {
    /// A movement-phase position: `pieces` lists `W`/`B` rings and `w`/`b`
    /// markers with their points, `removed` the rings each side already
    /// took off, and `to_act` moves a ring next.
    ///
    /// The turn counter is not recoverable from pieces alone; it is set to
    /// the smallest count consistent with them (10 placements plus one move
    /// per marker and per removed row's five markers).
    ///
    /// ```
    /// use yinsh_zero::games::yinsh::{Color, Position, Variant};
    /// let pos = Position::setup(
    ///     "We5 Wa2 Wa3 Wa4 Wa5 Bk7 Bk8 Bk9 Bk10 Bj11 wf5 bg5",
    ///     [0, 0],
    ///     Color::White,
    ///     Variant::STANDARD,
    /// )
    /// .unwrap();
    /// assert_eq!(pos.pool(), 49);
    /// ```
    pub fn setup(
        pieces: &str,
        removed: [u8; 2],
        to_act: Color,
        variant: Variant,
    ) -> Result<Position, SetupError> {
        let mut rings = [Bitboard::EMPTY; 2];
        let mut markers = [Bitboard::EMPTY; 2];
        for word in pieces.split_whitespace() {
            let syntax = || SetupError::Syntax(word.to_string());
            let mut chars = word.chars();
            let kind = chars.next().ok_or_else(syntax)?;
            let p: Point = chars.as_str().parse().map_err(|_| syntax())?;
            let (is_ring, color) = match kind {
                'W' => (true, Color::White),
                'B' => (true, Color::Black),
                'w' => (false, Color::White),
                'b' => (false, Color::Black),
                _ => return Err(syntax()),
            };
            if (rings[0] | rings[1] | markers[0] | markers[1]).contains(p) {
                return Err(SetupError::Overlap(p));
            }
            let set = if is_ring { &mut rings } else { &mut markers };
            set[color.index()] = set[color.index()].with(p);
        }
        for c in Color::BOTH {
            let on_board = rings[c.index()].count();
            let r = removed[c.index()];
            if on_board + r as u32 != RINGS {
                return Err(SetupError::RingCount {
                    color: c,
                    on_board,
                    removed: r,
                });
            }
            if r >= variant.rings_to_win {
                return Err(SetupError::AlreadyWon(c, r));
            }
        }
        let n_markers = (markers[0] | markers[1]).count();
        if n_markers >= MARKERS {
            return Err(SetupError::TooManyMarkers(n_markers));
        }
        let mut pos = Position::with_variant(variant);
        pos.rings = rings;
        pos.markers = markers;
        pos.removed = removed;
        for c in Color::BOTH {
            if pos.has_row(c) {
                return Err(SetupError::PendingRow(c));
            }
        }
        pos.to_act = to_act;
        pos.last_mover = !to_act;
        pos.decision = Decision::MoveRing;
        pos.turn = (2 * RINGS + n_markers + 5 * (removed[0] + removed[1]) as u32) as u16;
        Ok(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::yinsh::{Action, EndReason};

    #[test]
    fn two_passes_in_succession_end_the_game_scored_by_rings_removed() {
        // White is walled in (see tests/it/rules.rs); pretend Black just passed.
        let mut pos = Position::setup(
            "Wa2 Wa3 Wa4 Wa5 Wb1 Bb2 Bb3 Bb4 Bb5 Bb6 wc1 bd1 we1 wc2 bd3 we4 bf5 wg6 bh7 wi8 bj9 wk10",
            [0, 0],
            Color::White,
            Variant::STANDARD,
        )
        .unwrap();
        pos.passes = 1;
        pos.play(Action::Pass).unwrap();
        let o = pos.outcome().unwrap();
        assert_eq!((o.winner, o.reason), (None, EndReason::DoublePass));
        assert!(pos.is_over());
    }
}
