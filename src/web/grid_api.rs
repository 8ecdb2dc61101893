//! The grid game's page and JSON API, beside YINSH's and Morris's: games of
//! the UMO 2014 grid game against any player spec (the exact `solver` by
//! default), with the solver's optimal line and its verdict on the
//! position now.
//!
//! Engines and the solver run on the blocking pool; a game's lock is held
//! only for bookkeeping, as in [`super::server`].

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::json;

use super::api::{ApiError, body, ok, page};
use super::assets;
use super::error::HUMAN;
use super::grid::{
    GridBoard, GridGame, GridOptions, GridView, SOLVER_NODES, grid_named, grid_title,
};
use super::offers::Offers;
use super::served::{
    ActionRequest, NewGame, ServedGame, SlowWork, create, game_routes, players_json,
};
use super::server::{AppState, Shared};
use super::store::Games;
use crate::game::{Color, Game};
use crate::games::grid::{Grid, Position};

pub(super) fn routes() -> Router<Shared> {
    Router::new()
        .route("/grid", get(|| async { page(assets::GRID_HTML) }))
        .route("/api/grid/config", get(config_info))
        .route("/api/grid/games", post(new_game))
        .merge(game_routes::<GridGame, ActionRequest>("/api/grid/games"))
}

impl ServedGame for GridGame {
    type State = Position;
    type View = GridView;
    fn games(state: &AppState) -> &Games<Self> {
        &state.grid
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
    super::served::suggestions(
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

async fn config_info(State(state): State<Shared>) -> Response {
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
async fn new_game(State(state): State<Shared>, bytes: Bytes) -> Result<Response, ApiError> {
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
    create(&state, move |st| {
        GridGame::new(
            &options,
            st.config.max_think,
            st.grid_lines.get(grid),
            &st.config.offers,
        )
    })
    .await
}
