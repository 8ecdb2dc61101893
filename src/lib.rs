//! yinsh-zero: an AlphaZero-style self-play trainer for board games, YINSH
//! first, the Morris family beside it (with a perfect-play database to
//! measure the trainer against).
//!
//! Data flows one way: [`game`] (the interface every game implements;
//! [`yinsh`] and [`morris`] are games) -> [`encode`] -> [`mcts`] (search,
//! behind the [`evaluator`] trait, answered by [`nn`]) -> [`selfplay`]
//! records -> [`replay`] -> training -> [`checkpoint`] -> evaluation in the
//! [`arena`]. `docs/architecture.md` draws the rooms and how to add a game.

pub mod arena;
pub mod bench;
pub mod checkpoint;
pub mod encode;
pub mod engine;
pub mod evaluator;
pub mod game;
pub mod games;
pub mod mcts;
pub mod nn;
pub mod replay;
pub mod run;
pub mod selfplay;
pub mod stats;
pub mod store;
pub mod train;
pub mod util;
pub mod web;
