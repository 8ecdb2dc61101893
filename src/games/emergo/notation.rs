//! Emergo's notation, after vchess's: `@e5` enters a man, `c3-d4` steps a
//! unit, `c3xe5` is one jump. A whole capture turn is its squares joined by
//! `x` (`c3xe5xg3`); as decisions it is one jump each, so
//! [`split_turn`] and [`join_jump`] convert between the two.
//!
//! Squares are named like chess squares: files `a`.. from the left, ranks
//! `1`.. from the bottom (`a1` is a playable corner, `e5` the centre of the
//! 9 x 9 board).

use std::fmt;

pub use crate::game::Square;

/// One decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// Enter a man from the hand on an empty square (all of the hand at
    /// once, the shadow piece, once the opponent's hand is empty): `@e5`.
    Enter(Square),
    /// Move a unit one square along a diagonal to an empty square: `c3-d4`.
    Step(Square, Square),
    /// One jump of a capture, over the opponent's unit between the two
    /// squares: `c3xe5`. A chain of jumps is one decision per jump, by the
    /// same player.
    Jump(Square, Square),
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Enter(s) => write!(f, "@{s}"),
            Action::Step(a, b) => write!(f, "{a}-{b}"),
            Action::Jump(a, b) => write!(f, "{a}x{b}"),
        }
    }
}

fn square(text: &str, whole: &str) -> Result<Square, String> {
    Square::parse(text).ok_or_else(|| {
        format!("`{text}` in `{whole}` is not a square name like e5 (a file letter, a rank number)")
    })
}

/// Reads one decision (`@e5`, `c3-d4`, `c3xe5`); whether it is legal, or
/// even on the board, is the position's question.
///
/// ```
/// use yinsh_zero::games::emergo::notation::{Action, parse};
/// let a = parse("c3xe5").unwrap();
/// assert!(matches!(a, Action::Jump(..)));
/// assert_eq!(a.to_string(), "c3xe5");
/// assert!(parse("c3xe5xg3").unwrap_err().contains("one jump"));
/// ```
pub fn parse(text: &str) -> Result<Action, String> {
    if let Some(rest) = text.strip_prefix('@') {
        return Ok(Action::Enter(square(rest, text)?));
    }
    if let Some((a, b)) = text.split_once('-') {
        return Ok(Action::Step(square(a, text)?, square(b, text)?));
    }
    let parts: Vec<&str> = text.split('x').collect();
    match parts.len() {
        2 => Ok(Action::Jump(
            square(parts[0], text)?,
            square(parts[1], text)?,
        )),
        n if n > 2 => Err(format!(
            "`{text}` is a chain of {} jumps; one decision is one jump (write `{}x{}`)",
            n - 1,
            parts[0],
            parts[1]
        )),
        _ => Err(format!(
            "`{text}` is not an action: write @e5 to enter a man, c3-d4 to step, c3xe5 to jump"
        )),
    }
}

/// The jumps of a whole capture turn (`c3xe5xg3` gives `c3xe5`, `e5xg3`);
/// any other token is one decision and comes back as it is.
///
/// ```
/// use yinsh_zero::games::emergo::notation::split_turn;
/// assert_eq!(split_turn("c3xe5xg3"), ["c3xe5", "e5xg3"]);
/// assert_eq!(split_turn("@e5"), ["@e5"]);
/// ```
pub fn split_turn(token: &str) -> Vec<String> {
    let squares: Vec<&str> = token.split('x').collect();
    if squares.len() <= 2 {
        return vec![token.to_string()];
    }
    squares
        .windows(2)
        .map(|w| format!("{}x{}", w[0], w[1]))
        .collect()
}

/// Appends a chain's next jump to the turn written so far (`c3xe5` and
/// `e5xg3` give `c3xe5xg3`).
pub fn join_jump(turn: &mut String, next: Action) {
    match next {
        Action::Jump(_, to) => {
            turn.push('x');
            turn.push_str(&to.to_string());
        }
        other => {
            turn.push(' ');
            turn.push_str(&other.to_string());
        }
    }
}
