//! The Morris page and its JSON API, beside YINSH's: games of Nine, Six or
//! Three Men's Morris against any player spec, and what the perfect-play
//! database says about the position.
//!
//! Engines and database look-ups run on the blocking pool; a game's lock
//! is held only for bookkeeping, as in [`super::server`].

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::json;

use super::api::{ApiError, body, internal, lock, ok, page};
use super::assets;
use super::error::HUMAN;
use super::morris::{BoardGeometry, MorrisGame, MorrisOptions, MorrisView, title, variant_named};
use super::offers::Offers;
use super::served::{ActionRequest, NewGame, ServedGame, create, game_routes, players_json};
use super::server::{AppState, Shared};
use super::store::Games;
use crate::game::{Color, Game};
use crate::games::morris::{Morris, Position, Variant};

pub(super) fn routes() -> Router<Shared> {
    Router::new()
        .route("/morris", get(|| async { page(assets::MORRIS_HTML) }))
        .route("/api/morris/config", get(config_info))
        .route("/api/morris/games", post(new_game))
        .route("/api/morris/games/{id}/perfect", get(perfect))
        .merge(game_routes::<MorrisGame, ActionRequest>(
            "/api/morris/games",
        ))
}

impl ServedGame for MorrisGame {
    type State = Position;
    type View = MorrisView;
    fn games(state: &AppState) -> &Games<Self> {
        &state.morris
    }
    fn view(&self, id: &str) -> MorrisView {
        MorrisGame::view(self, id)
    }
}

/// Opponents the page suggests for a variant, the default first: the
/// database's `perfect` player where there is one, then the network this
/// project ships for the variant, played as its card says.
fn suggestions(offers: &Offers, variant: Variant, has_db: bool) -> Vec<String> {
    // The Six network's card: a draw worth 0.8 and 300 simulations drew
    // all 1,000 games against perfect play.
    let played_as = [("six-mens-morris", ",sims=300,draw=0.8")];
    let mut rest = vec![
        "alphabeta:depth=4",
        "alphabeta:depth=2",
        "mcts-rollout:playouts=1000",
        "random",
        HUMAN,
    ];
    let default = if has_db { "perfect" } else { rest.remove(0) };
    super::served::suggestions(
        offers,
        (Morris::NAME, variant.name()),
        default,
        &played_as,
        &rest,
    )
}

async fn config_info(State(state): State<Shared>) -> Result<Response, ApiError> {
    let st = state.clone();
    let variants = state
        .work
        .run(move || {
            Variant::NAMES
                .iter()
                .map(|name| {
                    let v = Variant::from_name(name).expect("a known name");
                    let db = st.morris_dbs.status(v);
                    let suggested = suggestions(&st.config.offers, v, db.present);
                    json!({
                        "name": v.name(),
                        "title": title(v),
                        "board": BoardGeometry::of(v),
                        "database": db,
                        "suggestions": suggested,
                        "default_opponent": suggested[0],
                    })
                })
                .collect::<Vec<_>>()
        })
        .await?;
    Ok(ok(json!({
        "variants": variants,
        "players": players_json::<Morris>(),
        "max_think_ms": state.config.max_think_ms(),
    })))
}

/// A new game: `nine` by default, the human White, the opponent the
/// variant's first suggestion (`perfect` where it has a database).
async fn new_game(State(state): State<Shared>, bytes: Bytes) -> Result<Response, ApiError> {
    let req: NewGame = body(&bytes)?;
    let variant = variant_named(req.variant.as_deref().unwrap_or("nine"))?;
    // Building a player may open a database or load a network.
    create(&state, move |st| {
        let opponent = match req.opponent {
            Some(o) => o,
            None => suggestions(
                &st.config.offers,
                variant,
                st.morris_dbs.get(variant).is_ok(),
            )
            .swap_remove(0),
        };
        let options = MorrisOptions {
            variant,
            human: req.color.unwrap_or(Color::White),
            opponent,
            seed: req.seed.unwrap_or_else(rand::random),
        };
        MorrisGame::new(
            &options,
            st.config.max_think,
            st.morris_dbs.configured_dir(variant).as_deref(),
            &st.config.offers,
        )
    })
    .await
}

/// The database's view of the game's position, with the decision count it
/// is about (so the page can drop an answer about an older position).
async fn perfect(
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let game = state.morris.get(&id)?;
    let (pos, steps) = {
        let g = lock(&game);
        (g.position().clone(), g.actions().len())
    };
    let st = state.clone();
    let view = state.work.run(move || st.morris_dbs.perfect(&pos)).await?;
    let mut value = serde_json::to_value(view).map_err(internal)?;
    value["steps"] = json!(steps);
    Ok(ok(value))
}
