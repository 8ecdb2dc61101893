//! Training the network on replayed self-play positions.

pub mod config;
