//! The run directory: atomic writes, configs, checkpoints, resume.

pub mod atomic;
pub mod checkpoint;
pub mod config;
