//! The grid game of the Utah Math Olympiad 2014, Problem 1, on N x N
//! boards (rules pinned in `docs/grid-rules.md`), with an exact solver.
//!
//! ```
//! use yinsh_zero::game::Game;
//! use yinsh_zero::games::grid::{Grid, solve::Solver};
//! use yinsh_zero::game::Color;
//!
//! let g = Grid::new(5);
//! let v = Solver::new(g).value(&g.start());
//! assert_eq!(v.winner, Color::Black);
//! ```

pub mod commands;
mod game;
pub mod grade;
mod players;
pub mod position;
pub mod solve;
pub mod web;

pub use game::{Grid, INPUT_PLANES};
pub use position::{Action, MAX_SIDE, Position, Square};
