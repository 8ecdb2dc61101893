//! yinsh-zero: an AlphaZero-style self-play trainer for board games, YINSH
//! first, and beside it games whose perfect play is known (the Morris
//! family, the grid game) to measure the trainer against.
//!
//! Data flows one way: [`game`] (the interface every game implements; each
//! game is a folder under [`games`], registered there) -> [`encode`] -> [`mcts`] (search,
//! behind the [`evaluator`] trait, answered by [`nn`]) -> [`selfplay`]
//! records -> [`replay`] -> training -> [`checkpoint`] -> evaluation in the
//! [`arena`]. `docs/architecture.md` draws the rooms and how to add a game.

pub mod arena;
pub mod bench;
pub mod checkpoint;
pub mod cli;
pub mod encode;
pub mod engine;
pub mod evaluator;
pub mod game;
pub mod games;
pub mod mcts;
pub mod nn;
pub mod reanalyse;
pub mod replay;
pub mod run;
pub mod selfplay;
pub mod store;
pub mod train;
pub mod util;
pub mod web;
