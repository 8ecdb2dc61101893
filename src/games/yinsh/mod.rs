//! The game of YINSH: geometry, rules, notations and symmetries.
//!
//! Knows nothing of search or networks.

pub mod action;
pub mod alphabeta;
pub mod bench;
pub mod bitboard;
pub mod commands;
pub mod encode;
mod game;
pub mod greedy;
pub mod lines;
pub mod notation;
pub mod packed;
mod players;
pub mod point;
pub mod position;
pub mod setup;
pub mod sgf;
pub mod stats;
pub mod symmetry;
pub mod web;

pub use action::{ACTION_SPACE, Action, Color};
pub use bitboard::Bitboard;
pub use game::Yinsh;
pub use players::parse_player;
pub use point::{Axis, Direction, Point};
pub use position::{ActionList, Decision, EndReason, IllegalAction, Outcome, Position, Variant};
pub use setup::SetupError;
