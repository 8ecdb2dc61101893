//! Othello on a 6x6 board, written outside `yinsh-zero` on its public
//! traits: [`Position`] is the `State` (the rules), [`Othello`] the `Game`
//! (what the network sees, the action index, symmetries, records and
//! notation) and its `GamePlayers` (an evaluation for `alphabeta`).
//!
//! The rules are standard Othello's on 36 squares. White starts on c3 and
//! d4, Black on d3 and c4, and Black moves first. A disc must turn over at
//! least one line of the opponent's discs, bounded by one of the mover's. A
//! side that cannot place a disc while its opponent can passes: the pass
//! (`pass`, dense index 36) is then its only legal action, which the
//! search plays without thinking. The game ends when neither side can
//! place a disc, and the side with more discs wins; equal counts draw.
//! With perfect play White, the second player, wins 20-16 (Joel Feinstein,
//! 1993).
//!
//! Unlike the library's [`Color`](yinsh_zero::game::Color) documentation
//! ("White makes the first decision"), the colours here are Othello's:
//! `Color::Black` acts first. Nothing in the library depends on which
//! colour starts.
//!
//! ```
//! use othello::{Move, Othello};
//! use yinsh_zero::game::{Color, Game, State};
//!
//! let game = Othello;
//! let mut pos = game.start();
//! assert_eq!(pos.to_act(), Color::Black);
//! let first: Vec<String> = pos.legal_actions().iter().map(|m| m.to_string()).collect();
//! assert_eq!(first, ["c2", "b3", "e4", "d5"]);
//! for m in ["c2", "b4", "c5"] {
//!     let m = game.parse_action(&pos, m).unwrap();
//!     pos.play(m).unwrap();
//! }
//! assert_eq!(pos.to_act(), Color::White);
//! assert!(pos.play(Move::PASS).is_err()); // White has a move
//! assert_eq!(game.net_shape().action_space(), 37);
//! ```

mod game;
mod position;

pub use game::{Othello, map_index};
pub use position::{CELLS, Move, Position, SIZE, moves};
