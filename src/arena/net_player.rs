//! `net-policy`: plays the network's most probable legal action, no search.

use super::player::Player;
use crate::evaluator::Evaluator;
use crate::game::State;

/// Plays the top prior of any evaluator (a network, in practice).
pub struct PolicyPlayer<E> {
    name: String,
    evaluator: E,
}

impl<E> PolicyPlayer<E> {
    pub fn new(name: String, evaluator: E) -> Self {
        PolicyPlayer { name, evaluator }
    }
}

impl<S: State, E: Evaluator<S> + Send> Player<S> for PolicyPlayer<E> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, pos: &S) -> S::Action {
        let legal = pos.legal_actions();
        if legal.len() == 1 {
            return legal[0];
        }
        let eval = self
            .evaluator
            .evaluate(std::slice::from_ref(pos))
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
