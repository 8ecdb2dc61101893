//! The Morris family: Nine, Six and Three Men's Morris (rules pinned in
//! `docs/morris-rules.md`).
//!
//! ```
//! use yinsh_zero::game::{Game, State};
//! use yinsh_zero::games::morris::Morris;
//!
//! let game = Morris::with_variant("nine").unwrap();
//! let mut pos = game.start();
//! for token in "a1 d2 a4 d3 a7".split_whitespace() {
//!     let a = game.parse_action(&pos, token).unwrap();
//!     pos.play(a).unwrap();
//! }
//! // White closed the mill a1-a4-a7 and now takes a stone.
//! assert!(pos.removing());
//! assert_eq!(pos.legal_actions().len(), 2);
//! ```

pub mod address;
pub mod commands;
pub mod db;
mod game;
pub mod geometry;
pub mod grade;
pub mod pair;
mod perfect;
pub mod placing;
pub mod placing_book;
mod players;
pub mod position;
pub mod solve;
pub mod web;

pub use game::{INPUT_PLANES, Morris};
pub use geometry::{Geometry, Point, Square, Variant};
pub use position::{Action, NO_PROGRESS_LIMIT, Parts, Position, REPETITIONS_TO_DRAW};
