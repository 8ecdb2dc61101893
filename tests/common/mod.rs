//! Helpers shared by the integration tests.
// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

pub mod cli;
pub mod moto;
pub mod s3;
pub mod tictactoe;
pub mod web;
