//! The Connect Four page's JSON API, beside the other games': games
//! against any player spec, and the solver's analysis of a game's position
//! (`GET /api/connect4/games/{id}/analysis`). Everything else is the routes
//! every game shares ([`game_routes`]).

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::json;

use super::page::{
    ANALYSIS_NODES, Connect4Game, Connect4Options, Connect4View, analyse, connect4_named,
};
use crate::game::{Color, Game};
use crate::games::connect4::{Connect4, Position};
use crate::web::SeatedGame;
use crate::web::{
    ActionRequest, ApiError, HUMAN, NewGame, Offers, ServedGame, Service, Shared, body, create,
    game_routes, lock, ok, players_json,
};

const GAMES: &str = "/api/connect4/games";

/// The API's routes.
pub(super) fn routes(common: &Shared) -> Router {
    let service = Service::new(common);
    Router::new()
        .route("/api/connect4/config", get(config_info))
        .route(GAMES, post(new_game))
        .route(&format!("{GAMES}/{{id}}/analysis"), get(analysis))
        .with_state(service.clone())
        .merge(game_routes::<Connect4Game, ActionRequest>(GAMES).with_state(service))
}

impl ServedGame for Connect4Game {
    type State = Position;
    type View = Connect4View;
    fn seated(&self) -> &SeatedGame<Position> {
        &self.seated
    }
    fn seated_mut(&mut self) -> &mut SeatedGame<Position> {
        &mut self.seated
    }
    fn view(&self, id: &str) -> Connect4View {
        Connect4Game::view(self, id)
    }
}

/// The opponent a new game gets without one: it looks ten plies ahead
/// within the server's time bound and plays sensibly; `perfect` is
/// offered too, but its first moves from the empty board take minutes.
const DEFAULT_OPPONENT: &str = "alphabeta:depth=10";

/// Opponents the page suggests, the default first, then any Connect Four
/// network the server offers.
fn suggestions(offers: &Offers) -> Vec<String> {
    crate::web::suggestions(
        offers,
        (Connect4::NAME, Connect4::VARIANTS[0]),
        DEFAULT_OPPONENT,
        &[],
        &[
            "perfect:tt=20",
            "alphabeta:depth=4",
            "mcts-rollout:playouts=2000",
            "random",
            HUMAN,
        ],
    )
}

async fn config_info(State(service): State<Arc<Service<Connect4Game>>>) -> Response {
    let state = &service.common;
    ok(json!({
        "variants": [{"name": "standard", "title": "Connect Four", "width": 7, "height": 6}],
        "default_variant": Connect4::VARIANTS[0],
        "suggestions": suggestions(&state.config.offers),
        "default_opponent": DEFAULT_OPPONENT,
        "players": players_json::<Connect4>(),
        "max_think_ms": state.config.max_think_ms(),
        "analysis_nodes": ANALYSIS_NODES,
    }))
}

/// A new game: the human White (who drops first) unless asked otherwise,
/// the opponent [`DEFAULT_OPPONENT`].
async fn new_game(
    State(service): State<Arc<Service<Connect4Game>>>,
    bytes: Bytes,
) -> Result<Response, ApiError> {
    let req: NewGame = body(&bytes)?;
    connect4_named(req.variant.as_deref().unwrap_or(Connect4::VARIANTS[0]))?;
    let options = Connect4Options {
        human: req.color.unwrap_or(Color::White),
        opponent: req.opponent.unwrap_or_else(|| DEFAULT_OPPONENT.to_string()),
        seed: req.seed.unwrap_or_else(rand::random),
    };
    create(&service, move |st| {
        Connect4Game::new(&options, st.config.max_think, &st.config.offers)
    })
    .await
}

/// The solver's scores for every column of the game's position now,
/// computed off the game's lock within [`ANALYSIS_NODES`].
async fn analysis(
    State(service): State<Arc<Service<Connect4Game>>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let game = service.games.get(&id)?;
    let (pos, moves) = {
        let g = lock(&game);
        (*g.seated.position(), g.seated.history().concat())
    };
    let answer = service
        .common
        .work
        .run(move || analyse(&pos, moves, ANALYSIS_NODES))
        .await??;
    Ok(ok(answer))
}
