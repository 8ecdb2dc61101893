//! A position as plain data for files (self-play records, checkpoints), and
//! the checks that turn such data back into a position the rules accept.

use serde::{Deserialize, Serialize};

use super::action::Color;
use super::bitboard::Bitboard;
use super::lines::{VALID, five_starts};
use super::point::Axis;
use super::position::{Decision, EndReason, MARKERS, Position, RINGS, Variant};

/// The latest turn a position read from outside may be at. A turn is a
/// ring placed or moved, and every move takes a marker from the pool of
/// 51, of which at most five rows (25) come back: a game lasts fewer than
/// 10 + 51 + 25 turns. A turn near `u16::MAX` overflowed the count.
pub const MAX_TURN: u32 = 1000;

/// Every field of a [`Position`], as integers. 75 bytes with bincode's
/// varint encoding of small numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PackedPosition {
    pub rings: [u128; 2],
    pub markers: [u128; 2],
    pub removed: [u8; 2],
    pub to_act: Color,
    pub decision: Decision,
    pub last_mover: Color,
    pub passes: u8,
    pub turn: u16,
    pub rings_to_win: u8,
    pub ending: Option<(Option<Color>, EndReason)>,
}

/// Why packed data is not a position the rules can reach.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a valid position: {0}")]
pub struct InvalidPosition(pub String);

impl From<&Position> for PackedPosition {
    fn from(p: &Position) -> Self {
        PackedPosition {
            rings: [p.rings[0].0, p.rings[1].0],
            markers: [p.markers[0].0, p.markers[1].0],
            removed: p.removed,
            to_act: p.to_act,
            decision: p.decision,
            last_mover: p.last_mover,
            passes: p.passes,
            turn: p.turn,
            rings_to_win: p.variant.rings_to_win,
            ending: p.ending,
        }
    }
}

impl TryFrom<PackedPosition> for Position {
    type Error = InvalidPosition;

    /// Rebuilds the position after checking what a damaged or foreign file
    /// could get wrong: pieces off the board or on top of each other, more
    /// rings or markers than exist, and a decision the pieces do not allow.
    fn try_from(d: PackedPosition) -> Result<Position, InvalidPosition> {
        let bad = |m: String| Err(InvalidPosition(m));
        let rings = [Bitboard(d.rings[0]), Bitboard(d.rings[1])];
        let markers = [Bitboard(d.markers[0]), Bitboard(d.markers[1])];
        let all = [rings[0], rings[1], markers[0], markers[1]];
        if all.iter().any(|b| (*b & !VALID).any()) {
            return bad("a piece is off the board".into());
        }
        let total: u32 = all.iter().map(|b| b.count()).sum();
        if (rings[0] | rings[1] | markers[0] | markers[1]).count() != total {
            return bad("two pieces share a point".into());
        }
        if !matches!(d.rings_to_win, 1..=3) {
            return bad(format!("{} rings to win", d.rings_to_win));
        }
        for c in Color::BOTH {
            let on = rings[c.index()].count() + d.removed[c.index()] as u32;
            if on > RINGS {
                return bad(format!("{c} has more than {RINGS} rings"));
            }
        }
        let n_markers = (markers[0] | markers[1]).count();
        if n_markers > MARKERS {
            return bad(format!("{n_markers} markers on the board"));
        }
        let placed = rings[0].count() + rings[1].count();
        let placing = d.removed == [0, 0] && placed < 2 * RINGS;
        if placing != (d.decision == Decision::PlaceRing) && d.decision != Decision::GameOver {
            return bad(format!("{:?} with {placed} rings placed", d.decision));
        }
        if placing && n_markers > 0 {
            return bad("markers on the board during ring placement".into());
        }
        let has_row = |c: Color| {
            Axis::ALL
                .into_iter()
                .any(|a| five_starts(markers[c.index()], a).any())
        };
        let needs_row = matches!(d.decision, Decision::RemoveRow);
        if needs_row && !has_row(d.to_act) {
            return bad(format!("{} must remove a row it does not have", d.to_act));
        }
        if matches!(d.decision, Decision::MoveRing | Decision::PlaceRing)
            && Color::BOTH.into_iter().any(has_row)
        {
            return bad("a row of five is left unresolved".into());
        }
        if (d.decision == Decision::GameOver) != d.ending.is_some() {
            return bad("game-over flag and result disagree".into());
        }
        if d.passes > 2 {
            return bad(format!("{} passes in a row", d.passes));
        }
        // What the rules would already have ended or counted otherwise
        // (found by fuzzing: a ring move with the pool empty took a 52nd
        // marker and underflowed the pool's count).
        if d.decision == Decision::MoveRing && n_markers == MARKERS {
            return bad("a ring move with the marker pool empty: the game is over".into());
        }
        if d.decision != Decision::GameOver {
            for c in Color::BOTH {
                if d.removed[c.index()] >= d.rings_to_win {
                    return bad(format!(
                        "{c} has removed {} rings of the {} that win, and the game goes on",
                        d.removed[c.index()],
                        d.rings_to_win
                    ));
                }
            }
        }
        if placing && u32::from(d.turn) != placed {
            return bad(format!(
                "turn {} during ring placement with {placed} rings placed",
                d.turn
            ));
        }
        if u32::from(d.turn) > MAX_TURN {
            return bad(format!(
                "turn {} is past any game (at most {MAX_TURN})",
                d.turn
            ));
        }
        Ok(Position {
            rings,
            markers,
            removed: d.removed,
            to_act: d.to_act,
            decision: d.decision,
            last_mover: d.last_mover,
            passes: d.passes,
            turn: d.turn,
            variant: Variant {
                rings_to_win: d.rings_to_win,
            },
            ending: d.ending,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::SmallRng};

    #[test]
    fn every_position_of_random_games_round_trips() {
        let mut rng = SmallRng::seed_from_u64(7);
        for g in 0..40 {
            let mut pos = if g % 4 == 0 {
                Position::blitz()
            } else {
                Position::new()
            };
            loop {
                let packed = PackedPosition::from(&pos);
                assert_eq!(Position::try_from(packed), Ok(pos));
                if pos.is_over() {
                    break;
                }
                let l = pos.legal_actions();
                pos.play_unchecked(l[rng.random_range(0..l.len())]);
            }
        }
    }

    #[test]
    fn damaged_data_is_rejected() {
        let mut pos = Position::new();
        for a in ["f6", "e5"] {
            pos.play(crate::games::yinsh::Action::Place(a.parse().unwrap()))
                .unwrap();
        }
        let good = PackedPosition::from(&pos);
        let cases: Vec<(PackedPosition, &str)> = vec![
            (
                PackedPosition {
                    rings: [1, 0],
                    ..good
                },
                "off the board",
            ),
            (
                PackedPosition {
                    markers: [good.rings[0], 0],
                    ..good
                },
                "share",
            ),
            (
                PackedPosition {
                    decision: Decision::RemoveRow,
                    ..good
                },
                "RemoveRow with 2 rings placed",
            ),
            (
                PackedPosition {
                    rings_to_win: 9,
                    ..good
                },
                "rings to win",
            ),
        ];
        for (p, want) in cases {
            let err = Position::try_from(p).unwrap_err().to_string();
            assert!(err.contains(want), "{err}");
        }
    }
}
