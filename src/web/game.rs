//! One game on the server: the moves so far, who the human is, and the
//! engine opponent that follows the game.

use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use super::offers::Offers;
use super::seat::EngineSeat;
use super::seated::{SeatedGame, SeatedRules, deref_to_seated};
use crate::arena::{PlayerInfo, PlayerSpec, PlayerSpecError, parse_player, players_of};
use crate::game::Game;
use crate::games::yinsh::notation::{NotationError, format_turns, parse_action};
use crate::games::yinsh::{Action, Color, Decision, Point, Position, Variant, Yinsh};

/// The opponent spec that means "no engine: both sides are played by hand".
pub const HUMAN: &str = "human";

/// What a new game is made of.
#[derive(Clone, Debug)]
pub struct GameOptions {
    /// The colour the human plays.
    pub human: Color,
    /// A player spec (see [`crate::arena::parse_player`]) or [`HUMAN`].
    pub opponent: String,
    /// One ring wins.
    pub blitz: bool,
    /// Start from ten random ring placements instead of an empty board.
    pub random_placement: bool,
    /// Seeds the engine and the random placement.
    pub seed: u64,
}

/// Why a request about a game was refused. Each variant names the problem
/// in words a player can act on.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    #[error("bad opponent: {0}")]
    Opponent(#[from] PlayerSpecError),
    #[error(
        "opponent `{spec}` thinks {asked} ms per decision; this server allows at most {max} ms"
    )]
    ThinkTooLong { spec: String, asked: u64, max: u64 },
    #[error("opponent `{spec}`: option `time={value}` is not a whole number of milliseconds")]
    BadTime { spec: String, value: String },
    /// A spec that names a file, or a network or database the server does
    /// not offer ([`super::Offers`]).
    #[error("bad opponent: {0}")]
    NotOffered(#[from] super::offers::NotOffered),
    /// An offered network or database that could not be loaded.
    #[error("{0}")]
    Unavailable(String),
    #[error("{0}")]
    Notation(#[from] NotationError),
    /// A request that cannot be understood (a Morris action that is no
    /// point name, an unknown variant).
    #[error("{0}")]
    BadRequest(String),
    /// A well-formed Morris action that the rules forbid here.
    #[error("{0}")]
    Illegal(String),
    #[error("the game is over")]
    GameOver,
    #[error("it is the engine's turn ({0} to act): ask the engine to move")]
    EngineToAct(Color),
    #[error("it is your turn ({0} to act): the engine has nothing to do")]
    HumanToAct(Color),
    #[error("this game has no engine opponent")]
    NoEngine,
    #[error("the engine is still thinking about this game")]
    EngineBusy,
    #[error("nothing to undo")]
    NothingToUndo,
    #[error("the engine `{spec}` chose `{action}`, which is not legal: {why}")]
    EngineBug {
        spec: String,
        action: String,
        why: String,
    },
}

/// A game between a human and an engine (or two humans at one screen):
/// its decisions and engine seat are a [`SeatedGame`], which it derefs to
/// (`position`, `actions`, `begin_engine`, ...).
#[derive(Debug)]
pub struct PageGame {
    seated: SeatedGame<Position>,
    /// Leading actions that undo never takes back (a random opening).
    fixed: usize,
    /// The markers the last ring move flipped (for the page to show).
    flipped: Vec<Point>,
}

deref_to_seated!(PageGame, Position);

/// Decisions in single-decision notation (`e3`, `a2-h9`, `xg5-g9`, `xa5`,
/// `pass`); [`PageGame::undo`] takes them back one by one.
impl SeatedRules for Position {
    fn parse_human(&self, text: &str) -> Result<Action, GameError> {
        Ok(parse_action(self, text.trim())?)
    }
}

/// `spec` with its thinking time bounded by `max`: specs of players that
/// take a `time` option get `time=max` unless they ask for less.
///
/// ```
/// use std::time::Duration;
/// use yinsh_zero::web::bounded_spec;
/// let max = Duration::from_millis(500);
/// assert_eq!(bounded_spec("alphabeta:depth=4", max).unwrap(), "alphabeta:depth=4,time=500");
/// assert_eq!(bounded_spec("mcts-rollout:time=100", max).unwrap(), "mcts-rollout:time=100");
/// assert_eq!(bounded_spec("random", max).unwrap(), "random");
/// assert!(bounded_spec("alphabeta:time=9000", max).is_err());
/// ```
pub fn bounded_spec(spec: &str, max: Duration) -> Result<String, GameError> {
    bounded_spec_among(spec, max, &players_of::<crate::games::yinsh::Yinsh>())
}

/// [`bounded_spec`] for the player kinds `players` of any game.
pub(crate) fn bounded_spec_among(
    spec: &str,
    max: Duration,
    players: &[PlayerInfo],
) -> Result<String, GameError> {
    let mut parsed: PlayerSpec = spec.parse()?;
    let max_ms = max.as_millis() as u64;
    let takes_time = players
        .iter()
        .find(|p| p.name == parsed.name)
        .is_some_and(|p| p.keys.iter().any(|(k, _)| *k == "time"));
    if let Some(value) = parsed.get("time") {
        let asked: u64 = value.parse().map_err(|_| GameError::BadTime {
            spec: spec.to_string(),
            value: value.to_string(),
        })?;
        if asked > max_ms {
            return Err(GameError::ThinkTooLong {
                spec: spec.to_string(),
                asked,
                max: max_ms,
            });
        }
    } else if takes_time {
        parsed.options.push(("time".into(), max_ms.to_string()));
    }
    for &(key, most) in WEB_LIMITS {
        if let Some(value) = parsed.get(key)
            && value.parse::<u64>().is_ok_and(|v| v > most)
        {
            return Err(GameError::BadRequest(format!(
                "opponent: option `{key}` may be at most {most} on this server"
            )));
        }
    }
    Ok(parsed.to_string())
}

/// Options that size what a player allocates, with the most a request may
/// ask: `alphabeta:tt=28` is a 4 GiB table, per game, and the server keeps
/// up to a thousand games. 20 bits is a 16 MiB table.
const WEB_LIMITS: &[(&str, u64)] = &[("tt", 20)];

impl PageGame {
    /// A new game; the opponent spec is bounded by `max_think` (see
    /// [`bounded_spec`]) and built at once, so a bad spec fails here.
    pub fn new(
        options: &GameOptions,
        max_think: Duration,
        offers: &Offers,
    ) -> Result<PageGame, GameError> {
        let start = Position::with_variant(Variant::blitz_if(options.blitz));
        let seat = EngineSeat::new(
            options.human,
            &options.opponent,
            options.seed,
            &start,
            offers,
            (Yinsh::NAME, start.variant().name()),
            |spec| bounded_spec(spec, max_think),
            Box::new(parse_player),
        )?;
        let mut game = PageGame {
            seated: SeatedGame::new(start, seat),
            fixed: 0,
            flipped: Vec::new(),
        };
        if options.random_placement {
            let mut rng = SmallRng::seed_from_u64(options.seed ^ 0x00be_11e5);
            while game.position().decision() == Decision::PlaceRing {
                let legal = game.position().legal_actions();
                let a = legal[rng.random_range(0..legal.len())];
                game.seated.apply(a);
            }
            game.fixed = game.actions().len();
        }
        Ok(game)
    }

    /// Plays the human's decision, written in single-decision notation
    /// (`e3`, `a2-h9`, `xg5-g9`, `xa5`, `pass`). On any error the game is
    /// unchanged.
    pub fn play(&mut self, text: &str) -> Result<Action, GameError> {
        let action = self.seated.play(text)?;
        self.flipped = self.flipped_by_last();
        Ok(action)
    }

    /// Takes the engine back with the decisions it made; they are played if
    /// the game has not changed meanwhile.
    pub fn finish_engine(&mut self, done: EngineDone) -> Result<Vec<Action>, GameError> {
        let actions = self.seated.finish_engine(done)?;
        self.flipped = self.flipped_by_last();
        Ok(actions)
    }

    /// Takes back decisions up to and including the human's last one, so
    /// the human decides again. Never undoes a random opening.
    pub fn undo(&mut self) -> Result<usize, GameError> {
        let undone = self.seated.take_back(self.fixed, |_| true)?;
        self.flipped.clear();
        Ok(undone)
    }

    /// The markers the last decision flipped: none unless it moved a ring.
    fn flipped_by_last(&self) -> Vec<Point> {
        let (Some(&Action::Move { from, .. }), [.., before, after]) =
            (self.actions().last(), self.positions())
        else {
            return Vec::new();
        };
        Point::all()
            .filter(|&p| p != from)
            .filter(|&p| {
                before.markers(Color::White).contains(p) && after.markers(Color::Black).contains(p)
                    || before.markers(Color::Black).contains(p)
                        && after.markers(Color::White).contains(p)
            })
            .collect()
    }

    /// Everything the page shows about the game.
    pub fn view(&self, id: &str) -> GameView {
        let pos = self.position();
        let over = pos.outcome();
        GameView {
            id: id.to_string(),
            variant: pos.variant().name(),
            human: self.human(),
            opponent: self.opponent().to_string(),
            turn: pos.turn(),
            to_act: (!pos.is_over()).then(|| pos.to_act()),
            decision: pos.decision(),
            engine_to_act: self.engine_to_act(),
            thinking: self.is_thinking(),
            board: BoardView::of(pos),
            legal: if pos.is_over() {
                Vec::new()
            } else {
                pos.legal_actions().iter().map(|a| a.to_string()).collect()
            },
            history: self.history(),
            moves: format_turns(self.start(), self.actions()),
            fixed: self.fixed,
            last: self.last(),
            flipped: self.flipped.iter().map(|p| p.to_string()).collect(),
            outcome: over.map(|o| OutcomeView {
                winner: o.winner,
                reason: o.reason.name(),
                text: outcome_text(&o),
            }),
            can_undo: self.actions().len() > self.fixed && !self.is_thinking(),
        }
    }
}

/// The outcome in words, e.g. "white wins: 3 rings to 1".
pub fn outcome_text(o: &crate::games::yinsh::Outcome) -> String {
    let [w, b] = o.rings_removed;
    let why = match o.reason {
        crate::games::yinsh::EndReason::ThreeRings => format!("rings removed {w} to {b}"),
        crate::games::yinsh::EndReason::PoolEmpty => {
            format!("pool empty, rings removed {w} to {b}")
        }
        crate::games::yinsh::EndReason::DoublePass => {
            format!("both passed, rings removed {w} to {b}")
        }
        crate::games::yinsh::EndReason::Resign => "resignation".to_string(),
    };
    match o.winner {
        Some(c) => format!("{c} wins ({why})"),
        None => format!("draw ({why})"),
    }
}

/// A YINSH engine lent out to think, with what it is asked about.
pub type EngineJob = super::seat::EngineJob<Position>;

/// What a lent YINSH engine brings back.
pub type EngineDone = super::seat::EngineDone<Position>;

/// The board for the page: points as lower-case names.
#[derive(Clone, Debug, Serialize)]
pub struct BoardView {
    pub rings: ByColour<Vec<String>>,
    pub markers: ByColour<Vec<String>>,
    pub rings_removed: ByColour<u8>,
    /// Markers left in the pool.
    pub pool: u32,
    pub rings_to_win: u8,
}

impl BoardView {
    pub fn of(pos: &Position) -> BoardView {
        let names =
            |b: crate::games::yinsh::Bitboard| b.into_iter().map(|p| p.to_string()).collect();
        BoardView {
            rings: ByColour {
                white: names(pos.rings(Color::White)),
                black: names(pos.rings(Color::Black)),
            },
            markers: ByColour {
                white: names(pos.markers(Color::White)),
                black: names(pos.markers(Color::Black)),
            },
            rings_removed: ByColour {
                white: pos.rings_removed(Color::White),
                black: pos.rings_removed(Color::Black),
            },
            pool: pos.pool(),
            rings_to_win: pos.variant().rings_to_win,
        }
    }
}

/// One value per colour, as `{"white": .., "black": ..}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ByColour<T> {
    pub white: T,
    pub black: T,
}

/// The state of a game as the API returns it.
#[derive(Clone, Debug, Serialize)]
pub struct GameView {
    pub id: String,
    /// `"standard"` or `"blitz"`.
    pub variant: &'static str,
    pub human: Color,
    pub opponent: String,
    /// Placements and ring moves made so far.
    pub turn: u32,
    /// `None` once the game is over.
    pub to_act: Option<Color>,
    pub decision: Decision,
    pub engine_to_act: bool,
    pub thinking: bool,
    pub board: BoardView,
    /// The legal decisions now, in single-decision notation.
    pub legal: Vec<String>,
    /// Every decision so far, in single-decision notation.
    pub history: Vec<String>,
    /// The game in official notation, one token per turn.
    pub moves: Vec<String>,
    /// How many leading decisions were a random opening (never undone).
    pub fixed: usize,
    pub last: Option<String>,
    /// Markers flipped by the last decision.
    pub flipped: Vec<String>,
    pub outcome: Option<OutcomeView>,
    pub can_undo: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct OutcomeView {
    /// `None` for a draw.
    pub winner: Option<Color>,
    pub reason: &'static str,
    /// E.g. "white wins (three rings)".
    pub text: String,
}
