//! yinsh-zero: an AlphaZero-style self-play trainer for the board game YINSH.
//!
//! Data flows one way: [`yinsh`] (rules) -> [`encode`] -> [`mcts`] (search,
//! behind the [`evaluator`] trait, answered by [`nn`]) -> [`selfplay`]
//! records -> [`replay`] -> training -> checkpoint -> evaluation in the
//! [`arena`].

pub mod arena;
pub mod bench;
pub mod checkpoint;
pub mod encode;
pub mod engine;
pub mod evaluator;
pub mod game;
pub mod games;
pub mod mcts;
pub mod morris;
pub mod nn;
pub mod replay;
pub mod run;
pub mod selfplay;
pub mod stats;
pub mod train;
pub mod util;
pub mod web;
pub mod yinsh;
