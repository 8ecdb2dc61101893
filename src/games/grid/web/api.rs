//! The grid game's page and JSON API, beside YINSH's and Morris's: games of
//! the UMO 2014 grid game against any player spec (the exact `solver` by
//! default), with the solver's optimal line and its verdict on the
//! position now.
//!
//! Engines and the solver run on the blocking pool; a game's lock is held
//! only for bookkeeping, as in [`crate::web`].

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::json;

use super::page::{
    GridBoard, GridGame, GridOptions, GridView, OptimalLines, SOLVER_NODES, grid_named, grid_title,
};
use crate::game::{Color, Game};
use crate::games::grid::{Grid, Position};
use crate::web::SeatedGame;
use crate::web::{
    ActionRequest, ApiError, HUMAN, NewGame, Offers, ServedGame, Service, Shared, SlowWork, body,
    create, game_routes, ok, players_json,
};

/// The grid routes' state: its games and each board's optimal line from
/// the start, solved once.
struct GridState {
    service: Arc<Service<GridGame>>,
    lines: OptimalLines,
}

/// The API's routes.
pub(super) fn routes(common: &Shared) -> Router {
    let service = Service::new(common);
    let state = Arc::new(GridState {
        service: service.clone(),
        lines: OptimalLines::default(),
    });
    Router::new()
        .route("/api/grid/config", get(config_info))
        .route("/api/grid/games", post(new_game))
        .with_state(state)
        .merge(game_routes::<GridGame, ActionRequest>("/api/grid/games").with_state(service))
}

impl ServedGame for GridGame {
    type State = Position;
    type View = GridView;
    fn seated(&self) -> &SeatedGame<Position> {
        &self.seated
    }
    fn seated_mut(&mut self) -> &mut SeatedGame<Position> {
        &mut self.seated
    }
    fn view(&self, id: &str) -> GridView {
        GridGame::view(self, id)
    }
    fn slow_work(&self) -> Option<SlowWork> {
        self.verdict_work()
    }
}

/// The opponent a new game gets without one.
const DEFAULT_OPPONENT: &str = "solver";

/// Opponents the page suggests, the default first, then the grid network
/// this project ships (9 x 9) where the server runs in the project's
/// folder.
fn suggestions(offers: &Offers) -> Vec<String> {
    crate::web::suggestions(
        offers,
        (Grid::NAME, Grid::VARIANTS[0]),
        DEFAULT_OPPONENT,
        &[],
        &[
            "alphabeta:depth=4",
            "mcts-rollout:playouts=1000",
            "random",
            HUMAN,
        ],
    )
}

async fn config_info(State(grid): State<Arc<GridState>>) -> Response {
    let state = &grid.service.common;
    let variants: Vec<_> = Grid::VARIANTS
        .iter()
        .map(|name| {
            let grid = Grid::with_variant(name).expect("a known variant");
            let start = GridBoard::of(&grid.start());
            json!({
                "name": name,
                "side": grid.side,
                "title": grid_title(grid),
                "corners": start.corners,
                "start": start.green,
            })
        })
        .collect();
    ok(json!({
        "variants": variants,
        "default_variant": Grid::VARIANTS[0],
        "suggestions": suggestions(&state.config.offers),
        "default_opponent": DEFAULT_OPPONENT,
        "players": players_json::<Grid>(),
        "max_think_ms": state.config.max_think_ms(),
        "solver_nodes": SOLVER_NODES,
    }))
}

/// A new game: 9 x 9 by default, the human Player 1 (`white`, Green,
/// moves first; `black` is Player 2, Red), the opponent `solver`.
async fn new_game(State(state): State<Arc<GridState>>, bytes: Bytes) -> Result<Response, ApiError> {
    let req: NewGame = body(&bytes)?;
    let grid = grid_named(req.variant.as_deref().unwrap_or(Grid::VARIANTS[0]))?;
    let options = GridOptions {
        grid,
        human: req.color.unwrap_or(Color::White),
        opponent: req.opponent.unwrap_or_else(|| DEFAULT_OPPONENT.into()),
        seed: req.seed.unwrap_or_else(rand::random),
    };
    // Solving the board and building a player (maybe loading a network)
    // block, and so does the verdict on the start.
    let lines = state.clone();
    create(&state.service, move |st| {
        GridGame::new(
            &options,
            st.config.max_think,
            lines.lines.get(grid),
            &st.config.offers,
        )
    })
    .await
}
