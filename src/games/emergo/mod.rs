//! Emergo (Christian Freeling and Ed van Zon, 1986), a draughts-like game
//! in which nothing leaves the board: jumped men become prisoners under
//! the jumper. Rules pinned in `docs/emergo-rules.md`.
//!
//! ```
//! use yinsh_zero::games::emergo::{Emergo, Square};
//! use yinsh_zero::game::{Color, Game, State};
//!
//! let game = Emergo::default();
//! let start = game.start();
//! // Black's man on d4 can jump c3, so White may enter anywhere (i1), and
//! // then Black must capture: the white man goes under the black one.
//! let line = "@c3 @e5 @a1 @g7 @b8 @d4 @i1 d4xb2";
//! let mut pos = start.clone();
//! for a in game.parse_game(&start, line).unwrap() {
//!     pos.play(a).unwrap();
//! }
//! let at = |s: &str| pos.unit(Square::parse(s).unwrap()).map(|u| u.to_string());
//! assert_eq!(at("b2").as_deref(), Some("B1/1"));
//! assert_eq!(at("c3"), None);
//! // White must jump back: the black man goes under White's, and the white
//! // prisoner left on b2 is free again.
//! assert_eq!(pos.to_act(), Color::White);
//! let legal: Vec<String> = pos.legal_actions().iter().map(|a| a.to_string()).collect();
//! assert_eq!(legal, ["a1xc3"]);
//! pos.play(game.parse_action(&pos, "a1xc3").unwrap()).unwrap();
//! let at = |s: &str| pos.unit(Square::parse(s).unwrap()).map(|u| u.to_string());
//! assert_eq!(at("c3").as_deref(), Some("W1/1"));
//! assert_eq!(at("b2").as_deref(), Some("W1"));
//! ```

pub mod capture;
mod game;
pub mod geometry;
pub mod notation;
mod players;
pub mod position;
pub mod unit;
pub mod variant;
pub mod web;

pub use game::{Emergo, INPUT_PLANES, POLICY_PLANES};
pub use geometry::{Cell, Dir, Geometry, Square};
pub use notation::Action;
pub use position::{Actions, Parts, Position};
pub use unit::Unit;
pub use variant::{Blocked, NO_PROGRESS_LIMIT, TURN_LIMIT, Variant};
