//! Official GIPF notation for YINSH: whole turns and whole games.
//!
//! A single decision is written as in [`Action`]'s `Display`: `e3` (place a
//! ring), `a2-h9` (move a ring), `xg5-g9` (remove a row of five, named by its
//! end points), `xa5` (remove a ring) and `pass`. A *turn token* joins the
//! decisions of one player with `;`:
//!
//! ```text
//! e3                          a placement
//! a2-h9                       a ring move
//! i8-f5;xg5-g9xa5             a move, then a row (g5..g9) and its ring (a5)
//! xg5-g9xa5;d3-b3             the opponent made my row: I remove it before I move
//! i8-f5;xg5-g9xa5;xi4-i8xb2   several removals chain
//! ```
//!
//! A game is its turn tokens separated by whitespace. Output is lower-case,
//! input is case-insensitive.
//!
//! # Grouping
//!
//! A token holds every consecutive decision of one player: removals that
//! player makes before its move (a prefix), the move, placement or pass, and
//! the removals it makes after it (a suffix). Removals the opponent makes
//! after that move start the opponent's next token. Since no player ever
//! makes two moves without the other deciding in between, tokens alternate
//! between the players, and a new token starts exactly where the player
//! changes. Within a token a row and the ring removed for it share one
//! `;`-separated segment (`xg5-g9xa5`).
//!
//! # Corner cases (the project's choices)
//!
//! - A pass is written `pass`, with removals before or after it like a move:
//!   `xg5-g9xa5;pass`.
//! - A token may consist of removals only when the game ends during them
//!   (the opponent's row gives a player its winning ring before it moves):
//!   `xg5-g9xa5`.
//! - Row end points may be given in either order on input (`xg9-g5` is
//!   `xg5-g9`); output starts from the lower point (the `start` of
//!   [`Action::RemoveRow`]). On a line of six or more markers the two end
//!   points name which five are removed.
//! - So that any stretch of a game can be written (a record that stops in
//!   the middle of a turn, a search line that starts in one), the text may
//!   start wherever `start` asks (even with a lone ring removal `xa5` when
//!   `start` is waiting for one) and may stop anywhere (even after a row
//!   whose ring is still to be chosen, `…;xg5-g9`). Between tokens the
//!   grouping rules above are enforced, so every game has exactly one
//!   spelling.

use super::action::{Action, Color};
use super::point::{Direction, Point};
use super::position::{Decision, IllegalAction, Position};

/// Why a text could not be read as decisions of a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    /// The text does not have the shape of a decision or a turn.
    #[error("`{text}` is malformed: expected {expected}")]
    Malformed {
        text: String,
        expected: &'static str,
    },
    /// The decision is well formed but not legal where it is played.
    #[error(transparent)]
    Illegal(#[from] IllegalAction),
    /// Legal decisions, but split into tokens or segments other than the
    /// official grouping prescribes.
    #[error("`{text}` is grouped wrongly: {why}")]
    Grouping { text: String, why: String },
    /// A whole game failed at one of its turn tokens.
    #[error("token {number} `{token}`: {reason}")]
    InToken {
        /// 1-based position of the token in the game text.
        number: usize,
        token: String,
        reason: Box<NotationError>,
    },
}

/// The shape of one decision, before it is checked against a position.
fn parse_shape(text: &str) -> Result<Action, NotationError> {
    let malformed = |expected| NotationError::Malformed {
        text: text.to_string(),
        expected,
    };
    if text.eq_ignore_ascii_case("pass") {
        return Ok(Action::Pass);
    }
    let point = |s: &str, expected| s.parse::<Point>().map_err(|_| malformed(expected));
    if let Some(rest) = text.strip_prefix(['x', 'X']) {
        return match rest.split_once('-') {
            Some((a, b)) => {
                const ROW: &str = "a row of five as `x` and its two end points, e.g. `xg5-g9`";
                let (a, b) = (point(a, ROW)?, point(b, ROW)?);
                row_from_ends(a, b).ok_or_else(|| malformed(ROW))
            }
            None => Ok(Action::RemoveRing(point(
                rest,
                "a ring removal as `x` and a point, e.g. `xa5`",
            )?)),
        };
    }
    const DECISION: &str =
        "a point (`e3`), a move (`a2-h9`), a removal (`xg5-g9`, `xa5`) or `pass`";
    match text.split_once('-') {
        Some((a, b)) => {
            let (from, to) = (point(a, DECISION)?, point(b, DECISION)?);
            // Off-line moves have no dense index: reject them here, not in play.
            if Direction::between(from, to).is_none() {
                return Err(malformed(
                    "a move along one of the three lines, e.g. `a2-h9`",
                ));
            }
            Ok(Action::Move { from, to })
        }
        None => Ok(Action::Place(point(text, DECISION)?)),
    }
}

/// The row removal whose end points are `a` and `b` (in either order), if
/// they are five points of one line.
pub(crate) fn row_from_ends(a: Point, b: Point) -> Option<Action> {
    match Direction::between(a, b)? {
        (d, 4) => {
            let start = if d.is_positive() { a } else { b };
            Some(Action::RemoveRow {
                start,
                axis: d.axis(),
            })
        }
        _ => None,
    }
}

/// Plays `action` on `pos`, mapping an illegal one to [`NotationError::Illegal`].
fn play(pos: &mut Position, action: Action) -> Result<(), NotationError> {
    pos.play(action).map_err(NotationError::Illegal)
}

/// Reads one decision and checks it is legal in `pos`.
///
/// ```
/// use yinsh_zero::games::yinsh::{Action, Position};
/// use yinsh_zero::games::yinsh::notation::parse_action;
/// let pos = Position::new();
/// assert_eq!(parse_action(&pos, "E3").unwrap(), Action::Place("e3".parse().unwrap()));
/// assert!(parse_action(&pos, "a2-h9").is_err()); // rings are being placed
/// ```
pub fn parse_action(pos: &Position, text: &str) -> Result<Action, NotationError> {
    let action = parse_shape(text)?;
    let mut scratch = *pos;
    play(&mut scratch, action)?;
    Ok(action)
}

/// Reading state shared by [`parse_turn`] and [`parse_game`].
struct Reader {
    pos: Position,
    actions: Vec<Action>,
    /// The player of the previous token, to enforce alternation.
    last_player: Option<Color>,
}

impl Reader {
    /// Reads one token; `last` says whether the text ends with it.
    fn token(&mut self, token: &str, last: bool) -> Result<(), NotationError> {
        let grouping = |why: String| NotationError::Grouping {
            text: token.to_string(),
            why,
        };
        let player = self.pos.to_act();
        if !self.pos.is_over() && self.last_player == Some(player) {
            return Err(grouping(format!(
                "{player} still decides: its decisions belong in the previous token"
            )));
        }
        let segments: Vec<&str> = token.split(';').collect();
        for (k, segment) in segments.iter().enumerate() {
            let decisions = split_segment(segment)?;
            for text in &decisions {
                let action = parse_shape(text)?;
                if !self.pos.is_over() && self.pos.to_act() != player {
                    return Err(grouping(format!(
                        "`{text}` is {}'s decision: it starts the next token",
                        self.pos.to_act()
                    )));
                }
                play(&mut self.pos, action)?;
                self.actions.push(action);
            }
            let text_goes_on = !last || k + 1 < segments.len();
            if text_goes_on && self.pos.decision() == Decision::RemoveRing {
                return Err(grouping(format!(
                    "the ring removed for a row follows it in the same segment (`{segment}x..`)"
                )));
            }
        }
        self.last_player = Some(player);
        Ok(())
    }
}

/// Splits a `;`-separated segment into its decisions: a single decision, or
/// a row followed by its ring (`xg5-g9xa5`).
fn split_segment(segment: &str) -> Result<Vec<&str>, NotationError> {
    let malformed = || NotationError::Malformed {
        text: segment.to_string(),
        expected: "one decision, or a row and its ring (`xg5-g9xa5`), between `;`",
    };
    if segment.is_empty() {
        return Err(malformed());
    }
    let is_x = |c: char| c.eq_ignore_ascii_case(&'x');
    // The second `x` (if any) starts the ring; byte offsets from
    // `char_indices` keep the split on a character boundary.
    let second_x = segment.char_indices().skip(1).find(|&(_, c)| is_x(c));
    match second_x {
        Some((i, _)) if segment.starts_with(is_x) => {
            let (row, ring) = segment.split_at(i);
            if !row.contains('-') || ring.contains('-') || ring[1..].contains(is_x) {
                return Err(malformed());
            }
            Ok(vec![row, ring])
        }
        Some(_) => Err(malformed()),
        None => Ok(vec![segment]),
    }
}

/// Reads one turn token, checking every decision is legal in turn from `pos`
/// (which is left as it was).
///
/// ```
/// use yinsh_zero::games::yinsh::Position;
/// use yinsh_zero::games::yinsh::notation::parse_turn;
/// let mut pos = Position::new();
/// let turn = parse_turn(&pos, "f6").unwrap();
/// assert_eq!(turn.len(), 1);
/// assert!(parse_turn(&pos, "f6;g7").is_err()); // g7 is black's decision
/// ```
pub fn parse_turn(pos: &Position, text: &str) -> Result<Vec<Action>, NotationError> {
    let token = text.trim();
    if token.is_empty() || token.contains(char::is_whitespace) {
        return Err(NotationError::Malformed {
            text: text.to_string(),
            expected: "one turn token (decisions joined by `;`, no spaces)",
        });
    }
    let mut reader = Reader {
        pos: *pos,
        actions: Vec::new(),
        last_player: None,
    };
    reader.token(token, true)?;
    Ok(reader.actions)
}

/// Reads a whole game (turn tokens separated by whitespace) from `start`.
///
/// Errors name the 1-based token number, the token and why it failed.
///
/// ```
/// use yinsh_zero::games::yinsh::Position;
/// use yinsh_zero::games::yinsh::notation::{format_game, parse_game};
/// let start = Position::new();
/// let actions = parse_game(&start, "e3 F6  g7").unwrap();
/// assert_eq!(format_game(&start, &actions), "e3 f6 g7");
/// let err = parse_game(&start, "e3 e3").unwrap_err().to_string();
/// assert!(err.starts_with("token 2 `e3`"), "{err}");
/// ```
pub fn parse_game(start: &Position, text: &str) -> Result<Vec<Action>, NotationError> {
    let mut reader = Reader {
        pos: *start,
        actions: Vec::new(),
        last_player: None,
    };
    let tokens: Vec<&str> = text.split_whitespace().collect();
    for (i, token) in tokens.iter().enumerate() {
        reader
            .token(token, i + 1 == tokens.len())
            .map_err(|e| NotationError::InToken {
                number: i + 1,
                token: token.to_string(),
                reason: Box::new(e),
            })?;
    }
    Ok(reader.actions)
}

/// Writes `actions`, played from `start`, as turn tokens (see the module
/// docs for the grouping).
///
/// # Panics
///
/// If an action is not legal where it is played: the grouping depends on
/// who decides, which only legal play defines.
///
/// ```
/// use yinsh_zero::games::yinsh::Position;
/// use yinsh_zero::games::yinsh::notation::{format_turns, parse_game};
/// let start = Position::new();
/// let actions = parse_game(&start, "e3 f6").unwrap();
/// assert_eq!(format_turns(&start, &actions), ["e3", "f6"]);
/// ```
pub fn format_turns(start: &Position, actions: &[Action]) -> Vec<String> {
    let mut pos = *start;
    let mut tokens: Vec<String> = Vec::new();
    let mut player: Option<Color> = None;
    let mut previous: Option<Action> = None;
    for &action in actions {
        let who = pos.to_act();
        if let Err(e) = pos.play(action) {
            panic!("format_turns needs legal actions: {e}");
        }
        match tokens.last_mut() {
            Some(token) if player == Some(who) => {
                let joins = matches!(
                    (previous, action),
                    (Some(Action::RemoveRow { .. }), Action::RemoveRing(_))
                );
                if !joins {
                    token.push(';');
                }
                token.push_str(&action.to_string());
            }
            _ => tokens.push(action.to_string()),
        }
        player = Some(who);
        previous = Some(action);
    }
    tokens
}

/// Writes a game in official notation: [`format_turns`] joined by single spaces.
///
/// # Panics
///
/// If an action is not legal where it is played.
pub fn format_game(start: &Position, actions: &[Action]) -> String {
    format_turns(start, actions).join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let p = |s: &str| s.parse::<Point>().unwrap();
        assert_eq!(parse_shape("PASS").unwrap(), Action::Pass);
        assert_eq!(parse_shape("xA5").unwrap(), Action::RemoveRing(p("a5")));
        assert_eq!(
            parse_shape("xg9-g5").unwrap(),
            parse_shape("Xg5-G9").unwrap()
        );
        assert_eq!(parse_shape("xg5-g9").unwrap().to_string(), "xg5-g9");
        for bad in [
            "", "x", "xg5-g8", "xg5-h7", "a2-b4", "e3-e3", "e3;", "p", "xx", "-",
        ] {
            assert!(parse_shape(bad).is_err(), "{bad}");
        }
    }

    /// White's rings on a2, b1 and b2 are walled in by black rings on a3,
    /// b3, c1, c2 and c3; its fourth ring (k7) is free. Black has just
    /// completed white's row g5..g9, so white removes it, gives up k7, and
    /// then has no ring that can move. Random play never gets here (passes
    /// are that rare), so the position is set up directly.
    fn walled_in() -> Position {
        use super::super::bitboard::Bitboard;
        let set = |names: &[&str]| -> Bitboard {
            names.iter().map(|n| n.parse::<Point>().unwrap()).collect()
        };
        let mut pos = Position::new();
        pos.rings = [
            set(&["a2", "b1", "b2", "k7"]),
            set(&["a3", "b3", "c1", "c2", "c3"]),
        ];
        pos.markers = [set(&["g5", "g6", "g7", "g8", "g9"]), Bitboard::EMPTY];
        pos.removed = [1, 0];
        pos.to_act = Color::White;
        pos.decision = Decision::RemoveRow;
        pos.last_mover = Color::Black;
        pos.turn = 40;
        pos
    }

    #[test]
    fn a_pass_after_removals() {
        let pos = walled_in();
        let turn = parse_turn(&pos, "XG9-G5XK7;PASS").unwrap();
        assert_eq!(turn.last(), Some(&Action::Pass));
        assert_eq!(format_turns(&pos, &turn), ["xg5-g9xk7;pass"]);
        let game = parse_game(&pos, "xg5-g9xk7;pass c3-c8").unwrap();
        assert_eq!(format_game(&pos, &game), "xg5-g9xk7;pass c3-c8");
        // Passing while k7 could still move is illegal.
        let err = parse_turn(&pos, "xg5-g9xa2;pass").unwrap_err().to_string();
        assert!(err.contains("white has a ring that can move"), "{err}");
    }

    #[test]
    fn segments() {
        assert_eq!(split_segment("xg5-g9xa5").unwrap(), ["xg5-g9", "xa5"]);
        assert_eq!(split_segment("i8-f5").unwrap(), ["i8-f5"]);
        for bad in ["", "xa5xg5-g9", "xg5-g9xa5xb2", "e3xa5", "xg5-g9xa5-a6"] {
            assert!(split_segment(bad).is_err(), "{bad}");
        }
    }
}
