//! One Morris game on the server (Nine, Six or Three Men's Morris): a
//! [`SeatedGame`] like every page's (the decisions so far, who the human
//! is, the engine opponent that follows the game), with Morris's notation
//! for the human's decisions, a turn that closed a mill going on with its
//! removal, and the view the Morris page draws.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use crate::arena::{PlayerSpec, parse_game_player};
use crate::game::{Color, Game, GameResult, State};
use crate::games::morris::db::Database;
use crate::games::morris::{Action, Morris, Position, Variant, geometry};
use crate::web::EngineSeat;
use crate::web::Offers;
use crate::web::{ByColour, GameError, OutcomeView, bounded_spec};
use crate::web::{SeatedGame, SeatedRules, SeatedView, TurnView};

/// What a new Morris game is made of.
#[derive(Clone, Debug)]
pub struct MorrisOptions {
    pub variant: Variant,
    /// The colour the human plays.
    pub human: Color,
    /// A player spec (see [`crate::arena::parse_game_player`]) or
    /// [`crate::web::HUMAN`].
    pub opponent: String,
    /// Seeds the engine.
    pub seed: u64,
}

/// "Nine Men's Morris", "Six Men's Morris", "Three Men's Morris".
pub fn title(variant: Variant) -> String {
    format!(
        "{} Men's Morris",
        crate::games::morris::address::title(variant)
    )
}

/// The variant called `name`, or an error listing the known ones.
pub fn variant_named(name: &str) -> Result<Variant, GameError> {
    Variant::from_name(name.trim()).ok_or_else(|| {
        GameError::BadRequest(format!(
            "unknown Morris variant `{name}`; known: {}",
            Variant::NAMES.join(", ")
        ))
    })
}

/// `spec` with its thinking time bounded by `max` (as
/// [`crate::web::bounded_spec`] does for YINSH).
pub fn morris_spec(spec: &str, max: Duration) -> Result<String, GameError> {
    bounded_spec::<Morris>(spec, max)
}

/// A `perfect` player without a `db` option pointed at the server's own
/// database folder for the variant, when it has one configured: applied to
/// the spec being built, after the caller's spec was checked, so the
/// server's path is neither refused as the caller's nor shown.
fn with_database(spec: &str, db_dir: Option<&Path>) -> String {
    let Ok(mut parsed) = spec.parse::<PlayerSpec>() else {
        return spec.to_string();
    };
    if let Some(dir) = db_dir
        && parsed.name == "perfect"
        && parsed.get("db").is_none()
    {
        parsed
            .options
            .push(("db".into(), dir.display().to_string()));
    }
    parsed.to_string()
}

/// Reads an action written as the page and the rules document write them
/// (`d2`, `d2-d3`, `xd5`). Text that is no action at all is a
/// [`GameError::BadRequest`]; a square that is no point of the board, or
/// an action the rules forbid in `pos`, is [`GameError::Illegal`].
pub fn parse_action(pos: &Position, text: &str) -> Result<Action, GameError> {
    let text = text.trim().to_ascii_lowercase();
    let geo = pos.geometry();
    let malformed = || {
        GameError::BadRequest(format!(
            "`{text}` is no Morris action: write a placement `d2`, a move `d2-d3` or a removal `xd5`"
        ))
    };
    // The page writes actions as the rules print them; anything else is
    // refused as malformed rather than guessed at.
    let action = text
        .parse::<Action>()
        .ok()
        .filter(|a| a.to_string() == text)
        .ok_or_else(malformed)?;
    if let Some(s) = action.squares().find(|&s| geo.point_at(s).is_none()) {
        return Err(GameError::Illegal(format!(
            "`{text}`: {s} is not a point of the {} board",
            title(geo.variant)
        )));
    }
    let mut probe = pos.clone();
    probe
        .play(action)
        .map_err(|e| GameError::Illegal(format!("`{text}` is not legal: {}", e.reason)))?;
    Ok(action)
}

/// A Morris game between a human and an engine (or two humans at one
/// screen): its decisions and engine seat are a [`SeatedGame`], its field
/// `seated`.
#[derive(Debug)]
pub struct MorrisGame {
    game: Morris,
    /// Its decisions and engine seat ([`ServedGame::seated`](crate::web::ServedGame::seated)).
    pub(super) seated: SeatedGame<Position>,
}

/// Plays (`d2`, `d2-d3`, `xd5`) as `parse_action` reads them; a turn
/// that closed a mill goes on with its removal.
impl SeatedRules for Position {
    fn parse_human(&self, text: &str) -> Result<Action, GameError> {
        parse_action(self, text)
    }

    fn starts_turn(&self) -> bool {
        !self.removing()
    }
}

impl MorrisGame {
    /// A new game. The opponent spec is bounded by `max_think` and built
    /// at once (see [`morris_spec`]), so a bad spec fails here; `db_dir` is
    /// where a `perfect` opponent without its own `db` finds the database.
    pub fn new(
        options: &MorrisOptions,
        max_think: Duration,
        db_dir: Option<&Path>,
        offers: &Offers,
    ) -> Result<MorrisGame, GameError> {
        let game = Morris::new(options.variant);
        let start = Position::start(options.variant);
        // `perfect` without a solved database is the caller's to fix (by
        // solving one), so it is told how, without the folder's path.
        let wants_perfect = options
            .opponent
            .parse::<PlayerSpec>()
            .is_ok_and(|s| s.name == "perfect" && s.get("db").is_none());
        if wants_perfect {
            let dir = db_dir.map_or_else(|| Database::default_dir(game.rules), Path::to_path_buf);
            let solved = Database::open(&dir, game.rules).is_ok_and(|db| db.layers().count() > 0);
            if !solved {
                return Err(GameError::BadRequest(format!(
                    "this server has no {} database yet: run `yinsh-zero solve --variant {}`",
                    title(game.rules),
                    game.rules.name()
                )));
            }
        }
        let db_dir = db_dir.map(Path::to_path_buf);
        let seat = EngineSeat::new(
            options.human,
            &options.opponent,
            options.seed,
            &start,
            offers,
            (Morris::NAME, game.variant()),
            |spec| bounded_spec::<Morris>(spec, max_think),
            Box::new(move |spec: &str, seed| {
                let spec = with_database(spec, db_dir.as_deref());
                parse_game_player(&game, &spec, seed)
            }),
        )?;
        Ok(MorrisGame {
            game,
            seated: SeatedGame::new(start, seat),
        })
    }

    pub fn variant(&self) -> Variant {
        self.game.rules
    }

    /// Everything the page shows about the game.
    pub fn view(&self, id: &str) -> MorrisView {
        let pos = self.seated.position();
        MorrisView {
            seated: self.seated.seated_view(id),
            variant: self.game.rules.name(),
            title: title(self.game.rules),
            phase: phase(pos),
            board: MorrisBoard::of(pos),
            legal: pos.legal_actions().iter().map(|a| a.to_string()).collect(),
            turns: self.seated.turns(),
            quiet_moves: pos.quiet_moves(),
            repetitions: pos.repetitions(),
            outcome: outcome(pos),
        }
    }
}

/// What the player to act does now: `place`, `move`, `fly`, `remove`, or
/// `over`.
pub fn phase(pos: &Position) -> &'static str {
    if pos.is_over() {
        "over"
    } else if pos.removing() {
        "remove"
    } else if pos.hand(pos.to_act()) > 0 {
        "place"
    } else if pos.flies(pos.to_act()) {
        "fly"
    } else {
        "move"
    }
}

/// How a finished game ended, in words.
pub fn outcome(pos: &Position) -> Option<OutcomeView> {
    let result = pos.result()?;
    let reason = pos.end_reason().unwrap_or("over");
    let cap = |c: Color| if c == Color::White { "White" } else { "Black" };
    let text = match result {
        GameResult::Win(c) => {
            let why = match reason {
                "line" => "three in a row".to_string(),
                "two_stones" => format!("{} is down to two stones", cap(!c)),
                "blocked" => format!("{} cannot move", cap(!c)),
                other => other.replace('_', " "),
            };
            format!("{} wins: {why}", cap(c))
        }
        GameResult::Draw => {
            let why = match reason {
                "repetition" => format!(
                    "the same position occurred {} times",
                    crate::games::morris::REPETITIONS_TO_DRAW
                ),
                "no_progress" => format!(
                    "{} moves without a placement or a removal",
                    crate::games::morris::NO_PROGRESS_LIMIT
                ),
                other => other.replace('_', " "),
            };
            format!("Draw: {why}")
        }
    };
    Some(OutcomeView {
        winner: match result {
            GameResult::Win(c) => Some(c),
            GameResult::Draw => None,
        },
        reason,
        text,
    })
}

/// A Morris engine lent out to think, with what it is asked about.
pub type MorrisEngineJob = crate::web::EngineJob<Position>;

/// What a lent Morris engine brings back.
pub type MorrisEngineDone = crate::web::EngineDone<Position>;

/// The stones on the board by point name, and what each side holds.
#[derive(Clone, Debug, Serialize)]
pub struct MorrisBoard {
    pub white: Vec<String>,
    pub black: Vec<String>,
    /// Stones still to place.
    pub hand: ByColour<u8>,
    /// Whether the side may fly (three stones left, Nine Men's Morris).
    pub flies: ByColour<bool>,
}

impl MorrisBoard {
    pub fn of(pos: &Position) -> MorrisBoard {
        let geo = pos.geometry();
        let names = |c: Color| {
            geometry::points(pos.stones(c))
                .map(|p| geo.name(p))
                .collect()
        };
        MorrisBoard {
            white: names(Color::White),
            black: names(Color::Black),
            hand: ByColour {
                white: pos.hand(Color::White),
                black: pos.hand(Color::Black),
            },
            flies: ByColour {
                white: pos.flies(Color::White),
                black: pos.flies(Color::Black),
            },
        }
    }
}

/// A Morris game as the API returns it.
#[derive(Clone, Debug, Serialize)]
pub struct MorrisView {
    /// Seats, turn and decisions, as every game's page has them.
    #[serde(flatten)]
    pub seated: SeatedView,
    /// `nine`, `six` or `three`.
    pub variant: &'static str,
    pub title: String,
    /// What the player to act does: `place`, `move`, `fly`, `remove`, or
    /// `over`.
    pub phase: &'static str,
    pub board: MorrisBoard,
    /// The legal decisions now.
    pub legal: Vec<String>,
    /// The decisions as whole turns.
    pub turns: Vec<TurnView>,
    /// Moves since the last placement or removal (the no-progress draw).
    pub quiet_moves: u16,
    /// How often this position has occurred (threefold repetition).
    pub repetitions: u8,
    pub outcome: Option<OutcomeView>,
}

/// A variant's board for drawing: points on the grid, the lines between
/// neighbours, and the mills.
#[derive(Clone, Debug, Serialize)]
pub struct BoardGeometry {
    pub variant: &'static str,
    pub title: String,
    /// Points per side of the square grid (7, 5, 3).
    pub side: usize,
    pub points: Vec<BoardPoint>,
    /// Neighbouring points, each pair once: the drawn lines.
    pub lines: Vec<[String; 2]>,
    pub mills: Vec<Vec<String>>,
    /// Stones each side places.
    pub stones: u8,
    pub flying: bool,
    /// A line of three wins at once (Three Men's Morris).
    pub line_wins: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct BoardPoint {
    pub name: String,
    /// From the left, from 0.
    pub col: u8,
    /// From the bottom, from 0.
    pub row: u8,
}

impl BoardGeometry {
    pub fn of(variant: Variant) -> BoardGeometry {
        let geo = variant.geometry();
        let all = || geometry::points(geo.all);
        let points = all()
            .map(|p| {
                let (col, row) = geo.coords[p.index()];
                BoardPoint {
                    name: geo.name(p),
                    col,
                    row,
                }
            })
            .collect();
        let mut lines = Vec::new();
        for p in all() {
            for q in geometry::points(geo.adjacent[p.index()]) {
                if p < q {
                    lines.push([geo.name(p), geo.name(q)]);
                }
            }
        }
        let mills = geo
            .mills
            .iter()
            .map(|&m| geometry::points(m).map(|p| geo.name(p)).collect())
            .collect();
        BoardGeometry {
            variant: variant.name(),
            title: title(variant),
            side: geo.side,
            points,
            lines,
            mills,
            stones: geo.stones,
            flying: geo.flying,
            line_wins: geo.mill_wins,
        }
    }
}
