//! An evaluator made exactly symmetric by averaging over the board's
//! symmetries.
//!
//! A network sees each symmetric copy of a position as a different input,
//! and its answers for them differ by the noise of its fit. AlphaGo (2016)
//! averaged its networks over the eight rotations and reflections of Go at
//! run time; the average is equivariant by construction (the
//! symmetries form a group, so every copy of a position gets the same
//! averaged answer, transformed) and is less noisy than any one copy. It
//! costs one network evaluation per symmetry.

use super::{Evaluation, Evaluator};
use crate::game::{Game, State};

/// Wraps an evaluator of `game`'s positions: each position is evaluated
/// under every one of [`Game::symmetries`], and the win/draw/loss estimates
/// and the priors (each mapped back to the position's own actions) are
/// averaged.
///
/// ```
/// use yinsh_zero::evaluator::{Evaluator, SymmetryAverage, UniformEvaluator};
/// use yinsh_zero::game::Game;
/// use yinsh_zero::games::morris::{Morris, Variant};
///
/// let game = Morris::new(Variant::Six);
/// let mut ev = SymmetryAverage::new(game.clone(), UniformEvaluator);
/// let e = ev.evaluate(&[game.start()]).pop().unwrap();
/// assert_eq!(e.priors.len(), 16);
/// assert!((e.priors.iter().sum::<f32>() - 1.0).abs() < 1e-5);
/// ```
pub struct SymmetryAverage<G: Game, E> {
    game: G,
    inner: E,
    /// Dense action index -> position in a transformed state's legal
    /// actions; `u32::MAX` where the action is not legal there.
    slot: Vec<u32>,
}

impl<G: Game, E: Evaluator<G::State>> SymmetryAverage<G, E> {
    pub fn new(game: G, inner: E) -> Self {
        let slot = vec![u32::MAX; game.net_shape().action_space()];
        SymmetryAverage { game, inner, slot }
    }
}

impl<G: Game, E: Evaluator<G::State>> Evaluator<G::State> for SymmetryAverage<G, E> {
    fn evaluate(&mut self, positions: &[G::State]) -> Vec<Evaluation> {
        let k = self.game.symmetries().max(1);
        if k == 1 {
            return self.inner.evaluate(positions);
        }
        // One batch for all copies: a network's cost is per call as much as
        // per position.
        let game = &self.game;
        let copies: Vec<G::State> = positions
            .iter()
            .flat_map(|p| (0..k).map(move |s| game.transform(p, s)))
            .collect();
        let evals = self.inner.evaluate(&copies);
        positions
            .iter()
            .zip(evals.chunks(k).zip(copies.chunks(k)))
            .map(|(pos, (evals, copies))| {
                let legal: Vec<usize> = pos
                    .legal_actions()
                    .iter()
                    .map(|&a| self.game.action_index(a))
                    .collect();
                let mut priors = vec![0.0f32; legal.len()];
                let mut wdl = [0.0f32; 3];
                let mut margin = 0.0f32;
                for (s, (e, copy)) in evals.iter().zip(copies).enumerate() {
                    let copy_legal: Vec<usize> = copy
                        .legal_actions()
                        .iter()
                        .map(|&b| self.game.action_index(b))
                        .collect();
                    for (j, &index) in copy_legal.iter().enumerate() {
                        self.slot[index] = j as u32;
                    }
                    for (i, &index) in legal.iter().enumerate() {
                        let j = self.slot[self.game.transform_index(index, s)];
                        // The image of a legal action is legal in the image
                        // of the position (the game's symmetry tables
                        // promise it; tests/it/nn_symmetry.rs checks it).
                        debug_assert!(j != u32::MAX, "symmetry {s} maps a legal action off");
                        if let Some(p) = e.priors.get(j as usize) {
                            priors[i] += p;
                        }
                    }
                    for &index in &copy_legal {
                        self.slot[index] = u32::MAX;
                    }
                    for (w, x) in wdl.iter_mut().zip(e.wdl) {
                        *w += x;
                    }
                    margin += e.margin;
                }
                let total: f32 = priors.iter().sum();
                if total > 0.0 {
                    priors.iter_mut().for_each(|p| *p /= total);
                }
                wdl.iter_mut().for_each(|w| *w /= k as f32);
                Evaluation {
                    priors,
                    wdl,
                    margin: margin / k as f32,
                }
            })
            .collect()
    }
}
