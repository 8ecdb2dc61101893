//! Training the network on replayed self-play positions.

pub mod config;
pub mod trainer;

pub use trainer::{Batch, StepMetrics, Trainer};
