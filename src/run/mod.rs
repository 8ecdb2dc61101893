//! A training run: its directory, config, metrics, the warm start from a
//! classical teacher, and the loop that ties self-play, training, gating
//! and baseline matches together and resumes after a kill.
//!
//! The loop ([`train_loop`]) calls one phase after another, each in its
//! own unit: local self-play (`local_play`) or the workers' games
//! (`collect`), gradient steps (`training`), the candidate and its
//! weight averaging (`averaging`), the gating match
//! (`gating::gate_candidate`), the baseline matches
//! (`baseline::measure`), and publishing to the run's store
//! (`publish`, which also keeps a long run's `resume` point); between
//! games and training, optionally, the window's positions searched again
//! (`reanalysis`).

mod averaging;
pub mod baseline;
mod collect;
pub mod config;
pub mod dir;
pub mod gating;
mod local_play;
pub mod metrics;
pub mod pretrain;
pub mod progress;
mod publish;
mod reanalysis;
pub mod resume;
pub mod shared;
pub mod status;
pub mod train_loop;
mod training;
pub mod worker;

pub use dir::RunDir;

use std::sync::atomic::{AtomicBool, Ordering};

use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::game::Game;
use crate::nn::Model;
use crate::replay::window::ReplayWindow;
use crate::train::{Batch, StepMetrics, Trainer};
use config::RunConfig;
use metrics::{MetricsLog, fields};
use progress::Phase;
use publish::Publish;

/// What every phase of a generation reads and none changes: the game,
/// the run's folder and store, its config, the device the networks run
/// on and the stop flag (Ctrl-C). The loop owns one and lends it to each
/// phase, so that a phase's own arguments are what it changes or returns.
pub(crate) struct RunCtx<'a, G> {
    pub game: &'a G,
    pub run: &'a RunDir,
    /// The run's store, if it lives at a location.
    pub publish: Publish<'a>,
    pub cfg: RunConfig,
    pub device: burn::tensor::Device,
    pub stop: &'a AtomicBool,
}

impl<G> RunCtx<'_, G> {
    /// Whether a stop was requested.
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Generation 0's weights, drawn from the run seed. The backend's generator
/// draws them, so seeding it makes generation 0 (and with it the run)
/// repeat; a warm start trains from these same weights.
pub(crate) fn initial_model<G: Game>(
    game: &G,
    cfg: &RunConfig,
    device: &burn::tensor::Device,
) -> Model {
    device.seed(crate::util::sub_seed(cfg.run.seed ^ 0x1417, 0));
    cfg.model.to_model_config().init(&game.net_shape(), device)
}

/// The metadata of generation `generation` of the run's network, nothing
/// counted yet, with the score weight and threshold of the search it learns
/// under, so that a player of it searches as it was trained to be searched.
pub(crate) fn checkpoint_meta<G: Game>(
    game: &G,
    cfg: &RunConfig,
    generation: u64,
) -> crate::checkpoint::CheckpointMeta {
    crate::checkpoint::CheckpointMeta {
        score_weight: cfg.search.score_weight,
        score_threshold: cfg.search.score_threshold,
        ..crate::checkpoint::CheckpointMeta::new(game, generation, cfg.model.clone())
    }
}

/// CPU seconds this process has spent (0 where the platform does not say:
/// a `[loop] cpu_hours` budget then never ends a run).
pub(crate) fn process_cpu_seconds() -> f64 {
    crate::util::clock::cpu_time().map_or(0.0, |t| t.as_secs_f64())
}

/// Runs `f` in a pool of `threads` threads (0 = the global pool): the CPU
/// backend's loops and matrix products use the rayon pool they run in, so
/// a pool of n threads bounds training to n cores.
pub(crate) fn in_train_pool<T: Send>(
    threads: usize,
    f: impl FnOnce() -> T + Send,
) -> anyhow::Result<T> {
    match threads {
        0 => Ok(f()),
        n => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| anyhow::anyhow!("[train] threads = {n}: {e}"))?;
            Ok(pool.install(f))
        }
    }
}

/// A stop request came in the middle of gradient steps.
pub(crate) struct Stopped;

/// `steps` gradient steps of `trainer` on batches drawn from `window` (the
/// draws seeded from the run seed and generation `g`), shown as `what` and
/// logged as generation `g`'s `train` lines: the last step's metrics (none
/// for no steps), or [`Stopped`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn gradient_steps<G: Game>(
    game: &G,
    trainer: &mut Trainer,
    window: &ReplayWindow<G>,
    steps: u64,
    cfg: &RunConfig,
    g: u64,
    log: &mut MetricsLog,
    what: String,
    stop: &AtomicBool,
) -> Result<Option<StepMetrics>, Stopped> {
    let batch = trainer.config().batch_size;
    let mut rng = SmallRng::seed_from_u64(crate::util::sub_seed(cfg.run.seed ^ 0x7a11, g));
    let phase = Phase::start(what, steps, "steps");
    let mut last = None;
    for i in 0..steps {
        if stop.load(Ordering::Relaxed) {
            phase.finish();
            return Err(Stopped);
        }
        let samples = window.sample(&mut rng, batch);
        let target = cfg.train.value_target();
        let m = trainer.step(&Batch::new(game, &samples, target, &mut rng));
        phase.set(
            i + 1,
            format!("loss {:.3}, {:.0} samples/s", m.loss, m.samples_per_s),
        );
        log.log("train", g, m.step, fields(&m));
        last = Some(m);
    }
    phase.finish();
    Ok(last)
}
