//! The Emergo page and its JSON API, beside the other games': games of any
//! variant against any player spec. Everything but the new-game request
//! and the config is the routes every game shares ([`game_routes`]).

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::json;

use super::page::{EmergoGame, EmergoOptions, EmergoVariantView, EmergoView, emergo_named};
use crate::game::{Color, Game};
use crate::games::emergo::{Emergo, Position, Variant};
use crate::web::SeatedGame;
use crate::web::{
    ActionRequest, ApiError, HUMAN, NewGame, Offers, ServedGame, Service, Shared, body, create,
    game_routes, ok, players_json,
};

/// The API's routes.
pub(super) fn routes(common: &Shared) -> Router {
    let service = Service::new(common);
    Router::new()
        .route("/api/emergo/config", get(config_info))
        .route("/api/emergo/games", post(new_game))
        .with_state(service.clone())
        .merge(game_routes::<EmergoGame, ActionRequest>("/api/emergo/games").with_state(service))
}

impl ServedGame for EmergoGame {
    type State = Position;
    type View = EmergoView;
    fn seated(&self) -> &SeatedGame<Position> {
        &self.seated
    }
    fn seated_mut(&mut self) -> &mut SeatedGame<Position> {
        &mut self.seated
    }
    fn view(&self, id: &str) -> EmergoView {
        EmergoGame::view(self, id)
    }
}

/// The opponent a new game gets without one: it sees four decisions ahead
/// in a few milliseconds and beats `random` every time.
const DEFAULT_OPPONENT: &str = "alphabeta:depth=4";

/// Opponents the page suggests, the default first, then the Emergo
/// network this project ships (trained on the standard rules) where the
/// server offers it (`serve --offer` offers others).
fn suggestions(offers: &Offers) -> Vec<String> {
    crate::web::suggestions(
        offers,
        (Emergo::NAME, Variant::Standard.name()),
        DEFAULT_OPPONENT,
        &[],
        &[
            "alphabeta:depth=2",
            "mcts-rollout:playouts=1000",
            "random",
            HUMAN,
        ],
    )
}

async fn config_info(State(service): State<Arc<Service<EmergoGame>>>) -> Response {
    let state = &service.common;
    let variants: Vec<_> = Variant::ALL
        .into_iter()
        .map(EmergoVariantView::of)
        .collect();
    ok(json!({
        "variants": variants,
        "default_variant": Variant::Standard.name(),
        "suggestions": suggestions(&state.config.offers),
        "default_opponent": DEFAULT_OPPONENT,
        "players": players_json::<Emergo>(),
        "max_think_ms": state.config.max_think_ms(),
    }))
}

/// A new game: `standard` by default, the human White (who enters first),
/// the opponent [`DEFAULT_OPPONENT`].
async fn new_game(
    State(service): State<Arc<Service<EmergoGame>>>,
    bytes: Bytes,
) -> Result<Response, ApiError> {
    let req: NewGame = body(&bytes)?;
    let variant = emergo_named(req.variant.as_deref().unwrap_or(Variant::Standard.name()))?;
    let options = EmergoOptions {
        variant,
        human: req.color.unwrap_or(Color::White),
        opponent: req.opponent.unwrap_or_else(|| DEFAULT_OPPONENT.to_string()),
        seed: req.seed.unwrap_or_else(rand::random),
    };
    // Building a player may load a network.
    create(&service, move |st| {
        EmergoGame::new(&options, st.config.max_think, &st.config.offers)
    })
    .await
}
