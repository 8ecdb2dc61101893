//! The engine's seat at a game on the server, the same for every game
//! (each page's [`super::SeatedGame`] has one): who the human is, the
//! opponent spec, and the engine that follows the game.
//!
//! The engine is lent out to think off the game's lock
//! ([`EngineSeat::lend`]) and given back with its decisions
//! ([`EngineSeat::take_back`]), which count only if the game has not
//! changed meanwhile: a `version` counter, bumped by every change, matches
//! the answer to the position it was asked about. While the engine is out
//! (`thinking`), the game refuses every change.

use super::error::{GameError, HUMAN};
use super::offers::Offers;
use crate::arena::{FILE_KEYS, Player, PlayerSpecError};
use crate::game::{Color, State};

/// Builds the player a (bounded) spec names, seeded.
pub type BuildPlayer<S> =
    Box<dyn Fn(&str, u64) -> Result<Box<dyn Player<S>>, PlayerSpecError> + Send>;

/// The opponent's side of a game: the human's colour, the engine's spec
/// (or [`HUMAN`]) and the engine itself while it is not lent out.
pub struct EngineSeat<S: State> {
    human: Color,
    /// The bounded spec as the caller named it, or [`HUMAN`].
    opponent: String,
    /// The spec the engine is built from: [`EngineSeat::opponent`] with
    /// offered names turned into paths. Never shown.
    engine_spec: String,
    /// `None` for two humans, and while the engine thinks (it is lent out).
    engine: Option<Box<dyn Player<S>>>,
    thinking: bool,
    seed: u64,
    /// Bumped by every change, so a lent engine's answer can be matched to
    /// the position it was asked about.
    version: u64,
    build: BuildPlayer<S>,
}

impl<S: State> EngineSeat<S> {
    /// A seat for `opponent` ([`HUMAN`] or a spec that `bound` bounds,
    /// `offers` resolves for `game` and `build` builds at once, so a bad
    /// spec fails here), the engine told a new game starts from `start`.
    ///
    /// This is where every game's opponent from a request passes, so the
    /// check that no request names a file ([`Offers::resolve`]) is made
    /// here once for all of them.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        human: Color,
        opponent: &str,
        seed: u64,
        start: &S,
        offers: &Offers,
        game: (&str, &str),
        bound: impl Fn(&str) -> Result<String, GameError>,
        build: BuildPlayer<S>,
    ) -> Result<EngineSeat<S>, GameError> {
        let (opponent, engine_spec, engine) = if opponent.trim().eq_ignore_ascii_case(HUMAN) {
            (HUMAN.to_string(), HUMAN.to_string(), None)
        } else {
            let resolved = offers.resolve(opponent, game.0, game.1)?;
            let shown = bound(opponent)?;
            let spec = bound(&resolved.spec)?;
            let mut player = build(&spec, seed).map_err(|e| unusable(&shown, &e, &resolved))?;
            player.new_game(start);
            (shown, spec, Some(player))
        };
        Ok(EngineSeat {
            human,
            opponent,
            engine_spec,
            engine,
            thinking: false,
            seed,
            version: 0,
            build,
        })
    }

    pub fn human(&self) -> Color {
        self.human
    }

    /// The engine's spec (with its time bound), or [`HUMAN`].
    pub fn opponent(&self) -> &str {
        &self.opponent
    }

    /// The spec the engine was built from, offered names turned into
    /// paths: for the server's own use (the agent's view loads its
    /// network), never for an answer.
    pub fn engine_spec(&self) -> &str {
        &self.engine_spec
    }

    pub fn has_engine(&self) -> bool {
        self.opponent != HUMAN
    }

    /// Whether the engine must make the next decision in `pos`.
    pub fn engine_to_act(&self, pos: &S) -> bool {
        self.has_engine() && !pos.is_over() && pos.to_act() != self.human
    }

    pub fn is_thinking(&self) -> bool {
        self.thinking
    }

    /// Refuses a change while the engine is lent out.
    pub fn check_idle(&self) -> Result<(), GameError> {
        if self.thinking {
            return Err(GameError::EngineBusy);
        }
        Ok(())
    }

    /// Refuses a decision of the human's in `pos` unless it is the
    /// human's turn and the engine is home.
    pub fn check_human_turn(&self, pos: &S) -> Result<(), GameError> {
        self.check_idle()?;
        if pos.is_over() {
            return Err(GameError::GameOver);
        }
        if self.engine_to_act(pos) {
            return Err(GameError::EngineToAct(pos.to_act()));
        }
        Ok(())
    }

    /// Tells the engine (if any) that `action` is played in `pos`.
    pub fn observe(&mut self, pos: &S, action: S::Action) {
        if let Some(engine) = &mut self.engine {
            engine.observe(pos, action);
        }
    }

    /// The game changed: a lent engine's answer no longer fits it.
    pub fn changed(&mut self) {
        self.version += 1;
    }

    /// Lends the engine out to think about `pos`, off the game's lock.
    pub fn lend(&mut self, pos: &S) -> Result<EngineJob<S>, GameError> {
        if !self.has_engine() {
            return Err(GameError::NoEngine);
        }
        self.check_idle()?;
        if pos.is_over() {
            return Err(GameError::GameOver);
        }
        if !self.engine_to_act(pos) {
            return Err(GameError::HumanToAct(pos.to_act()));
        }
        let player = self.engine.take().ok_or(GameError::EngineBusy)?;
        self.thinking = true;
        Ok(EngineJob {
            player,
            pos: pos.clone(),
            engine: pos.to_act(),
            version: self.version,
            spec: self.opponent.clone(),
        })
    }

    /// Takes the engine back with the decisions it made, for the game to
    /// play: they are returned only if the game has not changed meanwhile.
    /// Otherwise the engine is rebuilt for the game so far (`actions` from
    /// `start`).
    pub fn take_back(
        &mut self,
        done: EngineDone<S>,
        start: &S,
        actions: &[S::Action],
    ) -> Result<Vec<S::Action>, GameError> {
        self.thinking = false;
        match done.result {
            Ok(decided) if done.version == self.version => {
                self.engine = Some(done.player);
                Ok(decided)
            }
            Ok(_) => {
                // Cannot happen while `thinking` guards every change, but a
                // stale answer must never be played on another position.
                self.rebuild(start, actions);
                Err(GameError::EngineBusy)
            }
            Err(e) => {
                self.rebuild(start, actions);
                Err(e)
            }
        }
    }

    /// The lent engine never came back (it panicked): a fresh engine for
    /// the game so far.
    pub fn lost(&mut self, start: &S, actions: &[S::Action]) {
        self.thinking = false;
        self.rebuild(start, actions);
    }

    /// Decisions were taken back: the game is now `actions` from `start`.
    pub fn undone(&mut self, start: &S, actions: &[S::Action]) {
        self.changed();
        self.rebuild(start, actions);
    }

    /// A fresh engine that has followed the game so far.
    fn rebuild(&mut self, start: &S, actions: &[S::Action]) {
        if !self.has_engine() {
            return;
        }
        let seed = self.seed ^ self.version.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let Ok(mut player) = (self.build)(&self.engine_spec, seed) else {
            // The spec built a player when the game was made; it cannot
            // fail now.
            return;
        };
        player.new_game(start);
        let mut pos = start.clone();
        for &a in actions {
            player.observe(&pos, a);
            pos.play_unchecked(a);
        }
        self.engine = Some(player);
    }
}

/// A player that could not be built. Where building it opened a file (an
/// offered network or database, or a game's own default database), the
/// error may name a server path or quote the file: the caller is told
/// which offer failed and the server's log gets the whole error.
fn unusable(shown: &str, e: &PlayerSpecError, resolved: &super::offers::Resolved) -> GameError {
    // An error about another option (`sims=NaN`) is the caller's to read,
    // unless its words quote the path an offered name stood for.
    let message = e.to_string();
    let paths: Vec<String> = resolved
        .spec
        .parse::<crate::arena::PlayerSpec>()
        .map(|s| {
            s.options
                .into_iter()
                .filter(|(k, _)| FILE_KEYS.contains(&k.as_str()))
                .map(|(_, v)| v)
                .collect()
        })
        .unwrap_or_default();
    let file_error = paths.iter().any(|p| message.contains(p.as_str()))
        || matches!(e, PlayerSpecError::BadValue { key, .. } if FILE_KEYS.contains(&key.as_str()));
    if !file_error {
        return GameError::Opponent(e.clone());
    }
    eprintln!("web: the opponent `{shown}` could not be built: {e}");
    GameError::Unavailable(format!(
        "opponent `{shown}`: its network or database cannot be used on this server now \
         (the server's log says why)"
    ))
}

/// An engine lent out to think, with what it is asked about.
pub struct EngineJob<S: State> {
    player: Box<dyn Player<S>>,
    pos: S,
    engine: Color,
    version: u64,
    spec: String,
}

/// What a lent engine brings back.
pub struct EngineDone<S: State> {
    player: Box<dyn Player<S>>,
    version: u64,
    result: Result<Vec<S::Action>, GameError>,
}

impl<S: State> EngineJob<S> {
    /// Makes every decision that falls to the engine in a row (a YINSH
    /// move with its rows and rings, a Morris move and its removal),
    /// stopping when the human must decide or the game ends. Runs without
    /// the game's lock; call it off the async threads.
    pub fn run(mut self) -> EngineDone<S> {
        let mut actions = Vec::new();
        let mut pos = self.pos.clone();
        let mut result = Ok(());
        while !pos.is_over() && pos.to_act() == self.engine {
            let a = self.player.choose(&pos);
            if let Err(e) = pos.clone().play(a) {
                result = Err(GameError::EngineBug {
                    spec: self.spec.clone(),
                    action: a.to_string(),
                    why: e.reason,
                });
                break;
            }
            self.player.observe(&pos, a);
            pos.play_unchecked(a);
            actions.push(a);
        }
        EngineDone {
            player: self.player,
            version: self.version,
            result: result.map(|()| actions),
        }
    }
}
