//! The average phase: a generation's candidate checkpoint is the trainer's
//! weights, or with `[train] average_generations = k` above 1 the mean of
//! the last k generations' trained weights (the trained ones are kept
//! beside it, and training goes on from them, not from the mean).

use std::collections::VecDeque;
use std::path::PathBuf;

use super::RunCtx;
use crate::checkpoint::{self, CheckpointMeta};
use crate::game::Game;
use crate::nn::Model;
use crate::train::Trainer;

/// The trained weights of the latest generations, oldest first, that the
/// next candidate averages in: read from their checkpoints once (a
/// resumed run's first candidate), then kept.
#[derive(Default)]
pub(crate) struct Averager {
    recent: VecDeque<(u64, Model)>,
}

impl Averager {
    /// Writes generation `g`'s candidate (weights, the trainer's optimizer
    /// state and `meta`, to which the averaged generations are added) and
    /// returns its folder.
    pub fn save_candidate<G: Game>(
        &mut self,
        ctx: &RunCtx<'_, G>,
        trainer: &Trainer,
        meta: &mut CheckpointMeta,
        g: u64,
    ) -> anyhow::Result<PathBuf> {
        let trained = trainer.inference_model();
        let optimizer = trainer
            .optimizer_bytes()
            .map_err(|e| anyhow::anyhow!("optimizer state: {e}"))?;
        let ckpts = ctx.run.checkpoints();
        let k = ctx.cfg.train.average_generations as usize;
        if k <= 1 {
            return Ok(checkpoint::save(&ckpts, meta, &trained, Some(&optimizer))?);
        }
        if self.recent.is_empty() {
            self.recent = trained_before(ctx, g, k - 1)?;
        }
        self.recent.push_back((g, trained.clone()));
        while self.recent.len() > k {
            self.recent.pop_front();
        }
        meta.averaged_from = self.recent.iter().map(|(e, _)| *e).collect();
        let models: Vec<Model> = self.recent.iter().map(|(_, m)| m.clone()).collect();
        let mean = crate::nn::average(&models).map_err(|e| anyhow::anyhow!("averaging: {e}"))?;
        let dir = checkpoint::generation_dir(&ckpts, g);
        checkpoint::save_to(&dir, meta, &mean, Some(&trained), Some(&optimizer))?;
        Ok(dir)
    }
}

/// The trained weights of the last `n` generations before `g`, oldest
/// first, from their checkpoints. A trainer resumed on another machine
/// fetches the ones it lacks from the run's store.
fn trained_before<G: Game>(
    ctx: &RunCtx<'_, G>,
    g: u64,
    n: usize,
) -> anyhow::Result<VecDeque<(u64, Model)>> {
    let ckpts = ctx.run.checkpoints();
    let store = ctx.publish.store();
    let mut wanted: Vec<u64> = match store {
        Some(s) => s.generations()?,
        None => checkpoint::list(&ckpts)?,
    };
    wanted.retain(|&e| e < g);
    let mut out = VecDeque::with_capacity(n);
    for &e in &wanted[wanted.len().saturating_sub(n)..] {
        let dir = checkpoint::generation_dir(&ckpts, e);
        if let Some(s) = store
            && !dir.join("meta.json").is_file()
        {
            s.pull_checkpoint(e, true)?;
        }
        let (model, _) = checkpoint::load_trained_model(ctx.game, &dir, &ctx.device)?;
        out.push_back((e, model));
    }
    Ok(out)
}
