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
