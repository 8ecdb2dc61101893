//! The grid game's page and JSON API, beside YINSH's and Morris's: games of
//! the UMO 2014 grid game against any player spec (the exact `solver` by
//! default), with the solver's optimal line and its verdict on the
//! position now.
//!
//! Engines and the solver run on the blocking pool; a game's lock is held
//! only for bookkeeping, as in [`super::server`].

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::json;

use super::assets;
use super::game::{GameError, HUMAN};
use super::grid::{
    GridBoard, GridGame, GridOptions, GridView, SOLVER_NODES, grid_named, grid_title,
};
use super::seat::{EngineDone, EngineJob};
use super::server::{
    ApiError, AppState, Games, ServedGame, Shared, SlowWork, body, created, engine_move, get_game,
    lock, ok, page, undo, view_after, view_or_work,
};
use crate::arena::players_of;
use crate::game::{Color, Game};
use crate::grid::{Action, Grid, Position};

pub(super) fn routes() -> Router<Shared> {
    Router::new()
        .route("/grid", get(|| async { page(assets::GRID_HTML) }))
        .route("/api/grid/config", get(config_info))
        .route("/api/grid/games", post(new_game))
        .route("/api/grid/games/{id}", get(get_game::<GridGame>))
        .route("/api/grid/games/{id}/play", post(play))
        .route("/api/grid/games/{id}/engine", post(engine_move::<GridGame>))
        .route("/api/grid/games/{id}/undo", post(undo::<GridGame>))
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
    fn undo(&mut self) -> Result<usize, GameError> {
        GridGame::undo(self)
    }
    fn begin_engine(&mut self) -> Result<EngineJob<Position>, GameError> {
        GridGame::begin_engine(self)
    }
    fn finish_engine(&mut self, done: EngineDone<Position>) -> Result<Vec<Action>, GameError> {
        GridGame::finish_engine(self, done)
    }
    fn engine_lost(&mut self) {
        GridGame::engine_lost(self)
    }
}

fn internal(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
}

/// The opponent a new game gets without one.
const DEFAULT_OPPONENT: &str = "solver";

/// Opponents the page suggests, the default first.
const SUGGESTIONS: &[&str] = &[
    DEFAULT_OPPONENT,
    "alphabeta:depth=4",
    "mcts-rollout:playouts=1000",
    "random",
    HUMAN,
];

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
    let players: Vec<_> = players_of::<Grid>()
        .iter()
        .map(|p| json!({ "name": p.name, "about": p.about, "keys": p.keys.iter().map(|(k, a)| json!({"key": k, "about": a})).collect::<Vec<_>>() }))
        .collect();
    ok(json!({
        "variants": variants,
        "default_variant": Grid::VARIANTS[0],
        "suggestions": SUGGESTIONS,
        "default_opponent": DEFAULT_OPPONENT,
        "players": players,
        "max_think_ms": state.config.max_think.as_millis() as u64,
        "solver_nodes": SOLVER_NODES,
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGame {
    /// `9x9` (default), `5x5`, `7x7` or `11x11`.
    #[serde(default)]
    variant: Option<String>,
    /// `white`: Player 1 (Green, moves first; default); `black`: Player 2
    /// (Red).
    #[serde(default)]
    color: Option<Color>,
    /// A player spec or `human`; default `solver`.
    #[serde(default)]
    opponent: Option<String>,
    #[serde(default)]
    seed: Option<u64>,
}

async fn new_game(State(state): State<Shared>, bytes: Bytes) -> Result<Response, ApiError> {
    let req: NewGame = body(&bytes)?;
    let grid = grid_named(req.variant.as_deref().unwrap_or(Grid::VARIANTS[0]))?;
    let options = GridOptions {
        grid,
        human: req.color.unwrap_or(Color::White),
        opponent: req.opponent.unwrap_or_else(|| DEFAULT_OPPONENT.into()),
        seed: req.seed.unwrap_or_else(rand::random),
    };
    let st = state.clone();
    // Solving the board and building a player (maybe loading a network)
    // block: keep them off the async threads.
    let game = tokio::task::spawn_blocking(move || {
        let optimal = st.grid_lines.get(grid);
        let game = GridGame::new(&options, st.config.max_think, optimal)?;
        if let Some(work) = game.slow_work() {
            work();
        }
        Ok::<_, GameError>(game)
    })
    .await
    .map_err(internal)??;
    Ok(created(&state, game))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayRequest {
    /// `Ge6` (Player 1 moves Green) or `d5` (Player 2 puts a Red stone).
    action: String,
}

async fn play(
    State(state): State<Shared>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Result<Response, ApiError> {
    let game = state.grid.get(&id)?;
    let req: PlayRequest = body(&bytes)?;
    let first = {
        let mut g = lock(&game);
        g.play(&req.action)?;
        view_or_work(&*g, &id)
    };
    Ok(ok(view_after(&game, &id, first).await?))
}
