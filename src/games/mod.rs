//! The registry: every game the command line can name, and the one place
//! that turns a name into a type. A new game is a folder beside
//! [`crate::games::yinsh`], its [`Game`](crate::game::Game) and
//! [`GamePlayers`] impls, and a line in [`with_game`].
//!
//! The layers below are generic over the game; the command line is not
//! (a `--config` names its game at run time), so it hands a [`GameTask`]
//! to [`with_game`], which runs it with the game's type.

pub mod emergo;
pub mod grid;
pub mod morris;
pub mod yinsh;

use crate::arena::GamePlayers;
use crate::game::Game;
use emergo::Emergo;
use grid::Grid;
use morris::Morris;
use yinsh::Yinsh;

/// The games [`with_game`] knows, by name.
pub const GAMES: &[&str] = &[Yinsh::NAME, Morris::NAME, Grid::NAME, Emergo::NAME];

/// Work to do with a game whose type is known only at run time.
pub trait GameTask {
    type Output;
    fn run<G: GamePlayers>(self, game: G) -> Self::Output;
}

/// Why a game could not be chosen.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameChoiceError {
    #[error("unknown game `{name}` (known: {})", GAMES.join(", "))]
    UnknownGame { name: String },
    #[error("{0}")]
    UnknownVariant(String),
}

/// Runs `task` with the game `name` in `variant`.
///
/// ```
/// use yinsh_zero::arena::GamePlayers;
/// use yinsh_zero::game::Game;
/// use yinsh_zero::games::{GameTask, with_game};
///
/// struct ActionSpace;
/// impl GameTask for ActionSpace {
///     type Output = usize;
///     fn run<G: GamePlayers>(self, game: G) -> usize {
///         game.net_shape().action_space()
///     }
/// }
/// assert_eq!(with_game("yinsh", "blitz", ActionSpace).unwrap(), 7866);
/// assert!(with_game("chess", "standard", ActionSpace).is_err());
/// ```
pub fn with_game<T: GameTask>(
    name: &str,
    variant: &str,
    task: T,
) -> Result<T::Output, GameChoiceError> {
    match name {
        Yinsh::NAME => {
            Ok(task.run(Yinsh::with_variant(variant).map_err(GameChoiceError::UnknownVariant)?))
        }
        Morris::NAME => {
            Ok(task.run(Morris::with_variant(variant).map_err(GameChoiceError::UnknownVariant)?))
        }
        Grid::NAME => {
            Ok(task.run(Grid::with_variant(variant).map_err(GameChoiceError::UnknownVariant)?))
        }
        Emergo::NAME => {
            Ok(task.run(Emergo::with_variant(variant).map_err(GameChoiceError::UnknownVariant)?))
        }
        _ => Err(GameChoiceError::UnknownGame { name: name.into() }),
    }
}

/// The variant game `name` plays when a command names none: the first of
/// its [`Game::VARIANTS`] (`standard`, `nine`, `9x9`, ...).
///
/// ```
/// use yinsh_zero::games::default_variant;
/// assert_eq!(default_variant("yinsh").unwrap(), "standard");
/// assert_eq!(default_variant("morris").unwrap(), "nine");
/// assert_eq!(default_variant("grid").unwrap(), "9x9");
/// assert!(default_variant("chess").is_err());
/// ```
pub fn default_variant(name: &str) -> Result<&'static str, GameChoiceError> {
    let variants = match name {
        Yinsh::NAME => Yinsh::VARIANTS,
        Morris::NAME => Morris::VARIANTS,
        Grid::NAME => Grid::VARIANTS,
        Emergo::NAME => Emergo::VARIANTS,
        _ => return Err(GameChoiceError::UnknownGame { name: name.into() }),
    };
    Ok(variants[0])
}

/// Checks that `spec` names a player of game `name` (an error says why not).
pub fn check_player_spec(name: &str, variant: &str, spec: &str) -> Result<(), String> {
    struct Check<'a>(&'a str);
    impl GameTask for Check<'_> {
        type Output = Result<(), String>;
        fn run<G: GamePlayers>(self, game: G) -> Self::Output {
            crate::arena::parse_game_player(&game, self.0, 0)
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
    }
    with_game(name, variant, Check(spec)).map_err(|e| e.to_string())?
}
