//! The registry: every game, each a folder here (its rules, players,
//! grader, page and commands) and one line in `register!`'s list below.
//! Nothing outside a game's folder and this file names a game.
//!
//! The layers below are generic over the game; the command line and the
//! server are not (a `--config` names its game at run time), so they hand a
//! [`GameTask`] to [`with_game`], which runs it with the game's type, and
//! build the server from [`web_pages`].

pub mod connect4;
pub mod emergo;
pub mod grid;
pub mod morris;
mod registry;
pub mod yinsh;

pub use registry::{Builtin, NoPage, PageOf, Registry, With};

use crate::arena::GamePlayers;
use crate::game::Game;
use crate::web::WebPage;

/// The list: each game's type and its web page, the home page's game
/// first. A new game adds its line here and nothing elsewhere.
macro_rules! register {
    ($($game:ty => $page:expr),+ $(,)?) => {
        /// The games [`with_game`] knows, by name.
        pub const GAMES: &[&str] = &[$(<$game as Game>::NAME),+];

        /// Every game's part of the web server, the home page's game first.
        pub fn web_pages() -> Vec<Box<dyn WebPage>> {
            vec![$(Box::new($page)),+]
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
            $(
                if name == <$game as Game>::NAME {
                    let game = <$game>::with_variant(variant)
                        .map_err(GameChoiceError::UnknownVariant)?;
                    return Ok(task.run(game));
                }
            )+
            Err(GameChoiceError::UnknownGame { name: name.into(), known: GAMES.join(", ") })
        }

        /// The variant game `name` plays when a command names none: the
        /// first of its [`Game::VARIANTS`] (`standard`, `nine`, `9x9`, ...).
        ///
        /// ```
        /// use yinsh_zero::games::default_variant;
        /// assert_eq!(default_variant("yinsh").unwrap(), "standard");
        /// assert_eq!(default_variant("morris").unwrap(), "nine");
        /// assert_eq!(default_variant("grid").unwrap(), "9x9");
        /// assert!(default_variant("chess").is_err());
        /// ```
        pub fn default_variant(name: &str) -> Result<&'static str, GameChoiceError> {
            $(
                if name == <$game as Game>::NAME {
                    return Ok(<$game as Game>::VARIANTS[0]);
                }
            )+
            Err(GameChoiceError::UnknownGame { name: name.into(), known: GAMES.join(", ") })
        }
    };
}

register! {
    yinsh::Yinsh => yinsh::web::YinshPage::default(),
    morris::Morris => morris::web::MorrisPage,
    grid::Grid => grid::web::GridPage,
    emergo::Emergo => emergo::web::EmergoPage,
    connect4::Connect4 => connect4::web::Connect4Page,
}

/// The games' own commands, each game's `commands.rs` (the command line
/// lists them beside the generic ones).
#[derive(clap::Subcommand)]
pub enum GameCommand {
    #[command(flatten)]
    Yinsh(yinsh::commands::Command),
    #[command(flatten)]
    Morris(morris::commands::Command),
    #[command(flatten)]
    Grid(grid::commands::Command),
    #[command(flatten)]
    Connect4(connect4::commands::Command),
}

impl GameCommand {
    pub fn run(self) -> anyhow::Result<()> {
        match self {
            GameCommand::Yinsh(c) => c.run(),
            GameCommand::Morris(c) => c.run(),
            GameCommand::Grid(c) => c.run(),
            GameCommand::Connect4(c) => c.run(),
        }
    }
}

/// The games' own benchmarks (each game's `commands.rs`), which `bench`
/// lists beside the generic ones.
#[derive(clap::Subcommand)]
pub enum GameBench {
    #[command(flatten)]
    Yinsh(yinsh::commands::BenchCommand),
    #[command(flatten)]
    Morris(morris::commands::BenchCommand),
}

impl GameBench {
    pub fn run(self) -> anyhow::Result<()> {
        match self {
            GameBench::Yinsh(b) => b.run(),
            GameBench::Morris(b) => b.run(),
        }
    }
}

/// Work to do with a game whose type is known only at run time.
pub trait GameTask {
    type Output;
    fn run<G: GamePlayers>(self, game: G) -> Self::Output;
}

/// Why a game could not be chosen.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameChoiceError {
    #[error("unknown game `{name}` (known: {known})")]
    UnknownGame { name: String, known: String },
    #[error("{0}")]
    UnknownVariant(String),
}

/// The web server of every registered game ([`crate::web::router`]).
pub fn router(config: crate::web::ServeConfig) -> axum::Router {
    crate::web::router(config, &web_pages())
}

/// Serves every registered game on `listener` until the process ends.
pub async fn serve(
    listener: tokio::net::TcpListener,
    config: crate::web::ServeConfig,
) -> std::io::Result<()> {
    crate::web::serve(listener, config, &web_pages()).await
}
