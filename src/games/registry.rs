//! Which games a command line knows: this crate's ([`Builtin`]) and, for a
//! program built on the library, its own game in front ([`With`]).
//!
//! A command names its game at run time (`--game`, a config's `[game]`, a
//! checkpoint's `meta.json`), while everything below the command line is
//! generic over the game's type; a registry is the one place that turns
//! the name into the type ([`Registry::with_game`]). It is a type, not a
//! value, so that the generic code is compiled for every game it lists:
//! a user's crate that names `With<MyGame>` gets the whole command line
//! compiled for `MyGame`.
//!
//! ```
//! use yinsh_zero::arena::GamePlayers;
//! use yinsh_zero::game::Game;
//! use yinsh_zero::games::{Builtin, GameTask, Registry};
//!
//! struct Actions;
//! impl GameTask for Actions {
//!     type Output = usize;
//!     fn run<G: GamePlayers>(self, game: G) -> usize {
//!         game.net_shape().action_space()
//!     }
//! }
//! assert_eq!(Builtin::names()[0], "yinsh");
//! assert_eq!(Builtin::with_game("yinsh", "blitz", Actions).unwrap(), 7866);
//! assert!(Builtin::with_game("chess", "standard", Actions).is_err());
//! ```

use std::marker::PhantomData;

use super::{GameChoiceError, GameTask};
use crate::arena::GamePlayers;
use crate::web::WebPage;

/// A list of games, by name, each with its type and optionally its page.
pub trait Registry: 'static {
    /// The games' names, the home game (the one a command plays when it
    /// names none, and the web server's home page) first.
    fn names() -> Vec<&'static str>;

    /// Runs `task` with the game `name` in `variant`.
    fn with_game<T: GameTask>(
        name: &str,
        variant: &str,
        task: T,
    ) -> Result<T::Output, GameChoiceError>;

    /// The variant game `name` plays when a command names none: the first
    /// of its [`Game::VARIANTS`](crate::game::Game::VARIANTS).
    fn default_variant(name: &str) -> Result<&'static str, GameChoiceError>;

    /// The games' parts of the web server, the home page's game first.
    fn web_pages() -> Vec<Box<dyn WebPage>>;

    /// The home game: the first of [`names`](Self::names).
    fn home() -> &'static str {
        Self::names()[0]
    }
}

/// This crate's games, as `src/games/mod.rs` registers them, YINSH first.
pub struct Builtin;

impl Registry for Builtin {
    fn names() -> Vec<&'static str> {
        super::GAMES.to_vec()
    }

    fn with_game<T: GameTask>(
        name: &str,
        variant: &str,
        task: T,
    ) -> Result<T::Output, GameChoiceError> {
        super::with_game(name, variant, task)
    }

    fn default_variant(name: &str) -> Result<&'static str, GameChoiceError> {
        super::default_variant(name)
    }

    fn web_pages() -> Vec<Box<dyn WebPage>> {
        super::web_pages()
    }
}

/// Game `G` (with page `P`, or none) in front of the games of `R`: `G` is
/// the home game. A name `G` shares with a game of `R` means `G`.
///
/// ```
/// use yinsh_zero::games::{Builtin, Registry, With};
/// # use yinsh_zero::games::morris::Morris;
/// // A registry whose home game is Morris, then the built-in games.
/// type Mine = With<Morris>;
/// assert_eq!(Mine::home(), "morris");
/// // Morris is built in too: its name now means the front one, listed once.
/// assert_eq!(Mine::names(), ["morris", "yinsh", "grid", "emergo", "connect4"]);
/// assert_eq!(Builtin::names().len(), 5);
/// assert_eq!(Mine::default_variant("morris").unwrap(), "nine");
/// assert_eq!(Mine::default_variant("yinsh").unwrap(), "standard");
/// let err = Mine::default_variant("chess").unwrap_err().to_string();
/// assert!(err.contains("morris, yinsh"), "{err}");
/// ```
pub struct With<G, P = NoPage, R = Builtin>(PhantomData<Listed<G, P, R>>);

/// What a [`With`] lists, held as a function type: `With` is `Send`,
/// `Sync` and `'static` whatever its parts are.
type Listed<G, P, R> = fn() -> (G, P, R);

/// A game's web page for [`With`]: [`NoPage`], or any [`WebPage`] that
/// has a [`Default`].
pub trait PageOf: 'static {
    /// The page, if there is one.
    fn page() -> Option<Box<dyn WebPage>>;
}

/// No page: `serve` shows the registry's other games only.
pub struct NoPage;

impl PageOf for NoPage {
    fn page() -> Option<Box<dyn WebPage>> {
        None
    }
}

impl<W: WebPage + Default + 'static> PageOf for W {
    fn page() -> Option<Box<dyn WebPage>> {
        Some(Box::new(W::default()))
    }
}

impl<G: GamePlayers, P: PageOf, R: Registry> Registry for With<G, P, R> {
    fn names() -> Vec<&'static str> {
        let mut names = vec![G::NAME];
        names.extend(R::names().into_iter().filter(|n| *n != G::NAME));
        names
    }

    fn with_game<T: GameTask>(
        name: &str,
        variant: &str,
        task: T,
    ) -> Result<T::Output, GameChoiceError> {
        if name == G::NAME {
            let game = G::with_variant(variant).map_err(GameChoiceError::UnknownVariant)?;
            return Ok(task.run(game));
        }
        R::with_game(name, variant, task).map_err(Self::whole_list)
    }

    fn default_variant(name: &str) -> Result<&'static str, GameChoiceError> {
        if name == G::NAME {
            return Ok(G::VARIANTS[0]);
        }
        R::default_variant(name).map_err(Self::whole_list)
    }

    fn web_pages() -> Vec<Box<dyn WebPage>> {
        let mut pages: Vec<Box<dyn WebPage>> = P::page().into_iter().collect();
        pages.extend(R::web_pages());
        pages
    }
}

impl<G: GamePlayers, P: PageOf, R: Registry> With<G, P, R> {
    /// An unknown game names every game of this registry, not only those
    /// of the registry it was asked of.
    fn whole_list(e: GameChoiceError) -> GameChoiceError {
        match e {
            GameChoiceError::UnknownGame { name, .. } => GameChoiceError::UnknownGame {
                name,
                known: Self::names().join(", "),
            },
            other => other,
        }
    }
}
