//! The policy/value network: its shape ([`ModelConfig`]), the burn model
//! ([`Model`]), the backend choice ([`BackendKind`]), weights on disk, and
//! batched inference behind the search's [`Evaluator`](crate::evaluator::Evaluator)
//! trait ([`NetEvaluator`]).

pub mod average;
pub mod backend;
pub mod backprop;
pub mod bench;
pub mod config;
pub mod cpu;
pub mod export;
pub mod inference;
mod kernels;
mod microkernel;
pub mod model;
pub mod simd;
pub mod weights;
pub mod workers;

use std::path::PathBuf;

pub use average::{AverageError, average};
pub use backend::{BackendKind, default_device};
pub use backprop::{Backprop, OutputGrads, TrainOutput};
pub use bench::{BatchRate, BenchOptions, NnBench, bench_nn};
pub use config::{ModelConfig, ModelSection};
pub use cpu::{CpuNet, CpuOutput};
pub use inference::{CacheStats, InferenceOptions, NetEvaluator};
pub use model::{AuxOutput, Model, ModelOutput};
pub use simd::{Simd, SimdError};
pub use weights::{load_game_weights, load_weights, save_weights};
pub use workers::{WorkerNet, WorkerNets};

/// What can go wrong around the network.
#[derive(Debug, thiserror::Error)]
pub enum NnError {
    #[error("cannot save weights to {path}: {reason}")]
    SaveWeights { path: PathBuf, reason: String },
    #[error("cannot load weights from {path}: {reason}")]
    LoadWeights { path: PathBuf, reason: String },
    #[error("backend `{backend}` is not in this build (rebuild with `--features {backend}`)")]
    BackendNotBuilt { backend: &'static str },
    #[error("unknown backend `{name}` (expected flex, cuda or wgpu)")]
    UnknownBackend { name: String },
    #[error("cannot start the inference thread pool: {0}")]
    ThreadPool(#[from] rayon::ThreadPoolBuildError),
}
