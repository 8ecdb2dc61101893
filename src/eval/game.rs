//! One game between two players.

use super::player::{Player, PlayerFailure};
use crate::yinsh::{Action, Color, Outcome, Position};

/// A finished game: where it started, every decision in order, and how it
/// ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    pub start: Position,
    pub actions: Vec<Action>,
    pub outcome: Outcome,
}

impl GameRecord {
    /// The final position, by replaying the actions from the start.
    pub fn final_position(&self) -> Position {
        let mut pos = self.start;
        for &a in &self.actions {
            pos.play_unchecked(a);
        }
        pos
    }
}

/// A game could not be played to its end.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    /// A player returned an action that is not legal: a bug in that player.
    #[error(
        "player `{player}` ({colour}) chose `{action}` at step {step}, which is illegal: \
         {reason}\nposition:\n{position}"
    )]
    IllegalAction {
        player: String,
        colour: Color,
        /// Decisions made before this one.
        step: usize,
        action: String,
        reason: String,
        position: String,
    },
    /// A player could not decide at all (an external program crashed,
    /// broke the protocol or timed out).
    #[error("player `{player}` ({colour}) failed at step {step}: {failure}")]
    PlayerFailed {
        player: String,
        colour: Color,
        step: usize,
        failure: PlayerFailure,
    },
}

impl PlayError {
    /// The colour of the player at fault.
    pub fn colour(&self) -> Color {
        match self {
            PlayError::IllegalAction { colour, .. } | PlayError::PlayerFailed { colour, .. } => {
                *colour
            }
        }
    }
}

/// Plays `white` against `black` from `start` to the end of the game.
///
/// Both players are told of the new game and of every action played
/// (see [`Player`]). An illegal action from a player stops the game with
/// [`PlayError::IllegalAction`].
///
/// ```
/// use yinsh_zero::eval::{RandomPlayer, play_game};
/// use yinsh_zero::yinsh::Position;
///
/// let (mut w, mut b) = (RandomPlayer::new(1), RandomPlayer::new(2));
/// let rec = play_game(&mut w, &mut b, Position::new()).unwrap();
/// assert!(rec.final_position().is_over());
/// assert!(rec.final_position().turn() <= 81);
/// ```
pub fn play_game(
    white: &mut dyn Player,
    black: &mut dyn Player,
    start: Position,
) -> Result<GameRecord, PlayError> {
    white.new_game(&start);
    black.new_game(&start);
    let mut pos = start;
    let mut actions = Vec::with_capacity(128);
    let outcome = play_out(white, black, &mut pos, &mut actions)?;
    Ok(GameRecord {
        start,
        actions,
        outcome,
    })
}

/// Plays `pos` to the end, asking each side in turn, telling both players
/// every action and appending it to `actions` (kept up to the failure when
/// a player fails or answers illegally).
pub(crate) fn play_out(
    white: &mut dyn Player,
    black: &mut dyn Player,
    pos: &mut Position,
    actions: &mut Vec<Action>,
) -> Result<Outcome, PlayError> {
    while !pos.is_over() {
        let colour = pos.to_act();
        let player: &mut dyn Player = match colour {
            Color::White => white,
            Color::Black => black,
        };
        let action = match player.try_choose(pos) {
            Ok(a) => a,
            Err(failure) => {
                return Err(PlayError::PlayerFailed {
                    player: player.name(),
                    colour,
                    step: actions.len(),
                    failure,
                });
            }
        };
        let before = *pos;
        if let Err(e) = pos.play(action) {
            return Err(PlayError::IllegalAction {
                player: player.name(),
                colour,
                step: actions.len(),
                action: e.action,
                reason: e.reason,
                position: before.to_string(),
            });
        }
        white.observe(&before, action);
        black.observe(&before, action);
        actions.push(action);
    }
    Ok(pos.outcome().expect("a finished game has an outcome"))
}
