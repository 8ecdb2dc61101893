//! The web server, for every game alike: `yinsh-zero serve`.
//!
//! It names no game. Each game registers a [`WebPage`] (its navigation
//! entries, scripts and routes; see `crate::games`), and [`router`] builds
//! the server from that list: the pages and APIs of the games, and beside
//! them what every page shares:
//!
//! | route | what |
//! |---|---|
//! | `GET /dashboard` | the training dashboard |
//! | `GET /api/run` | the run directory's metrics and evaluations |
//! | `GET /api/offers` | the networks and databases a request may name ([`Offers`]) |
//! | `GET /assets/{name}` | the shared and the games' scripts and styles |
//!
//! Every game's API has the same routes on one game, written once
//! ([`game_routes`]): `GET {games}/{id}`, `POST {games}/{id}/play`,
//! `POST {games}/{id}/engine`, `POST {games}/{id}/undo`.
//!
//! Errors are `{"error": message}` with a 4xx status: 400 for a malformed
//! request (an unknown variant, text that is no action, a bad player spec),
//! 404 for an unknown game, 409 for a request out of turn, 422 for an
//! illegal decision, 413 for a body over [`MAX_BODY_BYTES`], 503 with
//! `Retry-After` when the line of slow work is full. A refused request
//! never changes the game, and no answer names a server path or quotes a
//! file.
//!
//! Inside, the rooms go one way: [`api`](ApiError) and [`error`](GameError)
//! at the bottom, then the store, the line of work, the engine's seat and
//! the seated game, the generic handlers ([`ServedGame`]), the shared state
//! ([`Common`]) and the server on top.

mod api;
mod assets;
mod common;
mod error;
mod offers;
mod page;
mod run_view;
mod seat;
mod seated;
mod served;
mod server;
mod store;
mod work;

pub(crate) use assets::text_assets;

pub use api::{ApiError, MAX_BODY_BYTES, body, internal, lock, ok};
pub use common::{Common, Layout, NavLink, ServeConfig, Shared};
pub use error::{ByColour, GameError, HUMAN, OutcomeView, bounded_spec};
pub use offers::{
    MAX_SPEC_CHARS, NET_KEY, NotOffered, OfferError, OfferedDatabase, OfferedNetwork, Offers,
    Resolved,
};
pub use page::{Asset, WebPage};
pub use run_view::{EvalFile, RunView, SeriesPoint, read_run};
pub use seat::{BuildPlayer, EngineDone, EngineJob, EngineSeat};
pub use seated::{SeatedGame, SeatedRules, SeatedView, TurnView};
pub use served::{
    ActionRequest, DecisionRequest, NewGame, PlayText, ServedGame, Service, SlowWork, create,
    game_routes, players_json, suggestions,
};
pub use server::{router, serve};
pub use store::Games;
pub use work::RETRY_AFTER_SECONDS;
