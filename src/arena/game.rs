//! One game between two players.

use serde::{Deserialize, Serialize};

use super::player::{Player, PlayerFailure};
use crate::game::{Color, GameResult, State};

/// How much one side searched in a game: its decisions that reported a
/// count ([`MoveInfo::nodes`](super::MoveInfo::nodes): simulations of a
/// tree search, positions of alpha-beta), the counts' sum and, where every
/// one of those decisions also reported it, the leaves handed to an
/// evaluator ([`MoveInfo::evaluations`](super::MoveInfo::evaluations)).
///
/// The evaluations say how far "100 ms" went on the machine that played.
/// The nodes alone do not for a tree search: once a game is decided its
/// descents end in finished or proven positions, which cost nothing, and
/// a time limit buys thousands of them.
///
/// ```
/// use yinsh_zero::arena::Effort;
///
/// let mut e = Effort::default();
/// assert_eq!(e.per_decision(), None);
/// e.add(100, Some(90));
/// e.add(50, Some(10));
/// assert_eq!(e.per_decision(), Some(75.0));
/// assert_eq!(e.evaluations_per_decision(), Some(50.0));
/// // A decision that does not say what it evaluated leaves the tally
/// // without evaluations: a mean over part of the decisions would mislead.
/// e.add(10, None);
/// assert_eq!(e.evaluations_per_decision(), None);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Effort {
    pub decisions: u32,
    pub nodes: u64,
    /// Absent from records written before evaluations were counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluations: Option<u64>,
}

impl Effort {
    /// Counts one decision that searched `nodes` and evaluated
    /// `evaluations` leaves, if it says.
    pub fn add(&mut self, nodes: u64, evaluations: Option<u64>) {
        self.merge(Effort {
            decisions: 1,
            nodes,
            evaluations,
        });
    }

    /// Adds another tally to this one. The evaluations stay only if both
    /// tallies have them for all their decisions.
    pub fn merge(&mut self, other: Effort) {
        self.evaluations = match (self.evaluations, other.evaluations) {
            (Some(a), Some(b)) => Some(a + b),
            (a, None) if other.decisions == 0 => a,
            (None, b) if self.decisions == 0 => b,
            _ => None,
        };
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

    /// The mean evaluations a decision, if every decision reported them.
    pub fn evaluations_per_decision(&self) -> Option<f64> {
        let e = self.evaluations?;
        (self.decisions > 0).then(|| e as f64 / self.decisions as f64)
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
        if let Some(info) = player.info()
            && let Some(n) = info.nodes
        {
            effort[colour.index()].add(n, info.evaluations);
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
