//! Helpers shared by the integration tests.

pub mod blitz;
pub mod cli;
pub mod conformance;
pub mod moto;
pub mod s3;
pub mod tictactoe;
pub mod web;
