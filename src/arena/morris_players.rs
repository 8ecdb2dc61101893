//! The Morris family's judgement for the generic `alphabeta` player.

use super::spec::GamePlayers;
use crate::game::State;
use crate::morris::{Morris, Position};

impl GamePlayers for Morris {
    /// Stones (on the board and in hand) ahead, then mobility: a stone is
    /// worth far more than a free step, and a blocked player loses.
    fn evaluation(&self, state: &Position) -> f32 {
        let me = state.to_act();
        let geo = state.geometry();
        let stones = f32::from(geo.stones);
        let material = (state.total(me) as f32 - state.total(!me) as f32) / stones;
        let free = |c| {
            let empty = geo.all & !(state.stones(me) | state.stones(!me));
            crate::morris::geometry::points(state.stones(c))
                .map(|p| geo.targets(p, empty, state.flies(c)).count_ones())
                .sum::<u32>() as f32
        };
        let mobility = (free(me) - free(!me)) / (4.0 * stones);
        (0.8 * material + 0.2 * mobility).clamp(-1.0, 1.0)
    }
}
