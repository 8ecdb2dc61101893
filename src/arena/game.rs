//! One game between two players.

use serde::{Deserialize, Serialize};

use super::player::{Player, PlayerFailure};
use crate::game::{Color, GameResult, State};

/// How much one side searched in a game: its decisions that reported a
/// count ([`MoveInfo::nodes`](super::MoveInfo::nodes): simulations of a
/// tree search, positions of alpha-beta) and the counts' sum. A player
/// bounded by time searches as far as the machine lets it, so this says
/// how far "100 ms" went on the machine that played; descents that end in
/// finished or proven positions count too, at no evaluation's cost.
///
/// ```
/// use yinsh_zero::arena::Effort;
///
/// let mut e = Effort::default();
/// assert_eq!(e.per_decision(), None);
/// e.add(100);
/// e.add(50);
/// assert_eq!(e.per_decision(), Some(75.0));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Effort {
    pub decisions: u32,
    pub nodes: u64,
}

impl Effort {
    /// Counts one decision that searched `nodes`.
    pub fn add(&mut self, nodes: u64) {
        self.decisions += 1;
        self.nodes += nodes;
    }

    /// Adds another tally to this one.
    pub fn merge(&mut self, other: Effort) {
        self.decisions += other.decisions;
        self.nodes += other.nodes;
    }

    /// This tally, or none if no decision reported a count.
    pub fn reported(self) -> Option<Effort> {
        (self.decisions > 0).then_some(self)
    }

    /// The mean count a decision, if any decision reported one.
    pub fn per_decision(&self) -> Option<f64> {
        (self.decisions > 0).then(|| self.nodes as f64 / self.decisions as f64)
    }
}

/// A finished game: where it started, every decision in order, and how it
/// ended.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord<S: State> {
    pub start: S,
    pub actions: Vec<S::Action>,
    pub result: GameResult,
}

impl<S: State> GameRecord<S> {
    /// The final position, by replaying the actions from the start.
    pub fn final_position(&self) -> S {
        let mut pos = self.start.clone();
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
/// use yinsh_zero::arena::{RandomPlayer, play_game};
/// use yinsh_zero::games::yinsh::Position;
///
/// let (mut w, mut b) = (RandomPlayer::new(1), RandomPlayer::new(2));
/// let rec = play_game(&mut w, &mut b, Position::new()).unwrap();
/// assert!(rec.final_position().is_over());
/// assert!(rec.final_position().turn() <= 81);
/// ```
pub fn play_game<S: State>(
    white: &mut dyn Player<S>,
    black: &mut dyn Player<S>,
    start: S,
) -> Result<GameRecord<S>, PlayError> {
    white.new_game(&start);
    black.new_game(&start);
    let mut pos = start.clone();
    let mut actions = Vec::with_capacity(128);
    let result = play_out(
        white,
        black,
        &mut pos,
        &mut actions,
        &mut [Effort::default(); 2],
    )?;
    Ok(GameRecord {
        start,
        actions,
        result,
    })
}

/// Plays `pos` to the end, asking each side in turn, telling both players
/// every action and appending it to `actions` (kept up to the failure when
/// a player fails or answers illegally), and adding to each side's `effort`
/// what its player reports it searched.
pub(crate) fn play_out<S: State>(
    white: &mut dyn Player<S>,
    black: &mut dyn Player<S>,
    pos: &mut S,
    actions: &mut Vec<S::Action>,
    effort: &mut [Effort; 2],
) -> Result<GameResult, PlayError> {
    while !pos.is_over() {
        let colour = pos.to_act();
        let player: &mut dyn Player<S> = match colour {
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
        if let Some(n) = player.info().and_then(|i| i.nodes) {
            effort[colour.index()].add(n);
        }
        let before = pos.clone();
        if let Err(e) = pos.play(action) {
            return Err(PlayError::IllegalAction {
                player: player.name(),
                colour,
                step: actions.len(),
                action: e.action,
                reason: e.reason,
                position: format!("{before:?}"),
            });
        }
        white.observe(&before, action);
        black.observe(&before, action);
        actions.push(action);
    }
    Ok(pos.result().expect("a finished game has a result"))
}
