//! The interface every player implements.

use crate::game::State;

/// What a player reports about its last decision, for the `info` lines of
/// the engine protocol. Every field is optional: players say what they know.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveInfo<A> {
    /// Expected score for the player that decided, in [-1, 1].
    pub value: Option<f32>,
    /// The player's own score in its own units (alpha-beta points).
    pub score: Option<i32>,
    /// Deepest completed search iteration, in turns.
    pub depth: Option<u32>,
    /// Positions searched (alpha-beta) or simulations (tree search).
    pub nodes: Option<u64>,
    /// Leaves a tree search handed to its evaluator (the network, or
    /// random playouts). Unlike `nodes` it leaves out descents into
    /// finished or proven positions, which cost nothing, so it says what a
    /// time limit bought on the machine that played.
    pub evaluations: Option<u64>,
    /// Principal variation, starting with the chosen action.
    pub pv: Vec<A>,
}

impl<A> Default for MoveInfo<A> {
    fn default() -> Self {
        MoveInfo {
            value: None,
            score: None,
            depth: None,
            nodes: None,
            evaluations: None,
            pv: Vec::new(),
        }
    }
}

/// A player could not decide: an external program crashed, broke the
/// protocol or timed out. The game is lost by forfeit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PlayerFailure(pub String);

/// Something that chooses actions in a game whose positions are `S`: a
/// baseline, a search, a network, or an external engine.
///
/// A game calls [`Player::new_game`] once, then for every decision asks the
/// player to act with [`Player::choose`] and tells both players what was
/// played with [`Player::observe`]. Players that keep state across moves
/// (a search tree to reuse, an external engine's own board) follow the game
/// through the two hooks; stateless players ignore them.
///
/// ```
/// use yinsh_zero::arena::{Player, RandomPlayer};
/// use yinsh_zero::games::yinsh::Position;
///
/// let mut p = RandomPlayer::new(42);
/// let pos = Position::new();
/// let a = p.choose(&pos);
/// assert!(pos.is_legal(a));
/// ```
pub trait Player<S: State>: Send {
    /// A short human-readable name, e.g. the spec the player was built from.
    fn name(&self) -> String;

    /// The action to play in `pos`.
    ///
    /// Called only when the game is not over and `pos.to_act()` is this
    /// player's colour. Must return a legal action (one of
    /// [`State::legal_actions`]); returning anything else is a bug in the
    /// player, which [`play_game`](super::play_game) reports as an error.
    fn choose(&mut self, pos: &S) -> S::Action;

    /// Like [`Player::choose`], for players that can fail (external
    /// programs). Games call this one. Default: `Ok(self.choose(pos))`.
    fn try_choose(&mut self, pos: &S) -> Result<S::Action, PlayerFailure> {
        Ok(self.choose(pos))
    }

    /// What the last [`Player::choose`] found (value, depth, principal
    /// variation), if the player reports it. Default: nothing.
    fn info(&self) -> Option<MoveInfo<S::Action>> {
        None
    }

    /// A new game starts from `start`. Default: nothing to reset.
    fn new_game(&mut self, start: &S) {
        let _ = start;
    }

    /// `action` was just played in `pos_before` by either side (including
    /// this player's own choices). Default: nothing to follow.
    fn observe(&mut self, pos_before: &S, action: S::Action) {
        let _ = (pos_before, action);
    }
}

impl<S: State, P: Player<S> + ?Sized> Player<S> for Box<P> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn choose(&mut self, pos: &S) -> S::Action {
        (**self).choose(pos)
    }
    fn try_choose(&mut self, pos: &S) -> Result<S::Action, PlayerFailure> {
        (**self).try_choose(pos)
    }
    fn info(&self) -> Option<MoveInfo<S::Action>> {
        (**self).info()
    }
    fn new_game(&mut self, start: &S) {
        (**self).new_game(start)
    }
    fn observe(&mut self, pos_before: &S, action: S::Action) {
        (**self).observe(pos_before, action)
    }
}
