//! The one interface between search and whatever judges positions.
//!
//! The search asks an [`Evaluator`] about a batch of positions and gets back
//! priors over each position's legal actions and a win/draw/loss estimate. It
//! never learns whether a network, which backend, or a dummy answered.

use crate::game::State;

/// What an evaluator says about one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Prior probability of each legal action, in the order of
    /// [`State::legal_actions`]; sums to 1.
    pub priors: Vec<f32>,
    /// Probabilities of win, draw and loss for the player to act; sums to 1.
    pub wdl: [f32; 3],
    /// The expected final score margin for the player to act, in [-1, 1]
    /// ([`crate::game::State::margin`]); 0 from an evaluator
    /// that has none. Only a search with a score weight reads it.
    pub margin: f32,
}

impl Evaluation {
    /// Expected score for the player to act, in [-1, 1]: P(win) - P(loss).
    pub fn value(&self) -> f32 {
        self.wdl[0] - self.wdl[2]
    }
}

/// Judges batches of positions of one game (its [`State`] type).
/// Implementations may keep scratch buffers and caches, hence `&mut self`;
/// each self-play worker owns its own evaluator.
pub trait Evaluator<S: State> {
    /// One [`Evaluation`] per position, in order. Positions are never over.
    fn evaluate(&mut self, positions: &[S]) -> Vec<Evaluation>;
}

impl<S: State, E: Evaluator<S> + ?Sized> Evaluator<S> for Box<E> {
    fn evaluate(&mut self, positions: &[S]) -> Vec<Evaluation> {
        (**self).evaluate(positions)
    }
}

impl<S: State, E: Evaluator<S> + ?Sized> Evaluator<S> for &mut E {
    fn evaluate(&mut self, positions: &[S]) -> Vec<Evaluation> {
        (**self).evaluate(positions)
    }
}

/// Uniform priors and an even value: search with no knowledge at all, used to
/// measure search overhead and to test the search on its own.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformEvaluator;

impl<S: State> Evaluator<S> for UniformEvaluator {
    fn evaluate(&mut self, positions: &[S]) -> Vec<Evaluation> {
        positions
            .iter()
            .map(|p| {
                let n = p.legal_action_count().max(1);
                Evaluation {
                    priors: vec![1.0 / n as f32; n],
                    wdl: [0.0, 1.0, 0.0],
                    margin: 0.0,
                }
            })
            .collect()
    }
}

mod server;
mod symmetry;
pub use server::{BatchServer, Inference, ServerClient, ServerOptions, ServerStats};
pub use symmetry::SymmetryAverage;
