//! A training run: its directory, config, metrics, the warm start from a
//! classical teacher, and the loop that ties self-play, training, gating
//! and baseline matches together and resumes after a kill.

pub mod baseline;
pub mod config;
pub mod dir;
pub mod gating;
pub mod metrics;
pub mod pretrain;
pub mod progress;
pub mod train_loop;

pub use dir::RunDir;

use crate::game::Game;
use crate::nn::Model;
use config::RunConfig;

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
