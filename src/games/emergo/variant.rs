//! Emergo's variants, and the limits this project adds so that every game
//! ends (`docs/emergo-rules.md`).

use std::fmt;

use super::geometry::Geometry;

/// Turns in a row without an entry and without a capture after which the
/// game is drawn (this project's rule: vchess has no move limit). Fifty
/// moves each: once the hands are empty, a side that cannot make progress
/// in fifty moves is shuffling.
pub const NO_PROGRESS_LIMIT: u16 = 100;

/// Turns after which the game is drawn whatever happens (this project's
/// safety net). Captures move men from stack to stack but never remove
/// them, so captures alone need not end a game: units can change hands
/// back and forth. Real games take well under 150 turns.
pub const TURN_LIMIT: u16 = 400;

/// What happens to a player who must act and cannot (the sources differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Blocked {
    /// A draw: vchess and the older official rules.
    Draw,
    /// The blocked player loses: the gamerz.net rules.
    Loss,
}

/// A variant of Emergo.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// 9 x 9, 12 men each, a blocked player draws (vchess).
    Standard,
    /// As `standard`, but a blocked player loses (gamerz.net).
    BlockedLoses,
    /// 7 x 7, 8 men each, a blocked player draws: the beginners' board.
    Small,
}

impl Variant {
    /// Names as configs, records and the command line write them, the usual
    /// game first.
    pub const NAMES: [&'static str; 3] = ["standard", "blocked-loses", "small"];

    pub const ALL: [Variant; 3] = [Variant::Standard, Variant::BlockedLoses, Variant::Small];

    pub const fn name(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::BlockedLoses => "blocked-loses",
            Variant::Small => "small",
        }
    }

    pub fn from_name(name: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == name)
    }

    /// The variant's number in records.
    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn geometry(self) -> Geometry {
        match self {
            Variant::Small => Geometry::new(7),
            _ => Geometry::new(9),
        }
    }

    /// Men each player starts with in hand.
    pub const fn men(self) -> u8 {
        match self {
            Variant::Small => 8,
            _ => 12,
        }
    }

    pub const fn blocked(self) -> Blocked {
        match self {
            Variant::BlockedLoses => Blocked::Loss,
            _ => Blocked::Draw,
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
