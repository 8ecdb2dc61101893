//! yinsh-zero: an AlphaZero-style self-play trainer for the board game YINSH.
//!
//! Data flows one way: [`yinsh`] (rules) -> encoding -> [`mcts`] (search,
//! behind the [`evaluator`] trait) -> self-play records -> [`replay`] ->
//! training -> checkpoint -> [`eval`]uation.

pub mod bench;
pub mod eval;
pub mod evaluator;
pub mod mcts;
pub mod replay;
pub mod run;
pub mod selfplay;
pub mod stats;
pub mod web;
pub mod yinsh;
