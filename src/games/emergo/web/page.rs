//! One Emergo game on the server (`docs/emergo-rules.md`): a [`SeatedGame`]
//! like every page's, with Emergo's notation for the human's decisions and
//! the view its page draws — stacks of controllers over prisoners, the men
//! in hand, and the legal entries, steps and jumps. A capture chain is one
//! decision per jump by the same player, so while one is under way only
//! its continuations are legal, undo takes the whole chain back, and the
//! move list writes it as one turn (`c3xe5xg3`).

use std::time::Duration;

use serde::Serialize;

use crate::arena::parse_game_player;
use crate::game::{Color, Game, GameResult, State};
use crate::games::emergo::notation::{self, Action};
use crate::games::emergo::{
    Blocked, Emergo, NO_PROGRESS_LIMIT, Position, Square, TURN_LIMIT, Variant,
};
use crate::web::EngineSeat;
use crate::web::Offers;
use crate::web::{ByColour, GameError, OutcomeView, bounded_spec};
use crate::web::{SeatedGame, SeatedRules, SeatedView, TurnView};

/// What a new Emergo game is made of.
#[derive(Clone, Debug)]
pub struct EmergoOptions {
    pub variant: Variant,
    /// The colour the human plays (White enters first).
    pub human: Color,
    /// A player spec (see [`crate::arena::parse_game_player`]) or
    /// [`crate::web::HUMAN`].
    pub opponent: String,
    /// Seeds the engine.
    pub seed: u64,
}

/// "Emergo", "Emergo (a blocked player loses)", "Emergo on 7 x 7".
pub fn emergo_title(variant: Variant) -> String {
    match variant {
        Variant::Standard => "Emergo".into(),
        Variant::BlockedLoses => "Emergo (a blocked player loses)".into(),
        Variant::Small => "Emergo on 7 x 7".into(),
    }
}

/// The variant called `name`, or an error listing the known ones.
pub fn emergo_named(name: &str) -> Result<Variant, GameError> {
    Variant::from_name(name.trim()).ok_or_else(|| {
        GameError::BadRequest(format!(
            "unknown Emergo variant `{name}`; known: {}",
            Variant::NAMES.join(", ")
        ))
    })
}

/// `spec` ready to build for Emergo, its thinking time bounded by `max` as
/// [`crate::web::bounded_spec`] does for YINSH.
pub fn emergo_spec(spec: &str, max: Duration) -> Result<String, GameError> {
    bounded_spec::<Emergo>(spec, max)
}

/// Reads one decision as the page and the rules page write them: `@e5`
/// (enter), `c3-d4` (step), `c3xe5` (one jump of a chain). Text that is no
/// decision at all (a whole chain `c3xe5xg3` included: one jump is one
/// decision) is a [`GameError::BadRequest`]; a square off the board or not
/// played on, or a decision the rules forbid in `pos`, is
/// [`GameError::Illegal`].
pub fn parse_action(pos: &Position, text: &str) -> Result<Action, GameError> {
    let text = text.trim().to_ascii_lowercase();
    let action = notation::parse(&text).map_err(GameError::BadRequest)?;
    let mut probe = pos.clone();
    probe
        .play(action)
        .map_err(|e| GameError::Illegal(format!("`{text}` is not legal: {}", e.reason)))?;
    Ok(action)
}

/// Decisions in Emergo's notation; a capture chain is one turn, its jumps
/// joined (`c3xe5xg3`).
impl SeatedRules for Position {
    fn parse_human(&self, text: &str) -> Result<Action, GameError> {
        parse_action(self, text)
    }

    fn starts_turn(&self) -> bool {
        self.chain().is_none()
    }

    fn join_turn(text: &mut String, next: Action) {
        notation::join_jump(text, next);
    }
}

/// An Emergo game between a human and an engine (or two humans at one
/// screen): its decisions and engine seat are a [`SeatedGame`], its field
/// `seated`.
#[derive(Debug)]
pub struct EmergoGame {
    variant: Variant,
    /// Its decisions and engine seat ([`ServedGame::seated`](crate::web::ServedGame::seated)).
    pub(super) seated: SeatedGame<Position>,
}

impl EmergoGame {
    /// A new game. The opponent spec is bounded by `max_think` and built at
    /// once (see [`emergo_spec`]), so a bad spec fails here.
    pub fn new(
        options: &EmergoOptions,
        max_think: Duration,
        offers: &Offers,
    ) -> Result<EmergoGame, GameError> {
        let game = Emergo::new(options.variant);
        let start = Position::start(options.variant);
        let seat = EngineSeat::new(
            options.human,
            &options.opponent,
            options.seed,
            &start,
            offers,
            (Emergo::NAME, game.variant()),
            |spec| emergo_spec(spec, max_think),
            Box::new(move |spec: &str, seed| parse_game_player(&game, spec, seed)),
        )?;
        Ok(EmergoGame {
            variant: options.variant,
            seated: SeatedGame::new(start, seat),
        })
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Everything the page shows about the game.
    pub fn view(&self, id: &str) -> EmergoView {
        let pos = self.seated.position();
        let legal: Vec<EmergoLegalView> = pos
            .legal_actions()
            .iter()
            .map(EmergoLegalView::of)
            .collect();
        EmergoView {
            seated: self.seated.seated_view(id),
            variant: self.variant.name(),
            title: emergo_title(self.variant),
            side: pos.geometry().side,
            turn: pos.turns(),
            phase: phase(pos, &legal),
            chain: pos.chain().map(|(s, _)| s.to_string()),
            board: EmergoBoard::of(pos),
            legal,
            turns: self.seated.turns(),
            quiet_turns: pos.quiet_turns(),
            outcome: outcome(pos),
        }
    }
}

/// What the player to act does now: `enter`, `move` (step a unit),
/// `capture` (start a chain), `chain` (jump on), or `over`.
fn phase(pos: &Position, legal: &[EmergoLegalView]) -> &'static str {
    if pos.is_over() {
        "over"
    } else if pos.chain().is_some() {
        "chain"
    } else {
        legal.first().map_or("over", |l| match l.kind {
            "enter" => "enter",
            "step" => "move",
            _ => "capture",
        })
    }
}

/// How a finished game ended, in words.
pub fn outcome(pos: &Position) -> Option<OutcomeView> {
    let result = pos.result()?;
    let reason = pos.end_reason().unwrap_or("over");
    let cap = |c: Color| if c == Color::White { "White" } else { "Black" };
    // The game is decided at the start of a turn: the player to act is the
    // one who has no unit left, or cannot move.
    let stuck = pos.to_act();
    let text = match (result, reason) {
        (GameResult::Win(c), "no_units") => format!(
            "{} wins: {} controls no unit and has no man in hand",
            cap(c),
            cap(!c)
        ),
        (GameResult::Win(c), "blocked") => format!(
            "{} wins: {} cannot move, and a blocked player loses",
            cap(c),
            cap(!c)
        ),
        (GameResult::Draw, "blocked") => format!("Draw: {} cannot move", cap(stuck)),
        (GameResult::Draw, "no_progress") => {
            format!("Draw: {NO_PROGRESS_LIMIT} turns without an entry or a capture")
        }
        (GameResult::Draw, "turn_limit") => format!("Draw: the {TURN_LIMIT}-turn limit"),
        (GameResult::Win(c), other) => format!("{} wins: {}", cap(c), other.replace('_', " ")),
        (GameResult::Draw, other) => format!("Draw: {}", other.replace('_', " ")),
    };
    Some(OutcomeView {
        winner: result.winner(),
        reason,
        text,
    })
}

/// An Emergo engine lent out to think, with what it is asked about.
pub type EmergoEngineJob = crate::web::EngineJob<Position>;

/// What a lent Emergo engine brings back.
pub type EmergoEngineDone = crate::web::EngineDone<Position>;

/// One stack on the board.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct UnitView {
    pub square: String,
    /// The colour of the controllers on top.
    pub owner: Color,
    pub controllers: u8,
    /// Men of the other colour below.
    pub prisoners: u8,
    /// `W1`, `B3`, `W2/1`.
    pub text: String,
}

/// The units on the board and the men in hand.
#[derive(Clone, Debug, Serialize)]
pub struct EmergoBoard {
    pub side: u8,
    pub units: Vec<UnitView>,
    /// Men still to enter.
    pub hand: ByColour<u8>,
    /// Men in hand and in the units each side controls (its own and its
    /// prisoners): what the game's evaluation counts.
    pub material: ByColour<u32>,
}

impl EmergoBoard {
    pub fn of(pos: &Position) -> EmergoBoard {
        let geo = pos.geometry();
        let units = geo
            .playable()
            .filter_map(|c| {
                let u = pos.unit_at(c)?;
                Some(UnitView {
                    square: geo.square(c).to_string(),
                    owner: u.owner,
                    controllers: u.controllers,
                    prisoners: u.prisoners,
                    text: u.to_string(),
                })
            })
            .collect();
        EmergoBoard {
            side: geo.side,
            units,
            hand: ByColour {
                white: pos.reserve(Color::White),
                black: pos.reserve(Color::Black),
            },
            material: ByColour {
                white: pos.material(Color::White),
                black: pos.material(Color::Black),
            },
        }
    }
}

/// One legal decision and the squares the page highlights for it.
#[derive(Clone, Debug, Serialize)]
pub struct EmergoLegalView {
    /// `@e5`, `c3-d4` or `c3xe5`.
    pub action: String,
    /// `enter`, `step` or `jump`.
    pub kind: &'static str,
    /// The unit that moves (none for an entry).
    pub from: Option<String>,
    /// Where the man enters or the unit lands.
    pub to: String,
    /// The unit a jump goes over.
    pub over: Option<String>,
}

impl EmergoLegalView {
    fn of(a: &Action) -> EmergoLegalView {
        let (kind, from, to, over) = match *a {
            Action::Enter(to) => ("enter", None, to, None),
            Action::Step(from, to) => ("step", Some(from), to, None),
            Action::Jump(from, to) => {
                let over = Square {
                    col: (from.col + to.col) / 2,
                    row: (from.row + to.row) / 2,
                };
                ("jump", Some(from), to, Some(over))
            }
        };
        EmergoLegalView {
            action: a.to_string(),
            kind,
            from: from.map(|s| s.to_string()),
            to: to.to_string(),
            over: over.map(|s| s.to_string()),
        }
    }
}

/// A variant's board for drawing before any game: its size, the squares
/// played on, the men each side has and what a blocked player gets.
#[derive(Clone, Debug, Serialize)]
pub struct EmergoVariantView {
    pub name: &'static str,
    pub title: String,
    pub side: u8,
    /// The playable squares (file and rank both odd or both even).
    pub squares: Vec<String>,
    /// Where White may not enter on the first move.
    pub centre: String,
    pub men: u8,
    /// `draw` or `loss`.
    pub blocked: &'static str,
}

impl EmergoVariantView {
    pub fn of(variant: Variant) -> EmergoVariantView {
        let geo = variant.geometry();
        EmergoVariantView {
            name: variant.name(),
            title: emergo_title(variant),
            side: geo.side,
            squares: geo.playable().map(|c| geo.square(c).to_string()).collect(),
            centre: geo.square(geo.centre()).to_string(),
            men: variant.men(),
            blocked: match variant.blocked() {
                Blocked::Draw => "draw",
                Blocked::Loss => "loss",
            },
        }
    }
}

/// An Emergo game as the API returns it.
#[derive(Clone, Debug, Serialize)]
pub struct EmergoView {
    /// Seats, turn and decisions, as every game's page has them.
    #[serde(flatten)]
    pub seated: SeatedView,
    /// `standard`, `blocked-loses` or `small`.
    pub variant: &'static str,
    pub title: String,
    /// Squares per side of the board (9, or 7 for `small`).
    pub side: u8,
    /// Turns completed (a chain is one turn).
    pub turn: u16,
    /// What the player to act does: `enter`, `move` (step a unit),
    /// `capture` (start a chain), `chain` (jump on), or `over`.
    pub phase: &'static str,
    /// The square of the unit that must jump on, while a chain is under way.
    pub chain: Option<String>,
    pub board: EmergoBoard,
    /// The legal decisions now (only a chain's continuations while one is
    /// under way).
    pub legal: Vec<EmergoLegalView>,
    /// The decisions as whole turns, a chain's jumps joined.
    pub turns: Vec<TurnView>,
    /// Turns since the last entry or capture (the no-progress draw).
    pub quiet_turns: u16,
    pub outcome: Option<OutcomeView>,
}

#[cfg(test)]
mod tests {
    //! The seated game's turns, undo and lent engine, on Emergo's chains
    //! (a turn of several decisions).

    use std::time::Duration;

    use super::*;
    use crate::games::emergo::Variant;
    use crate::web::{GameError, HUMAN, Offers};

    fn emergo(human: Color, opponent: &str) -> EmergoGame {
        let options = EmergoOptions {
            variant: Variant::Standard,
            human,
            opponent: opponent.into(),
            seed: 1,
        };
        EmergoGame::new(&options, Duration::from_millis(200), &Offers::default()).unwrap()
    }

    /// Fourteen entries, then White's man on c9 jumps twice: `c9xe7xg5`.
    const CHAIN: &str = "@a1 @a3 @a5 @a7 @a9 @i1 @c5 @d8 @c1 @f6 @h8 @f4 @c9 @e3 c9xe7 e7xg5";

    #[test]
    fn a_chain_is_one_turn_for_the_move_list_and_for_undo() {
        let mut g = emergo(Color::White, HUMAN);
        for a in CHAIN.split(' ') {
            g.seated.play(a).unwrap();
        }
        assert_eq!(g.seated.actions().len(), 16);
        let turns = g.seated.turns();
        assert_eq!(turns.len(), 15);
        assert_eq!(turns[14].text, "c9xe7xg5");
        assert_eq!(turns[14].player, Color::White);
        // Two humans: undo takes back the last whole turn, chain and all.
        assert_eq!(g.seated.undo().unwrap(), 2);
        assert_eq!(g.seated.last().as_deref(), Some("@e3"));
        assert_eq!(g.seated.undo().unwrap(), 1);
        assert_eq!(g.seated.position().to_act(), Color::Black);
    }

    #[test]
    fn undo_goes_back_to_the_humans_turn_and_never_before_it() {
        // The engine opens: nothing of the human's to take back.
        let mut g = emergo(Color::Black, "random");
        assert!(g.seated.engine_to_act());
        assert!(matches!(g.seated.undo(), Err(GameError::NothingToUndo)));
        let done = g.seated.begin_engine().unwrap().run();
        assert_eq!(g.seated.finish_engine(done).unwrap().len(), 1);
        assert!(!g.seated.can_undo());
        // The human's entry and the engine's reply go back together.
        let legal = g.seated.position().legal_actions()[0].to_string();
        g.seated.play(&legal).unwrap();
        let done = g.seated.begin_engine().unwrap().run();
        g.seated.finish_engine(done).unwrap();
        assert!(g.seated.can_undo());
        assert_eq!(g.seated.undo().unwrap(), 2);
        assert_eq!(g.seated.actions().len(), 1);
        assert!(!g.seated.engine_to_act());
        // A refused decision changes nothing.
        let before = g.seated.history();
        assert!(matches!(
            g.seated.play("@zz"),
            Err(GameError::BadRequest(_))
        ));
        assert!(matches!(g.seated.play("@b1"), Err(GameError::Illegal(_))));
        assert!(matches!(
            g.seated.play("c3xe5xg3"),
            Err(GameError::BadRequest(m)) if m.contains("one decision is one jump")
        ));
        assert_eq!(g.seated.history(), before);
    }

    #[test]
    fn the_engine_is_busy_while_lent_out() {
        let mut g = emergo(Color::Black, "random");
        let job = g.seated.begin_engine().unwrap();
        assert!(g.seated.is_thinking());
        assert!(matches!(g.seated.play("@a1"), Err(GameError::EngineBusy)));
        assert!(matches!(g.seated.undo(), Err(GameError::EngineBusy)));
        g.seated.finish_engine(job.run()).unwrap();
        assert!(!g.seated.is_thinking());
    }
}
