//! The uniformly random player: the weakest baseline, and the engine's
//! benchmark workload.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::player::Player;
use crate::yinsh::{Action, ActionList, Position};

/// Plays a uniformly random legal action.
///
/// ```
/// use yinsh_zero::eval::{Player, RandomPlayer};
/// use yinsh_zero::yinsh::Position;
///
/// // The same seed makes the same choices.
/// let pos = Position::new();
/// assert_eq!(RandomPlayer::new(5).choose(&pos), RandomPlayer::new(5).choose(&pos));
/// ```
#[derive(Clone, Debug)]
pub struct RandomPlayer {
    rng: SmallRng,
    scratch: ActionList,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: SmallRng::seed_from_u64(seed),
            scratch: ActionList::new(),
        }
    }
}

impl Player for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }

    fn choose(&mut self, pos: &Position) -> Action {
        pos.legal_actions_into(&mut self.scratch);
        assert!(
            !self.scratch.is_empty(),
            "random player asked to act in a finished game:\n{pos}"
        );
        self.scratch[self.rng.random_range(0..self.scratch.len())]
    }
}
