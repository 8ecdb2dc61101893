//! Connect Four (7 columns x 6 rows, four in a line wins) on Pascal
//! Pons's bitboard, with an exact solver ([`solve`]), a `perfect` player,
//! a grader and a labelled test set ([`testset`]).
//!
//! Notation: an action is its column, `1` to `7` from the left; a game is
//! the digits of its columns from the empty board, with nothing between
//! them (`4453`), as the common solvers and Pons's test sets write it.
//!
//! ```
//! use yinsh_zero::games::connect4::{Connect4, Position, solve::Solver};
//! use yinsh_zero::game::{Color, Game, GameResult, State};
//!
//! let game = Connect4;
//! let start = game.start();
//! // White takes the bottom row: 4, 5, 6 with Black stacking on top.
//! let mut pos = start;
//! for c in game.parse_game(&start, "445566").unwrap() {
//!     pos.play(c).unwrap();
//! }
//! // Column 3 or 7 completes the four: both are best, and the solver
//! // scores the win with White's 4th stone 22 - 4 = 18.
//! let mut solver = Solver::new(16);
//! let (score, best) = solver.best_columns(&pos);
//! assert_eq!(score.get(), 18);
//! let best: Vec<String> = best.iter().map(|c| c.to_string()).collect();
//! assert_eq!(best, ["3", "7"]);
//! pos.play(game.parse_action(&pos, "7").unwrap()).unwrap();
//! assert_eq!(pos.result(), Some(GameResult::Win(Color::White)));
//! ```

pub mod bitboard;
pub mod book;
pub mod bounds;
pub mod commands;
mod game;
pub mod grade;
mod players;
pub mod position;
mod position_file;
pub mod solve;
pub mod testset;
pub mod web;

pub use game::{Connect4, INPUT_PLANES};
pub use players::PerfectPlayer;
pub use position::{Actions, Column, Position};
