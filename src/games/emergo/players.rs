//! Emergo's judgement for the generic `alphabeta` player.

use crate::arena::GamePlayers;
use crate::game::State;
use crate::games::emergo::{Emergo, Position};

impl GamePlayers for Emergo {
    /// Material ahead, for the player to act: men in hand and every man in
    /// the units a side controls (prisoners are men the other side has
    /// lost until they are freed), over all the men in the game. A side
    /// with more men under its control has more units to capture with and
    /// fewer to be captured.
    fn evaluation(&self, state: &Position) -> f32 {
        let me = state.to_act();
        let all = 2.0 * f32::from(state.variant().men());
        ((state.material(me) as f32 - state.material(!me) as f32) / all).clamp(-1.0, 1.0)
    }
}
