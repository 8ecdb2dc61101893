//! The uniformly random player: the weakest baseline, and the engine's
//! benchmark workload.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::player::Player;
use crate::game::State;

/// Plays a uniformly random legal action.
///
/// ```
/// use yinsh_zero::arena::{Player, RandomPlayer};
/// use yinsh_zero::games::yinsh::Position;
///
/// // The same seed makes the same choices.
/// let pos = Position::new();
/// let choose = |seed| Player::<Position>::choose(&mut RandomPlayer::new(seed), &pos);
/// assert_eq!(choose(5), choose(5));
/// ```
#[derive(Clone, Debug)]
pub struct RandomPlayer {
    rng: SmallRng,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: SmallRng::seed_from_u64(seed),
        }
    }
}

impl<S: State> Player<S> for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }

    fn choose(&mut self, pos: &S) -> S::Action {
        let legal = pos.legal_actions();
        assert!(
            !legal.is_empty(),
            "random player asked to act in a finished game:\n{pos:?}"
        );
        legal[self.rng.random_range(0..legal.len())]
    }
}
