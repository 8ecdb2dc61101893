//! A game on the server as every page keeps it (YINSH, Morris, the grid
//! game, Emergo): the decisions so far, each with the position before it,
//! and the [`EngineSeat`] of its engine opponent. The games differ in how a
//! human's decision is written and in where a turn starts
//! ([`SeatedRules`]), and in what their pages show; everything else — whose
//! turn it is, playing, lending the engine out, undo — is here, once.

use serde::Serialize;

use super::error::GameError;
use super::seat::{EngineDone, EngineJob, EngineSeat};
use crate::game::{Color, State};

/// What a page game's rules add to [`State`] for [`SeatedGame`].
pub trait SeatedRules: State {
    /// Reads the human's decision, written in the game's notation, in this
    /// position: [`GameError::BadRequest`] (or a notation error) for text
    /// that is no decision at all, [`GameError::Illegal`] for one the rules
    /// forbid here.
    fn parse_human(&self, text: &str) -> Result<Self::Action, GameError>;

    /// Whether a new turn starts here. Some turns take several decisions by
    /// the same player (a Morris move and the removal it earned, an Emergo
    /// capture chain); undo takes them back whole, and the move list writes
    /// them as one.
    fn starts_turn(&self) -> bool {
        true
    }

    /// Appends `next`, a decision that continues a turn, to the turn's
    /// text: after a space unless the game writes it otherwise.
    fn join_turn(text: &mut String, next: Self::Action) {
        text.push(' ');
        text.push_str(&next.to_string());
    }
}

/// The decisions of one game and the engine's seat at it.
pub struct SeatedGame<S: State> {
    /// `positions[i]` is the position before `actions[i]`; the last one is
    /// the position now.
    positions: Vec<S>,
    actions: Vec<S::Action>,
    /// The human, the opponent and the engine (see [`EngineSeat`]).
    seat: EngineSeat<S>,
}

impl<S: State> std::fmt::Debug for SeatedGame<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SeatedGame")
            .field("opponent", &self.seat.opponent())
            .field("human", &self.seat.human())
            .field("actions", &self.actions)
            .finish_non_exhaustive()
    }
}

/// What every page's view says of the game's seats and decisions, the
/// same for Morris, the grid game and Emergo; each game's view flattens it
/// in (`#[serde(flatten)]`), so the JSON keeps these as top-level keys.
#[derive(Clone, Debug, Serialize)]
pub struct SeatedView {
    pub id: String,
    pub human: Color,
    /// The engine's spec (with its time bound), or [`super::HUMAN`].
    pub opponent: String,
    /// Decisions made so far (the game's clock, [`State::ply`]).
    pub ply: u32,
    /// `None` once the game is over.
    pub to_act: Option<Color>,
    pub engine_to_act: bool,
    pub thinking: bool,
    /// Every decision so far.
    pub history: Vec<String>,
    pub last: Option<String>,
    pub can_undo: bool,
}

/// One whole turn of a move list.
#[derive(Clone, Debug, Serialize)]
pub struct TurnView {
    pub player: Color,
    /// E.g. Morris's `d2` or `d2-d3 xb4`, Emergo's `c3xe5xg3`.
    pub text: String,
}

impl<S: State> SeatedGame<S> {
    /// A game at `start`, the engine (if any) seated and told so.
    pub fn new(start: S, seat: EngineSeat<S>) -> SeatedGame<S> {
        SeatedGame {
            positions: vec![start],
            actions: Vec::new(),
            seat,
        }
    }

    /// The position the game started from.
    pub fn start(&self) -> &S {
        &self.positions[0]
    }

    /// The position now.
    pub fn position(&self) -> &S {
        self.positions.last().expect("the start is always there")
    }

    /// The position before each decision, then the position now.
    pub fn positions(&self) -> &[S] {
        &self.positions
    }

    /// Every decision so far, from [`SeatedGame::start`].
    pub fn actions(&self) -> &[S::Action] {
        &self.actions
    }

    /// Every decision so far in the game's notation.
    pub fn history(&self) -> Vec<String> {
        self.actions.iter().map(|a| a.to_string()).collect()
    }

    /// The part of a page's view every game shares, for game `id`.
    pub fn seated_view(&self, id: &str) -> SeatedView {
        let pos = self.position();
        SeatedView {
            id: id.to_string(),
            human: self.human(),
            opponent: self.opponent().to_string(),
            ply: pos.ply(),
            to_act: (!pos.is_over()).then(|| pos.to_act()),
            engine_to_act: self.engine_to_act(),
            thinking: self.is_thinking(),
            history: self.history(),
            last: self.last(),
            can_undo: self.can_undo(),
        }
    }

    /// The last decision in the game's notation.
    pub fn last(&self) -> Option<String> {
        self.actions.last().map(|a| a.to_string())
    }

    pub fn human(&self) -> Color {
        self.seat.human()
    }

    /// The engine's spec (with its time bound), or [`super::HUMAN`].
    pub fn opponent(&self) -> &str {
        self.seat.opponent()
    }

    /// The spec the engine was built from, offered names turned into
    /// paths: the server's own, never for an answer.
    pub(crate) fn engine_spec(&self) -> &str {
        self.seat.engine_spec()
    }

    pub fn has_engine(&self) -> bool {
        self.seat.has_engine()
    }

    /// Whether the engine must make the next decision.
    pub fn engine_to_act(&self) -> bool {
        self.seat.engine_to_act(self.position())
    }

    pub fn is_thinking(&self) -> bool {
        self.seat.is_thinking()
    }

    /// Lends the engine out to think about the current position, off the
    /// game's lock. Give it back with [`SeatedGame::finish_engine`].
    pub fn begin_engine(&mut self) -> Result<EngineJob<S>, GameError> {
        self.seat.lend(self.positions.last().expect("a position"))
    }

    /// Takes the engine back with the decisions it made; they are played
    /// if the game has not changed meanwhile.
    pub fn finish_engine(&mut self, done: EngineDone<S>) -> Result<Vec<S::Action>, GameError> {
        let actions = self
            .seat
            .take_back(done, &self.positions[0], &self.actions)?;
        for &a in &actions {
            self.apply(a);
        }
        Ok(actions)
    }

    /// The lent engine never came back (it panicked): the game stays as it
    /// was, with a fresh engine.
    pub fn engine_lost(&mut self) {
        self.seat.lost(&self.positions[0], &self.actions);
    }

    /// Whether there is a decision of the human's to take back (in a game
    /// of two humans, any decision).
    pub fn human_has_acted(&self) -> bool {
        self.positions
            .iter()
            .zip(&self.actions)
            .any(|(p, _)| !self.has_engine() || p.to_act() == self.human())
    }

    /// Whether [`SeatedGame::undo`] would take something back now.
    pub fn can_undo(&self) -> bool {
        !self.is_thinking() && self.human_has_acted()
    }

    /// Plays `action`, known to be legal, without telling the engine (the
    /// engine's own decisions, a random opening the engine is rebuilt for).
    pub fn apply(&mut self, action: S::Action) {
        let mut next = self.position().clone();
        next.play_unchecked(action);
        self.positions.push(next);
        self.actions.push(action);
        self.seat.changed();
    }

    /// Takes back decisions, never the first `keep`, until one of the
    /// human's that started a turn (`starts_turn` of the position before
    /// it) is taken back; in a game of two humans, until any turn's start.
    /// The engine is rebuilt for the game that is left.
    pub fn take_back(
        &mut self,
        keep: usize,
        starts_turn: impl Fn(&S) -> bool,
    ) -> Result<usize, GameError> {
        self.seat.check_idle()?;
        let mut undone = 0;
        while self.actions.len() > keep {
            self.actions.pop();
            self.positions.pop();
            undone += 1;
            let before = self.position();
            if starts_turn(before) && (!self.has_engine() || before.to_act() == self.human()) {
                break;
            }
        }
        if undone == 0 {
            return Err(GameError::NothingToUndo);
        }
        self.seat.undone(&self.positions[0], &self.actions);
        Ok(undone)
    }
}

impl<S: SeatedRules> SeatedGame<S> {
    /// Plays the human's decision, written in the game's notation. On any
    /// error the game is unchanged.
    pub fn play(&mut self, text: &str) -> Result<S::Action, GameError> {
        let pos = self.positions.last().expect("a position");
        self.seat.check_human_turn(pos)?;
        let action = pos.parse_human(text)?;
        self.seat.observe(pos, action);
        self.apply(action);
        Ok(action)
    }

    /// Takes back the human's last whole turn and the engine's turns after
    /// it, so the human decides again; in a game of two humans, the last
    /// whole turn.
    pub fn undo(&mut self) -> Result<usize, GameError> {
        self.seat.check_idle()?;
        if !self.human_has_acted() {
            return Err(GameError::NothingToUndo);
        }
        self.take_back(0, S::starts_turn)
    }

    /// The decisions grouped into whole turns (see
    /// [`SeatedRules::starts_turn`]).
    pub fn turns(&self) -> Vec<TurnView> {
        let mut out: Vec<TurnView> = Vec::new();
        for (pos, &a) in self.positions.iter().zip(&self.actions) {
            match out.last_mut() {
                Some(t) if !pos.starts_turn() => S::join_turn(&mut t.text, a),
                _ => out.push(TurnView {
                    player: pos.to_act(),
                    text: a.to_string(),
                }),
            }
        }
        out
    }
}
