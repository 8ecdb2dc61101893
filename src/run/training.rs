//! The train phase: a generation's gradient steps on the replay window,
//! as many as the new positions call for.

use super::metrics::MetricsLog;
use super::{RunCtx, gradient_steps, in_train_pool};
use crate::game::Game;
use crate::replay::window::ReplayWindow;
use crate::train::Trainer;

/// Gradient steps of generation `g` at the configured ratio of samples to
/// the `new_positions` (none while the window holds fewer than `[train]
/// min_positions`), on `[train] threads` cores: the samples trained, or
/// `None` on a stop request.
pub(crate) fn train_generation<G: Game>(
    ctx: &RunCtx<'_, G>,
    trainer: &mut Trainer,
    window: &ReplayWindow<G>,
    log: &mut MetricsLog,
    g: u64,
    new_positions: u64,
) -> anyhow::Result<Option<u64>> {
    let tc = trainer.config().clone();
    in_train_pool(tc.threads, || {
        let steps = if window.len() >= tc.min_positions {
            ((tc.train_ratio * new_positions as f64) / tc.batch_size as f64).ceil() as u64
        } else {
            0
        };
        gradient_steps(
            ctx.game,
            trainer,
            window,
            steps,
            &ctx.cfg,
            g,
            log,
            format!("generation {g} training"),
            ctx.stop,
        )
        .ok()
        .map(|_| steps * tc.batch_size as u64)
    })
}
