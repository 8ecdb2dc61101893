//! The Morris page and its JSON API, beside YINSH's: games of Nine, Six or
//! Three Men's Morris against any player spec, and what the perfect-play
//! database says about the position.
//!
//! Engines and database look-ups run on the blocking pool; a game's lock
//! is held only for bookkeeping, as in [`crate::web`].

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::json;

use super::db_view::MorrisDatabases;
use super::page::{BoardGeometry, MorrisGame, MorrisOptions, MorrisView, title, variant_named};
use crate::game::{Color, Game};
use crate::games::morris::{Morris, Position, Variant};
use crate::web::SeatedGame;
use crate::web::{
    ActionRequest, ApiError, HUMAN, NewGame, Offers, ServedGame, Service, Shared, body, create,
    game_routes, internal, lock, ok, players_json,
};

/// The Morris routes' state: its games and the databases it consults.
struct MorrisState {
    service: Arc<Service<MorrisGame>>,
    dbs: MorrisDatabases,
}

/// The page's and API's routes, the databases under `dbs`.
pub(super) fn routes(common: &Shared, dbs: MorrisDatabases) -> Router {
    let service = Service::new(common);
    let state = Arc::new(MorrisState {
        service: service.clone(),
        dbs,
    });
    Router::new()
        .route("/api/morris/config", get(config_info))
        .route("/api/morris/games", post(new_game))
        .route("/api/morris/games/{id}/perfect", get(perfect))
        .with_state(state)
        .merge(game_routes::<MorrisGame, ActionRequest>("/api/morris/games").with_state(service))
}

impl ServedGame for MorrisGame {
    type State = Position;
    type View = MorrisView;
    fn seated(&self) -> &SeatedGame<Position> {
        &self.seated
    }
    fn seated_mut(&mut self) -> &mut SeatedGame<Position> {
        &mut self.seated
    }
    fn view(&self, id: &str) -> MorrisView {
        MorrisGame::view(self, id)
    }
}

/// Opponents the page suggests for a variant, the default first: the
/// database's `perfect` player where there is one, then the network this
/// project ships for the variant, played as its card says.
fn suggestions(offers: &Offers, variant: Variant, has_db: bool) -> Vec<String> {
    // The Six network's card: a draw worth 0.8 and 300 simulations, the
    // move chosen by visits, drew all 1,000 games against perfect play
    // (with the players' default lower confidence bound it lost one).
    let played_as = [("six-mens-morris", ",sims=300,draw=0.8,lcb=0")];
    let mut rest = vec![
        "alphabeta:depth=4",
        "alphabeta:depth=2",
        "mcts-rollout:playouts=1000",
        "random",
        HUMAN,
    ];
    let default = if has_db { "perfect" } else { rest.remove(0) };
    crate::web::suggestions(
        offers,
        (Morris::NAME, variant.name()),
        default,
        &played_as,
        &rest,
    )
}

async fn config_info(State(morris): State<Arc<MorrisState>>) -> Result<Response, ApiError> {
    let state = morris.service.common.clone();
    let st = morris.clone();
    let variants = state
        .work
        .run(move || {
            Variant::NAMES
                .iter()
                .map(|name| {
                    let v = Variant::from_name(name).expect("a known name");
                    let db = st.dbs.status(v);
                    let suggested = suggestions(&st.service.common.config.offers, v, db.present);
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
async fn new_game(
    State(morris): State<Arc<MorrisState>>,
    bytes: Bytes,
) -> Result<Response, ApiError> {
    let req: NewGame = body(&bytes)?;
    let variant = variant_named(req.variant.as_deref().unwrap_or("nine"))?;
    let dbs = morris.clone();
    // Building a player may open a database or load a network.
    create(&morris.service, move |st| {
        let opponent = match req.opponent {
            Some(o) => o,
            None => {
                suggestions(&st.config.offers, variant, dbs.dbs.get(variant).is_ok()).swap_remove(0)
            }
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
            dbs.dbs.configured_dir(variant).as_deref(),
            &st.config.offers,
        )
    })
    .await
}

/// The database's view of the game's position, with the decision count it
/// is about (so the page can drop an answer about an older position).
async fn perfect(
    State(morris): State<Arc<MorrisState>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let game = morris.service.games.get(&id)?;
    let (pos, steps) = {
        let g = lock(&game);
        (g.seated.position().clone(), g.seated.actions().len())
    };
    let st = morris.clone();
    let view = morris
        .service
        .common
        .work
        .run(move || st.dbs.perfect(&pos))
        .await?;
    let mut value = serde_json::to_value(view).map_err(internal)?;
    value["steps"] = json!(steps);
    Ok(ok(value))
}
