//! One game on the server: the moves so far, who the human is, and the
//! engine opponent that follows the game.

use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use crate::game::Game;
use crate::games::yinsh::notation::{NotationError, format_turns, parse_action};
use crate::games::yinsh::parse_player;
use crate::games::yinsh::{Action, Color, Decision, Point, Position, Variant, Yinsh};
use crate::web::EngineSeat;
use crate::web::Offers;
use crate::web::{ByColour, GameError, OutcomeView, bounded_spec};
use crate::web::{SeatedGame, SeatedRules};

/// What a new game is made of.
#[derive(Clone, Debug)]
pub struct GameOptions {
    /// The colour the human plays.
    pub human: Color,
    /// A player spec (see [`crate::games::yinsh::parse_player`]) or
    /// [`crate::web::HUMAN`].
    pub opponent: String,
    /// One ring wins.
    pub blitz: bool,
    /// Start from ten random ring placements instead of an empty board.
    pub random_placement: bool,
    /// Seeds the engine and the random placement.
    pub seed: u64,
}

/// A game between a human and an engine (or two humans at one screen):
/// its decisions and engine seat are a [`SeatedGame`] (its field
/// `seated`).
#[derive(Debug)]
pub struct PageGame {
    /// Its decisions and engine seat ([`ServedGame::seated`](crate::web::ServedGame::seated)).
    pub(super) seated: SeatedGame<Position>,
    /// Leading actions that undo never takes back (a random opening).
    fixed: usize,
    /// The markers the last ring move flipped (for the page to show).
    flipped: Vec<Point>,
}

/// Decisions in single-decision notation (`e3`, `a2-h9`, `xg5-g9`, `xa5`,
/// `pass`); [`PageGame::undo`] takes them back one by one.
impl SeatedRules for Position {
    fn parse_human(&self, text: &str) -> Result<Action, GameError> {
        parse_action(self, text.trim()).map_err(|e| match e {
            NotationError::Malformed { .. } => GameError::BadRequest(e.to_string()),
            e => GameError::Illegal(e.to_string()),
        })
    }
}

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
            |spec| bounded_spec::<Yinsh>(spec, max_think),
            Box::new(parse_player),
        )?;
        let mut game = PageGame {
            seated: SeatedGame::new(start, seat),
            fixed: 0,
            flipped: Vec::new(),
        };
        if options.random_placement {
            let mut rng = SmallRng::seed_from_u64(options.seed ^ 0x00be_11e5);
            while game.seated.position().decision() == Decision::PlaceRing {
                let legal = game.seated.position().legal_actions();
                let a = legal[rng.random_range(0..legal.len())];
                game.seated.apply(a);
            }
            game.fixed = game.seated.actions().len();
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
            (self.seated.actions().last(), self.seated.positions())
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
        let pos = self.seated.position();
        let over = pos.outcome();
        GameView {
            id: id.to_string(),
            variant: pos.variant().name(),
            human: self.seated.human(),
            opponent: self.seated.opponent().to_string(),
            turn: pos.turn(),
            to_act: (!pos.is_over()).then(|| pos.to_act()),
            decision: pos.decision(),
            engine_to_act: self.seated.engine_to_act(),
            thinking: self.seated.is_thinking(),
            board: BoardView::of(pos),
            legal: if pos.is_over() {
                Vec::new()
            } else {
                pos.legal_actions().iter().map(|a| a.to_string()).collect()
            },
            history: self.seated.history(),
            moves: format_turns(self.seated.start(), self.seated.actions()),
            fixed: self.fixed,
            last: self.seated.last(),
            flipped: self.flipped.iter().map(|p| p.to_string()).collect(),
            outcome: over.map(|o| OutcomeView {
                winner: o.winner,
                reason: o.reason.name(),
                text: outcome_text(&o),
            }),
            can_undo: self.seated.actions().len() > self.fixed && !self.seated.is_thinking(),
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
pub type EngineJob = crate::web::EngineJob<Position>;

/// What a lent YINSH engine brings back.
pub type EngineDone = crate::web::EngineDone<Position>;

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
