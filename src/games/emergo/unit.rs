//! Units: the stacks that stand on Emergo's squares.
//!
//! Nothing leaves the game. A jumped man goes under the jumper as a
//! prisoner, so every stack is some men of its owner on top (the
//! *controllers*, at least one) over men of the other colour (the
//! *prisoners*). The capture rule keeps that order: the jumper adds a
//! prisoner at the bottom, the jumped unit loses its top controller, and a
//! unit that loses its last controller frees its prisoners, which then
//! control the stack themselves. So (owner, controllers, prisoners) says all
//! there is to say about a unit.

use std::fmt;
use std::str::FromStr;

use crate::game::Color;

/// A stack of `controllers` men of `owner` on top of `prisoners` men of the
/// other colour.
///
/// ```
/// use yinsh_zero::games::emergo::Unit;
/// use yinsh_zero::game::Color;
///
/// let u: Unit = "B2/1".parse().unwrap();
/// assert_eq!((u.owner, u.controllers, u.prisoners), (Color::Black, 2, 1));
/// // Jumped twice: one controller fewer, then the white prisoner is free.
/// let once = u.jumped().unwrap();
/// assert_eq!(once.to_string(), "B1/1");
/// assert_eq!(once.jumped().unwrap().to_string(), "W1");
/// assert_eq!(Unit::man(Color::White).jumped(), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    pub owner: Color,
    /// The owner's men on top, at least 1.
    pub controllers: u8,
    /// The opponent's men below.
    pub prisoners: u8,
}

impl Unit {
    /// One man, as entered from the hand.
    pub const fn man(owner: Color) -> Unit {
        Unit::pure(owner, 1)
    }

    /// `men` men of `owner` and no prisoner (a shadow piece when more than one).
    pub const fn pure(owner: Color, men: u8) -> Unit {
        Unit {
            owner,
            controllers: men,
            prisoners: 0,
        }
    }

    /// Men in the stack, of both colours.
    pub const fn men(self) -> u8 {
        self.controllers + self.prisoners
    }

    /// Men of colour `c` in the stack.
    pub fn men_of(self, c: Color) -> u8 {
        if c == self.owner {
            self.controllers
        } else {
            self.prisoners
        }
    }

    /// The jumper after a jump: the jumped unit's top man is now its
    /// lowest prisoner.
    pub const fn with_prisoner(self) -> Unit {
        Unit {
            prisoners: self.prisoners + 1,
            ..self
        }
    }

    /// What stays on the square of a jumped unit: one controller fewer;
    /// without a controller left its prisoners own the stack (the other
    /// colour, no prisoners), and a single man leaves nothing.
    pub fn jumped(self) -> Option<Unit> {
        if self.controllers > 1 {
            Some(Unit {
                controllers: self.controllers - 1,
                ..self
            })
        } else if self.prisoners > 0 {
            Some(Unit::pure(!self.owner, self.prisoners))
        } else {
            None
        }
    }
}

/// `W1`, `B3` (a pure stack), `W2/1` (two white men over one black).
impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let o = match self.owner {
            Color::White => 'W',
            Color::Black => 'B',
        };
        write!(f, "{o}{}", self.controllers)?;
        if self.prisoners > 0 {
            write!(f, "/{}", self.prisoners)?;
        }
        Ok(())
    }
}

impl FromStr for Unit {
    type Err = String;

    fn from_str(s: &str) -> Result<Unit, String> {
        let bad = || format!("`{s}` is not a unit like W1, B3 or W2/1");
        let owner = match s.chars().next() {
            Some('W') => Color::White,
            Some('B') => Color::Black,
            _ => return Err(bad()),
        };
        let rest = &s[1..];
        let (k, m) = match rest.split_once('/') {
            Some((k, m)) => (k, Some(m)),
            None => (rest, None),
        };
        let digits = |t: &str| -> Result<u8, String> {
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            t.parse().map_err(|_| bad())
        };
        let controllers = digits(k)?;
        if controllers == 0 {
            return Err(format!("`{s}`: a unit has at least one controller"));
        }
        let prisoners = match m {
            Some(m) => digits(m)?,
            None => 0,
        };
        Ok(Unit {
            owner,
            controllers,
            prisoners,
        })
    }
}
