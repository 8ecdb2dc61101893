//! `net-policy`: plays the network's most probable legal action, no search.

use super::player::Player;
use crate::evaluator::Evaluator;
use crate::yinsh::{Action, Position};

/// Plays the top prior of any evaluator (a network, in practice).
pub struct PolicyPlayer<E: Evaluator + Send> {
    name: String,
    evaluator: E,
}

impl<E: Evaluator + Send> PolicyPlayer<E> {
    pub fn new(name: String, evaluator: E) -> Self {
        PolicyPlayer { name, evaluator }
    }
}

impl<E: Evaluator + Send> Player for PolicyPlayer<E> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, pos: &Position) -> Action {
        let legal = pos.legal_actions();
        if legal.len() == 1 {
            return legal[0];
        }
        let eval = self
            .evaluator
            .evaluate(&[*pos])
            .pop()
            .expect("one evaluation");
        let best = eval
            .priors
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map_or(0, |(i, _)| i);
        legal[best]
    }
}
