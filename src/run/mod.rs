//! The run directory: atomic writes, checkpoints, resume, configs.

pub mod atomic;
