//! The run directory: atomic writes, configs, checkpoints, metrics, and
//! the training loop that ties them together and resumes after a kill.

pub mod baseline;
pub mod config;
pub mod metrics;
pub mod train_loop;
