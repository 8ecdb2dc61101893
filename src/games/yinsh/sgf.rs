//! BoardSpace game records (`.sgf`): read a YINSH game step by step.
//!
//! A record is a header node (`GM[24]`, `SU[Yinsh]`, `RE[...]`, player ids,
//! ...) followed by one node per step, `; P0[<n> <step>]` or
//! `; P1[<n> <step>]`, where P0 is the first player and plays White. Steps
//! (keywords case-insensitive, any whitespace between words):
//!
//! | step                         | meaning                                      |
//! |------------------------------|----------------------------------------------|
//! | `place wr H 6`, `place br ..`| place a white / black ring                   |
//! | `place w G 11`, `place b ..` | put a marker in the ring on G11 (first half of a move) |
//! | `drop board G 9`             | drop that ring on G9 (second half)           |
//! | `move C 6 C 1`               | a whole ring move in one step                |
//! | `remove w H 5 H 9`, `remove b ..` | remove the row with these end points    |
//! | `remove wr E 10`, `remove br ..`  | remove a ring                            |
//! | `Done`, `Start White`, `Start Black`, `pick ..`, `time ..` | bookkeeping  |
//! | `Resign`                     | the step's player resigns                    |
//!
//! `RE[...]` is free text in the players' language and is never read: the
//! result comes from the final position (see [`SgfGame::result`]).

use serde::{Serialize, Serializer};

use super::action::{Action, Color};
use super::notation::row_from_ends;
use super::point::Point;
use super::position::{Decision, IllegalAction, Position, Variant};

/// One applied decision of a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgfStep {
    /// The step number as written in the record (for a two-step ring move,
    /// the number of its `drop board` step).
    pub number: u32,
    /// The step's text as written, trimmed (for a two-step ring move, both
    /// steps joined by ` / `).
    pub text: String,
    /// Who made the decision.
    pub player: Color,
    pub action: Action,
}

/// A record read and replayed.
#[derive(Clone, Debug)]
pub struct SgfGame {
    /// Every decision applied, with where it came from.
    pub steps: Vec<SgfStep>,
    /// The same decisions, in order.
    pub actions: Vec<Action>,
    /// The position after the last step (over if the game ended or someone resigned).
    pub final_position: Position,
    /// The player who resigned, if one did.
    pub resigned: Option<Color>,
    /// The header's properties in file order (identifier, value), unknown ones included.
    pub properties: Vec<(String, String)>,
}

/// A game's result in a form for reports and `--json`:
/// `{"steps": N, "result": "black", "reason": "three_rings", "rings_removed": {"white": 2, "black": 3}}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SgfResult {
    /// Decisions applied.
    pub steps: usize,
    /// `"white"`, `"black"`, `"draw"` or `"unfinished"`.
    pub result: &'static str,
    /// `"three_rings"`, `"pool_empty"`, `"double_pass"`, `"resign"` or `"unfinished"`.
    pub reason: &'static str,
    /// Rings removed by White and by Black.
    #[serde(serialize_with = "by_colour")]
    pub rings_removed: [u8; 2],
}

fn by_colour<S: Serializer>(rings: &[u8; 2], s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct ByColour {
        white: u8,
        black: u8,
    }
    ByColour {
        white: rings[0],
        black: rings[1],
    }
    .serialize(s)
}

impl SgfGame {
    /// The result the rules give for the final position.
    ///
    /// ```
    /// use yinsh_zero::games::yinsh::sgf::parse_sgf;
    /// let game = parse_sgf("(;SU[Yinsh]; P0[0 Start White]; P0[1 place wr H 6]; P1[2 Resign])").unwrap();
    /// let r = game.result();
    /// assert_eq!((r.steps, r.result, r.reason), (1, "white", "resign"));
    /// ```
    pub fn result(&self) -> SgfResult {
        let pos = &self.final_position;
        let (result, reason) = match pos.outcome() {
            Some(o) => (o.winner.map_or("draw", Color::name), o.reason.name()),
            None => ("unfinished", "unfinished"),
        };
        SgfResult {
            steps: self.actions.len(),
            result,
            reason,
            rings_removed: [
                pos.rings_removed(Color::White),
                pos.rings_removed(Color::Black),
            ],
        }
    }
}

/// Why a step could not be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StepError {
    #[error("malformed: expected {0}")]
    Malformed(&'static str),
    #[error("it is {step}'s step, but {to_act} must decide now")]
    WrongPlayer { step: Color, to_act: Color },
    #[error("it names {named}'s pieces, but {to_act} must decide now")]
    WrongColour { named: Color, to_act: Color },
    #[error("{0} and {1} are not the two ends of five points in a line")]
    NotARow(Point, Point),
    #[error("`drop board` without a ring picked up by `place w`/`place b` before it")]
    DropWithoutPick,
    #[error("the ring picked up at {0} has not been dropped (`drop board` expected)")]
    PickedUp(Point),
    #[error(transparent)]
    Illegal(#[from] IllegalAction),
}

/// Why a record could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SgfError {
    /// The text is not a single SGF game tree.
    #[error("not an sgf game record: {why} (at byte {at})")]
    Syntax { at: usize, why: &'static str },
    /// A step failed; `number` is the step number as written, or
    /// `(unnumbered)`.
    #[error("step {number} `{text}`: {why}")]
    Step {
        number: String,
        text: String,
        why: StepError,
    },
}

/// One `[...]` property of a node.
struct Property {
    ident: String,
    value: String,
}

/// Splits SGF text into nodes of properties. BoardSpace writes one linear
/// game tree, so a nested variation is rejected rather than guessed at.
fn nodes(text: &str) -> Result<Vec<Vec<Property>>, SgfError> {
    let err = |at, why| SgfError::Syntax { at, why };
    let mut nodes: Vec<Vec<Property>> = Vec::new();
    let mut depth = 0usize;
    let mut closed = false;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            c if c.is_whitespace() => {}
            _ if closed => return Err(err(at, "text after the end of the game tree")),
            '(' if depth == 0 => depth = 1,
            '(' => return Err(err(at, "variations are not supported")),
            ')' if depth == 1 => {
                depth = 0;
                closed = true;
            }
            ';' if depth == 1 => nodes.push(Vec::new()),
            c if c.is_ascii_alphanumeric() && depth == 1 => {
                let Some(node) = nodes.last_mut() else {
                    return Err(err(at, "a property before the first `;`"));
                };
                let mut ident = String::from(c);
                while let Some(&(_, c)) = chars.peek().filter(|(_, c)| c.is_ascii_alphanumeric()) {
                    ident.push(c);
                    chars.next();
                }
                let mut values = 0;
                while chars.peek().is_some_and(|&(_, c)| c == '[') {
                    chars.next();
                    let mut value = String::new();
                    loop {
                        match chars.next() {
                            None => return Err(err(text.len(), "an unclosed `[`")),
                            Some((_, ']')) => break,
                            Some((_, '\\')) => match chars.next() {
                                Some((_, c)) => value.push(c),
                                None => return Err(err(text.len(), "an unclosed `[`")),
                            },
                            Some((_, c)) => value.push(c),
                        }
                    }
                    node.push(Property {
                        ident: ident.clone(),
                        value,
                    });
                    values += 1;
                }
                if values == 0 {
                    return Err(err(at, "a property name without a `[value]`"));
                }
            }
            _ => return Err(err(at, "an unexpected character")),
        }
    }
    if !closed {
        return Err(err(text.len(), "the game tree is not closed by `)`"));
    }
    Ok(nodes)
}

/// The words of a step after its number, lower-cased.
struct Words<'a> {
    words: std::slice::Iter<'a, String>,
}

impl<'a> Words<'a> {
    fn next(&mut self, expected: &'static str) -> Result<&'a str, StepError> {
        self.words
            .next()
            .map(String::as_str)
            .ok_or(StepError::Malformed(expected))
    }

    fn point(&mut self, expected: &'static str) -> Result<Point, StepError> {
        let col = self.next(expected)?;
        let row = self.next(expected)?;
        if col.chars().count() != 1 {
            return Err(StepError::Malformed(expected));
        }
        format!("{col}{row}")
            .parse()
            .map_err(|_| StepError::Malformed(expected))
    }

    fn end(&mut self, expected: &'static str) -> Result<(), StepError> {
        match self.words.next() {
            None => Ok(()),
            Some(_) => Err(StepError::Malformed(expected)),
        }
    }
}

/// What a step asks for.
enum Step {
    /// No board change (`Done`, `Start ..`, `pick ..`, `time ..`).
    Bookkeeping,
    Resign,
    /// `place w G 11`: the first half of a ring move.
    Pick {
        colour: Color,
        from: Point,
    },
    /// `drop board G 9`: the second half.
    Drop(Point),
    /// A whole decision; `colour` is the colour the step names, if any.
    Decide {
        colour: Option<Color>,
        action: Action,
    },
}

fn colour(letter: &str, ring: bool) -> Option<Color> {
    match (letter, ring) {
        ("w", false) | ("wr", true) => Some(Color::White),
        ("b", false) | ("br", true) => Some(Color::Black),
        _ => None,
    }
}

fn parse_step(words: &[String]) -> Result<Step, StepError> {
    const PLACE: &str = "`place wr|br <col> <row>` or `place w|b <col> <row>`";
    const REMOVE: &str = "`remove w|b <col> <row> <col> <row>` or `remove wr|br <col> <row>`";
    const MOVE: &str = "`move <col> <row> <col> <row>`";
    const DROP: &str = "`drop board <col> <row>`";
    const KEYWORD: &str = "a step: place, drop, move, remove, done, start, resign, pick or time";
    let mut w = Words {
        words: words.iter(),
    };
    let step = match w.next(KEYWORD)? {
        "done" => Step::Bookkeeping,
        "pick" | "time" => return Ok(Step::Bookkeeping),
        "start" => match w.next("`start white` or `start black`")? {
            "white" | "black" => Step::Bookkeeping,
            _ => return Err(StepError::Malformed("`start white` or `start black`")),
        },
        "resign" => Step::Resign,
        "place" => {
            let letter = w.next(PLACE)?;
            if let Some(c) = colour(letter, true) {
                Step::Decide {
                    colour: Some(c),
                    action: Action::Place(w.point(PLACE)?),
                }
            } else if let Some(c) = colour(letter, false) {
                Step::Pick {
                    colour: c,
                    from: w.point(PLACE)?,
                }
            } else {
                return Err(StepError::Malformed(PLACE));
            }
        }
        "drop" => {
            if w.next(DROP)? != "board" {
                return Err(StepError::Malformed(DROP));
            }
            Step::Drop(w.point(DROP)?)
        }
        "move" => {
            let from = w.point(MOVE)?;
            let to = w.point(MOVE)?;
            Step::Decide {
                colour: None,
                action: Action::Move { from, to },
            }
        }
        "remove" => {
            let letter = w.next(REMOVE)?;
            if let Some(c) = colour(letter, true) {
                Step::Decide {
                    colour: Some(c),
                    action: Action::RemoveRing(w.point(REMOVE)?),
                }
            } else if let Some(c) = colour(letter, false) {
                let (a, b) = (w.point(REMOVE)?, w.point(REMOVE)?);
                Step::Decide {
                    colour: Some(c),
                    action: row_from_ends(a, b).ok_or(StepError::NotARow(a, b))?,
                }
            } else {
                return Err(StepError::Malformed(REMOVE));
            }
        }
        _ => return Err(StepError::Malformed(KEYWORD)),
    };
    w.end("nothing more after the step's arguments")?;
    Ok(step)
}

/// Replaying state.
struct Reader {
    pos: Position,
    steps: Vec<SgfStep>,
    resigned: Option<Color>,
    /// `place w G 11` seen, `drop board` awaited: (point, its step number
    /// as written, its text).
    picked: Option<(Point, String, String)>,
}

impl Reader {
    /// Checks that the step's player and the colour it names are the player
    /// who must decide. Only board-changing steps are checked: BoardSpace
    /// files `Done` and other bookkeeping under either player, but a piece
    /// moved under the wrong name means the record and our replay disagree.
    fn check_player(&self, step: Color, named: Option<Color>) -> Result<(), StepError> {
        let to_act = self.pos.to_act();
        if self.pos.is_over() {
            // Let `play` explain that the game is over.
            return Ok(());
        }
        if step != to_act {
            return Err(StepError::WrongPlayer { step, to_act });
        }
        match named {
            Some(named) if named != to_act => Err(StepError::WrongColour { named, to_act }),
            _ => Ok(()),
        }
    }

    fn apply(
        &mut self,
        number: Option<u32>,
        number_text: &str,
        text: &str,
        player: Color,
        step: Step,
    ) -> Result<(), StepError> {
        let numbered = || number.ok_or(StepError::Malformed("a step number before the step"));
        match step {
            Step::Bookkeeping => {}
            Step::Resign => {
                if let Some((from, ..)) = self.picked {
                    return Err(StepError::PickedUp(from));
                }
                if !self.pos.is_over() {
                    self.resigned = Some(player);
                    self.pos.resign(player);
                }
            }
            Step::Pick { colour, from } => {
                numbered()?;
                if let Some((from, ..)) = self.picked {
                    return Err(StepError::PickedUp(from));
                }
                self.check_player(player, Some(colour))?;
                // Catch a pick of the wrong piece here, where the record
                // names it, rather than at the drop.
                if self.pos.decision() != Decision::MoveRing
                    || !self.pos.rings(colour).contains(from)
                {
                    let why = match self.pos.decision() {
                        Decision::GameOver => "the game is over".to_string(),
                        Decision::MoveRing => format!("there is no {colour} ring on {from}"),
                        _ => format!("{} must not move a ring now", self.pos.to_act()),
                    };
                    return Err(StepError::Illegal(IllegalAction {
                        action: format!("place {} {from}", &colour.name()[..1]),
                        reason: why,
                    }));
                }
                self.picked = Some((from, number_text.to_string(), text.to_string()));
            }
            Step::Drop(to) => {
                let number = numbered()?;
                let Some((from, _, pick_text)) = self.picked.take() else {
                    return Err(StepError::DropWithoutPick);
                };
                self.check_player(player, None)?;
                let action = Action::Move { from, to };
                self.pos.play(action)?;
                self.steps.push(SgfStep {
                    number,
                    text: format!("{pick_text} / {text}"),
                    player,
                    action,
                });
            }
            Step::Decide { colour, action } => {
                let number = numbered()?;
                if let Some((from, ..)) = self.picked {
                    return Err(StepError::PickedUp(from));
                }
                self.check_player(player, colour)?;
                self.pos.play(action)?;
                self.steps.push(SgfStep {
                    number,
                    text: text.to_string(),
                    player,
                    action,
                });
            }
        }
        Ok(())
    }
}

/// Reads a BoardSpace record and replays it, checking every step.
///
/// The header's `SU` decides the variant: a value mentioning `blitz` is
/// played to one ring, anything else to three.
///
/// ```
/// use yinsh_zero::games::yinsh::sgf::parse_sgf;
/// let ok = parse_sgf("(;SU[Yinsh]; P0[0 Start White]; P0[1 place wr H 6]; P0[2 Done])").unwrap();
/// assert_eq!(ok.actions.len(), 1);
/// let err = parse_sgf("(;SU[Yinsh]; P0[1 place wr H 6]; P1[2 place br H 6])").unwrap_err();
/// assert!(err.to_string().starts_with("step 2 `2 place br H 6`"), "{err}");
/// ```
pub fn parse_sgf(text: &str) -> Result<SgfGame, SgfError> {
    let mut nodes = nodes(text)?.into_iter();
    let properties: Vec<(String, String)> = nodes
        .next()
        .unwrap_or_default()
        .into_iter()
        .map(|p| (p.ident, p.value))
        .collect();
    let blitz = properties
        .iter()
        .any(|(k, v)| k == "SU" && v.to_ascii_lowercase().contains("blitz"));
    let mut replay = Reader {
        pos: Position::with_variant(Variant::blitz_if(blitz)),
        steps: Vec::new(),
        resigned: None,
        picked: None,
    };
    for prop in nodes.flatten() {
        let player = match prop.ident.as_str() {
            "P0" => Color::White,
            "P1" => Color::Black,
            _ => continue,
        };
        let text = prop.value.trim();
        let words: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
        let (number_text, rest) = match words.split_first() {
            Some((n, rest)) if n.starts_with(|c: char| c.is_ascii_digit()) => (n.clone(), rest),
            _ => (String::new(), &words[..]),
        };
        let fail = |why| SgfError::Step {
            number: if number_text.is_empty() {
                "(unnumbered)".to_string()
            } else {
                number_text.clone()
            },
            text: text.to_string(),
            why,
        };
        let number = if number_text.is_empty() {
            None
        } else {
            Some(
                number_text
                    .parse::<u32>()
                    .map_err(|_| fail(StepError::Malformed("a step number")))?,
            )
        };
        let step = parse_step(rest).map_err(fail)?;
        replay
            .apply(number, &number_text, text, player, step)
            .map_err(fail)?;
    }
    if let Some((from, number, text)) = replay.picked.take() {
        return Err(SgfError::Step {
            number,
            text,
            why: StepError::PickedUp(from),
        });
    }
    Ok(SgfGame {
        actions: replay.steps.iter().map(|s| s.action).collect(),
        steps: replay.steps,
        final_position: replay.pos,
        resigned: replay.resigned,
        properties,
    })
}
